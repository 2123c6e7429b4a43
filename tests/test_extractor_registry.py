"""The element extractors are one Registry like the metrics': ``EXTRACTORS[name]`` finds a
package extractor without importing its module first, unknown names are refused with
suggestions, a name is registered once, and an entry point adds an extractor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mtstrata.errors import UnknownNameError
from mtstrata.metrics.linguistic import elements as E
from mtstrata.segment import Layer

ROOT = Path(__file__).resolve().parents[1]


def test_lookup_imports_the_module_that_registers_the_name():
    code = ("import sys; from mtstrata.metrics.linguistic.elements import EXTRACTORS as X; "
            "assert 'mtstrata.metrics.linguistic.hwcm' not in sys.modules; "
            "ex = X['hwcm-c']; print(ex.name, sorted(x.value for x in ex.layers), ex.types[-1])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["hwcm-c", "['dep',", "'pos',", "'tokens']", "other"]


def test_names_lookup_and_suggestions():
    from mtstrata.metrics.linguistic import extractors as X

    assert E.EXTRACTORS["pos"] is X.POS and E.EXTRACTORS["word"] is X.WORD
    names = set(E.EXTRACTORS.names())
    assert {"word", "lemma", "pos", "sr-role", "hwcm-w", "stream-pos", "dep-pair"} <= names
    entry, _ = E.EXTRACTORS.lookup("dep-depth")
    assert entry.layers == ("dep", "tokens") and entry.description == X.DEP_DEPTH.description
    with pytest.raises(UnknownNameError, match="unknown element extractor 'lemmas'.*'lemma'"):
        E.EXTRACTORS["lemmas"]


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="'word' is registered twice"):
        E.extractor("word", ("word",), [Layer.TOKENS], "again")(lambda ex, c, v: None)


def test_an_entry_point_adds_an_extractor(monkeypatch):
    plugin = E.Extractor("first-word", lambda ex, c, v: None, ("word", E.OTHER),
                         frozenset({Layer.TOKENS}), "the first word (a toy)")

    class EntryPoint:
        name, value, dist = "first-word", "toy:FIRST", None

        def load(self):
            return plugin

    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [EntryPoint()] if group == "test.extractors" else [])
    reg = E.ExtractorRegistry("element extractor", entry_points="test.extractors")
    assert reg["first-word"] is plugin and reg.names() == ["first-word"]
