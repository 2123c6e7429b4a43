"""Fuzz and determinism tests of the surface new in issue 35 (item 8): hand-edited set files,
cache rows, output paths among the run's own inputs, plugin names, and standard streams. Each
property says what mtstrata does with any input: exit 0 or 2 with no traceback, a miss instead
of a crash or a number, an input never replaced, a built-in name never taken by a plugin."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mtstrata.cache import Cache
from mtstrata.errors import InputError
from mtstrata.metrics.setfile import load_set
from mtstrata.segment import Layer
from tests.test_fuzz_cli import _run, fuzz

ROOT = Path(__file__).resolve().parents[1]
ULC = json.loads((ROOT / "mtstrata" / "data" / "sets" / "ULC-lex.json").read_text())
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 10**20), st.floats(allow_nan=False),
              st.text(max_size=6)),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids,
                                                              max_size=4), max_leaves=12)


@st.composite
def edited_set(draw: st.DrawFn) -> dict:
    """ULC-lex with one to three hand edits: a key renamed, a value replaced, a member
    duplicated or respelt, a direction flipped."""
    d = copy.deepcopy(ULC)
    for _ in range(draw(st.integers(1, 3))):
        level = draw(st.sampled_from(["ulc", "ulc_sys"]))
        edit = draw(st.sampled_from(["rename", "value", "dup", "respell", "flip", "member"]))
        members = d.get(level)
        if not isinstance(members, list) or not members:
            continue
        i = draw(st.integers(0, len(members) - 1))
        if edit == "rename":
            k = draw(st.sampled_from(sorted(d)))
            d[draw(st.sampled_from([k + "s", k[:-1], k.upper(), "ulc_sy", "norms"]))] = d.pop(k)
        elif edit == "value" and isinstance(members[i], dict):
            members[i][draw(st.sampled_from(["metric", "low", "high", "higher_is_better",
                                             "extra"]))] = draw(json_values)
        elif edit == "dup":
            members.append(copy.deepcopy(members[i]))
        elif edit == "respell" and isinstance(members[i], dict):
            members.append({**members[i], "metric": draw(st.sampled_from(
                ["rouge-l", "CHRF:beta=1,char_order=2", "chrf:char_order=2,beta=1.0"]))})
        elif edit == "flip" and isinstance(members[i], dict):
            members[i]["higher_is_better"] = not members[i].get("higher_is_better", True)
        else:
            members[i] = draw(json_values)
    return d


@fuzz(60)
@given(data=edited_set())
def test_an_edited_set_loads_or_is_refused(tmp_path_factory, capsys, data):
    d = tmp_path_factory.mktemp("set")
    p = d / "set.json"
    p.write_text(json.dumps(data))
    try:
        combiner, _ = load_set(p)
    except InputError:
        combiner = None
    ref = d / "ref.txt"
    ref.write_text("the cat sat on the mat\na dog\n")
    rc, _ = _run(capsys, ["score", "-r", str(ref), "-i", str(ref), "-m", f"ulc:{p}", "-q"])
    assert rc == (2 if combiner is None else 0)
    if combiner is not None:  # what loads combines each metric once, in its own direction
        from mtstrata.metrics import create

        sigs = [create(m).signature() for m in combiner.metrics]
        assert len(set(sigs)) == len(sigs)


ROWS = {Layer.TOKENS: "t1", Layer.POS: "p1", Layer.DEP: "d1"}


@fuzz(120)
@given(rows=st.fixed_dictionaries({k: st.one_of(json_values.map(json.dumps), st.binary(
    max_size=30), st.just("[" * 5000 + "]" * 5000)) for k in ROWS}))
def test_any_cache_row_is_a_segment_or_a_miss(tmp_path_factory, rows):
    with Cache(tmp_path_factory.mktemp("c") / "c.sqlite") as c:
        c.put_layers(ROWS, [("a cat", rows)])
        got = c.get_many(ROWS, ["a cat"])
    for seg in got.values():  # what is served is a consistent segment of well-typed tokens
        assert seg.is_consistent()
        assert all(isinstance(t.form, str) and (t.head is None or type(t.head) is int)
                   for t in seg.tokens)


@fuzz(40)
@given(data=st.data())
def test_no_output_ever_replaces_an_input(tmp_path_factory, capsys, data):
    """--out/--json among the run's inputs, reached directly, through a symlinked directory or
    a hard link: refused (exit 2) or written elsewhere; the inputs keep their bytes."""
    d = tmp_path_factory.mktemp("o")
    (d / "in").mkdir()
    ref, hyp, src = d / "in" / "ref.txt", d / "in" / "sys.txt", d / "in" / "src.txt"
    ref.write_text("the cat sat on the mat\na dog\n")
    hyp.write_text("the cat sat on a mat\na dog\n")
    src.write_text("die Katze\nein Hund\n")
    (d / "link").symlink_to(d / "in")
    os.link(ref, d / "hard.txt")
    targets = [str(ref), str(hyp), str(src), str(d / "link" / "ref.txt"), str(d / "hard.txt"),
               str(d / "link" / "sys.txt"), str(d / "out.html")]
    before = {p: p.read_bytes() for p in (ref, hyp, src)}
    command = data.draw(st.sampled_from(["report", "score"]))
    if command == "report":
        argv = ["report", "-r", str(ref), "-i", str(hyp), "-s", str(src), "-m", "bleu", "-q",
                "--out", data.draw(st.sampled_from(targets)), "-n", "10"]
        if data.draw(st.booleans()):
            argv += ["--json", data.draw(st.sampled_from([*targets, str(d / "link" / "x")]))]
    else:
        argv = ["score", "-r", str(ref), "-i", str(hyp), "-m", "bleu", "-f", "mtme", "--lp",
                "de-en", "--out", data.draw(st.sampled_from([str(d / "in"), str(d / "link"),
                                                             str(d / "m")])), "-q"]
    _run(capsys, argv)
    assert {p: p.read_bytes() for p in before} == before


BUILTIN = ["bleu", "BLEU", "chrF", "ter", "SP-Op(*)", "sp-op(nn)", "DP-HWCM_r-4",
           "DP-HWCM_W-2", "GTM-2", "ULC", "EMB-F", "NE-Oe(**)", "Ol"]


@fuzz(40)
@given(name=st.one_of(st.sampled_from(BUILTIN), st.text(st.characters(
    whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters="-_()*"), min_size=1,
    max_size=10)))
def test_a_plugin_may_register_a_name_iff_no_built_in_answers_to_it(name):
    from mtstrata import plugins
    from mtstrata.errors import UnknownNameError
    from mtstrata.metrics import REGISTRY

    try:
        REGISTRY.lookup(name)
        taken = True
    except UnknownNameError:
        taken = False
    except Exception:  # noqa: BLE001 - a name the lookup cannot even parse: not ours either
        taken = False
    plugin = plugins.Plugin("mtstrata.metrics", "x", "fuzzplug", "fuzz-dist", "1")
    key = name.lower()
    try:
        with plugins.loading(plugin):
            REGISTRY.add(name, object)
        registered = True
    except plugins.PluginError as e:
        registered = False
        assert "fuzz-dist 1" in str(e)
    finally:
        if plugins.OWNERS.get(("metric", key)) == plugin:
            REGISTRY._exact.pop(key, None)
            plugins.OWNERS.pop(("metric", key))
        plugins.LOADED.remove(plugin)
    assert registered == (not taken), name


STREAMS = ["2>&-", ">&-", "2>/dev/full", ">/dev/full", "2>&- >&-"]
COMMANDS = [["score", "-r", "REF", "-i", "REF", "-m", "bleu", "-f", "json"],
            ["list", "metrics"], ["score", "-r", "absent.txt", "-i", "REF", "-m", "bleu"],
            ["compare", "-r", "REF", "-i", "REF", "HYP", "-b", "ref", "-m", "bleu", "-n", "10"]]


@pytest.mark.parametrize("redirect", STREAMS)
@pytest.mark.parametrize("command", range(len(COMMANDS)))
def test_standard_streams_give_documented_exit_codes(tmp_path, redirect, command):
    if "/dev/full" in redirect and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\na dog\n")
    hyp.write_text("the cat sat on a mat\na dog\n")
    args = [str(ref) if a == "REF" else str(hyp) if a == "HYP" else a for a in COMMANDS[command]]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MTSTRATA_CACHE": str(tmp_path / "c.sqlite")}
    r = subprocess.run(['sh', '-c', f'exec "$0" -m mtstrata "$@" {redirect}', sys.executable,
                        *args], capture_output=True, env=env, cwd=tmp_path, timeout=300,
                       check=False)
    fails = "absent" in " ".join(args)
    stdout_lost = ">&-" in redirect.replace("2>&-", "") or ">/dev/full" in redirect.replace(
        "2>/dev/full", "")
    assert r.returncode == (2 if fails or stdout_lost else 0), (r.returncode, r.stderr)
    assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr
    assert b"mtstrata:" not in r.stdout  # nothing of stderr's ever on stdout


@st.composite
def segments(draw: st.DrawFn):
    from mtstrata.segment import Frame, Segment, Span, Token

    text = st.text(max_size=6)
    opt = st.one_of(st.none(), text)
    n = draw(st.integers(0, 5))
    toks = tuple(Token(draw(text), draw(opt), draw(opt), draw(opt),
                       draw(st.one_of(st.none(), st.integers(0, n))), draw(opt)) for _ in range(n))
    span = st.builds(Span, st.integers(0, n), st.integers(0, n), text)
    return Segment(text="x", tokens=toks, entities=tuple(draw(st.lists(span, max_size=2))),
                   chunks=tuple(draw(st.lists(span, max_size=2))),
                   frames=tuple(Frame(draw(st.integers(0, max(n - 1, 0))),
                                      tuple(draw(st.lists(span, max_size=2))))
                                for _ in range(draw(st.integers(0, 2)))),
                   sent_starts=tuple(draw(st.lists(st.integers(0, n), min_size=1, max_size=2))))


@fuzz(200)
@given(seg=segments(), sentences_from=st.sampled_from([Layer.DEP, Layer.TOKENS]))
def test_every_row_mtstrata_writes_is_read_back(seg, sentences_from):
    """valid_row (the check of rows read back) accepts whatever layer_payloads writes: a
    well-formed row is never a miss, whatever its text (quotes, backslashes, any character)."""
    from mtstrata.payloads import layer_payloads, valid_row

    rows = layer_payloads(seg, [x for x in Layer if x is not Layer.EMB], sentences_from)
    assert all(valid_row(layer, v) for layer, v in rows.items()), rows


# ---------------------------------------------------------------- issue 48 (item 8)
#: the edits of a set with an external member: how the member is spelt, what the record says,
#: what is beside the set file, where the run is started
EXT_EDITS = ["none", "respell", "twice", "drop_sig", "garbage_sig", "drop_files",
             "wrong_sha", "edit_file", "nested", "cwd_decoy", "moved"]


@pytest.fixture(scope="module")
def ext_world(tmp_path_factory):
    """Two pairs and the score files of metric M (following the humans) for both."""
    from mtstrata.meta.mtme import write_scores
    from tests.test_combine_cli import HUMAN, SYSTEMS, _corpus

    root = tmp_path_factory.mktemp("extset")
    data = [str(_corpus(root / "data", lp)) for lp in ("de-en", "fi-en")]

    def files(where, sign):
        for lp in ("de-en", "fi-en"):
            seg = {s: [sign * HUMAN[s] + 0.01 * i for i in range(6)] for s in SYSTEMS}
            write_scores(where, lp, "M", "refA", seg, {s: sign * HUMAN[s] for s in SYSTEMS})
    return data, files


@fuzz(25)
@given(edits=st.lists(st.sampled_from(EXT_EDITS), min_size=1, max_size=3, unique=True),
       spelling=st.sampled_from(["EXT:ext/M", " ext:ext/M", "ext:./ext/M/", "Ext:ext//M"]))
def test_a_set_with_an_external_member_gives_its_fitted_number_or_is_refused(
        ext_world, tmp_path_factory, capsys, monkeypatch, edits, spelling):
    """Item 1: whatever is done to the set, its record, its files or the working directory,
    meta gives the number the set was fitted to give (system Pearson 1) or exit 2."""
    import shutil

    from mtstrata.metrics.members import set_record
    from mtstrata.metrics.setfile import MetricSet, Norm

    data, files = ext_world
    d = tmp_path_factory.mktemp("s")
    files(d / "fitted" / "ext", 1.0)
    files(d / "decoy" / "ext", -1.0)
    monkeypatch.chdir(d / "fitted")
    MetricSet((Norm("ext:ext/M", -1.0, 1.0),), provenance=set_record(
        ["ext:ext/M"], {}, ["de-en", "fi-en"])).save(d / "fitted" / "set.json")
    path = d / "fitted" / "set.json"
    doc = json.loads(path.read_text())
    prov, member = doc["provenance"], doc["ulc"][0]
    for e in edits:
        if e == "respell":
            member["metric"] = spelling
            prov["signatures"][spelling] = prov["signatures"].pop("ext:ext/M", "EXT|name:M")
            prov["external"][spelling] = prov["external"].pop("ext:ext/M", {})
        elif e == "twice":
            doc["ulc"].append({**member, "metric": spelling})
        elif e == "drop_sig":
            prov["signatures"].clear()
        elif e == "garbage_sig":
            prov["signatures"] = {k: "x|y" for k in prov["signatures"]}
        elif e == "drop_files":
            prov.pop("external", None)
        elif e == "wrong_sha":
            for rec in prov.get("external", {}).values():
                rec.get("fi-en", {})["seg_sha256"] = "0" * 64
        elif e == "edit_file":
            f = d / "fitted" / "ext" / "de-en" / "M-refA.seg.score"
            f.write_text(f.read_text().replace("\t0.9", "\t-0.9", 1))
        elif e == "nested":
            doc["ulc"].append({"metric": " ulc-lex", "low": 0.0, "high": 1.0,
                               "higher_is_better": True})
    path.write_text(json.dumps(doc))
    if "moved" in edits:
        shutil.move(str(d / "fitted"), str(d / "elsewhere"))
        path = d / "elsewhere" / "set.json"
    monkeypatch.chdir(d / "decoy" if "cwd_decoy" in edits else d if "moved" in edits
                      else d / "fitted")
    rc, err = _run(capsys, ["meta", "--data", *data, "--ulc", str(path), "--bootstrap", "0",
                            "-f", "json", "-q", "--tables", str(d / "t")])
    out = capsys.readouterr().out if rc == 0 else ""
    damaged = {"drop_sig", "garbage_sig", "drop_files", "wrong_sha", "edit_file", "nested",
               "twice"} & set(edits)
    assert rc == (2 if damaged else 0), (edits, err)
    if rc == 0:
        recs = json.loads(out) if out else []
        assert all(r["value"] == pytest.approx(1.0) for r in recs if r["level"] == "sys"
                   and r["statistic"] == "pearson"), edits


@fuzz(15)
@given(target=st.sampled_from(["table", "other_table", "lock", "data", "new"]),
       primed=st.booleans())
def test_no_output_of_a_run_replaces_a_score_table(tmp_path_factory, capsys, target, primed):
    """Item 5: search --out naming a score table of --tables (computed yet or not), a lock or
    a data file: refused, and every table left a table."""
    from mtstrata.meta.table_cache import load_table
    from tests.test_limits import _pair

    d = tmp_path_factory.mktemp("tb")
    pairs = [d / "ds" / lp for lp in ("xx-en", "yy-en")]
    for p in pairs:
        _pair(p, seg=True)
    t = d / "t"
    t.mkdir()
    args = ["search", "--data", *map(str, pairs), "-m", "chrf", "wer", "--tables", str(t),
            "-q"]
    if primed:
        _run(capsys, [*args, "--out", str(d / "first.json")])
    out = {"table": t / "ds__xx-en.npz", "other_table": t / "ds__yy-en.npz",
           "lock": t / "ds__xx-en.npz.lock", "data": pairs[0] / "sys_scores.tsv",
           "new": d / "set.json"}[target]
    kept = {p: p.read_bytes() for p in [*t.glob("*.npz"), pairs[0] / "sys_scores.tsv"]}
    rc, err = _run(capsys, [*args, "--out", str(out)])
    assert rc == (0 if target in ("new", "lock") else 2), err
    for p in t.glob("*.npz"):
        load_table(p)  # still a table
    assert all(p.read_bytes() == b for p, b in kept.items() if p.suffix != ".npz")
