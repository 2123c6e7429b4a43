"""Fuzzing meta's and search's numeric options: any integer ends in exit 0 or 2 (one paragraph),
never a traceback or an internal error (issue 27)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtstrata.cli import main
from tests.test_combine_cli import _corpus

big = st.one_of(st.integers(-5, 5), st.integers(-(2**70), 2**70),
                st.sampled_from([0, 1, 2, 100_000, 100_001, 2**32 - 1, 2**32]))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    dirs = [str(_corpus(tmp, n)) for n in ("aa-en", "bb-en")]
    return tmp, dirs


def _ok(capsys, args):
    rc = main(args)
    err = capsys.readouterr().err
    assert rc in (0, 2), (rc, err)
    assert "Traceback" not in err and "internal error" not in err, err
    return rc, err


@settings(max_examples=30, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(bootstrap=big, seed=big)
def test_meta_numbers(corpus, capsys, bootstrap, seed):
    tmp, dirs = corpus
    rc, err = _ok(capsys, ["meta", "--data", *dirs, "-m", "wer", "--tables", str(tmp / "t"),
                           "-q", "-f", "json", "--bootstrap", str(bootstrap), "--seed",
                           str(seed)])
    assert (rc == 0) == (0 <= bootstrap <= 100_000 and 0 <= seed < 2**32), err


@settings(max_examples=30, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(folds=big, mode=st.sampled_from(["forward-backward", "reference"]))
def test_search_folds(corpus, capsys, folds, mode):
    tmp, dirs = corpus
    rc, err = _ok(capsys, ["search", "--data", *dirs, "-m", "wer", "chrf", "--tables",
                           str(tmp / "t"), "-q", "--out", str(tmp / "s.json"), "--mode", mode,
                           "--folds", str(folds)])
    assert (rc == 0) == (folds in (0, 2)), err


names = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\t\n\r"),
                min_size=1, max_size=12).filter(lambda s: s not in (".", "..")
                                                and not s.endswith(".txt"))
lines = st.lists(st.text(st.characters(blacklist_categories=("Cs",),
                                       blacklist_characters="\n\r\x00\x0b\x0c\x1c\x1d\x1e"
                                       "\x85\u2028\u2029"), max_size=30),
                 min_size=1, max_size=4)


@settings(max_examples=25, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(systems=st.lists(names, min_size=1, max_size=4, unique=True), ref=lines,
       data=st.data())
def test_meta_on_arbitrary_names_and_texts(tmp_path_factory, capsys, systems, ref, data):
    """Any system names (``__proto__``, spaces, unicode) and texts: exit 0 or 2."""
    d = tmp_path_factory.mktemp("names") / "xx-en"
    (d / "sys").mkdir(parents=True)
    (d / "ref.txt").write_text("\n".join(ref) + "\n", encoding="utf-8")
    for s in systems:
        out = data.draw(st.lists(lines.map(lambda x: x[0]), min_size=len(ref),
                                 max_size=len(ref)))
        (d / "sys" / f"{s}.txt").write_text("\n".join(out) + "\n", encoding="utf-8")
    (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
        f"{s}\t{i * 0.5}\n" for i, s in enumerate(systems)), encoding="utf-8")
    (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n" + "".join(
        f"{s}\t0\t{i}\n" for i, s in enumerate(systems)), encoding="utf-8")
    _ok(capsys, ["meta", "--data", str(d), "-m", "chrf", "wer", "--tables",
                 str(d.parent / "t"), "-q", "-f", "json", "--bootstrap", "10"])


@settings(max_examples=20, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(resamples=big, seed=big, protocol=st.sampled_from(["wmt23", "wmt24", "wmt25"]))
def test_meta_protocol_numbers(corpus, capsys, resamples, seed, protocol):
    """--protocol takes --resamples 0 (no test) .. 100,000 and any 32-bit seed; one metric, so
    no pair is resampled."""
    tmp, dirs = corpus
    rc, err = _ok(capsys, ["meta", "--data", *dirs, "-m", "wer", "--tables", str(tmp / "t"),
                           "-q", "--protocol", protocol, "--resamples", str(resamples),
                           "--seed", str(seed)])
    assert (rc == 0) == (0 <= resamples <= 100_000 and 0 <= seed < 2**32), err
