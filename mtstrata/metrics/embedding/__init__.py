"""Metrics in the vector space of the ``emb`` layer (:mod:`mtstrata.layers.embedding`):
``EMB-F``/``EMB-P``/``EMB-R`` (greedy token matching, BERTScore-style) and ``EMB-cos``
(sentence cosine). Importing this package imports no torch: the model loads on first use."""
