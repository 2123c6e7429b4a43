"""Every registered metric gives bit-identical numbers whatever the run's mechanics (issue 27):
``--jobs 1`` and ``--jobs 2``, the annotation cache off, cold (being filled), warm (read) and
damaged (every row edited to other types, deeper nesting, NaN vectors or another width: each
a miss, recomputed; issue 35), in this process or a fresh one, and two ``PYTHONHASHSEED``
values. Each configuration is one ``mtstrata score`` run over three systems with every metric
and family example at once (system and segment scores, as JSON, compared by their exact float
values): the mechanics runs in this process (one load of the models), the two hash seeds in
fresh interpreters (the seed is fixed at start-up). A case that is known to differ is
``xfail(strict=True)``, naming its issue."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtstrata import metrics

pytestmark = pytest.mark.slow

REF = ["The government will raise the minimum wage next year.",
       "Several rockets fell in southern Israel on Tuesday.",
       "Maria Lopez won the election with 52 percent of the vote.",
       "The bridge was not closed by the engineers yesterday.",
       ""]
SYSTEMS = {
    "sysA": ["The government raises the minimum wage next year.",
             "Rockets fell in the south of Israel on Tuesday.",
             "Maria Lopez has won the vote with 52 percent.",
             "Engineers did not close the bridge yesterday.", "Nothing."],
    "sysB": ["Government will raise minimum salary next year.",
             "Several rocket fell southern Israel Tuesday.",
             "Lopez won election 52 percent vote.", "The bridge closed not by engineers.", ""],
    "sysC": ["the the government", "rockets", "Maria won", ".", "a b c"],
}


def _specs() -> list[str]:
    out = []
    for e in metrics.REGISTRY.entries():
        out.extend(e.examples if e.pattern is not None else [e.name])
    return sorted(set(out))


SPECS = _specs()
#: run -> (jobs, cache, PYTHONHASHSEED); cache: "off", "cold" (filled by this run), "warm"
#: (read), "damaged"; seed None: in this process (its own seed), else a fresh interpreter's
RUNS = {"base": (1, "off", None), "jobs2": (2, "off", None), "cold": (1, "cold", None),
        "warm": (1, "warm", None), "damaged": (1, "damaged", None),
        "hash0": (1, "off", "0"), "hashseed": (1, "off", "4242")}
#: factor -> the two runs it compares
FACTORS = {"jobs 1 vs 2": ("base", "jobs2"), "cache off vs cold": ("base", "cold"),
           "cache off vs warm": ("base", "warm"), "cache off vs damaged rows": ("base", "damaged"),
           "in-process vs a fresh interpreter": ("base", "hash0"),
           "PYTHONHASHSEED 0 vs 4242": ("hash0", "hashseed")}
#: (factor, metric) pairs known to differ, with the issue that tracks them
KNOWN: dict[tuple[str, str], str] = {}


def _score(tmp: Path, jobs: int, cache: str, seed: str | None) -> dict[tuple[str, str], list]:
    files = [str(tmp / f"{s}.txt") for s in SYSTEMS]
    args = ["score", "-r", str(tmp / "ref.txt"), "-i", *files, "-m", *SPECS, "-f", "json",
            "--sentence-level", "-q", "--jobs", str(jobs), "--cache", str(tmp / "ann.sqlite")]
    if cache == "off":
        args.append("--no-cache")
    if cache == "damaged":
        _damage(tmp / "ann.sqlite")
    if seed is None:
        from mtstrata.cli import main

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(args) == 0
        stdout = buf.getvalue()
    else:
        env = {**os.environ, "PYTHONHASHSEED": seed, "XDG_CACHE_HOME": str(tmp / "xdg")}
        p = subprocess.run([sys.executable, "-m", "mtstrata", *args], capture_output=True,
                           text=True, env=env, timeout=900, check=False)
        assert p.returncode == 0, p.stderr
        stdout = p.stdout
    out = {}
    for s in json.loads(stdout)["scores"]:
        # None (JSON null) stands for an undefined number; repr keeps every bit of a float
        out[(s["system"], s["metric"])] = [repr(v) for v in [s["score"], *s.get("segments", [])]]
    return out


def _damage(path: Path) -> None:
    """Every row of the (warm) cache replaced as a hand edit or damage would: JSON rows of other
    types or nested deeper than any row, emb rows with NaN vectors or of another width. Each is
    a miss: the run recomputes it, and its numbers are those of a run without the cache."""
    import sqlite3
    import struct

    import numpy as np

    from mtstrata.payloads import EMB_MAGIC

    db = sqlite3.connect(path)
    rows = db.execute("SELECT k, v FROM layer").fetchall()
    assert rows, "the warm run left no rows to damage"
    for i, (k, v) in enumerate(rows):
        if isinstance(v, bytes):  # emb: tokens, then (tokens + 1) x width float16
            n, dim = struct.unpack_from("<II", v, len(EMB_MAGIC))
            toks = v[len(EMB_MAGIC) + 8:len(EMB_MAGIC) + 8 + n]
            width = dim + (i % 2)
            arr = np.full((len(json.loads(toks)) + 1, width), np.nan if i % 2 == 0 else 0.5,
                          np.float16)
            new: str | bytes = (EMB_MAGIC + struct.pack("<II", n, width) + toks
                                + arr.tobytes())
        else:
            new = json.dumps([[1.5] * 3]) if i % 2 else "[" * 3000 + "]" * 3000
        db.execute("UPDATE layer SET v = ? WHERE k = ?", (new, k))
    db.commit()
    db.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("determinism")
    (tmp / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    for s, lines in SYSTEMS.items():
        (tmp / f"{s}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # in order: cold before warm, warm before damaged (which damages what warm read)
    return {name: _score(tmp, *cfg) for name, cfg in RUNS.items()}


def _cases() -> list:
    out = []
    for factor in FACTORS:
        for spec in SPECS:
            reason = KNOWN.get((factor, spec))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(factor, spec, marks=marks, id=f"{factor}-{spec}"))
    return out


def test_every_metric_is_scored(runs):
    names = {m for (_, m) in runs["base"]}
    assert len(names) == len(SPECS), sorted(names)
    assert {s for (s, _) in runs["base"]} == set(SYSTEMS)


@pytest.mark.parametrize("factor,spec", _cases())
def test_identical_numbers(runs, factor, spec):
    a, b = (runs[r] for r in FACTORS[factor])
    label = metrics.create(spec).display_name()
    keys = [k for k in a if k[1] == label]
    assert keys, f"{spec} ({label}) missing from the output"
    diff = {k: (a[k], b.get(k)) for k in keys if a[k] != b.get(k)}
    assert not diff, f"{factor}: {spec} differs: {diff}"
