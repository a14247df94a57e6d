"""Negation rules of Heros: negate the main verb (Negation (main)) or the target word (Negation (antonym)).

A verb is negated with its first auxiliary ("has been" -> "has not been", "can" -> "cannot") or,
without one, by do-support ("boosted" -> "did not boost", "boosts" -> "does not boost"). A verb or
adjective that is already negated loses its "not"/"n't" instead ("didn't know" -> "did know",
"can't" -> "can"), keeping the auxiliary, as in the paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from n2o_core.evaluation.heros.edit import render
from n2o_core.evaluation.heros.inflect import match_case, verb_lemma
from n2o_core.evaluation.heros.polarity import ANY_WORDS, resists_negation, stranded_without

NEGATORS = frozenset({"not", "n't", "nt", "n’t"})
_CONTRACTED_AUX = {"ca": "can", "wo": "will", "sha": "shall"}
_DO_SUPPORT = {"VBD": "did", "VBZ": "does", "VBP": "do"}
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
#: Reporting verbs: in "X rose, he said." the main verb negated is the reported clause's.
REPORTING = frozenset(
    [
        "say",
        "tell",
        "add",
        "claim",
        "insist",
        "argue",
        "warn",
        "explain",
        "report",
        "note",
        "state",
        "admit",
        "suggest",
        "predict",
        "reply",
        "write",
    ]
)


#: Adverbs that cannot follow an inserted "not" ("is not also", "we're not now", "has not already").
SENTENCE_ADVERBS = frozenset(
    """also now still already even currently probably certainly clearly definitely obviously actually perhaps
    reportedly apparently therefore however thus again just surely mostly largely typically usually generally
    often sometimes then once finally eventually recently later soon today somewhat pretty fairly rather
    relatively quite either only almost nearly virtually practically nevertheless nonetheless consequently
    accordingly hence indeed instead likewise similarly moreover furthermore""".split()  # noqa: SIM905
)
#: Adverbs that cannot come before do-support ("only does not need", "already do not have", "always does not"),
#: like most -ly adverbs of manner ("freely did not associate"), unless listed in SENTENCE_LY_ADVERBS.
FOCUS_ADVERBS = frozenset(["only", "just", "even", "still", "already", "merely", "always", "ever"])
#: -ly adverbs that read well before do-support ("certainly does not pay off", "finally did not win").
SENTENCE_LY_ADVERBS = frozenset(
    """certainly probably clearly really definitely actually simply obviously apparently reportedly allegedly usually
    generally typically normally currently recently finally eventually personally frankly honestly surely possibly
    initially originally previously subsequently""".split()  # noqa: SIM905
)
#: Universal subjects: with "not" they read as "not all" ("All were not arrested", "Everyone did not agree").
UNIVERSAL_WORDS = frozenset(["all", "every", "each", "both", "everyone", "everybody", "everything"])
#: Verbs whose gerund complement cannot take "not" ("stopped not buying", "kept not winning").
ASPECTUAL_HEADS = frozenset(
    ["stop", "start", "begin", "keep", "quit", "avoid", "finish", "continue", "resume", "cease"]
)


#: Verbs followed by a bare infinitive ("saw profits fall", "helps bloggers expand").
BARE_INFINITIVE_HEADS = frozenset(["see", "watch", "hear", "let", "make", "have", "feel", "notice"])
#: Words that make a subject negative.
NEGATIVE_WORDS = frozenset(["not", "no", "nobody", "nothing", "none", "neither", "nor", "never", "noone"])
#: Quantifiers that make a subject nearly negative unless "a" precedes them ("few people believe" -> "few people do
#: not believe" reads as a double negative; "a few people" is positive).
NEGATIVE_QUANTIFIERS = frozenset(["few", "fewer", "little", "less", "hardly", "scarcely", "barely"])
#: Adverbs that already negate the verb: negating it again, or by "not", reads wrongly ("rarely does not").
NEGATIVE_ADVERBS = frozenset(["rarely", "seldom", "hardly", "barely", "scarcely", "never", "nowhere"])
#: Verbs before "to" that form one verb group with the infinitive ("have to", "going to"): the infinitive is
#: negated after the "to" ("will have to not look"), never as "have not to look".
SEMI_MODALS = frozenset(["have", "need", "ought", "use", "go", "get"])
#: Subordinating words: a "main" verb that has one is in an embedded clause (a misparse), so it is not negated.
SUBORDINATORS = frozenset(
    "if because although though while whereas unless until when whenever since as once before after whether".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class Outcome:
    """A rule's result: `text` is None when the rule could not apply; `info` is the method or drop reason."""

    text: str | None
    info: str
    token_i: int = -1

    @property
    def ok(self) -> bool:
        return self.text is not None


def _fail(reason: str, i: int = -1) -> Outcome:
    return Outcome(None, reason, i)


def main_verb(doc: Any) -> Any | None:
    """The main verb (the root, or the reported clause's verb before a post-posed "said X" or in a quote after
    "X said:")."""
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1:
        return None
    v = roots[0]
    quote = _quoted_clause(doc, v)
    if quote is not None:
        return quote if quote.pos_ in ("VERB", "AUX") else None
    if v.lemma_.lower() in REPORTING or _reports_before(doc, v):
        reported = [c for c in v.children if c.dep_ == "ccomp" and c.i < v.i]
        if reported and not any(c.dep_ in _SUBJECTS for c in v.children):
            return None  # "Size, whose album won the prize, said ...": the reporting verb lost its subject (misparse)
        if reported:
            v = reported[0]
        elif v.i > 0 and doc[v.i - 1].is_punct and not any(c.dep_ in _SUBJECTS and c.i < v.i for c in v.children):
            return None  # "The comments, said Mr X, were ...": a parenthetical; the real main verb is unclear
    return v if v.pos_ in ("VERB", "AUX") else None


def _quoted_clause(doc: Any, v: Any) -> Any | None:
    """The verb of a quote that a reporting verb introduces ('Marr said: "I think ...'): the quote is what the
    sentence says, so its verb is the one negated ('I do not think', not 'Marr did not say: "I think')."""
    if v.lemma_.lower() not in REPORTING:
        return None
    for c in v.children:
        if c.dep_ == "ccomp" and c.i > v.i and any(t.text == ":" or t.is_quote for t in doc[v.i + 1 : c.left_edge.i]):
            return c
    return None


def _reports_before(doc: Any, v: Any) -> bool:
    """A clause-final reporting frame: "Approvals fell, official figures have shown." (a clause, a comma, then the
    root); not a clause before a colon, which introduces the quote ('Eminem told the crowd: "D12 won"')."""
    return (
        v.i > 0
        and doc[v.i - 1].is_punct is False
        and any(
            c.dep_ == "ccomp" and c.i < v.i and doc[c.right_edge.i + 1].is_punct and doc[c.right_edge.i + 1].text != ":"
            for c in v.children
        )
    )


def _remove_negator(doc: Any, neg: Any) -> Outcome:
    """Delete "not"/"n't" and restore a contracted auxiliary ("ca" -> "can", "wo" -> "will")."""
    replace: dict[int, str] = {}
    if neg.lower_ != "not" and neg.i > 0:
        prev = doc[neg.i - 1]
        if prev.lower_ == "ai":
            return _fail("unsupported_contraction", neg.i)
        if prev.lower_ in _CONTRACTED_AUX:
            replace[prev.i] = match_case(_CONTRACTED_AUX[prev.lower_], prev.text)
    return Outcome(render(doc, replace=replace, delete=[neg.i]), "remove_not", neg.i)


def _universal_subject(v: Any) -> bool:
    """ "All were arrested", "Everyone agreed": "not" would read as "not all"."""
    subj = next((c for c in v.children if c.dep_ in _SUBJECTS), None)
    return subj is not None and any(t.lower_ in UNIVERSAL_WORDS for t in subj.subtree)


def _negated_subject(v: Any) -> bool:
    """ "Not everybody believes", "Nobody knows", "Few people believe": negating the verb too would make a double
    negative; "Any number of ways exist" cannot take a "not" ("any" needs a negation before it)."""
    subj = next((c for c in v.children if c.dep_ in _SUBJECTS), None)
    if subj is None:
        return False
    for t in subj.subtree:
        if t.lower_ in NEGATIVE_WORDS or t.lower_ in ANY_WORDS:  # "Any number of ways do not exist"
            return True
        if t.lower_ in NEGATIVE_QUANTIFIERS and not (t.i > 0 and t.doc[t.i - 1].lower_ == "a"):
            return True
    return False


def _negative_adverb(doc: Any, v: Any) -> bool:
    """ "rarely believes", "no longer in power": the verb group already carries a negative adverb."""
    group = [v, *(c for c in v.children if c.dep_ in ("aux", "auxpass"))]
    for head in group:
        for c in head.children:
            if c.dep_ in ("advmod", "neg") and c.lower_ in NEGATIVE_ADVERBS:
                return True
    return any(t.lower_ == "no" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "longer" for t in v.subtree)


def _cannot_negate(doc: Any, v: Any) -> str | None:
    """Why negating verb `v` would read wrongly (a negative or universal subject, a negative object or adverb), or
    None."""
    if _negated_subject(v):
        return "negative_subject"
    if _universal_subject(v):
        return "universal_subject"
    if any(c.dep_ == "dobj" and c.lower_ in NEGATIVE_WORDS for c in v.children):
        return "negative_object"  # "will do nothing" -> "will not do nothing"
    return None


def _without_negation(doc: Any, v: Any, auxes: list[Any], neg: Any) -> Outcome:
    """Remove the verb group's own "not"/"n't"; any other negation ("never", "not at all", a "not" elsewhere in
    the clause: "with X not out") is left alone and the verb is not negated."""
    own = neg.i < v.i or (v.pos_ == "AUX" and neg.i <= v.i + 2)  # not "finished ... with X not out"
    group = {v.i, *(a.i for a in auxes)}
    if own and neg.lower_ in NEGATORS and neg.head.i in group and not _fixed_phrase(doc, neg):
        if stranded_without(doc, v, neg):
            return _fail("negative_polarity", v.i)  # "it is not yet known" -> "it is yet known"
        return _remove_negator(doc, neg)
    return _fail("other_negation", v.i)


def negate_verb(doc: Any, v: Any) -> Outcome:
    """Negate verb token `v` (or remove its existing negation)."""
    why = _cannot_negate(doc, v)
    if why is not None:
        return _fail(why, v.i)
    auxes = sorted((c for c in v.children if c.dep_ in ("aux", "auxpass") and c.i < v.i), key=lambda t: t.i)
    neg = _existing_negation(doc, v, auxes)
    if neg is not None:
        return _without_negation(doc, v, auxes, neg)
    if _negative_adverb(doc, v):
        return _fail("other_negation", v.i)  # "rarely believes" -> "rarely does not believe"
    if resists_negation(v):
        return _fail("positive_polarity", v.i)  # "have a pretty strong case" -> "do not have a pretty strong case"
    if auxes:
        if auxes[0].tag_ not in ("MD", "TO") and auxes[0].lemma_.lower() not in ("be", "have", "do"):
            return _fail("unusual_auxiliary", v.i)  # "only became universally accepted": "became not"
        return _negate_after_aux(doc, auxes[0])
    if v.pos_ == "AUX":
        if v.lemma_.lower() == "be" or v.tag_ == "MD":
            return _negate_after_aux(doc, v)
        return _fail("unsupported_auxiliary", v.i)
    if v.tag_ in _DO_SUPPORT:
        if any(c.dep_ in _SUBJECTS and c.i > v.i for c in v.children):
            return _fail("inverted_subject", v.i)
        if v.lemma_.lower() == "be":
            return _negate_after_aux(doc, v)
        if _adverb_before(doc, v):
            return _fail("adverb_before_verb", v.i)  # "only needs" -> "only does not need"
        phrase = f"{_DO_SUPPORT[v.tag_]} not {verb_lemma(v.text, v.lemma_, v.tag_)}"
        return Outcome(render(doc, replace={v.i: match_case(phrase, v.text)}), "do_support", v.i)
    return _negate_nonfinite(doc, v)


def _negate_nonfinite(doc: Any, v: Any) -> Outcome:
    """Negate a verb without tense or auxiliary: an imperative ("do not touch"), an infinitive or participle
    ("not boosting"); never a participle that the parse gave a subject of its own (a misparse)."""
    if v.tag_ == "VB" and v.dep_ == "ROOT":  # imperative
        return Outcome(render(doc, replace={v.i: match_case(f"do not {v.text.lower()}", v.text)}), "do_support", v.i)
    if v.tag_ not in ("VB", "VBG", "VBN"):
        return _fail("unsupported_tag", v.i)
    if v.dep_ == "ROOT":
        return _fail("fragment", v.i)
    if v.tag_ == "VBN" and any(c.dep_ == "nsubj" for c in v.children):
        return _fail("participle_with_subject", v.i)  # "the number of goods intercepted at ... increased"
    return Outcome(render(doc, insert_before={v.i: "not"}), "not_before", v.i)


def _adverb_before(doc: Any, v: Any) -> bool:
    """An adverb right before the verb that do-support would strand ("only does not need", "freely did not")."""
    prev = doc[v.i - 1] if v.i > 0 else None
    if prev is None or prev.pos_ != "ADV":
        return False
    w = prev.lower_
    return w in FOCUS_ADVERBS or (w.endswith("ly") and w not in SENTENCE_LY_ADVERBS)


def _existing_negation(doc: Any, v: Any, auxes: list[Any]) -> Any | None:
    """A negator of the verb group: a "neg" child, or not/n't/never between its first auxiliary and it."""
    negs = [c for c in v.children if c.dep_ == "neg"]
    if negs:
        return negs[0]
    lo = auxes[0].i if auxes else v.i
    hi = v.i + 2 if v.pos_ == "AUX" else v.i  # "is not ...": the negator follows a copula
    for t in doc[lo : min(hi, len(doc))]:
        if t.lower_ in NEGATORS or t.lower_ == "never":
            return t
    return None


def _fixed_phrase(doc: Any, neg: Any) -> bool:
    """ "not only", "not at all", "not even", "not that I know": removing "not" would leave a broken phrase."""
    nxt = doc[neg.i + 1].lower_ if neg.i + 1 < len(doc) else ""
    prev = doc[neg.i - 1].lower_ if neg.i > 0 else ""
    return nxt in ("only", "at", "even", "just", "least", "that") or prev == "or"  # "whether or not", "not that"


def _semi_modal(aux: Any) -> Any | None:
    """The "have" of "have to look", "going" of "going to be" ...: the verb whose infinitive `aux` ("to") opens."""
    verb = aux.head
    gov = verb.head if verb.dep_ == "xcomp" else None
    if gov is None or gov.i > aux.i or gov.lemma_.lower() not in SEMI_MODALS:
        return None
    return None if gov.lemma_.lower() == "go" and gov.lower_ != "going" else gov  # "went on to win" is no semi-modal


def _negate_infinitive(doc: Any, to: Any) -> Outcome:
    """Negate an infinitive: "to boost" -> "not to boost"; after a semi-modal, "have to look" -> "have to not look"
    ("have not to look" is not English); "not going to be" loses its "not" (the infinitive is already negated)."""
    gov = _semi_modal(to)
    if _purpose(to.head):
        return _fail("purpose_infinitive", to.i)  # "triumphed to win the prize" -> "triumphed not to win"
    if to.head.dep_ == "xcomp" and to.head.head.lemma_.lower() in ("begin", "start"):
        return _fail("aspectual", to.i)  # "his health began to deteriorate" -> "began not to deteriorate"
    if gov is None:
        if any(c.dep_ == "conj" and any(g.tag_ == "TO" for g in c.children) for c in to.head.children):
            return _fail("coordinated_infinitive", to.i)  # "are not to boost spending or to delay": whose "not"?
        return Outcome(render(doc, insert_before={to.i: "not"}), "not_before_to", to.i)
    neg = next((c for c in gov.children if c.dep_ == "neg"), None)
    if neg is not None:
        if gov.lower_ == "going" and neg.lower_ in NEGATORS:
            return _remove_negator(doc, neg)
        return _fail("other_negation", gov.i)  # "don't have to be": removing it negates the obligation
    if to.i + 1 >= len(doc) or doc[to.i + 1].is_punct:
        return _fail("fragment", to.i)
    return Outcome(render(doc, insert_before={to.i + 1: "not"}), "not_after_to", to.i)


def _purpose(verb: Any) -> bool:
    """An infinitive of purpose: "defeated Blake to win the title", "changed the laws to reduce the deficit" (a
    "not" there reads as "so as not to"); not one with a subject of its own ("appealed for the Opposition to
    support"), nor after a passive or "be" ("has been found to improve", "it is important for X to remember")."""
    if verb.dep_ != "advcl" or any(c.dep_ in ("nsubj", "mark") for c in verb.children):
        return False
    head = verb.head
    return head.lemma_.lower() != "be" and not any(c.dep_ in ("auxpass", "nsubjpass") for c in head.children)


def _negate_after_aux(doc: Any, aux: Any) -> Outcome:
    if aux.tag_ == "TO":  # "to boost" -> "not to boost"
        return _negate_infinitive(doc, aux)
    if aux.tag_ == "VBG":  # "being improved" -> "not being improved"
        return Outcome(render(doc, insert_before={aux.i: "not"}), "not_before", aux.i)
    nxt = doc[aux.i + 1] if aux.i + 1 < len(doc) else None
    if (nxt is not None and nxt.dep_ in _SUBJECTS) or any(
        c.dep_ in _SUBJECTS and c.i > aux.i for c in (aux.head if aux.dep_ in ("aux", "auxpass") else aux).children
    ):
        return _fail("inverted_subject", aux.i)  # "Only if ... will the member states be willing"
    if any(c.dep_ == "expl" for c in aux.head.children) or any(c.dep_ == "expl" for c in aux.children):
        return _fail("existential_there", aux.i)  # "There is not also speculation": English says "no"
    if nxt is not None and nxt.lower_ in SENTENCE_ADVERBS:
        return _fail("adverb_after_auxiliary", aux.i)  # "we're not now", "is not also", "has not already"
    if aux.lower_ == "can":
        return Outcome(render(doc, replace={aux.i: match_case("cannot", aux.text)}), "aux_not", aux.i)
    if nxt is None:
        return _fail("fragment", aux.i)
    if nxt.is_punct:  # "He did, however, admit" -> "He did not, however, admit"
        return Outcome(render(doc, replace={aux.i: f"{aux.text} not"}), "aux_not", aux.i)
    return Outcome(render(doc, insert_before={nxt.i: "not"}), "aux_not", aux.i)


def negate_main(doc: Any) -> Outcome:
    """Negation (main): negate the main verb, or remove its "not". A "main" verb that opens with "if", "because",
    "when" ... or whose subject is "who" / "which" is in an embedded clause (a misparse): not negated."""
    v = main_verb(doc)
    if v is None:
        return _fail("no_main_verb")
    if _embedded(v):
        return _fail("embedded_clause", v.i)
    if not _has_subject(doc, v):
        return _fail("no_subject", v.i)
    if not v.whitespace_ and v.i + 1 < len(doc) and doc[v.i + 1].text == "-":
        return _fail("hyphenated", v.i)  # "can't possibly re-negotiate": the parse split the word
    return negate_verb(doc, v)


def _embedded(v: Any) -> bool:
    """A clause opened by "if", "because" ..., or with a relative subject ("who", "which", "whose album")."""
    if any(c.dep_ == "mark" and c.lower_ in SUBORDINATORS for c in v.children):
        return True
    subjects = [c for c in v.children if c.dep_ in _SUBJECTS]
    return any(c.tag_ in ("WDT", "WP") or any(g.tag_ == "WP$" for g in c.children) for c in subjects)


def _has_subject(doc: Any, v: Any) -> bool:
    """A subject of its own (or of the verb it is conjoined to), or an imperative that opens the sentence ("Do
    not touch"); a subjectless verb after other words is a misparse ("In high localities, smoked meat ...")."""
    auxes = [c for c in v.children if c.dep_ in ("aux", "auxpass")]
    for verb in (v, *auxes, v.head if v.dep_ == "conj" else None):
        if verb is not None and any(c.dep_ in _SUBJECTS for c in verb.children):
            return True
    group = {v.i, *(c.i for c in v.children if c.dep_ in ("aux", "neg"))}
    return all(t.is_punct or t.i in group for t in doc[: v.i])


def negate_adjective(doc: Any, adj: Any) -> Outcome:
    """Negate a predicative adjective through its linking verb ("will be available" -> "will not be available",
    "seemed happy" -> "did not seem happy"), or remove that verb's "not". An adjective before its noun is never
    negated ("India's not largest company" is not English): drop reason "attributive"."""
    head = adj.head
    if adj.dep_ in ("acomp", "attr") and head.i < adj.i and head.pos_ in ("AUX", "VERB"):
        out = negate_verb(doc, head)
        return Outcome(out.text, f"{out.info}:copula" if out.ok else out.info, out.token_i)
    return _fail("attributive", adj.i)


#: Conjunctions of time or condition whose clause reads wrongly with a "not" ("once the firm did not start
#: production", "until it is not clear", "unless they do not agree").
NEGATION_AVERSE_MARKS = frozenset(["once", "until", "till", "before", "unless", "when", "after", "since"])
#: Words that pair two conjoined verbs ("both quoted and praised it" -> "both quoted and did not praise it").
CORRELATIVES = frozenset(["both", "either", "neither"])


def negate_at(doc: Any, target: Any) -> Outcome:
    """Negation (antonym): negate the target word at its own position; not in a clause opened by "once", "until",
    "before", "unless", "when", "after" or "since" ("when the war did not begin"), nor the second verb of "both ...
    and"."""
    clause_head = target.head if target.pos_ == "ADJ" else target
    opener = (c for c in clause_head.children if c.dep_ in ("mark", "advmod") and c.i < clause_head.i)
    if any(c.lower_ in NEGATION_AVERSE_MARKS for c in opener):  # "once ..." is a mark, "when ..." an advmod
        return _fail("temporal_clause", target.i)
    if target.dep_ == "conj" and any(t.lower_ in CORRELATIVES for t in target.head.subtree if t.i < target.head.i):
        return _fail("correlative", target.i)
    if target.pos_ == "ADJ":
        return negate_adjective(doc, target)
    main = main_verb(doc)
    if main is not None and main.i == target.i:
        out = negate_verb(doc, target)
        return Outcome(out.text, f"{out.info}:main" if out.ok else out.info, out.token_i)
    bare = not any(c.dep_ in ("aux", "auxpass") for c in target.children)
    if target.tag_ == "VBG" and target.dep_ == "xcomp" and target.head.lemma_.lower() in ASPECTUAL_HEADS:
        return _fail("aspectual", target.i)  # "have stopped buying" -> "have stopped not buying"
    if target.tag_ == "VBN" and target.dep_ != "conj" and bare:
        return _fail("bare_participle", target.i)  # "the ban not imposed last year"
    bare_infinitive = target.dep_ in ("ccomp", "xcomp") and target.tag_ in ("VB", "VBP")
    if bare and bare_infinitive and target.head.i < target.i and target.head.lemma_.lower() == "help":
        return _fail("bare_infinitive", target.i)  # "helped boost profits" -> "helped not boost profits"
    if bare and bare_infinitive and target.head.i < target.i and target.head.lemma_.lower() in BARE_INFINITIVE_HEADS:
        return Outcome(render(doc, insert_before={target.i: "not"}), "not_before", target.i)  # "saw it not fall"
    return negate_verb(doc, target)
