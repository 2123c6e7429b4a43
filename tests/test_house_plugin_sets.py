"""Another distribution bundles a metric set and adds a kind of set file through entry points
(``mtstrata.sets``, ``mtstrata.set_kinds``), without editing mtstrata: ``tests/plugin_example``
installed into a temporary directory, used from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtstrata.metrics.ulc import SETS_DIR
from tests.test_plugins import install_plugin, mtstrata

ROOT = Path(__file__).resolve().parents[1]
LEX = SETS_DIR / "ULC-lex.json"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The plugin installed, with its set file (a copy of ULC-lex: this installation's
    member signatures)."""
    return install_plugin(tmp_path_factory.mktemp("plugin"), {"lex-again.json": LEX})


@pytest.fixture
def files(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\nJohn gave Mary a book\n", encoding="utf-8")
    hyp.write_text("the cat sat\nJohn gave Mary a small book\n", encoding="utf-8")
    return ref, hyp


def scores(args, path, files, tmp_path):
    ref, hyp = files
    r = mtstrata(["score", "-r", str(ref), "-i", str(hyp), "-f", "json", "--no-cache", "-m",
                  *args], path, tmp_path)
    assert r.returncode == 0, r.stderr
    return {s["metric"]: s for s in json.loads(r.stdout)["scores"]}


def test_a_bundled_set_of_a_plugin_is_listed_and_scores(site, files, tmp_path):
    listed = mtstrata(["list", "metrics"], [site, ROOT], tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert any(line.startswith("Lex-again ") for line in listed.stdout.splitlines())
    got = scores(["Lex-again", "ULC-lex"], [site, ROOT], files, tmp_path)
    assert got["Lex-again"]["score"] == got["ULC-lex"]["score"]
    assert got["Lex-again"]["signature"].startswith("ULC|set:Lex-again|sha256:")
    assert got["Lex-again"]["signature"].split("|")[2] == got["ULC-lex"]["signature"].split(
        "|")[2]  # the same file's bytes


def _best_set(tmp_path):
    data = json.loads(LEX.read_text(encoding="utf-8"))
    data["kind"] = "best"
    path = tmp_path / "best.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, data["ulc"][0]["metric"]


def test_a_kind_of_set_file_added_by_a_plugin(site, files, tmp_path):
    path, first = _best_set(tmp_path)
    got = scores([f"ulc:{path}", first], [site, ROOT], files, tmp_path)
    (member,) = [s for s in got.values() if not s["signature"].startswith("ULC|")]
    assert got["ULC:best"]["score"] == pytest.approx(member["score"] / 100.0)


def test_without_the_plugin_its_set_and_kind_are_unknown(files, tmp_path):
    ref, hyp = files
    r = mtstrata(["score", "-r", str(ref), "-i", str(hyp), "-m", "Lex-again"], [ROOT], tmp_path)
    assert r.returncode == 2 and "Lex-again" in r.stderr and "Traceback" not in r.stderr
    path, _ = _best_set(tmp_path)
    r = mtstrata(["score", "-r", str(ref), "-i", str(hyp), "-m", f"ulc:{path}"], [ROOT],
                 tmp_path)
    assert r.returncode == 2 and "'best' is not known" in r.stderr, r.stderr
