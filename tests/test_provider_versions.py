"""Every unit of mtstrata's own conversion code has a version that moves with its source.

A provider's signature (and so the cache key of its layer and the ``ann`` fact of every number
made from it) carries the version of the code that converts a backend's output into the layer
(:data:`mtstrata.layers.code.CODE`). If that code changed without the version changing, a
cache would serve what the old code converted under the new code's name. The digest of each
unit's sources is recorded in the provenance lock, with the provider and metric rows
(``tests/test_provenance_lock.py`` fails when a unit's source, comments and docstrings aside, no
longer has the recorded digest); here: what the digest sees, and that versions reach signatures.
"""

from __future__ import annotations

import pytest

from mtstrata.layers import code as providers
from mtstrata.metrics import provenance_lock


@pytest.mark.parametrize("unit", sorted(providers.CODE))
def test_every_code_unit_is_a_row_of_the_lock_with_its_version(unit):
    row = provenance_lock.load()["rows"][f"code:{unit}"]
    assert row["version"] == providers.version(unit)
    assert f"CODE[{unit!r}]" in row["bump"]


def test_the_digest_sees_code_but_not_comments(monkeypatch):
    import inspect

    from mtstrata.layers import spacy_backend

    before = providers.digest("spacy-chunks")
    src = inspect.getsource(spacy_backend._continues)
    monkeypatch.setattr(providers, "_source", lambda ref: (
        src.replace('return t.pos_ == "ADJ"', 'return t.pos_ in ("ADJ", "ADV")')
        if ref.endswith(":_continues") else _orig(ref)))
    assert providers.digest("spacy-chunks") != before
    monkeypatch.setattr(providers, "_source", lambda ref: (
        src.replace("# verb group", "# a verb group") if ref.endswith(":_continues")
        else _orig(ref)))
    assert providers.digest("spacy-chunks") == before


_orig = providers._source


def test_versions_reach_signatures():
    from mtstrata.layers.spacy_backend import SpacyAnnotator
    from mtstrata.segment import Layer

    sig = SpacyAnnotator().signature(frozenset({Layer.CHUNKS}))
    assert sig.endswith(f".conv{providers.version('spacy')}"
                        f".chunks{providers.version('spacy-chunks')}")


def test_every_units_digest_is_the_same_in_every_process():
    """A unit's tables (entity maps, component lists) are digested in one order whatever the
    process's string hashing: a set or a dict built from sets iterates in another order under
    another PYTHONHASHSEED, and the lock would then see code that never changed as moved."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json; from mtstrata.layers import code; "
            "print(json.dumps({u: code.digest(u) for u in sorted(code.CODE)}))")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2")]
    assert json.loads(runs[0]) == json.loads(runs[1])
