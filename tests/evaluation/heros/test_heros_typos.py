"""Typos: one edit (Damerau distance 1), never a real word, deterministic given the seed."""

from __future__ import annotations

import random

import pytest

from n2o_core.evaluation.heros.lexicon import is_english_word
from n2o_core.evaluation.heros.typos import common_misspellings, damerau_levenshtein, make_typo, one_edit_typo


def test_damerau_reference_values():
    assert damerau_levenshtein("boost", "boost") == 0
    assert damerau_levenshtein("boost", "bost") == 1
    assert damerau_levenshtein("boost", "bosot") == 1  # transposition
    assert damerau_levenshtein("boost", "boots") == 1  # adjacent transposition s<->t
    assert damerau_levenshtein("boost", "bots") == 2
    assert damerau_levenshtein("ca", "abc") == 3  # optimal string alignment (no edit of a transposed pair)
    assert damerau_levenshtein("", "abc") == 3


@pytest.mark.parametrize("op", ["deletion", "substitution", "transposition"])
def test_one_edit_typo_is_one_edit(op):
    rng = random.Random(0)
    for word in ["boosted", "illegal", "economy", "strong", "profits", "announced"]:
        typo, kind = one_edit_typo(word, rng, op=op)
        assert kind == op
        assert typo != word
        assert damerau_levenshtein(word, typo) == 1
        assert typo[0] == word[0]
        if op != "substitution":
            assert sorted(typo) == sorted(word) or len(typo) == len(word) - 1


def test_make_typo_edit_path_is_deterministic_and_not_a_word():
    a = make_typo("Boosted", random.Random(7), is_english_word, use_list=False)
    b = make_typo("Boosted", random.Random(7), is_english_word, use_list=False)
    assert a == b
    typo, how = a
    assert how.startswith("edit_") and typo[0] == "B"
    assert damerau_levenshtein("boosted", typo.lower()) == 1
    assert not is_english_word(typo)


def test_short_word_has_no_typo():
    assert make_typo("go", random.Random(0), is_english_word, use_list=False) == (None, "no_nonword_typo")


def test_common_misspelling_list():
    table = common_misspellings()
    if not table:
        pytest.skip("codespell is not installed")
    assert "beleive" in table["believe"]
    typo, how = make_typo("believe", random.Random(0), is_english_word)
    assert how == "misspelling_list" and typo in table["believe"]
