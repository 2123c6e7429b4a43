"""Plugins cannot pass for mtstrata (issue 35 item 5): a name a built-in answers to (a family
member such as ``SP-Op(*)`` or ``DP-HWCM_r-4`` included) is refused; what a plugin raises or
``sys.exit``s with, on import or at run time, is reported naming the plugin and its
distribution, exit 2, never as a bug in mtstrata and never as a silent exit 0.

Each plugin is a distribution made by hand (a ``.dist-info`` with its entry points beside one
module) in a temporary directory put on the path: nothing is built or installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

METRIC = '''
from dataclasses import dataclass
from typing import ClassVar
import numpy as np
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase

@dataclass(frozen=True)
class Bad(MetricBase):
    name: ClassVar[str] = "{name}"
    statistics: ClassVar[tuple[str, ...]] = ("a", "b")
    higher_is_better: ClassVar[bool] = True

    def stats(self, hyp, refs):
        {stats}
        return np.array([1.0, 2.0])

    def score(self, stats):
        return float(stats[0] / stats[1])
'''


def make_plugin(tmp: Path, group: str, entry: str, source: str, module: str = "badplug") -> Path:
    site = tmp / "site"
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{module}_dist-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}-dist\n"
                                   "Version: 0.3\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{entry}\n")
    # as pip installs it: which top-level module the distribution holds (a signature names the
    # distribution of a metric's module by it)
    (info / "top_level.txt").write_text(f"{module}\n")
    return site


def run(args, site, tmp):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
           "MTSTRATA_CACHE": str(tmp / "cache.sqlite"), "XDG_CACHE_HOME": str(tmp / "xdg")}
    return subprocess.run([sys.executable, "-m", "mtstrata", *args], capture_output=True,
                          text=True, env=env, cwd=tmp, timeout=600, check=False)


@pytest.fixture
def texts(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\n")
    hyp.write_text("the cat sat on a mat\n")
    return ["-r", str(ref), "-i", str(hyp)]


def _refused(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "bug in mtstrata" not in r.stderr
    assert "badplug-dist 0.3" in r.stderr, r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr


@pytest.mark.parametrize("name", ["SP-Op(*)", "DP-HWCM_r-4", "bleu", "BLEU"])
def test_a_plugin_metric_named_like_a_built_in_is_refused(tmp_path, texts, name):
    site = make_plugin(tmp_path, "mtstrata.metrics", "bad = badplug",
                       METRIC.replace("class Bad", f'@REGISTRY.register("{name}")\nclass Bad')
                       .format(name=name, stats="pass"))
    r = run(["score", *texts, "-m", "SP-Op(*)", "--no-cache"], site, tmp_path)
    _refused(r, "cannot pass for mtstrata", name)


def test_a_plugin_family_overlapping_a_built_in_family_is_refused(tmp_path, texts):
    src = (METRIC.format(name="x", stats="pass") + '\nREGISTRY.add_family("DP-HWCM_x-n", '
           'r"DP-HWCM_([a-z])-(\\d)", lambda *a: Bad(), examples=("DP-HWCM_r-4",))\n')
    site = make_plugin(tmp_path, "mtstrata.metrics", "bad = badplug", src)
    r = run(["score", *texts, "-m", "DP-HWCM_w-2", "--no-cache"], site, tmp_path)
    _refused(r, "DP-HWCM")


def test_a_plugin_of_its_own_name_still_scores(tmp_path, texts):
    site = make_plugin(tmp_path, "mtstrata.metrics", "bad = badplug",
                       METRIC.replace("class Bad", '@REGISTRY.register("half")\nclass Bad')
                       .format(name="half", stats="pass"))
    r = run(["score", *texts, "-m", "half", "-f", "tsv"], site, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "0.5" in r.stdout


@pytest.mark.parametrize("body", ["import sys; sys.exit(0)", "raise RuntimeError('boom')",
                                  "import sys; sys.exit('bye')"])
def test_a_plugin_failing_on_import_is_named(tmp_path, texts, body):
    site = make_plugin(tmp_path, "mtstrata.metrics", "bad = badplug", body)
    r = run(["score", *texts, "-m", "SP-Op(*)", "--no-cache"], site, tmp_path)
    _refused(r, "cannot be loaded")


def test_a_broken_command_plugin_is_named_by_help(tmp_path):
    site = make_plugin(tmp_path, "mtstrata.commands", "bad = badplug:register",
                       "raise ImportError('no such thing')")
    for args in (["--help"], ["nosuchcommand"], []):
        r = run(args, site, tmp_path)
        _refused(r, "cannot be loaded", "ImportError")


@pytest.mark.parametrize("stats", ["raise ValueError('inside the plugin')",
                                   "import sys; sys.exit(0)",
                                   "return np.array([1.0, 2.0, 3.0, 4.0])"])
def test_a_plugin_failing_at_run_time_is_named(tmp_path, texts, stats):
    site = make_plugin(tmp_path, "mtstrata.metrics", "bad = badplug",
                       METRIC.replace("class Bad", '@REGISTRY.register("half")\nclass Bad')
                       .format(name="half", stats=stats))
    r = run(["score", *texts, "-m", "half", "--no-cache"], site, tmp_path)
    _refused(r, "badplug")
    assert r.stdout == ""


SECTION = '''
class Sec:
    """A section that fails."""
    name = "failing"
    title = "Failing"
    order = 200
    phase = "failing"

    def check(self, ctx):
        pass

    def compute(self, ctx):
        {body}

    def html(self, data):
        return ""
'''


@pytest.mark.parametrize("body", ["raise KeyError('a missing column')", "import sys; sys.exit(0)"])
def test_a_failing_report_section_plugin_is_named(tmp_path, texts, body):
    site = make_plugin(tmp_path, "mtstrata.report_sections", "failing = badplug:Sec",
                       SECTION.format(body=body))
    out = tmp_path / "r.html"
    r = run(["report", *texts, "-m", "bleu", "-n", "10", "--out", str(out), "--no-cache"],
            site, tmp_path)
    _refused(r, "badplug")
    assert not out.exists()


def test_a_plugin_metrics_signature_names_its_distribution(tmp_path, texts):
    site = make_plugin(tmp_path, "mtstrata.metrics", "bad = badplug",
                       METRIC.replace("class Bad", '@REGISTRY.register("half")\nclass Bad')
                       .format(name="half", stats="pass"))
    r = run(["score", *texts, "-m", "half", "bleu", "-f", "json"], site, tmp_path)
    assert r.returncode == 0, r.stderr
    sigs = {s["metric"]: s["signature"] for s in json.loads(r.stdout)["scores"]}
    assert "|plugin:badplug-dist==0.3|" in sigs["half"]
    assert "plugin:" not in sigs["BLEU"]
