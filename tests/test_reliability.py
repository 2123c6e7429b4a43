"""Bad input and faults at the command line: one clear paragraph and exit 2, never a
traceback; a bug is one line with the --debug hint. Includes a fuzz test of the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtstrata import cli
from tests.conftest import WMT17_DEEN


def run(args, tmp_path, stdin=None, stdout=None, timeout=60):
    env = {**os.environ, "MTSTRATA_CACHE": str(tmp_path / "cache.sqlite"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    return subprocess.run([sys.executable, "-m", "mtstrata", *args], input=stdin,
                          stdout=stdout if stdout is not None else subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout, env=env,
                          cwd=os.getcwd(), check=False)


@pytest.fixture
def text(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("the cat sat\na dog ran\n", encoding="utf-8")
    return str(f)


@pytest.mark.parametrize("spec, message", [
    ("bleu:smooth=floor,smooth_value=-1", "smooth_value must be > 0"),
    ("bleu:smooth_value=nan", "not a finite number"),
    ("gtm:e=inf", "not a finite number"),
    ("ROUGE-W:w=inf", "not a finite number"),
    ("METEOR-ex:beta=inf", "not a finite number"),
    ("4-GRR:alpha=inf", "not a finite number"),
    ("nist:max_order=100000", "between 1 and 9"),
])
def test_bad_metric_parameters_exit_2(text, capsys, spec, message):
    assert cli.main(["score", "-r", text, "-i", text, "-m", spec]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_runaway_line_is_refused_up_front(tmp_path, capsys):
    f = tmp_path / "long.txt"
    f.write_text("a " * 50_000 + "\n", encoding="utf-8")
    for metric in ("ter", "gtm", "4-GRR", "ROUGE-W", "tBLEU"):
        assert cli.main(["score", "-r", str(f), "-i", str(f), "-m", metric, "-q"]) == 2
        assert "segment 1 of reference 1 has 50,000 words" in capsys.readouterr().err
    big = tmp_path / "big.txt"
    big.write_text("a" * 200_000 + "\n", encoding="utf-8")
    assert cli.main(["score", "-r", str(big), "-i", str(big), "-m", "SP-Op(*)", "-q"]) == 2
    assert "200,000 characters" in capsys.readouterr().err
    assert cli.main(["score", "-r", str(f), "-i", str(f), "-m", "bleu", "-q"]) == 0  # linear


def test_full_disk_on_stdout(text, tmp_path):
    with open("/dev/full", "w") as full:
        r = run(["score", "-r", text, "-i", text, "-m", "bleu"], tmp_path, stdout=full)
    err = r.stderr.decode()
    assert r.returncode == 2 and "No space left" in err and "Traceback" not in err


def test_closed_stdin(text, tmp_path):
    r = subprocess.run([sys.executable, "-m", "mtstrata", "score", "-r", text, "-i", "-"],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False,
                       env={**os.environ, "MTSTRATA_CACHE": str(tmp_path / "c")},
                       preexec_fn=lambda: os.close(0))
    assert r.returncode == 2 and b"standard input" in r.stderr and b"Traceback" not in r.stderr


def test_unexpected_error_is_one_line_with_the_debug_hint(text, capsys, monkeypatch):
    from mtstrata import scoring

    def boom(*a, **k):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(scoring, "compute", boom)
    assert cli.main(["score", "-r", text, "-i", text, "-m", "bleu"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--debug" in err[0] and "ZeroDivisionError" in err[0]
    with pytest.raises(ZeroDivisionError):
        cli.main(["--debug", "score", "-r", text, "-i", text, "-m", "bleu"])


# ----------------------------------------------------------------------------- fuzz
LINES = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
                 | st.sampled_from(["", " ", "\t", "a" * 3000, "\u2028", "x\r"]), max_size=4)
ARGS = st.lists(st.sampled_from([
    "-m", "bleu", "chrf", "ter", "wer", "nist", "4-GRR", "GTM-2", "ROUGE-L", "bleu:max_order=0",
    "bleu:foo=1", "chrf:beta=-1", "nosuchmetric", "--sentence-level", "--details", "-f", "json",
    "tsv", "text", "mtme", "--out", "--lp", "../escape", "-n", "0", "-1", "abc", "-b",
    "--bootstrap", "--seed", "--format", "-",
]), max_size=6)


FUZZ = int(os.environ.get("MTSTRATA_FUZZ_EXAMPLES", "60"))  # more: a longer hunt


@settings(max_examples=FUZZ, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(ref=LINES, hyp=LINES, raw=st.binary(max_size=60), extra=ARGS,
       command=st.sampled_from(["score", "compare"]))
def test_cli_fuzz_never_a_traceback(tmp_path, ref, hyp, raw, extra, command, capsys):
    r, h, b = tmp_path / "r.txt", tmp_path / "h.txt", tmp_path / "b.bin"
    r.write_text("\n".join(ref), encoding="utf-8")
    h.write_text("\n".join(hyp), encoding="utf-8")
    b.write_bytes(raw)
    out = tmp_path / "out"
    args = [command, "-r", str(r), "-i", str(h), str(b), *["--out" if a == "--out" else a
                                                           for a in extra]]
    if "--out" in args:
        args.insert(args.index("--out") + 1, str(out))
    before = set(tmp_path.parent.iterdir())
    try:
        code = cli.main(args)
    except SystemExit as e:  # argparse usage errors
        code = e.code
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, (args, err)
    assert code in (0, 2), (args, code, err)
    assert set(tmp_path.parent.iterdir()) == before  # nothing written beside the run's folder


@pytest.mark.parametrize("extra, message", [
    (["-n", "0"], "resamples must be 1"), (["-n", "-1"], "resamples must be 1"),
    (["-n", "100000000"], "resamples must be 1"), (["--seed", "-1"], "seed must be"),
])
def test_compare_numbers_are_validated(tmp_path, capsys, extra, message):
    r, a, b = (tmp_path / f for f in ("r.txt", "a.txt", "b.txt"))
    r.write_text("a b c\nd e f\n")
    a.write_text("a b c\nd e g\n")
    b.write_text("a x c\nd e f\n")
    assert cli.main(["compare", "-r", str(r), "-i", str(a), str(b), "-b", "a", "-m", "bleu",
                     *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_undefined_metric_has_no_significance():
    import numpy as np

    from mtstrata.meta.significance import approximate_randomization, paired_bootstrap

    def nan_score(row):
        return float("nan")

    st = np.ones((5, 2))
    assert np.isnan(paired_bootstrap(nan_score, st, {"x": st}, n=10)["x"].p_two_sided)
    assert np.isnan(approximate_randomization(nan_score, st, st, n=10).p)


@pytest.mark.skipif(not (WMT17_DEEN / "ref.txt").exists(), reason="WMT17 data not found")
def test_nist_is_the_same_under_every_hash_seed():
    # a set's iteration order depends on PYTHONHASHSEED; NIST sums floats in a fixed order
    code = ("from pathlib import Path\nfrom mtstrata import metrics\n"
            "from mtstrata.segment import Segment as S\n"
            f"d = Path({str(WMT17_DEEN)!r})\n"
            "ref = d.joinpath('ref.txt').read_text().splitlines()[:400]\n"
            "hyp = sorted(d.joinpath('sys').glob('*.txt'))[0].read_text().splitlines()[:400]\n"
            "m = metrics.create('nist')\n"
            "st = m.stats_batch([S.from_text(h) for h in hyp], [[S.from_text(r)] for r in ref])\n"
            "print(repr(st.sum(0).tolist()))\n")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}, check=True,
                           cwd=Path(__file__).resolve().parent.parent).stdout
            for seed in (0, 1, 2, 3, 4)}
    assert len(outs) == 1, outs


@pytest.mark.parametrize("option, message", [
    (["--executor", "ray"], "unknown executor"),
    (["--srl", "nosuch"], "nosuch"),
    (["--annotator", "nosuch"], "nosuch"),
    (["--annotator", "stanza:dir=/nowhere"], "stanza"),
])
def test_annotation_options_are_validated(text, capsys, option, message):
    assert cli.main(["score", "-r", text, "-i", text, "-m", "SR-Or(*)", *option]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "internal error" not in err


@pytest.mark.spacy
def test_every_demo_metric_prints_the_same_bytes_under_every_hash_seed(tmp_path):
    """Set and dict orders depend on PYTHONHASHSEED: no printed number may (segment level too)."""
    root = Path(__file__).resolve().parent.parent
    demo = [m.strip("'") for m in (root / "Makefile").read_text().split("DEMO_METRICS ?=")[1]
            .split("\n\n")[0].replace("\\\n", " ").split()]
    cmd = [sys.executable, "-m", "mtstrata", "score", "-r", str(root / "sample/ref.A.txt"),
           "-r", str(root / "sample/ref.B.txt"), "-i", *map(str, sorted(root.glob(
               "sample/sys/*.txt"))), "-m", *demo, "--sentence-level", "-f", "json",
           "--cache", str(tmp_path / "c.sqlite"), "-q"]
    outs = set()
    for seed in (0, 1, 2):
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=root, check=False,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)})
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout)
    assert len(demo) > 20 and len(outs) == 1
