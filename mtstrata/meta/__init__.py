"""Meta-evaluation: how well metrics agree with human judgments, and whether differences hold.

Score tables and their cache (:mod:`~mtstrata.meta.table`, :mod:`~mtstrata.meta.table_cache`),
human-judgment corpora and mt-metrics-eval files (:mod:`~mtstrata.meta.data`,
:mod:`~mtstrata.meta.mtme`), correlation statistics (:mod:`~mtstrata.meta.stats`,
:mod:`~mtstrata.meta.bootstrap`), metric-vs-metric tests (:mod:`~mtstrata.meta.sigdiff`,
:mod:`~mtstrata.meta.versus`), the records ``meta`` prints (:mod:`~mtstrata.meta.records`),
system-vs-system significance (:mod:`~mtstrata.meta.significance`) and the decomposability
audit (:mod:`~mtstrata.meta.audit`). It fits nothing: fitting sets is :mod:`mtstrata.combine`.
"""
