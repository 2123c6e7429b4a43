"""Re-record the member provenance of metric set files (the bundled sets by default) with the
signatures this installation computes, keeping every fitted number (norms, weights, trace).

A set's normalisation (and a learned set's weights) were fitted on its members' numbers; a new
mtstrata version, definition version or provider version changes their signatures even when
the numbers stay the same, and the set is then refused (``mtstrata.metrics.ulc``). This script
re-records the signatures **only** when told the numbers are the same, and checks it where it
can: with ``--verify LPDIR...`` (the set's dev pairs, ``provenance.dev``) it recomputes every
member on those pairs and requires the minimum and maximum of its system and segment scores to
equal the stored normalisation bounds (relative 1e-9); a member that fails stops the script and
nothing is written. Members not verified are listed in ``provenance.recorded.unverified``.

Usage::

    python -m tools.record_sets [SET.json ...] [--verify LPDIR ...] [--members SPEC ...]
        [--cache ANN.sqlite] [--tables DIR] [--srl learned]

Without SET.json the bundled sets (``mtstrata/data/sets``) are re-recorded. ``--members``
limits the verification to some members (the others are recorded as unverified).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import numpy as np

from mtstrata._version import __version__
from mtstrata.layers import AnnotationOptions
from mtstrata.metrics.provenance import differences, member_signatures
from mtstrata.metrics.setfile import load_set, read_set_file
from mtstrata.metrics.ulc import BUNDLED, SETS_DIR
from tools import _cli


def _bounds(data: dict[str, object]) -> dict[str, list[tuple[str, float, float]]]:
    """Stored normalisation bounds per level (``seg``/``sys``) of a uniform or learned set."""
    out: dict[str, list[tuple[str, float, float]]] = {"seg": [], "sys": []}
    if data.get("kind", "ulc") == "ulc":
        for key, level in (("ulc", "seg"), ("ulc_sys", "sys")):
            for n in data.get(key, []):  # type: ignore[union-attr]
                out[level].append((n["metric"], n["low"], n["high"]))
    else:
        levels = data.get("levels", data)  # a learned set file holds "seg"/"sys" at its top
        for level in ("seg", "sys"):
            for n in levels[level]["norms"]:  # type: ignore[index]
                out[level].append((n["metric"], n["low"], n["high"]))
    return out


def verify(data: dict[str, object], members: list[str], dirs: list[Path],
           args: argparse.Namespace) -> None:
    """Recompute ``members`` on ``dirs``; raise SystemExit when a bound differs."""
    from mtstrata.meta.table_cache import cached_table

    options = AnnotationOptions(cache=args.cache, labeller=args.srl, quiet=False)
    tables = [cached_table(d, members, args.tables, options) for d in dirs]
    bounds = _bounds(data)
    for level in ("seg", "sys"):
        for metric, low, high in bounds[level]:
            if metric not in members:
                continue
            parts = [t.sys_scores[metric] if level == "sys" else t.seg_scores[metric].ravel()
                     for t in tables]
            v = np.concatenate(parts)
            v = v[np.isfinite(v)]
            have = (float(v.min()), float(v.max()))
            if not np.allclose(have, (low, high), rtol=1e-9, atol=1e-12):
                raise SystemExit(f"{metric} ({level}): today's scores span {have}, the set "
                                 f"stores ({low}, {high}): its numbers changed; refit the set "
                                 "(tools/make_sets.py) instead of re-recording it.")
            print(f"  {metric} ({level}): bounds reproduced {have}", file=sys.stderr)


def record(path: Path, args: argparse.Namespace) -> None:
    _, data = read_set_file(path)
    combiner, _ = load_set(path)  # the set's own checks (its members' signatures are not)
    specs = list(combiner.metrics)
    prov = dict(data.get("provenance", {}))  # type: ignore[arg-type]
    options = AnnotationOptions(cache=args.cache, labeller=args.srl)
    new = member_signatures(specs, options)
    # a verification stays valid while the member's computation is the same (only mtstrata's
    # release may differ: see mtstrata.metrics.provenance)
    old = prov.get("signatures") if isinstance(prov.get("signatures"), dict) else {}
    before = prov.get("recorded", {}).get("verified", {}) if isinstance(
        prov.get("recorded"), dict) else {}
    members = before.get("members", {})
    if isinstance(members, list):  # the first layout: one list of pairs for every member
        members = {s: before.get("on", []) for s in members}
    verified = {s: on for s, on in members.items()
                if isinstance(old.get(s), str) and s in new and not differences(old[s], new[s])}
    if args.verify:
        chosen = [s for s in specs if not args.members or s in args.members]
        verify(data, chosen, [Path(d) for d in args.verify], args)
        on = [f"{Path(d).resolve().parent.name}/{Path(d).name}" for d in args.verify]
        verified.update({s: on for s in chosen})
    prov["signatures"] = new
    prov["recorded"] = {
        "mtstrata": __version__,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "script": "tools/record_sets.py",
        "labeller": args.srl,
        # member -> the dev pairs on which its stored bounds were reproduced exactly
        "verified": {"members": verified},
        "unverified": [s for s in specs if s not in verified],
    }
    checked = list(verified)
    data["provenance"] = prov
    text = json.dumps(data, indent=1, allow_nan=False)
    from mtstrata.output import atomic_write

    atomic_write(path, text)
    print(f"{path}: {len(specs)} member signature(s) recorded "
          f"({len(checked)} verified on the dev data)", file=sys.stderr)


def main() -> int:
    p = _cli.parser("record_sets", __doc__)
    p.add_argument("sets", nargs="*", type=_cli.existing_file,
                   help="set files (default: the bundled sets)")
    p.add_argument("--verify", nargs="+", default=[], metavar="LPDIR", type=_cli.existing_directory,
                   help="dev pairs on which every member's normalisation bounds must reproduce")
    p.add_argument("--members", nargs="+", help="verify only these members")
    p.add_argument("--cache", help="annotation cache file (default: mtstrata's)")
    p.add_argument("--srl", default="learned", help="role labeller the set was fitted with")
    p.add_argument("--tables", type=_cli.directory, default=Path.home() / ".cache/mtstrata/tables",
                   help="score-table cache directory")
    args = p.parse_args()
    for path in args.sets or [SETS_DIR / f for f in BUNDLED.values()]:
        record(path, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "record_sets", "SET.json names a metric set file; --verify "
                              "the dev pair directories it was fitted on; --tables a directory."))
