"""Metric sets record the full provenance of each member (its signature with the annotator and
role labeller of its layers, the library and model versions, its definition) and refuse a run
that would compute a member differently, naming both signatures: in ``score``/``compare``
(``-m ulc:SET``) and in ``meta`` (``-m ulc:SET`` and ``--ulc SET`` alike). Set files that
cannot be used say so with exit 2 (extreme bounds, nested or huge numbers, self-references)."""

from __future__ import annotations

import json
import re

import pytest

from mtstrata import metrics
from mtstrata.cli import main
from tests.test_combine_cli import SYSTEMS, _corpus

SRL_MEMBERS = ["chrf", "SR-Or(*)"]


def _search(tmp_path, members, *options):
    dirs = [_corpus(tmp_path, n) for n in ("aa-en", "bb-en")]
    out = tmp_path / "set.json"
    cache = ["--cache", str(tmp_path / "ann.sqlite")]
    assert main(["search", "--data", *map(str, dirs), "-m", *members, "--tables",
                 str(tmp_path / "t"), "--out", str(out), "-q", *cache, *options]) == 0
    return dirs, out, cache


@pytest.fixture(scope="module")
def learned_set(tmp_path_factory):
    """A set with a role member, fitted (by `search --out`) on scores of the learned labeller."""
    tmp = tmp_path_factory.mktemp("learned")
    return _search(tmp, SRL_MEMBERS, "--srl", "learned")


def _score(d, spec, cache, *extra):
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    return main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", spec, "-q", *cache,
                 *extra])


def test_the_set_records_the_labeller_of_its_role_member(learned_set):
    _, path, _ = learned_set
    sigs = json.loads(path.read_text())["provenance"]["signatures"]
    assert sigs and set(sigs) <= set(SRL_MEMBERS)
    for spec, sig in sigs.items():
        assert "|def:" in sig
        assert ("|ann:" in sig and "+srl-" in sig) == (spec == "SR-Or(*)"), sig


@pytest.fixture(scope="module")
def forced_set(learned_set, tmp_path_factory):
    """The learned set with both members kept (a search may drop one), its provenance as
    `search` records it."""
    from mtstrata.metrics.setfile import MetricSet, Norm

    _, path, _ = learned_set
    data = json.loads(path.read_text())
    sigs = data["provenance"]["signatures"]
    if set(sigs) != set(SRL_MEMBERS):
        from mtstrata.layers import AnnotationOptions
        from mtstrata.metrics.provenance import member_signatures

        sigs = member_signatures(SRL_MEMBERS, AnnotationOptions(labeller="learned"))
    ms = MetricSet((Norm("chrf", 0.0, 100.0), Norm("SR-Or(*)", 0.0, 1.0)),
                   provenance={**data["provenance"], "signatures": sigs})
    out = tmp_path_factory.mktemp("forced") / "both.json"
    ms.save(out)
    return learned_set[0], out, learned_set[2]


def test_a_learned_set_is_refused_under_rules(forced_set, capsys):
    dirs, path, cache = forced_set
    assert _score(dirs[0], f"ulc:{path}", cache, "--srl", "learned") == 0
    capsys.readouterr()
    assert _score(dirs[0], f"ulc:{path}", cache, "--srl", "rules") == 2
    err = capsys.readouterr().err
    saved = json.loads(path.read_text())["provenance"]["signatures"]["SR-Or(*)"]
    assert "SR-Or(*)" in err and saved in err and "Traceback" not in err
    have = saved.split("+srl-")[0]
    assert have in err and err.count("+srl-") >= 2  # both labellers named


@pytest.mark.parametrize("how", ["-m", "--ulc"])
def test_meta_checks_members_alike(forced_set, capsys, how):
    dirs, path, cache = forced_set
    spec = f"ulc:{path}" if how == "-m" else str(path)
    base = ["meta", "--data", str(dirs[0]), "--tables", str(path.parent / "t"), "-q",
            "--bootstrap", "0", *cache]
    assert main([*base, how, spec, "--srl", "rules"]) == 2
    err = capsys.readouterr().err
    assert "SR-Or(*)" in err and "+srl-" in err and "Traceback" not in err
    assert main([*base, how, spec, "--srl", "learned"]) == 0
    capsys.readouterr()


def test_meta_ulc_refuses_another_definition(forced_set, tmp_path, capsys):
    dirs, path, cache = forced_set
    data = json.loads(path.read_text())
    data["provenance"]["signatures"]["chrf"] = re.sub(
        r"\|def:\d+\|", "|def:0|", data["provenance"]["signatures"]["chrf"])
    other = tmp_path / "def0.json"
    other.write_text(json.dumps(data))
    for args in (["--ulc", str(other)], ["-m", f"ulc:{other}"]):
        assert main(["meta", "--data", str(dirs[0]), "--tables", str(tmp_path / "t"), "-q",
                     "--bootstrap", "0", *cache, *args]) == 2
        err = capsys.readouterr().err
        assert "def:0 -> def:" in err and "'chrf'" in err


def test_a_library_version_change_is_refused(forced_set, tmp_path):
    _, path, _ = forced_set
    data = json.loads(path.read_text())
    sig = data["provenance"]["signatures"]["chrf"]
    data["provenance"]["signatures"]["chrf"] = sig.replace("sacrebleu:", "sacrebleu:0.")
    other = tmp_path / "lib.json"
    other.write_text(json.dumps(data))
    with pytest.raises(Exception, match="sacrebleu:0"):
        metrics.create(f"ulc:{other}")


def test_another_mtstrata_release_alone_is_accepted(forced_set, tmp_path):
    # definitions and providers carry their own versions: a release that changed neither
    # computes the same numbers
    _, path, _ = forced_set
    data = json.loads(path.read_text())
    sigs = data["provenance"]["signatures"]
    for k, v in sigs.items():
        sigs[k] = v.rsplit("|version:", 1)[0] + "|version:9.9.9"
    other = tmp_path / "release.json"
    other.write_text(json.dumps(data))
    assert metrics.create(f"ulc:{other}").specs == tuple(SRL_MEMBERS)


def test_an_old_set_without_annotator_facts_says_how_to_upgrade(forced_set, tmp_path):
    _, path, _ = forced_set
    data = json.loads(path.read_text())
    sig = data["provenance"]["signatures"]["SR-Or(*)"]
    data["provenance"]["signatures"]["SR-Or(*)"] = (
        re.sub(r"\|def:\d+", "", sig.split("|ann:")[0]) + "|version:0.1.0")
    other = tmp_path / "old.json"
    other.write_text(json.dumps(data))
    with pytest.raises(Exception, match=r"python -m tools\.record_sets SET\.json") as e:
        metrics.create(f"ulc:{other}")
    assert "annotator" in str(e.value) and "SR-Or(*)" in str(e.value)


# --- set files that cannot be used: exit 2 with a clear message (issue 27) -------------------

def _lex_set(tmp_path):
    from mtstrata.metrics.provenance import member_signatures
    from mtstrata.metrics.setfile import MetricSet, Norm

    ms = MetricSet((Norm("chrf", 10.0, 90.0), Norm("wer", 0.0, 2.0, False)),
                   (Norm("chrf", 40.0, 60.0), Norm("wer", 0.4, 0.8, False)),
                   provenance={"signatures": member_signatures(["chrf", "wer"])})
    path = tmp_path / "lex.json"
    ms.save(path)
    return path


def _refused(tmp_path, capsys, path, message):
    d = _corpus(tmp_path / "data")
    runs = [["score", "-r", str(d / "ref.txt"), "-i", str(d / "sys" / "good.txt"), "-m",
             f"ulc:{path}"],
            ["meta", "--data", str(d), "--tables", str(tmp_path / "t"), "-m", "chrf",
             "--ulc", str(path)]]
    for run in runs:
        assert main([*run, "-q"]) == 2, run
        err = capsys.readouterr().err
        assert message in err, err
        assert "Traceback" not in err and "internal error" not in err and str(path) in err


def test_a_plain_set_is_usable(tmp_path, capsys):
    path = _lex_set(tmp_path)
    d = _corpus(tmp_path / "data")
    assert main(["score", "-r", str(d / "ref.txt"), "-i", str(d / "sys" / "good.txt"), "-m",
                 f"ulc:{path}", "-q"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(("low", "high"), [
    (-1e300, 1e300), (-1.7e308, 1.7e308), (5.0, 5.0), (0.0, 1e-300), (1e12, 1e12 + 1.0)])
def test_extreme_bounds_are_refused(tmp_path, capsys, low, high):
    path = _lex_set(tmp_path)
    data = json.loads(path.read_text())
    data["ulc_sys"][0].update(low=low, high=high)
    path.write_text(json.dumps(data))
    _refused(tmp_path, capsys, path, "normalise every score of it to (almost) one value")


def test_extreme_bounds_of_a_learned_set_are_refused(tmp_path, capsys):
    from mtstrata.combine.learned import LearnedSet, Level
    from mtstrata.metrics.setfile import Norm

    lv = Level((Norm("chrf", 0.0, 100.0),), (1.0,), 1.0)
    path = tmp_path / "learned.json"
    LearnedSet(lv, lv, {"signatures": {"chrf": metrics.create("chrf").signature()}}).save(path)
    data = json.loads(path.read_text())
    data["seg"]["norms"][0].update(low=-1e300, high=1e300)
    path.write_text(json.dumps(data))
    _refused(tmp_path, capsys, path, "'chrf' (segment level)")


@pytest.mark.parametrize("edit", [
    lambda t: t.replace('"low": 10.0', '"low": ' + "9" * 400),
    lambda t: t.replace('"low": 10.0', '"low": -' + "9" * 5000),
    lambda t: t.replace('"low": 10.0', '"low": 1e400'),
    lambda t: t.replace('"trace": []', '"trace": ' + "[" * 100_000 + "]" * 100_000),
    lambda t: t.replace('"low": 10.0', '"low": ' + "[" * 50 + "]" * 50),
])
def test_huge_or_nested_numbers_are_refused(tmp_path, capsys, edit):
    path = _lex_set(tmp_path)
    text = path.read_text()
    changed = edit(text)
    assert changed != text
    path.write_text(changed)
    _refused(tmp_path, capsys, path, "not a usable metric set")


@pytest.mark.parametrize("spelling", ["ulc:{p}", " ulc:{p}", "ulc :{p}", "ULC: {p} ",
                                      "ulc:set={p}", " ULC-lex", "ulc-emb "])
def test_sets_naming_sets_are_refused_however_spaced(tmp_path, capsys, spelling):
    path = _lex_set(tmp_path)
    data = json.loads(path.read_text())
    member = spelling.format(p=path)
    for key in ("ulc", "ulc_sys"):
        data[key][0]["metric"] = member
    sigs = data["provenance"]["signatures"]
    sigs[member] = sigs.pop("chrf")
    path.write_text(json.dumps(data))
    d = _corpus(tmp_path / "data")
    assert main(["score", "-r", str(d / "ref.txt"), "-i", str(d / "sys" / "good.txt"), "-m",
                 f"ulc:{path}", "-q"]) == 2
    err = capsys.readouterr().err
    assert "nested sets" in err and "Traceback" not in err and "internal error" not in err


def test_a_learned_search_records_every_members_labeller(learned_set, tmp_path):
    """`search --learned` keeps every candidate in its provenance: the role member's record
    names the labeller it was fitted with (and a set of that kind is checked alike)."""
    dirs, _, cache = learned_set
    out = tmp_path / "learned.json"
    assert main(["search", "--learned", "--data", *map(str, dirs), "-m", *SRL_MEMBERS,
                 "--tables", str(tmp_path / "t"), "--out", str(out), "-q", *cache,
                 "--srl", "learned"]) == 0
    sigs = json.loads(out.read_text())["provenance"]["signatures"]
    assert "+srl-learned" in sigs["SR-Or(*)"] and "|ann:" not in sigs["chrf"]
    assert _score(dirs[0], f"ulc:{out}", cache, "--srl", "rules") == 2


@pytest.mark.parametrize("labeller", ["learned", "rules"])
def test_a_sets_record_is_what_a_run_signs(labeller):
    """The full signature a set records is the run's signature of the member (scoring's), less
    the data's fact nrefs: what a set checks is what a score carries."""
    from mtstrata import scoring
    from mtstrata import signature as sig
    from mtstrata.layers import AnnotationOptions
    from mtstrata.metrics.provenance import differences, member_signatures

    specs = ["bleu", "chrf", "SR-Or(*)", "DP-HWCM_c-4", "NE-Oe(*)", "SP-Op(*)", "EMB-cos"]
    options = AnnotationOptions(labeller=labeller)
    recorded = member_signatures(specs, options)
    run = scoring.run_signatures([metrics.create(s) for s in specs], 2, options)
    for spec, r in zip(specs, run, strict=True):
        assert sig.parse(r)[2]["nrefs"] == "2" and "nrefs" not in recorded[spec]
        assert recorded[spec] == r.replace("|nrefs:2", ""), spec
        assert not differences(recorded[spec], r)
