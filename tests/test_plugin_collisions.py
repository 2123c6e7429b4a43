"""A plugin's provider cannot take what is mtstrata's or another distribution's: a built-in
provider's name (under whichever name it is registered), a layer of its own named as a built-in
layer (``pos``, ``constituents``...) or as another distribution's layer, a codec over either.
Each is refused when the plugin loads, exit 2, naming the distribution, its version, what it
collides with and the fix (rename).

Each plugin is a distribution made by hand in a temporary directory
(:func:`tests.test_plugin_failures.make_plugin`): nothing is built or installed."""

from __future__ import annotations

import pytest

from tests.test_plugin_failures import make_plugin, run

PROVIDER = '''
from dataclasses import dataclass
from typing import ClassVar
from mtstrata.layers.provider import ComputedLayer, ProviderBase
from mtstrata.payloads import Codec, register_codec
from mtstrata.segment import ExtraLayer, Layer, layer_named

@dataclass(frozen=True)
class P(ComputedLayer):
    name: ClassVar[str] = "{name}"
    version: ClassVar[str] = "1"
    needs: ClassVar[frozenset] = frozenset({{Layer.TOKENS}})

    def compute(self, segments):
        return [len(s.tokens) for s in segments]

@dataclass(frozen=True)
class Q(ProviderBase):
    name: ClassVar[str] = "{name}-maker"
    assigns: ClassVar[frozenset] = frozenset({{layer_named("{name}")}})

class C(Codec):
    pass
'''


def _refused(r, dist, *needles):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    for n in (dist, "Rename", *needles):
        assert n in r.stderr, r.stderr


@pytest.mark.parametrize(("entry", "name", "tail", "what"), [
    ("spacy = badplug:P", "tree-depth", "", "built-in provider spacy"),  # a provider's name
    ("counts = badplug:P", "emb-e5", "", "built-in provider emb-e5"),  # its class's name
    ("pos = badplug:P", "pos", "", "built-in layer pos"),  # a built-in layer
    ("my-trees = badplug:Q", "constituents", "", "built-in layer constituents"),
    ("x = badplug", "tree-depth", "register_codec(Layer.NER, C())", "built-in layer ner"),
    ("x = badplug", "tree-depth", 'register_codec(ExtraLayer("constituents"), C())',
     "built-in layer constituents"),
])
def test_a_plugin_taking_a_built_in_name_or_layer_is_refused(tmp_path, entry, name, tail,
                                                             what):
    site = make_plugin(tmp_path, "mtstrata.providers", entry,
                       PROVIDER.format(name=name) + tail + "\n")
    _refused(run(["list", "annotators"], site, tmp_path), "badplug-dist 0.3", what)


@pytest.mark.parametrize(("first", "second", "tail"), [
    ("tree-depth = plugb:P", "depth-maker = badplug:Q", ""),  # a provider of its layer
    ("tree-depth = plugb:P", "x = badplug", 'register_codec(ExtraLayer("tree-depth"), C())'),
    ("x = plugb", "tree-depth = badplug:P", ""),  # its layer, whose codec plugb registers
])
def test_a_plugin_taking_another_distributions_layer_is_refused(tmp_path, first, second,
                                                                tail):
    # (whichever loads second is refused: the message names both distributions)
    make_plugin(tmp_path, "mtstrata.providers", first, PROVIDER.format(name="tree-depth")
                + 'register_codec(ExtraLayer("tree-depth"), C())\n', module="plugb")
    site = make_plugin(tmp_path, "mtstrata.providers", second,
                       PROVIDER.format(name="tree-depth") + tail + "\n")
    r = run(["list", "annotators"], site, tmp_path)
    _refused(r, "badplug-dist 0.3", "'tree-depth'", "plugb-dist 0.3")


def test_a_plugin_layer_of_its_own_name_is_listed(tmp_path):
    site = make_plugin(tmp_path, "mtstrata.providers", "tree-depth = badplug:P",
                       PROVIDER.format(name="tree-depth")
                       + 'register_codec(ExtraLayer("tree-depth"), C())\n')
    r = run(["list", "annotators"], site, tmp_path)
    assert r.returncode == 0, r.stderr
    assert any(x.strip().startswith("tree-depth") for x in r.stdout.splitlines()), r.stdout
