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


# ---------------------------------------------------------------- issue 48 (item 8)
@settings(max_examples=40, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.sampled_from(["good", "mid", "bad", "worst"]),
                               st.integers(0, 5), st.sampled_from(["0.5", "-1", "0.5"])),
                     min_size=1, max_size=12))
def test_every_judgment_is_read_once_or_refused(tmp_path_factory, rows):
    """Item 3: a seg_scores.tsv is read with each (system, segment) once, or refused naming the
    line that judges one a second time."""
    from mtstrata.errors import InputError
    from mtstrata.meta.data import read_dev_corpus

    d = _corpus(tmp_path_factory.mktemp("j"))
    (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n" + "".join(
        f"{s}\t{i}\t{h}\n" for s, i, h in rows))
    keys = [(s, i) for s, i, _ in rows]
    try:
        c = read_dev_corpus(d)
    except InputError as e:
        first = next(k for n, k in enumerate(keys) if k in keys[:n])
        assert f"line {keys.index(first, keys.index(first) + 1) + 2}" in str(e)
        assert "judged a second time" in str(e)
    else:
        assert len(set(keys)) == len(keys) == len(c.seg_rows)


@settings(max_examples=12, deadline=None)
@given(flat=st.lists(st.booleans(), min_size=4, max_size=4), outer=st.sampled_from(["year",
                                                                                   "pair"]))
def test_a_nested_estimate_rests_on_the_folds_it_names(flat, outer):
    """Item 4: whichever pairs have undefined figures, the estimate is the mean of the defined
    folds' differences, those folds are named k of n, and numpy says nothing."""
    import warnings

    import numpy as np

    from mtstrata.combine import nested
    from mtstrata.combine.procedures import configurations
    from tests.test_cross_year import _table

    tables, names = [], []
    for k in range(4):
        t = _table(f"p{k}-en", k, n_sys=5)
        if flat[k]:
            t.sys_human = np.zeros_like(t.sys_human)
        tables.append(t)
        names.append(f"y{k // 2}/{t.lp}")
    procs = configurations(["chrf", "best:sys_pearson"], ["chrf", "x", "wer"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res, _ = nested.run_nested(tables, names, procs, outer=outer, rule="best-sys",
                                   seg=False, resamples=50, seed=1)
    e = res["estimate"]["sys_pearson"]
    deltas = {f["test"]: f["figures"]["sys_pearson"]["delta"] for f in res["folds"]}
    defined = [k for k, v in deltas.items() if v is not None]
    assert e["folds"] == len(res["folds"]) and e["folds_defined"] == len(defined)
    assert sorted(e["undefined_folds"]) == sorted(set(deltas) - set(defined))
    if defined:
        assert e["delta"] == pytest.approx(sum(deltas[k] for k in defined) / len(defined))
    else:
        assert e["delta"] is None


def _ext_run(capsys, tmp, d, extra, value):
    """meta over pair ``d`` with external metric M, its files holding rows of ``extra``
    systems (with ``value``) beside the judged ones: (exit code, M's records without their
    signatures, stderr)."""
    import json

    from mtstrata.meta.mtme import write_scores
    from tests.test_combine_cli import HUMAN, SYSTEMS

    ext = tmp / f"ext{abs(hash((tuple(extra), value)))}"
    seg = {s: [HUMAN[s] + 0.01 * i for i in range(6)] for s in SYSTEMS}
    write_scores(ext, "aa-en", "M", "refA", seg, {s: v[0] for s, v in seg.items()})
    for name in ("M-refA.seg.score", "M-refA.sys.score"):
        f = ext / "aa-en" / name
        f.write_text(f.read_text() + "".join(f"{s}\t{value}\n" for s in extra
                                             for _ in range(6 if "seg" in name else 1)))
    rc = main(["meta", "--data", d, "-m", f"ext:{ext}/M", "--tables", str(tmp / "t"), "-q",
               "-f", "json", "--bootstrap", "0"])
    cap = capsys.readouterr()
    assert rc in (0, 2) and "Traceback" not in cap.err and "internal error" not in cap.err
    recs = [{k: v for k, v in r.items() if k != "signature"} for r in json.loads(cap.out)
            ] if rc == 0 else []
    return rc, recs, cap.err


@settings(max_examples=20, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(extra=st.lists(st.sampled_from(["refB", "ghost", "good ", "GOOD", "x"]), unique=True,
                      max_size=3),
       value=st.sampled_from(["0.5", "1e200", "-1e300", "1e400", "nan", "None", "inf"]))
def test_ext_rows_beyond_the_judged_systems_never_move_a_number(corpus, capsys, extra, value):
    """Item 3: rows of systems a pair does not judge are left out (the numbers are those of the
    judged systems' rows alone); a value that is not a finite number or None is refused; a
    name that is a judged one once split at whitespace is a second row of it (refused)."""
    tmp, dirs = corpus
    _, want, _ = _ext_run(capsys, tmp, dirs[0], [], "0.5")
    rc, got, err = _ext_run(capsys, tmp, dirs[0], extra, value)
    bad = bool(extra) and value in ("1e400", "nan", "inf") or "good " in extra
    assert rc == (2 if bad else 0), err
    if rc == 0:
        assert got == want


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
