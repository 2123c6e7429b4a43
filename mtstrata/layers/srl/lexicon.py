"""The word lists of the rule role labeller (:mod:`mtstrata.layers.srl.rules`): verb classes,
PropBank frame-specific prepositions and the words that type modifiers (temporal, locative,
directional, degree, discourse). Lowercased lemmas or forms; changing a list changes labels, so
bump ``SRL_VERSION`` in :mod:`mtstrata.layers.srl.rules` with it."""

from __future__ import annotations


def _ws(text: str) -> frozenset[str]:
    return frozenset(text.split())


UNACCUSATIVE = _ws(
    "rise fall increase decrease drop decline grow climb jump gain slip plunge surge tumble soar "
    "sink shrink edge rebound recover resume reopen stall double triple halve die arrive happen "
    "occur begin start end open close break collapse emerge exist vanish disappear fail come go "
    "remain stay expire continue")
LINKING = _ws("become remain seem appear stay prove turn get grow look sound")
VALUE_VERBS = _ws(
    "rise fall increase decrease drop decline grow climb jump gain slip plunge surge tumble soar "
    "sink shrink edge rebound recover")
#: transitive verbs of changing a value: their PPs follow the same frame (by A2, from A3, to A4)
VALUE_PP_VERBS = VALUE_VERBS | _ws("cut raise lower reduce boost lift slash double triple halve")
#: frame-specific PP arguments (PropBank frames): lemma -> {preposition: role}
PP_ARGS: dict[str, dict[str, str]] = {
    **{v: {"to": "A2"} for v in _ws("give send sell lend offer deliver transfer ship export hand "
                                    "move relocate shift sentence return donate")},
    "sell": {"to": "A2", "for": "A3"}, "buy": {"from": "A2", "for": "A3"},
    "pay": {"to": "A2", "for": "A3"}, "invest": {"in": "A2"},
    **{v: {"from": "A2"} for v in _ws("withdraw remove expel release")},
    **{v: {"with": "A2", "to": "A2", "about": "A1"} for v in ("speak", "talk")},
    "accuse": {"of": "A2"}, "charge": {"with": "A2"}, "convict": {"of": "A2"},
}
#: verbs whose object is the hearer / impelled agent when a clause complement follows (A2)
OBJECT_A2_WITH_CLAUSE = _ws("tell ask inform warn urge order persuade remind advise notify assure "
                            "instruct")
TEMPORAL_NOUNS = _ws(
    "today yesterday tomorrow tonight now time times day days week weeks weekend month months year "
    "years decade decades century morning afternoon evening night hour hours minute minutes "
    "season quarter period moment era age date future past spring summer autumn fall winter "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december noon midnight dawn ago")
TEMPORAL_PREPS = _ws("during since until till after before throughout")
LOCATIVE_PREPS = _ws(
    "in at near across inside outside around within along beside behind under over between among "
    "on throughout beyond below above off")
DIRECTION_PREPS = _ws("to into onto toward towards from through out up down")
TEMPORAL_ADVS = _ws(
    "now then today yesterday tomorrow tonight recently soon already still again later earlier "
    "ago currently once twice lately previously eventually finally yet meanwhile immediately "
    "always often sometimes usually rarely frequently early late before afterwards afterward "
    "initially instantly annually daily weekly monthly when whenever")
LOCATIVE_ADVS = _ws(
    "here there abroad nationwide locally everywhere elsewhere overseas home worldwide "
    "somewhere anywhere where")
DIRECTION_ADVS = _ws(
    "up down away back out forward ahead north south east west upward downward outward "
    "inward")
DEGREE_ADVS = _ws(
    "almost nearly slightly largely partly partially fully completely entirely barely hardly "
    "mostly much greatly somewhat significantly substantially considerably roughly about "
    "approximately more less least most enough too so very")
DISCOURSE_ADVS = _ws(
    "however therefore thus also too moreover furthermore nevertheless nonetheless instead "
    "indeed besides hence consequently accordingly otherwise but and so though "
    "still")
ADVERBIAL_ADVS = _ws(
    "probably possibly perhaps maybe likely reportedly apparently allegedly certainly clearly "
    "obviously definitely surely even only just really already")
NEG_WORDS = _ws("not n't never no")
CAUSE_MARKS = _ws("because since as")
TEMPORAL_MARKS = _ws("when while after before until till once whenever as")
CONCESSIVE_MARKS = _ws("although though if unless whether whereas despite")
SUBJECTS = ("nsubj", "csubj")
PASSIVE_SUBJECTS = ("nsubjpass", "csubjpass")
RELATIVE_PRONOUNS = _ws("that which who whom whose")
