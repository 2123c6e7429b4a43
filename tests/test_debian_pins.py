"""Debian pins: a superseded security build may be replaced by the archive's newest only for a
tool no number depends on, and `mtstrata models` says so instead of failing."""

from __future__ import annotations

import pytest

from mtstrata import environment, lock, wordnet
from mtstrata.errors import ConfigError

CHROMIUM = {"name": "chromium", "version": "1.0", "source": "debian", "sha256": "x" * 64,
            "superseded": "newest", "numbers": False}


def test_only_number_free_pins_may_be_superseded():
    assert lock.newest_allowed(CHROMIUM)
    assert not lock.newest_allowed({k: v for k, v in CHROMIUM.items() if k != "superseded"})
    for bad in ({"numbers": True}, {"superseded": "any"}, {"numbers": None}):
        with pytest.raises(ConfigError, match="numbers = false"):
            lock.newest_allowed(dict(CHROMIUM, **bad))


def test_the_shipped_lock_keeps_wordnet_strict():
    data = {d["name"]: d for d in lock.load()["data"] if d["source"] == "debian"}
    assert not lock.newest_allowed(data["wordnet-base"])
    assert not lock.newest_allowed(data["wordnet-sense-index"])
    assert lock.newest_allowed(data["chromium"])


@pytest.mark.parametrize(("entry", "installed", "ok", "noted"), [
    (CHROMIUM, "1.1", True, True),
    (CHROMIUM, "1.0", True, False),
    (CHROMIUM, None, False, False),
    (dict(CHROMIUM, name="wordnet-base", superseded=None, numbers=None), "1.1", False, False),
])
def test_models_reports_a_newer_build_with_a_note(monkeypatch, entry, installed, ok, noted):
    entry = {k: v for k, v in entry.items() if v is not None}
    monkeypatch.setattr(lock, "load", lambda: {"data": [entry]})
    monkeypatch.setattr(wordnet, "installed_data_version", lambda d: installed)
    (check,) = environment.check_environment()
    assert check.ok is ok
    assert ("newer build" in check.note) is noted
