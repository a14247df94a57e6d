import numpy as np
import pytest
import scipy.sparse as sp

from n2o_core.errors import N2OError
from n2o_core.search.exact import exact_knn, row_inverse_norms
from n2o_core.search.result import NO_NEIGHBOR
from n2o_core.search.rows import Standardizer


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


@pytest.fixture
def many_workers(monkeypatch):
    """Worker threads even for tiny searches (normally they run on the calling thread alone)."""
    from n2o_core.search import scan

    monkeypatch.setattr(scan, "SMALL_SEARCH", 0)
    return scan


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_worker_threads_and_query_chunks_equal_brute_force(tie_vectors, many_workers, monkeypatch, threads):
    """Tiles taken by several workers (each with its own top-k, merged at the end) and queries scanned in chunks
    give the single-pass result: ties by lower index, self excluded, zero rows last."""
    monkeypatch.setattr(many_workers, "QUERY_CHUNK", 7)
    qids = np.concatenate([[10, 50, 0, 299], np.arange(1, 300, 13)])
    ref = brute_knn(tie_vectors, qids, 12)
    ticks = []
    got = exact_knn(tie_vectors, 12, query_ids=qids, block=9, threads=threads, progress=lambda e: ticks.append(e.done))
    assert (got.ids == ref).all()
    assert (got.sims == exact_knn(tie_vectors, 12, query_ids=qids).sims).all()
    assert ticks[-1] == 300 and ticks == sorted(ticks)  # progress reaches n, on the calling thread


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float16])
def test_other_dtypes_and_layouts_equal_brute_force(tie_vectors, many_workers, dtype):
    X = tie_vectors.astype(dtype)
    qids = np.arange(0, 300, 7)
    ref = brute_knn(tie_vectors, qids, 10)
    assert (exact_knn(X, 10, query_ids=qids, block=64, threads=2).ids == ref).all()
    F = np.asfortranarray(X)  # rows not contiguous: converted tile by tile
    assert (exact_knn(F, 10, query_ids=qids, block=64, threads=2).ids == ref).all()


def test_float16_without_native_conversion_gives_the_same_result(monkeypatch, many_workers):
    """CPUs without F16C take numpy's float16 conversion and gather the candidates: the same ids and sims."""
    rng = np.random.default_rng(5)
    X = rng.integers(-3, 4, size=(3000, 6)).astype(np.float16)
    X[::97] = 0
    qids = rng.choice(3000, 60, replace=False)
    native = exact_knn(X, 20, query_ids=qids, block=700, threads=2)
    monkeypatch.setattr(many_workers, "half_native", lambda: False)
    portable = exact_knn(X, 20, query_ids=qids, block=700, threads=2)
    assert (portable.ids == native.ids).all() and (portable.sims == native.sims).all()
    assert (native.ids == brute_knn(X.astype(np.float32), qids, 20)).all()


def test_tiny_and_huge_norms_are_normalized_exactly(tie_vectors, many_workers):
    """Rows whose float32 sum of squares would underflow or overflow are normalized in float64 (same neighbors)."""
    X = tie_vectors.astype(np.float64)
    X[5:40] *= 1e-22  # ||x|| ~ 1e-22: its square underflows in float32 but it still has a direction
    X[40:80] *= 1e20
    qids = np.array([5, 10, 45, 100, 0])
    ref = brute_knn(X, qids, 15)
    got = exact_knn(X.astype(np.float32), 15, query_ids=qids, block=50, threads=2)
    assert (got.ids == ref).all() and (got.ids[4] == NO_NEIGHBOR).all()
    assert np.isfinite(got.sims).all() and got.sims.max() <= 1.0


def test_nan_in_a_later_tile_is_reported_from_the_worker(many_workers):
    X = np.random.default_rng(3).standard_normal((5000, 8)).astype(np.float32)
    X[4321, 2] = np.inf
    with pytest.raises(N2OError, match="NaN or infinite"):
        exact_knn(X, 5, query_ids=np.arange(10), block=100, threads=2)


@pytest.mark.parametrize("threads", [1, 2])
def test_row_inv_from_row_inverse_norms_gives_the_same_search(many_workers, threads):
    """Inverse norms computed once (`row_inverse_norms`) instead of per tile: identical ids and sims, zero rows
    still last. A third of the rows are zero and k is half the corpus, so zero rows scored 0 instead of below
    every cosine would crowd genuine neighbors out of the candidates."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((600, 16)).astype(np.float32)
    X[::3] = 0
    inv, finite = row_inverse_norms(X, threads=threads)
    assert finite and inv is not None and (inv[::3] == 0).all()
    np.testing.assert_allclose(inv[1::3], 1 / np.linalg.norm(X[1::3].astype(np.float64), axis=1), rtol=1e-6)
    qids = np.arange(1, 600, 17)
    plain = exact_knn(X, 300, query_ids=qids, block=50, threads=threads)
    given = exact_knn(X, 300, query_ids=qids, block=50, threads=threads, row_inv=inv)
    assert (given.ids == plain.ids).all() and (given.sims == plain.sims).all()
    assert (given.ids == brute_knn(X, qids, 300)).all()
    assert (inv[::3] == 0).all()  # the search copied them: marking zero rows left the caller's array alone


def test_row_inverse_norms_refuses_what_the_search_must_normalize_itself():
    X = np.random.default_rng(2).standard_normal((200, 4)).astype(np.float32)
    X[150] = np.nan
    assert row_inverse_norms(X) == (None, False)
    X[150] = 1e20  # a norm far from 1: the search normalizes that tile in float64
    assert row_inverse_norms(X) == (None, True)
    with pytest.raises(ValueError, match="float32"):
        row_inverse_norms(np.ones((3, 2), np.float16))
    with pytest.raises(ValueError, match="one inverse norm per dense row"):
        exact_knn(X, 3, query_ids=np.arange(2), row_inv=np.ones(5, np.float32))


def test_sharded_candidates_merge_to_the_single_pass_result(tie_vectors):
    from n2o_core.search.exact import finish_exact, search_shard
    from n2o_core.search.scan import candidate_count, merge_candidates

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


# --------------------------------------------------------------------------- z-normalized sparse rows


def _tie_sparse(n=420, d=50, seed=11):
    """Sparse rows with few distinct values (many exact cosine ties), duplicate rows and zero rows."""
    X = sp.random(n, d, density=0.08, format="lil", random_state=seed, dtype=np.float32)
    X = sp.csr_matrix(X)
    X.data = np.ceil(X.data * 3).astype(np.float32)  # values 1, 2, 3
    X = X.tolil()
    X[::29] = 0.0
    X[100] = X[7]
    X[101] = X[7]
    X[250] = X[3]
    return sp.csr_matrix(X)


def test_standardizer_fit_on_csr_equals_dense():
    X = _tie_sparse()
    a, b = Standardizer.fit(X), Standardizer.fit(X.toarray())
    np.testing.assert_allclose(a.mean, b.mean, rtol=1e-6)
    np.testing.assert_allclose(a.scale, b.scale, rtol=1e-6)
    assert a.scale[np.asarray(X.sum(0)).ravel() == 0].tolist() == [1.0] * int((np.asarray(X.sum(0)) == 0).sum())


@pytest.mark.parametrize("block", [13, 100, 10_000])
def test_znorm_sparse_search_equals_densified(block):
    X = _tie_sparse()
    std = Standardizer.fit(X)
    qids = np.concatenate([[0, 7, 100, 3, 250, 29], np.arange(1, 420, 9)])
    got = exact_knn(X, 12, query_ids=qids, standardizer=std, block=block)
    dense = exact_knn(X.toarray(), 12, query_ids=qids, standardizer=std)
    assert (got.ids == dense.ids).all()
    np.testing.assert_allclose(got.sims, dense.sims, atol=1e-6)
    assert (got.ids == brute_knn(X, qids, 12, standardize=True)).all()
    # zero raw rows: no neighbors as queries, never among a real query's neighbors
    assert (got.ids[0] == NO_NEIGHBOR).all() and (got.ids[5] == NO_NEIGHBOR).all()
    assert not np.isin(got.ids[1:5], np.arange(0, 420, 29)).any()
    assert list(got.ids[1, :2]) == [100, 101]  # exact duplicates of 7, by lower index
    assert got.sims[1, 0] == pytest.approx(1.0) and got.ids[3, 0] == 250 and got.ids[4, 0] == 3
    assert (got.ids != exact_knn(X, 12, query_ids=qids, block=block).ids).any()  # z-norm changes rankings


def test_znorm_sparse_row_equal_to_the_mean_is_a_zero_vector():
    R = sp.random(300, 40, density=0.2, format="csr", random_state=4, dtype=np.float32)  # m.m rounds high
    R.data = np.ceil(R.data * 7).astype(np.float32)
    row = Standardizer.fit(R).mean
    for _ in range(5):  # appending the mean keeps the mean (up to rounding): settle to an exact fixed point
        X = sp.vstack([R, sp.csr_matrix(row[None, :])], format="csr")
        std = Standardizer.fit(X)
        if (std.mean == row).all():
            break
        row = std.mean
    assert (std.mean == X.toarray()[-1]).all()
    q = np.array([300, 0, 1, 2, 150])
    got = exact_knn(X, 5, query_ids=q, standardizer=std)
    dense = exact_knn(X.toarray(), 5, query_ids=q, standardizer=std)
    assert (got.ids == dense.ids).all() and np.allclose(got.sims, dense.sims, atol=1e-6)
    assert (got.ids[0] == NO_NEIGHBOR).all()  # equals the mean: standardizes to zero, no neighbors
    assert not np.isin(300, got.ids[1:])  # and ranks after every real candidate


def test_znorm_sparse_free_text_queries_equal_densified():
    X = _tie_sparse()
    std = Standardizer.fit(X)
    Q = sp.vstack([X[[7, 0, 55]], sp.csr_matrix(np.eye(1, 50, 4, dtype=np.float32))], format="csr")
    got = exact_knn(X, 9, queries=Q, standardizer=std)
    dense = exact_knn(X.toarray(), 9, queries=Q.toarray(), standardizer=std)
    assert (got.ids == dense.ids).all()
    np.testing.assert_allclose(got.sims, dense.sims, atol=1e-6)
    assert list(got.ids[0, :3]) == [7, 100, 101]  # the sentence and its duplicates, nothing excluded
    assert (got.ids[1] == NO_NEIGHBOR).all()
    assert (exact_knn(X, 9, queries=Q.toarray(), standardizer=std).ids == got.ids).all()  # dense queries too
    with pytest.raises(N2OError, match="dimensions"):
        exact_knn(X, 9, queries=Q[:, :10], standardizer=std)


def test_znorm_sparse_sharded_candidates_merge_to_the_single_pass_result():
    from n2o_core.search.exact import finish_exact, search_shard
    from n2o_core.search.scan import candidate_count, merge_candidates

    X = _tie_sparse()
    std = Standardizer.fit(X)
    qids = np.arange(2, 420, 11)
    kk = candidate_count(10, 420, True)
    parts = [search_shard(X[a:b], a, X[qids], qids, kk, standardizer=std, block=17) for a, b in ((0, 101), (101, 420))]
    s, i = merge_candidates(parts, kk)
    got = finish_exact(X, X[qids], s, i, 10, standardizer=std)
    ref = exact_knn(X, 10, query_ids=qids, standardizer=std)
    assert (got.ids == ref.ids).all() and (got.sims == ref.sims).all()


def _znorm_dense(X, std):
    """Reference: float64 z-normalized, L2-normalized dense rows; raw zero rows stay zero."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X, np.float64)
    zero = ~np.any(X != 0, axis=1)
    Z = (X - std.mean.astype(np.float64)) * std.scale.astype(np.float64)
    Z[zero] = 0
    nrm = np.linalg.norm(Z, axis=1)
    return Z / np.where(nrm == 0, 1, nrm)[:, None]


def test_prepare_rows_znorm_sparse_algebra_equals_dense():
    from n2o_core.search.rows import ZNormRows, normalize_rows, prepare_rows

    X = _tie_sparse()
    std = Standardizer.fit(X)
    U = _znorm_dense(X, std)
    Z, zero = prepare_rows(X, std, np.float64)
    assert isinstance(Z, ZNormRows)
    assert (zero == ~np.any(X.toarray() != 0, axis=1)).all()
    np.testing.assert_allclose(Z.dot(Z[:30]), U @ U[:30].T, atol=1e-12)
    np.testing.assert_allclose(Z[5:40].rowwise(Z[50:85]), np.einsum("ij,ij->i", U[5:40], U[50:85]), atol=1e-12)
    np.testing.assert_allclose(Z.sum(), U.sum(0), atol=1e-9)
    pos = np.array([[0, 3, 3], [7, 1, 2]])
    np.testing.assert_allclose(Z[[1, 2]].dot_pairs(Z[:8], pos), np.take_along_axis(U[[1, 2]] @ U[:8].T, pos, 1))
    dense = np.asarray(X.toarray())
    a, za = prepare_rows(dense, std)
    b, zb = normalize_rows(dense, std)
    assert (a == b).all() and (za == zb).all()


def test_zcos_distance_metric_equals_dense_cosine():
    from n2o_core.search.approx import zcos_distance
    from n2o_core.search.rows import prepare_rows

    X = _tie_sparse()
    std = Standardizer.fit(X)
    U = _znorm_dense(X, std)
    A = prepare_rows(X, std)[0].augmented()
    A.eliminate_zeros()  # a dropped zero among the extra columns is read as 0
    dist = zcos_distance()
    for i, j in [(1, 2), (7, 100), (3, 250), (0, 5), (10, 11), (400, 13)]:
        got = dist(A[i].indices, A[i].data, A[j].indices, A[j].data)
        assert got == pytest.approx(max(0.0, 1.0 - U[i] @ U[j]), abs=1e-5)


@pytest.mark.slow
def test_approx_znorm_sparse_agrees_with_exact():
    from n2o_core.search.approx import approx_knn

    X = _tie_sparse(n=1500, d=80)
    std = Standardizer.fit(X)
    qids = np.arange(1, 1500, 7)
    got, _ = approx_knn(X, 10, qids, standardizer=std, recall_sample=50)
    ref = exact_knn(X, 10, query_ids=qids, standardizer=std)
    assert got.recall >= 0.9
    same = got.ids == ref.ids
    assert same.mean() >= 0.8
    np.testing.assert_allclose(got.sims[same], ref.sims[same], atol=1e-5)


def test_real_pynndescent_search_recalls_the_exact_neighbors(monkeypatch):
    """neighbors.approx_knn end to end on a few hundred rows: a real pynndescent index (its numba compilation
    for dense rows, ~20 s of CPU in a fresh process, is paid here), checked against exact search. The warm-up's
    compile of the sparse metric too (another ~10 s, asserted nowhere here) is left to the slow set, which runs
    the real warm-up (tests/reliability/test_pynndescent_guard.py); here the build compiles what it uses."""
    from n2o_core.search import approx
    from n2o_core.search.approx import approx_knn
    from n2o_core.search.result import recall_of

    monkeypatch.setattr(approx, "_warm", {})  # this process's warm-up state comes back after the test
    monkeypatch.setattr(approx, "_compile_pynndescent", lambda nice: None)

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
