import numpy as np
import pytest

from n2o_core.errors import N2OError
from n2o_core.neighbors import exact_knn
from n2o_core.overlap import (
    chance_level,
    draw_query_samples,
    k_grid,
    mean_ci,
    n2o,
    n2o_matrix,
    n2o_over_samples,
    outlier_neighbors,
    popular_neighbors,
    query_pool,
    robustness_across_k,
    spearman_between,
    token_overlap,
    token_overlap_by_embedder,
)


def brute_n2o(A, B, k):
    """Lin & Smith's Fig. 2 literally: sum_q |N_A(q) ∩ N_B(q)| / (k n)."""
    total = 0
    for a, b in zip(A, B):
        total += len(set(x for x in a[:k] if x >= 0) & set(x for x in b[:k] if x >= 0))
    return total / (k * len(A))


def test_n2o_equals_the_papers_definition_on_real_neighbors(tie_vectors):
    rng = np.random.default_rng(0)
    X = tie_vectors
    Y = X + rng.normal(0, 0.7, X.shape).astype(np.float32)
    qids = np.arange(1, 300, 3)
    A = exact_knn(X, 20, query_ids=qids).ids
    B = exact_knn(Y, 20, query_ids=qids).ids
    for k in (1, 5, 20):
        assert n2o(A, B, k) == pytest.approx(brute_n2o(A, B, k))
    M = n2o_matrix({"x": A, "y": B}, 10)
    assert M[0, 1] == M[1, 0] == pytest.approx(brute_n2o(A, B, 10))
    assert 0 < M[0, 1] < 1


def test_no_neighbor_rows_never_overlap():
    A = np.array([[1, 2, 3], [-1, -1, -1]])
    assert n2o(A, A, 3) == pytest.approx(0.5)
    assert n2o_matrix({"a": A}, 3)[0, 0] == pytest.approx(0.5)


def test_samples_pool_and_chance():
    s = draw_query_samples(1000, 100, 5, seed=3)
    assert len(s) == 5 and all(len(set(x)) == 100 for x in s)
    assert all((a == b).all() for a, b in zip(s, draw_query_samples(1000, 100, 5, seed=3)))
    assert not (s[0] == s[1]).all()
    pool = query_pool(s)
    assert set(np.concatenate(s)) == set(pool)
    assert chance_level(50, 8_000_001) == pytest.approx(50 / 8_000_000)
    with pytest.raises(N2OError):
        draw_query_samples(1, 1, 1)


def test_over_samples_uses_pool_rows():
    rng = np.random.default_rng(0)
    N, k = 200, 5
    samples = draw_query_samples(N, 30, 4, seed=1)
    pool = query_pool(samples)
    A = np.stack([rng.choice(N, k, replace=False) for _ in pool])
    B = np.stack([rng.choice(N, k, replace=False) for _ in pool])
    res = n2o_over_samples({"a": A, "b": B}, pool, samples, k)
    for s, M in zip(samples, res.per_sample):
        rows = np.searchsorted(pool, s)
        assert M[0, 1] == pytest.approx(brute_n2o(A[rows], B[rows], k))
    assert res.mean[0, 1] == pytest.approx(np.mean([M[0, 1] for M in res.per_sample]))
    assert res.std[0, 1] == pytest.approx(np.std([M[0, 1] for M in res.per_sample], ddof=1))
    # random neighbor sets overlap at about chance k / (N - 1)
    assert abs(res.mean[0, 1] - chance_level(k, N)) < 0.03


def test_spearman_and_robustness_across_k():
    M1 = np.array([[1, 0.5, 0.2, 0.1], [0.5, 1, 0.3, 0.05], [0.2, 0.3, 1, 0.4], [0.1, 0.05, 0.4, 1]])
    assert spearman_between([M1, M1])[0, 1] == pytest.approx(1.0)
    assert spearman_between([M1, 1 - M1])[0, 1] == pytest.approx(-1.0)
    rng = np.random.default_rng(0)
    base = rng.standard_normal((400, 8)).astype(np.float32)
    nb = {
        f"e{i}": exact_knn(
            base + rng.normal(0, 0.3 * i, base.shape).astype(np.float32), 20, query_ids=np.arange(50)
        ).ids
        for i in range(1, 5)
    }
    R = robustness_across_k(nb, k_grid(20))
    assert list(R.index) == [5, 10, 15, 20]
    assert (R.values[np.triu_indices(4, 1)] > 0.5).all()
    assert k_grid(3) == [1, 2, 3] and k_grid(12) == [5, 10, 12]


def test_popular_and_outlier_neighbors():
    lists = {"a": [5, 1, 2, 9, 7], "b": [1, 5, 3, 8, 6], "c": [5, 4, 1, 0, 11]}
    assert popular_neighbors(lists, 3) == [5, 1]
    out = outlier_neighbors(lists, r=2, k=5)
    # 4 is ranked 2 by c and outside a's and b's top 5; a's 1 and 5 appear elsewhere
    assert out.to_dict("records") == [{"embedder": "c", "rank": 2, "id": 4}]


def test_token_overlap_and_ci():
    assert token_overlap("The cat sat.", "the dog sat") == pytest.approx(2 / 3)
    assert token_overlap("", "x") == 0.0
    texts = ["a b c d", "a b c d e", "x y z", "a x", "b y"]
    df = token_overlap_by_embedder(
        texts, np.array([0, 2]), {"lex": np.array([[1, 3], [3, 4]]), "far": np.array([[2, 4], [0, 1]])}, 2
    )
    lex = df.set_index("embedder").loc["lex"]
    assert lex["mean"] == pytest.approx(np.mean([np.mean([1.0, 0.25]), np.mean([1 / 3, 1 / 3])]))
    assert lex["ci_low"] <= lex["mean"] <= lex["ci_high"] and lex["n"] == 2
    m, lo, hi = mean_ci(np.array([1.0, 2.0, 3.0]))
    assert (m, round(lo, 3), round(hi, 3)) == (2.0, -0.484, 4.484)
