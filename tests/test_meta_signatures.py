"""`meta` and `search` name metrics canonically and print/write each metric's signature: text,
JSON (every record, avg rows, ULC sets and ext: scores included) and TSV."""

from __future__ import annotations

import hashlib
import json

import pytest

from mtstrata import metrics
from mtstrata.cli import main
from mtstrata.meta.names import canonical_name
from mtstrata.meta.table_cache import CORE_METRICS, LEXICAL_CANDIDATES
from tests.test_combine_cli import SYSTEMS, _corpus


@pytest.mark.parametrize("spec", [*LEXICAL_CANDIDATES, *CORE_METRICS, "SP-Op(*)", "ULC-lex",
                                  "meteor", "nist:max_order=3"])
def test_canonical_names_rebuild_the_same_metric(spec):
    m = metrics.create(spec)
    name = canonical_name(m)
    assert metrics.create(name).signature() == m.signature()
    assert name.split(":")[0] == m.display_name()


def test_canonical_names():
    assert canonical_name(metrics.create("bleu")) == "BLEU"
    assert canonical_name(metrics.create("bleu:max_order=4")) == "BLEU"
    assert canonical_name(metrics.create("bleu:max_order=2,smooth=floor")) == \
        "BLEU:smooth=floor,smooth_value=0.1,max_order=2"


def _meta(tmp_path, capsys, *args, fmt="json"):
    assert main(["meta", "--tables", str(tmp_path / "t"), "--bootstrap", "20", "-q",
                 "-f", fmt, *args]) == 0
    return capsys.readouterr().out


def test_every_json_record_carries_its_signature(tmp_path, capsys):
    dirs = [_corpus(tmp_path, n) for n in ("aa-en", "bb-en")]
    files = [str(dirs[0] / "sys" / f"{s}.txt") for s in SYSTEMS]
    ext = tmp_path / "ext"
    for d in dirs:
        files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
        assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "chrf", "-f",
                     "mtme", "--out", str(ext), "--lp", d.name, "-q"]) == 0
    capsys.readouterr()
    out = _meta(tmp_path, capsys, "--data", *map(str, dirs), "-m", "bleu", "BLEU",
                "bleu:max_order=2", "ULC-lex", f"ext:{ext}/chrF")
    recs = json.loads(out)
    names = {r["metric"] for r in recs}
    assert names == {"BLEU", "BLEU:max_order=2", "ULC-lex", "ext:chrF"}  # bleu = BLEU: once
    assert all(r.get("signature") for r in recs)
    by = {(r["lp"], r["metric"]): r["signature"] for r in recs if r["level"] == "sys"}
    bleu = metrics.create("bleu").signature()
    assert by[("aa-en", "BLEU")].startswith(bleu.rsplit("|version:", 1)[0])
    assert "|nrefs:1|" in by[("aa-en", "BLEU")] and "|def:" in by[("aa-en", "BLEU")]
    assert by[("avg", "BLEU")] == by[("aa-en", "BLEU")]  # one signature over the pairs
    assert "max_order:2" in by[("aa-en", "BLEU:max_order=2")]
    assert by[("aa-en", "ULC-lex")].startswith(
        metrics.create("ULC-lex").signature().rsplit("|version:", 1)[0])
    # ext: names itself external, the file read and its sha256; avg lists both pairs' files
    seg = next((ext / "aa-en").glob("*.seg.score"))
    sig = by[("aa-en", "ext:chrF")]
    assert sig.startswith("EXT|name:chrF|") and f"seg:{seg.resolve()}|" in sig
    assert f"seg_sha256:{hashlib.sha256(seg.read_bytes()).hexdigest()}" in sig
    assert isinstance(by[("avg", "ext:chrF")], list) and len(by[("avg", "ext:chrF")]) == 2


def test_ulc_option_records_name_the_set_file(tmp_path, capsys):
    dirs = [_corpus(tmp_path, n) for n in ("aa-en", "bb-en")]
    out = tmp_path / "picked.json"
    assert main(["search", "--data", *map(str, dirs), "-m", "bleu", "chrf", "wer", "--tables",
                 str(tmp_path / "t"), "--out", str(out), "-q"]) == 0
    text = capsys.readouterr().out
    assert "signatures:" in text and any(f"  {m}" in text for m in ("BLEU", "chrF", "WER"))
    recs = json.loads(_meta(tmp_path, capsys, "--data", *map(str, dirs), "--ulc", str(out)))
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert {r["metric"] for r in recs} == {"ULC:picked"}
    assert all(f"|set:picked.json|sha256:{digest}|" in r["signature"] for r in recs)
    saved = json.loads(out.read_text())["provenance"]
    assert all("|nrefs:" not in s and "|def:" in s for s in saved["signatures"].values())


def test_text_and_tsv_name_signatures(tmp_path, capsys):
    d = _corpus(tmp_path)
    text = _meta(tmp_path, capsys, "--data", str(d), "-m", "chrf", "wer", fmt="text")
    lines = text.splitlines()
    legend = lines[lines.index("signatures:") + 1:]
    assert [x.split()[0] for x in legend] == ["chrF", "WER"]
    assert legend[0].split()[1].startswith("chrF|nc:6|")
    tsv = _meta(tmp_path, capsys, "--data", str(d), "-m", "chrf", fmt="tsv").splitlines()
    header = tsv[0].split("\t")
    assert header[:5] == ["lp", "metric", "level", "statistic", "value"]
    assert header[-1] == "signature"
    rows = [x.split("\t") for x in tsv[1:]]
    assert rows and all(r[1] == "chrF" and r[-1].startswith("chrF|") for r in rows)


def test_a_set_with_external_members_is_signed_by_its_file(tmp_path, capsys):
    from mtstrata.metrics.setfile import MetricSet, Norm

    d = _corpus(tmp_path, "aa-en")
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    ext = tmp_path / "ext"
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "chrf", "-f", "mtme",
                 "--out", str(ext), "--lp", d.name, "-q"]) == 0
    capsys.readouterr()
    member = f"ext:{ext}/chrF"
    path = tmp_path / "mixed.json"
    from mtstrata.metrics.members import set_record

    MetricSet((Norm(member, 0.0, 100.0),),
              provenance=set_record([member], {}, [d.name])).save(path)
    recs = json.loads(_meta(tmp_path, capsys, "--data", str(d), "--ulc", str(path)))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert recs and all(r["metric"] == "ULC:mixed" for r in recs)
    assert all(r["signature"].startswith(f"ULC|set:mixed.json|sha256:{digest}|def:")
               for r in recs)
