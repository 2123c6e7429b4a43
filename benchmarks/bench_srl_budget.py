"""What a role labeller may cost per sentence, and what the contextual labeller's parts cost.

The bar of issue 39: labelling within 2x the default labeller's time per sentence on 2 cores.
A run of an SR- metric pays, per text, the parse (the spaCy annotator: tokens, lemmas, tags,
dependencies) and the labeller on top. This script measures each part on real MT text, in one
process on one thread (what each ``--jobs`` worker runs), after one untimed pass:

* ``parse``: the spaCy annotator over the texts (the layers the labellers read);
* ``learned``: the default labeller's ``label`` on the parsed segments;
* ``encoder, N layers``: the pinned sentence encoder's first N layers (N = 1..6) over the same
  texts, in the batches the contextual labeller runs
  (:func:`mtstrata.layers.srl.contextual.word_states` with its depth set to N);
* ``contextual``: the contextual labeller's ``label`` (its encoder depth, the tagger, decoding),
  and what is left of it once its encoder is taken away.

Printed: milliseconds per text of each, the budget (the parse plus ``learned``, doubled, minus
the parse: what a labeller may add to the parse), and how many encoder layers fit in it before
anything else is paid. Needs the emb extra.

Run: ``.venv/bin/python -m benchmarks.bench_srl_budget [--data LPDIR] [--limit 1000]``
(default: the reference and the first system of WMT17 de-en, as in ``bench_srl_process.py``).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

from benchmarks.bench_srl_process import DEFAULT  # noqa: E402  (after the thread settings)
from mtstrata.errors import InputError  # noqa: E402
from tools import _cli  # noqa: E402

#: the encoder depths measured (the pinned encoder has 6 layers)
DEPTHS = range(1, 7)


def per_text(fn: Any, n: int) -> float:
    """Milliseconds per text of the second of two calls of ``fn`` (the first warms up)."""
    fn()
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000 / max(1, n)


def budget_ms(parse_ms: float, learned_ms: float) -> float:
    """What a labeller may add to the parse, per text, within 2x the parse and ``learned``."""
    return 2 * (parse_ms + learned_ms) - parse_ms


def ratio(parse_ms: float, learned_ms: float, labeller_ms: float) -> float:
    """The parse and a labeller against the parse and ``learned`` (the 2x bar's ratio)."""
    return (parse_ms + labeller_ms) / (parse_ms + learned_ms)


def layers_within(encoder_ms: Mapping[int, float], budget: float) -> int:
    """The deepest encoder whose cost alone is within ``budget`` (0: not even one layer)."""
    return max((n for n, ms in encoder_ms.items() if ms <= budget), default=0)


@contextmanager
def encoder_depth(module: Any, n: int) -> Iterator[None]:
    """``module.DEPTH`` set to ``n`` for the block (the contextual labeller's encoder depth),
    restored after it whatever happens."""
    depth = module.DEPTH
    module.DEPTH = n
    try:
        yield
    finally:
        module.DEPTH = depth


def read_texts(data: Path, limit: int) -> tuple[list[Path], list[str]]:
    """The reference and the first system of the pair ``data``, and the distinct lines among
    the first ``limit`` of each (the texts measured).

    Raises:
        InputError: no pair there, a file that is not UTF-8 text, or no text at all.
    """
    fix = "give a WMT pair directory (ref.txt, sys/*.txt) of UTF-8 text with --data LPDIR"
    systems = sorted((data / "sys").glob("*.txt"))
    if not (data / "ref.txt").is_file() or not systems:
        raise InputError(f"holds no ref.txt and sys/*.txt (a WMT pair directory as in "
                         f"../shared/data/wmt17_toen_da/de-en); {fix}.", str(data))
    files = [data / "ref.txt", systems[0]]
    distinct: set[str] = set()
    for f in files:
        try:
            distinct.update(f.read_text(encoding="utf-8").splitlines()[:limit])
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"cannot read it as UTF-8 text ({type(e).__name__}: {e}); {fix}.",
                             str(f)) from None
    if not any(t.strip() for t in distinct):
        raise InputError(f"no text in the first {limit} lines of {files[0].name} and "
                         f"{files[1].name} (empty files); {fix}.", str(data))
    return files, sorted(distinct)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_srl_budget",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, metavar="LPDIR")
    ap.add_argument("--limit", type=_cli.positive, default=1000, metavar="N")
    a = ap.parse_args()
    files, texts = read_texts(a.data, a.limit)

    import torch

    from mtstrata.layers import PROVIDERS, Labeller, build

    SRL_NEEDS = Labeller.needs
    from mtstrata.layers.srl import contextual as C

    torch.set_num_threads(1)
    ann = build("spacy")
    segs: list[Any] = []

    def parse() -> None:
        segs[:] = list(ann.annotate(texts, SRL_NEEDS))

    parse_ms = per_text(parse, len(texts))
    words = sum(len(s.tokens) for s in segs) / len(segs)
    learned = PROVIDERS.create("learned")
    learned.load()
    learned_ms = per_text(lambda: learned.label(segs), len(texts))
    contextual = PROVIDERS.create("contextual")
    models = contextual.load()
    tokens = [[t.form for t in s.tokens] for s in segs]
    print(f"{len(segs)} distinct texts of {a.data} (first {a.limit} lines of "
          f"{', '.join(f.name for f in files)}), {words:.1f} words per text; one thread")
    print(f"parse (spaCy annotator, {'+'.join(sorted(x.value for x in SRL_NEEDS))}): "
          f"{parse_ms:.2f} ms/text")
    print(f"learned labelling: {learned_ms:.2f} ms/text")
    budget = budget_ms(parse_ms, learned_ms)
    print(f"budget of a labeller within 2x (on top of the parse): {budget:.2f} ms/text")
    encoder_ms: dict[int, float] = {}
    for n in DEPTHS:
        with encoder_depth(C, n):
            ms = per_text(lambda: C.word_states(models.enc, tokens), len(texts))
        encoder_ms[n] = ms
        print(f"encoder, {n} layer{'s' if n > 1 else ''}: {ms:.2f} ms/text "
              f"({ms / budget:.2f}x the budget)")
    depth = C.DEPTH
    ctx_ms = per_text(lambda: contextual.label(segs), len(texts))
    print(f"contextual labelling (encoder depth {depth}, tagger, decoding): {ctx_ms:.2f} ms/text "
          f"= {ratio(parse_ms, learned_ms, ctx_ms):.2f}x the parse and learned; of it "
          f"the encoder {encoder_ms[depth]:.2f}, the rest (predicates, tagger, decoding) "
          f"{ctx_ms - encoder_ms[depth]:.2f}")
    print(f"encoder layers within the budget, nothing else paid: "
          f"{layers_within(encoder_ms, budget)}")


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_srl_budget"))
