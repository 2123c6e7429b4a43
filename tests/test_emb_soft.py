"""SR-Mrs: soft matching of role arguments by emb-vector cosine."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.errors import ConfigError
from mtstrata.metrics.linguistic.soft import char_spans
from mtstrata.segment import Segment


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSTRATA_CACHE", str(tmp_path / "annotations.sqlite"))


def seg(words: str, frames=()) -> Segment:
    return Segment.from_words(words.split(), frames=frames)


# "X was parked in front of the house ." with A1 = X (tokens 0..k) and AM-LOC
CAR = seg("the car was parked near the house .", [(3, [(0, 2, "A1"), (4, 7, "AM-LOC")])])
AUTO = seg("the automobile was parked near the house .", [(3, [(0, 2, "A1"), (4, 7, "AM-LOC")])])
BANANA = seg("the banana was parked near the house .", [(3, [(0, 2, "A1"), (4, 7, "AM-LOC")])])
NONE = seg("nothing here .")


def scores(spec, hyps, refs):
    m = metrics.create(spec)
    return m, m.segment_scores(m.stats_batch(hyps, [[r] for r in refs]))


def test_char_spans():
    assert char_spans("it's a b", ["it", "'s", "a", "zz", "b"]) == [
        (0, 2), (2, 4), (5, 6), None, (7, 8)]


def test_identity_is_one_and_soft_beats_hard():
    _, s = scores("SR-Mrs(*)", [CAR, AUTO], [CAR, CAR])
    assert s[0] == pytest.approx(1.0, abs=1e-9)
    _, hard = scores("SR-Mr(*)", [AUTO], [CAR])
    assert hard[0] == pytest.approx(1 / 3)  # AM-LOC matches, A1 does not: 1 / (2 + 2 - 1)
    assert hard[0] < s[1] < 1.0  # "the automobile" ~ "the car" above the threshold


def test_threshold_decides():
    _, s = scores("SR-Mrs(A1):threshold=0.99", [AUTO], [CAR])
    assert s[0] == 0.0
    _, s = scores("SR-Mrs(A1):threshold=-1.0", [BANANA], [CAR])
    assert 0.0 < s[0] < 1.0  # any pair counts its cosine


def test_role_selection_and_undefined():
    m, s = scores("SR-Mrs(LOC)", [AUTO, NONE, NONE], [CAR, NONE, CAR])
    assert m.display_name() == "SR-Mrs(AM-LOC)"
    assert 0.9 < s[0] < 1.0  # the same words in another context: close, not identical
    assert math.isnan(s[1])  # nothing on either side
    assert s[2] == 0.0  # one side empty


def test_best_reference_and_additivity():
    m = metrics.create("SR-Mrs(*)")
    st = m.stats_batch([AUTO, CAR], [[BANANA, CAR], [CAR]])
    one = m.stats_batch([AUTO], [[CAR]])
    np.testing.assert_allclose(st[0], one[0])
    assert m.score(st.sum(0)) == pytest.approx(np.nanmean(m.segment_scores(st)))


def test_bad_threshold():
    with pytest.raises(ConfigError, match="threshold"):
        metrics.create("SR-Mrs(*):threshold=2")
