"""The learned semantic-role labeller: PropBank roles from a model trained on gold data.

Two linear classifiers (multinomial logistic regression, trained by tools/train_srl.py on the
training part of the gold PropBank EWT data, see ``tools/srl_propbank.py`` for the fixed
document split, and from round 4 on the EWT training section too, built from public snapshots
by ``tools/srl_ewt_gold.py``) over the spaCy layers (tokens, lemmas, PTB tags, ClearNLP
dependencies):

1. **predicate identification** over candidate tokens (:mod:`mtstrata.layers.srl.tree`, features
   :mod:`mtstrata.layers.srl.features`).
   Unified PropBank: copular and auxiliary *be*, *have*, *do* and light verbs are predicates.
2. **argument identification and labelling** over candidate heads (dependents of the
   predicate and of its ancestors, and the ancestors themselves), one class per PropBank role
   (``A0``..``A5``, ``AM-*``, ``R-``/``C-`` roles) plus "none"; the span is the head's subtree.
   Decoding per predicate: candidates by decreasing probability, keeping a label when its span
   overlaps no kept span and, for a numbered role, when the role is not taken yet.

Why this model: on held-out gold documents it finds verbal predicates and labels arguments
markedly better than the rules (``benchmarks/bench_srl.py --labeller rules learned``; the
figures are in README, "Semantic roles"), labels in a fraction of the spaCy parse's time, loads
fast and is stored as plain arrays (an ``.npz`` read without pickle) pinned by sha256 in
``models.lock``. Design choices were made on the training documents only (a tuning slice and
4-fold cross-validation by document), never on the held-out part:

* kept: the rule labeller's labels as features (the rules carry PropBank frame knowledge that
  the training sentences do not show), and whether the predicate has its own subject/object,
  crossed with the path;
* tried and dropped for no gain in cross-validation: alternative spans with the same head
  (cutting or extending attached PPs: more gold spans among the candidates, F1 unchanged),
  WordNet lexicographer classes of the words, more feature conjunctions, other values of the
  regularisation C, a threshold on p(none);
* not pursued: gradient-boosted trees over the same one-hot features (slow to train, and in the
  trial they did not get past the majority class); a fine-tuned transformer, which would cost
  far more than the spaCy parse on CPU.

The model file is checked against ``models.lock`` at load: a missing file or a sha256 mismatch
is a :class:`~mtstrata.errors.ModelError` naming the fix; there is no silent fall-back to the
rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mtstrata import lock
from mtstrata.cache import gc_paused
from mtstrata.errors import MissingLayerError, ModelError
from mtstrata.layers.provider import PROVIDERS, Labeller
from mtstrata.layers.srl.encode import ArgumentEncoder, PredicateEncoder
from mtstrata.layers.srl.linear import LinearModel
from mtstrata.layers.srl.linear import load as load_arrays
from mtstrata.layers.srl.rules import label_frames
from mtstrata.layers.srl.tree import Candidate, Tree
from mtstrata.segment import Frame, Layer, Segment, Span

LOCK_NAME = "srl-learned"
MODEL_FILE = Path(__file__).resolve().parents[2] / "data" / "srl_learned.npz"
#: bumped when the features or the decoding change (a model must be retrained then)
FORMAT = "1"
#: bumped when the code the model runs while labelling (the rules, whose labels are features,
#: among it) changes its labels and the model is not retrained; 0 is not written in the
#: version (what signatures said before it existed)
REVISION = 0
NONE = "_"
CORE = frozenset({"A0", "A1", "A2", "A3", "A4", "A5", "AA"})
#: segments labelled together: one sparse product each, feature strings kept for one chunk only
CHUNK = 256
TRAIN_COMMAND = ("python -m tools.train_srl   (in the mtstrata source repository; deterministic; "
                 "then update models.lock)")


def pinned(name: str = LOCK_NAME) -> dict[str, Any]:
    """The ``[[file]]`` entry of the model ``name`` in ``models.lock``."""
    for entry in lock.load().get("file", []):
        if entry.get("name") == name:
            return dict(entry)
    raise ModelError(f"models.lock ({lock.lock_path()}) pins no file named {name!r}; the "
                     "role labeller cannot be verified. Reinstall mtstrata from its source "
                     "tree, or use the rule labeller (--srl rules).")


def verified_path(path: Path | None = None, *, name: str = LOCK_NAME,
                  default: Path = MODEL_FILE, what: str = "learned",
                  command: str = TRAIN_COMMAND) -> Path:
    """The model file (``path``, else ``default``), after checking its sha256 against the
    models.lock entry ``name``; ``what`` and ``command`` name the model and its training in
    the errors.

    Raises:
        ModelError: the file is missing or differs from the lock.
    """
    p = path or default
    want = pinned(name)["sha256"]
    if not p.is_file():
        raise ModelError(f"the {what} role model {p} is missing. Reinstall mtstrata (the file "
                         f"ships with the package) or rebuild it with `{command}`; or "
                         "use the rule labeller (--srl rules).")
    got = lock.sha256_of(p)
    if got != want:
        raise ModelError(f"the {what} role model {p} has sha256 {got[:16]}..., models.lock "
                         f"pins {want[:16]}...: labels would not be reproducible. Reinstall "
                         f"mtstrata or rebuild the model with `{command}`.")
    return p


class Models:
    """The two classifiers of the labeller."""

    def __init__(self, predicate: LinearModel, argument: LinearModel, max_none: float = 0.5):
        self.predicate = predicate
        self.argument = argument
        #: a candidate is an argument when p(none) < max_none (its best role is its label)
        self.max_none = max_none
        self._yes = predicate.classes.index("1")
        self._none = argument.classes.index(NONE)
        self._predicate_encoder = PredicateEncoder(predicate.vocabulary)
        self._argument_encoder = ArgumentEncoder(argument.vocabulary)

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        """Frames of every segment, in chunks of :data:`CHUNK` (bounded memory).

        The cyclic garbage collector is paused meanwhile (as for decoding the cache): a chunk
        keeps thousands of small objects alive and the frames accumulate, so its full passes,
        which walk the caller's whole heap, cost a noticeable share of the time; nothing here
        has cycles.
        """
        out: list[tuple[Frame, ...]] = []
        with gc_paused():
            for k in range(0, len(segments), CHUNK):
                out.extend(self._label(segments[k:k + CHUNK]))
        return out

    def _label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        """Frames of every segment (batched: one product per classifier).

        Features reach the classifiers as column ids (the encoders of
        :mod:`~mtstrata.layers.srl.encode`), never as strings: the same sparse rows.
        """
        trees = [_tree(s) for s in segments]
        seg_of: list[int] = []  # the candidates: segment and token (ints, not pairs: see encode)
        token: list[int] = []
        ids: list[int] = []
        lengths: list[int] = []
        for k, t in enumerate(trees):
            tokens = self._predicate_encoder.encode(t, ids, lengths)
            seg_of += [k] * len(tokens)
            token += tokens
        scores = self.predicate.scores_ids(np.fromiter(ids, np.int64, len(ids)),
                                           np.array(lengths, dtype=np.int64))
        yes = (LinearModel.softmax(scores)[:, self._yes] >= 0.5).tolist()
        pred_seg = [k for k, y in zip(seg_of, yes) if y]
        preds = [i for i, y in zip(token, yes) if y]
        rules = [{f.predicate: f for f in label_frames(s, t if t.well_formed else None)}
                 for s, t in zip(segments, trees)]
        owner, starts, ends, rows = self._argument_encoder.encode(
            (trees[k], p, rules[k].get(p)) for k, p in zip(pred_seg, preds))
        n, width = rows.shape
        probs = LinearModel.softmax(self.argument.scores_ids(rows.ravel(),
                                                             np.full(n, width)))
        out: list[list[Frame]] = [[] for _ in segments]
        for k, frame in zip(pred_seg, self.decode_all(preds, owner, starts, ends, probs)):
            out[k].append(frame)
        return [tuple(fs) for fs in out]

    def decode_all(self, preds: Sequence[int], owner: Sequence[int], starts: Sequence[int],
                   ends: Sequence[int], probs: np.ndarray) -> list[Frame]:
        """:meth:`decode` of every predicate at once (row ``j`` is a candidate of predicate
        ``preds[owner[j]]`` with span ``[starts[j], ends[j])``; a predicate's rows in candidate
        order)."""
        offers: list[list[tuple[int, int, str]]] = [[] for _ in preds]
        # a candidate that loses to "none" is never kept: only the others are ranked
        wins = np.flatnonzero(probs[:, self._none] < self.max_none)
        if len(wins):
            masked = probs[wins]
            masked[:, self._none] = -1.0
            best = masked.argmax(axis=1)
            p_best = masked[np.arange(len(best)), best]
            # by predicate, then by decreasing probability, ties in row order (lexsort is
            # stable, as decode's argsort was)
            order = np.lexsort((-p_best, np.asarray(owner)[wins]))
            classes = self.argument.classes
            for j, role in zip(wins[order].tolist(), best[order].tolist()):
                offers[owner[j]].append((starts[j], ends[j], classes[role]))
        return [self._choose(p, o) for p, o in zip(preds, offers)]

    def decode(self, p: int, cands: Sequence[Candidate], probs: np.ndarray) -> Frame:
        """Best non-overlapping labelled spans of predicate ``p``."""
        return self.decode_all([p], [0] * len(cands), [c.start for c in cands],
                               [c.end for c in cands], probs)[0]

    @staticmethod
    def _choose(p: int, offers: Sequence[tuple[int, int, str]]) -> Frame:
        """Keep each offered ``(start, end, role)`` in turn unless it covers ``p``, repeats a
        numbered role or overlaps a kept span; the frame lists them by (start, end, role)."""
        if not offers:
            return Frame(p)
        kept: list[tuple[int, int, str]] = []
        roles: set[str] = set()
        for start, end, role in offers:
            if start <= p < end or (role in roles and role in CORE):
                continue
            for s, e, _ in kept:
                if start < e and s < end:
                    break
            else:
                kept.append((start, end, role))
                roles.add(role)
        kept.sort()
        return Frame(p, tuple([Span(*a) for a in kept]))


def _tree(seg: Segment) -> Tree:
    if seg.tokens and Layer.DEP not in seg.layers and any(t.head is None for t in seg.tokens):
        raise MissingLayerError(
            "the learned role labeller reads the dependency layer, which this segment lacks "
            f"({seg.text[:60]!r}); annotate with an annotator that provides dep (spacy).")
    return Tree(seg)


def load_models(path: Path) -> Models:
    """The classifiers stored in ``path`` (no verification; see :func:`verified_path`)."""
    import scipy.sparse  # noqa: F401  (labelling needs it: its import belongs to the load)

    try:
        models, meta = load_arrays(str(path), ("predicate", "argument"))
    except (OSError, ValueError, KeyError) as e:
        raise ModelError(f"cannot read the learned role model {path}: {e}. Rebuild it with "
                         f"`{TRAIN_COMMAND}`.") from None
    if meta.get("format") != FORMAT:
        raise ModelError(f"the learned role model {path} has format {meta.get('format')!r}, "
                         f"this mtstrata reads format {FORMAT!r}. Rebuild it with "
                         f"`{TRAIN_COMMAND}`.")
    return Models(models["predicate"], models["argument"])


@PROVIDERS.register("learned", description="PropBank roles from a model trained on gold "
                    "PropBank EWT data (mtstrata.layers.srl.learned)",
                    layers=("tokens", "lemma", "pos", "dep"))
@dataclass(frozen=True)
class LearnedSRL(Labeller):
    """PropBank roles from the trained model (module docstring); batched ``label``.

    ``path`` is the model file (empty: the one shipped in the package); it is read and
    verified against models.lock on first use or by :meth:`load`.
    """

    name: ClassVar[str] = "learned"
    default: ClassVar[bool] = True  # the better labeller on gold PropBank (RESULTS.md)
    #: where its own version is declared (see :mod:`mtstrata.metrics.provenance_lock`)
    version_at: ClassVar[str] = ("REVISION in mtstrata/layers/srl/learned.py, or retrain the "
                                 "model (" + TRAIN_COMMAND.split("   ")[0] + ", source tree)")
    path: str = ""
    _models: list[Models] = field(default_factory=list, init=False, repr=False, compare=False)

    @property
    def version(self) -> str:  # type: ignore[override]
        """``learned-<format>.<first 12 hex digits of the pinned sha256>``, then
        ``.r<revision>`` from :data:`REVISION` 1 on."""
        return (f"learned-{FORMAT}.{pinned()['sha256'][:12]}"
                + (f".r{REVISION}" if REVISION else ""))

    def load(self) -> Models:
        if not self._models:
            self._models.append(load_models(verified_path(Path(self.path) if self.path
                                                          else None)))
        return self._models[0]

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        """One tuple of frames per segment, in order."""
        return self.load().label(segments)
