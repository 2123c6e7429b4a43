"""Numeric command-line options validated alike in every command (``meta``, ``search``,
``compare``, ``score``, ``report``): one check per kind of option, called before any work, each
failing with one :class:`~mtstrata.errors.ConfigError` paragraph (exit code 2) that names the
option, the value given, the accepted range and a usual value.

* :func:`check_resamples`: bootstrap resamples / randomisation trials (``--bootstrap``,
  ``--resamples``, ``--confidence-n``): an integer in ``0..MAX_RESAMPLES`` (``0`` only where it
  means "no interval"), and, given the number of items resampled, at most ``MAX_VALUES``
  resampled values in all (``--bootstrap 1e11`` would run for days).
* :func:`check_seed`: a random seed, ``0..2**32 - 1`` (numpy's and sacreBLEU's seeds).
* :func:`check_folds`: ``search --folds``: 0 (leave one pair out) or ``2..pairs``.
"""

from __future__ import annotations

from mtstrata.errors import ConfigError
from mtstrata.meta.significance import MAX_RESAMPLES  # the one limit of every command

__all__ = ["MAX_RESAMPLES", "MAX_SEED", "MAX_VALUES", "check_folds", "check_resamples",
           "check_seed"]
#: the most resampled values (resamples x items) a command draws per statistic: 1e9 values
#: is minutes of work per statistic; more is a typo, not a request
MAX_VALUES = 1_000_000_000
#: the largest seed (numpy's legacy RandomState and sacreBLEU take 32-bit seeds)
MAX_SEED = 2**32 - 1


def _int(option: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{option} must be an integer, not {value!r}.")
    return value


def check_resamples(value: object, option: str = "--bootstrap", *, allow_zero: bool = True,
                    items: int | None = None, usual: int = 1000) -> int:
    """A number of resamples (``0`` allowed with ``allow_zero``: no interval); with ``items``
    (values resampled per draw) the total work is bounded by :data:`MAX_VALUES`."""
    n = _int(option, value)
    lo = 0 if allow_zero else 1
    if not lo <= n <= MAX_RESAMPLES:
        zero = " (0: no interval)" if allow_zero else ""
        raise ConfigError(f"{option} must be a whole number of resamples in "
                          f"{lo}..{MAX_RESAMPLES:,}{zero}, not {n:,}; {usual} is usual.")
    if items is not None and n * items > MAX_VALUES:
        raise ConfigError(f"{option} {n:,} resamples of {items:,} items draw "
                          f"{n * items:,} values (at most {MAX_VALUES:,}): it would run for "
                          f"hours. Use at most {MAX_VALUES // max(items, 1):,} resamples "
                          f"({usual} is usual).")
    return n


def check_seed(value: object, option: str = "--seed") -> int:
    """A random seed in ``0..MAX_SEED``."""
    n = _int(option, value)
    if not 0 <= n <= MAX_SEED:
        raise ConfigError(f"{option} must be an integer in 0..{MAX_SEED} (2**32 - 1), not {n}; "
                          "e.g. --seed 12345.")
    return n


def check_folds(value: object, pairs: int, option: str = "--folds") -> int:
    """Language-pair folds of a held-out search over ``pairs`` pairs: 0 (leave one pair out)
    or 2..pairs (each fold holds out at least one pair and trains on at least one)."""
    n = _int(option, value)
    if n == 0 or 2 <= n <= pairs:
        return n
    if pairs < 2:
        raise ConfigError(f"{option} {n}: held-out folds need at least two language pairs "
                          f"(--data gives {pairs}); pass more --data directories or use "
                          "--mode reference.")
    raise ConfigError(f"{option} must be 0 (leave one pair out) or 2..{pairs} (the number of "
                      f"--data pairs), not {n}.")
