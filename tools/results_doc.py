"""RESULTS.md is hand-written text with generated sections between markers.

Every generated section belongs to exactly one generator script (:data:`SECTIONS`); a
generator rewrites only its own sections, atomically, and leaves everything else (the
hand-written reading of the figures, notes on definition changes) as it is. ``make results``
runs every generator in order, from the cached score tables.

A section looks like::

    <!-- generated:text-families (tools/make_results.py; edit the generator, not this block) -->
    ...
    <!-- /generated:text-families -->
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mtstrata.output import atomic_write

#: section name -> the one script that writes it (in the order ``make results`` runs them)
SECTIONS: dict[str, str] = {
    "round2-linguistic": "tools/results_linguistic.py",
    "embedding": "tools/emb_results.py",
    "wmt19": "tools/results_wmt19.py",
    "cross-year-sets": "tools/cross_year.py",
    "cross-year": "tools/cross_year.py",
    "data": "tools/make_results.py",
    "round1-coverage": "tools/make_results.py",
    "text-families": "tools/make_results.py",
    "linguistic-subset": "tools/make_results.py",
    "wmt19-text": "tools/make_results.py",
    "ulc-heldout": "tools/make_results.py",
    "audit": "tools/make_results.py",
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
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise SystemExit(f"{script}: error: cannot read {path} ({e.strerror}); --out names the "
                         "RESULTS.md whose generated sections are rewritten.") from None
    for name, lines in sections.items():
        text = splice(text, name, lines)
    atomic_write(path, text)  # regular files only, through a random temporary name


def check_data(data: str, *datasets: str) -> None:
    """Refuse a ``--data`` folder without the datasets a generator reads, before anything is
    computed or created."""
    from mtstrata.errors import InputError

    missing = [d for d in datasets if not Path(data, d).is_dir()]
    if missing:
        raise InputError(f"--data {data} holds no {' and no '.join(f'{d}/' for d in missing)}; "
                         "pass the folder holding the WMT data (one directory per dataset, one "
                         "per language pair inside: see /work/shared/data's SOURCE.md files).")


def run_script(main: Callable[[], object], script: str) -> int:
    """Run a generator's ``main`` through :func:`tools._cli.run`: bad input (a missing
    ``--data`` folder or table directory, a foreign or damaged file, a RESULTS.md without the
    section's markers) is one paragraph on standard error and exit code 2, never a
    traceback."""
    from tools import _cli

    return _cli.run(main, script, "--data names the folder holding wmt17_toen_da/ and "
                    "wmt19_da_sys/; the table options name directories of score tables "
                    "(`mtstrata meta --tables DIR` writes them).")
