"""Is an input already tokenised? sacreBLEU's warning, once per file.

sacreBLEU (2.x, ``metrics/base.py``) warns when at least 100 hypotheses end in a tokenised
period (a line ending in ``" ."``): the metrics tokenise the text themselves, so scores of
pre-tokenised text are not comparable with published (detokenised) ones. The same trigger is
used here, with one addition for short files: a file of fewer than 200 lines is flagged when at
least half of its lines (and at least 5) end so, since 100 is then out of reach whatever the
file holds. Every file a command scores is checked (references too: a tokenised reference
changes every score as much), each file once, by :func:`check` (the message) and
:func:`warn_files` (``mtstrata: warning: ...`` on standard error), called where each command
reads its files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from mtstrata.corpus import TextFile

if TYPE_CHECKING:
    from mtstrata.meta.data import DevCorpus

#: sacreBLEU's threshold (lines ending in a tokenised period)
SACREBLEU_LINES = 100
#: the short-file trigger: at least this many lines, and at least half of the file
MIN_LINES = 5


def tokenized_periods(lines: Sequence[str]) -> int:
    """How many lines end in a tokenised period (``" ."``, trailing whitespace ignored), as
    sacreBLEU counts them."""
    return sum(1 for line in lines if line.rstrip().endswith(" ."))


def looks_tokenized(lines: Sequence[str]) -> bool:
    """sacreBLEU's trigger (100 lines ending in ``" ."``), or, in a file too short to reach
    it, half of the lines and at least :data:`MIN_LINES`."""
    n = tokenized_periods(lines)
    return n >= SACREBLEU_LINES or (n >= MIN_LINES and 2 * n >= len(lines))


def check(path: str, lines: Sequence[str]) -> str | None:
    """The warning about one file, or None when it does not look tokenised."""
    if not looks_tokenized(lines):
        return None
    n = tokenized_periods(lines)
    return (f"{path}: {n} of {len(lines)} lines end in a tokenized period (' .'); it looks "
            "tokenized (sacreBLEU warns the same). The metrics tokenize the text themselves, so "
            "scores of tokenized text are not comparable with published ones: detokenize it "
            "(e.g. `sacremoses -l en detokenize`) unless it is meant to be tokenized.")


def checks(files: Iterable[tuple[str, Sequence[str]]]) -> list[str]:
    """The warnings of several ``(path, lines)``, one per file (a path given twice, e.g. as a
    reference and a hypothesis, once)."""
    seen: set[str] = set()
    out = []
    for path, lines in files:
        if path in seen:
            continue
        seen.add(path)
        msg = check(path, lines)
        if msg:
            out.append(msg)
    return out


#: up to this many files are each warned about in a line of their own; more are summarised
#: in one paragraph (72 paragraphs over the WMT17 pairs buried the run's one error line)
MAX_LINES = 3


def summary(msgs: Sequence[str]) -> str:
    """One paragraph for many files' warnings: how many, the first few, the advice once."""
    heads = [m.split(" lines end in a tokenized period", 1)[0] for m in msgs]
    named = "; ".join(f"{h.rpartition(': ')[0]} ({h.rpartition(': ')[2]} lines)"
                      for h in heads[:MAX_LINES])
    return (f"{len(msgs)} input files look tokenized (most of their lines end in a tokenized "
            f"period ' .'; sacreBLEU warns the same): {named}; and {len(msgs) - MAX_LINES} "
            "more. The metrics tokenize the text themselves, so scores of tokenized text are not "
            "comparable with published ones: detokenize them (e.g. `sacremoses -l en "
            "detokenize`) unless they are meant to be tokenized.")


def summarised(msgs: list[str]) -> list[str]:
    """A run's warnings of this kind as it says them: one line per file, or, for more than
    :data:`MAX_LINES` files, one :func:`summary`."""
    return msgs if len(msgs) <= MAX_LINES else [summary(msgs)]


def warn_files(files: Iterable[tuple[str, Sequence[str]] | TextFile]) -> list[str]:
    """Warn of :func:`checks`'s files and return the warnings: advisories of the group
    ``tokenized``, said when the command-line run has succeeded (:func:`summarised` over the
    whole run), silenced by ``--quiet``; ``files``: ``(path, lines)`` pairs or
    :class:`~mtstrata.corpus.TextFile` objects."""
    from mtstrata.console import SUMMARIES, warn

    SUMMARIES["tokenized"] = summarised
    msgs = checks((f.path, f.lines) if isinstance(f, TextFile) else f for f in files)
    for msg in msgs:
        warn(msg, advisory=True, group="tokenized")
    return msgs


def warn_corpora(dirs: Sequence[str], corpora: Sequence[DevCorpus]) -> list[str]:
    """:func:`warn_files` of the references and system outputs of dev-corpus directories
    (``meta``, ``search``), named by their paths in each directory."""
    from pathlib import Path

    files: list[tuple[str, Sequence[str]]] = []
    for d, c in zip(dirs, corpora, strict=True):
        refs = sorted(p for p in Path(d).glob("ref*.txt")
                      if p.name == "ref.txt" or p.name.startswith("ref."))
        files += [(str(p), r) for p, r in zip(refs, c.refs, strict=False)]
        files += [(str(Path(d) / "sys" / f"{name}.txt"), out) for name, out in c.systems.items()]
    return warn_files(files)
