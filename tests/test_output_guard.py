"""One guard for every path mtstrata writes or opens as a database (issue 35 item 2): regular
files only (or a new file), never an input of the same run (resolved through symlinks and hard
links), never the same file written twice under two names, never a device or FIFO (refused by
``stat``, before anything is opened)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mtstrata.cli import main
from mtstrata.errors import InputError
from mtstrata.output import atomic_write, check_database, check_output_path, note_input, run_scope


def _files(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\na dog barks\n")
    hyp = tmp_path / "sysA.txt"
    hyp.write_text("the cat sat on a mat\na dog barked\n")
    return ref, hyp


def test_an_input_of_the_run_is_never_an_output(tmp_path):
    ref, _ = _files(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path)
    os.link(ref, tmp_path / "hard.txt")
    with run_scope():
        note_input(ref)
        for p in (ref, tmp_path / "link" / "ref.txt", tmp_path / "hard.txt",
                  tmp_path / "sub" / ".." / "ref.txt"):
            with pytest.raises(InputError, match="is an input of this run"):
                check_output_path(p)
        check_output_path(tmp_path / "other.txt")  # a new file is fine
    check_output_path(ref)  # outside a run nothing is recorded: the Python API may rewrite


def test_one_file_is_not_written_twice_under_two_names(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "d")
    with run_scope():
        atomic_write(tmp_path / "d" / "page.html", "page")
        atomic_write(tmp_path / "d" / "page.html", "page again")  # the same name: a rewrite
        with pytest.raises(InputError, match="already written as"):
            atomic_write(tmp_path / "link" / "page.html", "json")
    assert (tmp_path / "d" / "page.html").read_text() == "page again"


@pytest.mark.parametrize("option", ["--out", "--json"])
def test_report_never_overwrites_its_own_inputs(tmp_path, capsys, monkeypatch, option):
    """Refused as the input is read, before the report is computed (the output was checked
    first: reading it is refused)."""
    import mtstrata.report

    def no_work(*a, **k):
        raise AssertionError("the report was computed")

    monkeypatch.setattr(mtstrata.report, "build_report", no_work)
    ref, hyp = _files(tmp_path)
    src = tmp_path / "src.txt"
    src.write_text("die Katze\nein Hund\n")
    (tmp_path / "link").symlink_to(tmp_path)
    for victim in (ref, hyp, src, tmp_path / "link" / "ref.txt"):
        before = {p: p.read_bytes() for p in (ref, hyp, src)}
        argv = ["report", "-r", str(ref), "-i", str(hyp), "-s", str(src), "-m", "BLEU",
                "--quiet", "--out", str(tmp_path / "page.html")]
        if option == "--out":
            argv[-1] = str(victim)
        else:
            argv += ["--json", str(victim)]
        rc = main(argv)
        err = capsys.readouterr().err
        assert rc == 2, err
        assert "is also this run's output" in err and "Traceback" not in err
        assert {p: p.read_bytes() for p in (ref, hyp, src)} == before


def test_report_out_and_json_through_a_symlinked_directory(tmp_path, capsys):
    ref, hyp = _files(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "d")
    rc = main(["report", "-r", str(ref), "-i", str(hyp), "-m", "BLEU", "--quiet",
               "--out", str(tmp_path / "d" / "x"), "--json", str(tmp_path / "link" / "x")])
    err = capsys.readouterr().err
    assert rc == 2 and "of this run's output" in err and "Traceback" not in err
    assert not (tmp_path / "d" / "x").exists()  # refused before the work


@pytest.mark.parametrize("kind", ["fifo", "chardev", "side-fifo", "side-symlink"])
def test_a_cache_that_is_no_regular_file_is_refused_before_opening(tmp_path, kind):
    p = tmp_path / "c.sqlite"
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "chardev":
        p = "/dev/null"
    elif kind == "side-fifo":
        os.mkfifo(f"{p}-wal")
    else:
        (tmp_path / "victim").write_text("keep")
        os.symlink(tmp_path / "victim", f"{p}-journal")
    with pytest.raises(InputError, match="FIFO|device|symbolic link"):
        check_database(p)
    assert (tmp_path / "victim").read_text() == "keep" if kind == "side-symlink" else True


@pytest.mark.parametrize("env", [False, True])
def test_cli_cache_on_a_fifo_or_device_exits_2_at_once(tmp_path, env):
    """A FIFO blocked for ever (SIGTERM did not end it), a device got an SQLite header and
    was renamed: both are refused by stat, exit 2, the node untouched."""
    ref, hyp = _files(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for node in (str(fifo), "/dev/null"):
        before = os.stat(node)
        opt = [] if env else ["--cache", node]
        envs = {**os.environ, "MTSTRATA_CACHE": node} if env else dict(os.environ)
        r = subprocess.run([sys.executable, "-m", "mtstrata", "score", "-r", str(ref), "-i",
                            str(hyp), "-m", "DP-HWCM_w-2", *opt], capture_output=True,
                           text=True, timeout=300, env=envs)
        assert r.returncode == 2, r.stderr
        assert "Traceback" not in r.stderr and node in r.stderr
        after = os.stat(node)
        assert (after.st_ino, after.st_mode, after.st_rdev) == (
            before.st_ino, before.st_mode, before.st_rdev)
    assert sorted(q.name for q in tmp_path.iterdir()) == ["fifo", "ref.txt", "sysA.txt"]


def test_the_cache_is_an_input_and_may_be_reopened(tmp_path):
    p = tmp_path / "c.sqlite"
    with run_scope():
        check_database(p)
        p.write_bytes(b"")
        check_database(p)  # opened again in the same run
        with pytest.raises(InputError, match="input of this run"):
            check_output_path(p)


def test_a_set_file_read_by_the_run_is_not_its_output(tmp_path):
    from mtstrata.metrics.setfile import read_set_file

    s = tmp_path / "set.json"
    s.write_text('{"metrics": []}')
    with run_scope():
        read_set_file(s)
        with pytest.raises(InputError, match="input of this run"):
            check_output_path(s)
    os.mkfifo(tmp_path / "fifo.json")
    with pytest.raises(InputError, match="not a regular file"):
        read_set_file(tmp_path / "fifo.json")


def test_a_cache_linked_to_nothing_is_not_created_through_the_link(tmp_path):
    p = tmp_path / "c.sqlite"
    p.symlink_to(tmp_path / "elsewhere" / "target.sqlite")
    with pytest.raises(InputError, match="does not exist"):
        check_database(p)
    target = tmp_path / "t.sqlite"
    target.write_bytes(b"")
    q = tmp_path / "ok.sqlite"
    q.symlink_to(target)
    check_database(q)  # a link to a regular file may be the cache


def test_search_out_naming_a_data_file_is_refused_before_the_work(tmp_path, capsys):
    from tests.test_limits import _pair

    _pair(tmp_path / "ds" / "xx-en", seg=True)
    _pair(tmp_path / "ds" / "yy-en", seg=True)
    victim = tmp_path / "ds" / "xx-en" / "sys_scores.tsv"
    before = victim.read_bytes()
    rc = main(["search", "--data", str(tmp_path / "ds" / "xx-en"), str(tmp_path / "ds" / "yy-en"),
               "-m", "bleu", "chrf", "--out", str(victim), "--tables", str(tmp_path / "t"), "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and "is also this run's output" in err
    assert victim.read_bytes() == before
    assert not (tmp_path / "t").exists() or not any((tmp_path / "t").iterdir())


@pytest.mark.parametrize("fresh", [False, True])
def test_search_out_naming_one_of_the_runs_score_tables_is_refused(tmp_path, capsys, fresh):
    """Issue 48 item 5: the guard knows every file a run reads, score tables included, and a
    table not computed yet (it would be written, then replaced by the set)."""
    from tests.test_limits import _pair

    pairs = [tmp_path / "ds" / lp for lp in ("xx-en", "yy-en")]
    for d in pairs:
        _pair(d, seg=True)
    t = tmp_path / "t"
    t.mkdir()
    args = ["search", "--data", *map(str, pairs), "-m", "bleu", "chrf", "--tables", str(t), "-q"]
    if not fresh:
        assert main([*args, "--out", str(tmp_path / "first.json")]) == 0
    table = t / "ds__xx-en.npz"
    before = table.read_bytes() if table.exists() else None
    rc = main([*args, "--out", str(table)])
    err = capsys.readouterr().err
    assert rc == 2 and "is also this run's output" in err and "Traceback" not in err
    assert (table.read_bytes() if table.exists() else None) == before


def test_a_table_replaced_by_other_bytes_is_recomputed_without_numpys_advice(tmp_path, capsys):
    from tests.test_limits import _pair

    d = tmp_path / "ds" / "xx-en"
    _pair(d, seg=True)
    t = tmp_path / "t"
    args = ["meta", "--data", str(d), "-m", "wer", "--tables", str(t), "--bootstrap", "0"]
    assert main(args) == 0
    table = t / "ds__xx-en.npz"
    table.write_text('{"ulc": []}')  # what a set written over it would leave
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "not an .npz archive" in err and "allow_pickle" not in err
    assert table.read_bytes()[:2] == b"PK"  # rewritten as a table


def test_a_temporary_file_is_the_file_just_created_and_an_output_of_the_run(tmp_path):
    from mtstrata.output import RUN, temporary

    (tmp_path / "x.npz").symlink_to(tmp_path / "victim")
    with run_scope():
        fd, tmp = temporary(tmp_path / "x.npz")
        os.close(fd)
        st = os.lstat(tmp)
        assert os.path.dirname(tmp) == str(tmp_path) and os.path.basename(tmp) != "x.npz"
        assert st.st_mode & 0o777 == 0o600 and os.path.isfile(tmp) and not os.path.islink(tmp)
        assert os.path.realpath(tmp) in RUN.outputs
    assert not (tmp_path / "victim").exists()


def test_score_mtme_never_merges_into_one_of_its_inputs_and_says_so_before_the_work(
        tmp_path, capsys, monkeypatch):
    ref, hyp = _files(tmp_path)
    out = tmp_path / "out"
    assert main(["score", "-r", str(ref), "-i", str(hyp), "-m", "chrf", "-f", "mtme", "--out",
                 str(out), "--lp", "de-en", "-q"]) == 0
    capsys.readouterr()
    seg = next((out / "de-en").glob("*.seg.score"))
    before = seg.read_bytes()
    from mtstrata import scoring

    def no_work(*a, **k):
        raise AssertionError("scored before the outputs were checked")
    monkeypatch.setattr(scoring, "compute", no_work)
    rc = main(["score", "-r", str(ref), "-i", str(hyp), str(seg), "-m", "chrf", "-f", "mtme",
               "--out", str(out), "--lp", "de-en", "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and "is an input of this run" in err and "internal error" not in err
    assert seg.read_bytes() == before
