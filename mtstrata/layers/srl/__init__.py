"""Semantic roles: the three labellers of the ``srl`` layer and what they are built from.

* :mod:`~mtstrata.layers.srl.rules` (with the word lists of
  :mod:`~mtstrata.layers.srl.lexicon`): PropBank-style rules over the dependency parse;
  registered as ``--srl rules`` by :mod:`~mtstrata.layers.srl.rule_labeller`.
* :mod:`~mtstrata.layers.srl.learned` (``--srl learned``, the default): two linear classifiers
  (:mod:`~mtstrata.layers.srl.linear`) over the candidates and features of
  :mod:`~mtstrata.layers.srl.features`.
* :mod:`~mtstrata.layers.srl.contextual` (``--srl contextual``, needs the emb extra): the
  learned predicate classifier and a predicate-marked tagger over the pinned sentence
  encoder's word vectors.

Training and evaluation tools are in the source repository, not the package: ``tools/train_srl.py``
and ``tools/train_srl_contextual.py`` (training), ``tools/srl_ewt_gold.py`` (more gold data),
``tools/srl_propbank.py`` (the gold PropBank data, read from where the caller says),
``tools/srl_eval.py`` and ``tools/srl_gold.py`` (scoring against gold frames), and
``benchmarks/bench_srl.py``.

``label_frames`` and ``SRL_VERSION`` are re-exported from the rules (the names this module had
when it held them).
"""

from __future__ import annotations

from mtstrata.layers.srl.rules import SRL_VERSION, label_frames

__all__ = ["SRL_VERSION", "label_frames"]
