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
        "They should have done it afterwards if they were going to leave the club.",  # no vetted word
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


@pytest.mark.parametrize(
    "text, reason",
    [
        ("There is also speculation that the President will keep the dollar low.", "existential_there"),
        ("We're now the largest major on campus with 400 students this year.", "adverb_after_auxiliary"),
        ("But not everybody believes that outsourcing and offshoring are the solution.", "negative_subject"),
        ("Only if their rights are respected will the member states be willing to act.", "inverted_subject"),
        ("The latest scandal will do nothing to reassure foreign investors in the banks.", "negative_object"),
    ],
)
def test_negation_main_drops_what_reads_badly(nlp, text, reason):
    out = negate_main(nlp(text))
    assert out.text is None and out.info == reason


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
