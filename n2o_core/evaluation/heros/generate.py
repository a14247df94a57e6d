"""Generate HEROS-style minimal pairs from any corpus.

For each original sentence (8-25 words, not a question) one target word is chosen: a verb, or an adjective after
a linking verb, listed in the hand-vetted lexicon (`vetted.py`, `data/vetted_lexicon.csv`) for the context it is
in (its object, subject, head noun, next word). Heros chose replacements by hand (§2.2.3); an earlier WordNet route
(any sense with synonyms and antonyms, chosen by gloss overlap) made too many wrong-sense pairs ("raise money" ->
"lift money", "civil cases" -> "polite cases") to meet a reader's check, so it is gone: a word the vetted lexicon
does not list for its context is never a target. Six variants are made:

- synonym / antonym: the row's first synonym / antonym re-inflected to the target's Penn tag (LemmInflect); one
  that cannot take the tag (no synthetic comparative) or is already in the sentence is passed over.
- typo: a listed common misspelling one edit away, else one deletion / substitution / transposition.
- random: a vetted word of another meaning class that takes the target's frame (object, clause, "to", "of" ...)
  in the target's inflection (or a masked-LM fill with `mlm_model`).
- negation_main: the main verb negated (do-support / auxiliary + "not"), or its "not" removed.
- negation_antonym: the target itself negated in place ("did not boost", "was not cheap"), or its "not" removed;
  never an adjective before its noun (drop reason "attributive").

With `aligned=True` (default, as in Heros) an original is kept only if every requested rule
succeeded, so all subsets share the same originals. Up to `max_targets` candidate words are tried
per sentence; every failed rule application (e.g. a synonym that cannot take the target's tense) is
counted in `PairSet.dropped[rule][reason]`, rules being tried in subset order until one fails.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.edit import render
from n2o_core.evaluation.heros.inflect import has_synthetic_comparative, inflect, match_case
from n2o_core.evaluation.heros.lexicon import is_english_word
from n2o_core.evaluation.heros.negation import Outcome, negate_at, negate_main
from n2o_core.evaluation.heros.nlp import load_nlp
from n2o_core.evaluation.heros.random_word import MaskedLMFiller, pick_vetted_word
from n2o_core.evaluation.heros.subsets import ALL_SUBSETS
from n2o_core.evaluation.heros.typos import make_typo
from n2o_core.evaluation.heros.vetted import Entry, Slot, match
from n2o_core.runtime.progress import Progress, report
from n2o_core.text import tokenize

PAIR_COLUMNS = ["subset", "original", "variant", "target", "replacement", "pos", "tag", "method", "sense"]

VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
ADJ_TAGS = frozenset({"JJ", "JJR", "JJS"})
_END = re.compile(r"""[.!]["'”’)]*$""")
_START = re.compile(r"""^["'“‘(]*[A-Z0-9]""")


@dataclass
class PairSet:
    """Generated pairs plus what was dropped and why.

    `pairs`: DataFrame with PAIR_COLUMNS (one row per original x subset).
    `dropped[subset][reason]`: originals with a valid target whose variant for that subset failed.
    `skipped[reason]`: sentences tried and rejected before any rule (length, question, no target...).
    `n_sentences`: distinct sentences of the corpus; `n_tried`: those read (in seeded random order) before every
    subset had its pairs, so `n_tried == n_sentences` when the corpus ran out first; `n_asked`: pairs asked per subset.
    """

    pairs: pd.DataFrame
    dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    n_originals: int = 0
    n_parsed: int = 0
    n_sentences: int = 0
    n_tried: int = 0
    n_asked: int = 0

    def counts(self) -> dict[str, int]:
        """Pairs per subset."""
        return {str(k): int(v) for k, v in self.pairs["subset"].value_counts().items()}

    @property
    def exhausted(self) -> bool:
        """Whether every sentence of the corpus was tried (a request above what the corpus gives)."""
        return self.n_tried >= self.n_sentences

    def yields(self) -> dict[str, float]:
        """Pairs made per subset / sentences tried (0 when none was tried)."""
        return {s: (n / self.n_tried if self.n_tried else 0.0) for s, n in self.counts().items()}


#: Heros' length filter (§2.2.1: "more than 8 words and less than 25 words"), read as 8 to 25 words.
MIN_WORDS, MAX_WORDS = 8, 25


def sentence_filter(text: str, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS) -> str | None:
    """Why `text` cannot be an original (None when it can): length, question, not a full sentence."""
    if "?" in text:
        return "question"
    n = len(tokenize(text))
    if n < min_words or n > max_words:
        return "length"
    if not _START.match(text) or not _END.search(text):
        return "not_a_sentence"
    return None


def _is_candidate(t: Any, doc: Any) -> bool:
    """A verb or adjective that can be a target whatever the lexicon says: a lowercase word (or the sentence's
    first), in a clause role, not a phrasal verb, not hyphenated, not in quotes by itself, not a verb before its
    "to"-infinitive."""
    if (t.pos_ != "VERB" or t.tag_ not in VERB_TAGS) and (t.pos_ != "ADJ" or t.tag_ not in ADJ_TAGS):
        return False
    if not t.is_alpha or not t.text[1:].islower() or (t.text[:1].isupper() and t.i != _first_alpha(doc)):
        return False
    if any(c.dep_ == "prt" for c in t.children):  # phrasal verb: "set up"
        return False
    if not _clause_role(t) or _selects_infinitive(t, doc):
        return False
    if t.i > 0 and doc[t.i - 1].tag_ == "HYPH" and not doc[t.i - 1].whitespace_:  # "well-known"
        return False
    if 0 < t.i < len(doc) - 1 and doc[t.i - 1].is_quote and doc[t.i + 1].is_quote:
        return False  # a word mentioned, not used: 'whose meaning is "big"'
    return not (t.i + 1 < len(doc) and doc[t.i + 1].tag_ == "HYPH" and not t.whitespace_)


#: Dependency roles of a verb heading a clause, and of an adjective used as an adjective.
VERB_DEPS = frozenset({"ROOT", "ccomp", "xcomp", "advcl", "relcl", "conj", "pcomp", "csubj", "parataxis", "acl"})
ADJ_DEPS = frozenset({"amod", "acomp", "conj", "xcomp", "ccomp", "advcl", "oprd", "attr"})


def _clause_role(t: Any) -> bool:
    """False for words tagged verb/adjective but used as nouns ("a $337m hit", "a personal best",
    "my first final") and for participles used as adjectives ("the damaged goods")."""
    kids = list(t.children)
    if any(c.dep_ in ("det", "poss") for c in kids):
        return False
    if t.tag_ == "VBG" and any(c.dep_ == "nsubj" and any(g.dep_ == "case" for g in c.children) for c in kids):
        return False  # "the state's expanding industry": a participle before its noun, not a verb
    if t.pos_ == "ADJ":
        return t.dep_ in ADJ_DEPS
    if t.dep_ not in VERB_DEPS:
        return False
    return t.dep_ != "acl" or bool(kids)  # a bare "acl" participle is a mis-tagged noun


def _selects_infinitive(t: Any, doc: Any) -> bool:
    """A verb right before its own "to"-infinitive ("continue to", "agree to"): a replacement verb often cannot
    take one."""
    if t.pos_ != "VERB" or t.i + 1 >= len(doc):
        return False
    nxt = doc[t.i + 1]
    return nxt.tag_ == "TO" and nxt.head.head.i == t.i


def _first_alpha(doc: Any) -> int:
    return next((t.i for t in doc if t.is_alpha), -1)


#: Inflections LemmInflect makes that no one writes.
BAD_FORMS = frozenset(["huger", "hugest", "rapider", "rapidest", "commoner", "commonest"])


@dataclass
class _Target:
    token: Any
    entry: Entry
    slot: Slot

    @property
    def lemma(self) -> str:
        return self.entry.lemma

    @property
    def sense(self) -> str:
        return f"vetted:{self.entry.lemma}.{self.entry.pos}.{self.entry.frame}.{self.entry.row}"


def replacement_form(lemma: str, tag: str) -> str | None:
    """`lemma` in the target's Penn `tag`, or None when it has no such single-word form (no "huger")."""
    form = inflect(lemma, tag)
    return None if form is None or form.lower() in BAD_FORMS else form


def _present(doc: Any, tok: Any) -> set[str]:
    """The sentence's words and their lemmas (lowercase), but for the target's own lemma: a replacement already in
    the sentence, in any form, would repeat it ("to win a title by claiming the doubles" -> "to claim a title by
    claiming")."""
    words = {t.lower_ for t in doc}
    return words | {t.lemma_.lower() for t in doc if t.i != tok.i and t.lemma_.lower() != tok.lemma_.lower()}


def _form_in_place(doc: Any, tok: Any) -> Callable[[str, str], str | None]:
    """`replacement_form` for token `tok`'s place: after "more"/"most" ("more common") an adjective must compare
    with "more" too ("more tall" is not English; "more widespread" is)."""
    after_more = tok.pos_ == "ADJ" and tok.i > 0 and doc[tok.i - 1].lower_ in ("more", "most")

    def form(lemma: str, tag: str) -> str | None:
        if after_more and has_synthetic_comparative(lemma):
            return None
        return replacement_form(lemma, tag)

    return form


class _Generator:
    def __init__(self, subsets: Sequence[str], use_typo_list: bool, mlm: MaskedLMFiller | None):
        self.subsets = list(subsets)
        self.use_typo_list = use_typo_list
        self.mlm = mlm
        self.words: set[str] = set()

    def observe(self, doc: Any) -> None:
        for t in doc:
            if t.is_alpha:
                self.words.add(t.lower_)

    def is_word(self, w: str) -> bool:
        return w.lower() in self.words or is_english_word(w)

    def targets(self, doc: Any, rng: random.Random, limit: int) -> list[_Target]:
        """Up to `limit` candidate targets in random order, each matching a vetted lexicon row in its context."""
        cands = [t for t in doc if _is_candidate(t, doc)]
        rng.shuffle(cands)
        out: list[_Target] = []
        for t in cands:
            found = match(t, doc)
            if found is not None:
                out.append(_Target(t, *found))
                if len(out) >= limit:
                    break
        return out

    def _replace(self, doc: Any, tgt: _Target, lemmas: Sequence[str]) -> tuple[str | None, str, str]:
        tok = tgt.token
        present = _present(doc, tok)
        form_of = _form_in_place(doc, tok)
        for lemma in lemmas:  # the vetted order: best first
            form = form_of(lemma, tok.tag_)
            if form is None or form.lower() == tok.lower_:
                continue
            if form.lower() in present or lemma in present:  # "male and female", "win ... by claiming" -> "claim"
                continue
            new = match_case(form, tok.text)
            return render(doc, replace={tok.i: new}), new, "vetted"
        return None, "", "no_inflection"

    def variant(self, subset: str, doc: Any, tgt: _Target, rng: random.Random) -> tuple[str | None, str, str]:
        """(variant, replacement, method-or-drop-reason) for one subset."""
        tok = tgt.token
        if subset == "synonym":
            return self._replace(doc, tgt, tgt.entry.synonyms)
        if subset == "antonym":
            return self._replace(doc, tgt, tgt.entry.antonyms)
        if subset == "typo":
            typo, how = make_typo(tok.text, rng, self.is_word, use_list=self.use_typo_list)
            if typo is None:
                return None, "", how
            return render(doc, replace={tok.i: typo}), typo, how
        if subset == "random":
            if self.mlm is not None:
                word, how = self.mlm.fill(doc, tok.i, tgt.lemma, tok.tag_), "masked_lm"
            else:
                present = _present(doc, tok)
                form_of = _form_in_place(doc, tok)
                word, how = pick_vetted_word(tgt.entry, tgt.slot, tok.tag_, rng, present, form_of), "vetted"
            if word is None:
                return None, "", "no_random_word"
            word = match_case(word, tok.text)
            return render(doc, replace={tok.i: word}), word, how
        if subset in ("negation_main", "negation_antonym"):
            out: Outcome = negate_main(doc) if subset == "negation_main" else negate_at(doc, tok)
            changed = doc[out.token_i].text if out.ok and out.token_i >= 0 else ""
            return out.text, changed, out.info
        raise N2OError(f"Unknown Heros subset '{subset}'; use one of {', '.join(ALL_SUBSETS)}.")


def _shuffled_sentences(texts: Sequence[str], seed: int) -> list[str]:
    """The distinct sentences (whitespace normalized), in seeded random order: the order they are tried in."""
    out = list(dict.fromkeys(t for t in (" ".join(str(raw).split()) for raw in texts) if t))
    random.Random(seed).shuffle(out)
    return out


def _chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def generate_pairs(
    texts: Sequence[str],
    n_per_subset: int,
    seed: int = 0,
    subsets: Sequence[str] = ALL_SUBSETS,
    *,
    min_words: int = MIN_WORDS,
    max_words: int = MAX_WORDS,
    aligned: bool = True,
    use_typo_list: bool = True,
    mlm_model: str | None = None,
    chunk_size: int = 1024,
    max_targets: int = 3,
    progress: Progress | None = None,
) -> PairSet:
    """Up to `n_per_subset` HEROS-style pairs per subset from `texts` (deterministic given `seed`).

    `mlm_model`: a fill-mask model name/path for the random subset (default: a vetted word of another class).
    `max_targets`: candidate target words tried per sentence before it is given up ("incomplete"). Stage "pairs"
    (pairs made in the subset with the fewest, of `n_per_subset`) reported to `progress`.
    """
    unknown = [s for s in subsets if s not in ALL_SUBSETS]
    if unknown:
        raise N2OError(f"Unknown Heros subset '{unknown[0]}'; use one of {', '.join(ALL_SUBSETS)}.")
    if n_per_subset < 1:
        raise N2OError("The number of pairs per subset must be at least 1.")
    skipped: Counter[str] = Counter()
    sentences = _shuffled_sentences(texts, seed)
    why = [sentence_filter(t, min_words, max_words) for t in sentences]
    where = [k for k, w in enumerate(why) if w is None]  # position of each candidate among the sentences
    cands = [sentences[k] for k in where]
    mlm = MaskedLMFiller(mlm_model) if mlm_model and "random" in subsets else None
    gen = _Generator(subsets, use_typo_list, mlm)
    nlp = load_nlp()
    dropped: dict[str, Counter[str]] = {s: Counter() for s in subsets}
    rows: list[dict[str, str]] = []
    counts: Counter[str] = Counter()
    n_orig = n_parsed = 0
    last = -1  # the last candidate read
    done = False
    for start, chunk in zip(range(0, len(cands), chunk_size), _chunks(cands, chunk_size)):
        docs = list(nlp.pipe(chunk, batch_size=128))
        n_parsed += len(docs)
        for doc in docs:
            gen.observe(doc)
        for k, (text, doc) in enumerate(zip(chunk, docs), start):
            if all(counts[s] >= n_per_subset for s in subsets):
                done = True
                break
            last = k
            made = _pairs_for(gen, text, doc, seed, subsets, aligned, max_targets, dropped, skipped)
            made = [m for m in made if counts[m["subset"]] < n_per_subset]
            if not made:
                continue
            n_orig += 1
            for m in made:
                counts[m["subset"]] += 1
            rows.extend(made)
            report(progress, "pairs", min(counts[s] for s in subsets), n_per_subset)
        if done:
            break
    full = all(counts[s] >= n_per_subset for s in subsets)
    n_tried = where[last] + 1 if full and last >= 0 else len(sentences)
    skipped.update(w for w in why[:n_tried] if w is not None)
    pairs = pd.DataFrame(rows, columns=PAIR_COLUMNS)
    order = {s: k for k, s in enumerate(ALL_SUBSETS)}
    pairs = pairs.sort_values("subset", key=lambda c: c.map(order), kind="stable").reset_index(drop=True)
    return PairSet(
        pairs=pairs,
        dropped={s: dict(c) for s, c in dropped.items()},
        skipped=dict(skipped),
        n_originals=n_orig,
        n_parsed=n_parsed,
        n_sentences=len(sentences),
        n_tried=n_tried,
        n_asked=int(n_per_subset),
    )


def _pairs_for(
    gen: _Generator,
    text: str,
    doc: Any,
    seed: int,
    subsets: Sequence[str],
    aligned: bool,
    max_targets: int,
    dropped: dict[str, Counter[str]],
    skipped: Counter[str],
) -> list[dict[str, str]]:
    """The rows for one original: the first target (in seeded random order) for which every rule
    works; each failed rule on each tried target is counted in `dropped[rule][reason]`."""
    if sum(1 for t in doc if t.dep_ == "ROOT") != 1:
        skipped["multiple_sentences"] += 1
        return []
    rng = random.Random(f"{seed}\x00{text}")
    tgts = gen.targets(doc, rng, max_targets)
    if not tgts:
        skipped["no_target"] += 1
        return []
    main: Outcome | None = None
    if "negation_main" in subsets:  # does not depend on the target: computed (and counted) once
        main = negate_main(doc)
        if not main.ok:
            dropped["negation_main"][main.info] += 1
            if aligned:
                skipped["incomplete"] += 1
                return []
    best: list[dict[str, str]] = []
    for tgt in tgts:
        made = _rows_for_target(gen, text, doc, tgt, rng, subsets, main, aligned, dropped)
        if len(made) == len(subsets):
            return made
        if len(made) > len(best):
            best = made
    if aligned or not best:
        skipped["incomplete"] += 1
        return []
    return best


def _rows_for_target(
    gen: _Generator,
    text: str,
    doc: Any,
    tgt: _Target,
    rng: random.Random,
    subsets: Sequence[str],
    main: Outcome | None,
    aligned: bool,
    dropped: dict[str, Counter[str]],
) -> list[dict[str, str]]:
    """The rows one target gives, subset by subset; a failed rule is counted in `dropped[rule][reason]` (and,
    when `aligned`, ends the target's rows)."""
    made: list[dict[str, str]] = []
    for s in subsets:
        if s == "negation_main":
            assert main is not None
            var, info = main.text, main.info
            repl = doc[main.token_i].text if main.ok and main.token_i >= 0 else ""
        else:
            var, repl, info = gen.variant(s, doc, tgt, rng)
        if var is not None and var == text:
            var, info = None, "unchanged"
        if var is None:
            if s != "negation_main":
                dropped[s][info] += 1
            if aligned:
                break
            continue
        made.append(_row(s, text, var, tgt, repl, info))
    return made


def _row(subset: str, text: str, var: str, tgt: _Target, repl: str, info: str) -> dict[str, str]:
    return {
        "subset": subset,
        "original": text,
        "variant": var,
        "target": tgt.token.text,
        "replacement": repl,
        "pos": tgt.token.pos_,
        "tag": tgt.token.tag_,
        "method": info,
        "sense": tgt.sense,
    }
