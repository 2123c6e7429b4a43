"""A set member is what its record says, whatever it is (issue 48, item 1): an ``ext:`` member
is read relative to the set file (never the working directory) and checked against the sha256
of every file it was fitted on, per pair; two spellings of one member count once (refused); a
member without a record is refused; a nested set is refused whatever else the set holds."""

from __future__ import annotations

import json

import pytest

from mtstrata.cli import main
from mtstrata.meta.mtme import write_scores
from mtstrata.metrics.members import set_record
from mtstrata.metrics.setfile import MetricSet, Norm, load_set
from tests.test_combine_cli import HUMAN, SYSTEMS, _corpus

LPS = ("de-en", "fi-en")


def _ext(root, scale: float) -> None:
    """Score files of metric M for both pairs: the human scores times ``scale`` (a negative
    scale reverses them), per segment and per system."""
    for lp in LPS:
        seg = {s: [HUMAN[s] * scale + 0.01 * i for i in range(6)] for s in SYSTEMS}
        write_scores(root, lp, "M", "refA", seg, {s: HUMAN[s] * scale for s in SYSTEMS})


@pytest.fixture
def world(tmp_path, monkeypatch):
    """Pairs, a set in ``fitted/`` with the member ``ext:ext/M`` (its score files in
    ``fitted/ext``, following the humans) and, in the working directory ``elsewhere/``, score
    files of the same relative name that reverse them."""
    data = [_corpus(tmp_path / "data", lp) for lp in LPS]
    fitted, elsewhere = tmp_path / "fitted", tmp_path / "elsewhere"
    _ext(fitted / "ext", 1.0)
    _ext(elsewhere / "ext", -1.0)
    monkeypatch.chdir(fitted)
    member = "ext:ext/M"
    MetricSet((Norm(member, -1.0, 1.0),), provenance=set_record([member], {}, LPS)).save(
        fitted / "set.json")
    monkeypatch.chdir(elsewhere)
    return data, fitted / "set.json"


def _meta(capsys, data, path, *extra):
    rc = main(["meta", "--data", *map(str, data), "--ulc", str(path), "--bootstrap", "0",
               "-f", "json", "-q", "--tables", str(path.parent / "t"), *extra])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _sys_pearson(out: str) -> float:
    recs = json.loads(out)
    return next(r["value"] for r in recs if r["lp"] == "avg" and r["level"] == "sys"
                and r["statistic"] == "pearson")


def test_an_external_member_is_read_beside_the_set_file_not_in_the_working_directory(
        world, capsys):
    data, path = world
    saved = json.loads(path.read_text())
    assert saved["ulc"][0]["metric"] == "ext:ext/M"  # written relative to the set file
    assert set(saved["provenance"]["external"]["ext:ext/M"]) == set(LPS)  # every pair's files
    rc, out, err = _meta(capsys, data, path)
    assert rc == 0, err
    assert _sys_pearson(out) == pytest.approx(1.0)  # fitted/ext, not elsewhere/ext (-1.0)


def test_an_external_file_changed_since_the_fit_is_refused(world, capsys):
    data, path = world
    f = path.parent / "ext" / "fi-en" / "M-refA.seg.score"
    f.write_text(f.read_text().replace("0.9", "0.8", 1))
    rc, _, err = _meta(capsys, data, path)
    assert rc == 2 and "Traceback" not in err
    assert str(f) in err and "sha256" in err and "fitted on" in err


def test_a_set_moved_with_its_score_files_is_still_read(world, capsys, tmp_path):
    data, path = world
    moved = tmp_path / "moved"
    path.parent.rename(moved)
    rc, out, err = _meta(capsys, data, moved / "set.json")
    assert rc == 0, err
    assert _sys_pearson(out) == pytest.approx(1.0)


@pytest.mark.parametrize("edit", [
    lambda p: p["signatures"].pop("ext:ext/M"),                # no signature
    lambda p: p["signatures"].update({"ext:ext/M": "EXT"}),    # a garbage one
    lambda p: p["signatures"].update({"ext:ext/M": "chrF|x:y"}),
    lambda p: p.pop("external"),                               # no files recorded
    lambda p: p["external"].update({"ext:ext/M": {}}),
    lambda p: p["external"]["ext:ext/M"]["de-en"].update(seg_sha256="0" * 64),
])
def test_an_external_member_without_its_record_is_refused(world, capsys, edit):
    data, path = world
    saved = json.loads(path.read_text())
    edit(saved["provenance"])
    path.write_text(json.dumps(saved))
    rc, _, err = _meta(capsys, data, path)
    assert rc == 2 and "Traceback" not in err and "ext:" in err


@pytest.mark.parametrize("other", ["EXT:ext/M", " ext:ext/M/", "ext:./ext/M", "Ext:ext/../ext/M"])
def test_two_spellings_of_one_external_member_are_refused(world, capsys, other):
    data, path = world
    saved = json.loads(path.read_text())
    saved["ulc"].append({**saved["ulc"][0], "metric": other})
    sigs = saved["provenance"]["signatures"]
    sigs[other] = sigs["ext:ext/M"]
    saved["provenance"]["external"][other] = saved["provenance"]["external"]["ext:ext/M"]
    path.write_text(json.dumps(saved))
    rc, _, err = _meta(capsys, data, path)
    assert rc == 2 and "two spellings" in err and "Traceback" not in err


@pytest.mark.parametrize("record", [None, "garbage", "ULC|set:ULC-lex"])
@pytest.mark.parametrize("nested", [" ulc-lex", "ULC-lex", "ulc:{set}"])
def test_a_nested_set_is_refused_beside_an_external_member(world, capsys, record, nested):
    data, path = world
    saved = json.loads(path.read_text())
    nested = nested.format(set=path)
    saved["ulc"].append({"metric": nested, "low": 0.0, "high": 1.0, "higher_is_better": True})
    if record is not None:
        saved["provenance"]["signatures"][nested] = record
    path.write_text(json.dumps(saved))
    rc, _, err = _meta(capsys, data, path)
    assert rc == 2 and "Traceback" not in err
    assert "nested sets" in err or "no signature" in err


def test_score_refuses_a_set_with_an_external_member(world, capsys):
    data, path = world
    d = data[0]
    rc = main(["score", "-r", str(d / "ref.txt"), "-i", str(d / "sys" / "good.txt"),
               "-m", f"ulc:{path}", "-q"])
    assert rc == 2 and "only `mtstrata meta --ulc` reads" in capsys.readouterr().err


def test_load_resolves_and_save_relativises(world, tmp_path):
    _, path = world
    combiner, _ = load_set(path)
    assert combiner.metrics == [f"ext:{path.parent}/ext/M"]
    again = tmp_path / "deeper" / "copy.json"
    again.parent.mkdir()
    combiner.save(again)  # type: ignore[attr-defined]
    assert json.loads(again.read_text())["ulc"][0]["metric"] == "ext:../fitted/ext/M"
    assert load_set(again)[0].metrics == combiner.metrics


@pytest.mark.parametrize("depth", [300, 900])
def test_a_set_nested_deeply_is_refused_not_a_crash(world, capsys, depth):
    data, path = world
    saved = json.loads(path.read_text())
    saved["provenance"]["deep"] = json.loads("[" * depth + "]" * depth)
    path.write_text(json.dumps(saved))
    rc, _, err = _meta(capsys, data, path)
    assert rc in (0, 2) and "internal error" not in err and "Traceback" not in err
