"""RESULTS.md is hand-written text with generated sections between markers.

Every generated section belongs to exactly one generator script (:data:`SECTIONS`); a
generator rewrites only its own sections, atomically, and leaves everything else (the
hand-written reading of the figures, notes on definition changes) as it is. ``make results``
runs every generator in order, from the cached score tables.

A section looks like::

    <!-- generated:text-families (scripts/make_results.py; edit the generator, not this block) -->
    ...
    <!-- /generated:text-families -->
"""

from __future__ import annotations

from pathlib import Path

from mtstrata.output import atomic_write

#: section name -> the one script that writes it (in the order ``make results`` runs them)
SECTIONS: dict[str, str] = {
    "round2-linguistic": "scripts/results_linguistic.py",
    "embedding": "scripts/emb_results.py",
    "wmt19": "scripts/results_wmt19.py",
    "cross-year-sets": "scripts/cross_year.py",
    "cross-year": "scripts/cross_year.py",
    "data": "scripts/make_results.py",
    "round1-coverage": "scripts/make_results.py",
    "text-families": "scripts/make_results.py",
    "linguistic-subset": "scripts/make_results.py",
    "wmt19-text": "scripts/make_results.py",
    "ulc-heldout": "scripts/make_results.py",
    "audit": "scripts/make_results.py",
}


def begin(name: str) -> str:
    return (f"<!-- generated:{name} ({SECTIONS[name]}; edit the generator, not this "
            "block) -->")


def end(name: str) -> str:
    return f"<!-- /generated:{name} -->"


def splice(text: str, name: str, lines: list[str]) -> str:
    """``text`` with the block of section ``name`` replaced by ``lines`` (markers kept)."""
    b, e = begin(name), end(name)
    if text.count(b) != 1 or text.count(e) != 1 or text.index(b) > text.index(e):
        raise SystemExit(f"RESULTS.md must hold the section {name!r} once, between\n  {b}\n"
                         f"and\n  {e}\n(add the two markers where the section belongs)")
    head, rest = text.split(b, 1)
    return head + "\n".join([b, *lines, e]) + rest.split(e, 1)[1]


def write_sections(path: Path, script: str, sections: dict[str, list[str]]) -> None:
    """Rewrite the given sections of ``path`` (all of ``script``'s own), atomically."""
    for name in sections:
        if SECTIONS.get(name) != script:
            raise SystemExit(f"section {name!r} is written by {SECTIONS.get(name)}, not {script}")
    text = path.read_text(encoding="utf-8")
    for name, lines in sections.items():
        text = splice(text, name, lines)
    atomic_write(path, text)  # regular files only, through a random temporary name
