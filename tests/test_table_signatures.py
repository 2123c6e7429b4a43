"""The score-table cache (``--tables``) never serves a column computed under another signature
than the one today's code gives: another definition (``def:N``), library version, labeller or
annotator. Its files are written and locked without following planted symlinks."""

from __future__ import annotations

import os

import numpy as np
import pytest

from mtstrata.meta.table_cache import cached_table, load_table, save_table, table_path
from mtstrata.metrics.lexical.wer import WER
from tests.test_combine_cli import _corpus


def _calls():
    calls: list[list[str]] = []
    return calls, (lambda lp, todo: calls.append(list(todo)))


def test_a_definition_change_recomputes_not_a_stale_hit(tmp_path, monkeypatch):
    d = _corpus(tmp_path)
    first = cached_table(d, ["wer", "chrf"], tmp_path / "c")
    assert "|def:1|" in first.signatures["wer"]
    calls, note = _calls()
    cached_table(d, ["wer", "chrf"], tmp_path / "c", on_compute=note)
    assert calls == []  # same code: served from the cache
    monkeypatch.setattr(WER, "definition", 2)
    again = cached_table(d, ["wer", "chrf"], tmp_path / "c", on_compute=note)
    assert calls == [["wer"]]  # only the changed metric
    assert "|def:2|" in again.signatures["wer"]
    assert "|def:2|" in load_table(table_path(tmp_path / "c", d)).signatures["wer"]


def test_a_library_version_change_recomputes(tmp_path, monkeypatch):
    from mtstrata import signature

    d = _corpus(tmp_path)
    cached_table(d, ["chrf", "wer"], tmp_path / "c")
    real = signature.library_version
    monkeypatch.setattr(signature, "library_version",
                        lambda lib: "0.0.1" if lib == "sacrebleu" else real(lib))
    calls, note = _calls()
    t = cached_table(d, ["chrf", "wer"], tmp_path / "c", on_compute=note)
    assert calls == [["chrf", "wer"]]  # both name sacrebleu's version in their signatures
    assert "sacrebleu:0.0.1" in t.signatures["chrf"]


def test_tables_store_run_signatures(tmp_path):
    """nrefs (and ann for annotated metrics) are part of what a column is keyed by."""
    d = _corpus(tmp_path)
    t = cached_table(d, ["wer"], tmp_path / "c")
    assert "|nrefs:1|" in t.signatures["wer"]
    (d / "ref.2.txt").write_text((d / "ref.txt").read_text())
    calls, note = _calls()
    t2 = cached_table(d, ["wer"], tmp_path / "c", on_compute=note)
    assert calls == [["wer"]] and "|nrefs:2|" in t2.signatures["wer"]


def test_a_table_without_signatures_is_recomputed(tmp_path):
    d = _corpus(tmp_path)
    t = cached_table(d, ["wer"], tmp_path / "c")
    t.signatures.clear()  # as tables of older versions were written
    save_table(t, table_path(tmp_path / "c", d))
    calls, note = _calls()
    cached_table(d, ["wer"], tmp_path / "c", on_compute=note)
    assert calls == [["wer"]]


def test_another_runs_column_of_another_signature_is_not_served(tmp_path, monkeypatch):
    """A column another run stores meanwhile under another signature is not what we return."""
    from mtstrata.meta import table_cache as tmod

    d = _corpus(tmp_path)
    path = table_path(tmp_path / "c", d)
    cached_table(d, ["wer"], tmp_path / "c")
    real = tmod._cached

    seen: list[int] = []

    def racing(p, corpus):  # another run rewrote wer under another signature meanwhile
        t = real(p, corpus)
        seen.append(1)
        if len(seen) > 1:  # the re-read under the lock, before the merge
            t.sys_scores["wer"] = t.sys_scores["wer"] + 1
            t.signatures["wer"] = "WER|other"
        return t

    want = cached_table(d, ["wer"], tmp_path / "c").sys_scores["wer"].copy()
    monkeypatch.setattr(tmod, "_cached", racing)
    got = cached_table(d, ["wer", "per"], tmp_path / "c")
    np.testing.assert_array_equal(got.sys_scores["wer"], want)
    assert load_table(path).signatures["wer"] != "WER|other"


def test_a_labeller_change_recomputes(tmp_path, monkeypatch):
    from mtstrata.layers import AnnotationOptions

    d = _corpus(tmp_path)
    monkeypatch.setenv("MTSTRATA_CACHE", str(tmp_path / "ann.sqlite"))
    rules = AnnotationOptions(labeller="rules", quiet=True)
    learned = AnnotationOptions(labeller="learned", quiet=True)
    t = cached_table(d, ["SR-Or(*)"], tmp_path / "c", rules)
    assert "+srl-rules" in t.signatures["SR-Or(*)"]
    calls, note = _calls()
    t2 = cached_table(d, ["SR-Or(*)"], tmp_path / "c", learned, on_compute=note)
    assert calls == [["SR-Or(*)"]] and "+srl-learned" in t2.signatures["SR-Or(*)"]
    cached_table(d, ["SR-Or(*)"], tmp_path / "c", learned, on_compute=note)
    assert calls == [["SR-Or(*)"]]  # a hit under the same labeller


def test_planted_symlinks_are_never_followed(tmp_path):
    d = _corpus(tmp_path)
    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    path = table_path(cache, d)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    os.symlink(victim, path)  # a planted table file
    with pytest.warns(UserWarning, match="not a regular file"):
        cached_table(d, ["wer"], cache)
    assert victim.read_text() == "keep me"
    assert path.is_file() and not path.is_symlink()
    load_table(path)
    # a planted lock file: refused, the target untouched
    lock = path.with_name(path.name + ".lock")
    lock.unlink()
    os.symlink(victim, lock)
    from mtstrata.errors import InputError

    with pytest.raises(InputError, match="lock file"):
        cached_table(d, ["per"], cache)
    assert victim.read_text() == "keep me"
    # temporary files have unpredictable names: none is left, none is named after the table
    assert sorted(p.name for p in cache.iterdir()) == sorted([path.name, lock.name])


def test_an_annotator_conversion_version_change_recomputes(tmp_path, monkeypatch):
    """What produced a metric's layers (the plan's signature: annotator, its own conversion
    version, labeller) keys its column: a new conversion version is never served old scores."""
    from mtstrata.layers import AnnotationOptions, Plan

    d = _corpus(tmp_path)
    opts = AnnotationOptions(cache=str(tmp_path / "ann.sqlite"), quiet=True)
    t = cached_table(d, ["DP-Ld", "wer"], tmp_path / "c", opts)
    assert "|ann:spacy-" in t.signatures["DP-Ld"] and "|ann:" not in t.signatures["wer"]
    real = Plan.signature
    monkeypatch.setattr(Plan, "signature", lambda self, layers=None: real(self, layers) + ".v9")
    calls, note = _calls()
    t2 = cached_table(d, ["DP-Ld", "wer"], tmp_path / "c", opts, on_compute=note)
    assert calls == [["DP-Ld"]]  # the text metric is still served
    assert ".v9|" in t2.signatures["DP-Ld"]
