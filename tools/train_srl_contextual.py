"""Train the contextual role labeller (mtstrata.layers.srl.contextual) on gold PropBank data.

Data, read in place (never copied into the repository):

* the shared EWT development section, ``propbank_ewt/dev.jsonl`` (``--data``, else
  ``$MTSTRATA_DATA``, else ``../shared/data``), split by document with the fixed rule of
  ``tools/srl_propbank.py`` (checked against the recorded held-out list): its training part
  trains, its held-out part is only measured;
* more gold (``--extra FILE...``; default the EWT training section that
  ``tools/srl_ewt_gold.py`` builds from the public PropBank and UD snapshots,
  ``~/.cache/mtstrata/gold/propbank_ewt_train.jsonl``). A sentence of a document of the shared
  file is refused (the held-out part must stay unseen).

Every sentence is parsed from its gold tokens with the pinned spaCy model (the predicate
classifier's features and the tagger's PTB tags are the parse's, as when labelling), and the
pinned encoder gives its word states through the labeller's own code
(:func:`mtstrata.layers.srl.contextual.word_states`). The predicate classifier is
``tools/train_srl.py``'s (same features, C, minimum counts) on all the training sentences;
the tagger is trained with Adam (learning rate 1e-3, batches of 32 predicates of similar
length, seed 0, :data:`EPOCHS` passes) on their verbal predicates (gold tag ``VB*``: what
CoNLL-2005 scores), labels from the gold argument spans (``V``/``C-V`` left out, a role seen
fewer than 3 times dropped, an argument overlapping an earlier one skipped).

``--tune`` fits on the training sentences outside ``train_srl``'s tuning slice (a quarter of
the shared file's training documents, by sha256) and prints, after each pass, the argument
figures on that slice through the labeller's own path (predicted predicates): the number of
passes was chosen there. Without ``--tune`` it trains on everything but the held-out part,
writes ``mtstrata/data/srl_contextual.npz``, prints its sha256 (to pin in ``models.lock``) and
the held-out figures (CoNLL-2005 style, ``tools/srl_eval.py``).

Reproducible bytes on one machine: one thread for torch and BLAS, torch's deterministic
algorithms, a fixed seed, and the CPU kernels fixed at the AVX2 level (ATen's dispatch, oneDNN
and MKL; OpenBLAS's Haswell kernels as in ``train_srl.py``), set before numpy and torch load.
Not checked: other processors or library versions, which may sum in another order.

Run: ``.venv/bin/python -m tools.train_srl_contextual [--data DIR] [--extra FILE...]
[--tune] [--epochs N] [--out PATH]`` (needs the emb extra and scikit-learn). About 20 minutes on
one core of a 2-core machine.
"""

from __future__ import annotations

import os
import platform

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
if platform.machine() in ("x86_64", "AMD64"):
    os.environ.update({"OPENBLAS_CORETYPE": "Haswell", "NPY_ENABLE_CPU_FEATURES": "X86_V3",
                       "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
                       "MKL_CBWR": "AVX2"})
    os.environ.pop("NPY_DISABLE_CPU_FEATURES", None)

import hashlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from mtstrata import lock  # noqa: E402
from mtstrata.layers.srl import contextual as C  # noqa: E402
from mtstrata.layers.srl import tree as T  # noqa: E402
from mtstrata.layers.srl.linear import save  # noqa: E402
from tools import _cli, srl_eval, train_srl  # noqa: E402
from tools import srl_propbank as pb  # noqa: E402

DEFAULT_EXTRA = train_srl.DEFAULT_EXTRA
EPOCHS = 7  # chosen with --tune among 1..8 (module docstring)
HIDDEN = 200
BATCH = 32
MIN_CLASS = 3
MIN_SYMBOL = 2  # a tag, relation or branch seen fewer times in the training rows is unknown


def tag_set(sents: list[pb.PropBankSentence]) -> tuple[str, ...]:
    counts = Counter(a.label for s in sents for f in s.frames if f.verbal for a in f.args
                     if a.label not in srl_eval.NOT_ARGUMENTS)
    roles = sorted(r for r, n in counts.items() if n >= MIN_CLASS)
    return (C.OUTSIDE, *[f"{p}-{r}" for r in roles for p in ("B", "I")])


def rows(sents, tags) -> list[tuple[int, int, np.ndarray]]:
    """(sentence index, predicate, gold tag ids) of every verbal predicate."""
    ids = {t: i for i, t in enumerate(tags)}
    out = []
    for k, s in enumerate(sents):
        for f in s.frames:
            if not f.verbal:
                continue
            y = np.zeros(len(s.tokens), np.int64)
            for a in sorted(f.args, key=lambda a: (a.start, a.end)):
                if f"B-{a.label}" not in ids or y[a.start:a.end].any():
                    continue
                y[a.start] = ids[f"B-{a.label}"]
                y[a.start + 1:a.end] = ids[f"I-{a.label}"]
            out.append((k, f.predicate, y))
    return out


def symbol_vocabulary(symbols: list[dict[str, list[str]]]) -> dict[str, dict[str, int]]:
    """Each symbol kind's values seen at least :data:`MIN_SYMBOL` times in the training rows,
    sorted, numbered from 1 (0: unknown)."""
    out = {}
    for name, _ in C.SYMBOLS:
        counts = Counter(v for row in symbols for v in row[name])
        keep = sorted(v for v, c in counts.items() if c >= MIN_SYMBOL)
        out[name] = {v: i + 1 for i, v in enumerate(keep)}
    return out


def fit_tagger(torch, net, data, symbols, states, vocab, epochs: int, on_epoch=None) -> None:
    """Adam over batches of similar length, shuffled with a fixed seed (a run of N passes is
    the first N passes of a longer one)."""
    rng = np.random.default_rng(0)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(epochs):
        net.train()
        t0 = time.perf_counter()
        noise = rng.random(len(data)) * 4
        order = sorted(range(len(data)), key=lambda j: (len(data[j][2]) + noise[j], j))
        batches = [order[k:k + BATCH] for k in range(0, len(order), BATCH)]
        rng.shuffle(batches)
        total = 0.0
        for b in batches:
            arrays = C.inputs([states[data[j][0]] for j in b], [symbols[j] for j in b],
                              [data[j][1] for j in b], vocab)
            y = np.full(arrays[2].shape, -100, np.int64)
            for r, j in enumerate(b):
                y[r, :len(data[j][2])] = data[j][2]
            out = net(*map(torch.from_numpy, arrays))
            loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]),
                                                     torch.from_numpy(y).reshape(-1),
                                                     ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
            opt.step()
            total += loss.item()
        print(f"pass {epoch + 1}: loss {total / len(batches):.4f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
        if on_epoch is not None:
            on_epoch(epoch + 1)


def write(path: Path, predicate, net, tags, vocab, meta, epochs: int) -> str:
    extra = {f"tagger.{k}": v.detach().numpy().astype(np.float32)
             for k, v in net.state_dict().items()}
    meta = {**meta, "epochs": str(epochs), "format": C.FORMAT, "depth": str(C.DEPTH),
            "hidden": str(HIDDEN), "tags": "\n".join(tags),
            **{f"vocab_{k}": "\n".join(sorted(v, key=v.get)) for k, v in vocab.items()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    save(str(tmp), {"predicate": predicate}, meta, extra)
    tmp.replace(path)  # whole or not at all
    return lock.sha256_of(path)


def evaluate(path: Path, sents, segs, interval: bool = False) -> srl_eval.Counts:
    """The figures of the model at ``path`` through the labeller's own code (and, asked, the
    argument F1's bootstrap interval over sentences)."""
    models = C.load_models(path)
    gold, got = [s.verbal_frames() for s in sents], models.label(segs)
    if interval:
        lo, hi = srl_eval.f1_interval(gold, got)
        print(f"argument F1 95% interval (bootstrap over sentences, 1000, seed 12345): "
              f"[{lo:.3f}, {hi:.3f}]")
    return srl_eval.score(gold, got)


def read_all(a) -> tuple[list, list, list]:
    data = pb.data_path(a.data)
    sents = pb.read(data)
    train_s, held_s = pb.split(sents)
    if sorted({s.document for s in held_s}) != pb.read_held_out_ids():
        sys.exit(f"the split differs from the recorded list {pb.held_out_file()}; refusing.")
    return train_s, held_s, train_srl.read_extra(a.extra, sents, "train_srl_contextual")


def main() -> None:
    ap = _cli.parser("train_srl_contextual", __doc__)
    ap.add_argument("--data", default=None, metavar="PATH")
    ap.add_argument("--extra", nargs="*", default=[str(DEFAULT_EXTRA)], metavar="FILE")
    ap.add_argument("--out", type=_cli.output_file, default=C.MODEL_FILE)
    ap.add_argument("--tune", action="store_true")
    ap.add_argument("--epochs", type=_cli.positive, default=EPOCHS)
    ap.add_argument("--snapshots", type=_cli.directory, default=None, metavar="DIR",
                    help="also write the model after each pass (DIR/pass-N.npz: the bytes "
                    "--epochs N writes)")
    ap.add_argument("--no-heldout", action="store_true",
                    help="write the model (and snapshots) without measuring it held out")
    ap.add_argument("--evaluate", type=_cli.existing_file, default=None, metavar="MODEL",
                    help="only measure MODEL on the held-out part")
    ap.add_argument("--limit", type=_cli.positive, default=None, metavar="N",
                    help="the first N training and N/5 evaluation sentences (a smoke test)")
    a = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(0)
    train_s, held_s, extra = read_all(a)
    if a.evaluate:
        held_g = pb.parse_tokens(pb.load_spacy(), [s.tokens for s in held_s])
        print(f"{a.evaluate} (sha256 {lock.sha256_of(a.evaluate)}), held-out part:")
        print("\n".join(evaluate(a.evaluate, held_s, held_g, True).table(min_gold=10)))
        return
    if a.tune:
        def tuning(doc: str) -> bool:
            return hashlib.sha256(("tune:" + doc).encode()).digest()[0] < 64
        evl = [s for s in train_s if tuning(s.document)]
        fit = [s for s in train_s if not tuning(s.document)] + extra
    else:
        fit, evl = list(train_s) + extra, list(held_s)
    if a.limit:
        fit, evl = fit[:a.limit], evl[:max(1, a.limit // 5)]
    t0 = time.perf_counter()
    nlp = pb.load_spacy()
    fit_g = pb.parse_tokens(nlp, [s.tokens for s in fit])
    evl_g = pb.parse_tokens(nlp, [s.tokens for s in evl])
    enc = C.encoder()
    states = C.word_states(enc, [s.tokens for s in fit])
    print(f"{len(fit)} training sentences ({len(extra)} extra), {len(evl)} "
          f"{'tuning' if a.tune else 'held-out'}; parsed and encoded in "
          f"{time.perf_counter() - t0:.0f} s", flush=True)
    predicate = train_srl.fit(train_srl.predicate_instances(fit, fit_g), train_srl.C_PREDICATE,
                              train_srl.MIN_COUNT, 1)
    tags = tag_set(fit)
    data = rows(fit, tags)
    trees = {}
    symbols = []
    for k, p, _ in data:
        if k not in trees:
            trees = {k: T.Tree(fit_g[k])}
        symbols.append(C.syntax(trees[k], p))
    vocab = symbol_vocabulary(symbols)
    net = C.tagger_network(torch, {k: len(v) + 1 for k, v in vocab.items()}, len(tags), HIDDEN,
                           enc.dim)
    meta = {"data_sha256": " ".join(lock.sha256_of(Path(f))
                                    for f in [pb.data_path(a.data), *a.extra]),
            "split": f"held out: sha256(document)[:8] < {pb.HELD_OUT_SHARE} * 2**32",
            "hyper": f"hidden={HIDDEN} batch={BATCH} adam lr=1e-3 seed=0"}
    print(f"{len(data)} verbal predicates, {len(tags)} tags", flush=True)

    def report(epoch: int) -> None:
        if a.tune:
            path = Path(f"/tmp/srl_contextual_tune_{epoch}.npz")
            write(path, predicate, net, tags, vocab, meta, epoch)
            c = evaluate(path, evl, evl_g)
            print(f"  tuning slice after {epoch}: arguments P/R/F1 "
                  f"{'/'.join(f'{v:.3f}' for v in c.arguments())}, predicates F1 "
                  f"{c.predicates()[2]:.3f}", flush=True)
        elif a.snapshots:
            path = a.snapshots / f"pass-{epoch}.npz"
            print(f"  {path}: sha256 {write(path, predicate, net, tags, vocab, meta, epoch)}")

    fit_tagger(torch, net, data, symbols, states, vocab, a.epochs, report)
    if a.tune:
        return
    net.eval()
    digest = write(a.out, predicate, net, tags, vocab, meta, a.epochs)
    print(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.1f} MB) sha256 {digest}")
    if a.no_heldout:
        return
    print("\nheld-out part:")
    print("\n".join(evaluate(a.out, evl, evl_g, True).table(min_gold=10)))


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "train_srl_contextual", "--data names the data directory "
                              "holding propbank_ewt/dev.jsonl; --out the model file to write."))
