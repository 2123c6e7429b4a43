"""Old home of :mod:`mtstrata.output`, kept only for ``combine/ulc.py`` and
``combine/learned.py`` until they import :mod:`mtstrata.output` (then delete this file and
its entries in ``tests/test_dependency_order.py``'s allow-list)."""

from mtstrata.output import atomic_write, check_output_path, dumps, strict, tsv

__all__ = ["atomic_write", "check_output_path", "dumps", "strict", "tsv"]
