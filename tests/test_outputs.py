"""Every output format read back by a strict reader: JSON without NaN (``parse_constant``
refuses it), TSV as one csv table with one header, segment ids from 0, mt-metrics-eval files
by mt-metrics-eval's naming rules; external score files as metrics of ``meta``."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path

import pytest

from mtstrata.cli import main
from mtstrata.commands import score as score_cmd
from mtstrata.errors import InputError
from mtstrata.meta import mtme
from mtstrata.metrics.base import Score
from tests.test_combine_cli import SYSTEMS, _corpus


def strict_json(text: str):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _args(d: Path, *metrics: str) -> list[str]:
    return ["score", "-r", str(d / "ref.txt"), "-i",
            *[str(d / "sys" / f"{s}.txt") for s in SYSTEMS], "-m", *metrics]


def test_undefined_numbers_are_null_in_json():
    s = Score("A", "m", math.nan, "sig", details={"P": math.inf}, segments=[1.0, math.nan],
              ci=(math.nan, 2.0))
    rec = strict_json(score_cmd.format_json([s]))["scores"][0]
    assert rec["score"] is None and rec["details"]["P"] is None
    assert rec["segments"] == [1.0, None] and rec["ci"] == [None, 2.0]


def test_tsv_is_one_table_with_0_based_segments(tmp_path, capsys):
    d = _corpus(tmp_path)
    args = _args(d, "bleu", "chrf", "--sentence-level", "--details")
    js = strict_json(run([*args, "-f", "json"], capsys))["scores"]
    rows = list(csv.reader(io.StringIO(run([*args, "-f", "tsv"], capsys)), delimiter="\t"))
    header, body = rows[0], rows[1:]
    assert header == score_cmd.TSV_HEADER
    assert all(len(r) == len(header) for r in body) and header not in body
    col = {k: i for i, k in enumerate(header)}
    for rec in js:
        seg = [r for r in body if r[col["system"]] == rec["system"]
               and r[col["metric"]] == rec["metric"] and r[col["level"]] == "seg"]
        assert [int(r[col["segment"]]) for r in seg] == list(range(len(rec["segments"])))
        assert [float(r[col["score"]]) for r in seg] == pytest.approx(rec["segments"], abs=1e-6)
        (corpus_row,) = [r for r in body if r[col["system"]] == rec["system"]
                         and r[col["metric"]] == rec["metric"] and r[col["level"]] == "sys"]
        assert float(corpus_row[col["score"]]) == pytest.approx(rec["score"], abs=1e-6)
        assert corpus_row[col["segment"]] == "" and corpus_row[col["signature"]] == rec[
            "signature"]
    text = run([*args, "-f", "text"], capsys)
    assert "segment (from 0)" in text and "\tbleu\t0\t" not in text


def parse_mtme_name(name: str):
    """mt-metrics-eval's rules, restated: NAME.LEVEL.score split from the right; NAME-REF
    split at the last hyphen; references joined by dots."""
    name_part, level, ext = name.rsplit(".", maxsplit=2)
    assert ext == "score" and level in ("sys", "domain", "doc", "seg")
    basename, refs = name_part.rsplit("-", maxsplit=1)
    return basename, set(refs.split(".")), level


def read_mtme_file(path: Path):
    scores: dict[str, list[float | None]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        sysname, value = line.split()  # exactly two fields, as mt-metrics-eval reads them
        scores.setdefault(sysname, []).append(float(value) if value != "None" else None)
    return scores


def test_mtme_files_follow_mt_metrics_eval_naming(tmp_path, capsys):
    d = _corpus(tmp_path)
    (d / "ref.B.txt").write_text((d / "ref.txt").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "scores"
    specs = ["bleu", "bleu:smooth=floor", "chrf", "wer"]
    base = ["score", "-r", str(d / "ref.txt"), "-r", str(d / "ref.B.txt"), "-i",
            *[str(d / "sys" / f"{s}.txt") for s in SYSTEMS], "-m", *specs]
    run([*base, "-f", "mtme", "--out", str(out), "--lp", "de-en"], capsys)
    js = strict_json(run([*base, "-f", "json", "--sentence-level"], capsys))["scores"]
    files = sorted((out / "de-en").glob("*.score"))
    assert len(files) == 2 * len(specs)
    manifest = list(csv.DictReader(io.StringIO((out / "de-en" / mtme.MANIFEST).read_text(
        encoding="utf-8")), delimiter="\t"))
    label = {m["file_name"]: m["signature"] for m in manifest}
    for f in files:
        assert "nan" not in f.read_text(encoding="utf-8").lower()
        basename, refs, level = parse_mtme_name(f.name)
        assert refs == {"ref", "refB"} and level in ("seg", "sys")
        assert all(c.isalnum() or c in "._+-" for c in basename)
        sig = label[f"{basename}-ref.refB"]
        scores = read_mtme_file(f)
        assert set(scores) == set(SYSTEMS)
        for system, values in scores.items():
            rec = next(r for r in js if r["system"] == system and r["signature"] == sig)
            want = rec["segments"] if level == "seg" else [rec["score"]]
            assert values == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(("name", "safe"), [
    ("SP-Op(*)", "SP-Op_all"), ("NE-Oe(**)", "NE-Oe_allall"), ("DP-HWCM_r-4", "DP-HWCM_r-4"),
    ("bleu:smooth=floor,max_order=2", "bleu_smooth_floor_max_order_2"), ("chrF++", "chrF++")])
def test_safe_names_parse_back(name, safe):
    assert mtme.safe_name(name) == safe
    assert parse_mtme_name(f"{safe}-refA.seg.score")[0] == safe


def test_meta_reads_external_scores_like_its_own(tmp_path, capsys):
    """The scores of a metric written as MTME files and read back as an external metric
    correlate exactly as the metric itself."""
    d = _corpus(tmp_path, "de-en")
    out = tmp_path / "ext"
    run([*_args(d, "chrf"), "-f", "mtme", "--out", str(out), "--lp", "de-en"], capsys)
    recs = strict_json(run(["meta", "--data", str(d), "-m", "chrf", f"ext:{out}/chrF",
                            "--tables", str(tmp_path / "t"), "--bootstrap", "20", "-f",
                            "json", "-q"], capsys))
    ours = {(r["statistic"], r.get("level")): r["value"] for r in recs
            if r["metric"] == "chrF" and r["lp"] == "de-en"}
    ext = {(r["statistic"], r.get("level")): r["value"] for r in recs
           if r["metric"] == "ext:chrF" and r["lp"] == "de-en"}
    assert ours and ours == pytest.approx(ext)


def test_external_scores_errors(tmp_path):
    (tmp_path / "de-en").mkdir()
    with pytest.raises(InputError, match="no COMET-REF.seg.score"):
        mtme.external_scores(f"ext:{tmp_path}/COMET", "de-en", ["a"], 2)
    for ref in ("refA", "refB"):
        (tmp_path / "de-en" / f"COMET-{ref}.seg.score").write_text("a\t0.1\na\tNone\n")
    with pytest.raises(InputError, match="several files"):
        mtme.external_scores(f"ext:{tmp_path}/COMET", "de-en", ["a"], 2)
    sys_, seg, _ = mtme.external_scores(f"ext:{tmp_path}/COMET-refA", "de-en", ["a"], 2)
    assert seg[0, 0] == 0.1 and math.isnan(seg[0, 1]) and sys_[0] == 0.1
    with pytest.raises(InputError, match="segment scores"):
        mtme.external_scores(f"ext:{tmp_path}/COMET-refA", "de-en", ["a"], 3)


def test_compare_and_audit_json_are_strict(tmp_path, capsys):
    d = _corpus(tmp_path)
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    strict_json(run(["compare", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "-m",
                     "bleu", "-n", "50", "-f", "json", "-q"], capsys))
    strict_json(run(["audit", "--data", str(d), "-m", "bleu", "-n", "20", "--splits", "1",
                     "-f", "json"], capsys))


def test_mtme_write_is_atomic_and_refuses_whitespace_in_names(tmp_path):
    with pytest.raises(InputError, match="whitespace"):
        mtme.write_scores(tmp_path, "de-en", "m", "ref", {"sys A": [1.0]}, {"sys A": 1.0})
    mtme.write_scores(tmp_path, "de-en", "m", "ref", {"a": [1.0, math.nan]}, {"a": 0.5})
    assert sorted(os.listdir(tmp_path / "de-en")) == ["m-ref.seg.score", "m-ref.sys.score"]
    assert read_mtme_file(tmp_path / "de-en" / "m-ref.seg.score") == {"a": [1.0, None]}


@pytest.mark.parametrize("lp", ["../../x", "de-en/..", "/tmp/x-y", "de en", ""])
def test_mtme_lp_cannot_leave_the_output_directory(tmp_path, capsys, lp):
    d = _corpus(tmp_path / "data")
    out = tmp_path / "a" / "b" / "out"
    assert main([*_args(d, "bleu"), "-f", "mtme", "--out", str(out), "--lp", lp]) == 2
    assert "language pair" in capsys.readouterr().err
    written = [p for p in tmp_path.rglob("*") if p.is_file() and "data" not in p.parts]
    assert written == []


def test_search_takes_external_scores_as_candidates(tmp_path, capsys):
    pairs = [_corpus(tmp_path / "data", lp) for lp in ("de-en", "fi-en")]
    out = tmp_path / "ext"
    for d in pairs:
        run([*_args(d, "chrf"), "-f", "mtme", "--out", str(out), "--lp", d.name], capsys)
    res = tmp_path / "set.json"
    run(["search", "--data", *map(str, pairs), "-m", "bleu", f"ext:{out}/chrF", "--tables",
         str(tmp_path / "t"), "--out", str(res), "-q"], capsys)
    saved = strict_json(res.read_text(encoding="utf-8"))
    assert saved["provenance"]["signatures"]  # the set records what it was selected from
    # an external member is written relative to the set file, and read back against it
    assert any(n["metric"] in ("bleu", "ext:ext/chrF") for n in saved["ulc"])
    from mtstrata.metrics.setfile import load_set

    assert set(load_set(res)[0].metrics) <= {"bleu", f"ext:{out}/chrF"}
