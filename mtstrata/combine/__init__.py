"""Combination: metric sets fitted on human judgments.

Hill climbing for ULC sets (:mod:`~mtstrata.combine.search`), learned linear sets
(:mod:`~mtstrata.combine.learned`), selection procedures as data
(:mod:`~mtstrata.combine.procedures`) and the nested held-out estimate of a whole procedure
(:mod:`~mtstrata.combine.nested`, which runs the fitting inside its folds, hence here and not in
:mod:`mtstrata.meta`). Everything here works on :mod:`mtstrata.meta`'s score tables and
statistics; the sets it writes are read and applied by :mod:`mtstrata.metrics.setfile`.
"""
