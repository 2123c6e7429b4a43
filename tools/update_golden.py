"""Rewrite entries of the golden snapshot (``tests/data/golden_snapshot.json``).

Usage::

    python -m tools.update_golden [NAME ...] [--prune]

NAME is a metric spec as the snapshot keys it (``bleu``, ``SP-Op(*)``, ``DP-HWCM_c-4``), and
stands for its snapshotted parameter variants too (``bleu`` -> ``bleu:smooth=floor``...); with
no NAME every snapshotted metric (``tests/golden.py: specs()``) is considered. An entry is
written when it is missing, when the metric's ``definition`` changed, or when its numbers moved
together with its signature (a library version, a set file); an entry whose numbers moved while
its definition and signature stayed the same is **refused** (exit 2, nothing written): bump the
metric's ``definition`` first and say why in CHANGELOG.md. ``--prune`` drops entries of metrics
no longer registered.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mtstrata.errors import InputError
from tests import golden  # the snapshot's inputs and rules, shared with its test
from tools import _cli


def load(path: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    """The snapshot's entries ({} when there is no snapshot yet)."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"not a golden snapshot ({e}); restore it from git (`git checkout "
                         f"{path}`) or remove it to write every entry afresh.", str(path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("metrics", {}), dict):
        raise InputError("not a golden snapshot (a JSON object with \"metrics\"); restore it "
                         f"from git (`git checkout {path}`).", str(path))
    return dict(data.get("metrics", {}))


def dump(path: Path, entries: dict[str, dict]) -> None:  # type: ignore[type-arg]
    from mtstrata.output import atomic_write

    doc = {"about": "Golden numbers of every registered metric on tests/golden.py's inputs "
                    "(12 significant digits); written by tools/update_golden.py, checked by "
                    "tests/test_golden_snapshot.py.",
           "metrics": {k: entries[k] for k in sorted(entries)}}
    atomic_write(path, _text(doc))


def _text(doc: dict) -> str:  # type: ignore[type-arg]
    """JSON with one metric field per line (lists of numbers kept on one line): diffs of a
    regenerated entry show which numbers moved."""
    def compact(v: object) -> str:
        return json.dumps(v, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))

    lines = ["{", f' "about": {compact(doc["about"])},', ' "metrics": {']
    items = list(doc["metrics"].items())
    for i, (name, entry) in enumerate(items):
        lines.append(f"  {compact(name)}: {{")
        fields = list(entry.items())
        for j, (k, v) in enumerate(fields):
            if k == "stats":
                rows = ",\n".join(f"    {compact(r)}" for r in v)
                text = f'   "stats": [\n{rows}\n   ]'
            else:
                text = f"   {compact(k)}: {compact(v)}"
            lines.append(text + ("," if j < len(fields) - 1 else ""))
        lines.append("  }" + ("," if i < len(items) - 1 else ""))
    lines += [" }", "}", ""]
    text = "\n".join(lines)
    assert json.loads(text) == json.loads(json.dumps(doc))  # the layout changes nothing
    return text


def update(path: Path, names: list[str], prune: bool = False) -> int:
    """Rewrite the entries of ``names`` (all if empty); 0 if written, 2 if refused."""
    entries = load(path)
    known = golden.specs()
    # a name also stands for its snapshotted variants ("bleu" -> "bleu:smooth=floor", ...)
    names = [k for k in known if any(k == n or k.lower().startswith(n.lower() + ":")
                                     for n in names)] + [n for n in names if n not in known]
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"not snapshotted metric(s): {', '.join(unknown)}; the names are "
              "tests/golden.py's specs() (registered names, family examples, VARIANTS).",
              file=sys.stderr)
        return 2
    refused, changed = [], []
    for name in names or known:
        new = golden.compute(name)
        kind, message = golden.verdict(name, entries.get(name), new)
        if kind == "silent":
            refused.append(message)
        elif kind != "same":
            changed.append(f"{name}: {kind}")
            entries[name] = new
    stale = [k for k in entries if k not in known]
    if prune:
        for k in stale:
            del entries[k]
            changed.append(f"{k}: pruned (not registered)")
    elif stale:
        print(f"entries of metrics no longer snapshotted (use --prune): {stale}",
              file=sys.stderr)
    if refused:
        print("refused, nothing written:\n" + "\n".join(refused), file=sys.stderr)
        return 2
    if changed:
        dump(path, entries)
    print("\n".join(changed) or "nothing to change", file=sys.stderr)
    return 0


def main() -> int:
    p = _cli.parser("update_golden", __doc__)
    p.add_argument("names", nargs="*", help="metric specs (default: every snapshotted metric)")
    p.add_argument("--prune", action="store_true", help="drop entries of unregistered metrics")
    p.add_argument("--snapshot", type=_cli.output_file, default=golden.SNAPSHOT,
                   help=argparse.SUPPRESS)
    args = p.parse_args()
    return update(args.snapshot, args.names, args.prune)


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "update_golden"))
