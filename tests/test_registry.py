from dataclasses import dataclass
from typing import Literal

import pytest

from mtstrata.errors import ConfigError, UnknownNameError
from mtstrata.registry import Registry, format_value, parse_spec


@dataclass(frozen=True)
class Thing:
    order: int = 4
    smooth: Literal["none", "exp"] = "exp"
    lowercase: bool = False
    eps: float | None = None


def fam(t: str, order: int = 1) -> tuple[str, int]:
    return (t, order)


def make_registry() -> Registry[Thing]:
    r: Registry[Thing] = Registry("thing", list_command="list things")
    r.add("thing", Thing, "a thing")
    r.add_family("Fam(t)", r"Fam\((\w+|\*)\)", fam, examples=("Fam(*)",))
    return r


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("thing", Thing()),
        ("THING", Thing()),
        ("thing:order=2", Thing(order=2)),
        ("thing:smooth=none,lowercase=yes", Thing(smooth="none", lowercase=True)),
        ("thing:eps=0.5", Thing(eps=0.5)),
        ("thing:eps=none", Thing(eps=None)),
    ],
)
def test_create_converts_parameters(spec, expected):
    assert make_registry().create(spec) == expected


def test_family_passes_groups_and_typed_params():
    r = make_registry()
    assert r.create("Fam(NN)") == ("NN", 1)
    assert r.create("Fam(*):order=3") == ("*", 3)


@pytest.mark.parametrize(
    "spec,fragment",
    [
        ("thing:order=x", "expected int"),
        ("thing:smooth=bad", "choose one of: none, exp"),
        ("thing:colour=red", "unknown parameter 'colour'"),
        ("thing:order", "key=value"),
        ("", "empty metric name"),
    ],
)
def test_bad_specs_raise_config_errors(spec, fragment):
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        make_registry().create(spec)


def test_unknown_name_suggests_close_matches():
    with pytest.raises(UnknownNameError) as e:
        make_registry().create("thingg")
    assert e.value.suggestions == ["thing"]
    assert "list things" in str(e.value)


def test_parse_spec_and_format_value():
    expected = ("bleu", {"smooth": "exp", "max_order": "2"})
    assert parse_spec("bleu:smooth=exp, max_order=2") == expected
    values = (True, False, None, 0.5, 3, ("a", "b"))
    assert [format_value(v) for v in values] == [
        "yes", "no", "none", "0.5", "3", "a+b"]


def test_family_without_example_is_refused():
    r: Registry[Thing] = Registry("thing")
    with pytest.raises(ValueError):
        r.add_family("X(t)", r"X\((\w+)\)", Thing)


@pytest.mark.parametrize("spec", ["bleu:max_order=2,max_order=3", "bleu:max_order=2, max_order =2",
                                  "chrf:char_order=6,word_order=2,char_order=6"])
def test_a_parameter_given_twice_is_refused(spec):
    with pytest.raises(ConfigError, match="given twice"):
        parse_spec(spec)


def test_a_parameter_given_twice_exits_2(tmp_path, capsys):
    from mtstrata.cli import main

    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\n")
    rc = main(["score", "-r", str(ref), "-i", str(ref), "-m", "bleu:max_order=2,max_order=3"])
    err = capsys.readouterr().err
    assert rc == 2 and "given twice" in err and "Traceback" not in err


def test_a_family_template_suggests_concrete_names():
    """'GTM-e' is the family's display, not a name: the error suggested 'GTM-e' itself."""
    from mtstrata import metrics

    with pytest.raises(UnknownNameError) as e:
        metrics.create("GTM-e")
    assert "'GTM-e'?" not in str(e.value) and "GTM-2" in str(e.value)
