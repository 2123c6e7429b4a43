"""The project-managed nltk data directory holding WordNet 3.0 (installed by the set-up).

WordNet comes from the Debian packages pinned in ``models.lock`` (``wordnet-base``,
``wordnet-sense-index``); ``scripts/install_wordnet.py`` copies it into
``$MTSTRATA_NLTK_DATA`` or ``<sys.prefix>/share/mtstrata/nltk_data``; the installed versions
are those of the Debian packages (``dpkg-query``). nltk is pointed at that directory only: it
never downloads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any


def data_dir() -> Path:
    """The nltk data directory mtstrata uses."""
    env = os.environ.get("MTSTRATA_NLTK_DATA")
    return Path(env) if env else Path(sys.prefix) / "share" / "mtstrata" / "nltk_data"


def wordnet_dir() -> Path:
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
    return (wordnet_dir() / "data.noun").is_file() and (wordnet_dir() / "lexnames").is_file()
