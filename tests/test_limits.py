"""Limits that hold (issue 35 item 7): the worker cap counts every process a run starts (an
annotator's own ``jobs`` included), malformed Dask addresses are refused (exit 2), ``annotate
--no-cache`` is refused before it does work it would throw away, and ``search`` with a
segment-level objective on a pair without segment judgments is a clear error before any work."""

from __future__ import annotations

import pytest

from mtstrata.cli import main
from mtstrata.errors import ConfigError
from mtstrata.layers import executors
from mtstrata.layers.executors import parse_executor, pool_size


class _Annotator:
    def __init__(self, jobs):
        self.jobs = jobs


@pytest.mark.parametrize("inner,cap", [(1, 1), (1, 4), (2, 4), (2, 8), (3, 8), (4, 4), (4, 9),
                                       (2, 16)])
def test_every_process_counts_against_the_cap(inner, cap):
    pool = pool_size(((_Annotator(inner), frozenset()),), cap)
    started = pool if inner == 1 else (inner if pool == 1 else pool * (inner + 1))
    assert 1 <= started <= cap, (pool, started)


def test_an_annotators_own_jobs_above_the_cap_are_refused():
    with pytest.raises(ConfigError, match="jobs=4 .*more than the 2"):
        pool_size(((_Annotator(4), frozenset()),), 2)


def test_spacy_jobs_4_with_jobs_4_starts_no_pool(monkeypatch):
    """--annotator spacy:jobs=4 --jobs 4 started 4 pool workers of 1 + 4 processes each."""
    def no_pool(*a, **k):
        raise AssertionError("a pool of workers each starting 4 processes")

    seen = []
    monkeypatch.setattr(executors, "_pool_batches", no_pool)
    monkeypatch.setattr(executors, "_here", lambda chain, texts, split, size: seen.append(
        len(texts)) or iter(()))
    chain = ((_Annotator(4), frozenset()),)
    list(executors.batches(chain, ["x"] * 1000, "local", 100, workers=4))
    assert seen == [1000]


@pytest.mark.parametrize("spec", ["dask:foo", "dask:tcp://", "dask:tcp://h:0",
                                  "dask:tcp://h:70000", "dask:tcp://a b:1", "dask:http://h:1/x"])
def test_malformed_dask_addresses_are_refused(spec, tmp_path, capsys):
    with pytest.raises(ConfigError, match="not a Dask scheduler address"):
        parse_executor(spec)
    ref = tmp_path / "r.txt"
    ref.write_text("a cat\n")
    assert main(["score", "-r", str(ref), "-i", str(ref), "-m", "DP-HWCM_w-2", "--executor",
                 spec, "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "Dask scheduler address" in err and "internal error" not in err


def test_good_dask_addresses_parse():
    for spec in ("dask:tcp://10.0.0.5:8786", "dask:localhost:8786", "dask:[::1]:8786",
                 "dask:tls://sched.example.org:8786"):
        assert parse_executor(spec)[0] == "dask"


def test_annotate_no_cache_is_refused_before_work(tmp_path, capsys):
    f = tmp_path / "t.txt"
    f.write_text("a cat\n")
    assert main(["annotate", "-i", str(f), "--no-cache", "-l", "tokens"]) == 2
    assert "keep nothing" in capsys.readouterr().err


def _pair(d, seg):
    (d / "sys").mkdir(parents=True)
    (d / "ref.txt").write_text("the cat sat\na dog barks\nit rains\n")
    for name, text in (("A", "the cat sat\na dog barked\nit rained\n"),
                       ("B", "a cat sits\ndog bark\nrain\n"),
                       ("C", "the cat\nthe dog barks\nit is raining\n")):
        (d / "sys" / f"{name}.txt").write_text(text)
    (d / "sys_scores.tsv").write_text("system\thuman_score\nA\t0.5\nB\t-0.2\nC\t0.1\n")
    if seg:
        (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\nA\t0\t0.5\n"
                                          "B\t0\t-0.3\nC\t1\t0.2\nA\t1\t0.1\n")


@pytest.mark.parametrize("objective", ["seg_kendall", "seg_pearson"])
def test_a_segment_objective_needs_segment_judgments(tmp_path, capsys, objective):
    _pair(tmp_path / "ds" / "xx-en", seg=True)
    _pair(tmp_path / "ds" / "yy-en", seg=False)
    rc = main(["search", "--data", str(tmp_path / "ds" / "xx-en"), str(tmp_path / "ds" / "yy-en"),
               "-m", "bleu", "chrf", "--objective", objective, "--out", str(tmp_path / "s.json"),
               "--tables", str(tmp_path / "tables"), "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and "yy-en has none" in err and "internal error" not in err
    assert not (tmp_path / "tables").exists()  # refused before any work
