"""WordNet relations, inflection, rendering (a/an, spacing)."""

from __future__ import annotations

import pytest

from n2o_core.evaluation.heros.edit import render
from n2o_core.evaluation.heros.inflect import article_for, inflect, match_case
from n2o_core.evaluation.heros.lexicon import related_lemmas, relations
from n2o_core.evaluation.heros.nlp import load_nlp


def test_relations_have_synonyms_and_antonyms_of_one_sense():
    rel = relations("weak", "a")
    assert rel is not None and rel.synset == "weak.a.01"
    assert "strong" in rel.antonyms and "feeble" in rel.synonyms
    rich = relations("rich", "a")
    assert rich is not None and rich.synonyms[0] == "wealthy" and rich.antonyms == ("poor",)
    rise = relations("rise", "v", context={"prices", "shares"})
    assert rise is not None and "fall" in rise.antonyms and rise.synonyms


@pytest.mark.parametrize("word, pos", [("boost", "v"), ("purple", "a"), ("wooden", "a")])
def test_word_without_antonym_has_no_relations(word, pos):
    assert relations(word, pos) is None


def test_far_similar_to_links_are_not_synonyms():
    # southern.a.01 reaches "gray" (Confederate) only through "similar to": not a synonym of "southern"
    rel = relations("southern", "a")
    assert rel is None or "gray" not in rel.synonyms
    # a "similar to" word counts only when that is its main sense; "strong" keeps none of them
    assert relations("strong", "a") is None


def test_related_lemmas_cover_all_senses():
    rel = related_lemmas("rise")
    assert {"rise", "fall", "lift"} <= rel


@pytest.mark.parametrize(
    "lemma, tag, form",
    [
        ("lower", "VBD", "lowered"),
        ("rise", "VBN", "risen"),
        ("weak", "JJR", "weaker"),
        ("fall", "VBZ", "falls"),
        ("fall", "VBG", "falling"),
        ("weak", "JJ", "weak"),
        ("potent", "JJR", None),
        ("xqzt", "VBD", None),
    ],
)
def test_inflect(lemma, tag, form):
    assert inflect(lemma, tag) == form


def test_case_and_articles():
    assert match_case("weak", "Strong") == "Weak"
    assert match_case("weak", "STRONG") == "WEAK"
    assert [article_for(w) for w in ["unimportant", "university", "hour", "minor", "European"]] == [
        "an",
        "a",
        "an",
        "a",
        "a",
    ]


def test_render_fixes_article_and_spacing():
    nlp = load_nlp()
    doc = nlp("It was an important win for the team this season.")
    assert render(doc, replace={3: "minor"}) == "It was a minor win for the team this season."
    doc = nlp("They didn't expect it.")
    assert render(doc, delete=[2]) == "They did expect it."
