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
