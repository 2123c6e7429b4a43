"""`list metrics` lists each metric's parameters, defaults and allowed values, read from the
registry's factories, and what it lists is true: every listed parameter can be set in a spec,
to its default and to each of its listed choices."""

from __future__ import annotations

import pytest

from mtstrata import metrics
from mtstrata.cli import main
from mtstrata.commands.list import parameters


def _name(entry):
    return entry.examples[0] if entry.pattern is not None else entry.name


ENTRIES = sorted(metrics.REGISTRY.entries(), key=lambda e: e.name)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_every_listed_parameter_can_be_set(entry):
    params = parameters(entry)
    if params is None:
        pytest.fail(f"{entry.name}: its parameters are not listed")
    name = _name(entry)
    for key, default, allowed in params:
        if default:
            m = metrics.create(f"{name}:{key}={default}")
            assert m.signature() == metrics.create(name).signature(), (name, key)
        if "|" in allowed and " or " not in allowed:  # a choice: every value builds
            for value in allowed.split("|"):
                metrics.create(f"{name}:{key}={value}")


def test_list_metrics_prints_them(capsys):
    assert main(["list", "metrics"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    k = next(i for i, x in enumerate(lines) if x.startswith("bleu "))
    block = " ".join(lines[k + 1:k + 4])
    assert block.lstrip().startswith("parameters: tok=13a (text), lc=no (yes|no), smooth=exp")
    assert "smooth_value=none (number or none)" in block
    sp = next(i for i, x in enumerate(lines) if x.startswith("SP-Op(t) "))
    assert " ".join(x.strip() for x in lines[sp + 1:sp + 3]) == (
        "parameters: avg=micro (micro|macro), meas=jac (jac|p|r|f), refs=max (max|pooled), "
        "tags=ptb (ptb|upos)")  # tags: upos outside English (docs/languages.md)
    assert "NAME:key=value" in out
