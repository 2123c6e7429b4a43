"""Command-line options shared by several commands, defined once here: the annotation options
(``score``, ``compare``, ``report``, ``annotate``, ``meta``, ``search``), the data options of
``meta`` and ``search``, and the systems' names of the commands that read hypothesis files.
Importing this module loads no metric, layer backend or model (``score -m bleu`` stays lean)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mtstrata.errors import ConfigError, InputError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mtstrata import corpus
    from mtstrata.layers import AnnotationOptions
    from mtstrata.metrics.base import Metric

__all__ = ["add_annotation_options", "add_data_options", "annotation_options", "jobs_option",
           "data_language", "lang_option", "pair_language", "run_language", "run_options",
           "system_names"]


def system_names(hyps: list[corpus.TextFile]) -> list[str]:
    """The systems' names (file stems), refusing two inputs with one name (exit 2)."""
    names = [h.stem for h in hyps]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        paths = [h.path for h in hyps if h.stem == dup[0]]
        raise InputError(
            f"two inputs are named {dup[0]!r} ({', '.join(map(str, paths))}); systems are "
            "named by the file's stem, so rename one of the files (e.g. sysA.txt, sysB.txt)."
        )
    return names


def add_annotation_options(p: argparse.ArgumentParser, quiet: bool = True) -> None:
    """The annotation options (``--annotator``, ``--srl``, ``--cache``, ``--jobs``,
    ``--executor``...); ``quiet=False`` for a command that has its own ``--quiet``."""
    g = p.add_argument_group("annotation (for metrics over linguistic layers)")
    g.add_argument("--annotator", default=None, metavar="SPEC",
                   help="the provider of the tokens (and of every layer it gives) with its "
                   "parameters, e.g. spacy, spacy:batch_size=128, stanza:dir=DIR (`mtstrata "
                   "list annotators`; default: the language's, spacy for English)")
    g.add_argument("--srl", default=None, metavar="NAME",
                   help="semantic-role labeller for the SR-* metrics (`mtstrata list "
                   "annotators`; default: learned)")
    g.add_argument("--lang", type=lang_option, default=None, metavar="CODE",
                   help="the target language (ISO 639 code: en, de, ru, zh...): which providers "
                   "read its texts, and in the signature of every number that depends on it "
                   "(default: the language a pair directory's name xx-yy gives, else en)")
    g.add_argument("--other-script", action="store_true",
                   help="go on although the references are mostly written in another script "
                   "than the language's (signed script:unchecked); without it such a run stops "
                   "before any work")
    g.add_argument("--cache", metavar="PATH",
                   help="annotation cache file (default: $XDG_CACHE_HOME/mtstrata/"
                   "annotations.sqlite)")
    g.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    g.add_argument("--jobs", type=jobs_option, default=None,
                   help="worker processes for annotation (a local pool, or Dask workers with "
                   "--executor dask, each with its own model), embedding and scoring; "
                   "default: the usable cores of this machine")
    g.add_argument("--executor", default="local", metavar="local|dask|dask:ADDRESS",
                   help="where annotation runs: this process, a Dask LocalCluster of --jobs "
                   "workers, or a Dask scheduler (dask:tcp://HOST:PORT); default: %(default)s")
    g.add_argument("--allow-unlocked", action="store_true",
                   help="accept models whose versions differ from models.lock")
    if quiet:
        g.add_argument("--quiet", "-q", action="store_true",
                       help="no progress display and no annotation summary")


def jobs_option(text: str) -> int:
    """``--jobs N`` of every command: an integer 1..MAX_JOBS, checked as the option is read
    (a usage error, exit 2, before any work)."""
    from mtstrata.layers.executors import check_jobs

    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of processes") from None
    try:
        check_jobs(jobs)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return jobs


def lang_option(text: str) -> str:
    """``--lang CODE``: a language code, checked as the option is read (a usage error, exit 2,
    before any work)."""
    from mtstrata.languages import check_code

    try:
        return check_code(text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def run_language(args: argparse.Namespace) -> str:
    """The run's target language: ``--lang``, else the one every ``--data`` pair directory's
    name says (``.../en-ru`` gives ``ru``: :func:`mtstrata.languages.of_data`), else English.
    Pairs of several target languages without ``--lang`` are read as English, as before
    languages were part of a run (the script check then stops a pair in another script)."""
    from mtstrata.languages import DEFAULT

    given = getattr(args, "lang", None)
    if given:
        return str(given)
    data = getattr(args, "data", None)
    return (data_language(args) if isinstance(data, list) and data else None) or DEFAULT


def annotation_options(args: argparse.Namespace) -> AnnotationOptions:
    """The :class:`~mtstrata.layers.AnnotationOptions` the annotation options give."""
    from mtstrata.layers import AnnotationOptions

    refs = getattr(args, "ref", None)
    return AnnotationOptions(
        language=run_language(args),
        check_script=not getattr(args, "other_script", False),
        references=str(refs[0]) if isinstance(refs, list) and refs else None,
        annotator=args.annotator,
        labeller=args.srl,
        cache=args.cache,
        use_cache=not args.no_cache,
        jobs=args.jobs,
        allow_unlocked=args.allow_unlocked,
        quiet=args.quiet,
        executor=args.executor,
    )


def run_options(args: argparse.Namespace, metrics: Sequence[Metric],
                language: str | None = None) -> AnnotationOptions:
    """:func:`annotation_options` carrying the run's plan, resolved once for ``metrics`` (every
    metric the run computes or signs) and passed down: scoring, score tables, signatures and
    set checks of the run then use that one plan (:func:`mtstrata.layers.with_plan`).
    ``language``: the target language when ``--lang`` does not say it (a pair's)."""
    from dataclasses import replace

    from mtstrata.layers import with_plan
    from mtstrata.scoring import layers_needed, with_choices

    needed, schemes = layers_needed(metrics)
    options = annotation_options(args)
    if language is not None and not getattr(args, "lang", None):
        options = replace(options, language=language)
    return with_plan(with_choices(options, metrics), needed, schemes)


def pair_language(args: argparse.Namespace, lp_dir: str) -> str:
    """The target language of a language-pair directory: ``--lang``, else the pair its name
    says (``en-ru`` -> ``ru``), else English."""
    from pathlib import Path

    from mtstrata.languages import DEFAULT, of_pair

    return getattr(args, "lang", None) or of_pair(Path(lp_dir).resolve().name) or DEFAULT


def data_language(args: argparse.Namespace) -> str | None:
    """The one target language of every ``--data`` pair (None: they differ)."""
    langs = {pair_language(args, d) for d in getattr(args, "data", None) or ()}
    return langs.pop() if len(langs) == 1 else None


def add_data_options(p: argparse.ArgumentParser) -> None:
    """``--data``, ``-m`` and ``--tables``: shared by ``meta`` and ``search``."""
    p.add_argument("--data", nargs="+", required=True, metavar="LPDIR",
                   help="language-pair directories of the dev-corpus format (ref.txt, "
                   "sys/<SYSTEM>.txt, sys_scores.tsv, optional seg_scores.tsv)")
    p.add_argument("-m", "--metrics", nargs="+", action="extend", default=[], metavar="METRIC",
                   help="metric specs, e.g. bleu chrf 'bleu:max_order=2'; 'lexical' expands to "
                   "the lexical candidate variants; ext:DIR/NAME reads scores computed elsewhere "
                   "(COMET, BLEURT...) from mt-metrics-eval files DIR/<lp>/NAME-REF.seg.score "
                   "(and .sys.score; else the mean of the segment scores), higher is better")
    from mtstrata.meta.table_cache import default_tables_dir

    p.add_argument("--tables", default=str(default_tables_dir()), metavar="DIR",
                   help="cache of score tables, one .npz per pair (default: %(default)s); "
                   "metrics already cached are not recomputed")
    # linguistic metrics annotate every output of every pair: --jobs / --executor dask spread
    # each pair's annotation over worker processes or a cluster (README: Scaling)
    add_annotation_options(p, quiet=False)
