"""Gold PropBank roles over English Web Treebank sentences: reading, the fixed split, parsing.

The data (``propbank_ewt/dev.jsonl``, described in its SOURCE.md) lives outside the project and
is read in place from where the caller says (the tools' ``--data``: a data directory holding
``propbank_ewt/``, or the ``.jsonl`` file itself), else from ``$MTSTRATA_DATA`` (the same), else
``../shared/data`` next to the checkout, else ``/work/shared/data``. It is never copied into
the repository. This module serves the other tools and ``benchmarks/``; it is not part of the
installed package (which never reads data or tests at run time).

Labels are converted to the project's role names (``ARG0`` -> ``A0``, ``ARGA`` -> ``AA``,
``ARGM-TMP`` -> ``AM-TMP``, ``R-ARG1`` -> ``R-A1``, ``C-ARG1`` -> ``C-A1``); ``C-V`` (a
discontinuous part of the verb such as a particle) belongs to the predicate and is kept apart.

The split is by document (the sentence id without its trailing ``-NNNN``), so sentences of one
document never land on both sides: a document is held out when the first 8 hex digits of the
sha256 of its id, read as an integer, are below 20% of 2**32. The held-out document ids are
recorded in ``tests/data/srl_propbank_heldout_docs.txt`` and a test checks the rule still
gives that list.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtstrata.errors import InputError
from mtstrata.segment import Frame, Layer, Segment, Span

#: share of documents held out (fixed; changing it changes the recorded split)
HELD_OUT_SHARE = 0.20
#: layers the labellers read (tokens, lemmas, PTB tags, ClearNLP dependencies)
NEEDS = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP})
NO_SPACE_BEFORE = {",", ".", ";", ":", "?", "!", "n't", "'s", "'m", "'re", "'ve", "'ll", "'d",
                   "%", ")"}


@dataclass(frozen=True)
class GoldFrame:
    """A gold predicate: its token, PTB tag, lemma, and arguments in the project's role names."""

    predicate: int
    tag: str
    lemma: str
    args: tuple[Span, ...]

    @property
    def verbal(self) -> bool:
        return self.tag.startswith("VB")

    def frame(self) -> Frame:
        return Frame(self.predicate, self.args)


@dataclass(frozen=True)
class PropBankSentence:
    """One sentence of the PropBank file: id, gold tokens and tags, gold frames."""

    id: str
    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    frames: tuple[GoldFrame, ...]

    @property
    def document(self) -> str:
        return document_of(self.id)

    def verbal_frames(self) -> tuple[Frame, ...]:
        """The frames of verbal predicates (gold tag ``VB*``): what CoNLL-2005 scores."""
        return tuple(f.frame() for f in self.frames if f.verbal)


def data_path(given: str | Path | None = None) -> Path:
    """Where ``propbank_ewt/dev.jsonl`` is read from: ``given`` (a data directory or the
    ``.jsonl`` file), else ``$MTSTRATA_DATA``, else the shared data beside the checkout."""
    chosen = given if given is not None else os.environ.get("MTSTRATA_DATA")
    if chosen:
        p = Path(chosen)
        return p if p.suffix == ".jsonl" else p / "propbank_ewt" / "dev.jsonl"
    beside = Path(__file__).resolve().parents[2] / "shared" / "data"
    root = beside if beside.is_dir() else Path("/work/shared/data")
    return root / "propbank_ewt" / "dev.jsonl"


def convert_label(label: str) -> str:
    """PropBank's label -> the project's role name (``R-ARGM-LOC`` -> ``R-AM-LOC``)."""
    prefix = ""
    if label[:2] in ("R-", "C-"):
        prefix, label = label[:2], label[2:]
    if label.startswith("ARGM-"):
        label = "AM-" + label[5:]
    elif label.startswith("ARG"):
        label = "A" + label[3:]
    return prefix + label


def read(path: str | Path | None = None) -> list[PropBankSentence]:
    """All sentences of the PropBank file, in file order.

    Raises:
        InputError: the file is missing or a line is malformed.
    """
    p = data_path(path)
    if not p.is_file():
        raise InputError("the gold PropBank file is missing; give --data (or $MTSTRATA_DATA) "
                         "as the data directory that holds propbank_ewt/dev.jsonl, or that file "
                         "itself (it is never copied into the project).", str(p))
    out = []
    with open(p, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.append(_sentence(json.loads(line)))
                except (ValueError, KeyError, TypeError, IndexError) as e:
                    raise InputError(f"malformed PropBank line ({e}).", str(p), n) from None
    return out


def _sentence(d: dict[str, Any]) -> PropBankSentence:
    frames = []
    for f in d["frames"]:
        args = tuple(sorted((Span(int(s), int(e) + 1, convert_label(lab))
                             for lab, s, e in f["args"]),
                            key=lambda a: (a.start, a.end, a.label)))
        frames.append(GoldFrame(int(f["predicate"]), f["tag"], f["lemma"], args))
    return PropBankSentence(d["id"], tuple(d["tokens"]), tuple(d["tags"]), tuple(frames))


# ----------------------------------------------------------------------------- the split
def document_of(sentence_id: str) -> str:
    """The document of a sentence id: the id without its trailing ``-NNNN``."""
    return sentence_id.rsplit("-", 1)[0]


def is_held_out(document: str) -> bool:
    """Whether ``document`` belongs to the held-out part (sha256 rule, module docstring)."""
    h = int(hashlib.sha256(document.encode("utf-8")).hexdigest()[:8], 16)
    return h < HELD_OUT_SHARE * 2**32


def split(sentences: Iterable[PropBankSentence]
          ) -> tuple[list[PropBankSentence], list[PropBankSentence]]:
    """(training part, held-out part), each in file order."""
    train: list[PropBankSentence] = []
    held: list[PropBankSentence] = []
    for s in sentences:
        (held if is_held_out(s.document) else train).append(s)
    return train, held


def held_out_file() -> Path:
    """The recorded list of held-out document ids (one a line, sorted)."""
    return Path(__file__).resolve().parents[1] / "tests" / "data" / "srl_propbank_heldout_docs.txt"


def read_held_out_ids(path: Path | None = None) -> list[str]:
    p = path or held_out_file()
    return [s.strip() for s in p.read_text(encoding="utf-8").splitlines()
            if s.strip() and not s.startswith("#")]


# ----------------------------------------------------------------------------- parsing
def spaces_for(tokens: Sequence[str]) -> list[bool]:
    """Trailing-space flags for ``tokens`` (only the text view depends on them)."""
    return [i + 1 < len(tokens) and tokens[i + 1] not in NO_SPACE_BEFORE
            for i in range(len(tokens))]


def parse_tokens(nlp: Any, sentences: Sequence[Sequence[str]], batch_size: int = 256
                 ) -> list[Segment]:
    """Annotate pre-tokenised sentences with a loaded spaCy pipeline, keeping their tokens.

    Every sentence is annotated as given (``Doc(vocab, words=..., spaces=...)`` through the
    pipeline's components), so predicted and gold spans index the same tokens; none is skipped.
    """
    from spacy.tokens import Doc

    from mtstrata.layers.spacy_backend import to_segment

    docs = [Doc(nlp.vocab, words=list(t), spaces=spaces_for(t)) for t in sentences]
    out = []
    for toks, doc in zip(sentences, nlp.pipe(docs, batch_size=batch_size), strict=True):
        seg = to_segment(doc.text, doc, NEEDS)
        if len(seg.tokens) != len(toks):  # a whitespace token would shift every index
            raise InputError(f"annotating {' '.join(toks)[:60]!r} changed its tokens.")
        out.append(seg)
    return out


def load_spacy() -> Any:
    """The pinned spaCy model with only the components the labellers need enabled."""
    import spacy

    from mtstrata.layers.spacy_backend import MODEL, components_for

    nlp = spacy.load(MODEL)
    comps = components_for(NEEDS)
    nlp.select_pipes(enable=[c for c in comps if c in nlp.pipe_names])
    return nlp
