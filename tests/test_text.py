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
