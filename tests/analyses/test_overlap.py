from itertools import product

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from n2o_core.analyses.overlap import (
    box_order,
    by_token_overlap,
    chance_level,
    k_grid,
    mean_ci,
    n2o,
    n2o_distribution,
    n2o_matrix,
    n2o_over_samples,
    outlier_neighbors,
    pair_values,
    pairs_table,
    popular_frame,
    popular_neighbors,
    popular_or_nearest,
    queries_without_words,
    random_neighbor_ids,
    robustness_across_k,
    robustness_across_samples,
    robustness_to_sample_size,
    sample_sizes,
    spearman_between,
    times_chance,
    token_overlap,
    token_overlap_by_embedder,
    token_overlap_report,
    with_sentences,
)
from n2o_core.errors import N2OError
from n2o_core.pipeline import draw_query_samples, query_pool
from n2o_core.search.exact import exact_knn


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


def test_robustness_across_samples_compares_pair_rankings():
    M1 = np.array([[1, 0.5, 0.2, 0.1], [0.5, 1, 0.3, 0.05], [0.2, 0.3, 1, 0.4], [0.1, 0.05, 0.4, 1]])
    R = robustness_across_samples([M1, 0.5 * M1, 1 - M1])  # same ranking, same ranking, reversed
    assert list(R.index) == [1, 2, 3] and list(R.columns) == [1, 2, 3]
    np.testing.assert_allclose(R.to_numpy(), [[1, 1, -1], [1, 1, -1], [-1, -1, 1]])
    assert list(robustness_across_samples([M1, M1], labels=["x", "y"]).index) == ["x", "y"]
    assert np.isnan(robustness_across_samples([np.eye(2), np.eye(2)]).to_numpy()).all()  # one pair: no ranking
    with pytest.raises(N2OError):
        robustness_across_samples([M1, M1], labels=["x"])


def _constant_overlap_neighbors(pool_n, k=10, seed=0):
    """Four embedders whose overlap is the same on every query (ids in a row never repeat):
    a·b 0.8, a·c 0.2, a·d 0.3, b·c 0.2, b·d 0.3, c·d 0.9."""
    rng = np.random.default_rng(seed)
    base = np.stack([rng.choice(100, size=k, replace=False) for _ in range(pool_n)])
    other = np.stack([100 + rng.choice(100, size=k, replace=False) for _ in range(pool_n)])
    return {
        "a": base,
        "b": np.concatenate([base[:, :8], other[:, :2]], axis=1),
        "c": np.concatenate([base[:, :2], other[:, 2:]], axis=1),
        "d": np.concatenate([base[:, :3], other[:, 3:]], axis=1),
    }


def test_sample_size_does_not_move_a_ranking_that_is_the_same_on_every_query():
    nb = _constant_overlap_neighbors(60)
    pool = np.arange(60)
    samples = [np.arange(0, 30), np.arange(30, 60)]
    df = robustness_to_sample_size(nb, pool, samples, 10, repeats=5)
    assert list(df.columns) == ["n", "repeats", "rho_mean", "rho_min", "abs_diff_mean", "abs_diff_max"]
    assert list(df["n"]) == [10, 25, 30] == sample_sizes(30)
    np.testing.assert_allclose(df[["rho_mean", "rho_min"]].to_numpy(), 1.0)
    np.testing.assert_allclose(df[["abs_diff_mean", "abs_diff_max"]].to_numpy(), 0.0, atol=1e-12)
    for bad in ([0], [31]):
        with pytest.raises(N2OError):
            robustness_to_sample_size(nb, pool, samples, 10, sizes=bad)
    with pytest.raises(N2OError):
        robustness_to_sample_size(nb, pool, [np.array([0, 99])], 10)


def test_sample_size_one_query_per_sample_matches_every_possible_draw():
    # k = 2; two samples of two queries ({0, 1} and {2, 3}); per-query overlaps differ, so a sub-sample of one
    # query per sample can only be one of four (q1, q2) draws, each with a known matrix
    nb = {
        "a": np.array([[1, 2], [3, 4], [5, 6], [7, 8]]),
        "b": np.array([[1, 2], [3, 9], [5, 6], [7, 9]]),
        "c": np.array([[1, 9], [3, 4], [9, 10], [7, 8]]),
        "d": np.array([[11, 12], [3, 4], [5, 12], [11, 12]]),
    }
    pool, samples = np.arange(4), [np.array([0, 1]), np.array([2, 3])]
    ref = n2o_over_samples(nb, pool, samples, 2).mean
    rhos, diffs = [], []
    for q1, q2 in product([0, 1], [2, 3]):
        M = (n2o_matrix(nb, 2, np.array([q1])) + n2o_matrix(nb, 2, np.array([q2]))) / 2
        rhos.append(spearmanr(pair_values(M), pair_values(ref)).statistic)
        diffs.append(np.abs(pair_values(M) - pair_values(ref)).mean())
    df = robustness_to_sample_size(nb, pool, samples, 2, sizes=[1, 2], repeats=200, seed=3).set_index("n")
    assert df.loc[1, "rho_min"] == pytest.approx(min(rhos))  # 200 draws of 4 equally likely: all seen
    assert df.loc[1, "abs_diff_max"] == pytest.approx(max(diffs))
    assert df.loc[1, "rho_mean"] == pytest.approx(np.mean(rhos), abs=0.05)
    assert df.loc[1, "abs_diff_mean"] == pytest.approx(np.mean(diffs), abs=0.01)
    assert df.loc[2, "rho_min"] == pytest.approx(1.0) and df.loc[2, "abs_diff_max"] == pytest.approx(0.0)
    assert min(rhos) < 0.9 and max(diffs) > 0.1  # the test can tell a wrong draw from a right one


def test_sample_size_curve_on_real_neighbors_converges():
    rng = np.random.default_rng(0)
    base = rng.standard_normal((400, 8)).astype(np.float32)
    samples = draw_query_samples(400, 60, 3, seed=2)
    pool = query_pool(samples)
    nb = {
        f"e{i}": exact_knn(base + rng.normal(0, 0.3 * i, base.shape).astype(np.float32), 10, query_ids=pool).ids
        for i in range(1, 5)
    }
    df = robustness_to_sample_size(nb, pool, samples, 10, sizes=[5, 20, 60], repeats=10)
    assert (np.diff(df["abs_diff_mean"]) < 0).all() and df["abs_diff_mean"].iloc[-1] == pytest.approx(0.0)
    assert df["rho_mean"].iloc[-1] == pytest.approx(1.0) and df["rho_mean"].iloc[0] < 1.0
    again = robustness_to_sample_size(nb, pool, samples, 10, sizes=[5, 20, 60], repeats=10)
    assert again.equals(df)  # seeded


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
    assert list(df.columns) == ["embedder", "mean", "ci_low", "ci_high", "n", "n_no_tokens", "n_no_neighbors"]
    m, lo, hi = mean_ci(np.array([1.0, 2.0, 3.0]))
    assert (m, round(lo, 3), round(hi, 3)) == (2.0, -0.484, 4.484)


def test_ci_is_a_t_interval_over_per_query_means():
    texts = ["a b", "a c", "b c", "a x", "d e", "d y"]
    df = token_overlap_by_embedder(texts, np.array([0, 4]), {"e": np.array([[1, 2], [5, 3]])}, 2)
    per_query = [np.mean([0.5, 0.5]), np.mean([0.5, 0.0])]  # query 0: "a c", "b c"; query 4: "d y", "a x"
    row = df.iloc[0]
    assert (row["mean"], row["ci_low"], row["ci_high"]) == pytest.approx(mean_ci(np.array(per_query)))
    assert row["ci_high"] - row["mean"] == pytest.approx(12.7062 * 0.125, rel=1e-4)  # t(0.975, 1) · s / sqrt(2)


def test_token_overlap_over_content_words():
    stop = frozenset({"the", "on", "a", "is"})
    assert token_overlap("The cat sat on the mat", "a cat on a rug") == pytest.approx(2 / 5)
    assert token_overlap("The cat sat on the mat", "a cat on a rug", stop_words=stop) == pytest.approx(1 / 3)
    assert token_overlap("on the", "the cat", stop_words=stop) == 0.0
    texts = ["the cat sat", "a cat ran", "on the", "the dog sat", "the end"]
    nb = {"e": np.array([[1, 3], [0, 3], [-1, -1]])}
    q = np.array([0, 2, 4])
    kept = token_overlap_by_embedder(texts, q, nb, 2).iloc[0]
    # all tokens: q0 {the, cat, sat} vs {a, cat, ran} 1/3 and {the, dog, sat} 2/3; q2 {on, the} vs {the, cat, sat}
    # 1/2 and {the, dog, sat} 1/2; q4 has no neighbors
    assert kept["mean"] == pytest.approx(np.mean([0.5, 0.5])) and kept["n"] == 2
    assert (kept["n_no_tokens"], kept["n_no_neighbors"]) == (0, 1)
    content = token_overlap_by_embedder(texts, q, nb, 2, stop_words=stop).iloc[0]
    # content words: q0 {cat, sat} vs {cat, ran} 1/2 and {dog, sat} 1/2; q2 "on the" has none: skipped, counted
    assert content["mean"] == pytest.approx(0.5) and content["n"] == 1
    assert (content["n_no_tokens"], content["n_no_neighbors"]) == (1, 1)


def test_token_overlap_report_is_each_embedder_and_the_random_level():
    texts = ["the cat sat", "a cat ran", "on the mat", "the dog sat", "a red mat", "cats and dogs"]
    q = np.array([0, 3])
    nb = {"random": np.array([[1, 2], [0, 4]]), "b": np.array([[3, 5], [0, 1]])}  # an embedder may be named random
    df, level = token_overlap_report(texts, q, nb, 2, seed=3)
    assert df.equals(token_overlap_by_embedder(texts, q, nb, 2))
    rand = {"r": random_neighbor_ids(q, len(texts), 2, 3)}
    assert level == token_overlap_by_embedder(texts, q, rand, 2)["mean"].iloc[0]


def test_sample_size_full_size_is_exact_even_with_near_tied_pairs():
    # random neighbor lists: every pair overlaps at about chance, so many pairs tie up to float rounding
    rng = np.random.default_rng(0)
    samples = draw_query_samples(40000, 100, 5, seed=0)
    pool = query_pool(samples)
    nb = {f"e{i}": np.stack([rng.choice(2000, 50, replace=False) for _ in pool]) for i in range(10)}
    full = robustness_to_sample_size(nb, pool, samples, 50, sizes=[100], repeats=2).iloc[0]
    assert full["rho_min"] == pytest.approx(1.0, abs=1e-12) and full["abs_diff_max"] == 0.0


@pytest.mark.parametrize("ascii_only", [True, False])
def test_token_overlap_by_embedder_equals_token_overlap_pair_by_pair(ascii_only):
    """The table (one tokenization of the needed sentences, sparse products) equals `token_overlap` averaged per
    query, on random texts with stop words, repeated and missing (-1) neighbors, queries without content words."""
    from n2o_core.text import SBERT_STOP_WORDS

    rng = np.random.default_rng(4)
    words = ["the", "cat", "Sat", "on", "mat", "don't", "dog's", "a", "x-ray", "42", "and"]
    if not ascii_only:
        words += ["café", "naïve", "Ünïcode"]
    texts = [" ".join(rng.choice(words, rng.integers(1, 7))) for _ in range(200)]
    texts[5] = "the and a"  # stop words only
    q = rng.choice(200, 30, replace=False)
    q[0] = 5
    nb = {e: rng.integers(-1, 200, size=(30, 8)) for e in ("e1", "e2")}
    for stop in (None, SBERT_STOP_WORDS):
        df = token_overlap_by_embedder(texts, q, nb, 6, stop_words=stop).set_index("embedder")
        for e, ids in nb.items():
            per_query = []
            for qi, row in zip(q, ids[:, :6]):
                got = [token_overlap(texts[qi], texts[j], stop) for j in row if j >= 0]
                has_words = token_overlap(texts[qi], texts[qi], stop) == 1.0  # the query has content words
                if got and has_words:
                    per_query.append(np.mean(got))
            assert df.loc[e, "n"] == len(per_query)
            assert df.loc[e, "mean"] == pytest.approx(np.mean(per_query), abs=1e-12)


def test_popular_neighbors_the_papers_first_then_the_nearest_thing_labelled():
    every = popular_or_nearest({"a": [1, 2, 3], "b": [2, 4, 1], "c": [1, 5, 2]}, 3)
    assert every.paper and list(every.frame["id"]) == [1, 2] and "all 3 embedders" in every.label()
    # no sentence in the top 3 of all three (the old table was empty): the top 3 of two of them, labelled as such
    near = popular_or_nearest({"a": [1, 2, 3], "b": [2, 1, 4], "c": [5, 6, 7]}, 3)
    assert not near.paper and near.required == 2
    assert list(near.frame["id"]) == [1, 2]
    assert list(near.frame["missing from"]) == ["c", "c"]
    assert "no sentence is in the top 3 of all 3" in near.label() and "2 of the 3" in near.label()
    assert popular_frame({"a": [1, 2, 3], "b": [2, 1, 4], "c": [5, 6, 7]}, 3).empty  # the paper's definition alone
    # six embedders: 5 of 6 before 4 of 6, ..., down to 2 of them
    six = {e: [10 + i, 20 + i, 30] for i, e in enumerate("abcdef")}
    six["f"] = [99, 98, 97]
    got = popular_or_nearest(six, 3)
    assert got.required == 5 and list(got.frame["id"]) == [30] and got.frame["missing from"][0] == "f"
    pairs = popular_or_nearest({"a": [1, 2], "b": [3, 1], "c": [4, 5], "d": [6, 7]}, 2)
    assert pairs.required == 2 and list(pairs.frame["id"]) == [1] and pairs.frame["missing from"][0] == "c, d"
    none = popular_or_nearest({"a": [1], "b": [2], "c": [3], "d": [4]}, 1)
    assert none.frame.empty and none.required == 2 and "nor in the top 1 of 2" in none.label()


# --------------------------------------------------------------------------- the heatmap's tables


M3 = np.array([[1.0, 0.30, 0.12], [0.30, 1.0, 0.05], [0.12, 0.05, 1.0]])


def test_times_chance_is_n2o_over_the_chance_level():
    c = chance_level(10, 201)  # 0.05
    assert times_chance(0.3, c) == pytest.approx(6.0)
    assert times_chance([0.05, 0.1, np.nan], c).tolist()[:2] == pytest.approx([1.0, 2.0])
    assert np.isnan(times_chance([0.05, 0.1, np.nan], c)[2])
    assert np.isnan(times_chance([0.3, 0.1], 0.0)).all() and np.isnan(times_chance(0.3, float("nan")))


def test_pairs_table_most_similar_first_with_its_multiple_of_chance_as_shown():
    c = chance_level(3, 91)  # 1/30
    t = pairs_table(M3 + 1e-7, ["a", "b", "c"], c)
    assert t[["a", "b"]].values.tolist() == [["a", "b"], ["a", "c"], ["b", "c"]]
    assert t["n2o"].tolist() == [0.3, 0.12, 0.05]  # 4 decimals
    assert t["× chance"].tolist() == [9.0, 3.6, 1.5]  # 0.3000001 * 30 = 9.000003 -> 2 decimals
    assert list(t.columns) == ["a", "b", "n2o", "× chance"]


def test_box_order_is_by_decreasing_median_with_the_others():
    dist = n2o_distribution(M3, ["a", "b", "c"])
    # medians with the others: a (0.30, 0.12) 0.21; b (0.30, 0.05) 0.175; c (0.12, 0.05) 0.085
    assert box_order(dist) == ["a", "b", "c"]
    assert box_order(n2o_distribution(M3[::-1, ::-1], ["c", "b", "a"])) == ["a", "b", "c"]


def test_token_overlap_by_decreasing_mean_and_the_queries_left_out():
    frame = pd.DataFrame(
        {"embedder": ["a", "b", "c"], "mean": [0.2, 0.4, 0.3], "n": [98, 98, 98], "n_no_tokens": [2, 2, 2]}
    )
    got = by_token_overlap(frame)
    assert got["embedder"].tolist() == ["b", "c", "a"] and got.index.tolist() == [0, 1, 2]
    assert queries_without_words(frame) == 2
    assert queries_without_words(frame.iloc[:0]) == 0 and queries_without_words(frame.drop(columns="n_no_tokens")) == 0


def test_neighbor_tables_get_their_sentences_and_the_words_shared_with_the_query():
    texts = ["The cat sat.", "A dog ran home.", "The cat and the dog sat."]
    frame = pd.DataFrame({"id": [2, 1], "embedders": [3, 2]})
    got = with_sentences(frame, texts, frozenset({"cat", "dog", "sat"}))
    assert got["sentence"].tolist() == [texts[2], texts[1]]
    assert got["shared words"].tolist() == ["cat, dog, sat", "dog"]
    assert list(frame.columns) == ["id", "embedders"]  # the given frame is left as it was
