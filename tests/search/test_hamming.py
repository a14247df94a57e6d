"""Exact Hamming k-NN against a brute-force popcount reference: ties by index, self excluded, zero rows last,
any number of threads and blocks, rows that are not whole 64-bit words; and faiss's `IndexBinaryFlat` on the same
bits."""

from __future__ import annotations

import numpy as np
import pytest

import n2o_core.search.hamming as hamming
from n2o_core.errors import N2OError
from n2o_core.search.hamming import as_words, hamming_candidates, hamming_knn
from n2o_core.search.result import NO_NEIGHBOR

_POP = np.array([bin(i).count("1") for i in range(256)], np.int64)


def brute_force(bits, dim, k, query_ids=None, queries=None, zero=None):
    """(ids, distances): every distance by a byte popcount table, sorted by (distance, id); the query's own row
    and nothing else removed; rows in `zero` after every real row."""
    Q = bits[query_ids] if queries is None else queries
    D = _POP[np.bitwise_xor(Q[:, None, :], bits[None, :, :])].sum(-1)
    if zero is not None:
        D[:, zero] = dim + 1
    ids = np.broadcast_to(np.arange(len(bits)), D.shape)
    out_ids, out_d = [], []
    for r in range(len(Q)):
        keep = ids[r] != (query_ids[r] if queries is None else -1)
        order = np.lexsort((ids[r][keep], D[r][keep]))[:k]
        out_ids.append(ids[r][keep][order])
        out_d.append(D[r][keep][order])
    return np.array(out_ids), np.array(out_d)


@pytest.fixture(scope="module")
def tied_bits():
    """Few distinct distances (16 dimensions, bits drawn with a bias), duplicate rows, and more rows than a block."""
    rng = np.random.default_rng(11)
    n, dim = 9000, 16
    signs = rng.random((n, dim)) < 0.2
    signs[100] = signs[40]
    signs[41] = signs[40]
    return np.packbits(signs, axis=1), dim


@pytest.mark.parametrize("threads", [1, 3])
def test_equals_brute_force_with_ties(tied_bits, threads, monkeypatch):
    bits, dim = tied_bits
    monkeypatch.setattr(hamming, "SMALL_SEARCH", 0)  # several workers even on this small search
    monkeypatch.setattr(hamming, "BLOCK_ROWS", 1000)  # 9 blocks, the last one short
    query_ids = np.array([0, 40, 41, 100, 999, 1000, 4500, 8999])
    nb = hamming_knn(bits, dim, 25, query_ids, threads=threads)
    want_ids, want_d = brute_force(bits, dim, 25, query_ids)
    np.testing.assert_array_equal(nb.ids, want_ids)
    np.testing.assert_array_equal(nb.sims, (1 - 2 * want_d / dim).astype(np.float32))
    assert (want_d[:, :-1] == want_d[:, 1:]).mean() > 0.8  # mostly ties: the order is the index order among them
    assert 41 in nb.ids[1] and 40 not in nb.ids[1]  # a duplicate is a neighbor, the query itself is not
    assert nb.ids[1][0] == 41 and nb.sims[1][0] == 1.0


def test_equals_brute_force_on_dims_not_a_multiple_of_64():
    rng = np.random.default_rng(2)
    for dim in (7, 64, 70, 200, 384):
        X = rng.standard_normal((700, dim)).astype(np.float32)
        bits = np.packbits(X > 0, axis=1)
        ids = np.arange(0, 700, 37)
        nb = hamming_knn(bits, dim, 10, ids)
        want_ids, want_d = brute_force(bits, dim, 10, ids)
        np.testing.assert_array_equal(nb.ids, want_ids)
        np.testing.assert_allclose(nb.sims, 1 - 2 * want_d / dim, rtol=0, atol=1e-7)
        # the similarity is the cosine of the ±1 sign vectors
        S = np.where(X > 0, 1.0, -1.0)
        np.testing.assert_allclose(nb.sims[:, 0], np.sum(S[ids] * S[nb.ids[:, 0]], axis=1) / dim, atol=1e-6)


def test_external_queries_and_zero_rows(tied_bits):
    bits, dim = tied_bits
    zero = np.zeros(len(bits), bool)
    zero[[5, 6, 3000]] = True
    Q = bits[[5, 7, 40]].copy()  # external: no row is excluded, the same row is its own nearest
    nb = hamming_knn(bits, dim, len(bits), queries=Q, zero=zero, queries_zero=np.array([False, False, True]))
    want_ids, _ = brute_force(bits, dim, len(bits), queries=Q, zero=zero)
    np.testing.assert_array_equal(nb.ids[:2], want_ids[:2])
    assert nb.ids[1, 0] == 7
    assert nb.ids[0, -3:].tolist() == [5, 6, 3000]  # rows with no direction come last, by index
    assert (nb.sims[0, -3:] == 0).all()
    assert (nb.ids[2] == NO_NEIGHBOR).all() and (nb.sims[2] == 0).all()  # a query with no direction has none
    inside = hamming_knn(bits, dim, 5, np.array([6, 8]), zero=zero)  # corpus queries: `zero` applies to them too
    assert (inside.ids[0] == NO_NEIGHBOR).all() and (inside.ids[1] != NO_NEIGHBOR).all()


def test_progress_counts_every_row(tied_bits, monkeypatch):
    bits, dim = tied_bits
    monkeypatch.setattr(hamming, "BLOCK_ROWS", 2048)
    calls = []
    hamming_knn(bits, dim, 3, np.arange(4), progress=lambda e: calls.append((e.done, e.total, e.stage)))
    assert calls[-1] == (len(bits), len(bits), "neighbors")
    assert [d for d, _, _ in calls] == sorted(d for d, _, _ in calls) and len(calls) >= 5


def test_candidates_and_words():
    bits = np.packbits(np.eye(12, 20, dtype=bool), axis=1)  # 3 bytes a row: padded to one 64-bit word
    W = as_words(bits)
    assert W.shape == (12, 1) and W.dtype == np.uint64
    D, ids = hamming_candidates(bits, 20, 4, bits[:2], np.array([0, 1]))
    np.testing.assert_array_equal(D, [[2, 2, 2, 2], [2, 2, 2, 2]])  # one bit each: every other row at 2
    np.testing.assert_array_equal(ids, [[1, 2, 3, 4], [0, 2, 3, 4]])


def test_bad_input_is_refused(tied_bits):
    bits, dim = tied_bits
    with pytest.raises(N2OError, match="too large"):
        hamming_knn(bits[:5], dim, 5, np.arange(2))
    with pytest.raises(N2OError, match="do not pack"):
        hamming_knn(bits, 30, 3, np.arange(2))
    with pytest.raises(N2OError, match="packed bits"):
        hamming_knn(bits.astype(np.int8), dim, 3, np.arange(2))
    empty = hamming_knn(bits, dim, 3, np.arange(0))
    assert empty.ids.shape == (0, 3)


def test_same_as_faiss_index_binary_flat():
    faiss = pytest.importorskip("faiss")
    rng = np.random.default_rng(5)
    bits = np.packbits(rng.standard_normal((5000, 128)) > 0, axis=1)
    index = faiss.IndexBinaryFlat(128)
    index.add(bits)
    D, found = index.search(bits[:50], 11)  # faiss finds each query itself first (distance 0)
    nb = hamming_knn(bits, 128, 10, np.arange(50))
    want_ids, want_d = brute_force(bits, 128, 10, np.arange(50))
    np.testing.assert_array_equal(nb.ids, want_ids)
    np.testing.assert_array_equal(np.sort(D[:, 1:], axis=1), want_d)  # faiss's distances are the same
    assert (found[:, 0] == np.arange(50)).all()
