"""Word tokens: `token_incidence` marks exactly the tokens `token_set` finds, text by text."""

from __future__ import annotations

import numpy as np

from n2o_core.text import SBERT_STOP_WORDS, token_incidence, token_set, tokenize

TEXTS = [
    "Don't stop: the U.S. economy grew 3.5% in 2024!",
    "",
    "   ",
    "ΟΔΥΣΣΕΥΣ sailed home\nacross the sea",  # a line break inside a text; Greek capitals ending in a final sigma
    "snake_case and CamelCase, l’été and naïve café",
    "the and of",  # stop words only
    "Don't stop: the U.S. economy grew 3.5% in 2024!",  # a repeat
]


def test_token_incidence_matches_token_set_per_text():
    for stop in (frozenset(), SBERT_STOP_WORDS):
        M = token_incidence(TEXTS, stop)
        # columns number the tokens (stop words and the line breaks between texts too, their columns left empty) in
        # order of first appearance (pandas.factorize, sort=False)
        vocab = list(dict.fromkeys(w for t in TEXTS for w in [*tokenize(t), "\n"]))
        rows = [frozenset(vocab[j] for j in M.indices[M.indptr[i] : M.indptr[i + 1]]) for i in range(M.shape[0])]
        assert rows == [token_set(t) - stop for t in TEXTS]
        assert set(np.unique(M.data)) <= {1.0}
    assert {"don't", "οδυσσευς", "l’été", "snake", "case"} <= set().union(*(token_set(t) for t in TEXTS))


def test_token_incidence_of_nothing():
    M = token_incidence([])
    assert M.shape[0] == 0 and M.nnz == 0


ASCII_TEXTS = [
    "Don't stop: 'quoted' rock'n'roll, a''b and x'y' -- O'NEIL's 3'4",
    "snake_case __dunder__ CamelCase 2024-11-25 e-mail",
    "",
    "tab\there and\x0bthere",
    "'''",
]


def test_token_incidence_of_ascii_text_matches_token_set():
    """ASCII text takes a simpler pattern (`_ASCII_TOKEN_OR_BREAK`): the same rows as token_set text by text."""
    M = token_incidence(ASCII_TEXTS)
    vocab = list(dict.fromkeys(w for t in ASCII_TEXTS for w in [*tokenize(t), "\n"]))
    rows = [frozenset(vocab[j] for j in M.indices[M.indptr[i] : M.indptr[i + 1]]) for i in range(M.shape[0])]
    assert rows == [token_set(t) for t in ASCII_TEXTS]
    assert {"don't", "rock'n'roll", "o'neil's", "3'4", "snake", "case", "dunder"} <= rows[0] | rows[1]


def test_ascii_token_pattern_equals_the_unicode_one_on_random_ascii():
    import random

    from n2o_core.text import _ASCII_TOKEN_OR_BREAK, _TOKEN_OR_BREAK

    rng = random.Random(0)
    alphabet = "aZ09_' \n-.’"[:-1]  # ASCII only
    for _ in range(5000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))).lower()
        assert _ASCII_TOKEN_OR_BREAK.findall(s) == _TOKEN_OR_BREAK.findall(s), s
