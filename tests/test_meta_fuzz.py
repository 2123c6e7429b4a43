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
