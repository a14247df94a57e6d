"""The hand-vetted HEROS lexicon: which words may be targets, in which contexts, and what replaces them.

Heros chose every replacement by hand (its §2.2.3: the choice "is impossible to be done using an automatic
process"). WordNet alone picks wrong senses ("raise money" -> "lift money", "third round" -> "third circular"),
so the generator uses this vetted list instead: `data/vetted_lexicon.csv`, one row per lemma x context, read in
order (the first row whose context matches is used):

- `lemma`, `pos` ("v" verb, "a" adjective);
- `frame`: a verb's "trans" (a direct object, or passive), "intr" (neither) or "that" (a clause complement);
  an adjective's "pred" (after a linking verb: "is cheap", "seemed happy") or "attr" (before its noun);
- `class`: "super/sub" meaning class; a random word never shares a super class with the target ("High -> Big"
  cannot happen: both are "size"). A word close to other classes in some contexts names them all, joined by "+"
  ("fear" is "feeling+epistemic": "believes X is under threat" -> "fears X is under threat" is a near-synonym);
- `synonyms`, `antonyms`: lemmas separated by "|", best first, each vetted to hold wherever the row matches;
- `only`, `block`: context conditions `key=v1|v2|@set` separated by spaces; every `only` condition must hold and
  no `block` condition may. Keys: `subj` (a verb's subject), `obj` (its object, or its passive subject), `head`
  (an adjective's noun, or the subject of its linking verb), `link` (the linking verb), `next` / `prev` (the
  next / previous word), `tag` (Penn tag), `prep` (a verb's prepositions: "ban them from" has "from"), `voice`
  ("active" / "passive"), `aux` (a verb's auxiliaries: "would like"), `gov` (the lemma of the word a verb depends
  on: "hard to believe" has gov=hard), `after` (any word after the verb in its phrase: "ban them from
  their homes" has after=from), `inf` ("to" when the verb has an infinitive of purpose or result: "hired
  them to fight"), `objkind` (what the object, or a passive subject, names: person, group, place, thing, or
  "name" for a one-word name WordNet does not know: "sacked the manager" is a person, "sacked the town" a place),
  `comp` (the words of the complement: a verb's clause's predicate, an adjective's infinitive verb: "easy to
  forget" has comp=forget; "thought they were pretty good" has comp=were|pretty|good, the clause's predicate),
  `clause` (how a clause complement opens: "that", "wh" for whether/if/what ..., or
  "bare": "it's important John delivers"), `mark` (the word that opens the target's clause: "as it's possible to
  imagine" has mark=as), `intent` ("would" for a clause with "would" and the verb's own subject: "I thought I
  would stop" means to stop, it is no belief).
  `@name` names a word set of `data/vetted_sets.csv` ("@qty": price,
  shares, sales ...);
- `takes`: the slots the word fills grammatically, for the Random subset ("trans intr that"; "pred attr to to_np
  of that with ... it_to it_that" for adjectives: "keen to go", "similar to it", "aware of", "it is odd that");
  "tough" for an adjective that allows a tough-construction ("the claim is hard to refute": its subject is the
  infinitive's object), "inanimate" for one that can be said of a thing ("the street is quiet", not "the street is
  proud"), "measure" for a verb that takes an amount ("rose 3%" -> "walked 3%").

Rows without synonyms and antonyms are the random-word pool (common words of one main sense, so a random word
never turns out a near-synonym in context: "cut rates" -> "lift rates" cannot happen). Words outside the list are
never targets.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from n2o_core.evaluation.heros.lexicon import noun_kind
from n2o_core.evaluation.heros.polarity import ANY_WORDS

#: Prepositions and complementizers that, right after a predicative adjective, select its complement.
COMPLEMENT_WORDS = frozenset(["to", "of", "that", "with", "about", "for", "at", "on", "in", "from", "by", "over"])
#: Verbs an adjective can be predicative after ("is cheap", "seemed happy", "remains unclear").
LINKING_VERBS = frozenset(["be", "become", "remain", "seem", "look", "appear", "feel", "sound", "stay", "prove", "get"])
_OBJ_POS = frozenset(["NOUN", "PROPN", "PRON"])


@dataclass(frozen=True)
class Cond:
    """One context condition: `key` (subj, obj, head, link, next, tag) has one of `values`."""

    key: str
    values: frozenset[str]


@dataclass(frozen=True)
class Entry:
    """One vetted row: a target lemma in one context, with its replacements."""

    lemma: str
    pos: str
    frame: str
    cls: str
    synonyms: tuple[str, ...]
    antonyms: tuple[str, ...]
    only: tuple[Cond, ...]
    block: tuple[Cond, ...]
    takes: frozenset[str]
    row: int

    @property
    def super_classes(self) -> frozenset[str]:
        """The row's super classes ("feeling+epistemic/fear" -> feeling, epistemic)."""
        return frozenset(self.cls.split("/", 1)[0].split("+"))

    @property
    def is_target(self) -> bool:
        return bool(self.synonyms and self.antonyms)


@dataclass(frozen=True)
class Slot:
    """A target token's context, as the lexicon's conditions read it."""

    pos: str  # "v" or "a"
    frame: str  # trans / intr / that (verbs); pred / attr (adjectives)
    fields: tuple[tuple[str, frozenset[str]], ...]
    needs: frozenset[str]  # what a random replacement must take (frame and complement)

    def get(self, key: str) -> frozenset[str]:
        return next((v for k, v in self.fields if k == key), frozenset())


def _data_text(name: str) -> str:
    return resources.files("n2o_core.evaluation.heros").joinpath("data", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def word_sets() -> dict[str, frozenset[str]]:
    """The named word sets (`data/vetted_sets.csv`): set name -> lowercase words."""
    rows = csv.DictReader(_data_text("vetted_sets.csv").splitlines())
    return {r["set"].strip(): frozenset(r["words"].lower().split()) for r in rows}


def _conds(text: str, sets: dict[str, frozenset[str]]) -> tuple[Cond, ...]:
    out = []
    for part in text.split():
        key, _, vals = part.partition("=")
        words: set[str] = set()
        for v in vals.split("|"):
            words |= sets[v[1:]] if v.startswith("@") else {v.lower()}
        out.append(Cond(key, frozenset(words)))
    return tuple(out)


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.strip().lower() for w in text.split("|") if w.strip())


@lru_cache(maxsize=1)
def entries() -> tuple[Entry, ...]:
    """Every row of `data/vetted_lexicon.csv`, in file order."""
    sets = word_sets()
    out = []
    for k, r in enumerate(csv.DictReader(_data_text("vetted_lexicon.csv").splitlines())):
        out.append(
            Entry(
                lemma=r["lemma"].strip().lower(),
                pos=r["pos"].strip(),
                frame=r["frame"].strip(),
                cls=r["class"].strip(),
                synonyms=_words(r["synonyms"]),
                antonyms=_words(r["antonyms"]),
                only=_conds(r["only"], sets),
                block=_conds(r["block"], sets),
                takes=frozenset(r["takes"].split()),
                row=k + 2,
            )
        )
    return tuple(out)


@lru_cache(maxsize=1)
def _by_lemma() -> dict[tuple[str, str], tuple[Entry, ...]]:
    out: dict[tuple[str, str], list[Entry]] = {}
    for e in entries():
        out.setdefault((e.lemma, e.pos), []).append(e)
    return {k: tuple(v) for k, v in out.items()}


def target_lemmas() -> frozenset[tuple[str, str]]:
    """(lemma, pos) of every word that can be a target."""
    return frozenset((e.lemma, e.pos) for e in entries() if e.is_target)


def _forms(tok: Any) -> frozenset[str]:
    return frozenset({tok.lower_, tok.lemma_.lower()})


def _subject(verb: Any) -> Any | None:
    """The verb's subject, or, for a conjoined verb without one, its head verb's ("rose and then fell"); a relative
    pronoun stands for the noun its clause describes ("products which were available": products)."""
    for v in (verb, verb.head if verb.dep_ == "conj" else None):
        if v is None:
            continue
        subj = next((c for c in v.children if c.dep_ in ("nsubj", "nsubjpass", "expl")), None)
        if subj is not None and subj.tag_ in ("WDT", "WP") and v.dep_ == "relcl" and v.head.pos_ in _OBJ_POS:
            return v.head
        if subj is not None:
            return subj
    return None


def _from_gerund(kids: list[Any]) -> bool:
    """ "ban them from playing": a "from" + gerund complement that few replacement verbs take ("permit them from")."""
    return any(c.dep_ == "prep" and c.lower_ == "from" and any(g.tag_ == "VBG" for g in c.children) for c in kids)


def _uncovered_complement(kids: list[Any]) -> bool:
    """Two objects, an object complement, a particle ("set up"), "from" + gerund ("ban them from playing") or a
    gerund complement ("what I love doing": "what I sign doing" reads wrongly): frames the lexicon does not cover."""
    if any(c.dep_ in ("dative", "oprd", "prt") for c in kids) or _from_gerund(kids):
        return True
    if any(c.dep_ == "dobj" and _second_object(c) for c in kids):
        return True
    return any(c.dep_ == "xcomp" and c.tag_ == "VBG" for c in kids)


def _second_object(obj: Any) -> bool:
    """ "allows the physician the room he needs": a noun phrase right after the object, with no comma between, that
    the parse hangs on it as an appositive is a second object ("enables the physician the room" is not English)."""
    for c in obj.children:
        if c.dep_ == "appos" and c.i > obj.i and not any(t.is_punct for t in obj.doc[obj.i : c.left_edge.i]):
            return True
    return False


def _plain_clause(tok: Any, kids: list[Any]) -> bool:
    """Whether the verb's clause complement is one a replacement verb ("doubt", "deny") takes as it is: not "believe
    it to be", no wh-word extracted from it ("what they think are the best": "what they doubt are"), not a quote
    or an if/whether clause (`_quoted_or_conditional`)."""
    clauses = [c for c in kids if c.dep_ == "ccomp"]
    if any(any(g.tag_ == "TO" for g in c.children) for c in clauses):
        return False
    if any(t.tag_ in ("WP", "WDT") and t.i < tok.i for c in clauses for t in c.subtree):
        return False
    return not _quoted_or_conditional(tok)


def _quoted_or_conditional(tok: Any) -> bool:
    """A clause complement that is a quote (a quotation mark or colon right after the verb) or opens with
    "if"/"whether"."""
    doc = tok.doc
    nxt = doc[tok.i + 1] if tok.i + 1 < len(doc) else None
    if nxt is None or nxt.is_punct or nxt.is_quote:
        return True
    return nxt.lower_ in ("if", "whether")


def _takes_amount(kids: list[Any]) -> bool:
    """ "rose 3.8%", "dropped by 1%", "raise the wage to $10.10": an amount after the verb, bare or in a
    to/by/from/at phrase; a random verb must take a measure there."""
    if any(c.dep_ == "npadvmod" and any(g.like_num for g in c.subtree) for c in kids):
        return True
    return any(
        c.dep_ == "prep" and c.lower_ in AMOUNT_PREPOSITIONS and any(g.like_num for g in c.subtree) for c in kids
    )


#: Prepositions that introduce an amount after a verb of change.
AMOUNT_PREPOSITIONS = frozenset(["to", "by", "from", "at"])


def _verb_context(tok: Any, kids: list[Any], passive: bool) -> dict[str, frozenset[str]]:
    """The condition keys every verb has: tag, prep, voice, aux, gov, after, inf."""
    fields: dict[str, frozenset[str]] = {"tag": frozenset([tok.tag_])}
    fields["prep"] = frozenset(c.lower_ for c in kids if c.dep_ in ("prep", "agent", "dative"))
    fields["voice"] = frozenset(["passive" if passive else "active"])
    fields["aux"] = frozenset(c.lower_ for c in kids if c.dep_ in ("aux", "auxpass"))
    if tok.dep_ != "ROOT":  # "hard to believe": "believe" hangs on "is", whose complement is "hard"
        gov = [tok.head, *(c for c in tok.head.children if c.dep_ == "acomp" and c.i < tok.i)]
        fields["gov"] = frozenset().union(*(_forms(g) for g in gov))
    fields["after"] = frozenset(t.lower_ for t in tok.subtree if t.i > tok.i)
    fields["mark"] = _marks(tok)
    if any(c.dep_ in ("xcomp", "advcl") and any(g.tag_ == "TO" for g in c.children) for c in kids):
        fields["inf"] = frozenset(["to"])  # "hired them to do": "dismissed them to do" reads wrongly
    return fields


def _marks(verb: Any) -> frozenset[str]:
    """The words that open the verb's clause ("as it's possible to imagine" has "as", "if it rises" has "if")."""
    return frozenset(c.lower_ for c in verb.children if c.dep_ == "mark")


def _verb_slot(tok: Any) -> Slot | None:
    kids = list(tok.children)
    if _uncovered_complement(kids):
        return None
    passive = tok.tag_ == "VBN" and any(c.dep_ in ("nsubjpass", "auxpass") for c in kids)
    dobj = next((c for c in kids if c.dep_ == "dobj"), None)
    subj = _subject(tok)
    fields = _verb_context(tok, kids, passive)
    if passive:
        if dobj is not None:
            return None  # "are allowed one appeal": a retained second object ("are forbidden one appeal")
        frame = "trans"
        if subj is not None:
            fields["obj"] = _forms(subj)
            fields["objkind"] = frozenset([object_kind(subj)])
    elif dobj is not None:
        if dobj.pos_ not in _OBJ_POS:  # "finished third", "rose 5%"
            return None
        frame = "trans"
        fields["obj"] = _forms(dobj)
        fields["objkind"] = frozenset([object_kind(dobj)])
        if subj is not None:
            fields["subj"] = _forms(subj)
    elif any(c.dep_ == "ccomp" and c.i > tok.i for c in kids):
        if subj is None or not _plain_clause(tok, kids):
            return None  # "Government claims that ...": a noun tagged as a verb
        frame = "that"
        fields["subj"] = _forms(subj)
        clauses = [c for c in kids if c.dep_ == "ccomp" and c.i > tok.i]
        fields["comp"] = frozenset().union(*(_forms(t) for c in clauses for t in _predicate(c)))
        fields["intent"] = _intent(subj, clauses)
        fields["clause"] = frozenset([_clause_opening(tok)])
    else:
        if any(c.dep_ in ("xcomp", "ccomp", "acomp", "attr") for c in kids):
            return None
        frame = "intr"
        if subj is not None:
            fields["subj"] = _forms(subj)
    needs = {frame}
    if _takes_amount(kids):
        needs.add("measure")  # "rose 3.8%": a random verb must take a measure ("walked 3.8%")
    elif _bound_preposition(kids) or _preposition_opens_clause(tok, frame):
        needs.add("bound_prep")  # "closed to all products", "criticised him for moving": no pool verb takes them
    return Slot("v", frame, tuple(fields.items()), frozenset(needs))


def _preposition_opens_clause(tok: Any, frame: str) -> bool:
    """ "admits about 35 jobs will go": a clause without "that" opening with a preposition, which a random verb
    would take as its own ("complains about 35 jobs")."""
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    return frame == "that" and nxt is not None and nxt.tag_ == "IN" and _clause_opening(tok) == "bare"


#: Pronouns that stand for people ("hired him", "sacked them").
PERSON_PRONOUNS = frozenset(
    """i me you he him she her we us they them who whom whoever himself herself themselves myself yourself ourselves
    someone somebody anyone anybody everyone everybody nobody""".split()  # noqa: SIM905
)


def object_kind(tok: Any) -> str:
    """What a noun phrase's head names (WordNet's first sense, `lexicon.noun_kind`): "person", "group", "place" or
    "thing"; a pronoun of people is a person; a name WordNet does not know is a person when it has two or more
    words ("Jose Mourinho"), else "name" (spaCy's entity tagger is not loaded: "Vieste" may be a town)."""
    if tok.pos_ == "PRON":
        return "person" if tok.lower_ in PERSON_PRONOUNS else "thing"
    if tok.pos_ == "PROPN":
        parts = sorted([tok, *(c for c in tok.children if c.dep_ == "compound" and c.pos_ == "PROPN")], key=_index)
        kind = noun_kind("_".join(p.lower_ for p in parts))
        if kind is not None:
            return kind
        return "person" if len(parts) >= 2 else "name"
    return noun_kind(tok.lemma_.lower()) or "thing"


def _index(tok: Any) -> int:
    return int(tok.i)


#: Words that open a clause complement with a question ("unclear whether", "asked if").
WH_WORDS = frozenset("whether if how why what when who where which".split())  # noqa: SIM905


def _predicate(verb: Any) -> list[Any]:
    """A clause's verb and what it says of its subject: "they were pretty good" -> were, pretty, good; "it was just
    a load of junk" -> was, a, load, of, junk; "he will lose the prize" -> lose."""
    return [verb, *(t for c in verb.children if c.dep_ in ("acomp", "attr", "oprd") for t in c.subtree)]


def _intent(subj: Any, clauses: list[Any]) -> frozenset[str]:
    """ "I thought I would stop", "I think I'd rather": a clause with "would" whose subject is the verb's own says what
    the subject means to do or prefers, not what it believes ("I doubted I would stop"): {"would"}, else empty."""
    for c in clauses:
        csubj = next((k for k in c.children if k.dep_ in ("nsubj", "nsubjpass")), None)
        would = any(k.dep_ == "aux" and k.lower_ in ("would", "'d") for k in c.children)
        if would and csubj is not None and csubj.lower_ == subj.lower_:
            return frozenset(["would"])
    return frozenset()


def _clause_opening(tok: Any) -> str:
    """How the clause after `tok` opens: "that", "wh" (whether, if, how ...) or "bare" ("I think it is ...")."""
    nxt = tok.doc[tok.i + 1].lower_ if tok.i + 1 < len(tok.doc) else ""
    return "that" if nxt == "that" else "wh" if nxt in WH_WORDS else "bare"


#: Prepositions whose phrase a verb selects ("closed to", "moved into"): a random verb rarely takes them.
BOUND_PREPOSITIONS = frozenset(["to", "into", "onto"])


def _bound_preposition(kids: list[Any]) -> bool:
    """A to/into/onto phrase, or any preposition with a gerund ("criticised him for moving"), after the verb."""
    for c in kids:
        if c.dep_ != "prep" or c.i < c.head.i:
            continue
        if c.lower_ in BOUND_PREPOSITIONS or any(g.tag_ == "VBG" for g in c.children):
            return True
    return False


#: Named-entity types that are people or groups of people (an "agent" head).
AGENT_ENTITIES = frozenset(["PERSON", "ORG", "NORP", "GPE"])


def is_agent(tok: Any) -> bool:
    """Whether a noun phrase's head is a person or a group of people ("she", "the company", "Chelsea"), so that
    an adjective said of people ("proud", "afraid") can be said of it: a word of the "agent" set
    (`data/vetted_sets.csv`: pronouns of people, people and their groups) or a person, organisation, nationality or
    country entity. "They", "it" and things are not."""
    return tok.ent_type_ in AGENT_ENTITIES or bool(_forms(tok) & word_sets()["agent"])


def _tough(tok: Any) -> bool:
    """ "The claim is hard to refute": the adjective's infinitive has no object of its own (its subject is that
    object), and the adjective allows the construction (`takes` "tough" in the lexicon)."""
    verb = next((c for c in tok.children if c.dep_ == "xcomp" and c.tag_ == "VB"), None)
    if verb is None or "tough" not in _takes(tok.lemma_.lower(), "a"):
        return False
    return not any(c.dep_ in ("dobj", "ccomp", "xcomp") for c in verb.children)


def _adjective_slot(tok: Any, doc: Any) -> Slot | None:
    fields: dict[str, frozenset[str]] = {"tag": frozenset([tok.tag_])}
    nxt = doc[tok.i + 1].lower_ if tok.i + 1 < len(doc) else ""
    if tok.dep_ == "acomp" and tok.head.i < tok.i and tok.head.lemma_.lower() in LINKING_VERBS:
        link = tok.head
        subj = _subject(link)
        fields["link"] = _forms(link)
        fields["mark"] = _marks(link)
        if subj is not None:
            fields["head"] = _forms(subj)
        needs = {"pred"}
        infinitive = nxt == "to" and tok.i + 2 < len(doc) and doc[tok.i + 2].tag_ == "VB"
        for_to = nxt == "for" and any(t.tag_ == "TO" for t in doc[tok.i + 2 : tok.head.right_edge.i + 1])
        expletive = subj is not None and subj.lower_ == "it" and (infinitive or nxt == "that" or for_to)
        if expletive:
            needs.add("it_to" if for_to else f"it_{nxt}")  # "it is hard (for anyone) to start"
        elif nxt == "to":
            needs.add(("tough" if _tough(tok) else "to") if infinitive else "to_np")  # "keen to play"
        elif nxt in COMPLEMENT_WORDS:
            needs.add(nxt)
        clause = any(c.dep_ == "ccomp" and c.i > tok.i for c in (*tok.children, *link.children))
        if clause and not needs & {"it_that", "that"}:  # "sure you'll see", "it is unclear whether ..."
            needs.add("it_that" if subj is not None and subj.lower_ == "it" else "that")
        if clause or nxt == "that":
            fields["clause"] = frozenset([_clause_opening(tok)])
        if infinitive:
            fields["comp"] = _forms(doc[tok.i + 2])  # "easy to forget"
        if not expletive and not needs & {"it_that", "it_to"} and (subj is None or not is_agent(subj)):
            needs.add("inanimate")  # "walking is difficult" -> "walking is hungry" cannot happen
        frame = "pred"
    elif tok.dep_ == "amod" and tok.head.i > tok.i:
        fields["head"] = _forms(tok.head)
        needs, frame = {"attr"}, "attr"
    else:
        return None
    return Slot("a", frame, tuple(fields.items()), frozenset(needs))


def slot_of(tok: Any, doc: Any) -> Slot | None:
    """The context of a verb or adjective token, or None when it is in a frame the lexicon does not cover
    (two objects, an object complement, a verb's own adjective or clause complement ...)."""
    nxt = doc[tok.i + 1].lower_ if tok.i + 1 < len(doc) else ""
    prev = doc[tok.i - 1].lower_ if tok.i > 0 else ""
    slot = _verb_slot(tok) if tok.pos_ == "VERB" else _adjective_slot(tok, doc) if tok.pos_ == "ADJ" else None
    if slot is None:
        return None
    fields = (*slot.fields, ("next", frozenset([nxt])), ("prev", frozenset([prev])))
    return Slot(slot.pos, slot.frame, fields, slot.needs)


#: Targets of negative sense, which license a polarity item after them ("denied any wrongdoing", "unlikely that anyone
#: would ever"); their antonyms do not ("confirmed any wrongdoing", "likely that anyone would ever").
NEGATIVE_TARGETS = frozenset(
    """deny reject oppose ban prohibit unlikely unclear unwilling reluctant difficult hard tough rare unusual
    unacceptable""".split()  # noqa: SIM905
)


def _licenses_polarity_item(tok: Any) -> bool:
    """ "it was unlikely that anyone would ever buy it", "denied any wrongdoing": an "any"-word, "ever" or "yet" after
    a target of negative sense (`NEGATIVE_TARGETS`) in its phrase (or its linking verb's) may need that sense, which
    an antonym drops ("it was likely that anyone would ever buy it"): no such word is a target. A positive target
    keeps its pairs ("keen to avoid any allegations" -> "reluctant to avoid any")."""
    if tok.lemma_.lower() not in NEGATIVE_TARGETS:
        return False
    phrase = [*tok.subtree, *(tok.head.subtree if tok.pos_ == "ADJ" else ())]
    return any(t.i > tok.i and (t.lower_ in ANY_WORDS or t.lower_ == "yet") and not _for_subject(t) for t in phrase)


def _for_subject(t: Any) -> bool:
    """ "difficult for anyone to start", "hard for any company to": the infinitive's subject, a free choice that
    needs no negation ("easy for anyone to start")."""
    noun = t.head if t.dep_ == "det" else t
    start = noun.left_edge.i
    return noun.dep_ in ("nsubj", "pobj") and start > 0 and noun.doc[start - 1].lower_ == "for"


def _holds(c: Cond, slot: Slot) -> bool:
    return bool(slot.get(c.key) & c.values)


def entry_fits(e: Entry, slot: Slot) -> bool:
    """Whether row `e` applies in `slot`: same frame, every `only` condition holds, no `block` condition does."""
    if e.frame != slot.frame:
        return False
    return all(_holds(c, slot) for c in e.only) and not any(_holds(c, slot) for c in e.block)


def match(tok: Any, doc: Any) -> tuple[Entry, Slot] | None:
    """The first vetted target row for this token in its sentence, with the token's slot; None when there is none."""
    pos = {"VERB": "v", "ADJ": "a"}.get(tok.pos_)
    if pos is None:
        return None
    rows = _by_lemma().get((tok.lemma_.lower(), pos))
    if not rows:
        return None
    slot = slot_of(tok, doc)
    if slot is None or _licenses_polarity_item(tok):
        return None
    for e in rows:
        if e.is_target and entry_fits(e, slot):
            return e, slot
    return None


def random_candidates(target: Entry, slot: Slot) -> list[str]:
    """Random-word rows (no synonyms or antonyms: common words of one main sense) that fill the target's slot
    grammatically (they take its frame and complement) and mean something else: another super class, not one
    of the target's synonyms or antonyms. Sorted."""
    banned = {target.lemma, *target.synonyms, *target.antonyms}
    out = set()
    for e in entries():
        if e.is_target or e.pos != target.pos or e.lemma in banned or e.super_classes & target.super_classes:
            continue
        if target.lemma in e.synonyms or target.lemma in e.antonyms:
            continue
        if slot.needs <= _takes(e.lemma, e.pos):
            out.add(e.lemma)
    return sorted(out)


@lru_cache(maxsize=4096)
def _takes(lemma: str, pos: str) -> frozenset[str]:
    return frozenset().union(*(e.takes for e in _by_lemma().get((lemma, pos), ())))
