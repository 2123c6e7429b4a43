"""RESULTS.md: each generated section is rewritten by its one generator from score tables,
byte for byte, and the hand-written text around it is kept (``make results``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mtstrata.meta.table import ScoreTable
from tools import make_results, results_doc

ROOT = Path(__file__).resolve().parent.parent

EXPECTED = Path(__file__).parent / "data" / "results_section_expected.md"


def _table(lp: str, human: list[float], scores: dict[str, list[float]],
           higher: dict[str, bool]) -> ScoreTable:
    empty = np.zeros(0, dtype=int)
    t = ScoreTable(lp, ["s1", "s2", "s3"], np.array(human, dtype=float), empty, empty,
                   np.zeros(0))
    for m, v in scores.items():
        t.sys_scores[m] = np.array(v, dtype=float)
        t.seg_scores[m] = np.array(v, dtype=float)[:, None]
        t.higher[m] = higher.get(m, True)
    return t


def _fixture() -> dict[str, ScoreTable]:
    # hand-computed: human 1,2,3 against 1,2,3 (r = rho = tau = 1, all 3 pairs agree);
    # 1,3,2 (r = rho = 0.5, tau = 1/3, 2 of 3 pairs); 3,2,1 (r = rho = tau = -1, no pair);
    # an error rate (lower is better) negated: 3,2,1 -> perfect
    a = _table("aa-en", [1, 2, 3], {"up": [1, 2, 3], "swap": [1, 3, 2], "down": [3, 2, 1],
                                    "err": [3, 2, 1]}, {"err": False})
    b = _table("bb-en", [1, 2, 3], {"up": [1, 2, 3], "swap": [3, 2, 1], "down": [1, 3, 2],
                                    "err": [3, 2, 1]}, {"err": False})
    return {"aa-en": a, "bb-en": b}


def _template() -> str:
    text = EXPECTED.read_text(encoding="utf-8")
    b, e = results_doc.begin("text-families"), results_doc.end("text-families")
    head, rest = text.split(b, 1)
    return head + b + "\nold figures\n" + e + rest.split(e, 1)[1]


def test_a_section_regenerates_byte_for_byte_from_score_tables(tmp_path):
    doc = tmp_path / "RESULTS.md"
    doc.write_text(_template(), encoding="utf-8")
    lines = make_results.corr_section("Fixture: three systems", _fixture(),
                                      ["up", "swap", "down", "err"], seg=False)
    results_doc.write_sections(doc, "tools/make_results.py",
                               {"text-families": make_results._strip(lines)})
    assert doc.read_bytes() == EXPECTED.read_bytes()


def test_a_generator_writes_only_its_own_sections(tmp_path):
    doc = tmp_path / "RESULTS.md"
    doc.write_text(_template(), encoding="utf-8")
    with pytest.raises(SystemExit, match="results_wmt19.py"):
        results_doc.write_sections(doc, "tools/make_results.py", {"wmt19": ["x"]})
    assert doc.read_text(encoding="utf-8") == _template()


def test_a_missing_marker_is_an_error_and_the_file_is_kept(tmp_path):
    doc = tmp_path / "RESULTS.md"
    doc.write_text("# only hand-written text\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="text-families"):
        results_doc.write_sections(doc, "tools/make_results.py", {"text-families": ["x"]})
    assert doc.read_text(encoding="utf-8") == "# only hand-written text\n"


def test_every_section_of_results_md_has_one_generator_and_one_block():
    text = (ROOT / "RESULTS.md").read_text(encoding="utf-8")
    for name in results_doc.SECTIONS:
        assert text.count(results_doc.begin(name)) == 1, name
        assert text.count(results_doc.end(name)) == 1, name
    starts = [ln for ln in text.splitlines() if ln.startswith("<!-- generated:")]
    assert len(starts) == len(results_doc.SECTIONS)
    for script in set(results_doc.SECTIONS.values()):
        assert (ROOT / script).is_file(), script


def test_make_results_runs_every_generator_once():
    """``make results`` runs each script that owns a section, once, writing RESULTS.md."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = text.split("\nresults: setup\n", 1)[1].split("\n\n", 1)[0]
    for script in set(results_doc.SECTIONS.values()):
        module = "tools." + Path(script).stem
        assert recipe.count(f" -m {module} ") == 1, module
    assert len(re.findall(r"--(?:out|results) RESULTS\.md\b", recipe)) == len(
        set(results_doc.SECTIONS.values()))
