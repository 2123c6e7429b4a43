"""Where mtstrata keeps WordNet 3.0 for nltk, and how it loads it (never from the network).

The set-up (``mtstrata models --install``, or ``make setup`` in a source tree) installs the
Debian packages ``wordnet-base`` and ``wordnet-sense-index`` (genuine WordNet 3.0 in
``/usr/share/wordnet``) and then copies those files into ``<data dir>/corpora/wordnet/`` and
writes the ``lexnames`` file the Debian packages lack. The data directory is
``$MTSTRATA_NLTK_DATA`` if set, else ``<sys.prefix>/share/mtstrata/nltk_data`` (inside the
virtual environment). nltk is given that directory only; ``nltk.download`` is never called.
The installed versions are those of the Debian packages (``dpkg-query``, for ``models.lock``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import weakref
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from mtstrata import lock
from mtstrata.errors import ModelError

SETUP_COMMAND = "mtstrata models --install"
#: files nltk's WordNet reader opens (index.sense is mandatory in nltk 3.10; lexnames is ours)
REQUIRED_FILES = (
    "lexnames", "index.sense",
    "index.noun", "index.verb", "index.adj", "index.adv",
    "data.noun", "data.verb", "data.adj", "data.adv",
    "noun.exc", "verb.exc", "adj.exc", "adv.exc",
)


def data_dir() -> Path:
    """The nltk data directory mtstrata manages (``$MTSTRATA_NLTK_DATA`` or inside the venv)."""
    env = os.environ.get("MTSTRATA_NLTK_DATA")
    if env:
        return Path(env)
    return Path(sys.prefix) / "share" / "mtstrata" / "nltk_data"


def wordnet_dir() -> Path:
    """``<data dir>/corpora/wordnet``: where the WordNet 3.0 files must be."""
    return data_dir() / "corpora" / "wordnet"


def installed_data_version(entry: dict[str, Any]) -> str | None:
    """Installed version of a pinned Debian data package (``dpkg-query``), or None."""
    if shutil.which("dpkg-query") is None:
        return None
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", entry["name"]],
                       capture_output=True, text=True, check=False)
    return r.stdout.strip() or None if r.returncode == 0 else None


def wordnet_installed() -> bool:
    """Whether the nltk data directory holds WordNet (copied there by the set-up)."""
    return not missing_files()


def missing_files() -> list[str]:
    """Names of required WordNet files absent from :func:`wordnet_dir` (empty when ready)."""
    root = wordnet_dir()
    return [f for f in REQUIRED_FILES if not (root / f).is_file()]


def load_wordnet() -> Any:
    """nltk's ``WordNetCorpusReader`` over the project's WordNet 3.0 (cached per directory).

    Raises:
        ModelError: WordNet is not installed in the data directory; the message names the
            set-up command.
    """
    return _load(str(data_dir()))


@lru_cache(maxsize=4)
def _load(directory: str) -> Any:
    root = Path(directory) / "corpora" / "wordnet"
    missing = missing_files()
    if missing:
        raise ModelError(
            f"WordNet 3.0 is not installed in {root} (missing: {', '.join(missing)}). "
            f"METEOR's synonym stage (METEOR-sy, 'meteor') needs it. Run `{SETUP_COMMAND}` "
            "(it installs the Debian packages wordnet-base and wordnet-sense-index and copies "
            "WordNet into nltk's data directory), or set MTSTRATA_NLTK_DATA to a directory holding "
            "corpora/wordnet. METEOR-ex and METEOR-st work without WordNet. mtstrata never "
            "downloads it."
        )
    problem = wordnet_problem(root)  # a damaged copy would change METEOR's numbers silently
    if problem:
        raise ModelError(f"WordNet for METEOR's synonym stage: {problem}. Fix: {WORDNET_FIX}.")
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    # nltk only opens corpus roots that lie under one of its data paths: add ours (once)
    if directory not in nltk.data.path:
        nltk.data.path.insert(0, directory)
    pointer = nltk.data.find("corpora/wordnet")
    if Path(str(pointer)).resolve() != root.resolve():
        raise ModelError(f"nltk found WordNet at {pointer}, not at {root}; remove the other "
                         "copy from nltk's data path or set MTSTRATA_NLTK_DATA.")
    reader = WordNetCorpusReader(pointer, None)
    if reader.get_version() != "3.0":
        raise ModelError(f"the WordNet in {root} is version {reader.get_version()}, not 3.0; "
                         f"re-run `{SETUP_COMMAND}`.")
    os.register_at_fork(after_in_child=partial(_own_files, weakref.ref(reader)))
    return reader


def _own_files(ref: weakref.ref[Any]) -> None:
    """In a forked child: forget the reader's open data files so that the child opens its own.

    nltk's reader keeps ``data.noun`` and friends open and seeks in them on every lookup. A
    forked scoring worker inherits those file objects, whose offsets the kernel shares with
    the parent and the other workers: concurrent seeks and reads then interleave, lookups read
    the wrong line ("No WordNet synset found ... at offset"), and METEOR-sy either fails or
    scores with wrong synonyms. The child's copies are dropped (closing a child's descriptor
    leaves the parent's open); the reader reopens each file on first use.
    """
    reader = ref()
    if reader is None:
        return
    reader._data_file_map = {}
    reader._key_synset_file = None
    reader._key_count_file = None


def wordnet_problem(directory: Path | None = None) -> str | None:
    """What is wrong with nltk's WordNet copy (missing files, or content other than the pinned
    WordNet 3.0), or None."""
    root = directory if directory is not None else wordnet_dir()
    missing = [f for f in REQUIRED_FILES if not (root / f).is_file()]
    if missing:
        return f"missing in {root}: {', '.join(missing)}"
    want = lock.wordnet_entry()["content_sha256"]
    got = lock.wordnet_digest(root, REQUIRED_FILES)
    if got != want:
        return (f"the files in {root} are not the pinned WordNet 3.0 (content sha256 "
                f"{got[:12]}..., models.lock pins {want[:12]}...): damaged or edited")
    return None


WORDNET_FIX = ("mtstrata models --install   (copies WordNet 3.0 again from the pinned Debian "
               "packages)")
