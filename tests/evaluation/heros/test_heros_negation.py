"""Negation rules on hand-written sentences (spaCy parse): do-support, auxiliaries, removing "not"."""

from __future__ import annotations

import pytest

from n2o_core.evaluation.heros.negation import main_verb, negate_at, negate_main
from n2o_core.evaluation.heros.nlp import load_nlp


@pytest.fixture(scope="module")
def nlp():
    return load_nlp()


@pytest.mark.parametrize(
    "sentence, expected, method",
    [
        # do-support with the right auxiliary for tense and number
        (
            "The firm boosted its profits sharply in the last quarter of the year.",
            "The firm did not boost its profits sharply in the last quarter of the year.",
            "do_support",
        ),
        (
            "The new manager boosts sales in every region she takes over.",
            "The new manager does not boost sales in every region she takes over.",
            "do_support",
        ),
        (
            "Farmers in the region boost their income by selling solar power.",
            "Farmers in the region do not boost their income by selling solar power.",
            "do_support",
        ),
        # auxiliaries, modals, copula
        (
            "Prices will rise sharply over the next year across the country.",
            "Prices will not rise sharply over the next year across the country.",
            "aux_not",
        ),
        (
            "The company has been hit hard by the strong euro this year.",
            "The company has not been hit hard by the strong euro this year.",
            "aux_not",
        ),
        (
            "The company can afford the new plant in the north of England.",
            "The company cannot afford the new plant in the north of England.",
            "aux_not",
        ),
        (
            "The economy is strong this year despite the global crisis.",
            "The economy is not strong this year despite the global crisis.",
            "aux_not",
        ),
        # already negated: the "not" is removed, the auxiliary kept (paper's Table 2 example)
        (
            "You do not know how much that boosted my self-esteem right now.",
            "You do know how much that boosted my self-esteem right now.",
            "remove_not",
        ),
        (
            "They didn't expect the shares to fall so fast after the results.",
            "They did expect the shares to fall so fast after the results.",
            "remove_not",
        ),
        (
            "It can't be done before the end of the year, officials warned.",
            "It can be done before the end of the year, officials warned.",
            "remove_not",
        ),
        # post-posed reporting verb: the reported clause's verb is the main one
        (
            "We won't raise taxes in the next parliament, the chancellor said.",
            "We will raise taxes in the next parliament, the chancellor said.",
            "remove_not",
        ),
    ],
)
def test_negate_main(nlp, sentence, expected, method):
    out = negate_main(nlp(sentence))
    assert out.text == expected
    assert out.info == method


def test_other_negations_are_dropped(nlp):
    assert negate_main(nlp("He never expected the shares to fall so fast after the results.")).info == "other_negation"
    out = negate_main(nlp("I am not at all tempted to get rid of my old phone."))
    assert out.text is None and out.info == "other_negation"


def test_main_verb_skips_reporting_clause(nlp):
    doc = nlp("Sales rose sharply in the last three months of the year, the firm said.")
    assert main_verb(doc).text == "rose"


def test_negation_at_verb_target_uses_do_support(nlp):
    doc = nlp("You do not know how much that boosted my self-esteem right now.")
    out = negate_at(doc, doc[7])
    assert out.text == "You do not know how much that did not boost my self-esteem right now."


def test_negation_at_adjective(nlp):
    # an adjective before its noun is never negated in place ("India's not largest private company")
    doc = nlp("The strong economy helped the government win the election last year.")
    out = negate_at(doc, doc[1])
    assert out.text is None and out.info == "attributive"
    doc = nlp("India's largest private company has bought a steel firm in Europe.")
    assert negate_at(doc, doc[3]).info == "attributive"
    doc = nlp("Ministers will be available to answer questions from the public next week.")
    assert (
        negate_at(doc, doc[3]).text == "Ministers will not be available to answer questions from the public next week."
    )
    doc = nlp("The economy is not strong this year despite the global crisis.")
    assert negate_at(doc, doc[4]).text == "The economy is strong this year despite the global crisis."


def test_sentence_case_is_kept(nlp):
    doc = nlp("Strong sales helped the firm beat forecasts in the last quarter.")
    assert negate_at(doc, doc[0]).info == "attributive"
    doc = nlp("Boost your savings with the new account from the bank today.")
    assert negate_main(doc).text == "Do not boost your savings with the new account from the bank today."
