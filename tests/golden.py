"""The golden snapshot: every registered metric's numbers on fixed hand-built inputs.

``tests/data/golden_snapshot.json`` holds, per metric spec, its definition version, its
signature (without mtstrata's version), its statistic names and rows, its corpus score, segment
scores and details on :func:`inputs`, rounded to 12 significant digits.
``tests/test_golden_snapshot.py`` recomputes them; ``python -m tools.update_golden`` rewrites
entries. A number that moves while the metric's ``definition`` and signature stay the same is
a silent change of definition: the test fails and the script refuses to rewrite the entry.

The inputs are six segments with two references each, annotated by hand with every layer
(tokens, lemmas, PTB/universal tags, dependencies with a root per sentence, entities, chunks,
frames, constituency trees): multiple references, an empty hypothesis, an empty reference,
repeated words, a hypothesis of two sentences (two heads to token 0), a hypothesis equal to one
reference, words outside chunks and entities, and a reference the parser gave no tree. They
are frozen here (not shared with other tests), so editing another test's fixture cannot move
the snapshot.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtstrata import metrics
from mtstrata.segment import Layer, Segment
from tests.trees import with_tree

SNAPSHOT = Path(__file__).resolve().parent / "data" / "golden_snapshot.json"
#: significant digits stored
DIGITS = 12
#: tolerance of the comparison (relative; absolute for values near 0). Metrics that run a
#: model of their own (torch float32 kernels, whose last bits depend on the CPU's vector
#: instructions) are compared at MODEL_RTOL.
RTOL, ATOL = 1e-9, 1e-12
MODEL_RTOL = 1e-5
#: parameter variants snapshotted beside every registered name and family example
VARIANTS = (
    "bleu:smooth=floor", "bleu:eff=yes", "bleu:max_order=2,smooth=add-k", "nist:max_order=3",
    "chrf:char_order=3,beta=1", "ter:norm=yes,case=yes", "grr:order=2",
    "Bllip:refs=pooled", "Bllip:combine=f1,refs=average", "SP-Op(*):refs=pooled",
    "SP-Op(*):avg=macro", "NE-Oe(**)", "SR-Or(*):meas=f", "EMB-F:idf=yes", "DP-HWCM_c-4",
    "CP-Oc(*):refs=pooled", "CP-Op(*):unparsed=skip", "CP-STM-4:unparsed=skip",
)

ALL_LAYERS = (Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER, Layer.CHUNKS,
              Layer.SRL)


def _seg(rows: str, entities: Sequence[tuple[int, int, str]] = (),
         chunks: Sequence[tuple[int, int, str]] = (),
         frames: Sequence[tuple[int, Sequence[tuple[int, int, str]]]] = (),
         sent_starts: Sequence[int] = (0,)) -> Segment:
    """Rows of 'form lemma upos xpos head deprel'; every layer declared (even when empty)."""
    toks = [r.split() for r in rows.strip().splitlines() if r.strip()]
    seg = Segment.from_words(
        [t[0] for t in toks], lemmas=[t[1] for t in toks], upos=[t[2] for t in toks],
        xpos=[t[3] for t in toks], heads=[int(t[4]) for t in toks],
        deprels=[t[5] for t in toks], entities=entities, chunks=chunks, frames=frames,
        sent_starts=sent_starts)
    return seg.with_layers(*ALL_LAYERS)


def inputs() -> tuple[list[Segment], list[list[Segment]]]:
    """Hypotheses and their two references each."""
    a_hyp = _seg("""
        The the DET DT 2 det
        government government NOUN NN 4 nsubj
        will will AUX MD 4 aux
        raise raise VERB VB 0 root
        the the DET DT 7 det
        minimum minimum ADJ JJ 7 amod
        wage wage NOUN NN 4 dobj
        next next ADJ JJ 9 amod
        year year NOUN NN 4 npadvmod
        . . PUNCT . 4 punct""", [(7, 9, "DATE")], [(0, 2, "NP"), (2, 4, "VP"), (4, 7, "NP"),
                                                     (7, 9, "NP")],
        [(3, [(0, 2, "A0"), (2, 3, "AM-MOD"), (4, 7, "A1"), (7, 9, "AM-TMP")])])
    a_ref1 = _seg("""
        The the DET DT 2 det
        government government NOUN NN 4 nsubj
        will will AUX MD 4 aux
        increase increase VERB VB 0 root
        the the DET DT 7 det
        minimum minimum ADJ JJ 7 amod
        wage wage NOUN NN 4 dobj
        next next ADJ JJ 9 amod
        year year NOUN NN 4 npadvmod
        . . PUNCT . 4 punct""", [(7, 9, "DATE")], [(0, 2, "NP"), (2, 4, "VP"), (4, 7, "NP"),
                                                     (7, 9, "NP")],
        [(3, [(0, 2, "A0"), (2, 3, "AM-MOD"), (4, 7, "A1"), (7, 9, "AM-TMP")])])
    a_ref2 = _seg("""
        Next next ADJ JJ 2 amod
        year year NOUN NN 5 npadvmod
        the the DET DT 4 det
        government government NOUN NN 5 nsubj
        raises raise VERB VBZ 0 root
        the the DET DT 7 det
        wage wage NOUN NN 5 dobj
        . . PUNCT . 5 punct""", [(0, 2, "DATE")], [(0, 2, "NP"), (2, 4, "NP"), (4, 5, "VP"),
                                                     (5, 7, "NP")],
        [(4, [(0, 2, "AM-TMP"), (2, 4, "A0"), (5, 7, "A1")])])
    b_hyp = _seg("""
        the the DET DT 4 det
        the the DET DT 4 det
        cat cat NOUN NN 4 compound
        cat cat NOUN NN 5 nsubj
        sat sit VERB VBD 0 root
        sat sit VERB VBD 5 conj
        on on ADP IN 5 prep
        the the DET DT 9 det
        mat mat NOUN NN 7 pobj
        . . PUNCT . 5 punct""", (), [(0, 4, "NP"), (4, 6, "VP"), (6, 7, "PP"), (7, 9, "NP")],
        [(4, [(0, 4, "A1"), (6, 9, "AM-LOC")])])
    b_ref1 = _seg("""
        the the DET DT 2 det
        cat cat NOUN NN 3 nsubj
        sat sit VERB VBD 0 root
        on on ADP IN 3 prep
        the the DET DT 6 det
        mat mat NOUN NN 4 pobj
        . . PUNCT . 3 punct""", (), [(0, 2, "NP"), (2, 3, "VP"), (3, 4, "PP"), (4, 6, "NP")],
        [(2, [(0, 2, "A1"), (3, 6, "AM-LOC")])])
    b_ref2 = _seg("""
        a a DET DT 2 det
        cat cat NOUN NN 3 nsubj
        sat sit VERB VBD 0 root
        on on ADP IN 3 prep
        the the DET DT 6 det
        mat mat NOUN NN 4 pobj""", (), [(0, 2, "NP"), (2, 3, "VP"), (3, 4, "PP"), (4, 6, "NP")],
        [(2, [(0, 2, "A1"), (3, 6, "AM-LOC")])])
    empty = _seg("")
    c_ref1 = _seg("""
        Several several ADJ JJ 2 amod
        rockets rocket NOUN NNS 3 nsubj
        fell fall VERB VBD 0 root
        in in ADP IN 3 prep
        southern southern ADJ JJ 6 amod
        Israel Israel PROPN NNP 4 pobj
        on on ADP IN 3 prep
        Tuesday Tuesday PROPN NNP 7 pobj
        . . PUNCT . 3 punct""", [(5, 6, "GPE"), (7, 8, "DATE")],
        [(0, 2, "NP"), (2, 3, "VP"), (3, 4, "PP"), (4, 6, "NP"), (6, 7, "PP"), (7, 8, "NP")],
        [(2, [(0, 2, "A1"), (3, 6, "AM-LOC"), (6, 8, "AM-TMP")])])
    c_ref2 = _seg("""
        Rockets rocket NOUN NNS 2 nsubj
        hit hit VERB VBD 0 root
        Israel Israel PROPN NNP 2 dobj
        . . PUNCT . 2 punct""", [(2, 3, "GPE")], [(0, 1, "NP"), (1, 2, "VP"), (2, 3, "NP")],
        [(1, [(0, 1, "A0"), (2, 3, "A1")])])
    d_hyp = _seg("""
        Maria Maria PROPN NNP 2 compound
        Lopez Lopez PROPN NNP 3 nsubj
        won win VERB VBD 0 root
        . . PUNCT . 3 punct
        She she PRON PRP 6 nsubj
        got get VERB VBD 0 root
        52 52 NUM CD 8 nummod
        percent percent NOUN NN 6 dobj
        . . PUNCT . 6 punct""", [(0, 2, "PERSON"), (6, 8, "PERCENT")],
        [(0, 2, "NP"), (2, 3, "VP"), (4, 5, "NP"), (5, 6, "VP"), (6, 8, "NP")],
        [(2, [(0, 2, "A0")]), (5, [(4, 5, "A0"), (6, 8, "A1")])], sent_starts=(0, 4))
    d_ref1 = _seg("""
        Maria Maria PROPN NNP 2 compound
        Lopez Lopez PROPN NNP 3 nsubj
        won win VERB VBD 0 root
        the the DET DT 5 det
        election election NOUN NN 3 dobj
        with with ADP IN 3 prep
        52 52 NUM CD 8 nummod
        percent percent NOUN NN 6 pobj
        of of ADP IN 8 prep
        the the DET DT 11 det
        vote vote NOUN NN 9 pobj
        . . PUNCT . 3 punct""", [(0, 2, "PERSON"), (6, 8, "PERCENT")],
        [(0, 2, "NP"), (2, 3, "VP"), (3, 5, "NP"), (5, 6, "PP"), (6, 8, "NP"), (8, 9, "PP"),
         (9, 11, "NP")],
        [(2, [(0, 2, "A0"), (3, 5, "A1"), (5, 11, "AM-MNR")])])
    e_hyp = _seg("""
        The the DET DT 2 det
        bridge bridge NOUN NN 5 nsubjpass
        was be AUX VBD 5 auxpass
        not not PART RB 5 neg
        closed close VERB VBN 0 root
        by by ADP IN 5 agent
        the the DET DT 8 det
        engineers engineer NOUN NNS 6 pobj
        yesterday yesterday NOUN NN 5 npadvmod
        . . PUNCT . 5 punct""", [(8, 9, "DATE")],
        [(0, 2, "NP"), (2, 5, "VP"), (5, 6, "PP"), (6, 8, "NP"), (8, 9, "NP")],
        [(4, [(0, 2, "A1"), (3, 4, "AM-NEG"), (5, 8, "A0"), (8, 9, "AM-TMP")])])
    e_ref2 = _seg("""
        Engineers engineer NOUN NNS 4 nsubj
        did do AUX VBD 4 aux
        not not PART RB 4 neg
        close close VERB VB 0 root
        the the DET DT 6 det
        bridge bridge NOUN NN 4 dobj
        yesterday yesterday NOUN NN 4 npadvmod
        . . PUNCT . 4 punct""", [(6, 7, "DATE")],
        [(0, 1, "NP"), (1, 4, "VP"), (4, 6, "NP"), (6, 7, "NP")],
        [(3, [(0, 1, "A0"), (2, 3, "AM-NEG"), (4, 6, "A1"), (6, 7, "AM-TMP")])])
    f_hyp = _seg("""
        Oh oh INTJ UH 4 intj
        , , PUNCT , 4 punct
        prices price NOUN NNS 4 nsubj
        rose rise VERB VBD 0 root
        3 3 NUM CD 6 nummod
        % % NOUN NN 4 dobj
        in in ADP IN 4 prep
        Paris Paris PROPN NNP 7 pobj
        ! ! PUNCT . 4 punct""", [(4, 6, "PERCENT"), (7, 8, "GPE")],
        [(2, 3, "NP"), (3, 4, "VP"), (4, 6, "NP"), (6, 7, "PP"), (7, 8, "NP")],
        [(3, [(2, 3, "A1"), (4, 6, "A2"), (6, 8, "AM-LOC")])])
    f_ref1 = _seg("""
        Prices price NOUN NNS 2 nsubj
        rose rise VERB VBD 0 root
        by by ADP IN 2 prep
        3 3 NUM CD 5 nummod
        % % NOUN NN 3 pobj
        in in ADP IN 2 prep
        Paris Paris PROPN NNP 6 pobj
        . . PUNCT . 2 punct""", [(3, 5, "PERCENT"), (6, 7, "GPE")],
        [(0, 1, "NP"), (1, 2, "VP"), (2, 3, "PP"), (3, 5, "NP"), (5, 6, "PP"), (6, 7, "NP")],
        [(1, [(0, 1, "A1"), (2, 5, "A2"), (5, 7, "AM-LOC")])])
    f_ref2 = _seg("""
        In in ADP IN 5 prep
        Paris Paris PROPN NNP 1 pobj
        , , PUNCT , 5 punct
        prices price NOUN NNS 5 nsubj
        went go VERB VBD 0 root
        up up ADP RP 5 prt
        . . PUNCT . 5 punct""", [(1, 2, "GPE")],
        [(0, 1, "PP"), (1, 2, "NP"), (3, 4, "NP"), (4, 5, "VP"), (5, 6, "PRT")],
        [(4, [(0, 2, "AM-LOC"), (3, 4, "A1")])])
    # constituency trees (phrase labels over the words, as link-grammar's trees have them), with
    # a hypothesis parsed with null links, one found by the panic parse, a reference the parser
    # gave no tree (its time limit) and the empty texts, which have none
    a_hyp = with_tree(a_hyp, "(S (NP The government) (VP will (VP raise (NP the minimum wage) "
                             "(NP next year))) .)")
    a_ref1 = with_tree(a_ref1, "(S (NP The government) (VP will (VP increase (NP the minimum "
                               "wage) (NP next year))) .)")
    a_ref2 = with_tree(a_ref2, "(S (NP Next year) (NP the government) (VP raises (NP the wage)) .)")
    b_hyp = with_tree(b_hyp, "(S the (NP the cat) cat (VP sat sat (PP on (NP the mat))) .)",
                      nulls=3)
    b_ref1 = with_tree(b_ref1, "(S (NP the cat) (VP sat (PP on (NP the mat))) .)")
    b_ref2 = with_tree(b_ref2, None, "timeout")
    empty = with_tree(empty, None)
    c_ref1 = with_tree(c_ref1, "(S (NP Several rockets) (VP fell (PP in (NP southern Israel)) "
                               "(PP on (NP Tuesday))) .)")
    c_ref2 = with_tree(c_ref2, "(S (NP Rockets) (VP hit (NP Israel)) .)")
    d_hyp = with_tree(d_hyp, "(S (NP Maria Lopez) (VP won) .) (S (NP She) (VP got (NP (QP 52) "
                             "percent)) .)")
    d_ref1 = with_tree(d_ref1, "(S (NP Maria Lopez) (VP won (NP the election) (PP with (NP (NP "
                               "(QP 52) percent) (PP of (NP the vote))))) .)")
    e_hyp = with_tree(e_hyp, "(S (NP The bridge) (VP was not (VP closed (PP by (NP the "
                             "engineers)) (NP yesterday))) .)")
    e_ref2 = with_tree(e_ref2, "(S (NP Engineers) (VP did not (VP close (NP the bridge) "
                               "(NP yesterday))) .)")
    f_hyp = with_tree(f_hyp, "(S Oh , (NP prices) (VP rose (NP (QP 3) %) (PP in (NP Paris))) !)",
                      "panic", nulls=1)
    f_ref1 = with_tree(f_ref1, "(S (NP Prices) (VP rose (PP by (NP (QP 3) %)) (PP in (NP "
                               "Paris))) .)")
    f_ref2 = with_tree(f_ref2, "(S (PP In (NP Paris)) , (NP prices) (VP went (PRT up)) .)")
    hyps = [a_hyp, b_hyp, empty, d_hyp, e_hyp, f_hyp]
    refs = [[a_ref1, a_ref2], [b_ref1, b_ref2], [c_ref1, c_ref2], [d_ref1, empty],
            [e_hyp, e_ref2], [f_ref1, f_ref2]]
    return hyps, refs


#: entries this test session could not check: spec -> why (listed in the run's summary by
#: ``tests/conftest.py``; never silent)
UNCHECKED: dict[str, str] = {}


def missing_extras() -> dict[str, list[str]]:
    """Extra -> its pinned libraries (``models.lock``) that are not installed here."""
    from mtstrata import lock

    out: dict[str, list[str]] = {}
    for p in lock.load().get("package", []):
        if p.get("extra") and lock.installed_version(p["name"]) is None:
            out.setdefault(p["extra"], []).append(p["name"])
    return out


def compute_or_skip(spec: str) -> dict[str, Any]:
    """:func:`compute`, or a skip recorded in :data:`UNCHECKED` when the entry needs an extra
    that is not installed here. Any other failure to compute (a missing or damaged model where
    the extra is installed, as under ``make test``) is raised: the entry must be checked."""
    import pytest

    from mtstrata.errors import ModelError

    try:
        return compute(spec)
    except ModelError as e:
        missing = missing_extras()
        if not missing:
            raise
        UNCHECKED[spec] = str(e)  # names what is missing and the command that installs it
        pytest.skip(f"{spec} not checked: {e}")


def summary_lines() -> list[str]:
    """What the run's summary says of :data:`UNCHECKED` (nothing when every entry was
    checked)."""
    if not UNCHECKED:
        return []
    n = len(UNCHECKED)
    return [f"{n} golden snapshot entr{'y was' if n == 1 else 'ies were'} NOT checked (their "
            "numbers may have moved unseen): an extra is not installed here "
            f"({', '.join(sorted(missing_extras()))}); install it and run again (`make test` "
            "does):",
            *(f"  {spec}: {why}" for spec, why in sorted(UNCHECKED.items()))]


def specs() -> list[str]:
    """Every registered metric name, every family example, and :data:`VARIANTS`."""
    out: list[str] = []
    for e in metrics.REGISTRY.entries():
        out.extend(e.examples if e.pattern is not None else [e.name])
    return sorted(set(out) | set(VARIANTS))


def _num(x: Any) -> float | str | None:
    """A number as stored: 12 significant digits; NaN -> None; infinities as strings."""
    x = float(x)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(f"{x:.{DIGITS}g}")


def bare_signature(sig: str) -> str:
    """A signature without mtstrata's version (a release alone never moves a number) and
    without the mark of code the provenance lock does not record (``code:HASH``, present only
    while code is edited: a number that moves under it and the same definition is still a
    silent change, not a re-signed one)."""
    return re.sub(r"\|version:[^|]*$", "", re.sub(r"\|code:[0-9a-f]+(?=\|)", "", sig))


def compute(spec: str) -> dict[str, Any]:
    """The snapshot entry of ``spec`` computed by this installation."""
    from mtstrata.layers import AnnotationOptions
    from mtstrata.metrics.prepared import Prepared

    m = metrics.create(spec)
    hyps, refs = inputs()
    # no vector cache and no progress output: the numbers of a fresh computation
    options = AnnotationOptions(use_cache=False, quiet=True)
    st = np.atleast_2d(np.asarray(m.stats_batch(Prepared(hyps, options),
                                                Prepared(refs, options)), dtype=float))
    total = st.sum(axis=0)
    return {
        "definition": int(type(m).definition),  # type: ignore[attr-defined]
        "signature": bare_signature(m.signature()),
        # numbers made from a model's float32 kernels: its own, or the emb layer's vectors
        "model": m.capabilities().runs_model or Layer.EMB in m.capabilities().layers,
        "stat_names": list(m.stat_names()),  # type: ignore[attr-defined]
        "stats": [[_num(v) for v in row] for row in st],
        "corpus": _num(m.score(total)),
        "segments": [_num(v) for v in m.segment_scores(st)],
        "details": {k: _num(v) for k, v in sorted(m.details(total).items())},
    }


def _flat(entry: dict[str, Any]) -> list[tuple[str, Any]]:
    out = [("corpus", entry["corpus"])]
    out += [(f"segments[{i}]", v) for i, v in enumerate(entry["segments"])]
    out += [(f"stats[{i}][{j}]", v) for i, row in enumerate(entry["stats"])
            for j, v in enumerate(row)]
    out += [(f"details[{k}]", v) for k, v in entry["details"].items()]
    return out


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Where the numbers of two entries differ (beyond the tolerance), at most a few."""
    if old["stat_names"] != new["stat_names"]:
        return [f"statistic names {old['stat_names']} -> {new['stat_names']}"]
    if len(old["stats"]) != len(new["stats"]) or set(old["details"]) != set(new["details"]):
        return ["the shape of the statistics or the detail names changed"]
    rtol = MODEL_RTOL if new.get("model") or old.get("model") else RTOL
    out = []
    for (where, a), (_, b) in zip(_flat(old), _flat(new), strict=True):
        if not _same(a, b, rtol):
            out.append(f"{where}: {a} -> {b}")
    return out


def _same(a: Any, b: Any, rtol: float) -> bool:
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(a, b, rel_tol=rtol, abs_tol=ATOL)


HOW = ("bump its `definition` (the class's ClassVar, or `definition=` of its family), "
       "regenerate the entry with `python -m tools.update_golden '{name}'` and add a line "
       "to CHANGELOG.md (see its 'How to change a metric's definition')")


def verdict(name: str, old: dict[str, Any] | None, new: dict[str, Any]) -> tuple[str, str]:
    """``(kind, message)`` comparing a stored entry with today's computation.

    kind: ``same`` (nothing to do), ``refresh`` (same numbers, other recorded facts),
    ``missing`` (no entry), ``redefined`` (the definition moved: the entry must be
    regenerated), ``resigned`` (the numbers moved with the signature, e.g. a library version or
    a set file: regenerate), ``silent`` (the numbers moved under the same definition and
    signature: refused).
    """
    if old is None:
        return "missing", (f"{name} has no golden entry: add it with "
                           f"`python -m tools.update_golden '{name}'`.")
    diff = differences(old, new)
    if old.get("definition") != new["definition"]:
        return "redefined", (
            f"{name}: definition {old.get('definition')} in the snapshot, {new['definition']} "
            f"in the code: regenerate its entry with `python -m tools.update_golden '{name}'`"
            " (and say what changed in CHANGELOG.md).")
    if not diff:
        same = old.get("signature") == new["signature"] and old.get("model") == new["model"]
        return ("same" if same else "refresh"), ""
    shown = "; ".join(diff[:5]) + (f"; ... ({len(diff)} values)" if len(diff) > 5 else "")
    if old.get("signature") != new["signature"]:
        return "resigned", (
            f"{name}: numbers changed with its signature ({old.get('signature')} -> "
            f"{new['signature']}): {shown}. If that change (a library or set file) is meant, "
            f"regenerate the entry: `python -m tools.update_golden '{name}'`.")
    return "silent", (
        f"{name}: numbers changed while its definition (def:{new['definition']}) and signature "
        f"stayed the same: {shown}. A number that changes must change its signature: "
        + HOW.format(name=name) + ". If the change is a bug, fix the code instead.")
