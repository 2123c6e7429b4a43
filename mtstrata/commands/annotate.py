"""``mtstrata annotate``: annotate files into the cache (warm it before scoring)."""

from __future__ import annotations

import argparse

from mtstrata import corpus
from mtstrata.commands.score import add_annotation_options, annotation_options
from mtstrata.errors import UnknownNameError
from mtstrata.layers import annotate_texts
from mtstrata.segment import Layer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "annotate", help="annotate files into the annotation cache",
        description="Annotate every distinct line of the files with the given layers and store "
        "the result in the cache, so that later `mtstrata score` runs read it instead.")
    p.add_argument("-i", "--input", nargs="+", required=True, metavar="FILE")
    p.add_argument("-l", "--layers", nargs="+", metavar="LAYER",
                   default=["tokens", "lemma", "pos", "dep", "ner", "chunks"],
                   help="layers to annotate (default: all the backend provides; add srl for "
                   "semantic roles)")
    add_annotation_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    known = [x.value for x in Layer]
    layers = set()
    for name in args.layers:
        if name not in known:
            raise UnknownNameError("layer", name, known)
        layers.add(Layer(name))
    texts = [t for f in corpus.read_all(args.input) for t in f.lines]
    opts = annotation_options(args)
    annotate_texts(list(dict.fromkeys(texts)), layers, opts)  # prints its summary line
    return 0
