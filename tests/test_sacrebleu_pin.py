"""sacreBLEU is pinned one way: pyproject.toml, requirements.txt, models.lock and the code.

mtstrata calls functions of sacreBLEU that are not its public API
(:data:`mtstrata.tokenizers.PRIVATE_API`) and refuses any release but
:data:`~mtstrata.tokenizers.SACREBLEU_VERSION`. The dependency ``pip install`` resolves must be
that release exactly (``==``): a range would let ``pip install .`` keep an older sacreBLEU that
is already installed, and every lexical metric would then refuse to run.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from mtstrata import lock, tokenizers

ROOT = Path(__file__).resolve().parents[1]


def _pyproject_requirement() -> str:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"]
    found = [d for d in deps if re.match(r"sacrebleu\b", d, re.IGNORECASE)]
    assert len(found) == 1, deps
    return found[0].replace(" ", "")


def _requirements_pin() -> str:
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#")[0].strip().partition("==")
        if sep and name.lower() == "sacrebleu":
            return version
    raise AssertionError("requirements.txt does not pin sacrebleu")


def test_the_four_sacrebleu_pins_agree():
    code = tokenizers.SACREBLEU_VERSION
    locked = {p["name"]: p["version"] for p in lock.load()["package"]}["sacrebleu"]
    assert _pyproject_requirement() == f"sacrebleu=={code}", (
        "pyproject.toml must pin sacreBLEU exactly to the release the code accepts "
        f"(mtstrata.tokenizers.SACREBLEU_VERSION = {code}), so that pip upgrades an older one")
    assert _requirements_pin() == code
    assert locked == code


def test_the_root_lock_is_the_package_lock():
    # models.lock at the root is a link to the package data that a wheel ships: one file
    assert (ROOT / "models.lock").resolve() == lock.lock_path()


def test_another_release_is_refused_naming_the_pin(monkeypatch):
    import sacrebleu

    from mtstrata.errors import ConfigError

    tokenizers.check_sacrebleu.cache_clear()
    monkeypatch.setattr(sacrebleu, "__version__", "2.5.1")
    try:
        with pytest.raises(ConfigError, match=f"sacrebleu=={tokenizers.SACREBLEU_VERSION}"):
            tokenizers.check_sacrebleu()
    finally:
        tokenizers.check_sacrebleu.cache_clear()
