"""Command line: argument parsing and calls into the library, nothing else.

Subcommands live one per module in :mod:`mtstrata.commands` (registered in its ``COMMANDS``
registry, which other distributions extend through entry points); a run builds the parser of
its own subcommand only, so it imports what that command needs and nothing else.
A :class:`~mtstrata.errors.MtstrataError` is printed as one paragraph without a traceback and
exits with code 2 (``--debug`` re-raises it).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Sequence

from mtstrata._version import __version__
from mtstrata.console import ClosedStdout, guard_standard_fds, say, warn
from mtstrata.errors import MtstrataError


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every subcommand, or only ``command`` (a run imports the
    modules of the command it runs, not those of the others)."""
    from mtstrata.commands import COMMANDS

    parser = argparse.ArgumentParser(
        prog="mtstrata",
        description="Evaluate machine translation with lexical, syntactic and semantic metrics.",
    )
    parser.add_argument("--version", action="version", version=f"mtstrata {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command is not None:
        COMMANDS.lookup(command)[0].factory(sub)
    else:
        for entry in sorted(COMMANDS.entries(), key=lambda e: e.name):
            entry.factory(sub)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, if it names a registered one before any other word
    (else None: the whole parser then prints the help or argparse's error)."""
    from mtstrata.commands import COMMANDS
    from mtstrata.errors import UnknownNameError

    for word in argv:
        if word == "--debug":
            continue
        if word.startswith("-"):  # --help, --version, a typo: the whole parser answers
            return None
        try:
            name = COMMANDS.lookup(word)[0].name
        except UnknownNameError:
            return None
        return name if name == word else None
    return None


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: object = None, line: str | None = None) -> None:
    """The library's warnings on the command line: one ``mtstrata: warning:`` line each, not
    Python's source-file form."""
    from mtstrata.console import Advisory

    warn(str(message), advisory=isinstance(category, type) and issubclass(category, Advisory))


class _StderrHandler(logging.Handler):
    """The library's log records on the current ``sys.stderr`` (one line each)."""

    def emit(self, record: logging.LogRecord) -> None:
        level = "" if record.levelno <= logging.INFO else f"{record.levelname.lower()}: "
        say(f"mtstrata: {level}{record.getMessage()}")


def _log_to_stderr() -> None:
    """The command line shows the library's information messages (the library itself never
    prints: it logs to the ``mtstrata`` logger)."""
    log = logging.getLogger("mtstrata")
    if not any(isinstance(h, _StderrHandler) for h in log.handlers):
        log.addHandler(_StderrHandler())
    log.setLevel(logging.INFO)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv``; return its exit code."""
    guard_standard_fds()
    closed = sys.stdout is None
    if closed:  # >&-: writing the output fails as a closed file does (exit 2), not silently;
        sys.stdout = ClosedStdout()  # and argparse's help does not fall back to stderr
    no_stderr = sys.stderr is None
    if no_stderr:  # 2>&-: messages go nowhere (print, argparse and tqdm fell back to stdout)
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    try:
        return _main(argv)
    finally:
        if closed:
            sys.stdout = None
        if no_stderr:
            sys.stderr.close()
            sys.stderr = None


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from mtstrata import plugins

    plugins.reset_use()
    try:  # a broken command plugin is named even by `mtstrata --help`
        parser = build_parser(_command_of(argv))
        args = parser.parse_args(argv)
    except MtstrataError as e:
        if "--debug" in argv:
            raise
        _say(f"error: {e}")
        return e.exit_code
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    _log_to_stderr()
    previous = _terminate_as_exception()
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    from mtstrata import console
    from mtstrata.commands.options import run_language
    from mtstrata.languages import in_language
    from mtstrata.output import run_scope

    try:  # what the run reads is never what it writes (mtstrata.output); each warning said
        # once, advisories silenced by --quiet (mtstrata.console); its metric specs are read
        # in its target language (mtstrata.languages)
        with run_scope(), console.run(quiet=bool(getattr(args, "quiet", False))), \
                in_language(run_language(args)):
            code = _run(args)
            if code == 0:
                console.finish()  # the run's advisories, summarised; a failure says its error
            return code
    finally:
        warnings.showwarning = shown
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def entry() -> None:
    """The ``mtstrata`` command: :func:`main`, then the process ends. One that imported torch
    ends without the interpreter's teardown of its modules (about 1 s of every run that
    embedded or labelled with torch; nothing of ours is in it): the exit handlers run and the
    standard streams are flushed first, as at a normal exit, and a stream that cannot be
    flushed gives exit code 120, as Python's own exit does."""
    code = main()
    if "torch" not in sys.modules:
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()  # logging, multiprocessing, sqlite users: what a normal exit runs
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # closed (>&-): nothing to flush
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            # output lost on stdout is a failure (120, as Python's own exit); a message lost
            # on stderr is not: it cannot turn the run's outcome into one
            code = code or (120 if stream is sys.stdout else 0)
    os._exit(code)


def _run(args: argparse.Namespace) -> int:
    try:
        try:
            code = int(args.func(args) or 0)
            sys.stdout.flush()  # a full disk or closed stdout shows here, not at exit
            return code
        except MtstrataError as e:
            if args.debug:
                raise
            _say(f"error: {e}")
            return e.exit_code
        except Terminated:
            _say("terminated (SIGTERM); finished batches are in the cache, nothing else written")
            return 143
        except KeyboardInterrupt:
            _say("interrupted")
            return 130
        except BrokenPipeError:
            _silence_stdout()  # the reader went away (e.g. `| head`): not an error
            return 0
        except OSError as e:  # the file system: a full disk, a missing or read-only directory
            if args.debug:
                raise
            where = f" ({e.filename})" if e.filename else ""
            if e.filename == "<stdout>":
                _say(f"error: {e.strerror}.")
                return 2
            _silence_stdout()  # if stdout was the failing file, the exit flush cannot fail
            _say(f"error: {e.strerror or e}{where}. Check the path, its permissions and the "
                 "free space, then run again.")
            return 2
        except MemoryError:
            if args.debug:
                raise
            _say("error: out of memory. Score fewer or shorter segments at a time (split the "
                 "input files), or use fewer metrics per run.")
            return 2
        except SystemExit as e:  # from a plugin's code: its own failure (else as it was)
            blamed = _blame(e)
            if blamed is None or args.debug:
                raise
            _say(f"error: {blamed}")
            return 2
        except Exception as e:  # a bug: one line, and how to see the whole story
            if args.debug:
                raise
            blamed = _blame(e)
            if blamed is not None:  # a plugin's code raised, or broke mtstrata's contract
                _say(f"error: {blamed}")
                return 2
            _say(f"internal error: {type(e).__name__}: {e}. This is a bug in mtstrata; rerun "
                 "with --debug to see the traceback, and report it.")
            return 1
    except OSError:  # stderr itself is unusable: nothing more can be said
        return 2


def _blame(e: BaseException) -> str | None:
    from mtstrata import plugins

    return plugins.blame(e)


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that cleanup (worker pools, the cache's
    transaction, temporary files) runs as for ^C."""


def _terminate_as_exception() -> object:
    """Install the SIGTERM handler (main thread only); return the previous one."""
    def handler(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends it at once
        raise Terminated

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


def _say(message: str) -> None:
    say(f"mtstrata: {message}")


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
