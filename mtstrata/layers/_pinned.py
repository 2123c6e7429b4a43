"""What the providers of other languages share: the check of their pinned distributions.

A provider whose model comes in distributions pinned in ``models.lock`` as ``[[model]]``
entries (GiNZA and SudachiPy, udchinese and ufal.udpipe, cs_core_news_sm, the multilingual
sentence encoders) checks them before any model loads: each installed, at the pinned version
and wheel, or the run stops naming the set-up command (``--allow-unlocked``: goes on, and the
signature says ``unlocked``). The module's name starts with ``_``: it registers nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from mtstrata import lock
from mtstrata.errors import ModelError

HOW_TO_INSTALL = "mtstrata models --install"


def check_installed(packages: Sequence[str], allow_unlocked: bool, who: str
                    ) -> tuple[dict[str, str], bool]:
    """The installed version of each of ``packages`` (pinned in models.lock as ``[[model]]``
    entries) and whether any differs from the lock (allowed only with ``allow_unlocked``); a
    ModelError naming the set-up command for one that is missing."""
    versions: dict[str, str] = {}
    unlocked = False
    for pkg in packages:
        pinned = next((m for m in lock.load().get("model", []) if m["package"] == pkg), None)
        have = lock.installed_version(pkg)
        if have is None:
            raise ModelError(
                f"{who} needs {pkg}" + (f" {pinned['version']}" if pinned else "")
                + f" (pinned in models.lock), which is not installed. Install it with "
                f"`{HOW_TO_INSTALL}` (no download happens at run time), or leave out the "
                "metrics over linguistic layers.")
        if pinned is not None:
            _, problem = lock.model_state(pinned["name"])
            if problem is not None:
                if not allow_unlocked:
                    raise ModelError(
                        f"the installed {pkg} differs from models.lock ({problem}): {who}'s "
                        f"layers would not be reproducible. Reinstall it with "
                        f"`{HOW_TO_INSTALL}`, or pass --allow-unlocked (the actual versions "
                        "then go into every signature).")
                unlocked = True
        versions[pkg] = have
    return versions, unlocked
