"""NE-Mes and SP-Ocs: soft matching of whole entities and chunks by emb-vector cosine (the
matcher of SR-Mrs over other element families)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.errors import ConfigError
from mtstrata.segment import Layer, Segment


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSTRATA_CACHE", str(tmp_path / "annotations.sqlite"))


def seg(words: str, entities=(), chunks=()) -> Segment:
    return Segment.from_words(words.split(), entities=entities, chunks=chunks)


# "the car ..." / "the automobile ..." with the subject as an NP chunk and an ORG entity
CAR = seg("the car of General Motors was parked .", [(3, 5, "ORG")], [(0, 2, "NP"), (3, 5, "NP")])
AUTO = seg("the automobile of General Motors was parked .", [(3, 5, "ORG")],
           [(0, 2, "NP"), (3, 5, "NP")])
GM = seg("the automobile of GM was parked .", [(3, 4, "ORG")], [(0, 2, "NP"), (3, 4, "NP")])
GMC = seg("the automobile of General Motors Co was parked .", [(3, 6, "ORG")])
PERSON = seg("the automobile of General Motors was parked .", [(3, 5, "PERSON")])
NONE = seg("nothing here .")


def scores(spec, hyps, refs):
    m = metrics.create(spec)
    return m, m.segment_scores(m.stats_batch(hyps, [[r] for r in refs]))


def test_identity_is_one():
    for spec in ("NE-Mes(*)", "SP-Ocs(*)"):
        _, s = scores(spec, [CAR], [CAR])
        assert s[0] == pytest.approx(1.0, abs=1e-9), spec


def test_soft_chunks_beat_hard_overlap():
    # SP-Ocs(NP): "General Motors" is the same chunk, "the automobile" ~ "the car"
    _, s = scores("SP-Ocs(NP)", [AUTO], [CAR])
    assert 0.5 < s[0] < 1.0
    # contextual vectors: even "General Motors" differs a little after "automobile"
    _, strict = scores("SP-Ocs(NP):threshold=0.999", [AUTO], [CAR])
    assert strict[0] == 0.0
    m = metrics.create("SP-Ocs(NP)")
    hits, nh, nr = m.stats_batch([AUTO], [[CAR]])[0][2:]
    assert (nh, nr) == (2, 2) and 1.5 < hits < 2.0  # two soft hits, neither exact


def test_entities_match_only_within_their_type():
    _, s = scores("NE-Mes(*)", [GMC, PERSON, GM], [CAR, CAR, CAR])
    assert 0.0 < s[0] < 1.0  # "General Motors Co" vs "General Motors": a soft hit
    assert s[1] == 0.0  # a PERSON never matches an ORG, however close the words
    assert s[2] == 0.0  # "GM": below the default threshold (cosine about 0.64 here)
    m, t = scores("NE-Mes(org)", [NONE, NONE], [CAR, NONE])
    assert m.display_name() == "NE-Mes(ORG)"
    assert t[0] == 0.0 and math.isnan(t[1])  # one side empty / nothing on either side


def test_threshold_and_type_checked():
    with pytest.raises(ConfigError, match="threshold"):
        metrics.create("NE-Mes(*):threshold=1.5")
    with pytest.raises(ConfigError, match="unknown type"):
        metrics.create("SP-Ocs(XYZ)")


def test_layers_and_additivity():
    m = metrics.create("NE-Mes(*)")
    assert {Layer.NER, Layer.EMB} <= m.requires and Layer.SRL not in m.requires
    assert Layer.CHUNKS in metrics.create("SP-Ocs(*)").requires
    st = m.stats_batch([GM, CAR], [[PERSON, CAR], [CAR]])
    one = m.stats_batch([GM], [[CAR]])
    np.testing.assert_allclose(st[0], one[0])  # the best reference is kept
    assert m.score(st.sum(0)) == pytest.approx(np.nanmean(m.segment_scores(st)))
