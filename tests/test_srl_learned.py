"""The learned role labeller: its model file, the data split, its frames, its quality floor."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from mtstrata import lock
from mtstrata.errors import InputError, MissingLayerError, ModelError
from mtstrata.layers.provider import PROVIDERS
from mtstrata.layers.srl import learned as srl_learned
from mtstrata.layers.srl.learned import LearnedSRL
from mtstrata.layers.srl.linear import LinearModel, load, save
from mtstrata.layers.srl.rules import label_frames
from mtstrata.segment import Frame, Segment, Span
from tests.test_srl import CASES, parse, random_parses
from tools import srl_eval
from tools import srl_propbank as pb
from tools.srl_gold import read_gold

DATA = Path(__file__).parent / "data"
needs_data = pytest.mark.skipif(not pb.data_path().is_file(),
                                reason=f"gold PropBank data absent ({pb.data_path()})")


# ----------------------------------------------------------------------------- the split
def test_recorded_held_out_documents_follow_the_rule() -> None:
    ids = pb.read_held_out_ids()
    assert len(ids) >= 40 and ids == sorted(set(ids))
    assert all(pb.is_held_out(d) for d in ids)


def test_document_of_and_label_conversion() -> None:
    assert pb.document_of("email-enronsent29_01-0012") == "email-enronsent29_01"
    table = {"ARG0": "A0", "ARGA": "AA", "ARGM-TMP": "AM-TMP", "R-ARG1": "R-A1",
             "C-ARG2": "C-A2", "R-ARGM-LOC": "R-AM-LOC", "C-V": "C-V"}
    assert {k: pb.convert_label(k) for k in table} == table


@needs_data
def test_split_of_the_data_is_the_recorded_one() -> None:
    sents = pb.read()
    train, held = pb.split(sents)
    assert sorted({s.document for s in held}) == pb.read_held_out_ids()
    assert not {s.document for s in train} & {s.document for s in held}
    assert len(train) + len(held) == len(sents) and 0.1 < len(held) / len(sents) < 0.3


# ----------------------------------------------------------------------------- the model file
def test_model_file_matches_models_lock() -> None:
    entry = srl_learned.pinned()
    assert Path(entry["path"]).name == srl_learned.MODEL_FILE.name
    assert lock.sha256_of(srl_learned.MODEL_FILE) == entry["sha256"]
    assert LearnedSRL().version == f"learned-{srl_learned.FORMAT}.{entry['sha256'][:12]}"
    assert srl_learned.MODEL_FILE.stat().st_size < 50e6


def test_altered_model_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "srl_learned.npz"
    shutil.copy(srl_learned.MODEL_FILE, bad)
    with open(bad, "r+b") as fh:
        fh.seek(100)
        byte = fh.read(1)
        fh.seek(100)
        fh.write(bytes([byte[0] ^ 1]))
    with pytest.raises(ModelError, match="sha256.*models.lock pins.*train_srl"):
        LearnedSRL(str(bad)).label([parse(CASES[0][0])])


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="missing.*train_srl"):
        LearnedSRL(str(tmp_path / "nothing.npz")).load()


def test_model_loads_without_heavy_libraries() -> None:
    # what keeps the load cheap, as a fact about mtstrata (its time is benchmarks/' business):
    # the shipped model is read with numpy and scipy alone, never scikit-learn or torch
    import subprocess

    code = ("import sys; from mtstrata.layers.srl import learned as l; "
            "m = l.load_models(l.verified_path()); "
            "print(sorted(x for x in ('sklearn', 'torch', 'transformers') if x in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]", out


def test_missing_gold_data_names_the_variable(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MTSTRATA_DATA", str(tmp_path))
    assert pb.data_path() == tmp_path / "propbank_ewt" / "dev.jsonl"
    with pytest.raises(InputError, match="MTSTRATA_DATA"):
        pb.read()


def test_linear_model_storage_round_trip_is_byte_stable(tmp_path: Path) -> None:
    m = LinearModel({"a": 0, "b": 1}, np.array([[1.0, -1.0], [0.5, 2.0]], dtype=np.float32),
                    np.array([0.0, 0.25], dtype=np.float32), ("x", "y"))
    p1, p2 = tmp_path / "1.npz", tmp_path / "2.npz"
    save(str(p1), {"m": m}, {"format": "7"})
    save(str(p2), {"m": m}, {"format": "7"})
    assert p1.read_bytes() == p2.read_bytes()
    models, meta = load(str(p1), ["m"])
    back = models["m"]
    assert meta == {"format": "7"} and back.classes == ("x", "y")
    # scores: bias + the sum of the active features' rows; unknown features are ignored
    assert np.allclose(back.scores([["a", "b", "zzz"], []]), [[1.5, 1.25], [0.0, 0.25]])
    assert np.allclose(back.proba([["a"]]).sum(axis=1), 1.0)


# ----------------------------------------------------------------------------- labelling
def _check_frames(seg: Segment, frames: tuple[Frame, ...]) -> None:
    n = len(seg.tokens)
    known = set(_LEARNED.load().argument.classes)
    assert [f.predicate for f in frames] == sorted({f.predicate for f in frames})
    for f in frames:
        assert 0 <= f.predicate < n
        spans = sorted((a.start, a.end) for a in f.args)
        for a in f.args:
            assert 0 <= a.start < a.end <= n and not a.start <= f.predicate < a.end
            assert a.label in known and a.label != srl_learned.NONE
        assert all(e1 <= s2 for (_, e1), (s2, _) in zip(spans, spans[1:]))  # no overlap
        core = [a.label for a in f.args if a.label in srl_learned.CORE]
        assert len(core) == len(set(core))


def test_learned_labeller_on_hand_built_parses() -> None:
    segs = [parse(spec) for spec, _ in CASES]
    out = LearnedSRL().label(segs)
    assert len(out) == len(segs)
    for seg, frames in zip(segs, out):
        _check_frames(seg, frames)
    # "The board approved the plan on Monday ." : a plain transitive clause
    w = segs[0].words
    (frame,) = [f for f in out[0] if w[f.predicate] == "approved"]
    got = {(a.label, " ".join(w[a.start:a.end])) for a in frame.args}
    assert {("A0", "The board"), ("A1", "the plan")} <= got


_LEARNED = LearnedSRL()


@settings(max_examples=200, deadline=None)
@given(random_parses())
def test_learned_frames_are_well_formed_on_any_tree(seg: Segment) -> None:
    # random (possibly non-projective) trees with random labels: valid, non-overlapping spans
    (frames,) = _LEARNED.label([seg])
    _check_frames(seg, frames)


def test_learned_labeller_on_cyclic_heads_terminates() -> None:
    seg = Segment.from_words("prices rose sharply", lemmas=["price", "rise", "sharply"],
                             upos=["NOUN", "VERB", "ADV"], xpos=["NNS", "VBD", "RB"],
                             heads=[2, 3, 2], deprels=["nsubj", "conj", "advmod"])
    (frames,) = _LEARNED.label([seg])
    _check_frames(seg, frames)


def test_learned_labeller_batch_equals_one_by_one_and_handles_empty() -> None:
    segs = [parse(spec) for spec, _ in CASES[:4]] + [Segment.from_words([], heads=[])]
    lab = LearnedSRL()
    assert lab.label(segs) == [lab.label([s])[0] for s in segs]
    assert lab.label(segs)[-1] == () and lab.label([]) == []


def test_instances_have_distinct_features() -> None:
    # training counts a feature once per instance, labelling sums the matrix row: equal only
    # when no feature string repeats within an instance
    from mtstrata.layers.srl import features as F
    from mtstrata.layers.srl.tree import Tree, is_predicate_candidate

    for spec, _ in CASES:
        tree = Tree(parse(spec))
        for i in range(tree.n):
            if is_predicate_candidate(tree, i):
                feats = F.predicate_features(tree, i)
                assert len(feats) == len(set(feats))
                for _c, feats in F.argument_instances(tree, i):
                    assert len(feats) == len(set(feats))


def test_learned_labeller_needs_the_dependency_layer() -> None:
    with pytest.raises(MissingLayerError, match="dependency layer"):
        LearnedSRL().label([Segment.from_words("Prices rose .")])


def test_both_labellers_share_the_interface() -> None:
    seg = parse(CASES[0][0])
    rules, learned = PROVIDERS.create("rules"), PROVIDERS.create("learned")
    assert isinstance(learned, LearnedSRL) and learned.name == "learned"
    for lab in (rules, learned):
        assert lab.dep_scheme == "clearnlp" and lab.needs == pb.NEEDS
        assert isinstance(lab.version, str) and lab.version
        assert len(lab.label([seg, seg])) == 2
    assert rules.label([seg]) == [label_frames(seg)]


# ----------------------------------------------------------------------------- scoring
def test_conll_scoring_counts() -> None:
    gold = [Frame(1, (Span(0, 1, "A0"), Span(2, 4, "A1"), Span(4, 5, "C-V"))), Frame(6, ())]
    pred = [Frame(1, (Span(0, 1, "A0"), Span(2, 3, "A1"), Span(4, 5, "AM-TMP"))),
            Frame(7, (Span(8, 9, "A1"),))]
    c = srl_eval.score([gold], [pred])
    assert (c.pred_tp, c.pred_pred, c.pred_gold) == (1, 2, 2)
    assert c.arguments() == pytest.approx((1 / 4, 1 / 2, 1 / 3))  # C-V is no argument
    assert c.arguments("A0") == (1.0, 1.0, 1.0) and c.unlabelled_tp == 1


# ----------------------------------------------------------------------------- quality floors
@pytest.mark.spacy
@needs_data
def test_learned_labeller_quality_floor_on_held_out_slice() -> None:
    _, held = pb.split(pb.read())
    held = held[:80]
    segs = pb.parse_tokens(pb.load_spacy(), [s.tokens for s in held])
    c = srl_eval.score([s.verbal_frames() for s in held], LearnedSRL().label(segs))
    assert c.sentences == len(held)
    assert c.predicates()[2] >= 0.90
    assert c.arguments()[2] >= 0.60


@pytest.mark.spacy
@pytest.mark.parametrize(("name", "floor"), [("srl_gold.txt", 0.93), ("srl_gold_test.txt", 0.85)])
def test_rules_hold_their_figures_on_the_hand_written_sets(name: str, floor: float) -> None:
    gold = read_gold(DATA / name)
    segs = pb.parse_tokens(pb.load_spacy(), [g.tokens for g in gold])
    c = srl_eval.score([g.frames for g in gold], PROVIDERS.create("rules").label(segs))
    assert c.predicates()[2] >= 0.95
    assert c.arguments()[2] >= floor
