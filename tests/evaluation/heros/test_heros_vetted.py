"""The vetted lexicon and the rules around it, on the failure classes a reader found in the WordNet pairs."""

from __future__ import annotations

import random

import pytest

from n2o_core.evaluation.heros.generate import ALL_SUBSETS, generate_pairs
from n2o_core.evaluation.heros.negation import negate_at, negate_main
from n2o_core.evaluation.heros.nlp import load_nlp
from n2o_core.evaluation.heros.typos import common_misspellings, damerau_levenshtein, make_typo
from n2o_core.evaluation.heros.vetted import entries, match, random_candidates, target_lemmas


@pytest.fixture(scope="module")
def nlp():
    return load_nlp()


def _targets(nlp, text):
    doc = nlp(text)
    return {t.text for t in doc if match(t, doc)}


def test_every_row_is_well_formed():
    rows = entries()
    assert len(target_lemmas()) >= 60
    for e in rows:
        assert e.pos in ("v", "a") and "/" in e.cls and e.takes, e
        if e.is_target:
            assert e.frame in ("trans", "intr", "that", "pred", "attr"), e
            assert e.lemma not in e.synonyms + e.antonyms and not set(e.synonyms) & set(e.antonyms), e


@pytest.mark.parametrize(
    "text",
    [
        "Sir Elton John performed at a concert in Paris to raise money for the victims.",  # raise money
        "Manchester United edged past Exeter City in their third round replay.",  # third round
        "The Scot finished third in the race at the Olympic stadium last year.",  # finished third
        "The fans were in high spirits before the game against their rivals.",  # high spirits
        "The hurdle was introduced for civil cases where burglars claimed compensation.",  # civil cases
        "The old law was repealed by the new government after a long debate.",  # attributive old
        "They should have done it afterwards if they were going to stay at the club.",  # no vetted word
    ],
)
def test_collocations_and_unvetted_words_are_no_targets(nlp, text):
    assert _targets(nlp, text) == set()


def test_context_conditions(nlp):
    assert _targets(nlp, "The company will raise prices for its customers next year.") == {"raise"}
    assert _targets(nlp, "Shares in the bank rose sharply after the results on Monday.") == {"rose"}
    assert _targets(nlp, "The singer rose to fame after a show on national television.") == set()  # subj not @qty
    assert _targets(nlp, "Analysts said it was likely that the bank would cut rates.") >= {"likely"}
    assert "likely" not in _targets(nlp, "The Bath fly-half is likely to start against France next week.")
    assert "start" not in _targets(nlp, "The Bath fly-half is likely to start against France next week.")


def test_negation_antonym_only_where_not_reads_well(nlp):
    doc = nlp("India's largest private company has bought a steel firm in Europe.")
    assert negate_at(doc, doc[3]).info == "attributive"
    doc = nlp("The sale of the steel mill was illegal, a court has ruled.")
    assert negate_at(doc, doc[6]).text == "The sale of the steel mill was not illegal, a court has ruled."
    doc = nlp("The German carmaker saw its profits fall to 785m euros from 2.4bn euros.")
    assert negate_at(doc, doc[6]).text == "The German carmaker saw its profits not fall to 785m euros from 2.4bn euros."


def test_negation_main_before_a_comma(nlp):
    doc = nlp("He did, however, admit that copyright owners have lost control of their copyright.")
    assert negate_main(doc).text.startswith("He did not, however, admit that")


def test_whether_or_not_keeps_its_not(nlp):
    doc = nlp("They want to find out whether or not they should allow the sale next year.")
    allow = next(t for t in doc if t.text == "allow")
    out = negate_at(doc, allow)
    assert out.text is None or "whether or not" in out.text


def test_typos_are_one_edit():
    rng = random.Random(0)
    for word in ["necessary", "believe", "receive", "government", "difficult", "separate", "accommodate"]:
        for _ in range(5):
            typo, how = make_typo(word, rng, lambda w: False)
            assert typo is not None and damerau_levenshtein(typo, word) == 1, (word, typo, how)
            assert typo[0] == word[0]
    if common_misspellings():
        assert "neccsessary" in common_misspellings().get("necessary", ())  # in the list, never used


def test_random_word_fits_the_slot_and_means_something_else(nlp):
    ps = generate_pairs(
        [
            "The owners said they were keen to expand into China during the next year.",
            "Shares in the bank rose 3.8% to 1,088 pence on Tuesday after the results.",
            "I'm sure you'll respect that politicians are entitled to a private life.",
        ],
        3,
    )
    rnd = ps.pairs[ps.pairs["subset"] == "random"].set_index("target")["replacement"].str.lower()
    assert set(ps.pairs["subset"]) == set(ALL_SUBSETS)
    assert rnd["keen"] in {"proud", "afraid", "lucky", "sorry", "careful", "excited", "surprised", "grateful"}
    assert rnd["rose"] in {"walked", "swam", "wandered"}  # takes a measure; not a quantity verb
    assert rnd["sure"] in {"proud", "afraid", "lucky", "sorry", "angry", "excited", "surprised", "upset", "grateful"}


def test_random_pool_never_shares_the_target_class():
    size = next(e for e in entries() if e.lemma == "large" and e.is_target)
    from n2o_core.evaluation.heros.vetted import Slot

    pool = random_candidates(size, Slot("a", "pred", (), frozenset(["pred"])))
    assert pool and "tall" not in pool and "large" not in pool and "big" not in pool


@pytest.mark.parametrize(
    ("text", "word"),
    [
        # the invalid pairs of the judged sample (docs/heros_sample.md, seed 7321): each class is no target now
        ("Chepkemei however took part and finished third in last Sunday's world best 10K race in Puerto Rico.",
         "finished"),  # a placing: "completed third", "started third"
        ("Southwest, which has the highest market value of any US carrier, said it would remain profitable.",
         "profitable"),  # "remain lucrative" of a company
        ("I can't believe that so many of these comments are against the minimum wage!", "believe"),  # astonishment
        ("But he said it was wrong to put China under the same embargo as other countries.", "wrong"),  # moral
        ("The minister wants to hit them where it hurts most by banning them from matches.", "banning"),  # permit from
        ("To be honest, I'm getting bored with all the drug scandals, especially Balco.", "honest"),  # fixed phrase
    ],
)  # fmt: skip
def test_the_judged_sample_failures_are_no_targets(nlp, text, word):
    assert word not in _targets(nlp, text)


def test_it_for_to_slot_takes_only_it_to_adjectives(nlp):
    """ "it will be difficult for anyone to start": a random adjective must read in "it is ADJ for X to" (not
    "sorry", "famous": the judged sample's two invalid random words)."""
    text = "Such sums mean it will be difficult for anyone to start a new game studio, said Mr Walsh."
    doc = nlp(text)
    tok = next(t for t in doc if t.text == "difficult")
    entry, slot = match(tok, doc)
    assert "it_to" in slot.needs
    words = random_candidates(entry, slot)
    assert words and "sorry" not in words and "famous" not in words


def test_do_support_uses_the_verbs_own_lemma(nlp):
    """spaCy lemmatizes "staged" as "stag"; the negation must read "did not stage"."""
    doc = nlp("Serena Williams staged a remarkable recovery to beat Lindsay Davenport and win the title.")
    out = negate_main(doc)
    assert out.text is not None and "did not stage a remarkable recovery" in out.text
