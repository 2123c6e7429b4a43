"""Rule-based PropBank-style semantic roles over the dependency layer.

No semantic-role labeller with installable weights exists here, so the SRL layer
is derived from the dependency parse (ClearNLP labels, as spaCy's English models emit them) with
hand-written PropBank rules, in the spirit of the deterministic baselines of the CoNLL-2005
shared task (Carreras & Marquez 2005) and of the role inventory of PropBank (Palmer et al. 2005):

* **predicates**: tokens tagged ``VERB`` (PTB ``VB*``) that are not auxiliaries. The copula
  *be* (tagged ``AUX`` by spaCy) is **not** a predicate: its subject and complement are left
  unlabelled (our convention, followed by the gold set). Prenominal participles (``amod``) are not
  predicates either; post-nominal ones (``acl``, reduced relatives) are.
* **numbered arguments**: ``nsubj``/``csubj`` -> A0 (A1 for unaccusative verbs such as *rise*,
  *fall*, *die*, *happen*, and for linking verbs such as *become*, *remain*, *seem*);
  ``nsubjpass``/``csubjpass`` -> A1 (A2 when the passive verb keeps a direct object, as in *was
  given a book*); ``agent`` (the *by* phrase) -> A0; ``dobj``/``ccomp``/``xcomp`` -> A1;
  ``dative`` (NP or *to* PP) and ``attr``/``acomp``/``oprd`` -> A2. Verbs of changing value
  (*rise*, *fall*, *increase*, ...) follow their PropBank frames: amount -> A2, *from* -> A3,
  *to* -> A4.
* **frame-specific PPs**: a small table of PropBank frames (*sell/send/move ... to* -> A2,
  *buy ... from* -> A2, *invest in* -> A2, *accuse ... of* -> A2, ...); the object of a
  communication verb followed by a clause (*told reporters that*, *asked the army to*) -> A2.
  Trailing temporal or frame-specific PPs that the parser hung on the object noun are moved to
  the verb (a frequent attachment error of the small spaCy model).
* **modifiers**: ``neg`` -> AM-NEG; a modal auxiliary (``MD``) -> AM-MOD; adverbs, noun-phrase
  adverbials, prepositional phrases and adverbial clauses are typed by small word lists
  (:mod:`mtstrata.layers.srl.lexicon`: temporal nouns and prepositions -> AM-TMP, places ->
  AM-LOC, *because* -> AM-CAU, purpose *to*/*so that* -> AM-PNC, degree adverbs -> AM-EXT,
  connectives -> AM-DIS, directions -> AM-DIR, *-ly* adverbs and *with* phrases -> AM-MNR, the
  rest -> AM-ADV).
* **shared and controlled subjects**: a conjoined verb without a subject takes its first
  conjunct's subject; an ``xcomp`` verb without a subject takes its governor's object, else its
  subject (control); a subjectless participial or to-infinitive adjunct (``advcl``) takes its
  governor's subject; a relative clause's antecedent takes the role of the relative pronoun, and a
  reduced relative's head noun is A1 (past participle) or A0 (present participle).

An argument is the contiguous span of the argument head's subtree (for a PP the whole PP with its
preposition, as PropBank does), with edge punctuation trimmed. C-/R- prefixes are not produced.
Quality is measured by benchmarks/bench_srl.py on the hand-labelled gold sets
(tests/data/srl_gold*.txt, read by ``tools/srl_gold.py``) and on real web text with gold
PropBank roles (the held-out documents of the EWT data); the figures are in README, "Semantic
roles". On the web text the rules find fewer predicates and label fewer arguments right than
the learned labeller (:mod:`mtstrata.layers.srl.learned`, ``--srl learned``), which uses these
rules' labels as features: unified PropBank makes copulas and auxiliaries predicates, which
these rules skip.
"""

from __future__ import annotations

from typing import Any

from mtstrata.errors import MissingLayerError
from mtstrata.layers.srl import lexicon as lex
from mtstrata.segment import Frame, Layer, Segment, Span

#: Goes into annotator signatures: bump it whenever a rule changes a label.
#: rules-3 = rules-2 plus a guard for non-projective trees (no empty argument span).
SRL_VERSION = "rules-3"


class _Tree:
    """Children lists and subtree extents of a segment's dependency forest (0-based).

    ``forest``, if given, holds them already (``kids``, lowered relations ``dep``, extents
    ``lo``/``hi``, per token) for a well-formed forest: the learned labeller's tree.
    """

    def __init__(self, seg: Segment, forest: Any = None):
        self.toks = seg.tokens
        if forest is not None:
            self.kids, self.deps = forest.kids, forest.dep
            self._ext = dict(enumerate(zip(forest.lo, forest.hi)))
            return
        self.kids: list[list[int]] = [[] for _ in seg.tokens]
        for i, t in enumerate(seg.tokens):
            if t.head:  # 1-based head; 0 is a root
                self.kids[t.head - 1].append(i)
        self.deps = [(t.deprel or "").lower() for t in seg.tokens]
        self._ext: dict[int, tuple[int, int]] = {}
        order = [i for i, t in enumerate(seg.tokens) if not t.head]
        for k in order:  # breadth-first from the roots (the list grows as it is read)
            order.extend(self.kids[k])
        if len(order) == len(self.toks):  # a forest (no cycle): all extents, bottom-up
            ext = self._ext
            for k in reversed(order):
                lo, hi = k, k + 1
                for c in self.kids[k]:
                    clo, chi = ext[c]
                    lo, hi = clo if clo < lo else lo, chi if chi > hi else hi
                ext[k] = (lo, hi)

    def extent(self, i: int) -> tuple[int, int]:
        """The ``[start, end)`` range covering the subtree of ``i``."""
        if i not in self._ext:  # a malformed head column (with a cycle): search
            lo, hi, todo, seen = i, i, [i], {i}
            while todo:  # ``seen`` guards against the cycle
                k = todo.pop()
                lo, hi = min(lo, k), max(hi, k)
                todo.extend(c for c in self.kids[k] if c not in seen)
                seen.update(self.kids[k])
            self._ext[i] = (lo, hi + 1)
        return self._ext[i]

    def span(self, i: int, label: str, without: int | None = None) -> Span:
        """``label`` over the subtree of ``i`` (minus the branch of ``without``), trimmed."""
        lo, hi = self.extent(i)
        if without is not None:
            wlo, whi = self.extent(without)
            if wlo > i:
                hi = min(hi, wlo)
            else:
                lo = max(lo, whi)
            if not lo <= i < hi:  # a non-projective branch covered the head: keep the head
                lo, hi = i, i + 1
        while hi - lo > 1 and self.toks[lo].upos == "PUNCT":
            lo += 1
        while hi - lo > 1 and self.toks[hi - 1].upos == "PUNCT":
            hi -= 1
        return Span(lo, hi, label)

    def dep(self, i: int) -> str:
        return self.deps[i]

    def low(self, i: int) -> str:
        t = self.toks[i]
        return (t.lemma or t.form).lower()

    def first(self, i: int, *deps: str) -> int | None:
        return next((k for k in self.kids[i] if self.deps[k] in deps), None)


def is_predicate(seg: Segment, i: int) -> bool:
    """Whether token ``i`` heads a frame (a non-auxiliary verb; see the module docstring)."""
    t = seg.tokens[i]
    dep = (t.deprel or "").lower()
    if dep in ("aux", "auxpass", "amod"):
        return False
    if t.upos is not None:
        return t.upos == "VERB"
    return bool(t.xpos and t.xpos.startswith("VB"))


def _is_temporal(tree: _Tree, i: int) -> bool:
    """Whether the phrase headed by ``i`` names a time (a temporal noun, a year, a date)."""
    lo, hi = tree.extent(i)
    for k in range(lo, hi):
        w = tree.toks[k].form.lower()
        if w in lex.TEMPORAL_NOUNS:
            return True
        if w.isdigit() and len(w) == 4 and 1000 <= int(w) <= 2199:  # a year
            return True
    return False


def _has_number(tree: _Tree, i: int) -> bool:
    lo, hi = tree.extent(i)
    return any(tree.toks[k].upos == "NUM" or tree.toks[k].form in ("%", "percent")
               for k in range(lo, hi))


def _adverb_role(tree: _Tree, i: int) -> str:
    w = tree.toks[i].form.lower()
    if w in lex.NEG_WORDS:
        return "AM-NEG"
    if w in lex.TEMPORAL_ADVS:
        return "AM-TMP"
    if w in lex.ADVERBIAL_ADVS:
        return "AM-ADV"
    if w in lex.LOCATIVE_ADVS:
        return "AM-LOC"
    if w in lex.DIRECTION_ADVS:
        return "AM-DIR"
    if w in lex.DISCOURSE_ADVS:
        return "AM-DIS"
    if w in lex.DEGREE_ADVS:
        return "AM-EXT"
    if w in ("how",):
        return "AM-MNR"
    if w in ("why",):
        return "AM-CAU"
    if w.endswith("ly"):
        return "AM-MNR"
    return "AM-ADV"


def _prep_role(tree: _Tree, pred: int, p: int, has_obj: bool) -> str:
    """The role of the PP headed by preposition ``p`` under predicate ``pred``."""
    word = tree.toks[p].form.lower()
    obj = tree.first(p, "pobj", "pcomp")
    nxt = tree.first(p, "prep", "pobj", "pcomp", "amod")
    two = f"{word} {tree.toks[nxt].form.lower()}" if nxt is not None else word
    if two in ("because of", "due to", "thanks to") or word == "amid":
        return "AM-CAU"
    frame_role = lex.PP_ARGS.get(tree.low(pred), {}).get(word)
    if frame_role is not None:
        return frame_role
    if tree.low(pred) in lex.VALUE_PP_VERBS:
        if word == "by":
            return "A2"
        if word == "from":
            return "A3"
        if word == "to":
            return "A4"
    temporal = obj is not None and _is_temporal(tree, obj)
    if word in lex.TEMPORAL_PREPS or (temporal and word in ("in", "on", "at", "by", "for", "within",
                                                        "over", "from", "to", "through")):
        return "AM-TMP"
    if word in ("despite", "although", "like", "unlike", "as", "regardless"):
        return "AM-ADV"
    if word in ("with", "without", "through", "via"):
        return "AM-MNR"
    if word == "by":
        return "AM-EXT" if obj is not None and _has_number(tree, obj) else "AM-MNR"
    if word in ("about", "against", "of"):
        return "A2" if has_obj else "A1"
    if word in lex.LOCATIVE_PREPS:
        return "AM-LOC"
    if word in lex.DIRECTION_PREPS:
        return "AM-DIR"
    if word == "for":
        return "AM-PNC"
    return "AM-ADV"


def _clause_role(tree: _Tree, c: int) -> str:
    """The role of an adverbial clause headed by ``c`` (typed by its marker)."""
    mark = tree.first(c, "mark", "advmod")
    word = tree.toks[mark].form.lower() if mark is not None else ""
    if word in ("because",):
        return "AM-CAU"
    if word == "so" or word == "in":
        return "AM-PNC"
    if word in lex.TEMPORAL_MARKS:
        return "AM-TMP"
    if word in ("where",):
        return "AM-LOC"
    if word in lex.CAUSE_MARKS:
        return "AM-CAU"
    if word in lex.CONCESSIVE_MARKS:
        return "AM-ADV"
    to = tree.first(c, "aux")
    if mark is None and to is not None and tree.toks[to].form.lower() == "to":
        return "AM-PNC"  # (in order) to-infinitive of purpose
    return "AM-ADV"


def _lifted_pps(tree: _Tree, v: int, obj: int) -> list[int]:
    """Trailing PPs the parser hung on the object that belong to the verb.

    A small parser attaches "for several hours", "on Wednesday" or "of corruption" (after
    *accuse*) to the object noun; nouns rarely take such temporal or frame-specific PPs, so they
    are moved to the verb (only a trailing run, so spans stay contiguous).
    """
    frame = lex.PP_ARGS.get(tree.low(v), {})
    out: list[int] = []
    for q in sorted((k for k in tree.kids[obj] if k > obj and tree.dep(k) == "prep"),
                    reverse=True):
        if tree.extent(q)[1] != (tree.extent(out[-1])[0] if out else tree.extent(obj)[1]):
            break
        word = tree.toks[q].form.lower()
        pobj = tree.first(q, "pobj")
        temporal = word in lex.TEMPORAL_PREPS or (pobj is not None and _is_temporal(tree, pobj))
        if not (temporal or word in frame):
            break
        out.append(q)
    return out[::-1]


def _subject(tree: _Tree, v: int) -> int | None:
    return tree.first(v, *lex.SUBJECTS, *lex.PASSIVE_SUBJECTS, "expl")


def _is_passive(tree: _Tree, v: int) -> bool:
    return any(tree.dep(k) in ("auxpass", "nsubjpass", "csubjpass") for k in tree.kids[v])


def _frame(tree: _Tree, v: int) -> Frame:
    lemma = tree.low(v)
    passive = _is_passive(tree, v)
    has_dobj = tree.first(v, "dobj") is not None
    unaccusative = (lemma in lex.UNACCUSATIVE and not has_dobj) or lemma in lex.LINKING
    subj_role = "A1" if unaccusative else "A0"
    args: list[Span] = []
    for c in tree.kids[v]:
        dep = tree.dep(c)
        role: str | None = None
        if dep in lex.SUBJECTS:
            role = subj_role
        elif dep in lex.PASSIVE_SUBJECTS:
            role = "A2" if has_dobj else "A1"
        elif dep == "agent":
            role = "A0"
        elif dep == "dobj":
            role = "A2" if lemma in lex.VALUE_VERBS and _has_number(tree, c) else "A1"
            if lemma in lex.OBJECT_A2_WITH_CLAUSE and tree.first(v, "ccomp", "xcomp") is not None:
                role = "A2"  # "told reporters that ...", "asked the army to ..."
        elif dep in ("ccomp", "xcomp"):
            role = "A2" if lemma in lex.LINKING else "A1"
        elif dep in ("dative", "attr", "acomp", "oprd"):
            role = "A2"
        elif dep == "neg":
            role = "AM-NEG"
        elif dep == "aux" and tree.toks[c].xpos == "MD":
            role = "AM-MOD"
        elif dep == "advmod":
            if not (tree.toks[c].xpos == "WRB" and tree.dep(v) == "advcl"):
                role = _adverb_role(tree, c)  # a clause's "when" is its marker, no argument
        elif dep == "npadvmod":
            if _is_temporal(tree, c):
                role = "AM-TMP"
            elif lemma in lex.VALUE_VERBS and _has_number(tree, c):
                role = "A2"
            else:
                role = "AM-EXT" if _has_number(tree, c) else "AM-ADV"
        elif dep == "prep":
            role = _prep_role(tree, v, c, has_dobj)
        elif dep == "advcl":
            role = _clause_role(tree, c)
        elif dep == "cc" and c < v and tree.extent(v)[0] == c:
            role = "AM-DIS"  # sentence-initial "But", "And"
        if role is None:
            continue
        lifted = _lifted_pps(tree, v, c) if dep == "dobj" else []
        args.append(tree.span(c, role, without=lifted[0] if lifted else None))
        args.extend(tree.span(q, _prep_role(tree, v, q, True)) for q in lifted)
    args.extend(_inherited(tree, v, passive, subj_role))
    return Frame(v, tuple(sorted(args, key=lambda s: (s.start, s.end, s.label))))


def _inherited(tree: _Tree, v: int, passive: bool, subj_role: str) -> list[Span]:
    """Arguments from outside the verb's subtree: shared, controlled and relativised ones."""
    dep = tree.dep(v)
    head = tree.toks[v].head
    if not head:
        return []
    h = head - 1
    adjunct = dep == "advcl" and (tree.toks[v].xpos in ("VBG", "VBN") or any(
        tree.dep(k) == "aux" and tree.toks[k].form.lower() == "to" for k in tree.kids[v]))
    if adjunct and _subject(tree, v) is None and tree.first(v, "mark") is None:
        ctrl = tree.first(h, *lex.SUBJECTS, *lex.PASSIVE_SUBJECTS)  # "..., saying ...", "to cover"
        return [] if ctrl is None else [tree.span(ctrl, "A1" if passive else subj_role)]
    if dep in ("conj", "xcomp") and _subject(tree, v) is None:
        if dep == "xcomp":
            ctrl = tree.first(h, "dobj")
            if ctrl is None:
                ctrl = tree.first(h, *lex.SUBJECTS, *lex.PASSIVE_SUBJECTS)
        else:
            ctrl = _subject(tree, h)
            if ctrl is None and tree.dep(h) in ("relcl", "acl"):
                return _inherited(tree, h, passive, subj_role)
        if ctrl is not None:
            return [tree.span(ctrl, "A1" if passive else subj_role)]
        return []
    if dep == "relcl":
        rel = next((k for k in tree.kids[v] if tree.toks[k].form.lower() in lex.RELATIVE_PRONOUNS
                    and tree.dep(k) in (*lex.SUBJECTS, *lex.PASSIVE_SUBJECTS, "dobj")), None)
        if rel is None:
            role = "A1"  # "the car he bought": the gap is the object
            if _subject(tree, v) is None:
                role = "A1" if passive else subj_role
        else:
            rdep = tree.dep(rel)
            role = ("A1" if rdep in lex.PASSIVE_SUBJECTS or rdep == "dobj" else subj_role)
        return [tree.span(h, role, without=v)]
    if dep == "acl" and tree.toks[v].xpos in ("VBN", "VBG"):
        role = "A1" if tree.toks[v].xpos == "VBN" else subj_role
        return [tree.span(h, role, without=v)]
    return []


def label_frames(seg: Segment, forest: Any = None) -> tuple[Frame, ...]:
    """PropBank-style frames of ``seg``, one per predicate, in token order.

    Args:
        seg: A segment with the tokens, lemma, POS and dependency layers.
        forest: Its dependency forest if the caller has built it (see :class:`_Tree`).

    Returns:
        One :class:`~mtstrata.segment.Frame` per predicate (possibly with no argument).

    Raises:
        MissingLayerError: ``seg`` lacks the dependency layer.
    """
    if not seg.tokens:
        return ()
    if Layer.DEP not in seg.layers and any(t.head is None for t in seg.tokens):
        raise MissingLayerError(
            "semantic roles are derived from the dependency layer, which this segment lacks "
            f"({seg.text[:60]!r}); annotate with an annotator that provides dep (spacy, stanza).")
    tree = _Tree(seg, forest)
    return tuple(_frame(tree, i) for i in range(len(seg.tokens)) if is_predicate(seg, i))

