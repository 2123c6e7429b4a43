"""``from_signature`` checks what a signature says against this installation (issue 35 item 4):
every ``def:N``, with or without a ``sacrebleu:`` key (a signature with a ``def`` is
mtstrata's, never sacreBLEU's own), and, with ``strict=True``, every library version it
names."""

from __future__ import annotations

import pytest

from mtstrata import signature as _sig
from mtstrata.errors import ConfigError
from mtstrata.metrics import create, from_signature


def _without(sig: str, key: str) -> str:
    return "|".join(p for p in sig.split("|") if not p.startswith(f"{key}:"))


def _with(sig: str, key: str, value: str) -> str:
    return "|".join(f"{key}:{value}" if p.startswith(f"{key}:") else p for p in sig.split("|"))


@pytest.mark.parametrize("spec", ["bleu", "chrf", "ter"])
def test_a_def_without_a_sacrebleu_key_is_checked(spec):
    sig = _without(create(spec).signature(), "sacrebleu")
    assert from_signature(sig).signature() == create(spec).signature()  # its own def: fine
    for strict in (False, True):
        with pytest.raises(ConfigError, match="definition 99"):
            from_signature(_with(sig, "def", "99"), strict=strict)


@pytest.mark.parametrize("spec,lib", [("meteor", "nltk"), ("bleu", "sacrebleu")])
def test_strict_refuses_another_library_version(spec, lib):
    sig = create(spec).signature()
    assert from_signature(sig, strict=True).signature() == sig
    other = _with(sig, lib, "0.0.1")
    with pytest.raises(ConfigError, match=f"{lib} 0.0.1 .installed: {_sig.library_version(lib)}"):
        from_signature(other, strict=True)
    assert from_signature(other).signature() == sig  # not strict: rebuilt (numbers may differ)


def test_sacrebleus_own_signature_still_reads():
    m = from_signature("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:"
                       + _sig.library_version("sacrebleu"), strict=True)
    assert m.signature() == create("bleu").signature()
