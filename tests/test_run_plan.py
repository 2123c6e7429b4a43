"""A run resolves its annotation plan once and passes it down (issue 37): ``meta`` and
``search`` used to plan each metric list again per language pair (signatures, tables, set
checks). The plan's signatures of a metric's layers are those of a plan made for that metric
alone, so a number's signature does not depend on what ran beside it."""

from __future__ import annotations

import json

import pytest

import mtstrata.layers as layers_pkg
from mtstrata import metrics, scoring
from mtstrata.cli import main
from mtstrata.errors import ConfigError
from mtstrata.layers import AnnotationOptions, with_plan
from mtstrata.layers import options as options_module
from mtstrata.segment import Layer
from tests.test_combine_cli import _corpus

LINGUISTIC = ["NE-Oe(*)", "SR-Or(*)"]


@pytest.fixture
def plans(monkeypatch):
    """Every plan resolved (the layers asked), counted where plan_run resolves one."""
    made: list[frozenset[Layer]] = []
    real = options_module.plan

    def counting(layers, *a, **k):
        made.append(frozenset(layers))
        return real(layers, *a, **k)

    monkeypatch.setattr(options_module, "plan", counting)
    return made


@pytest.mark.parametrize("command", ["meta", "search"])
def test_a_run_over_two_pairs_plans_once(tmp_path, capsys, plans, command):
    data = [str(_corpus(tmp_path, lp)) for lp in ("xx-en", "yy-en")]
    extra = ["--out", str(tmp_path / "set.json")] if command == "search" else ["-f", "json"]
    rc = main([command, "--data", *data, "-m", "bleu", *LINGUISTIC, "--tables",
               str(tmp_path / "t"), "--cache", str(tmp_path / "c.sqlite"), "--quiet", *extra])
    assert rc == 0
    assert len(plans) == 1, plans
    if command == "meta":  # each metric signed as a plan of its own layers signs it
        rows = json.loads(capsys.readouterr().out)
        options = AnnotationOptions(cache=str(tmp_path / "c.sqlite"), quiet=True)
        for spec in LINGUISTIC:
            alone = scoring.run_signatures([metrics.create(spec)], 1, options)[0]
            got = {r["signature"] for r in rows if r["metric"] == spec and r["level"] == "sys"}
            assert got == {alone}


def test_the_run_plan_serves_what_it_covers_and_only_that(plans):
    options = with_plan(AnnotationOptions(), {Layer.NER, Layer.POS})
    assert len(plans) == 1 and options.plan is not None
    assert layers_pkg.plan_run({Layer.POS}, options) is options.plan
    assert len(plans) == 1
    # a layer the run's plan does not produce is refused: never served by it, never planned
    # again in silence
    with pytest.raises(ConfigError, match="the run.s plan does not produce what"):
        layers_pkg.plan_run({Layer.SRL}, options)
    assert len(plans) == 1
    # a scheme is checked against what the plan's providers give: served when they give it,
    # refused when they do not
    assert layers_pkg.plan_run({Layer.POS}, options, {Layer.POS: "ptb"}) is options.plan
    with pytest.raises(ConfigError, match="the run's plan does not produce"):
        layers_pkg.plan_run({Layer.POS}, options, {Layer.POS: "ud"})
    assert len(plans) == 1
    assert with_plan(AnnotationOptions(), set()).plan is None  # nothing to annotate
