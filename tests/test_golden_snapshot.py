"""Definitions pinned: every registered metric (and family example, and a few parameter
variants) gives the numbers of ``tests/data/golden_snapshot.json`` on fixed hand-built inputs
(``tests/golden.py``) unless its definition version says it changed.

Fails when (a) a metric's numbers differ from the snapshot while its ``definition`` and
signature are unchanged (bump ``definition``, regenerate, CHANGELOG), (b) a registered metric
has no entry, (c) a ``definition`` changed but the entry was not regenerated. The message names
the command that regenerates the one entry (``python -m tools.update_golden NAME``), which itself
refuses case (a).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mtstrata.errors import ModelError
from tests import golden

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = json.loads(golden.SNAPSHOT.read_text(encoding="utf-8"))["metrics"]
SPECS = golden.specs()


@pytest.mark.parametrize("spec", SPECS)
def test_numbers_match_the_snapshot(spec):
    # an entry whose extra is not installed is skipped and named in the run's summary
    # (tests/conftest.py); where the extra is installed it is always checked
    kind, message = golden.verdict(spec, SNAPSHOT.get(spec), golden.compute_or_skip(spec))
    assert kind in ("same", "refresh"), message


def test_an_entry_is_skipped_only_without_its_extra_and_then_named(monkeypatch):
    def fail(spec):
        raise ModelError("EMB-F needs torch, not installed in this environment.")

    monkeypatch.setattr(golden, "compute", fail)
    monkeypatch.setattr(golden, "UNCHECKED", {})
    monkeypatch.setattr(golden, "missing_extras", lambda: {"emb": ["torch"]})
    with pytest.raises(pytest.skip.Exception, match="EMB-F not checked: EMB-F needs torch"):
        golden.compute_or_skip("EMB-F")
    lines = golden.summary_lines()
    assert "1 golden snapshot entry was NOT checked" in lines[0] and "(emb)" in lines[0]
    assert lines[1] == "  EMB-F: EMB-F needs torch, not installed in this environment."
    # with every extra installed, a model error is a failure, not a skip
    monkeypatch.setattr(golden, "missing_extras", lambda: {})
    monkeypatch.setattr(golden, "UNCHECKED", {})
    with pytest.raises(ModelError):
        golden.compute_or_skip("EMB-F")
    assert golden.summary_lines() == []


def test_the_summary_hook_prints_the_unchecked_entries(monkeypatch):
    from tests import conftest

    monkeypatch.setattr(golden, "UNCHECKED", {"ULC-emb": "EMB-F needs torch"})
    out: list[tuple[str, ...]] = []

    class Reporter:
        def section(self, title, **kw):
            out.append(("section", title))

        def write_line(self, line, **kw):
            out.append(("line", line))

    conftest.pytest_terminal_summary(Reporter())
    assert out[0] == ("section", "golden snapshot")
    assert ("line", "  ULC-emb: EMB-F needs torch") in out


def test_no_stale_entries():
    stale = sorted(set(SNAPSHOT) - set(SPECS))
    assert not stale, (f"golden entries of metrics no longer registered: {stale}; drop them "
                       "with `python -m tools.update_golden --prune`.")


def test_every_registered_name_and_family_is_covered():
    from mtstrata import metrics

    for e in metrics.REGISTRY.entries():
        names = e.examples if e.pattern is not None else (e.name,)
        assert names and all(n in SPECS for n in names), e.name
    for must in ("SP-Op(*)", "DP-HWCM_c-4", "NE-Oe(*)", "SR-Or(*)", "Bllip", "SP-Oc(*)",
                 "EMB-F", "EMB-cos", "ULC", "ULC-lex", "ULC-emb"):
        assert must in SPECS


def test_inputs_cover_the_hard_cases():
    hyps, refs = golden.inputs()
    assert {len(r) for r in refs} == {2}  # multi-reference
    assert any(not h.tokens for h in hyps) and any(not r.tokens for rs in refs for r in rs)
    assert any(len(h.sent_starts) > 1 and sum(t.head == 0 for t in h.tokens) > 1 for h in hyps)
    assert any(len(set(h.words)) < len(h.words) for h in hyps)  # repeated words
    assert any(h in rs for h, rs in zip(hyps, refs, strict=True))  # identity
    assert all(s.entities or s.chunks or not s.tokens for s in hyps)


# --- the checks themselves fail when they should ------------------------------------------

def _entry(spec: str) -> dict:  # type: ignore[type-arg]
    return json.loads(json.dumps(SNAPSHOT[spec]))


def test_a_moved_number_under_the_same_definition_is_refused():
    new = _entry("bleu")
    old = _entry("bleu")
    old["corpus"] = old["corpus"] * (1 + 1e-6)
    kind, message = golden.verdict("bleu", old, new)
    assert kind == "silent"
    assert "bump its `definition`" in message and "tools.update_golden 'bleu'" in message
    assert "CHANGELOG.md" in message and "corpus:" in message


def test_a_bumped_definition_needs_a_regenerated_entry():
    new = _entry("Bllip")
    new["definition"] += 1
    kind, message = golden.verdict("Bllip", _entry("Bllip"), new)
    assert kind == "redefined" and "tools.update_golden 'Bllip'" in message


def test_a_missing_entry_fails():
    kind, message = golden.verdict("NEW", None, _entry("bleu"))
    assert kind == "missing" and "tools.update_golden 'NEW'" in message


def test_numbers_moving_with_the_signature_ask_for_regeneration():
    old = _entry("chrf")
    old["signature"] = old["signature"].replace("sacrebleu:", "sacrebleu:0.")
    old["segments"][0] += 1
    kind, _ = golden.verdict("chrf", old, _entry("chrf"))
    assert kind == "resigned"


def test_the_update_script_refuses_a_silent_change(tmp_path):
    """The script rewrites a stale definition's entry but never refreshes numbers that moved
    under the same definition (the snapshot cannot be silently regenerated)."""
    snap = tmp_path / "golden.json"
    shutil.copy(golden.SNAPSHOT, snap)
    doc = json.loads(snap.read_text())
    doc["metrics"]["wer"]["segments"][1] += 0.5  # as if WER's code had changed
    doc["metrics"]["ter"]["definition"] = 0  # as if TER had been bumped
    snap.write_text(json.dumps(doc))
    before = snap.read_bytes()
    cmd = [sys.executable, "-m", "tools.update_golden", "--snapshot", str(snap)]
    r = subprocess.run([*cmd, "wer", "ter"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "wer: numbers changed while its definition" in r.stderr
    assert snap.read_bytes() == before  # nothing written
    r = subprocess.run([*cmd, "ter"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert json.loads(snap.read_text())["metrics"]["ter"] == SNAPSHOT["ter"]


def test_a_code_mark_does_not_hide_a_silent_change():
    # while code is edited, signatures carry code:HASH (mtstrata.layers.code.code_mark);
    # the snapshot compares signatures without it, so moved numbers are still "silent"
    new = _entry("bleu")
    new["signature"] = golden.bare_signature(
        new["signature"].replace("|def:2|", "|def:2|code:0123456789ab|") + "|version:9")
    old = _entry("bleu")
    old["corpus"] = old["corpus"] * (1 + 1e-6)
    assert golden.verdict("bleu", old, new)[0] == "silent"
