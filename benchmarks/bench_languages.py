"""What each language's provider costs per text, against the English spaCy pipeline.

Each provider annotates every layer it gives (the cost of a run of the metrics over all of
them) over texts of its own language, in one process on one thread (what each ``--jobs``
worker runs), after one untimed pass over the same texts (the models loaded, the caches warm):

* ``spacy`` (English, the reference): the references of WMT17 de-en;
* ``natasha`` (Russian): the references of WMT21 en-ru (``wmt21_enru_mqm``);
* ``hanta`` (German): the references of WMT23 en-de (``wmt23_ende_mqm``: paragraphs, so the
  figure per 1,000 characters is the one to compare);
* ``spacy-fr`` (French): the sentences of a text file given with ``--french FILE`` (one a line,
  e.g. the ``# text =`` lines of a UD French treebank's development section); left out without.

Printed per provider: texts, characters and tokens per text, milliseconds per text, per 1,000
characters, and the ratio of the latter to the English pipeline's; the load time of its models.

Run: ``.venv/bin/python benchmarks/bench_languages.py [--data DIR] [--limit 300]
[--french FILE]`` (``--data``: the folder holding the shared data sets, default
``../shared/data`` beside the repository or $MTSTRATA_DATA).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

ROOT = Path(__file__).resolve().parent.parent
_BESIDE = ROOT.parent / "shared" / "data"
DEFAULT = Path(os.environ.get("MTSTRATA_DATA") or (_BESIDE if _BESIDE.is_dir() else
                                                   "/work/shared/data"))
#: provider -> (language, the pair directory under --data whose ref.txt it reads)
SOURCES = {"spacy": ("en", "wmt17_toen_da/de-en"), "natasha": ("ru", "wmt21_enru_mqm/en-ru"),
           "hanta": ("de", "wmt23_ende_mqm/en-de")}


def fail(msg: str) -> None:
    print(f"bench_languages: {msg}", file=sys.stderr)
    sys.exit(2)


def positive(text: str) -> int:
    """``--limit``: a whole number of lines, at least 1 (a usage error, exit 2, otherwise)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of lines (1 or more)")
    return n


def read_lines(path: Path, limit: int) -> list[str]:
    """The first ``limit`` distinct non-empty lines of ``path`` (exit 2 naming it when it is
    missing, not UTF-8 or empty)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read {path} as UTF-8 text ({type(e).__name__}: {e}); give the shared "
             "data folder with --data DIR (and a French text with --french FILE)")
    texts = list(dict.fromkeys(t for t in lines if t.strip()))[:limit]
    if not texts:
        fail(f"{path} holds no text")
    return texts


def measure(name: str, texts: list[str]) -> dict[str, Any]:
    """Load the provider ``name``, annotate ``texts`` twice with all its layers; the second
    pass timed."""
    from mtstrata.layers import PROVIDERS

    t0 = time.perf_counter()
    prov = PROVIDERS.create(name)
    layers = frozenset(prov.assigns)
    list(prov.annotate(texts[:1], layers))  # load the models
    load = time.perf_counter() - t0
    segs = list(prov.annotate(texts, layers))
    t0 = time.perf_counter()
    segs = list(prov.annotate(texts, layers))
    secs = time.perf_counter() - t0
    chars = sum(len(t) for t in texts)
    return {"name": name, "texts": len(texts), "chars": chars / len(texts),
            "tokens": sum(len(s.tokens) for s in segs) / len(texts),
            "ms": secs * 1000 / len(texts), "ms_kchar": secs * 1e6 / chars, "load": load,
            "layers": "+".join(sorted(x.value for x in layers))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, metavar="DIR")
    ap.add_argument("--limit", type=positive, default=300, metavar="N")
    ap.add_argument("--french", type=Path, default=None, metavar="FILE")
    a = ap.parse_args()
    todo = [(name, read_lines(a.data / rel / "ref.txt", a.limit))
            for name, (_lang, rel) in SOURCES.items()]
    if a.french is not None:
        todo.append(("spacy-fr", read_lines(a.french, a.limit)))
    rows = [measure(name, texts) for name, texts in todo]
    base = rows[0]["ms_kchar"]
    print(f"one process, one thread; the second of two passes; up to {a.limit} distinct texts")
    print(f"{'provider':9} {'lang':4} {'texts':>5} {'chars':>7} {'tokens':>7} {'ms/text':>8} "
          f"{'ms/kchar':>8} {'x en':>5} {'load s':>6}  layers")
    for r in rows:
        lang = SOURCES.get(r["name"], ("fr",))[0]
        print(f"{r['name']:9} {lang:4} {r['texts']:5d} {r['chars']:7.1f} {r['tokens']:7.1f} "
              f"{r['ms']:8.2f} {r['ms_kchar']:8.2f} {r['ms_kchar'] / base:5.2f} "
              f"{r['load']:6.1f}  {r['layers']}")


if __name__ == "__main__":
    main()
