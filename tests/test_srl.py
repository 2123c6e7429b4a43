"""Rule tests of the dependency-based semantic-role labeller (hand-built parses, no model)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata.errors import InputError, MissingLayerError
from mtstrata.layers import AnnotationOptions, annotate_texts
from mtstrata.layers import provider as base
from mtstrata.layers.srl.rules import SRL_VERSION, label_frames
from mtstrata.metrics.linguistic.extractors import SR_ROLES
from mtstrata.segment import Layer, Segment
from tools.srl_gold import parse_bracketed, read_gold

GOLD = Path(__file__).parent / "data" / "srl_gold.txt"


def parse(spec: str) -> Segment:
    """``form/lemma/upos/xpos/head/deprel`` items separated by spaces (heads 1-based)."""
    items = [tok.split("/") for tok in spec.split()]
    return Segment.from_words(
        [i[0] for i in items], lemmas=[i[1] for i in items], upos=[i[2] for i in items],
        xpos=[i[3] for i in items], heads=[int(i[4]) for i in items],
        deprels=[i[5] for i in items])


def roles(seg: Segment) -> dict[str, list[tuple[str, str]]]:
    """{predicate form: [(role, argument text), ...]} in span order."""
    w = seg.words
    return {w[f.predicate]: [(a.label, " ".join(w[a.start:a.end])) for a in f.args]
            for f in label_frames(seg)}


CASES = [
    (  # active transitive with a temporal PP
        "The/the/DET/DT/2/det board/board/NOUN/NN/3/nsubj approved/approve/VERB/VBD/0/root "
        "the/the/DET/DT/5/det plan/plan/NOUN/NN/3/dobj on/on/ADP/IN/3/prep "
        "Monday/Monday/PROPN/NNP/6/pobj ././PUNCT/./3/punct",
        {"approved": [("A0", "The board"), ("A1", "the plan"), ("AM-TMP", "on Monday")]}),
    (  # passive with a by-agent and a locative PP
        "The/the/DET/DT/2/det law/law/NOUN/NN/4/nsubjpass was/be/AUX/VBD/4/auxpass "
        "passed/pass/VERB/VBN/0/root by/by/ADP/IN/4/agent parliament/parliament/NOUN/NN/5/pobj "
        "in/in/ADP/IN/4/prep Berlin/Berlin/PROPN/NNP/7/pobj",
        {"passed": [("A1", "The law"), ("A0", "by parliament"), ("AM-LOC", "in Berlin")]}),
    (  # ditransitive (dative NP)
        "She/she/PRON/PRP/2/nsubj gave/give/VERB/VBD/0/root the/the/DET/DT/4/det "
        "workers/worker/NOUN/NNS/2/dative a/a/DET/DT/6/det bonus/bonus/NOUN/NN/2/dobj",
        {"gave": [("A0", "She"), ("A2", "the workers"), ("A1", "a bonus")]}),
    (  # ditransitive with a "to" dative PP
        "She/she/PRON/PRP/2/nsubj sent/send/VERB/VBD/0/root letters/letter/NOUN/NNS/2/dobj "
        "to/to/ADP/IN/2/dative voters/voter/NOUN/NNS/4/pobj",
        {"sent": [("A0", "She"), ("A1", "letters"), ("A2", "to voters")]}),
    (  # negation, modal, control (xcomp subject) and a temporal adverb
        "He/he/PRON/PRP/4/nsubj will/will/AUX/MD/4/aux not/not/PART/RB/4/neg "
        "try/try/VERB/VB/0/root to/to/PART/TO/6/aux leave/leave/VERB/VB/4/xcomp "
        "soon/soon/ADV/RB/4/advmod",
        {"try": [("A0", "He"), ("AM-MOD", "will"), ("AM-NEG", "not"), ("A1", "to leave"),
                 ("AM-TMP", "soon")],
         "leave": [("A0", "He")]}),
    (  # reported speech: ccomp -> A1; unaccusative subject -> A1; causal clause
        "Officials/official/NOUN/NNS/2/nsubj said/say/VERB/VBD/0/root "
        "prices/price/NOUN/NNS/4/nsubj fell/fall/VERB/VBD/2/ccomp because/because/SCONJ/IN/7/mark "
        "demand/demand/NOUN/NN/7/nsubj weakened/weaken/VERB/VBD/4/advcl",
        {"said": [("A0", "Officials"), ("A1", "prices fell because demand weakened")],
         "fell": [("A1", "prices"), ("AM-CAU", "because demand weakened")],
         "weakened": [("A0", "demand")]}),
    (  # temporal clause and shared subject of a conjoined verb; copula is no predicate
        "When/when/SCONJ/WRB/3/advmod talks/talk/NOUN/NNS/3/nsubj ended/end/VERB/VBD/6/advcl "
        ",/,/PUNCT/,/6/punct they/they/PRON/PRP/6/nsubj left/leave/VERB/VBD/0/root "
        "and/and/CCONJ/CC/6/cc were/be/AUX/VBD/6/conj happy/happy/ADJ/JJ/8/acomp",
        {"ended": [("A1", "talks")],
         "left": [("AM-TMP", "When talks ended"), ("A0", "they")]}),
    (  # value verb: amount, start and end points
        "Sales/sale/NOUN/NNS/2/nsubj rose/rise/VERB/VBD/0/root 5/5/NUM/CD/4/nummod "
        "percent/percent/NOUN/NN/2/npadvmod from/from/ADP/IN/2/prep May/May/PROPN/NNP/5/pobj "
        "to/to/ADP/IN/2/prep June/June/PROPN/NNP/7/pobj",
        {"rose": [("A1", "Sales"), ("A2", "5 percent"), ("A3", "from May"), ("A4", "to June")]}),
    (  # relative clause: antecedent gets the relative pronoun's role; reduced relative -> A1
        "The/the/DET/DT/2/det firm/firm/NOUN/NN/0/root that/that/PRON/WDT/4/nsubj "
        "makes/make/VERB/VBZ/2/relcl cars/car/NOUN/NNS/4/dobj built/build/VERB/VBN/5/acl "
        "abroad/abroad/ADV/RB/6/advmod",
        {"makes": [("A0", "The firm"), ("A0", "that"), ("A1", "cars built abroad")],
         "built": [("A1", "cars"), ("AM-LOC", "abroad")]}),
    (  # discourse adverb, manner -ly adverb, purpose infinitive
        "However/however/ADV/RB/4/advmod ,/,/PUNCT/,/4/punct they/they/PRON/PRP/4/nsubj "
        "acted/act/VERB/VBD/0/root quickly/quickly/ADV/RB/4/advmod to/to/PART/TO/7/aux "
        "avoid/avoid/VERB/VB/4/advcl losses/loss/NOUN/NNS/7/dobj",
        {"acted": [("AM-DIS", "However"), ("A0", "they"), ("AM-MNR", "quickly"),
                   ("AM-PNC", "to avoid losses")],
         "avoid": [("A0", "they"), ("A1", "losses")]}),
]


@pytest.mark.parametrize(("spec", "expected"), CASES)
def test_rules(spec: str, expected: dict[str, list[tuple[str, str]]]) -> None:
    assert roles(parse(spec)) == expected


CASES_2 = [
    (  # temporal PP hung on the object by the parser is moved to the verb
        "Protesters/protester/NOUN/NNS/2/nsubj blocked/block/VERB/VBD/0/root "
        "the/the/DET/DT/4/det road/road/NOUN/NN/2/dobj for/for/ADP/IN/4/prep "
        "hours/hour/NOUN/NNS/5/pobj",
        {"blocked": [("A0", "Protesters"), ("A1", "the road"), ("AM-TMP", "for hours")]}),
    (  # frame-specific PP (accuse ... of) and object of a communication verb with a clause
        "They/they/PRON/PRP/2/nsubj accused/accuse/VERB/VBD/0/root him/he/PRON/PRP/2/dobj "
        "of/of/ADP/IN/3/prep fraud/fraud/NOUN/NN/4/pobj",
        {"accused": [("A0", "They"), ("A1", "him"), ("A2", "of fraud")]}),
    (
        "She/she/PRON/PRP/2/nsubj told/tell/VERB/VBD/0/root us/we/PRON/PRP/2/dobj "
        "that/that/SCONJ/IN/6/mark prices/price/NOUN/NNS/6/nsubj rose/rise/VERB/VBD/2/ccomp",
        {"told": [("A0", "She"), ("A2", "us"), ("A1", "that prices rose")],
         "rose": [("A1", "prices")]}),
    (  # a participial adjunct's empty subject is the main clause's subject; sell ... to -> A2
        "The/the/DET/DT/2/det firm/firm/NOUN/NN/3/nsubj sold/sell/VERB/VBD/0/root "
        "shares/share/NOUN/NNS/3/dobj to/to/ADP/IN/3/prep banks/bank/NOUN/NNS/5/pobj "
        ",/,/PUNCT/,/3/punct citing/cite/VERB/VBG/3/advcl debts/debt/NOUN/NNS/8/dobj",
        {"sold": [("A0", "The firm"), ("A1", "shares"), ("A2", "to banks"),
                  ("AM-ADV", "citing debts")],
         "citing": [("A0", "The firm"), ("A1", "debts")]}),
]


@pytest.mark.parametrize(("spec", "expected"), CASES_2)
def test_rules_2(spec: str, expected: dict[str, list[tuple[str, str]]]) -> None:
    assert roles(parse(spec)) == expected


def test_segment_with_two_sentences_labels_both_trees() -> None:
    seg = Segment.from_words(
        "Prices rose . Officials resigned .",
        lemmas=["price", "rise", ".", "official", "resign", "."],
        upos=["NOUN", "VERB", "PUNCT", "NOUN", "VERB", "PUNCT"],
        xpos=["NNS", "VBD", ".", "NNS", "VBD", "."], heads=[2, 0, 2, 5, 0, 5],
        deprels=["nsubj", "root", "punct", "nsubj", "root", "punct"], sent_starts=[0, 3])
    assert roles(seg) == {"rose": [("A1", "Prices")], "resigned": [("A0", "Officials")]}


def test_passive_ditransitive_subject_is_a2() -> None:
    seg = parse("He/he/PRON/PRP/3/nsubjpass was/be/AUX/VBD/3/auxpass given/give/VERB/VBN/0/root "
                "a/a/DET/DT/5/det medal/medal/NOUN/NN/3/dobj")
    assert roles(seg) == {"given": [("A2", "He"), ("A1", "a medal")]}


def test_no_dependency_layer_is_a_clear_error() -> None:
    with pytest.raises(MissingLayerError, match="dependency layer"):
        label_frames(Segment.from_words("Prices rose ."))


def test_rule_labeller_through_the_registry() -> None:
    seg = parse(CASES[0][0])
    rules = base.PROVIDERS.create("rules")
    (out,) = base.add_frames([seg], rules)
    assert Layer.SRL in out.layers and out.frames == label_frames(seg)
    assert rules.version == SRL_VERSION and rules.needs == base.Labeller.needs
    assert Segment.from_json(out.to_json()) == out


def test_parse_bracketed_and_errors() -> None:
    toks = ["The", "board", "approved", "the", "plan", "."]
    f = parse_bracketed("[A0 The board] [V approved] [A1 the plan] .", toks, "g", 1)
    assert f.predicate == 2
    assert [(a.start, a.end, a.label) for a in f.args] == [(0, 2, "A0"), (3, 5, "A1")]
    with pytest.raises(InputError, match="g, line 7"):
        parse_bracketed("[A0 The board] [V approved] [A1 a plan] .", toks, "g", 7)
    with pytest.raises(InputError, match="V"):
        parse_bracketed("[A0 The board] approved [A1 the plan] .", toks, "g", 1)


def test_gold_file_parses_and_is_large_enough() -> None:
    gold = read_gold(GOLD)
    assert len(gold) >= 60
    n_args = sum(len(f.args) for g in gold for f in g.frames)
    assert n_args >= 200
    labels = {a.label for g in gold for f in g.frames for a in f.args}
    for role in ("A0", "A1", "A2", "AM-TMP", "AM-LOC", "AM-NEG", "AM-MOD", "AM-MNR"):
        assert role in labels


def test_held_out_gold_file_parses() -> None:
    gold = read_gold(GOLD.with_name("srl_gold_test.txt"))
    assert len(gold) >= 40
    assert sum(len(f.args) for g in gold for f in g.frames) >= 150


@pytest.mark.spacy
def test_srl_layer_through_the_annotation_plan(tmp_path: Path) -> None:
    text = "The new law was approved by parliament last month."
    opts = AnnotationOptions(cache=str(tmp_path / "c.sqlite"), quiet=True, labeller="rules")
    segs, sig = annotate_texts([text], {Layer.SRL}, opts)
    seg = segs[text]
    assert Layer.SRL in seg.layers and f"srl-{SRL_VERSION}" in sig
    w = seg.words
    (frame,) = seg.frames
    assert w[frame.predicate] == "approved"
    got = {(a.label, " ".join(w[a.start:a.end])) for a in frame.args}
    assert got == {("A1", "The new law"), ("A0", "by parliament"), ("AM-TMP", "last month")}


DEPRELS = ["nsubj", "nsubjpass", "dobj", "dative", "agent", "prep", "pobj", "advmod", "npadvmod",
           "neg", "aux", "auxpass", "ccomp", "xcomp", "advcl", "relcl", "acl", "conj", "cc",
           "attr", "acomp", "oprd", "mark", "det", "amod", "punct", "prt", "expl", "csubj"]
WORDS = ["the", "that", "when", "by", "to", "in", "on", "not", "will", "Monday", "5", "rose",
         "because", "quickly", ",", "said", "which", "from", "for", "however"]


@st.composite
def random_parses(draw: st.DrawFn) -> Segment:
    """Random (possibly non-projective) dependency trees with random labels and tags."""
    n = draw(st.integers(1, 12))
    order = draw(st.permutations(range(n)))
    heads = [0] * n
    for k, i in enumerate(order[1:], 1):  # attach each token to one placed before it: a tree
        heads[i] = order[draw(st.integers(0, k - 1))] + 1
    pick = st.sampled_from
    upos = [draw(pick(["VERB", "AUX", "NOUN", "ADP", "ADV", "PUNCT", "NUM", "PRON"]))
            for _ in range(n)]
    xpos = [draw(pick(["VBD", "VBN", "VBG", "MD", "NN", "IN", "RB", "WRB", ",", "CD", "TO"]))
            for _ in range(n)]
    words = [draw(pick(WORDS)) for _ in range(n)]
    return Segment.from_words(words, lemmas=words, upos=upos, xpos=xpos, heads=heads,
                              deprels=[draw(pick(DEPRELS)) if h else "root" for h in heads])


@settings(max_examples=300, deadline=None)
@given(random_parses())
def test_frames_are_well_formed_on_any_tree(seg: Segment) -> None:
    frames = label_frames(seg)
    n = len(seg.tokens)
    preds = [i for i, t in enumerate(seg.tokens)
             if t.upos == "VERB" and t.deprel not in ("aux", "auxpass", "amod")]
    assert [f.predicate for f in frames] == preds
    for f in frames:
        for a in f.args:
            assert 0 <= a.start < a.end <= n
            assert a.label in SR_ROLES


def test_cyclic_heads_do_not_hang() -> None:
    seg = Segment.from_words("prices rose", lemmas=["price", "rise"], upos=["NOUN", "VERB"],
                             xpos=["NNS", "VBD"], heads=[2, 1], deprels=["nsubj", "conj"])
    assert [f.predicate for f in label_frames(seg)] == [1]


def test_the_package_ships_no_srl_tools_and_reads_no_tests() -> None:
    """Training and evaluation tools live in tools/ (they read data where the caller says);
    no module of the installed package names the tests folder in its code (docstrings aside)."""
    import ast
    import importlib.util

    import mtstrata

    for name in ("srl_eval", "srl_gold", "srl_propbank", "srl.eval", "srl.gold", "srl.propbank"):
        assert importlib.util.find_spec(f"mtstrata.layers.{name}") is None, name
    root = Path(mtstrata.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr)}
        found += [f"{path.relative_to(root)}:{n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                  and (n.value == "tests" or n.value.startswith("tests/"))]
    assert not found, f"the package refers to tests/ at run time: {found}"
