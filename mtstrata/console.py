"""The command line's messages on standard error: one ``mtstrata: warning: ...`` line each.

Library code reports through :mod:`warnings` and :mod:`logging`; the command line shows both
with :func:`warn` (``cli`` routes :func:`warnings.showwarning` here), and a command that has
something to say itself calls it directly.
"""

from __future__ import annotations

import sys


def warn(message: str) -> None:
    """Print ``message`` as one warning line on the current standard error."""
    print(f"mtstrata: warning: {message}", file=sys.stderr)
