"""A sampled mutation score of mtstrata's metrics/, combine/ and layers/ (no mutmut needed).

Usage (run long jobs under ``nice -n 10``; the trace takes ~23 min on 2 shared cores)::

    python -m tools.mutation_sample trace --map MAP.json        # once per commit
    python -m tools.mutation_sample run --map MAP.json --n 200 --seed 26 \
        [--skip K --limit L] [--add tests/test_new.py ...] --out part1.tsv
    python -m tools.mutation_sample run ... --pick 3,8 --add tests/test_new.py --out part2.tsv
    python -m tools.mutation_sample score part1.tsv part2.tsv   # a re-run mutant: last wins

A run may be split in parts (``--skip``/``--limit``: any prefix of the draw is itself a random
sample); ``--add`` brings test files written after the trace into the snapshot and runs them for
every mutant (killed mutants stay killed when tests are added, so re-running only the
survivors with them, ``--pick``, gives the same score as a whole new run).

**Mutants.** Every candidate is one small change of one line of a module under
``mtstrata/metrics``, ``mtstrata/combine`` or ``mtstrata/layers``, of the kinds mutmut makes: a
comparison operator swapped (``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``), an
arithmetic operator swapped (``+`` <-> ``-``, ``*`` <-> ``/``), ``and`` <-> ``or``, an integer
constant ``k`` -> ``k + 1``, ``True`` <-> ``False``. Docstrings, comments, logging/error messages
and f-strings are not mutated. ``--n`` mutants are drawn at random with ``--seed`` from all
candidates (``random.Random(seed).sample`` over the candidates in sorted file order, so the same
tree, n and seed draw the same mutants).

**Which tests run for a mutant (indirect coverage counts).** ``trace`` runs the whole suite once
(``tests/`` and the package doctests, less the wheel test) under a call tracer
(``sys.settrace`` with a global function only, so no per-line cost; also in threads and in
Python subprocesses started with the inherited environment) and records, for every test, which
functions of the three packages it entered, however indirectly (through the CLI, the registry,
``scoring``), plus its duration and outcome. A mutant on a line inside a function runs every
test that entered that function (the innermost ``def`` holding the line); a mutant on a
module-level line (constants, class bodies, default arguments) runs every test that entered any
function of that module. A test that never enters the function cannot observe the mutant, so
this selection kills what the whole suite would kill, with two exceptions said here: processes
that are forked by a pool and leave with ``os._exit`` and subprocesses started with a fresh
``PYTHONPATH`` are not traced (their tests still count through what the parent process entered).
Tests that failed in the trace run are never selected. Tests run file by file, cheapest first,
with ``-x``.

**Outcome.** *killed*: the tests fail; *timeout*: they run past ``max(--timeout, 4 x their
traced duration + 60 s)`` (counted as killed); *survived*: they pass; *uncovered*: no test enters
the line's function (counted as survived); *budget*: the tests still ran at ``--budget`` seconds
though not past the timeout (undecided: counted as survived); *error*: pytest itself failed
(exit 3-5, counted as survived). Mutants listed in :data:`EQUIVALENT` (same behaviour by
construction, each with its reason, found by reading them) are reported and listed, but left out
of the score. Score = killed / judged with timeouts as killed, everything else but the
equivalents as not killed,
printed with its exact (Clopper-Pearson) 95% binomial confidence interval
(``scipy.stats.binomtest(k, n).proportion_ci()``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtstrata.errors import InputError
from tools import _cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("metrics", "combine", "layers")
SWAPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==",
         "+": "-", "-": "+", "*": "/", "/": "*", " and ": " or ", " or ": " and "}

#: Equivalent mutants, found by reading them: (path, line before, line after) stripped -> why
#: the mutant cannot change behaviour. They are reported, never silently dropped.
EQUIVALENT: dict[tuple[str, str, str], str] = {
    ("mtstrata/metrics/lexical/bleu.py", "x = s[-2] / s[-1] if s[-1] else 0.0",
     "x = s[-2] / s[-1] if s[-2] else 0.0"):
        "BLEU-SBP's sbp_min = min(|c|, |r|) and sbp_ref = |r| are sums of non-negative "
        "lengths with sbp_min <= sbp_ref: sbp_ref = 0 implies sbp_min = 0, and sbp_min = 0 "
        "gives x = 0 either way",
    ("mtstrata/metrics/linguistic/elements.py",
     "_rows, types, ids = ex.encode(ex, Columns([seg], [0]), vocab)",
     "_rows, types, ids = ex.encode(ex, Columns([seg], [1]), vocab)"):
        "items() discards the row labels it passes; Columns and every extractor use ``rows`` "
        "only as the labels of what they return (their own arrays are indexed by position)",
    ("mtstrata/metrics/linguistic/bllip.py",
     "hits, hyp, ref = (float(x) for x in stats[2:5])",
     "hits, hyp, ref = (float(x) for x in stats[2:6])"):
        "Bllip's statistics are always 5 wide (score_sum, defined, hits, hyp, ref): the slice "
        "[2:6] is [2:5]",
    ("mtstrata/metrics/lexical/tbleu.py", "if not hyp or not ref or eps <= 0:",
     "if not hyp or not ref and eps <= 0:"):
        "a shortcut: the cases it no longer returns early for (eps <= 0 with a reference) reach "
        "_may_correct, whose long_r = {w : len(w) * eps >= 1 - 1e-12} is then empty, so the "
        "same uncorrected words and weights are returned",
    ("mtstrata/metrics/lexical/bleu.py",
     "total = [int(round(x)) for x in stats[2 + o:2 + 2 * o]]",
     "total = [int(round(x)) for x in stats[2 + o:3 + 2 * o]]"):
        "the extra item (sbp_min) is never read: sacreBLEU's compute_bleu reads total[n - 1] "
        "for n = 1..max_ngram_order only and we keep only its .score",
    ("mtstrata/metrics/ulc.py",
     "specs: tuple[str, ...] = field(init=False, compare=False, repr=False)",
     "specs: tuple[str, ...] = field(init=False, compare=True, repr=False)"):
        "specs is derived in __post_init__ from the set file that the compared field set names "
        "(and sha256 pins): equal sets give equal specs, so equality and hashing do not change",
    ("mtstrata/metrics/learned_set.py",
     "for n, w in zip(self.norms, self.weights, strict=True)], axis=0)",
     "for n, w in zip(self.norms, self.weights, strict=False)], axis=0)"):
        "Level.__post_init__ refuses norms and weights of different lengths and the dataclass "
        "is frozen, so the zip never sees unequal lengths",
    ("mtstrata/metrics/lexical/bleu.py", "strict=True)]", "strict=False)]"):
        "stats_batch's zip(matches, table): matches is built by zip(hyps, table, strict=True) "
        "over the same table, after len(hyps) == len(refs) is checked, so lengths are equal",
    ("mtstrata/meta/stats.py", "a = a / np.where(big > 0, big, 1.0)",
     "a = a / np.where(big >= 0, big, 1.0)"):
        "big = max |a| of a row is 0 only for an all-zero row, which is constant: _unit_rows' "
        "only caller, _pearson_rows, masks constant rows as NaN whatever _unit_rows returns",
    ("mtstrata/metrics/lexical/chars.py",
     "cur = np.full(len(lines.codes), -1, dtype=np.int64)  # id of the gram starting there",
     "cur = np.full(len(lines.codes), +1, dtype=np.int64)  # id of the gram starting there"):
        "_ids never reads the initial fill: order 1 uses zeros for prev and sets cur[:] = -1 "
        "before order 2 reads cur",
}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to ROOT
    line: int  # 1-based
    before: str
    after: str

    def label(self) -> str:
        return f"{self.path}:{self.line}: {self.before.strip()} -> {self.after.strip()}"

    def equivalent(self) -> str | None:
        got = EQUIVALENT.get((self.path, self.before.strip(), self.after.strip()))
        if got is None and self.path == "mtstrata/layers/srl/linear.py" and any(
                self.before[:i] + "-2" + self.before[i + 2:] == self.after
                and re.match(r"-1(\)|,|$)", self.before[i:i + 3])
                and re.search(r"(\.get\([^()]*, |else )$", self.before[:i])
                for i in range(len(self.before))) and "self.features.get" not in self.before:
            got = ("-1 is the 'unknown feature' id of a row of column ids; matrix_ids keeps "
                   "ids >= 0 only, so any negative default is the same")
        return got


def _skip_lines(tree: ast.AST) -> set[int]:
    """Lines of docstrings, raise/warn/log messages and f-strings (not behaviour)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant) and isinstance(
                body[0].value.value, str):
            skip.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
        if isinstance(node, (ast.Raise, ast.JoinedStr)) or (
                isinstance(node, ast.Call) and getattr(node.func, "attr", "") in (
                    "warn", "info", "warning", "debug", "error")):
            skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return skip


def candidates(path: Path, base: Path = ROOT) -> list[Mutant]:
    text = path.read_text(encoding="utf-8")
    skip = _skip_lines(ast.parse(text))
    rel = str(path.relative_to(base))
    out: list[Mutant] = []
    for no, line in enumerate(text.splitlines(), start=1):
        code = line.split("#", 1)[0]
        if no in skip or not code.strip() or code.lstrip().startswith(("import", "from", "@")):
            continue
        if '"' in code or "'" in code:  # strings on the line: operators may be inside them
            code_ops = re.sub(r"(\"[^\"]*\"|'[^']*')", lambda m: " " * len(m.group()), code)
        else:
            code_ops = code
        for op, new in SWAPS.items():
            pat = (re.escape(op) if op.strip() != op else
                   r"(?<=[\w)\] ])" + re.escape(op) + r"(?=[ \w(\[-])")
            for m in re.finditer(pat, code_ops):
                s, e = m.span()
                if op in ("<", ">") and code_ops[e:e + 1] in ("=", op) or \
                        op in ("<", ">") and code_ops[s - 1:s] in ("<", ">", "-", "="):
                    continue
                if op in ("*", "/") and (code_ops[e:e + 1] in ("*", "/", "=") or
                                         code_ops[s - 1:s] in ("*", "/", "(", ",")):
                    continue
                if op in ("+", "-") and (code_ops[e:e + 1] in ("=", ">") or
                                         code_ops[s - 1:s] in ("e", "E", "(", ",", "[", "=")):
                    continue
                if op in ("==", "!=", "<=", ">=") and code_ops[s - 1:s] in ("=", "!", "<", ">"):
                    continue
                out.append(Mutant(rel, no, line, line[:s] + new + line[e:]))
        for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", code_ops):
            s, e = m.span()
            out.append(Mutant(rel, no, line, line[:s] + str(int(m.group()) + 1) + line[e:]))
        for word, new in (("True", "False"), ("False", "True")):
            for m in re.finditer(rf"\b{word}\b", code_ops):
                s, e = m.span()
                out.append(Mutant(rel, no, line, line[:s] + new + line[e:]))
    return out


# --- the tracer (written to a temporary directory put first on PYTHONPATH) -------------------

_SITECUSTOMIZE = r'''
import atexit, json, os, sys, threading
_PREFIXES = tuple(os.environ["MUT_TRACE_PREFIXES"].split(os.pathsep))
_ROOT = os.environ["MUT_TRACE_ROOT"]
_DIR = os.environ["MUT_TRACE_DIR"]
HITS = {}
CURRENT = [os.environ.get("MUT_TRACE_TEST", "<outside>")]

def _tracer(frame, event, arg):
    co = frame.f_code
    if co.co_filename.startswith(_PREFIXES):
        s = HITS.get(CURRENT[0])
        if s is None:
            s = HITS[CURRENT[0]] = set()
        s.add((co.co_filename, co.co_firstlineno))
    return None

def _dump():
    sys.settrace(None)
    out = {t: sorted([os.path.relpath(f, _ROOT), n] for f, n in s) for t, s in HITS.items()}
    tmp = os.path.join(_DIR, "hits-%d.json.tmp" % os.getpid())
    with open(tmp, "w") as fh:
        json.dump(out, fh)
    os.replace(tmp, tmp[:-4])

sys.settrace(_tracer)
threading.settrace(_tracer)
atexit.register(_dump)
'''

_PLUGIN = r'''
import json, os, sitecustomize
_RESULTS = {}

def pytest_runtest_protocol(item, nextitem):
    sitecustomize.CURRENT[0] = item.nodeid
    os.environ["MUT_TRACE_TEST"] = item.nodeid

def pytest_runtest_logreport(report):
    r = _RESULTS.setdefault(report.nodeid, {"duration": 0.0, "outcome": "passed"})
    r["duration"] += report.duration
    if report.outcome == "failed" or (report.when == "call" and report.outcome == "skipped"):
        if r["outcome"] != "failed":
            r["outcome"] = report.outcome

def pytest_runtest_logfinish(nodeid, location):
    sitecustomize.CURRENT[0] = "<between>"
    os.environ["MUT_TRACE_TEST"] = "<between>"

def pytest_sessionfinish(session, exitstatus):
    with open(os.path.join(os.environ["MUT_TRACE_DIR"], "results.json"), "w") as fh:
        json.dump(_RESULTS, fh)
'''


def trace(map_path: Path, extra: list[str], merge: bool = False) -> int:
    """Run the suite once under the call tracer; write {results, hits} to ``map_path``."""
    with tempfile.TemporaryDirectory() as tmp:
        tdir = Path(tmp)
        (tdir / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
        (tdir / "mut_trace_plugin.py").write_text(_PLUGIN, encoding="utf-8")
        out = tdir / "out"
        out.mkdir()
        prefixes = os.pathsep.join(str(ROOT / "mtstrata" / p) + os.sep for p in PACKAGES)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tdir), str(ROOT)]),
                   MUT_TRACE_PREFIXES=prefixes, MUT_TRACE_ROOT=str(ROOT), MUT_TRACE_DIR=str(out),
                   HYPOTHESIS_PROFILE="ci")
        t0 = time.time()
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
               "mut_trace_plugin", "-m", "not wheel", "--ignore=tests/test_wheel.py",
               "-o", "addopts=--doctest-modules", *(extra or ["tests", "mtstrata"])]
        r = subprocess.run(cmd, cwd=ROOT, env=env, check=False)
        print(f"trace run: exit {r.returncode}, {time.time() - t0:.0f} s", flush=True)
        hits: dict[str, set[tuple[str, int]]] = defaultdict(set)
        for f in out.glob("hits-*.json"):
            for test, keys in json.loads(f.read_text(encoding="utf-8")).items():
                hits[test].update((k[0], k[1]) for k in keys)
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    data = {"results": results, "hits": {t: sorted(s) for t, s in hits.items()},
            "commit": _git("rev-parse", "HEAD").strip(), "dirty": _dirty()}
    if merge and map_path.exists():  # tests added since the whole-suite trace
        old = read_map(map_path)
        if old.get("commit") != data["commit"] or old.get("dirty") != data["dirty"]:
            print(f"refused: {map_path} was traced on {old.get('commit')}, the package code "
                  "differs now; trace the whole suite again", file=sys.stderr)
            return 2
        data = {k: {**old[k], **data[k]} if isinstance(data[k], dict) else data[k]
                for k in data}
    map_path.write_text(json.dumps(data), encoding="utf-8")
    failed = [t for t, r in results.items() if r["outcome"] == "failed"]
    print(f"{len(results)} tests traced, {len(failed)} failed (never selected): {failed[:20]}")
    return 0


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def _dirty() -> list[str]:
    """Package files that differ from the commit (a map is only valid for its commit)."""
    out = _git("status", "--porcelain", "--", *(f"mtstrata/{p}" for p in PACKAGES))
    return sorted(line[3:] for line in out.splitlines())


def snapshot(commit: str, dest: Path, add: list[str]) -> None:
    """The tree of ``commit`` (what the map was traced on) in ``dest``, plus the files ``add``
    (new test files) as they are in the work tree."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "xf", "-"], cwd=dest, input=archive, check=True)
    for f in add:
        shutil.copy2(ROOT / f, dest / f)


# --- selecting the tests of a mutant ---------------------------------------------------------

def read_map(path: Path) -> dict[str, Any]:
    """A map written by ``trace`` (its tests' results, the functions each entered, the commit).

    Raises:
        InputError: the file is missing, not JSON or not a map.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read the mutation map ({e}); write one with `python -m "
                         "tools.mutation_sample trace --map FILE` first.", str(path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError("not a mutation map written by `python -m tools.mutation_sample "
                         "trace` (no \"results\"); trace again.", str(path))
    return data


class Selector:
    """Tests that enter the function holding a line (or any function of a module)."""

    def __init__(self, map_path: Path, tree: Path):
        data = read_map(map_path)
        self.tree = tree
        self.commit = data.get("commit", "")
        if data.get("dirty"):
            raise SystemExit(f"{map_path} was traced with uncommitted package changes "
                             f"{data['dirty']}: commit them and trace again")
        self.results = data["results"]
        ok = {t for t, r in self.results.items() if r["outcome"] != "failed"}
        self.by_func: dict[tuple[str, int], set[str]] = defaultdict(set)
        self.by_module: dict[str, set[str]] = defaultdict(set)
        for test, keys in data["hits"].items():
            if test not in ok:  # "<outside>"/"<between>" (collection) and failing tests
                continue
            for path, first in keys:
                self.by_func[(path, first)].add(test)
                self.by_module[path].add(test)
        self._defs: dict[str, list[tuple[int, int, int]]] = {}

    def _functions(self, rel: str) -> list[tuple[int, int, int]]:
        """(start, end, co_firstlineno) of every def of a module; decorators included."""
        if rel not in self._defs:
            tree = ast.parse((self.tree / rel).read_text(encoding="utf-8"))
            self._defs[rel] = [
                (min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno or n.lineno,
                 min([n.lineno] + [d.lineno for d in n.decorator_list]))
                for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        return self._defs[rel]

    def tests(self, m: Mutant) -> tuple[list[str], float]:
        inner = [d for d in self._functions(m.path) if d[0] <= m.line <= d[1]]
        if inner:
            first = max(inner, key=lambda d: d[0])[2]
            chosen = self.by_func.get((m.path, first), set())
        else:
            chosen = self.by_module.get(m.path, set())
        dur = {t: self.results[t]["duration"] for t in chosen}
        per_file: dict[str, float] = defaultdict(float)
        for t, d in dur.items():
            per_file[t.split("::", 1)[0]] += d
        order = sorted(chosen, key=lambda t: (per_file[t.split("::", 1)[0]], t.split("::")[0],
                                               dur[t], t))
        return order, sum(dur.values())


# --- running mutants -------------------------------------------------------------------------

def run_one(m: Mutant, work: Path, sel: Selector, timeout: int, budget: int,
            extra: list[str]) -> tuple[str, int, float]:
    tests, cost = sel.tests(m)
    tests = [*extra, *tests]  # test files added since the trace: run for every mutant
    if not tests:
        return "uncovered", 0, 0.0
    target = work / m.path
    original = target.read_text(encoding="utf-8")
    lines = original.splitlines(keepends=True)
    end = "\n" if lines[m.line - 1].endswith("\n") else ""
    lines[m.line - 1] = m.after + end
    target.write_text("".join(lines), encoding="utf-8")
    slow = max(timeout, int(4 * cost) + 60)  # past this the mutant made the tests hang
    limit = min(slow, budget)
    t0 = time.time()
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                            "-o", "addopts=--doctest-modules", *tests], cwd=work,
                           capture_output=True, timeout=limit, env=_env(work), check=False)
        # 1: a test failed; 2: a collection error (the mutant breaks an import): both kill it
        state = {0: "survived", 1: "killed", 2: "killed"}.get(r.returncode, "error")
        if state == "error":  # 3-5: pytest's internal or usage error, no test run: a tool fault
            out = r.stdout.decode(errors="replace")[-600:]
            print(out, r.stderr.decode(errors="replace")[-600:], flush=True)
    except subprocess.TimeoutExpired:  # past the budget only: undecided, scored as survived
        state = "timeout" if limit == slow else "budget"
    finally:
        target.write_text(original, encoding="utf-8")
    return state, len(tests), time.time() - t0


def _env(work: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(work), HYPOTHESIS_PROFILE="ci",
                PYTHONDONTWRITEBYTECODE="1")


def interval(k: int, n: int) -> tuple[float, float]:
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return ci.low, ci.high


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "tree"
        commit = read_map(args.map).get("commit") or "HEAD"
        snapshot(commit, work, args.add)
        return _run(args, work, commit)


def _run(args: argparse.Namespace, work: Path, commit: str) -> int:
    """Mutants of the snapshot ``work`` (the map's commit): the map's lines are its lines."""
    files = sorted(p for pkg in PACKAGES for p in (work / "mtstrata" / pkg).rglob("*.py"))
    pool = [m for f in files for m in candidates(f, work)]
    sample = random.Random(args.seed).sample(pool, min(args.n, len(pool)))
    if args.pick:
        sample = [sample[int(i) - 1] for i in args.pick.split(",")]
    if args.only:
        sample = [m for m in sample if m.path.startswith(args.only)]
    sample = sample[args.skip:args.skip + args.limit if args.limit else None]
    print(f"{len(pool)} candidate mutants in {len(files)} modules of {commit[:12]}; "
          f"{len(sample)} drawn (seed {args.seed}, n {args.n})", flush=True)
    sel = Selector(args.map, work)
    rows = []
    out = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    if True:
        for i, m in enumerate(sample, start=1):
            if m.equivalent():
                state, ntests, secs = "equivalent", 0, 0.0
            else:
                state, ntests, secs = run_one(m, work, sel, args.timeout, args.budget,
                                            [f for f in args.add if f.startswith("tests/")])
            rows.append((state, m))
            print(f"[{i}/{len(sample)}] {state:10} {ntests:4d} tests {secs:5.0f} s  {m.label()}",
                  flush=True)
            if out:
                out.write(f"{state}\t{ntests}\t{secs:.0f}\t{m.label()}\n")
                out.flush()
    if out:
        out.close()
    report([s for s, _ in rows], [m for _, m in rows])
    return 0


def report(states: list[str], mutants: list[Mutant]) -> None:
    count = defaultdict(int)
    for s in states:
        count[s] += 1
    k = count["killed"] + count["timeout"]
    n = k + count["survived"] + count["uncovered"] + count["budget"] + count["error"]
    print(", ".join(f"{s} {c}" for s, c in sorted(count.items())))
    if n:
        lo, hi = interval(k, n)
        print(f"score {k}/{n} = {k / n:.1%}, 95% CI [{lo:.1%}, {hi:.1%}] (Clopper-Pearson; "
              "timeouts counted as killed, uncovered and budget as survived, equivalents "
              "left out)")
    for s, m in zip(states, mutants):
        if s == "equivalent":
            print(f"  equivalent: {m.label()}  -- {m.equivalent()}")
        elif s not in ("killed", "timeout"):
            print(f"  {s}: {m.label()}")


def main() -> int:
    ap = _cli.parser("mutation_sample", __doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("trace", help="run the suite once under the call tracer")
    t.add_argument("--map", type=Path, default=Path("mutation-map.json"))
    t.add_argument("--merge", action="store_true",
                   help="add the traced tests to an existing map (e.g. new test files)")
    t.add_argument("pytest_args", nargs="*", help="what to run (default: tests mtstrata)")
    r = sub.add_parser("run", help="draw mutants and run the tests that reach each")
    r.add_argument("--n", type=_cli.positive, default=200)
    r.add_argument("--seed", type=int, default=26)
    r.add_argument("--timeout", type=int, default=120)
    r.add_argument("--budget", type=int, default=300,
                   help="stop a mutant's tests after this many seconds (scored as survived)")
    r.add_argument("--map", type=_cli.existing_file, default=Path("mutation-map.json"))
    r.add_argument("--out", type=Path)
    r.add_argument("--only", help="run only the drawn mutants under this path prefix")
    r.add_argument("--pick", help="only these 1-based positions of the draw, e.g. 3,4,8")
    r.add_argument("--add", nargs="*", default=[],
                   help="files added to the map's commit; tests among them run for every mutant")
    r.add_argument("--skip", type=int, default=0, help="skip the first SKIP drawn (resume)")
    r.add_argument("--limit", type=int, default=0,
                   help="run at most LIMIT of the drawn (a run in parts; see score)")
    s = sub.add_parser("score", help="score a --out TSV of run (several runs appended)")
    s.add_argument("tsv", type=_cli.existing_file, nargs="+")
    args = ap.parse_args()
    if args.cmd == "trace":
        return trace(args.map, args.pytest_args, args.merge)
    if args.cmd == "score":
        return score_tsv(args.tsv)
    return run(args)


def score_tsv(tsvs: list[Path]) -> int:
    """Score appended runs; a mutant run again (e.g. with tests added since) keeps its last
    state."""
    last: dict[str, str] = {}
    for tsv in tsvs:
        for n, line in enumerate(tsv.read_text(encoding="utf-8").splitlines(), 1):
            fields = line.split("\t", 3)
            if len(fields) != 4 or not re.fullmatch(r"[^:]+:\d+:.*", fields[3]):
                raise InputError("not a line of `python -m tools.mutation_sample run --out` "
                                 "(state, tests, seconds and PATH:LINE: before -> after, tab-"
                                 "separated); pass the TSV files run wrote.", str(tsv), n)
            last.pop(fields[3], None)
            last[fields[3]] = line
    states, mutants = [], []
    for line in last.values():
        state, _, _, label = line.split("\t", 3)
        if state == "error(2)":  # written by an earlier version: a collection error kills
            state = "killed"
        path, no, rest = label.split(":", 2)
        parts = rest.strip().split(" -> ")  # a line may hold " -> " itself, as often as after
        before, after = " -> ".join(parts[:len(parts) // 2]), " -> ".join(parts[len(parts) // 2:])
        m = Mutant(path, int(no), before, after)
        if state not in ("killed", "timeout") and m.equivalent():
            state = "equivalent"
        states.append(state)
        mutants.append(m)
    report(states, mutants)
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main, "mutation_sample"))
