"""``mtstrata models``: check the installed models and data against ``models.lock``."""

from __future__ import annotations

import argparse

from mtstrata import lock, wordnet


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models", help="check installed models and data against models.lock",
        description="Compare every model, package and data set pinned in models.lock with what "
        "is installed; print what is missing and the command that fixes it. Exit code 2 when "
        "something is missing or differs.")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
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
            print(f"{'':8} fix: {c.fix}")
    # The nltk copy of WordNet is made from the Debian packages above by the set-up
    # (scripts/install_wordnet.py); METEOR's synonym stage reads it.
    missing = wordnet.missing_files()
    print(f"{'data':8} {'nltk WordNet copy'.ljust(width)}  {'':10}  "
          f"{'ok' if not missing else 'MISSING ' + ', '.join(missing[:3])} "
          f"({wordnet.wordnet_dir()})")
    if missing:
        bad += 1
        print(f"{'':8} fix: {lock.SETUP_COMMAND}")
    print("everything pinned is installed" if not bad else f"{bad} problem(s); see the fixes above")
    return 0 if not bad else 2
