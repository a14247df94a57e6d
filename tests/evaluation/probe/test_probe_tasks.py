"""The task generators on sentences parsed by the real spaCy model: the paper's own examples, then properties
of every generated item on a small corpus."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from probe_corpus import sentences

from n2o_core.corpora import from_texts
from n2o_core.evaluation.probe.parse import from_arrays, parse_texts
from n2o_core.evaluation.probe.tasks import Item, lowercase_words
from n2o_core.evaluation.probe.tasks_semantics import _coordination, coordinv, invert, objnum, somo, subjnum, tense
from n2o_core.evaluation.probe.tasks_syntax import (
    SENTLEN_BINS,
    bshift,
    longest_path,
    sentlen,
    top_constituents,
    tree_depth,
    treedepth,
    wc,
    wc_band,
)
from n2o_core.text import tokenize

PAPER = [
    "Then very dark gray letters on a black screen appeared.",  # TopConst: ADVP NP VP .
    "They might be only memories, but I can still feel each one.",  # CoordInv
    '"We won the cup," he said.',
    "The cat sat on the mat.",
    "The company has said it will grow.",
    "The companies sold three factories last year.",
    "Yesterday the minister wanted a new plan.",
]


def _tokens(text: str) -> list[str]:
    return re.findall(r"[\w']+|[^\w\s]", text)


@pytest.fixture(scope="module")
def paper():
    pc = from_arrays(parse_texts(PAPER))
    return pc, {s.text: s for s in pc.sentences}


@pytest.fixture(scope="module")
def small():
    return from_arrays(parse_texts(from_texts(sentences(160)).texts))


def test_parse_keeps_text_and_counts_words(paper):
    pc, by_text = paper
    assert set(by_text) == set(PAPER)  # tokens + whitespace reproduce every sentence exactly
    assert by_text["The cat sat on the mat."].n_words == 6
    assert by_text['"We won the cup," he said.'].n_words == 6
    assert pc.bigrams[("the", "cat")] == 1 and pc.unigrams["the"] >= 4


def test_top_constituents_of_the_papers_example(paper):
    _, s = paper
    assert top_constituents(s["Then very dark gray letters on a black screen appeared."]) == "ADVP NP VP ."
    assert top_constituents(s["They might be only memories, but I can still feel each one."]) == "S , CC S ."
    assert top_constituents(s['"We won the cup," he said.']) == "`` S , '' NP VP ."
    assert top_constituents(s["The cat sat on the mat."]) == "NP VP ."


def test_tree_depth_counts_words_on_the_longest_path(paper):
    _, s = paper
    cat = s["The cat sat on the mat."]
    assert [cat.words[i] for i in longest_path(cat)] == ["sat", "on", "mat", "the"]
    assert tree_depth(cat) == 4


def test_coordination_inversion_reproduces_the_papers_example(paper):
    pc, s = paper
    sent = s["They might be only memories, but I can still feel each one."]
    parts = _coordination(sent)
    assert parts is not None
    assert invert(sent, parts, lowercase_words(pc)) == "I can still feel each one, but they might be only memories."
    assert _coordination(s["The cat sat on the mat."]) is None


def test_tense_reads_the_finite_verb_of_the_main_clause(paper):
    pc, _ = paper
    got = {it.text: (it.label, it.note) for it in tense(pc).items}
    assert got["The company has said it will grow."] == ("present", "has")
    assert got["The companies sold three factories last year."] == ("past", "sold")


def test_number_tasks_label_the_head_noun_and_group_by_lemma(paper):
    pc, _ = paper
    subj = {it.text: it for it in subjnum(pc).items}
    obj = {it.text: it for it in objnum(pc).items}
    s = "The companies sold three factories last year."
    assert (subj[s].label, subj[s].group) == ("plural", "company")
    assert (obj[s].label, obj[s].group) == ("plural", "factory")
    assert subj["The company has said it will grow."].label == "singular"


def test_sentlen_bins_are_the_papers_six_equal_width_bins(small):
    assert SENTLEN_BINS == ((5, 8), (9, 12), (13, 16), (17, 20), (21, 24), (25, 28))
    for it in sentlen(small).items:
        lo, hi = map(int, it.label.split("-"))
        assert lo <= it.n_words <= hi


def test_wc_band_is_ranks_2000_to_2999_or_the_middle_third():
    def word(i: int) -> str:  # 0 -> "aaa", 1 -> "aab", ...
        return "".join(chr(97 + (i // 26**k) % 26) for k in (2, 1, 0))

    big = Counter({word(i): 10_000 - i for i in range(5000)})
    big["x1"] = 9_999  # not alphabetic: never in the band
    band = wc_band(big)
    assert band[0] == word(2000) and band[-1] == word(2999) and len(band) == 1000
    small = Counter({w: n for w, n in zip("abcdefghi", range(9, 0, -1))})
    assert wc_band(small) == list("def")


def test_wc_items_contain_exactly_one_band_word(small):
    cands = wc(small)
    band = set(cands.classes)
    assert cands.items
    for it in cands.items:
        words = {w.lower() for w in it.text.replace(",", " ").replace(".", " ").replace('"', " ").split()}
        assert words & band == {it.label}


def test_bshift_swaps_exactly_one_adjacent_pair(small):
    originals = {s.sid: s for s in small.sentences}
    shifted = [it for it in bshift(small, seed=1).items if it.label == "shifted"]
    assert len(shifted) > 50
    for it in shifted:
        src = originals[it.source]
        a, b = _tokens(it.text), _tokens(src.text)
        diff = [i for i in range(len(a)) if a[i].lower() != b[i].lower()]
        assert len(a) == len(b) and len(diff) == 2 and diff[1] == diff[0] + 1
        assert a[diff[0]].lower() == b[diff[1]].lower() and a[diff[1]].lower() == b[diff[0]].lower()
        assert it.text[0].isupper() or not it.text[0].isalpha()


GLUED = [
    "It has also emerged Mr Howard has suspended Slough's constituency association over the row.",
    "But the manager said his players don't show anything like the form of last season.",
    "Thanou, the women's 100m silver medallist, was suspended by the athletics federation.",
    "The long-term plan was approved by the board and the shareholders accepted it.",
]


def test_shifted_and_inverted_items_have_their_sources_words(small):
    """Swapping words or clauses only reorders the source's words: no clitic or hyphenated part is torn off
    (which would give a bag-of-words embedder new tokens to read), on the small corpus and on sentences full of
    glued tokens."""
    glued = from_arrays(parse_texts(GLUED))
    for pc in (small, glued):
        src = {s.sid: s.text for s in pc.sentences}
        items = [it for seed in range(30) for it in bshift(pc, seed=seed).items if it.generated]
        items += [it for it in coordinv(pc, seed=0).items if it.generated]
        assert items
        for it in items:
            assert Counter(tokenize(it.text)) == Counter(tokenize(src[it.source])), (src[it.source], it.text)


def test_somo_replacements_have_comparable_bigram_frequencies(small):
    originals = {s.sid: s for s in small.sentences}
    changed = [it for it in somo(small, seed=0).items if it.label == "changed"]
    assert len(changed) > 20
    for it in changed:
        src = originals[it.source]
        new = it.text.split(" ")
        old = src.text.split(" ")
        (i,) = [k for k in range(len(new)) if new[k] != old[k]]
        o, r = old[i].strip('.,"'), new[i].strip('.,"')
        assert it.group == r and r != o
        k = src.words.index(o)
        left, right = src.words[k - 1].lower(), src.words[k + 1].lower()
        for a, b in (((left, o), (left, r)), ((o, right), (r, right))):
            assert abs(math.log2(small.bigrams[b]) - math.log2(small.bigrams[a])) <= 1


def test_coordinv_pairs_share_one_clause_length_profile(small):
    cands = coordinv(small, seed=0)
    assert cands.matched and cands.items
    units: dict[int, list[Item]] = {}
    for it in cands.items:
        units.setdefault(it.unit, []).append(it)
    shown = from_arrays(parse_texts([it.text for it in cands.items]))
    profile = {}
    for s in shown.sentences:  # first-minus-second clause length of each sentence as shown
        parts = _coordination(s) if len(s.roots) == 1 else None
        if parts is not None:
            profile[s.text] = sum(s.is_word(i) for i in parts[1]) - sum(s.is_word(i) for i in parts[3])
    compared = 0
    for pair in units.values():
        assert sorted(it.label for it in pair) == ["inverted", "original"]
        if all(it.text in profile for it in pair):  # an inverted sentence may parse otherwise
            assert profile[pair[0].text] == profile[pair[1].text]
            compared += 1
    assert compared >= len(units) // 2


def test_treedepth_tuples_have_one_sentence_per_class_and_equal_length(small):
    cands = treedepth(small, seed=0)
    assert cands.matched and len(cands.classes) >= 2
    units: dict[int, list[Item]] = {}
    for it in cands.items:
        units.setdefault(it.unit, []).append(it)
    for unit in units.values():
        assert sorted(it.label for it in unit) == sorted(cands.classes)
        assert len({it.n_words for it in unit}) == 1
