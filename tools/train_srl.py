"""Train the learned semantic-role labeller (mtstrata.layers.srl.learned) on gold PropBank data.

Reads ``propbank_ewt/dev.jsonl`` in place (``--data``, else ``$MTSTRATA_DATA``, else
``../shared/data``), splits it by document with the fixed rule of ``tools/srl_propbank.py`` (and
checks the split against the recorded held-out list), adds more gold (``--extra FILE...``; default
the EWT *training* section that ``tools/srl_ewt_gold.py`` builds from the public PropBank and UD
snapshots, ``~/.cache/mtstrata/gold/propbank_ewt_train.jsonl``; a file holding a document of the
shared file is refused; ``--extra`` alone: none), annotates every sentence from its gold tokens
with the pinned spaCy model, trains the two classifiers on the shared file's **training part**
and the extra gold, writes ``mtstrata/data/srl_learned.npz`` and prints its sha256 (to pin in
``models.lock``) and the figures on the held-out part. Hyper-parameters were chosen with
``--tune`` on a fixed tuning slice of the shared file's training documents (never on the
held-out part), before the extra gold existed; its grid differed by under 0.01 F1, and the
defaults below (the smaller model among the best) were kept, unchanged for the larger data.

Reproducible bytes: one thread for BLAS/OpenMP, the lbfgs solver (no random state), sorted
vocabularies, weights stored as float32, a zip written in sorted member order with fixed dates,
and on x86-64 the same arithmetic kernels whatever the processor offers beyond AVX2: OpenBLAS's
Haswell kernels and numpy's loops up to the X86_V3 (AVX2) level (on this AVX-512 machine kind
the defaults sum in another order, and lbfgs stops at another iterate: weights moved by up to
0.024, a bias by 0.135, held-out figures the same). The settings are made before numpy loads
and checked after (the script refuses to train otherwise); the caller's own thread and kernel
variables do not matter. What the tests check (``tests/test_srl_train.py``, needing the gold
data): on the first 200 training sentences, two runs from different environments (2 BLAS
threads and Sandybridge kernels; Prescott kernels and numpy without AVX-512) give the same
bytes (they differ without the kernel pinning); the full retraining gives the sha256 pinned in
``models.lock`` (about 12 minutes, and only where the extra gold has been built). Not
checked: other processors; one without AVX2 cannot run
these kernels (numpy refuses ``NPY_ENABLE_CPU_FEATURES`` it lacks), so it cannot reproduce the
bytes; other numpy, scipy, scikit-learn or zlib versions may give other bytes.

Run: ``.venv/bin/python -m tools.train_srl [--data DIR] [--extra [FILE...]]
[--tune] [--limit N] [--out PATH]`` (about 12 minutes on one core with the EWT training section)
(needs scikit-learn, pinned in requirements.txt; the labeller itself needs only numpy/scipy).
"""

from __future__ import annotations

import os
import platform

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
#: arithmetic kernels fixed on x86-64 (module docstring): read by OpenBLAS and numpy at load
KERNELS = {"OPENBLAS_CORETYPE": "Haswell", "NPY_ENABLE_CPU_FEATURES": "X86_V3"}
if platform.machine() in ("x86_64", "AMD64"):
    os.environ.update(KERNELS)
    os.environ.pop("NPY_DISABLE_CPU_FEATURES", None)

import hashlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from mtstrata import lock  # noqa: E402
from mtstrata.errors import InputError  # noqa: E402
from mtstrata.layers.srl import features as F  # noqa: E402
from mtstrata.layers.srl import learned as srl_learned  # noqa: E402
from mtstrata.layers.srl import tree as T  # noqa: E402
from mtstrata.layers.srl.linear import LinearModel, save  # noqa: E402
from mtstrata.layers.srl.rules import label_frames  # noqa: E402
from mtstrata.segment import Segment  # noqa: E402
from tools import _cli, srl_eval  # noqa: E402
from tools import srl_propbank as pb  # noqa: E402

#: chosen with --tune on the tuning slice of the training documents (module docstring)
C_PREDICATE = 1.0
C_ARGUMENT = 1.0
MIN_COUNT = 2  # a feature seen fewer times in training is dropped
MIN_CLASS = 3  # a role seen fewer times in training is not learned
#: where ``tools/srl_ewt_gold.py`` writes the EWT training section (never in the repository)
DEFAULT_EXTRA = Path.home() / ".cache" / "mtstrata" / "gold" / "propbank_ewt_train.jsonl"


def read_extra(files: Sequence[str], shared: Sequence[pb.PropBankSentence], tool: str
               ) -> list[pb.PropBankSentence]:
    """The sentences of the extra gold ``files``.

    Raises:
        InputError: a file is missing, malformed, or holds a document of the shared file (its
            held-out part must stay unseen); the callers exit 2 with the message.
    """
    shared_docs = {s.document for s in shared}
    extra: list[pb.PropBankSentence] = []
    for f in files:
        if not Path(f).is_file():
            raise InputError(f"--extra {f} is missing: build it with `python -m "
                             "tools.srl_ewt_gold --propbank-release DIR --ud-ewt DIR`, or "
                             f"train on the shared file alone with `--extra` (no file) ({tool}).")
        more = pb.read(f)
        clash = sorted({s.document for s in more} & shared_docs)
        if clash:
            raise InputError(f"--extra {f} holds documents of the shared file ({clash[:3]}...): "
                             f"refused, the held-out part must stay unseen ({tool}).")
        extra += more
    return extra


@dataclass
class Instances:
    feats: list[list[str]]
    labels: list[str]


def predicate_instances(sents: Sequence[pb.PropBankSentence], segs: Sequence[Segment]
                        ) -> Instances:
    out = Instances([], [])
    for s, seg in zip(sents, segs, strict=True):
        tree = T.Tree(seg)
        gold = {f.predicate for f in s.frames if f.verbal}
        for i in range(tree.n):
            if T.is_predicate_candidate(tree, i):
                out.feats.append(F.predicate_features(tree, i))
                out.labels.append("1" if i in gold else "0")
    return out


def argument_instances(sents: Sequence[pb.PropBankSentence], segs: Sequence[Segment]
                       ) -> Instances:
    """Candidates of the gold verbal predicates, labelled by exact span match.

    A candidate whose span matches no gold argument but whose head heads one that no candidate
    reaches (a span the parse got wrong) is left out: it is neither a clean example of its
    role nor of "none". Where another candidate reaches that argument, it is "none".
    """
    out = Instances([], [])
    for s, seg in zip(sents, segs, strict=True):
        tree = T.Tree(seg)
        rules = {f.predicate: f for f in label_frames(seg)}
        for f in s.frames:
            if not f.verbal:
                continue
            gold = {(a.start, a.end): a.label for a in f.args
                    if a.label not in srl_eval.NOT_ARGUMENTS}
            inst = list(F.argument_instances(tree, f.predicate, rules.get(f.predicate)))
            covered = {(c.start, c.end) for c, _ in inst} & set(gold)
            # heads of gold arguments that no candidate span reaches exactly
            unreached = {T.span_head(tree, a, b) for a, b in set(gold) - covered}
            for c, feats in inst:
                label = gold.get((c.start, c.end))
                if label is None and c.head in unreached:
                    continue
                out.feats.append(feats)
                out.labels.append(label or srl_learned.NONE)
    return out


def fit(data: Instances, c: float, min_count: int, min_class: int) -> LinearModel:
    """Multinomial logistic regression over binary features (lbfgs, deterministic)."""
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    class_counts = Counter(data.labels)
    keep = [k for k, y in enumerate(data.labels) if class_counts[y] >= min_class]
    counts = Counter(f for k in keep for f in set(data.feats[k]))
    vocab = {f: j for j, f in enumerate(sorted(f for f, n in counts.items() if n >= min_count))}
    rows, cols = [], []
    for r, k in enumerate(keep):
        for j in sorted({vocab[f] for f in data.feats[k] if f in vocab}):
            rows.append(r)
            cols.append(j)
    x = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(keep), len(vocab)))
    y = [data.labels[k] for k in keep]
    clf = LogisticRegression(C=c, max_iter=2000, tol=1e-5)
    clf.fit(x, y)
    classes = tuple(str(k) for k in clf.classes_)
    coef, bias = clf.coef_.T, clf.intercept_
    if len(classes) == 2:  # binary: sklearn keeps one weight column (for the second class)
        coef = np.hstack([np.zeros_like(coef), coef])
        bias = np.array([0.0, bias[0]])
    return LinearModel(vocab, coef.astype(np.float32), bias.astype(np.float32), classes)


def train(sents: Sequence[pb.PropBankSentence], segs: Sequence[Segment], c_pred: float,
          c_arg: float, min_count: int) -> srl_learned.Models:
    pred = fit(predicate_instances(sents, segs), c_pred, min_count, 1)
    arg = fit(argument_instances(sents, segs), c_arg, min_count, MIN_CLASS)
    return srl_learned.Models(pred, arg)


def evaluate(models: srl_learned.Models, sents: Sequence[pb.PropBankSentence],
             segs: Sequence[Segment]) -> srl_eval.Counts:
    return srl_eval.score([s.verbal_frames() for s in sents], models.label(segs))


def tune(train_s: list[pb.PropBankSentence], train_g: list[Segment]) -> None:
    """A small grid on a fixed slice of the training documents (a quarter, by sha256)."""
    def in_slice(doc: str) -> bool:
        return hashlib.sha256(("tune:" + doc).encode()).digest()[0] < 64

    fit_idx = [k for k, s in enumerate(train_s) if not in_slice(s.document)]
    dev_idx = [k for k, s in enumerate(train_s) if in_slice(s.document)]
    print(f"tuning: fit on {len(fit_idx)}, score on {len(dev_idx)} training sentences")
    for min_count in (1, 2):
        for c in (0.1, 0.3, 1.0, 3.0):
            m = train([train_s[k] for k in fit_idx], [train_g[k] for k in fit_idx], c, c,
                      min_count)
            cnt = evaluate(m, [train_s[k] for k in dev_idx], [train_g[k] for k in dev_idx])
            print(f"  min_count {min_count} C {c:<4}: predicates F1 {cnt.predicates()[2]:.3f}"
                  f"  arguments P/R/F1 {'/'.join(f'{v:.3f}' for v in cnt.arguments())}")


def check_kernels() -> None:
    """Refuse to train unless BLAS runs one thread with the fixed kernels (x86-64)."""
    import sklearn  # noqa: F401  (loads scipy's OpenBLAS too)
    from threadpoolctl import threadpool_info

    pools = [p for p in threadpool_info() if p.get("internal_api") == "openblas"]
    bad = [p for p in pools if p.get("num_threads") != 1 or (
        platform.machine() in ("x86_64", "AMD64")
        and p.get("architecture") != KERNELS["OPENBLAS_CORETYPE"])]
    if bad:
        sys.exit("train_srl: BLAS is not pinned as the script sets it (one thread, "
                 f"{KERNELS['OPENBLAS_CORETYPE']} kernels): {bad}; run the script as a program "
                 "(not imported after numpy), refusing to write a model.")


def main() -> None:
    ap = _cli.parser("train_srl", __doc__)
    ap.add_argument("--data", default=None, metavar="PATH",
                    help="the data directory holding propbank_ewt/dev.jsonl, or that file "
                    "(default: $MTSTRATA_DATA, else ../shared/data)")
    ap.add_argument("--extra", nargs="*", default=[str(DEFAULT_EXTRA)], metavar="FILE",
                    help="more gold to train on (default: the EWT training section built by "
                    "tools/srl_ewt_gold.py); --extra alone: none")
    ap.add_argument("--out", type=_cli.output_file, default=srl_learned.MODEL_FILE)
    ap.add_argument("--tune", action="store_true", help="grid on the tuning slice (of the "
                    "shared file's training part, without extra gold), then stop")
    ap.add_argument("--limit", type=_cli.positive, default=None, metavar="N",
                    help="train on the first N training sentences only (the reproducibility "
                    "test; the shipped model uses all)")
    a = ap.parse_args()
    check_kernels()
    data = pb.data_path(a.data)
    sents = pb.read(data)
    train_s, held_s = pb.split(sents)
    recorded = pb.read_held_out_ids()
    if sorted({s.document for s in held_s}) != recorded:
        sys.exit(f"the split differs from the recorded list {pb.held_out_file()}; refusing.")
    extra = [] if a.tune else read_extra(a.extra, sents, "train_srl")
    if a.limit is not None:
        train_s, held_s = train_s[:a.limit], held_s[:max(1, a.limit // 5)]
    t0 = time.perf_counter()
    nlp = pb.load_spacy()
    if a.tune:
        train_g = pb.parse_tokens(nlp, [s.tokens for s in train_s])
        tune(train_s, train_g)
        return
    shared_n = len(train_s)
    train_s = [*train_s, *extra][:a.limit]
    train_g = pb.parse_tokens(nlp, [s.tokens for s in train_s])
    held_g = pb.parse_tokens(nlp, [s.tokens for s in held_s])
    print(f"data {data}: {min(shared_n, len(train_s))} training / {len(held_s)} held-out "
          f"sentences, {max(0, len(train_s) - shared_n)} extra ({' '.join(a.extra) or 'none'});"
          f" parsed in {time.perf_counter() - t0:.1f} s")
    t1 = time.perf_counter()
    models = train(train_s, train_g, C_PREDICATE, C_ARGUMENT, MIN_COUNT)
    print(f"trained in {time.perf_counter() - t1:.1f} s: predicate features "
          f"{len(models.predicate.features)}, argument features {len(models.argument.features)},"
          f" roles {len(models.argument.classes) - 1}")
    meta = {"format": srl_learned.FORMAT,
            "data_sha256": " ".join(lock.sha256_of(Path(f)) for f in [data, *a.extra]),
            "split": f"held out: sha256(document)[:8] < {pb.HELD_OUT_SHARE} * 2**32",
            "hyper": f"C_predicate={C_PREDICATE} C_argument={C_ARGUMENT} "
                     f"min_count={MIN_COUNT} min_class={MIN_CLASS}"}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    save(str(a.out), {"predicate": models.predicate, "argument": models.argument}, meta)
    sha = lock.sha256_of(a.out)
    print(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.1f} MB) sha256 {sha}")
    for name, s, g in (("training part", train_s, train_g), ("held-out part", held_s, held_g)):
        print(f"\n{name}:")
        print("\n".join(evaluate(models, s, g).table(min_gold=10)))


if __name__ == "__main__":  # a missing or malformed data file: its message, exit code 2
    raise SystemExit(_cli.run(main, "train_srl", "--data names the data directory holding "
                              "propbank_ewt/dev.jsonl; --out the model file to write."))
