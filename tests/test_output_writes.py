"""Outputs are written only to regular files (issue 27): a symlink, FIFO, directory or device
at the output path is refused with exit 2 and left as it was; the temporary file is never
opened through a planted symlink; a failed write keeps the original."""

from __future__ import annotations

import os
import tempfile

import pytest

from mtstrata.cli import main
from mtstrata.errors import InputError
from mtstrata.output import atomic_write, check_output_path


def _plant(tmp_path, kind):
    p = tmp_path / "out.html"
    if kind == "symlink":
        target = tmp_path / "victim.txt"
        target.write_text("keep me")
        p.symlink_to(target)
    elif kind == "dangling symlink":
        p.symlink_to(tmp_path / "nowhere.txt")
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "directory":
        p.mkdir()
    return p


@pytest.mark.parametrize("kind", ["symlink", "dangling symlink", "fifo", "directory"])
def test_atomic_write_refuses_what_is_not_a_regular_file(tmp_path, kind):
    p = _plant(tmp_path, kind)
    before = os.lstat(p)
    with pytest.raises(InputError, match="regular file"):
        atomic_write(p, "text")
    after = os.lstat(p)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    if kind == "symlink":
        assert (tmp_path / "victim.txt").read_text() == "keep me"
    assert [q.name for q in tmp_path.iterdir() if q.name.endswith(".tmp")] == []


def test_atomic_write_refuses_a_device():
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    with pytest.raises(InputError, match="a device"):
        check_output_path("/dev/null")


def test_atomic_write_replaces_a_regular_file_and_writes_bytes(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("old")
    atomic_write(p, "new")
    assert p.read_text() == "new"
    atomic_write(p, b"\x00\x01")
    assert p.read_bytes() == b"\x00\x01"


def test_the_temporary_name_is_unpredictable_and_never_follows_a_symlink(tmp_path, monkeypatch):
    """Plant symlinks at every name the old predictable scheme would use: nothing is written
    through them (mkstemp opens with O_EXCL and retries another random name)."""
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    names = []
    real = tempfile.mkstemp

    def spy(*a, **k):
        fd, name = real(*a, **k)
        names.append(name)
        return fd, name
    monkeypatch.setattr(tempfile, "mkstemp", spy)
    p = tmp_path / "out.json"
    for i in range(5):
        (tmp_path / f".out.json.{i}.tmp").symlink_to(victim)
    atomic_write(p, "x")
    atomic_write(p, "y")
    assert victim.read_text() == "keep me" and p.read_text() == "y"
    assert len(set(names)) == 2 and not any(os.path.islink(n) for n in names)


def test_a_failed_write_keeps_the_original(tmp_path, monkeypatch):
    p = tmp_path / "a.txt"
    p.write_text("original")

    def boom(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="a.txt"):
        atomic_write(p, "new")
    assert p.read_text() == "original"
    assert sorted(q.name for q in tmp_path.iterdir()) == ["a.txt"]


def _sys_files(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\na dog\n")
    hyp = tmp_path / "sysA.txt"
    hyp.write_text("the cat sat on a mat\na dog\n")
    return ref, hyp


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_report_out_refuses_a_planted_path(tmp_path, capsys, kind):
    ref, hyp = _sys_files(tmp_path)
    p = _plant(tmp_path, kind)
    before = os.lstat(p)
    rc = main(["report", "-r", str(ref), "-i", str(hyp), "-m", "BLEU", "--out", str(p)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "regular file" in err
    assert os.lstat(p).st_ino == before.st_ino


def test_the_wordnet_copy_never_writes_through_a_planted_symlink(tmp_path, monkeypatch):
    """`mtstrata models --install` copied WordNet through '.NAME.<pid>.tmp', a predictable
    name: a symlink planted there had the copy written into its target."""
    from mtstrata.commands import _install

    if not (_install.WORDNET_SRC / "data.noun").is_file():
        pytest.skip("the Debian WordNet files are not installed")
    monkeypatch.setenv("MTSTRATA_NLTK_DATA", str(tmp_path / "nltk"))
    dest = tmp_path / "nltk" / "corpora" / "wordnet"
    dest.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    for name in ("data.noun", "lexnames"):
        (dest / f".{name}.{os.getpid()}.tmp").symlink_to(victim)
    assert _install.install_wordnet_copy(lambda *_: None)
    assert victim.read_text() == "keep me"
    assert (dest / "data.noun").read_bytes() == (_install.WORDNET_SRC / "data.noun").read_bytes()
