"""Dev-corpus reader, MTME files, variant projections and the meta/search/compare/audit/score
commands on a tiny hand-written corpus (lexical metrics only, no model)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from mtstrata.cli import main
from mtstrata.errors import InputError
from mtstrata.meta.data import read_dev_corpus
from mtstrata.meta.mtme import read_score_file
from mtstrata.meta.table_cache import build_table, cached_table, load_table

REF = ["the cat sat on the mat", "a dog barked at the moon", "rain fell all night long",
       "she reads a book every day", "we walked to the old bridge", "the train left early today"]
SYSTEMS = {  # quality decreasing from good to bad; human scores follow
    "good": REF[:3] + ["she reads a book each day", "we walked to the bridge",
                       "the train left early"],
    "mid": ["the cat sat on a mat", "a dog barked", "rain fell all night",
            "she read books", "we went to the old bridge", "train left today"],
    "bad": ["cat", "dog moon", "the rain", "book", "walked bridge", "a train"],
    "worst": ["mat the on", "", "night", "a", "old", "early"],
}
HUMAN = {"good": 0.9, "mid": 0.3, "bad": -0.2, "worst": -0.8}


def _corpus(root: Path, name: str = "xx-en", drop: str | None = None) -> Path:
    d = root / name
    (d / "sys").mkdir(parents=True)
    (d / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    for s, lines in SYSTEMS.items():
        (d / "sys" / f"{s}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
        f"{s}\t{h}\n" for s, h in HUMAN.items() if s != drop), encoding="utf-8")
    rows = [(s, i, HUMAN[s] + 0.1 * i) for s in HUMAN for i in (0, 2, 4)]
    (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n" + "".join(
        f"{s}\t{i}\t{h}\n" for s, i, h in rows if s != drop), encoding="utf-8")
    return d


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: (d / "sys_scores.tsv").write_text("system\thuman_score\nghost\t1\n"),
     "no sys/<SYSTEM>.txt"),
    (lambda d: (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n"
                                                  "good\t6\t0.1\n"), "out of range"),
    (lambda d: (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n"
                                                  "nobody\t1\t0.1\n"), "unknown system"),
    (lambda d: (d / "sys" / "mid.txt").write_text("one line\n"), "every system must"),
    (lambda d: (d / "sys_scores.tsv").unlink(), "no sys_scores.tsv"),
])
def test_reader_validation(tmp_path, edit, message):
    d = _corpus(tmp_path)
    edit(d)
    with pytest.raises(InputError, match=message):
        read_dev_corpus(d)


@pytest.mark.parametrize(("where", "content", "message"), [
    ("ref.txt", b"caf\xe9\n" * 6, "line 1.*not valid UTF-8"),
    ("sys/mid.txt", b"a\nb\nc\nd\ne\n\xff\n", "line 6.*not valid UTF-8"),
    ("sys_scores.tsv", b"system\thuman_score\ngood\t0.\xe9\n", "line 2.*not valid UTF-8"),
    ("ref.txt", "a\n".encode("utf-16-le") * 6, "NUL byte.*UTF-16"),
    ("ref.txt", b"", "empty"),
    ("sys_scores.tsv", b"system\thuman_score\ngood\tnan\nmid\t1\nbad\t0\nworst\t0\n",
     "line 2.*finite"),
    ("sys_scores.tsv", b"system\thuman_score\ngood\t1\ngood\t0.5\nmid\t1\nbad\t0\n"
     b"worst\t0\n", "line 3.*second row"),
])
def test_every_command_reads_corpora_through_one_input_layer(tmp_path, capsys, where, content,
                                                             message):
    from mtstrata import cli

    d = _corpus(tmp_path)
    (d / where).write_bytes(content)
    with pytest.raises(InputError, match=message):
        read_dev_corpus(d)
    code = cli.main(["meta", "--data", str(d), "-m", "bleu", "--tables", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and where.split("/")[-1] in err


def test_reader_keeps_only_scored_systems(tmp_path):
    c = read_dev_corpus(_corpus(tmp_path, drop="worst"))
    assert sorted(c.systems) == ["bad", "good", "mid"] and c.n_segments == 6
    assert len(c.seg_rows) == 9


@pytest.mark.parametrize("shorter", [False, True])
def test_projected_variants_equal_direct_computation(tmp_path, shorter):
    c = read_dev_corpus(_corpus(tmp_path))
    if shorter:  # every hypothesis shorter than its reference: sbp_min equals hyp_len
        c.refs = [[r + " with several more words at the end" for r in c.refs[0]]]
    specs = ["bleu", "bleu:max_order=2,smooth=floor", "chrf", "chrf:char_order=2,beta=1",
             "nist", "nist:max_order=3", "bleu-sbp", "bleu-sbp:max_order=2", "chrf++"]
    together, _ = build_table(c, specs)
    lean, raw = build_table(c, specs, keep_raw=False)  # scores only, statistics dropped
    assert raw == {}
    for s in specs:
        alone, _ = build_table(c, [s])
        np.testing.assert_allclose(together.sys_scores[s], alone.sys_scores[s])
        np.testing.assert_allclose(together.seg_scores[s], alone.seg_scores[s])
        np.testing.assert_array_equal(lean.sys_scores[s], together.sys_scores[s])
        np.testing.assert_array_equal(lean.seg_scores[s], together.seg_scores[s])


def test_projection_is_declared_not_guessed_from_values():
    # the first 150 hypotheses are shorter than their references, the rest longer: a column
    # matched by values on the first segments (sbp_min == hyp_len there) would be wrong later
    from mtstrata.meta.data import DevCorpus

    words = ["the", "a", "cat", "dog", "sat", "ran", "on", "in", "mat", "park"]
    refs, hyps = [], []
    for i in range(200):
        r = [words[(i + k) % 10] for k in range(6)]
        refs.append(" ".join(r))
        hyps.append(" ".join(r[:4] if i < 150 else r + ["extra", "words"]))
    other = [h.replace("cat", "dog") for h in hyps]
    c = DevCorpus("xx-en", [refs], {"a": hyps, "b": other}, {"a": 1.0, "b": 0.0})
    specs = ["bleu-sbp", "bleu-sbp:max_order=2"]
    together, _ = build_table(c, specs)
    alone, _ = build_table(c, specs[1:])
    np.testing.assert_allclose(together.sys_scores[specs[1]], alone.sys_scores[specs[1]])


def test_table_cache_round_trip_and_reuse(tmp_path):
    d = _corpus(tmp_path)
    t1 = cached_table(d, ["bleu"], tmp_path / "cache")
    calls = []
    t2 = cached_table(d, ["bleu", "wer"], tmp_path / "cache", on_compute=lambda lp, todo:
                      calls.append(todo))
    assert calls == [["wer"]]  # bleu came from the cache
    np.testing.assert_array_equal(t1.sys_scores["bleu"], t2.sys_scores["bleu"])
    t3 = load_table(next((tmp_path / "cache").glob("*.npz")))
    assert t3.stat_names["bleu"][:3] == ("hyp_len", "ref_len", "correct_1")
    assert t3.stat_names["wer"] == ("errors", "ref_len")
    assert t3.metrics() == ["bleu", "wer"] and t3.higher == {"bleu": True, "wer": False}


def test_meta_json_records(tmp_path, capsys):
    d = _corpus(tmp_path)
    rc = main(["meta", "--data", str(d), "-m", "chrf", "wer", "--tables", str(tmp_path / "t"),
               "--bootstrap", "50", "-f", "json", "-q"])
    assert rc == 0
    recs = json.loads(capsys.readouterr().out)
    assert {"lp", "metric", "level", "statistic", "value"} <= set(recs[0])
    by = {(r["lp"], r["metric"], r["level"], r["statistic"]): r for r in recs}
    # systems are ordered alike by both metrics and the humans (corpus BLEU ties bad and
    # worst at 0, so it is not used here): perfect rank statistics
    for m in ("chrF", "WER"):  # canonical names, not the specs typed
        assert by[("xx-en", m, "sys", "kendall")]["value"] == pytest.approx(1.0)
        assert by[("xx-en", m, "sys", "accuracy")]["value"] == pytest.approx(1.0)
        assert by[("avg", m, "sys", "kendall")]["value"] == pytest.approx(1.0)
    assert by[("xx-en", "chrF", "sys", "pearson")]["seed"] == 12345
    assert all(r["signature"].startswith(r["metric"] + "|") for r in recs)  # every record


def test_meta_undefined_correlation_is_null_and_dash(tmp_path, capsys):
    d = _corpus(tmp_path)
    (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
        f"{s}\t0.5\n" for s in HUMAN), encoding="utf-8")  # every system judged equal
    args = ["meta", "--data", str(d), "-m", "chrf", "--tables", str(tmp_path / "t"),
            "--bootstrap", "0", "-q"]
    assert main([*args, "-f", "json"]) == 0

    def no_nan(x: str) -> float:
        raise ValueError(f"non-strict JSON constant {x}")

    recs = json.loads(capsys.readouterr().out, parse_constant=no_nan)
    by = {(r["lp"], r["level"], r["statistic"]): r for r in recs}
    assert by[("xx-en", "sys", "pearson")]["value"] is None
    assert by[("xx-en", "seg", "pearson")]["value"] is not None  # segment scores still vary
    assert ("avg", "sys", "pearson") not in by  # an average of nothing is not reported
    assert main(args) == 0
    row = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("xx-en"))
    assert "–" in row and "nan" not in row


def test_search_writes_a_set_that_meta_reads(tmp_path, capsys):
    dirs = [str(_corpus(tmp_path, n)) for n in ("aa-en", "bb-en")]
    out = tmp_path / "set.json"
    assert main(["search", "--data", *dirs, "-m", "bleu", "chrf", "wer", "--tables",
                 str(tmp_path / "t"), "--objective", "sys_pearson", "--out", str(out),
                 "-q"]) == 0
    assert "selected" in capsys.readouterr().out
    saved = json.loads(out.read_text())
    assert saved["ulc"] and saved["trace"]
    prov = saved["provenance"]
    from mtstrata import metrics as metrics_mod
    from mtstrata._version import __version__

    assert prov["mtstrata"] == __version__ and prov["objective"] == "sys_pearson"
    assert prov["dev"] == [f"{tmp_path.name}/aa-en", f"{tmp_path.name}/bb-en"]
    for m in saved["ulc"]:  # every member's full signature, which rebuilds the member
        sig = prov["signatures"][m["metric"]]
        assert metrics_mod.from_signature(sig) == metrics_mod.create(m["metric"])
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".set.json")] == []
    assert main(["meta", "--data", *dirs, "--ulc", str(out), "--tables", str(tmp_path / "t"),
                 "--bootstrap", "0", "-q"]) == 0
    assert "ULC:set" in capsys.readouterr().out


def test_compare_and_audit_commands(tmp_path, capsys):
    d = _corpus(tmp_path)
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    assert main(["compare", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "-m", "bleu",
                 "-n", "100", "-f", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert {r["system"] for r in recs} == {"good", "bad", "worst"}
    assert all({"bs_p_two_sided", "ar_p_two_sided", "sign_p_two_sided"} <= set(r) for r in recs)
    assert main(["compare", "-r", str(d / "ref.txt"), "-i", *files, "-b", "nobody"]) == 2
    capsys.readouterr()
    assert main(["audit", "--data", str(d), "-m", "bleu", "wer", "-n", "50", "--splits",
                 "2"]) == 0
    assert "split violations" in capsys.readouterr().out


def test_score_mtme_files_round_trip(tmp_path, capsys):
    d = _corpus(tmp_path)
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    out = tmp_path / "mtme"
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu",
                 "bleu:smooth=floor", "-f", "mtme", "--out", str(out), "--lp", "xx-en"]) == 0
    capsys.readouterr()
    seg = read_score_file(out / "xx-en" / "BLEU-ref.seg.score")
    sys_ = read_score_file(out / "xx-en" / "BLEU_smooth_floor_smooth_value_0.1-ref.sys.score")
    assert set(seg) == set(SYSTEMS) and all(len(v) == 6 for v in seg.values())
    assert sys_["good"][0] > sys_["worst"][0]
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-f", "mtme"]) == 2


def test_last_line_without_newline_is_kept(tmp_path):
    d = _corpus(tmp_path)
    (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "\n".join(
        f"{s}\t{h}" for s, h in HUMAN.items()), encoding="utf-8")  # no final newline
    assert read_dev_corpus(d).sys_human["worst"] == -0.8


def test_damaged_table_file_is_recomputed(tmp_path):
    d = _corpus(tmp_path)
    want = cached_table(d, ["wer"], tmp_path / "c")
    f = next((tmp_path / "c").glob("*.npz"))
    f.write_bytes(f.read_bytes()[:50])
    with pytest.raises(InputError, match="delete the file"):
        load_table(f)
    with pytest.warns(UserWarning, match="recomputed"):
        again = cached_table(d, ["wer"], tmp_path / "c")
    np.testing.assert_array_equal(again.seg_scores["wer"], want.seg_scores["wer"])
    load_table(f)  # rewritten whole


def test_cli_shows_library_warnings_as_one_line(tmp_path, capsys):
    d = _corpus(tmp_path)
    cached_table(d, ["wer"], tmp_path / "c")
    f = next((tmp_path / "c").glob("*.npz"))
    f.write_bytes(f.read_bytes()[:50])
    import warnings

    before = warnings.showwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["meta", "--data", str(d), "-m", "wer", "--tables", str(tmp_path / "c"),
                     "--bootstrap", "0", "-q"]) == 0
    err = capsys.readouterr().err
    assert "mtstrata: warning: " in err and "recomputed" in err
    assert "UserWarning" not in err and ".py:" not in err  # not Python's source-line form
    assert warnings.showwarning is before  # restored after the command


def test_corpus_edited_in_place_is_scored_again(tmp_path):
    # tables were keyed by directory names only: an output or a human score changed in place
    # was silently served from the old table
    d = _corpus(tmp_path)
    first = cached_table(d, ["wer"], tmp_path / "c")
    (d / "sys" / "mid.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
        f"{s}\t{-h}\n" for s, h in HUMAN.items()), encoding="utf-8")
    calls = []
    second = cached_table(d, ["wer"], tmp_path / "c", on_compute=lambda lp, t: calls.append(t))
    assert calls == [["wer"]]
    mid = second.systems.index("mid")
    assert second.sys_scores["wer"][mid] == 0.0 != first.sys_scores["wer"][mid]
    assert list(second.sys_human) == [-h for h in first.sys_human]


def test_concurrent_table_writers_keep_every_metric(tmp_path):
    import subprocess
    import sys

    d = _corpus(tmp_path)
    specs = ["wer", "per", "bleu", "chrf"]
    code = ("import sys\n"
            "from mtstrata.meta.table_cache import cached_table\n"
            f"cached_table({str(d)!r}, [sys.argv[1]], {str(tmp_path / 'c')!r})\n")
    root = Path(__file__).resolve().parent.parent  # the child imports this mtstrata
    procs = [subprocess.Popen([sys.executable, "-c", code, s], cwd=root) for s in specs]
    assert [p.wait(timeout=120) for p in procs] == [0] * 4
    t = load_table(next((tmp_path / "c").glob("*.npz")))
    assert sorted(t.metrics()) == sorted(specs)


@pytest.mark.parametrize("make", ["file", "unwritable"])
def test_bad_tables_directory_exits_2(tmp_path, capsys, make):
    d = _corpus(tmp_path)
    t = tmp_path / "t"
    if make == "file":
        t.write_text("not a directory")
    else:
        (tmp_path / "ro").write_text("x")
        t = tmp_path / "ro" / "sub"  # a parent that is a file: cannot be created
    assert main(["meta", "--data", str(d), "-m", "wer", "--tables", str(t), "-q"]) == 2
    err = capsys.readouterr().err
    assert "--tables" in err and "Traceback" not in err


def test_default_tables_directory_is_private(tmp_path, monkeypatch):
    from mtstrata.meta.table_cache import default_tables_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    d = _corpus(tmp_path)
    cached_table(d, ["wer"], default_tables_dir())
    assert default_tables_dir() == tmp_path / "xdg" / "mtstrata" / "tables"
    assert default_tables_dir().stat().st_mode & 0o777 == 0o700


def test_changed_signature_is_recomputed(tmp_path):
    d = _corpus(tmp_path)
    t = cached_table(d, ["wer"], tmp_path / "c")
    assert t.signatures["wer"].startswith("WER")
    t.signatures["wer"] = "WER|stale"
    from mtstrata.meta.table_cache import save_table, table_path

    save_table(t, table_path(tmp_path / "c", d))
    calls = []
    cached_table(d, ["wer"], tmp_path / "c", on_compute=lambda lp, todo: calls.append(todo))
    assert calls == [["wer"]]


@pytest.mark.parametrize("content", [
    '{"ulc": [{"metric": "bleu", "low": "zero", "high": 1}]}',
    '{"ulc": [{"metric": "bleu", "low": NaN, "high": 1}]}',
    '{"ulc": [{"metric": "bleu", "low": 5, "high": 1}]}',
    '{"ulc": []}',
    '{"ulc": [{"metric": "bleu", "low": 0, "high": 1}], "trace": [1, 2]}',
    '{"ulc": [{"metric": "bleu", "low": 0, "high": 1, "colour": "red"}]}',
    '[1, 2, 3]', '{"ulc": 7}', '', '{"ulc": [{"metric": 3, "low": 0, "high": 1}]}',
])
def test_damaged_metric_set_is_a_clear_error(tmp_path, capsys, content):
    d = _corpus(tmp_path)
    f = tmp_path / "set.json"
    f.write_text(content, encoding="utf-8")
    assert main(["meta", "--data", str(d), "--ulc", str(f), "--tables", str(tmp_path / "t"),
                 "-q"]) == 2
    err = capsys.readouterr().err
    assert "set.json" in err and "Traceback" not in err and "internal error" not in err


def test_killed_runs_never_leave_unreadable_state(tmp_path):
    # SIGKILL at 20 random points of `meta` + `search` runs sharing one --tables directory and
    # set file: the next run reads everything and gives what a clean run gives
    import random
    import signal
    import subprocess
    import sys
    import time

    dirs = [str(_corpus(tmp_path, n)) for n in ("aa-en", "bb-en")]
    tables, out = tmp_path / "t", tmp_path / "set.json"
    args = ["search", "--data", *dirs, "-m", "wer", "per", "bleu", "chrf", "nist", "--tables",
            str(tables), "--out", str(out), "-q"]
    env = {**os.environ, "MTSTRATA_CACHE": str(tmp_path / "c.sqlite")}
    rng = random.Random(12345)
    for _ in range(20):
        proc = subprocess.Popen([sys.executable, "-m", "mtstrata", *args], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, 1.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    leftovers = [p.name for p in tables.glob("*") if p.suffix not in (".npz", ".lock")]
    assert leftovers == [] or all(".tmp" in p for p in leftovers)
    assert main(args) == 0
    clean = tmp_path / "clean.json"
    assert main([*args[:-5], "--tables", str(tmp_path / "t2"), "--out", str(clean), "-q"]) == 0
    assert json.loads(out.read_text())["ulc"] == json.loads(clean.read_text())["ulc"]


@pytest.mark.parametrize("keep", [["good"], ["good", "mid"]])
def test_degenerate_corpora_give_undefined_not_tracebacks(tmp_path, capsys, keep):
    # one system (or two, where rank statistics say little): correlations undefined or trivial,
    # never an exception; meta, search and audit all finish
    d = _corpus(tmp_path)
    (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
        f"{s}\t{HUMAN[s]}\n" for s in keep), encoding="utf-8")
    (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n" + "".join(
        f"{s}\t{i}\t0.5\n" for s in keep for i in (0, 2)), encoding="utf-8")
    t = str(tmp_path / "t")
    assert main(["meta", "--data", str(d), "-m", "bleu", "wer", "--tables", t, "-q",
                 "-f", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert any(r["value"] is None for r in recs)
    assert main(["meta", "--data", str(d), "-m", "bleu", "--tables", t, "-q"]) == 0
    # one judged system: no candidate has a defined objective; search says so (exit 2)
    assert main(["search", "--data", str(d), "-m", "bleu", "wer", "--tables", t, "-q",
                 "--mode", "reference", "--out", str(tmp_path / "s.json")]) == (
        2 if len(keep) == 1 else 0)
    if len(keep) == 1:
        assert "no candidate metric has a defined sys_pearson" in capsys.readouterr().err
    assert main(["audit", "--data", str(d), "-m", "bleu", "-n", "20"]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err


def test_no_judged_system_is_an_input_error(tmp_path, capsys):
    d = _corpus(tmp_path)
    (d / "sys_scores.tsv").write_text("system\thuman_score\n", encoding="utf-8")
    for cmd in (["meta", "--data", str(d), "-m", "bleu", "--tables", str(tmp_path / "t")],
                ["audit", "--data", str(d), "-m", "bleu"]):
        assert main(cmd) == 2
        assert "no system with a human score" in capsys.readouterr().err


@pytest.mark.spacy
def test_meta_spreads_annotation_over_dask_workers_with_the_same_numbers(tmp_path, capsys):
    """meta/search take the annotation options: --executor dask --jobs 2 annotates every
    pair's outputs on a 2-worker LocalCluster; the correlations equal a local run's."""
    d = _corpus(tmp_path)
    outs = []
    for name, extra in (("local", []), ("dask", ["--executor", "dask", "--jobs", "2"])):
        rc = main(["meta", "--data", str(d), "-m", "SP-Op(*)", "DP-Or(*)", "--tables",
                   str(tmp_path / f"t-{name}"), "--cache", str(tmp_path / f"{name}.sqlite"),
                   "--bootstrap", "20", "-f", "json", "-q", *extra])
        assert rc == 0
        outs.append(json.loads(capsys.readouterr().out))
        assert (tmp_path / f"{name}.sqlite").stat().st_size > 0  # the driver wrote the cache
    assert outs[0] == outs[1] and len(outs[0]) > 10
