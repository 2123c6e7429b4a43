"""Install genuine WordNet 3.0 (Debian wordnet-base + wordnet-sense-index) for nltk.

Copies ``/usr/share/wordnet/*`` (or ``$WORDNET_SRC``) into ``<data dir>/corpora/wordnet/`` and
writes ``lexnames``, WordNet 3.0's fixed list of the 45 lexicographer files that the Debian
packages leave out. The list is checked against the installed man page lexnames(5WN) when it is
present. Idempotent: files already identical are left alone. The data directory is the one
``mtstrata.wordnet.data_dir()`` reports (``$MTSTRATA_NLTK_DATA`` or inside the venv).

Run by ``make setup`` after apt installs the packages; by hand:
``.venv/bin/python scripts/install_wordnet.py``. Exit code 2 with a message when the Debian
files are missing.
"""

from __future__ import annotations

import filecmp
import gzip
import os
import re
import shutil
import sys
from pathlib import Path

from mtstrata.wordnet import REQUIRED_FILES, missing_files, wordnet_dir

SRC = Path(os.environ.get("WORDNET_SRC", "/usr/share/wordnet"))
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


def lexnames_text() -> str:
    """The 45-line ``lexnames`` file: number, name and syntactic category, tab separated."""
    assert len(LEXNAMES) == 45
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n"
                   for i, name in enumerate(LEXNAMES))


def check_against_man_page() -> str:
    """Compare :data:`LEXNAMES` with the man page's table; a message, or '' when absent."""
    if not MAN_PAGE.is_file():
        return f"man page {MAN_PAGE} not installed: lexnames not cross-checked"
    with gzip.open(MAN_PAGE, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    rows = re.findall(r"^(\d\d)\t(\S+)[ ]*\t", text, flags=re.M)  # "noun.person  \t"
    names = [name for _, name in rows]
    if names != list(LEXNAMES) or [int(n) for n, _ in rows] != list(range(45)):
        raise SystemExit(f"install_wordnet: the lexnames list differs from {MAN_PAGE}: {names}")
    return f"lexnames checked against {MAN_PAGE} (45 entries)"


def main() -> int:
    needed = [f for f in REQUIRED_FILES if f != "lexnames"]
    absent = [f for f in needed if not (SRC / f).is_file()]
    if absent:
        print(f"install_wordnet: {SRC} lacks {', '.join(absent)}. Install the Debian packages "
              "first: apt-get install -y --no-install-recommends wordnet-base "
              "wordnet-sense-index (or run `make setup`).", file=sys.stderr)
        return 2
    dest = wordnet_dir()
    dest.mkdir(parents=True, exist_ok=True)
    copied = 0
    for src in sorted(SRC.iterdir()):
        if not src.is_file():
            continue
        target = dest / src.name
        if target.is_file() and filecmp.cmp(src, target, shallow=False):
            continue
        shutil.copyfile(src, target)  # a copy, not a symlink: nltk refuses links out of its path
        copied += 1
    print(check_against_man_page())
    lex = dest / "lexnames"
    text = lexnames_text()
    if not lex.is_file() or lex.read_text(encoding="utf-8") != text:
        lex.write_text(text, encoding="utf-8")
        copied += 1
    still = missing_files()
    if still:
        print(f"install_wordnet: still missing in {dest}: {', '.join(still)}", file=sys.stderr)
        return 2
    print(f"WordNet 3.0 ready in {dest} ({copied} file(s) written)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
