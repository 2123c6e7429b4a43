"""``mtstrata annotate``: annotate files into the cache (warm it before scoring)."""

from __future__ import annotations

import argparse

from mtstrata import corpus, metrics, progress
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter
from mtstrata.commands.options import add_annotation_options, annotation_options
from mtstrata.console import say
from mtstrata.errors import ConfigError, UnknownNameError
from mtstrata.layers import annotate_texts
from mtstrata.segment import Layer

DEFAULT_LAYERS = ("tokens", "lemma", "pos", "dep", "ner", "chunks")


@COMMANDS.register("annotate")
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "annotate", formatter_class=Formatter, help="annotate files into the annotation cache",
        description="Annotate every distinct line of the files with the given layers and store "
        "the result in the cache, so that later `mtstrata score` runs read it instead.")
    p.add_argument("-i", "--input", nargs="+", action="extend", required=True, metavar="FILE",
                   help="text files, one segment per line ('-' reads standard input)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("-m", "--metrics", nargs="+", metavar="METRIC",
                      help="annotate the layers these metrics need (EMB metrics: the sentence-"
                      "embedding vectors). The cache keeps each layer of a text apart, so a "
                      "later score run reads whatever layers it needs from it")
    what.add_argument("-l", "--layers", nargs="+", metavar="LAYER",
                      help="layers to annotate (default: tokens lemma pos dep ner chunks; add "
                      "srl for semantic roles, emb for embedding vectors)")
    add_annotation_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.no_cache:  # before any work: annotating is all it does, into the cache
        raise ConfigError("annotate --no-cache would annotate everything and keep nothing: "
                          "annotate stores its work in the cache. Leave out --no-cache (give "
                          "--cache PATH for another cache file).")
    progress.configure(quiet=args.quiet)
    known = [x.value for x in Layer]
    layers: set[Layer] = set()
    if args.metrics:
        for spec in args.metrics:
            layers |= set(metrics.create(spec).requires)
        if not layers:
            say("mtstrata: these metrics read raw text only: nothing to annotate.")
            return 0
    for name in args.layers or ([] if args.metrics else DEFAULT_LAYERS):
        if name not in known:
            raise UnknownNameError("layer", name, known)
        layers.add(Layer(name))
    texts = [t for f in corpus.read_all(args.input) for t in f.lines]
    opts = annotation_options(args)
    annotate_texts(list(dict.fromkeys(texts)), layers, opts, keep=False)  # prints its summary
    return 0
