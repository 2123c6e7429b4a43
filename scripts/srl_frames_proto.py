"""Prototype: the example sentences of PropBank's frame files as extra argument training data.

Reads ``frames/*.xml`` of a checkout of github.com/propbank/propbank-frames (CC BY-SA 4.0; given
as ``--frames DIR``, never copied into the repository): each ``<example>`` with a ``<rel
relloc=N>`` and ``<arg type start end>`` (token indices, ``end`` inclusive) over its
space-separated ``<text>``. Trace tokens (``*...*``) are removed and indices shifted; arguments
on a trace or with ``?`` indices are left out; an example whose source names EWT or Yahoo
answers (the English Web Treebank's genres) is left out, as is one whose text is a sentence of
propbank_ewt/dev.jsonl. The rest is parsed with the pinned spaCy model from its tokens and
cached under /tmp/srl39 for ``srl_ctx_proto.py --frames`` (predicates whose parse tag is not
``VB*`` are not verbal, as in the gold data).
"""
from __future__ import annotations

import argparse
import pickle
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import srl_propbank as pb

from mtstrata.segment import Span

OUT = Path("/tmp/srl39/frames.pkl")
TRACE = re.compile(r"^\*.*\*$|^\*[A-Za-z?-]+(-\d+)?$")


def examples(frames_dir: Path, dev_texts: set[str]):
    skipped = {"source": 0, "dev": 0, "malformed": 0}
    for f in sorted(frames_dir.glob("*.xml")):
        try:
            root = ET.parse(f).getroot()
        except ET.ParseError:
            skipped["malformed"] += 1
            continue
        for ex in root.iter("example"):
            src = (ex.get("src") or "").lower()
            if "ewt" in src or "answers" in src:
                skipped["source"] += 1
                continue
            text, prop = ex.find("text"), ex.find("propbank")
            rel = prop.find("rel") if prop is not None else None
            if text is None or not (text.text or "").strip() or rel is None:
                continue
            toks = text.text.split()
            keep = [i for i, t in enumerate(toks) if not TRACE.match(t)]
            new = {old: k for k, old in enumerate(keep)}
            words = tuple(toks[i] for i in keep)
            if " ".join(words) in dev_texts:
                skipped["dev"] += 1
                continue
            loc = rel.get("relloc", "")
            if not loc.isdigit() or int(loc) not in new:
                skipped["malformed"] += 1
                continue
            args = []
            for a in prop.iter("arg"):
                s, e, t = a.get("start", "?"), a.get("end", "?"), a.get("type", "")
                if not (s.isdigit() and e.isdigit()) or not t.upper().startswith(("ARG", "R-",
                                                                                 "C-")):
                    continue
                inside = [new[i] for i in range(int(s), int(e) + 1) if i in new]
                if inside:
                    args.append(Span(inside[0], inside[-1] + 1, pb.convert_label(t.upper())))
            yield f"{f.stem}:{ex.get('name')}", words, new[int(loc)], tuple(args)
    print(f"left out: {skipped}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=Path, required=True)
    a = ap.parse_args()
    dev = pb.read(pb.data_path(None))
    dev_texts = {" ".join(s.tokens) for s in dev}
    exs = [e for e in examples(a.frames, dev_texts) if 0 < len(e[1]) <= 80]
    nlp = pb.load_spacy()
    segs = pb.parse_tokens(nlp, [e[1] for e in exs])
    sents = []
    for (name, words, p, args), seg in zip(exs, segs, strict=True):
        tag = seg.tokens[p].xpos or ""
        gf = pb.GoldFrame(p, tag, seg.tokens[p].lemma or "", args)
        sents.append(pb.PropBankSentence("frames:" + name, words, (), (gf,)))
    OUT.write_bytes(pickle.dumps((sents, segs)))
    print(f"{len(sents)} examples, {sum(s.frames[0].verbal for s in sents)} verbal, "
          f"{sum(len(s.frames[0].args) for s in sents)} arguments -> {OUT}")


if __name__ == "__main__":
    main()
