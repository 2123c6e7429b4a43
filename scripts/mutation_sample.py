"""A sampled mutation score of mtstrata's metrics/, combine/ and layers/ (no mutmut needed).

Usage::

    python scripts/mutation_sample.py [--n 40] [--seed 1] [--timeout 240] [--out FILE.tsv]

Every candidate mutant is one small change of one line of a module under ``mtstrata/metrics``,
``mtstrata/combine`` or ``mtstrata/layers``, of the kinds mutmut makes: a comparison operator
swapped (``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``), an arithmetic operator swapped
(``+`` <-> ``-``, ``*`` <-> ``/``), ``and`` <-> ``or``, an integer constant ``k`` -> ``k + 1``,
``True`` <-> ``False``. Docstrings, comments, logging/error messages and ``__repr__`` are not
mutated. ``--n`` mutants are drawn at random (``--seed``) from all candidates. Each is applied
to a copy of the source tree and the tests of its module run with ``-x`` (:func:`tests_for`:
the test files that import it, plus the golden snapshot and the contract test for metrics). A
mutant is *killed* when they fail, *timeout* past ``--timeout`` (counted as killed), *survived*
when they pass. Score: (killed + timeout) / (killed + timeout + survived). Tests that reach a
module only through the registry (``metrics.create("Bllip")``) are not run for it, so the
score is a lower bound of what the whole suite kills.
"""

from __future__ import annotations

import argparse
import ast
import random
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("metrics", "combine", "layers")
SWAPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==",
         "+": "-", "-": "+", "*": "/", "/": "*", " and ": " or ", " or ": " and "}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to ROOT
    line: int  # 1-based
    before: str
    after: str

    def label(self) -> str:
        return f"{self.path}:{self.line}: {self.before.strip()} -> {self.after.strip()}"


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


def candidates(path: Path) -> list[Mutant]:
    text = path.read_text(encoding="utf-8")
    skip = _skip_lines(ast.parse(text))
    rel = str(path.relative_to(ROOT))
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


def tests_for(rel: str) -> list[str]:
    """Test files that import the module (by its dotted path, or ``from PKG import NAME``),
    plus the golden snapshot and the contract test for a metric module; a module no test
    imports gets its package's tests (``test_layers_*``, ``test_combine_*``)."""
    mod = rel[:-3].replace("/", ".")
    pkg, _, name = mod.rpartition(".")
    direct = re.compile(rf"({re.escape(mod)}\b|from {re.escape(pkg)} import "
                        rf"(\([^)]*\b{name}\b[^)]*\)|[^\n(]*\b{name}\b))")
    out = [f"tests/{t.name}" for t in sorted((ROOT / "tests").glob("test_*.py"))
           if t.name != "test_wheel.py" and direct.search(t.read_text(encoding="utf-8"))]
    if rel.startswith("mtstrata/metrics"):
        out += ["tests/test_golden_snapshot.py", "tests/test_contract.py"]
    if not out:
        family = rel.split("/")[1]
        out = [f"tests/{t.name}" for t in sorted((ROOT / "tests").glob(f"test_{family}_*.py"))]
    return sorted(set(out))


def run_one(m: Mutant, work: Path, timeout: int) -> str:
    tests = tests_for(m.path)
    if not tests:
        return "no test"
    target = work / m.path
    original = target.read_text(encoding="utf-8")
    lines = original.splitlines(keepends=True)
    end = "\n" if lines[m.line - 1].endswith("\n") else ""
    lines[m.line - 1] = m.after + end
    target.write_text("".join(lines), encoding="utf-8")
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                            "-o", "addopts=", *tests], cwd=work, capture_output=True,
                           timeout=timeout, env=_env(work), check=False)
        return "survived" if r.returncode == 0 else "killed"
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        target.write_text(original, encoding="utf-8")


def _env(work: Path) -> dict[str, str]:
    import os

    return dict(os.environ, PYTHONPATH=str(work), HYPOTHESIS_PROFILE="default")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=240)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    files = sorted(p for pkg in PACKAGES for p in (ROOT / "mtstrata" / pkg).rglob("*.py"))
    pool = [m for f in files for m in candidates(f)]
    sample = random.Random(args.seed).sample(pool, min(args.n, len(pool)))
    print(f"{len(pool)} candidate mutants in {len(files)} modules; {len(sample)} drawn "
          f"(seed {args.seed})", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "tree"
        shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(
            ".git", "__pycache__", ".venv", "*.egg-info", "build"))
        for i, m in enumerate(sample, start=1):
            state = run_one(m, work, args.timeout)
            rows.append((state, m))
            print(f"[{i}/{len(sample)}] {state:9} {m.label()}", flush=True)
    killed = sum(s == "killed" for s, _ in rows)
    timeouts = sum(s == "timeout" for s, _ in rows)
    survived = sum(s == "survived" for s, _ in rows)
    untested = sum(s == "no test" for s, _ in rows)
    judged = killed + timeouts + survived
    print(f"killed {killed}, timeout {timeouts}, survived {survived}, no test {untested}; "
          f"score {(killed + timeouts) / judged:.1%} (timeouts counted as killed)"
          if judged else "nothing judged")
    if args.out:
        args.out.write_text("state\tmutant\n" + "".join(f"{s}\t{m.label()}\n" for s, m in rows),
                            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
