"""METEOR (Banerjee and Lavie 2005; Lavie and Agarwal 2007) through nltk's ``meteor_score``.

Unigram alignment in stages (exact, then Porter stem, then WordNet 3.0 synonym), then::

    P = m / |h|,  R = m / |r|,  Fmean = P·R / (α·P + (1-α)·R),
    Pen = γ · (chunks / m)^β,   METEOR = (1 - Pen) · Fmean

with nltk's defaults ``α = 0.9, β = 3, γ = 0.5``; with several references the best score
(nltk's ``meteor_score`` takes the max). Asiya's names select the stages:

* ``METEOR-sy`` (also ``meteor``): exact + stem + synonym, exactly nltk's ``meteor_score`` with
  the project's WordNet 3.0 (:mod:`mtstrata.wordnet`). Without WordNet it raises a
  :class:`~mtstrata.errors.ModelError` naming ``mtstrata models --install``; it never falls back.
* ``METEOR-st``: exact + stem. nltk's ``meteor_score`` with a WordNet stand-in that knows no
  synsets (nltk's synonym stage then only pairs identical words, which the exact stage has
  already consumed). Needs no WordNet.
* ``METEOR-ex``: exact only: also an identity stemmer (its stem stage pairs only identical
  words, already consumed).

The stem stage is English's Porter stemmer (nltk's ``meteor_score`` default). In another
language METEOR-st stems with nltk's Snowball stemmer of that language (``stemmer=russian``,
``german``, ``french``...: :data:`SNOWBALL`), the default of a spec read in that language
(:mod:`mtstrata.languages`) and signed (``stemmer:russian`` beside ``lang:ru``); a language
nltk has no stemmer for refuses METEOR-st. METEOR-sy stays English's (English WordNet).

What nltk is fed: the tokens of sacreBLEU's ``13a`` tokenizer (``tok``), original case; nltk
lowercases every token itself (its ``preprocess=str.lower``). Note nltk's staging: the synonym
stage looks up the *Porter stems* left over by the stem stage (``automobile`` -> ``automobil``
has no synsets, so automobile/car do not match while kid/child do); METEOR-sy keeps nltk's
behaviour rather than silently changing it. METEOR is not decomposable:
per-segment statistics are ``[score, 1]`` and the corpus score is the mean sentence score (as
nltk offers no corpus-level METEOR; the original tool's corpus score pools the counts instead,
which is not reproduced here).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from mtstrata.errors import ConfigError, ModelError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Segment
from mtstrata.tokenizers import TOK_DEFAULTS, tokenize


class _NoSynonyms:
    """WordNet stand-in for the stages without synonyms: every word has no synsets."""

    def synsets(self, word: str) -> list[Any]:
        return []


class _IdentityStemmer:
    """Stemmer stand-in for METEOR-ex: the stem of a word is the word."""

    def stem(self, word: str) -> str:
        return word


class _Memo:
    """Memoises the one method nltk's METEOR calls on its stemmer (``stem``) or WordNet
    (``synsets``). nltk stems every word and looks up the synsets of every unmatched word again
    in every segment; both are pure functions of the word, so the scores are unchanged
    (tests/test_meteor.py compares METEOR-sy with nltk's meteor_score on the plain reader).
    A memo belongs to one run: it is kept in the run's reference state (:class:`Prepared`), so
    it is shared by the run's systems and METEOR variants and dropped with the run."""

    def __init__(self, fn: Any) -> None:
        self._fn = lru_cache(maxsize=500_000)(fn)

    def stem(self, word: str) -> Any:
        return self._fn(word)

    def synsets(self, word: str) -> Any:
        return self._fn(word)


#: nltk's Snowball stemmers by language code (``nltk.stem.snowball.SnowballStemmer``)
SNOWBALL = {"ar": "arabic", "da": "danish", "nl": "dutch", "fi": "finnish", "fr": "french",
            "de": "german", "hu": "hungarian", "it": "italian", "no": "norwegian",
            "nb": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian",
            "es": "spanish", "sv": "swedish"}


@lru_cache(maxsize=8)
def _snowball(language: str) -> Any:
    """nltk's Snowball stemmer of ``language`` (a name of :data:`SNOWBALL`, or english)."""
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer(language)


@lru_cache(maxsize=1)
def _porter() -> Any:
    """nltk's Porter stemmer (loaded once: nltk is imported only when METEOR runs)."""
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def _scorer() -> Any:
    from nltk.translate.meteor_score import meteor_score

    return meteor_score


def _wordnet_dir() -> str:
    from mtstrata.wordnet import data_dir

    # a run pointed at another copy (MTSTRATA_NLTK_DATA) loads and checks that copy instead of
    # reusing the synonyms of the first one loaded: the run's memo is kept per directory
    return str(data_dir())


@lru_cache(maxsize=4)
def _wordnet_in(directory: str) -> Any:
    """The WordNet reader of ``directory`` (a loaded resource, like a model: no memo)."""
    from mtstrata.wordnet import load_wordnet

    with warnings.catch_warnings():
        # nltk warns that the multilingual (OMW) functions are absent: we use none of them
        warnings.simplefilter("ignore", UserWarning)
        return load_wordnet()


@dataclass(frozen=True)
class _Meteor(MetricBase):
    alpha: float = 0.9
    beta: float = 3.0
    gamma: float = 0.5
    tok: str = "13a"
    #: sacreBLEU's tokenizer of the run's language where it chooses one (zh, ja, ko)
    language_defaults: ClassVar[dict[str, dict[str, str]]] = TOK_DEFAULTS

    display: ClassVar[str] = ""
    stages: ClassVar[str] = ""
    #: an identical hypothesis of m words still pays the fragmentation penalty 0.5 * (1/m)^3
    identity_depends_on_length: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if not (0.0 <= self.alpha <= 1.0 and self.beta >= 0.0 and 0.0 <= self.gamma <= 1.0):
            raise ConfigError(f"{self.display}: need 0 <= alpha <= 1, beta >= 0 and "
                              f"0 <= gamma <= 1 (got {self.alpha}, {self.beta}, {self.gamma}).")
        if self.stages == "sy":
            # fail at creation, before any scoring, when WordNet is missing (cheap file check;
            # the reader itself is loaded on first use, which takes seconds)
            from mtstrata.wordnet import load_wordnet, missing_files

            if missing_files():
                load_wordnet()  # raises the ModelError that names the set-up command
                # not reached: load_wordnet raised already
                raise ModelError("WordNet is incomplete; run `mtstrata models --install`.")

    statistics: ClassVar[tuple[str, ...]] = ("score_sum", "segments")
    max_words: ClassVar[int | None] = 2000  # nltk's alignment search
    libraries: ClassVar[tuple[str, ...]] = ("nltk", "sacrebleu")

    def display_name(self) -> str:
        return self.display

    def _resources(self, refs: Prepared[Any]) -> tuple[Any, Any]:
        """(stemmer, wordnet) for nltk, per the stages of this variant; their memos are the
        run's (kept in the references' state)."""
        if self.stages == "ex":
            return _IdentityStemmer(), _NoSynonyms()
        name = getattr(self, "stemmer", "porter")
        if name == "porter":
            stemmer = refs.state(("METEOR", "stem"), lambda: _Memo(_porter().stem))
        else:
            stemmer = refs.state(("METEOR", "stem", name),
                                 lambda: _Memo(_snowball(name).stem))
        if self.stages == "st":
            return stemmer, _NoSynonyms()
        directory = _wordnet_dir()
        return stemmer, refs.state(("METEOR", "synsets", directory),
                                   lambda: _Memo(_wordnet_in(directory).synsets))

    def _tokens(self, text: str) -> list[str]:
        return tokenize(text, self.tok, False).split()

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        return self.stats_batch([hyp], [refs])[0]

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        stemmer, wn = self._resources(prepared(refs))
        meteor_score = _scorer()
        toks: dict[str, list[str]] = {}

        def tk(text: str) -> list[str]:
            t = toks.get(text)
            if t is None:
                t = toks[text] = self._tokens(text)
            return t

        out = np.ones((len(hyps), 2))
        for k, (h, rs) in enumerate(zip(hyps, refs, strict=True)):
            if not rs:
                raise ValueError(f"{self.display} needs at least one reference")
            out[k, 0] = meteor_score([tk(r.text) for r in rs], tk(h.text), stemmer=stemmer,
                                     wordnet=wn, alpha=self.alpha, beta=self.beta,
                                     gamma=self.gamma)
        return out

    def score(self, stats: np.ndarray) -> float:
        return float(stats[0] / stats[1]) if stats[1] else 0.0


@dataclass(frozen=True)
class MeteorEx(_Meteor):
    name: ClassVar[str] = "METEOR-ex"
    display: ClassVar[str] = "METEOR-ex"
    stages: ClassVar[str] = "ex"


@dataclass(frozen=True)
class MeteorSt(_Meteor):
    #: porter (English: nltk's meteor_score) or a Snowball stemmer's language (SNOWBALL)
    stemmer: str = "porter"

    name: ClassVar[str] = "METEOR-st"
    display: ClassVar[str] = "METEOR-st"
    stages: ClassVar[str] = "st"
    language_bound: ClassVar[bool] = True  # a stemmer of one language
    language_defaults: ClassVar[dict[str, dict[str, str]]] = {
        **TOK_DEFAULTS, "stemmer": {"en": "porter", **SNOWBALL}}
    implicit: ClassVar[dict[str, Any]] = {"stemmer": "porter"}

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.stemmer not in ("porter", "english", *SNOWBALL.values()):
            raise ConfigError(f"METEOR-st: stemmer={self.stemmer!r}; give porter (English, "
                              "nltk's METEOR) or a Snowball stemmer's language: "
                              + ", ".join(sorted(set(SNOWBALL.values()))) + ".")

    @property
    def languages(self) -> frozenset[str]:  # type: ignore[override]
        """The languages its stemmer is of."""
        if self.stemmer in ("porter", "english"):
            return frozenset({"en"})
        return frozenset(k for k, v in SNOWBALL.items() if v == self.stemmer)


@dataclass(frozen=True)
class MeteorSy(_Meteor):
    name: ClassVar[str] = "METEOR-sy"
    display: ClassVar[str] = "METEOR-sy"
    language_bound: ClassVar[bool] = True  # Porter's English stemmer and English WordNet
    languages: ClassVar[frozenset[str] | None] = frozenset({"en"})
    stages: ClassVar[str] = "sy"


REGISTRY.add("METEOR-ex", MeteorEx, "METEOR, exact unigram matches only (nltk's scorer)")
REGISTRY.add("METEOR-st", MeteorSt, "METEOR, exact + Porter stem matches (nltk's scorer); no "
             "WordNet needed; outside English nltk's Snowball stemmer of the language "
             "(stemmer=russian...)")
REGISTRY.add("METEOR-sy", MeteorSy, "METEOR, exact + stem + WordNet 3.0 synonyms = nltk's "
             "meteor_score (needs WordNet: `mtstrata models --install`)")
REGISTRY.add("meteor", MeteorSy, "alias of METEOR-sy")
