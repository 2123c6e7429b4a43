"""The CP family on hand-built trees: the definitions (Giménez & Màrquez's overlap over
constituents; Liu & Gildea's subtree metric), the rule for texts without a tree, and the
properties every metric keeps (identity, bounds, additivity)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.errors import ConfigError, MissingLayerError
from mtstrata.metrics.linguistic.constituents import CP_SUBTREE, build_tree, subtrees, tree_of
from mtstrata.metrics.linguistic.elements import Vocab, items
from mtstrata.segment import Segment
from tests.trees import with_tree


def seg(text: str, penn: str | None, status: str = "", nulls: int = 0) -> Segment:
    return with_tree(Segment.from_words(text), penn, status, nulls)


def score(spec: str, hyp: Segment, refs: list[Segment]) -> float:
    m = metrics.create(spec)
    return m.score(m.stats(hyp, refs))


# Liu & Gildea's example trees in spirit: one hypothesis, references differing in structure
HYP = seg("the cat sat on the mat .", "(S (NP the cat) (VP sat (PP on (NP the mat))) .)")
REF = seg("a cat was sitting on the mat .",
          "(S (NP a cat) (VP was (VP sitting (PP on (NP the mat)))) .)")
REF2 = seg("the cat sat .", "(S (NP the cat) (VP sat) .)")


def test_subtrees_are_labels_with_word_slots_level_by_level():
    vocab = Vocab()
    tree = build_tree(tree_of(HYP), len(HYP.tokens))
    found: dict[int, list[str]] = {}
    for d, i in subtrees(tree, vocab, 3):
        found.setdefault(d + 1, []).append(vocab.decode(i).replace("\x1f", " "))
    assert sorted(found[1]) == ["NP", "NP", "PP", "S", "VP"]
    # depth 2: each constituent with its children, a word as the slot "\x00_"
    two = sorted(x.replace("\x00(", "(").replace("\x00_", "_") for x in found[2])
    assert two == sorted(["S ( NP VP _", "NP ( _ _", "VP ( _ PP", "PP ( _ NP", "NP ( _ _"])
    # depth 3: only constituents at least 3 levels high (S, VP, PP; NP is 2: label and words)
    assert len(found[3]) == 3


def test_stm_by_hand():
    # depth 1: S NP VP PP NP all in REF (S NP VP VP PP NP): 5/5
    # depth 2: hyp S(NP VP _) NP(_ _) VP(_ PP) PP(_ NP) NP(_ _); ref has S(NP VP _), NP(_ _)x2,
    #          VP(_ VP), VP(_ PP), PP(_ NP): all 5 match
    # depth 3: hyp S(NP(_ _) VP(_ PP) _) VP(_ PP(_ NP)) PP(_ NP(_ _)); ref S(.. VP(_ VP) ..)
    #          differs, VP(_ PP(_ NP)) and PP(_ NP(_ _)) match: 2/3
    # depth 4: hyp S(.. VP(_ PP(_ NP)) ..) no, VP(_ PP(_ NP(_ _))) yes: 1/2
    assert score("CP-STM-1", HYP, [REF]) == 1.0
    assert score("CP-STMi-2", HYP, [REF]) == 1.0
    assert score("CP-STMi-3", HYP, [REF]) == pytest.approx(2 / 3)
    assert score("CP-STMi-4", HYP, [REF]) == pytest.approx(1 / 2)
    assert score("CP-STM-4", HYP, [REF]) == pytest.approx((1 + 1 + 2 / 3 + 1 / 2) / 4)


def test_stm_clips_by_the_most_occurrences_in_any_single_reference():
    # hyp has NP(_ _) twice; each reference once: clipped to 1 (not 2, the sum), as BLEU
    hyp = seg("the cat saw the dog", "(S (NP the cat) (VP saw (NP the dog)))")
    r1 = seg("the cat slept", "(S (NP the cat) (VP slept))")
    r2 = seg("a dog barked", "(S (NP a dog) (VP barked))")
    m = metrics.create("CP-STMi-2")
    st = m.stats(hyp, [r1, r2])
    # depth 2 of hyp: S(NP VP), NP(_ _) x2, VP(_ NP): clipped S(NP VP) 1 + NP(_ _) 1 = 2 of 4
    assert m.score(st) == pytest.approx(2 / 4)
    assert dict(zip(m.stat_names(), st))["clipped:2"] == 2


def test_stm_leaves_out_depths_the_hypothesis_lacks():
    flat = seg("yes .", "(S yes .)")  # height 2: depths 1 and 2 only
    ref = seg("yes .", "(S (VP yes) .)")
    # depth 1: S of {S, VP}: 1/1; depth 2: S(_ _) vs S(VP _): 0/1; depths 3, 4 left out
    assert score("CP-STM-4", flat, [ref]) == pytest.approx(0.5)


def test_oc_counts_a_word_once_per_constituent_of_the_type():
    # nested NPs: "Smith 's dog" is an NP holding the NP "Smith 's"
    hyp = seg("Smith 's dog barked", "(S (NP (NP Smith 's) dog) (VP barked))")
    got = items(metrics.create("CP-Oc(NP)").extractor(), hyp)["NP"]
    assert got == {"smith": 2, "'s": 2, "dog": 1}
    ref = seg("Smith 's cat barked", "(S (NP (NP Smith 's) cat) (VP barked))")
    # NP: min 4 of max 6 (dog/cat: 1 each): 4 / (5 + 5 - 4)
    assert score("CP-Oc(NP)", hyp, [ref]) == pytest.approx(4 / 6)
    # (*): S 3 of 5, NP 4 of 6, VP 1 of 1: 8 / 12
    assert score("CP-Oc(*)", hyp, [ref]) == pytest.approx(8 / 12)


def test_op_types_words_by_the_constituent_that_holds_them_directly():
    hyp = seg("the cat sat , apparently", "(S (NP the cat) (VP sat)) , (ADVP apparently)")
    got = items(metrics.create("CP-Op(*)").extractor(), hyp)
    assert got == {"NP": {"the": 1, "cat": 1}, "VP": {"sat": 1}, "O": {",": 1},
                   "ADVP": {"apparently": 1}}
    ref = seg("the cat sat apparently", "(S (NP the cat) (VP sat (ADVP apparently)))")
    # NP 2/2, VP 1/1, ADVP 1/1, O 0 of 1 (ref none): 4 of 5
    assert score("CP-Op(*)", hyp, [ref]) == pytest.approx(4 / 5)
    assert score("CP-Op(O)", hyp, [ref]) == 0.0


def test_several_references_keep_the_best_for_overlap_and_pool_on_request():
    assert score("CP-Oc(*)", HYP, [REF, REF2]) == max(score("CP-Oc(*)", HYP, [REF]),
                                                       score("CP-Oc(*)", HYP, [REF2]))
    pooled = score("CP-Oc(*):refs=pooled", HYP, [REF, REF2])
    assert 0 < pooled <= 1


# ------------------------------------------------------------------ texts without a tree
TIMEOUT = seg("the cat sat on the mat .", None, "timeout")
EMPTY = seg("", None)


@pytest.mark.parametrize("spec", ["CP-Op(*)", "CP-Oc(*)", "CP-STM-4"])
def test_a_hypothesis_without_a_tree_scores_zero_or_is_left_out(spec):
    m = metrics.create(spec)
    st = m.stats(TIMEOUT, [REF])
    assert st[1] == 1 and m.score(st) == 0.0  # never a match, never left out silently
    skip = metrics.create(spec + ":unparsed=skip")
    st = skip.stats(TIMEOUT, [REF])
    assert st[1] == 0 and math.isnan(skip.score(st))
    assert "unparsed:skip" in skip.signature() and "unparsed:zero" in m.signature()
    # an empty hypothesis has nothing: 0 under both rules
    for x in (m, skip):
        st = x.stats(EMPTY, [REF])
        assert st[1] == 1 and x.score(st) == 0.0


@pytest.mark.parametrize("spec", ["CP-Op(*)", "CP-Oc(*)", "CP-STM-4"])
def test_a_reference_without_a_tree_is_no_reference(spec):
    m = metrics.create(spec)
    ref_timeout = seg("a cat was sitting on the mat .", None, "timeout")
    # the segment is undefined when no reference has a tree, even for an unparsed hypothesis
    for hyp in (HYP, TIMEOUT, EMPTY):
        st = m.stats(hyp, [ref_timeout])
        assert st[1] == 0 and math.isnan(m.score(st)), hyp.text
    # beside one with a tree, it is left out (not a tree-less reference that matches nothing)
    assert m.score(m.stats(HYP, [ref_timeout, REF])) == m.score(m.stats(HYP, [REF]))
    # two texts without a tree never match each other
    st = m.stats(TIMEOUT, [ref_timeout])
    assert st[1] == 0


def test_unknown_rule_and_depth_are_refused():
    with pytest.raises(ConfigError):
        metrics.create("CP-STM-4:unparsed=maybe")
    with pytest.raises(ConfigError):
        metrics.create("CP-Oc(*):unparsed=maybe")
    with pytest.raises(Exception):  # noqa: B017 (no such family member)
        metrics.create("CP-STM-10")


def test_a_segment_without_the_layer_is_refused():
    bare = Segment.from_words("the cat sat")
    with pytest.raises(MissingLayerError, match="constituents"):
        metrics.create("CP-STM-4").stats(bare, [bare])


# ------------------------------------------------------------------ properties
SEGS = [HYP, REF, REF2, seg("Smith 's dog barked", "(S (NP (NP Smith 's) dog) (VP barked))"),
        seg("the cat sat , apparently", "(S (NP the cat) (VP sat)) , (ADVP apparently)",
            nulls=1)]


@pytest.mark.parametrize("spec", ["CP-Op(*)", "CP-Oc(*)", "CP-Oc(NP)", "CP-STM-4", "CP-STM-9",
                                  "CP-STMi-3"])
def test_identity_bounds_and_additivity(spec):
    m = metrics.create(spec)
    ident = m.stats_batch(SEGS, [[s] for s in SEGS])
    got = m.segment_scores(ident)
    assert np.all(got[~np.isnan(got)] == 1.0) and not np.isnan(got).all()
    refs = [[SEGS[(i + 1) % len(SEGS)], SEGS[(i + 2) % len(SEGS)]] for i in range(len(SEGS))]
    st = m.stats_batch(SEGS, refs)
    seg_scores = m.segment_scores(st)
    ok = seg_scores[~np.isnan(seg_scores)]
    assert ((ok >= 0) & (ok <= 1)).all()
    # additive: the corpus of the parts is the corpus of the whole
    rows = np.vstack([m.stats(h, r) for h, r in zip(SEGS, refs)])
    np.testing.assert_allclose(rows, st)
    assert m.score(st[:2].sum(0) + st[2:].sum(0)) == pytest.approx(m.score(st.sum(0)))


def test_the_subtree_extractor_is_registered_with_depth_types():
    assert CP_SUBTREE.types[:9] == tuple(str(d) for d in range(1, 10))


def test_the_report_shows_salient_constituent_types_between_two_systems():
    from mtstrata.report.salience import constituent_items, pair_analyses

    assert constituent_items(REF2) == [("S", ("the", "cat", "sat", ".")), ("NP", ("the", "cat")),
                                       ("VP", ("sat",))]
    assert constituent_items(TIMEOUT) == []
    ref = [REF2, REF2]
    a = [REF2, seg("the cat sat .", "(S (NP the cat) (VP sat) .)")]
    b = [seg("the cat sat .", "(S (NP the) (VP cat sat) .)"), TIMEOUT]
    sides = {"ref": ref, "a": a, "b": b}
    words = [[t.form for t in s.tokens] for s in ref]
    out = pair_analyses(words, [[t.form for t in s.tokens] for s in a],
                        [[t.form for t in s.tokens] for s in b],
                        lambda i, side: sides[side][i], 2)
    rows = {r["type"]: r for r in out["constituents"]["a_better"]}
    # NP and VP: A matches both reference copies, B neither (another NP/VP; no tree)
    assert rows["NP"]["a"] == 2 and rows["NP"]["b"] == 0 and rows["NP"]["ref"] == 2
    assert rows["S"]["a"] == 2 and rows["S"]["b"] == 1
