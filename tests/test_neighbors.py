import numpy as np
import pytest
import scipy.sparse as sp

from n2o_core.errors import N2OError
from n2o_core.neighbors import NO_NEIGHBOR, Standardizer, exact_knn


def brute_knn(X, qids, k, standardize=False):
    """Reference: float64 cosine, zero rows last, self excluded by index, ties by lower index."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X, np.float64)
    zero = ~np.any(X != 0, axis=1)
    if standardize:
        mu, sd = X.mean(0), X.std(0)
        sd[sd < 1e-12] = 1
        X = (X - mu) / sd
        X[zero] = 0
    nrm = np.linalg.norm(X, axis=1)
    zero |= nrm == 0
    Xn = X / np.where(zero, 1, nrm)[:, None]
    out = []
    for q in qids:
        if zero[q]:
            out.append([NO_NEIGHBOR] * k)
            continue
        s = np.round(Xn @ Xn[q], 9)
        s[zero] = -3
        order = sorted((-s[j], j) for j in range(len(X)) if j != q)
        out.append([j for _, j in order[:k]])
    return np.array(out)


@pytest.mark.parametrize("block", [7, 64, 10_000])
def test_exact_matches_brute_force_with_ties_duplicates_and_zero_rows(tie_vectors, block):
    X = tie_vectors
    qids = np.array([10, 50, 0, 1, 2, 37, 299, 150])
    got = exact_knn(X, 12, query_ids=qids, block=block)
    assert (got.ids == brute_knn(X, qids, 12)).all()
    # the exact duplicates of query 10 are its first neighbors, and 10 itself is excluded
    assert list(got.ids[0, :2]) == [50, 60]
    assert 10 not in got.ids[0]
    # query 0 is a zero vector: no neighbors at all, never NaN
    assert (got.ids[2] == NO_NEIGHBOR).all() and np.isfinite(got.sims).all()
    # zero rows (0, 37, 74, ...) never show up for a real query among the first neighbors
    assert not np.isin(got.ids[[0, 1, 3, 4]], np.arange(0, 300, 37)).any()


def test_many_random_queries_equal_brute_force(tie_vectors):
    rng = np.random.default_rng(1)
    qids = rng.choice(300, 120, replace=False)
    assert (exact_knn(tie_vectors, 20, query_ids=qids).ids == brute_knn(tie_vectors, qids, 20)).all()


def test_sims_are_cosines_sorted(tie_vectors):
    got = exact_knn(tie_vectors, 15, query_ids=np.arange(1, 30))
    assert np.all(np.diff(got.sims, axis=1) <= 1e-7)
    assert got.sims.max() <= 1.0 and got.sims.min() >= -1.0


def test_sparse_matches_dense():
    X = sp.random(400, 60, density=0.08, format="csr", random_state=3, dtype=np.float32)
    qids = np.arange(0, 400, 9)
    got = exact_knn(X, 10, query_ids=qids, block=50)
    assert (got.ids == brute_knn(X, qids, 10)).all()


def test_float16_storage_and_block_boundaries_give_in_memory_result():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((5000, 32)).astype(np.float16)
    qids = rng.choice(5000, 40, replace=False)
    ref = exact_knn(X.astype(np.float32), 25, query_ids=qids, block=5000)
    for block in (999, 1024, 4097):
        assert (exact_knn(X, 25, query_ids=qids, block=block).ids == ref.ids).all()


def test_external_queries_do_not_exclude_anything(tie_vectors):
    got = exact_knn(tie_vectors, 5, queries=tie_vectors[[10]])
    assert got.ids[0, 0] == 10  # the sentence itself is the nearest corpus sentence to its own text


def test_standardizer_matches_reference():
    rng = np.random.default_rng(4)
    X = (rng.standard_normal((300, 6)) * [1, 10, 100, 1, 1, 0.1] + 5).astype(np.float32)
    qids = np.arange(0, 300, 11)
    got = exact_knn(X, 8, query_ids=qids, standardizer=Standardizer.fit(X))
    assert (got.ids == brute_knn(X, qids, 8, standardize=True)).all()
    plain = exact_knn(X, 8, query_ids=qids)
    assert (plain.ids != got.ids).any()  # z-normalization changes cosine rankings


def test_bad_inputs():
    X = np.ones((5, 3), np.float32)
    with pytest.raises(N2OError, match="too large"):
        exact_knn(X, 5, query_ids=np.array([0]))
    with pytest.raises(N2OError, match="positive"):
        exact_knn(X, 0, query_ids=np.array([0]))
    X[2, 1] = np.nan
    with pytest.raises(N2OError, match="NaN"):
        exact_knn(X, 2, query_ids=np.array([0]))


def test_memmapped_float16_block_boundaries_equal_brute_force(tmp_path):
    """Corpus size not a multiple of the block; queries on both sides of every boundary, first and last row."""
    rng = np.random.default_rng(7)
    X = rng.integers(-3, 4, size=(2503, 6)).astype(np.float16)  # small integers: exact in float16, many ties
    X[::101] = 0
    np.save(tmp_path / "x.npy", X)
    Xm = np.load(tmp_path / "x.npy", mmap_mode="r")
    block = 500
    qids = np.unique(
        np.concatenate(
            [
                [0, 1, 2502, 2501],
                np.arange(block - 2, 2503, block),
                np.arange(block, 2503, block),
                np.arange(block + 1, 2503, block),
            ]
        )
    )
    ref = brute_knn(X.astype(np.float32), qids, 30)
    for b in (block, 1024, 2503):
        got = exact_knn(Xm, 30, query_ids=qids, block=b)
        assert (got.ids == ref).all()
    assert (exact_knn(X.astype(np.float32), 30, query_ids=qids).sims == got.sims).all()


def test_sharded_candidates_merge_to_the_single_pass_result(tie_vectors):
    from n2o_core.neighbors import candidate_count, finish_exact, merge_candidates, search_shard

    qids = np.arange(3, 300, 7)
    k = 10
    kk = candidate_count(k, 300, True)
    parts = [
        search_shard(tie_vectors[a:b], a, tie_vectors[qids], qids, kk, block=13)
        for a, b in ((0, 61), (61, 200), (200, 300))
    ]
    s, i = merge_candidates(parts, kk)
    got = finish_exact(tie_vectors, tie_vectors[qids], s, i, k)
    ref = exact_knn(tie_vectors, k, query_ids=qids)
    assert (got.ids == ref.ids).all() and (got.sims == ref.sims).all()
    assert (got.ids == brute_knn(tie_vectors, qids, k)).all()


def test_real_pynndescent_search_recalls_the_exact_neighbors():
    """neighbors.approx_knn end to end on a few hundred rows: a real pynndescent index (its numba compilation,
    ~45 s of CPU in a fresh process, is paid once here), checked against exact search."""
    from n2o_core.neighbors import approx_knn, recall_of

    rng = np.random.default_rng(0)
    centers = rng.standard_normal((15, 16))
    X = (centers[rng.integers(0, 15, 300)] + 0.6 * rng.standard_normal((300, 16))).astype(np.float32)
    X[[7, 150]] = 0.0  # zero vectors: never neighbors, and no neighbors as queries
    X[200] = X[201]  # an exact duplicate
    q = np.arange(0, 300, 6)  # 50 queries, zero row 150 among them
    res, index = approx_knn(X, 10, q, recall_sample=60)
    exact = exact_knn(X, 10, query_ids=q)
    assert res.ids.shape == (50, 10) and res.sims.dtype == np.float32
    assert res.recall >= 0.95 and recall_of(res.ids, exact.ids) >= 0.95
    assert len(res.check_ids) == 60 and not set(res.check_ids) & set(q)
    assert np.array_equal(res.check_exact, exact_knn(X, 10, query_ids=res.check_ids).ids)
    Xn = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-30)
    for r, qi in enumerate(q):
        ids, sims = res.ids[r], res.sims[r]
        if qi == 150:
            assert (ids == NO_NEIGHBOR).all() and not sims.any()
            continue
        assert qi not in ids and 7 not in ids and 150 not in ids and len(set(ids)) == 10
        np.testing.assert_allclose(sims, Xn[ids] @ Xn[qi], atol=1e-5)  # reported sims are the cosines
        assert (np.diff(sims) <= 1e-6).all()  # nearest first
    again, same = approx_knn(X, 10, q, recall_sample=60, index=index)  # the index is reused as is
    assert same is index and np.array_equal(again.ids, res.ids)
