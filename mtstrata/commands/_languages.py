"""What ``mtstrata models`` says of each target language: the provider of each layer a run in
it takes (:func:`mtstrata.layers.planning.default_name`), the licence and state of the pinned
packages of that language (``language`` in ``models.lock``), and the layers no provider gives
for it (the metrics over them are refused for that language; docs/languages.md)."""

from __future__ import annotations

from mtstrata import lock


def language_lines() -> list[str]:
    """One block per language a registered provider serves, for ``mtstrata models``."""
    from mtstrata.layers.planning import default_name
    from mtstrata.layers.provider import PROVIDERS
    from mtstrata.segment import Layer

    langs = sorted({x for e in PROVIDERS.entries()
                    for x in (getattr(e.factory, "languages", None) or ())})
    pins = lock.load().get("model", [])
    out = ["languages (--lang CODE; the provider of each layer a run in the language takes):"]
    for lang in langs:
        by: dict[str, list[str]] = {}
        missing = []
        for layer in Layer:
            name = default_name(layer, lang)
            if name is None:
                missing.append(layer.value)
            else:
                by.setdefault(name, []).append(layer.value)
        mine = [m for m in pins if m.get("language") == lang]
        bad = [m["package"] for m in mine if lock.model_state(m["name"])[1] is not None]
        state = ("ok" if not bad else f"MISSING {', '.join(bad)}: fix: mtstrata models "
                 "--install")
        licences = sorted({m["licence"] for m in mine if m.get("licence")})
        out.append(f"  {lang:4} " + "; ".join(f"{p}: {' '.join(ls)}" for p, ls in by.items())
                   + (f"  [{state}]" if mine else ""))
        if licences:
            out.append(f"  {'':4} licence: {'; '.join(licences)}")
        if missing:
            out.append(f"  {'':4} no provider for {', '.join(missing)}: the metrics over "
                       "them are refused for this language")
    return out
