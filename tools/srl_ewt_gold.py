"""More gold PropBank data: the roles of an English Web Treebank section, from public snapshots.

The shared ``propbank_ewt/dev.jsonl`` holds the gold roles of UD English-EWT's *development*
section. The same two public repositories hold the *training* section too, which this script
assembles in the same format (so every tool reading ``dev.jsonl`` reads it):

* roles: ``propbank/propbank-release``, ``data/google/ewt/**/*.gold_skel`` (CC BY-SA 4.0), whose
  words are ``[WORD]`` placeholders;
* words: ``UniversalDependencies/UD_English-EWT``, one CoNLL-U file per source document under
  ``not-to-release/sources/`` (CC BY-SA 4.0), and which documents form which section:
  ``not-to-release/file-lists/files.{train,dev,test}``.

The rule is the one ``propbank_ewt/SOURCE.md`` gives for the shared file: a PropBank sentence is
kept only where its PTB tags without traces (``-NONE-``) equal, in order, the XPOS tags of a UD
sentence of the same document (taken in document order, each used once); argument spans are
moved onto the non-trace tokens; an argument covering only traces is dropped. ``--check`` builds
the development section and compares it with the shared file, sentence by sentence.

**The test section is never built**: ``--section`` accepts ``train`` and ``dev`` only, and a
document listed in ``files.test`` is refused whatever list it is also in (the test section is
kept apart for the final measurement of the labellers).

The output is research data: write it outside the repository (the default is
``~/.cache/mtstrata/gold/propbank_ewt_train.jsonl``) and never commit it.

Run: ``.venv/bin/python -m tools.srl_ewt_gold --propbank-release DIR --ud-ewt DIR
[--section train] [--out FILE] [--check]`` (``DIR``: checkouts of the two repositories).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

from mtstrata.errors import InputError
from tools import _cli

DEFAULT_OUT = Path.home() / ".cache" / "mtstrata" / "gold" / "propbank_ewt_train.jsonl"


def doc_lists(ud: Path) -> dict[str, set[str]]:
    """Section -> set of document stems (``weblog/<name>.xml``) of UD English-EWT."""
    out = {}
    for section in ("train", "dev", "test"):
        path = ud / "not-to-release" / "file-lists" / f"files.{section}"
        out[section] = {line.strip().removesuffix(".conllu") for line in
                        path.read_text(encoding="utf-8").splitlines() if line.strip()}
    return out


def ud_sentences(path: Path) -> list[tuple[str, list[str], list[str]]]:
    """(sent_id, words, xpos) of each sentence of a CoNLL-U file (multi-word token lines and
    empty nodes skipped: their words are listed one by one)."""
    out, sid, words, tags = [], "", [], []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line.startswith("# sent_id = "):
            sid = line.split("=", 1)[1].strip()
        elif not line.strip():
            if words:
                out.append((sid, words, tags))
            sid, words, tags = "", [], []
        elif not line.startswith("#"):
            cols = line.split("\t")
            if cols[0].isdigit():
                words.append(cols[1])
                tags.append(cols[4])
    return out


def skel_sentences(path: Path) -> Iterator[list[list[str]]]:
    """The rows (whitespace-split columns) of each sentence of a ``.gold_skel`` file."""
    rows: list[list[str]] = []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line.strip():
            rows.append(line.split())
        elif rows:
            yield rows
            rows = []


def frames_of(rows: list[list[str]], where: str) -> tuple[list[str], list[dict]]:
    """A skeleton sentence -> (its tags without traces, its frames on non-trace indices)."""
    keep = [i for i, r in enumerate(rows) if r[4] != "-NONE-"]
    new = {old: k for k, old in enumerate(keep)}
    preds = [i for i, r in enumerate(rows) if r[7] != "-"]
    ncols = len(rows[0]) - 8
    if len(preds) != ncols or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError(f"{where}: {len(preds)} predicates but {ncols} argument columns")
    frames = []
    for col, p in enumerate(preds):
        if p not in new:
            continue  # a predicate on a trace: nothing to label
        args, open_label, start = [], None, 0
        for i, r in enumerate(rows):
            cell = r[8 + col]
            if cell.startswith("("):
                open_label, start = cell[1:].split("*")[0], i
            if cell.endswith(")") and open_label is not None:
                span = [new[j] for j in range(start, i + 1) if j in new]
                if open_label != "V" and span:
                    args.append([open_label, span[0], span[-1]])
                open_label = None
        frames.append({"predicate": new[p], "lemma": rows[p][6], "sense": rows[p][7],
                       "tag": rows[p][4], "args": args})
    return [rows[i][4] for i in keep], frames


def build(pb: Path, ud: Path, section: str) -> tuple[list[dict], dict[str, int]]:
    """The gold sentences of ``section`` (``train`` or ``dev``) and counts of what was kept."""
    if section not in ("train", "dev"):
        raise SystemExit(f"--section {section!r}: only train and dev are built")
    lists = doc_lists(ud)
    docs = sorted(lists[section] - lists["test"])
    counts = {"documents": 0, "skeleton sentences": 0, "kept": 0, "predicates": 0}
    out = []
    for stem in docs:
        genre, name = stem.split("/", 1)
        skels = sorted((pb / "data" / "google" / "ewt" / genre).glob(f"*/{name}.gold_skel"))
        src = ud / "not-to-release" / "sources" / f"{stem}.conllu"
        if not skels or not src.is_file():
            continue
        counts["documents"] += 1
        uds = ud_sentences(src)
        used = 0
        for rows in skel_sentences(skels[0]):
            counts["skeleton sentences"] += 1
            tags, frames = frames_of(rows, str(skels[0]))
            match = next((k for k in range(used, len(uds)) if uds[k][2] == tags), None)
            if match is None:
                continue
            used = match + 1
            sid, words, xpos = uds[match]
            out.append({"id": sid, "tokens": words, "tags": xpos, "frames": frames})
            counts["kept"] += 1
            counts["predicates"] += len(frames)
    return out, counts


def check(built: list[dict], shared: Path) -> int:
    """Compare the built development section with the shared file; returns the differences."""
    want = {d["id"]: d for d in map(json.loads, shared.read_text(encoding="utf-8").splitlines())}
    have = {d["id"]: d for d in built}
    missing, extra = sorted(set(want) - set(have)), sorted(set(have) - set(want))
    differ = [k for k in sorted(set(want) & set(have)) if want[k] != have[k]]
    print(f"check against {shared}: {len(want)} shared, {len(have)} built, {len(missing)} "
          f"missing, {len(extra)} extra, {len(differ)} different")
    for k in (missing + extra + differ)[:5]:
        print("  e.g.", k)
    return len(missing) + len(extra) + len(differ)


def main(argv: list[str] | None = None) -> int:
    ap = _cli.parser("srl_ewt_gold", __doc__)
    ap.add_argument("--propbank-release", type=Path, required=True)
    ap.add_argument("--ud-ewt", type=Path, required=True)
    ap.add_argument("--section", default="train", choices=("train", "dev"))
    ap.add_argument("--out", type=_cli.output_file, default=None)
    ap.add_argument("--check", type=Path, default=None, metavar="DEV_JSONL",
                    help="build the dev section and compare it with this shared file")
    a = ap.parse_args(argv)
    out = a.out or DEFAULT_OUT
    if not a.check and Path(__file__).resolve().parents[1] in out.resolve().parents:
        raise SystemExit(f"--out {out} is inside the repository; gold data is never "
                         "committed: write it elsewhere")
    section = "dev" if a.check else a.section
    built, counts = build(a.propbank_release, a.ud_ewt, section)
    print(f"{section}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if a.check:
        return 1 if check(built, a.check) else 0
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("".join(json.dumps(d) + "\n" for d in built), encoding="utf-8")
    tmp.replace(out)
    print(f"wrote {out}")
    return 0


SNAPSHOTS = ("Give --propbank-release and --ud-ewt as checkouts of propbank/propbank-release "
             "and UniversalDependencies/UD_English-EWT.")


def command() -> int:
    """:func:`main` as the command: bad input is one paragraph and exit 2 (tools._cli.run)."""
    def checked() -> int:
        try:
            return main()
        except (ValueError, IndexError) as e:  # a snapshot that is not one
            raise InputError(f"{e}. {SNAPSHOTS}") from None

    return _cli.run(checked, "srl_ewt_gold", SNAPSHOTS)


if __name__ == "__main__":
    sys.exit(command())
