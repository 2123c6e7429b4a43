"""Every number knows its language: the run's target language (``--lang``, else English), the
check that stops a model of one language reading another's text, and ``lang`` in the
signature of every number that depends on it."""

from __future__ import annotations

import json

import pytest

from mtstrata import languages, metrics
from mtstrata.cli import main
from mtstrata.errors import ConfigError, InputError, MissingLayerError
from mtstrata.layers import AnnotationOptions
from mtstrata.metrics.provenance import differences, run_facts
from mtstrata.signature import Signature

RUSSIAN = ["Кошка сидела на коврике у двери.", "Джон дал Мэри новую книгу."]
ENGLISH = ["The cat sat on the mat by the door.", "John gave Mary a new book."]


@pytest.mark.parametrize("code", ["en", "ru", "zh", "yue"])
def test_language_codes(code):
    assert languages.check_code(code) == code


@pytest.mark.parametrize("code", ["", "EN", "english", "e", "en-US", "r u"])
def test_bad_language_codes_are_refused(code):
    with pytest.raises(ConfigError, match="not a language code"):
        languages.check_code(code)


@pytest.mark.parametrize(("name", "lang"), [
    ("en-ru", "ru"), ("wmt21_enru_mqm/en-ru", "ru"), ("data/de-en/", "en"), ("kk-en", "en"),
    ("newstest", None), ("en_ru", None), ("x/en-ru/sys", None)])
def test_the_language_of_a_pair_is_its_target(name, lang):
    assert languages.of_pair(name) == lang


def test_scripts_are_read_from_the_letters():
    assert languages.script_shares(RUSSIAN)["CYRILLIC"] == 1.0
    assert languages.script_shares(["東京 is big"]) == {"LATIN": 5 / 7, "CJK": 2 / 7}
    assert languages.script_shares(["123 ... !!"]) == {}


def test_text_of_another_script_is_refused_naming_lang():
    with pytest.raises(InputError, match=r"ref\.txt: is mostly Cyrillic.*'en'.*--lang CODE"):
        languages.check_script(RUSSIAN, "en", "ref.txt")
    languages.check_script(RUSSIAN, "ru", "ref.txt")  # its own script
    languages.check_script(ENGLISH, "en", "ref.txt")
    languages.check_script(RUSSIAN, "xx", "ref.txt")  # a language of no known script
    # a few foreign words in English text are English text
    languages.check_script([ENGLISH[0] + " (Москва)"], "en", "ref.txt")


def test_numbers_that_depend_on_the_language_name_it():
    sp, bleu, meteor = (metrics.create(s) for s in ("SP-Op(*)", "bleu", "METEOR-sy"))
    assert "lang" not in run_facts(bleu, None, 1, "ru")  # a tokenizer of no language
    assert run_facts(meteor, None, 1, "en")["lang"] == "en"
    assert run_facts(sp, None, 1, "de", script_checked=False) == {
        "nrefs": "1", "lang": "de", "script": "unchecked"}


def test_a_signature_from_before_languages_reads_as_english():
    old = "SP-Op(*)|avg:micro|meas:jac|refs:max|def:1|ann:spacy-x|version:0.2.0"
    new = Signature.parse(old).with_run_facts(lang="en").render()
    assert differences(old, new) == []
    ru = Signature.parse(old).with_run_facts(lang="ru").render()
    assert differences(old, ru) == ["lang:en -> lang:ru"]


@pytest.fixture
def russian(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("\n".join(RUSSIAN) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(RUSSIAN[::-1]) + "\n", encoding="utf-8")
    return ref, hyp


def test_russian_text_is_not_read_by_an_english_model(russian, tmp_path, capsys):
    ref, hyp = russian
    args = ["score", "-r", str(ref), "-i", str(hyp), "--cache", str(tmp_path / "c.sqlite")]
    assert main([*args, "-m", "chrf", "SP-Op(*)"]) == 2
    err = capsys.readouterr().err
    assert "ref.txt: is mostly Cyrillic" in err and "--lang" in err and "Traceback" not in err
    # the lexical metrics of no language keep working on any text
    assert main([*args, "-m", "chrf", "bleu", "-q"]) == 0
    capsys.readouterr()
    # told the language, the layers a language lacks are refused, naming it
    assert main([*args, "-m", "SR-Or(*)", "--lang", "ru"]) == 2
    assert "for the language 'ru'" in capsys.readouterr().err
    assert main([*args, "-m", "METEOR-sy", "--lang", "ru"]) == 2
    assert "METEOR-sy computes for en only" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # a usage error
        main([*args, "-m", "chrf", "--lang", "RU"])
    assert e.value.code == 2 and "not a language code" in capsys.readouterr().err


def test_going_on_in_another_script_is_signed(russian, tmp_path, capsys):
    ref, hyp = russian
    assert main(["score", "-r", str(ref), "-i", str(hyp), "-m", "chrf", "METEOR-st", "-q",
                 "--other-script", "-f", "json", "--no-cache"]) == 0
    import json

    sigs = {s["metric"]: s["signature"] for s in json.loads(capsys.readouterr().out)["scores"]}
    run = {k: Signature.parse(v).run for k, v in sigs.items()}
    assert run["METEOR-st"]["lang"] == "en" and run["METEOR-st"]["script"] == "unchecked"
    assert "lang" not in run["chrF"] and "script" not in run["chrF"]


def test_the_options_default_to_english():
    assert AnnotationOptions().language == "en" and AnnotationOptions().check_script


def _russian_pair(root, name="en-ru"):
    from tests.test_combine_cli import HUMAN, SYSTEMS, _corpus

    d = _corpus(root, name)
    n = len(next(iter(SYSTEMS.values())))
    (d / "ref.txt").write_text("\n".join((RUSSIAN * n)[:n]) + "\n", encoding="utf-8")
    for s in HUMAN:
        (d / "sys" / f"{s}.txt").write_text("\n".join((RUSSIAN[::-1] * n)[:n]) + "\n",
                                           encoding="utf-8")
    return d


def test_a_pair_directory_gives_its_target_language(tmp_path, capsys):
    """meta and search take each pair's language from its name (en-ru: Russian) unless --lang
    says otherwise: a linguistic metric on en-ru is read by the Russian provider (its spec's
    Russian defaults signed), one no Russian provider serves is refused, never computed with
    the English model; chrF, of no language, is computed."""
    d = _russian_pair(tmp_path)
    base = ["meta", "--data", str(d), "--tables", str(tmp_path / "t"), "--cache",
            str(tmp_path / "c.sqlite"), "-q", "-f", "json"]
    assert main([*base, "-m", "chrf", "SR-Or(*)"]) == 2
    err = capsys.readouterr().err
    assert "'ru'" in err and "Traceback" not in err
    assert main([*base, "-m", "chrf", "SP-Op(*)"]) == 0
    sigs = {r["metric"]: r["signature"] for r in json.loads(capsys.readouterr().out)}
    sp = sigs["SP-Op(*):tags=upos"]  # (the row names the Russian default it read)
    assert "lang:ru" in sp and "ann:natasha" in sp and "lang:" not in sigs["chrF"]
    # told the language is English, the script check stops the run, naming the reference file
    assert main([*base, "-m", "SP-Op(*)", "--lang", "en"]) == 2
    assert "ref.txt: is mostly Cyrillic" in capsys.readouterr().err


def test_a_missing_layer_names_only_annotators_of_the_run_language():
    """Chinese entities: the hint never sends a Chinese run to an annotator of another
    language (it once said --annotator cs-spacy)."""
    from mtstrata.layers.planning import plan
    from mtstrata.segment import Layer

    with pytest.raises(MissingLayerError) as e:
        plan({Layer.TOKENS, Layer.NER}, language="zh")
    msg = str(e.value)
    assert "'zh'" in msg and "--annotator" not in msg
