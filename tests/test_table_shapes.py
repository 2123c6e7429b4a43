"""A score table read back from the score-table cache is checked to fit together (issue 35
item 4): arrays of other shapes, or judged rows pointing outside the table, are refused
(InputError; a cached table: warned about and recomputed), never an internal error."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.errors import InputError
from mtstrata.meta.table import ScoreTable
from mtstrata.meta.table_cache import load_table, save_table


def _table():
    t = ScoreTable("de-en", ["a", "b", "c"], np.array([0.1, 0.2, 0.3]), np.array([0, 1, 2]),
                   np.array([0, 1, 1]), np.array([0.5, 0.6, 0.7]), content="x")
    t.add("bleu", np.array([1.0, 2.0, 3.0]), np.ones((3, 2)), True)
    t.add("chrf", np.array([1.0, 2.0, 3.0]), np.ones((3, 2)), True)
    return t


def test_a_good_table_round_trips(tmp_path):
    save_table(_table(), tmp_path / "t.npz")
    t = load_table(tmp_path / "t.npz")
    assert t.metrics() == ["bleu", "chrf"] and t.seg_scores["chrf"].shape == (3, 2)


@pytest.mark.parametrize("edit", [
    lambda t: t.add("bleu", np.array([1.0, 2.0]), np.ones((3, 2)), True),
    lambda t: t.add("bleu", np.array([1.0, 2.0, 3.0]), np.ones((2, 2)), True),
    lambda t: t.add("bleu", np.array([1.0, 2.0, 3.0]), np.ones(3), True),
    lambda t: t.add("chrf", np.array([1.0, 2.0, 3.0]), np.ones((3, 5)), True),
    lambda t: setattr(t, "sys_human", np.array([0.1, 0.2])),
    lambda t: setattr(t, "seg_sys", np.array([0, 1, 7])),
    lambda t: setattr(t, "seg_idx", np.array([0, 1, 2])),
    lambda t: setattr(t, "seg_human", np.array([0.5])),
])
def test_arrays_that_do_not_fit_are_refused(tmp_path, edit):
    t = _table()
    edit(t)
    save_table(t, tmp_path / "t.npz")
    with pytest.raises(InputError, match="t.npz.*do not fit|t.npz.*outside"):
        load_table(tmp_path / "t.npz")
