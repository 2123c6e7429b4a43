"""Build the bundled metric sets ``mtstrata/data/sets/ULC-lex.json``, ``ULC.json``,
``ULC-emb.json`` and ``ULC-years.json`` with the nested procedure (``search --nested``, issue
36 item 4; the runs and the rule were fixed before any figure: docs/nested-search.md,
*Pre-registration*).

Each set is the final set of ``mtstrata search --nested --outer year`` over its pool's
candidates (``cross_year.POOLS``) on WMT17 (judged segments only) and WMT19 into-English, the
selection procedure (:data:`CONFIGS`) run on all 14 pairs; the nested estimate of what that
procedure does on an unseen year (set - chrF system Pearson, its 95% interval, PERM-BOTH
against chrF) is in its provenance. Beside it, ``search --nested --outer pair`` over the 7 WMT17
pairs with item-wise Kendall (reported, chooses nothing). :func:`verdict` applies the
pre-registered rule: a set is kept unless its procedure ends at chrF alone or an interval lies
wholly below 0, and is called better than chrF at a level only with p < 0.05 and an interval
above 0.

* ``ULC-lex``: pool ``lex``, text metrics only (usable for any target language);
* ``ULC``: pool ``ling``, text metrics plus METEOR-sy and the Asiya families;
* ``ULC-emb``: pool ``emb``, text metrics plus EMB-cos and EMB-F (the emb layer);
* ``ULC-years``: pool ``all``, text, METEOR-sy, SR-Mrs(*) and the embedding metrics.

A set not kept leaves its file as it is, and says so. Usage::

    python -m tools.make_sets --wmt17-judged SCRATCH [--only ULC-lex] [--tables DIR] \
        [--cache ANN.sqlite] [--runs DIR]

(``SCRATCH``: a folder outside the repository for the judged-segment copies of WMT17;
``--runs``: where the two runs' JSON and sets are kept, outside the repository.)
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mtstrata._version import __version__
from mtstrata.errors import InputError
from mtstrata.metrics.ulc import BUNDLED, SETS_DIR
from mtstrata.output import atomic_write
from tools import _cli
from tools.cross_year import POOLS, SET_OF_POOL
from tools.cross_year_data import judged_subset, pair_dirs

#: the builder a set's provenance names (``"script"``); the sets built before the tools moved
#: out of ``scripts/`` name that path, a historical record kept as written
SCRIPT = "tools/make_sets.py"
BUILT_BY = (SCRIPT, "scripts/make_sets.py")
#: what each set's provenance says of its members' layers
NOTES = {
    "ULC-lex": "text metrics only: usable for any target language",
    "ULC": "text and linguistic metrics (English targets: spaCy en_core_web_sm annotation, the "
           "learned role labeller, WordNet)",
    "ULC-emb": "text and embedding metrics (English targets: the emb layer's pinned "
               "all-MiniLM-L6-v2)",
    "ULC-years": "text, linguistic (METEOR-sy; SR-Mrs(*): the learned labeller's role "
                 "arguments matched in the emb layer's vector space) and embedding metrics "
                 "(English targets: spaCy, the learned role labeller, WordNet and the emb "
                 "layer's pinned all-MiniLM-L6-v2)",
}
#: the configurations compared (pre-registered): `all` without the z fits, whose sets are
#: standardised within the run and so are not metrics of one system
CONFIGS = ("chrf", *(x for o in ("sys_pearson", "accuracy", "sys_kendall")
                     for x in (f"best:{o}", f"{o}:minmax", f"{o}:pairsd")))
RESAMPLES, SEED = 1000, 12345
#: the two runs: (key in the provenance, --outer, years, --segment-statistic)
RUNS = (("across_years", "year", ("wmt17", "wmt19"), "none"),
        ("wmt17_pairs", "pair", ("wmt17",), "kendall_itemwise"))
LEVEL_TEXT = {"sys_pearson": "system Pearson", "seg_kendall_itemwise": "item-wise Kendall"}


def nested_search(dirs: Sequence[Path], candidates: Sequence[str], outer: str, seg: str,
                  out: Path, args: argparse.Namespace) -> dict[str, Any]:
    """``mtstrata search --nested`` (the package's command, in a child process) over ``dirs``;
    returns the written set file's JSON (the nested figures in ``provenance.nested``)."""
    cmd = [sys.executable, "-m", "mtstrata", "search", "--nested", "--quiet",
           "--data", *map(str, dirs), "-m", *candidates, "--outer", outer,
           "--segment-statistic", seg, "--configs", *CONFIGS, "--resamples", str(RESAMPLES),
           "--seed", str(SEED), "--tables", str(args.tables), "--out", str(out), "-f", "json"]
    if args.cache:
        cmd += ["--cache", str(args.cache)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode:
        raise InputError(f"search --nested --outer {outer} failed (exit {r.returncode}):\n"
                         + r.stderr[-2000:])
    (out.with_suffix(".stdout.json")).write_text(r.stdout, encoding="utf-8")
    return json.loads(out.read_text(encoding="utf-8"))


def _figures(nested: Mapping[str, Any], stat: str) -> dict[str, Any]:
    est = nested["estimate"][stat]
    return {"set": est["set"], "chrF": est["chrF"], "delta": est["delta"],
            "interval": est["interval"], "p": nested["test"][stat]["p"]}


def verdict(runs: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The pre-registered rule over the runs' nested figures (``runs``: key -> the
    ``provenance.nested`` of a run): kept, and per level whether the set is better than chrF,
    with the sentence every claim quotes."""
    final = runs["across_years"]["final"]
    levels, worse = {}, []
    for key, nested in runs.items():
        for stat in nested["statistics"]:
            f = _figures(nested, stat)
            lo, hi = f["interval"]
            f["better_than_chrF"] = bool(f["p"] < 0.05 and lo > 0)
            if hi < 0:
                worse.append(f"{key} {stat}")
            levels[f"{key}.{stat}"] = f
    why = ("its procedure ends at chrF alone" if final["chosen"] == "chrf" else
           f"significantly worse than chrF ({', '.join(worse)})" if worse else "")
    return {"kept": not why, "why_not_kept": why or None, "levels": levels,
            "final": {"chosen": final["chosen"], "members": final["members"]},
            "claim": claim(levels, final["members"])}


def claim(levels: Mapping[str, Mapping[str, Any]], members: Sequence[str]) -> str:
    """One sentence per level: the nested estimate of set - chrF, its interval and p, and
    "better than chrF" only when the rule says so."""
    where = {"across_years": "on an unseen year (WMT17 <-> WMT19)",
             "wmt17_pairs": "on an unseen WMT17 language pair"}
    parts = []
    for key, f in levels.items():
        run, stat = key.split(".")
        lo, hi = f["interval"]
        word = ("better than chrF" if f["better_than_chrF"] else
                "not shown to differ from chrF")
        parts.append(f"{LEVEL_TEXT.get(stat, stat)} {where[run]}: {word}, set - chrF "
                     f"{f['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}], PERM-BOTH p {f['p']:.3f}")
    one = f" (one metric: {members[0]})" if len(members) == 1 else ""
    return "nested estimate" + one + ": " + "; ".join(parts)


def build_set(name: str, args: argparse.Namespace) -> Path | None:
    """Set ``name``: both runs over its pool, :func:`verdict`, and (when kept) the final set of
    the run across years written with both runs' figures in its provenance."""
    pool = next(k for k, v in SET_OF_POOL.items() if v == name)
    candidates = list(POOLS[pool])
    dirs = {y: pair_dirs(args.data, y) for y in ("wmt17", "wmt19")}
    dirs["wmt17"] = judged_subset(dirs["wmt17"], args.wmt17_judged)
    runs_dir = Path(args.runs)
    runs_dir.mkdir(parents=True, exist_ok=True)
    written, nested = {}, {}
    for key, outer, years, seg in RUNS:
        out = runs_dir / f"{name}.{key}.json"
        written[key] = nested_search([d for y in years for d in dirs[y]], candidates, outer,
                                     seg, out, args)
        nested[key] = written[key]["provenance"]["nested"]
    v = verdict(nested)
    (runs_dir / f"{name}.verdict.json").write_text(json.dumps(v, indent=1), encoding="utf-8")
    print(f"{name}: {v['claim']}", file=sys.stderr)
    if not v["kept"]:
        print(f"{name}: not kept ({v['why_not_kept']}); {SETS_DIR / BUNDLED[name]} left as it "
              "is", file=sys.stderr)
        return None
    doc = written["across_years"]
    prov = doc["provenance"]
    doc["provenance"] = {
        "mtstrata": __version__, "name": name,
        "built": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "script": SCRIPT, "procedure": "search --nested (mtstrata.combine."
        "nested): the selection procedure run on all 14 pairs",
        "data": "WMT17 into-English DA (newstest2017, 7 pairs, system and segment judgments; "
                "lowercased, tokenised; system scores over the judged segments only) and WMT19 "
                "into-English DA (newstest2019, 7 pairs, system judgments; cased, "
                "detokenised); no judgment of WMT21 or later",
        "years": ["WMT17", "WMT19"], "dev": prov["dev"], "pool": pool,
        "candidates": candidates, "configurations": list(CONFIGS),
        "chosen": v["final"]["chosen"], "names": prov["names"],
        "signatures": prov["signatures"],
        "preregistered": "docs/nested-search.md, Pre-registration (issue 36 item 4)",
        "nested": nested, "verdict": {k: v[k] for k in ("levels", "claim")},
        "note": f"{NOTES[name]}; {v['claim']}",
    }
    out = SETS_DIR / BUNDLED[name]
    atomic_write(out, json.dumps(doc, indent=1, allow_nan=False) + "\n")
    print(f"{name}: {v['final']['chosen']}: members {v['final']['members']}; written {out}",
          file=sys.stderr)
    return out


def main() -> int:
    """The command: bad input is one paragraph and exit code 2 (:func:`tools._cli.run`)."""
    return _cli.run(_main, "make_sets", "--data names the folder holding "
                    "wmt17_toen_da/ and wmt19_da_sys/; --wmt17-judged and --runs name "
                    "directories outside the repository (created when missing).")


def _main() -> int:
    p = _cli.parser("make_sets", __doc__)
    p.add_argument("--data", type=Path, default=Path("../shared/data"),
                   help="the folder holding wmt17_toen_da and wmt19_da_sys")
    p.add_argument("--only", choices=list(NOTES), help="build one set only")
    p.add_argument("--cache", help="annotation cache file (default: mtstrata's)")
    p.add_argument("--tables", type=_cli.directory,
                   default=Path.home() / ".cache/mtstrata/tables",
                   help="score-table cache directory")
    p.add_argument("--wmt17-judged", type=_cli.directory, metavar="SCRATCH", required=True,
                   help="WMT17 on its judged segments only (copies under SCRATCH, outside the "
                   "repository)")
    p.add_argument("--runs", type=_cli.directory, required=True, metavar="DIR",
                   help="where each run's set and figures are kept (outside the repository)")
    args = p.parse_args()
    _cli.outside_repository(args.wmt17_judged, "--wmt17-judged")
    _cli.outside_repository(args.runs, "--runs")
    for name in [args.only] if args.only else list(NOTES):
        build_set(name, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
