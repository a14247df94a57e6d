"""Word tokens: `token_incidence` marks exactly the tokens `token_set` finds, text by text."""

from __future__ import annotations

import numpy as np

from n2o_core.text import SBERT_STOP_WORDS, token_incidence, token_set

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
        assert _rows(TEXTS, stop) == [token_set(t) - stop for t in TEXTS]
    assert {"don't", "οδυσσευς", "l’été", "snake", "case"} <= set().union(*(token_set(t) for t in TEXTS))


def _rows(texts: list[str], stop: frozenset[str] = frozenset()) -> list[frozenset[str]]:
    """The token set of each row of `token_incidence(texts, stop)`, read through its vocabulary."""
    M, vocab = token_incidence(texts, stop)
    assert M.shape[0] == len(texts) and set(np.unique(M.data)) <= {1.0}
    assert len(set(vocab.tolist())) == len(vocab)  # one column per token
    return [frozenset(vocab[j] for j in M.indices[M.indptr[i] : M.indptr[i + 1]]) for i in range(M.shape[0])]


def test_token_incidence_of_nothing():
    for texts in ([], [""], ["", " ", "--"]):
        M, _ = token_incidence(texts)
        assert M.shape[0] == len(texts) and M.nnz == 0


ASCII_TEXTS = [
    "Don't stop: 'quoted' rock'n'roll, a''b and x'y' -- O'NEIL's 3'4",
    "snake_case __dunder__ CamelCase 2024-11-25 e-mail",
    "",
    "tab\there and\x0bthere",
    "'''",
]


def test_token_incidence_of_ascii_text_matches_token_set():
    """ASCII text is split by numpy and pyarrow, not the regex: the same rows as token_set text by text."""
    rows = _rows(ASCII_TEXTS)
    assert rows == [token_set(t) for t in ASCII_TEXTS]
    assert {"don't", "rock'n'roll", "o'neil's", "3'4", "snake", "case", "dunder"} <= rows[0] | rows[1]


def test_ascii_incidence_equals_token_set_on_random_ascii():
    """Random ASCII texts (apostrophes at a text's ends and beside line breaks, underscores, tabs, capitals), 50
    per call so that texts meet at the joins: every row is exactly the text's token_set."""
    import random

    rng = random.Random(0)
    alphabet = "aZ09_' \n\t-.'"
    for _ in range(100):
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(50)]
        assert _rows(texts) == [token_set(t) for t in texts], texts


def test_non_ascii_texts_take_the_unicode_tokenizer():
    texts = ["caf\u00e9 don\u2019t", "plain ascii's text", "na\u00efve_caf\u00e9"]
    assert _rows(texts, frozenset({"text"})) == [token_set(t) - {"text"} for t in texts]
