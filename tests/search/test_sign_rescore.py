"""Binary search with rescoring: the same neighbors as sentence-transformers' `semantic_search_faiss(...,
corpus_precision="ubinary", rescore=True)`, and as a brute-force statement of the route (Hamming r·k candidates,
then the float query's score with each candidate's bits)."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.errors import N2OError
from n2o_core.search.result import NO_NEIGHBOR
from n2o_core.search.sign_rescore import rescore_count, sign_rescore_knn

_POP = np.array([bin(i).count("1") for i in range(256)], np.int64)


def brute_force(bits, dim, k, r, floats, query_ids):
    """Hamming candidates by (distance, id), self excluded; re-ranked by q . b (bits as 0/1) desc, then id."""
    out = []
    B = np.unpackbits(bits, axis=1, count=dim).astype(np.float64)
    for q, f in zip(query_ids, floats):
        D = _POP[np.bitwise_xor(bits[q], bits)].sum(-1)
        ids = np.arange(len(bits))
        keep = ids != q
        cand = ids[keep][np.lexsort((ids[keep], D[keep]))[: r * k]]
        score = np.round(B[cand] @ f.astype(np.float64), 9)
        out.append(cand[np.lexsort((cand, -score))][:k])
    return np.array(out)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    C = rng.standard_normal((2000, 64)).astype(np.float32) @ rng.standard_normal((64, 64)).astype(np.float32)
    return C, np.packbits(C > 0, axis=1)


def test_same_neighbors_as_sentence_transformers(data):
    pytest.importorskip("faiss")
    quantization = pytest.importorskip("sentence_transformers.util.quantization")
    C, bits = data
    Q = np.random.default_rng(4).standard_normal((30, 64)).astype(np.float32)
    for r in (1, 4):
        nb = sign_rescore_knn(bits, 64, 10, r, Q, queries=np.packbits(Q > 0, axis=1))
        hits, *_ = quantization.semantic_search_faiss(
            Q, corpus_embeddings=bits, corpus_precision="ubinary", top_k=10, rescore=True, rescore_multiplier=r
        )
        want = np.array([[h["corpus_id"] for h in row] for row in hits])
        np.testing.assert_array_equal(nb.ids, want)
        # the reported similarity is the cosine of the float query with the candidate's ±1 sign vector
        S = np.where(C > 0, 1.0, -1.0)
        cos = np.einsum("ij,ij->i", S[nb.ids[:, 0]], Q / np.linalg.norm(Q, axis=1, keepdims=True)) / 8.0
        np.testing.assert_allclose(nb.sims[:, 0], cos, atol=1e-6)


def test_corpus_queries_equal_the_brute_force_route(data):
    C, bits = data
    ids = np.array([0, 1, 17, 500, 1999])
    for r in (1, 3):
        nb = sign_rescore_knn(bits, 64, 8, r, C[ids], ids)
        np.testing.assert_array_equal(nb.ids, brute_force(bits, 64, 8, r, C[ids], ids))
        assert all(q not in row for q, row in zip(ids, nb.ids))  # the query itself is excluded
    # more candidates re-ranked by the float query: the result moves toward the float neighbors
    exact = np.argsort(-(C @ C[ids].T).T / np.linalg.norm(C, axis=1), axis=1)[:, 1:9]
    agree = [
        np.mean([len(set(a) & set(b)) for a, b in zip(sign_rescore_knn(bits, 64, 8, r, C[ids], ids).ids, exact)])
        for r in (1, 8)
    ]
    assert agree[1] > agree[0]


def test_zero_rows_and_bad_input(data):
    C, bits = data
    zero = np.zeros(len(bits), bool)
    zero[[3, 9]] = True
    floats = C[[3, 4]].copy()
    nb = sign_rescore_knn(bits, 64, 1999, 2, floats, np.array([3, 4]), zero=zero)
    assert (nb.ids[0] == NO_NEIGHBOR).all()  # a query with no direction has no neighbors
    assert nb.ids[1, -1] == 9 and nb.sims[1, -1] == 0.0  # a row with no direction comes last
    assert rescore_count(10, 4, 30, True) == 29 and rescore_count(10, 4, 3000, False) == 40
    with pytest.raises(N2OError, match="multiplier"):
        sign_rescore_knn(bits, 64, 5, 0, floats, np.array([3, 4]))
    with pytest.raises(N2OError, match="float queries have shape"):
        sign_rescore_knn(bits, 64, 5, 2, C[:3], np.array([3, 4]))
