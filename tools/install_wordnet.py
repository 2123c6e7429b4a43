"""Install genuine WordNet 3.0 (Debian wordnet-base + wordnet-sense-index) for nltk.

The work is done by ``mtstrata models --install`` (:mod:`mtstrata.commands._install`): it copies
``/usr/share/wordnet/*`` (or ``$WORDNET_SRC``) into ``<data dir>/corpora/wordnet/`` and writes
``lexnames``. This script runs only that step (after apt installed the packages):
``.venv/bin/python -m tools.install_wordnet``. Exit code 2 when the Debian files are missing.
"""

from __future__ import annotations

import sys

from mtstrata.commands._install import (
    LEXNAMES,
    MAN_PAGE,
    check_against_man_page,
    install_wordnet_copy,
    lexnames_text,
)

__all__ = ["LEXNAMES", "MAN_PAGE", "check_against_man_page", "lexnames_text", "main"]


def main() -> int:
    return 0 if install_wordnet_copy(lambda msg: print(msg, file=sys.stderr)) else 2


if __name__ == "__main__":
    sys.exit(main())
