"""The zero-vector rule end to end: an all-OOV sentence is an exact zero row (never NaN); in exact_knn it is
ranked after every real candidate and, as a query, has no neighbors (see n2o_core.search.exact)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from n2o_core.embedders import get_embedder, registry
from n2o_core.search.exact import exact_knn
from n2o_core.search.result import NO_NEIGHBOR

OOV = "zzqxv wqkkj"  # no token known to any vocabulary below
ZERO_ROWS_FOR = ("tfidf", "glove-6b-50d", "word2vec", "fasttext")


def _embed(embedder_id, corpus):
    """Embedder fit on a corpus whose sentences 40 and 41 have no usable token, and that corpus' vectors.

    Otherwise: sentence 40 has only words seen once (below word2vec/fastText's min_count 2, unknown to GloVe) and
    41 is punctuation only. For tf-idf (whose vocabulary is every corpus word) both hold only 'the', a word of
    every sentence, whose idf is 0.
    """
    e = get_embedder(embedder_id)
    empty = [OOV, "?!"] if embedder_id != "tfidf" else ["the", "The?!"]
    texts = corpus[:40] + empty + corpus[40:60]
    assert all(t.startswith("The ") for t in corpus[:60])
    e.fit(texts)
    return e, texts, e.encode(texts)


@pytest.mark.parametrize("embedder_id", ZERO_ROWS_FOR)
def test_all_oov_sentence_is_zero_and_never_a_neighbor_ahead_of_real_rows(embedder_id, corpus):
    _e, texts, X = _embed(embedder_id, corpus)
    zero = [40, 41]
    dense = X.toarray() if sp.issparse(X) else X
    assert np.isfinite(dense).all()
    assert not dense[zero].any() and np.abs(dense).sum(axis=1)[np.r_[0:40, 42:62]].min() > 0
    n = len(texts)
    nb = exact_knn(X, k=n - 1, query_ids=np.arange(n))
    assert np.isfinite(nb.sims).all()
    # a zero query has no neighbors
    assert (nb.ids[zero] == NO_NEIGHBOR).all() and (nb.sims[zero] == 0).all()
    # every real query lists all 59 other real rows first, the two zero rows last (cosine reported as 0)
    for q in np.r_[0:40, 42:62]:
        assert set(nb.ids[q, -2:]) == set(zero), (q, nb.ids[q, -3:])
        assert (nb.sims[q, -2:] == 0).all()
        assert not np.isin(nb.ids[q, :-2], zero).any()
    # small k: a zero row is never in anyone's top 5
    top = exact_knn(X, k=5, query_ids=np.arange(n))
    assert not np.isin(top.ids, zero).any()


@pytest.mark.parametrize("embedder_id", ("tfidf", "word2vec"))
def test_zero_free_text_query_gets_no_neighbors(embedder_id, corpus):
    e, _, X = _embed(embedder_id, corpus)
    q = e.encode([OOV])
    nb = exact_knn(X, k=3, queries=q)
    assert nb.ids.tolist() == [[NO_NEIGHBOR] * 3] and nb.sims.tolist() == [[0.0] * 3]


def test_zero_rows_rank_after_negative_cosines():
    """'Last' means after every real candidate, even one pointing the opposite way."""
    X = np.array([[1.0, 0.0], [0.0, 0.0], [-1.0, 0.1], [0.9, 0.1]], dtype=np.float32)
    nb = exact_knn(X, k=3, query_ids=[0])
    assert nb.ids.tolist() == [[3, 2, 1]]
    assert nb.sims[0, 1] < 0 and nb.sims[0, 2] == 0


def test_registry_docstring_states_the_rule():
    doc = " ".join(registry.__doc__.split())
    assert "all-zero row" in doc and "never NaN" in doc
    assert "after every real candidate" in doc and "no neighbors" in doc
