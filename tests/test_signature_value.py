"""The signature as a typed value (issue 37): :class:`mtstrata.signature.Signature` parses and
renders signatures with escaping, so any value (a ``|``, a ``:``, a backslash) round-trips, and
what mtstrata has always written renders byte for byte as it was: every metric's signature, the
golden snapshot's, and :func:`~mtstrata.signature.add_run_facts` as it was written with string
operations (kept below as the reference)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mtstrata import metrics
from mtstrata import signature as S
from mtstrata._version import __version__

GOLDEN = Path(__file__).parent / "data" / "golden_snapshot.json"


def old_add_run_facts(sig: str, **facts: str) -> str:
    """add_run_facts as it was (string operations), the reference for unchanged bytes."""
    head, sep, ver = sig.rpartition("|version:")
    if not sep:
        head, ver = sig, __version__
    extra = "".join(f"|{k}:{S.escape(str(v))}" for k, v in facts.items())
    return f"{head}{extra}|version:{ver}"


def _signatures() -> list[str]:
    out = [metrics.create(e.name).signature() for e in metrics.REGISTRY.entries()
           if e.pattern is None and e.name not in ("ULC", "ULC-lex", "ULC-emb")]
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["metrics"]
    out += [e["signature"] for e in golden.values()]  # (without mtstrata's version)
    return out


def test_what_mtstrata_writes_renders_as_it_was():
    sigs = _signatures()
    assert len(sigs) > 100
    for sig in sigs:
        value = S.Signature.parse(sig)
        assert value.render() == sig
        facts = {"nrefs": "2", "ann": "spacy-3.8.18.x.conv2+srl-rules-3.conv2"}
        assert S.add_run_facts(sig, **facts) == old_add_run_facts(sig, **facts)


values = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
keys = st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True).filter(lambda k: k != "version")


@given(name=values.filter(lambda n: n.strip() == n and n != ""),
       items=st.lists(st.tuples(keys, values), max_size=5),
       facts=st.dictionaries(keys, values, max_size=3))
def test_any_value_round_trips(name, items, facts):
    sig = S.build(name, items, 2, **facts)
    value = S.Signature.parse(sig)
    assert value.name == name
    assert value.parts == (*((k, v) for k, v in items), ("def", "2"),
                           *facts.items(), ("version", __version__))
    assert value.render() == sig
    again = S.Signature.parse(S.add_run_facts(sig, ann="a|b:c\\d"))
    assert again.run["ann"] == "a|b:c\\d" and again.parts[-1] == ("version", __version__)


def test_a_separator_in_a_value_does_not_split_it():
    sig = S.build("ULC", [("set", "dir|with:colon\\x.json")], 1)
    assert sig.startswith("ULC|set:dir\\|with:colon\\\\x.json|def:1|")
    name, params, run = S.parse(sig)
    assert (name, params["set"], run["def"]) == ("ULC", "dir|with:colon\\x.json", "1")


def test_sacrebleu_nameless_form():
    value = S.Signature.parse("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0")
    assert value.name == "" and value.params["case"] == "mixed" and value.run["nrefs"] == "1"
    assert value.render() == "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"


@pytest.mark.parametrize("sig", ["bleu", "BLEU|version:0.1.0"])
def test_run_facts_go_before_the_version(sig):
    out = S.add_run_facts(sig, nrefs="1")
    assert out == old_add_run_facts(sig, nrefs="1")
    assert out.endswith("|nrefs:1|version:" + (sig.partition("version:")[2] or __version__))
