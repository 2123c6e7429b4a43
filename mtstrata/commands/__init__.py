"""CLI subcommands, one module each: ``@COMMANDS.register("NAME")`` on its
``register(subparsers)``, which adds the subcommand's parser and sets ``func`` on it.

Other distributions add commands through the entry-point group ``mtstrata.commands`` (a module
that registers itself, or a ``register(subparsers)`` function named by the entry point).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from mtstrata.registry import Registry

COMMANDS: Registry[Callable[[argparse._SubParsersAction[Any]], None]] = Registry(
    "command", list_command="mtstrata --help", plugin_package="mtstrata.commands",
    entry_points="mtstrata.commands")
