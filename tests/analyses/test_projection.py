"""2-D maps: PCA and UMAP on the core's k-NN graph, the cache, zero vectors, fallback and bad input."""

import numpy as np
import pytest
import scipy.sparse as sp

import n2o_core.analyses.projection as proj
from n2o_core.analyses.projection import cached_projection, normalized, pca_coords, projection, umap_graph
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.search.exact import exact_knn
from n2o_core.storage.cache import Cache


def clusters(n_per=60, d=10, seed=0):
    """Three well-separated directions (cosine clusters), labels 0, 1, 2."""
    rng = np.random.default_rng(seed)
    centers = np.eye(d)[:3] * 4.0 + 0.5
    X = np.vstack([rng.normal(c, 0.4, (n_per, d)) for c in centers]).astype(np.float32)
    return X, np.repeat(np.arange(3), n_per)


def knn_label_agreement(Y, labels, k=5):
    """Share of each point's k nearest 2-D neighbors with its own label."""
    D = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    nn = np.argsort(D, axis=1)[:, :k]
    return float((labels[nn] == labels[:, None]).mean())


@pytest.fixture
def ws_clusters(tmp_path):
    X, labels = clusters()
    X[5] = 0.0  # no vector
    np.save(tmp_path / "x.npy", X)
    corpus = from_texts([f"sentence {i}" for i in range(len(X))], name="clusters")
    ws = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    ws.add_vectors("x", tmp_path / "x.npy")
    return ws, X, labels


def test_normalized_marks_zero_rows_dense_and_sparse():
    X = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 0.0]], np.float32)
    Xn, keep = normalized(X)
    assert keep.tolist() == [True, False, True]
    np.testing.assert_allclose(Xn[0], [0.6, 0.8], rtol=1e-6)
    S, keep_s = normalized(sp.csr_matrix(X))
    assert sp.issparse(S) and keep_s.tolist() == [True, False, True]
    np.testing.assert_allclose(S.toarray()[0], [0.6, 0.8], rtol=1e-6)


def test_umap_graph_renumbers_and_adds_self():
    ids = np.array([[2, 3, 1], [-1, -1, -1], [0, 3, 1], [2, 0, 1]])
    sims = np.array([[0.9, 0.5, 0.0], [0, 0, 0], [0.9, 0.4, 0.0], [0.5, 0.5, 0.0]], np.float32)
    keep = np.array([True, False, True, True])  # row 1 has no vector
    knn, dist = umap_graph(ids, sims, keep, n_neighbors=3)
    # kept rows 0, 2, 3 -> positions 0, 1, 2; neighbor 1 (dropped) and -1 become -1
    assert knn.tolist() == [[0, 1, 2], [1, 0, 2], [2, 1, 0]]
    np.testing.assert_allclose(dist[:, 0], 0.0)
    np.testing.assert_allclose(dist[0, 1:], [0.1, 0.5], atol=1e-6)
    ids2 = np.array([[1, -1], [0, -1], [0, 1]])
    knn2, dist2 = umap_graph(ids2, np.zeros((3, 2), np.float32), np.ones(3, bool), 3)
    assert knn2[0].tolist() == [0, 1, -1] and np.isinf(dist2[0, 2])
    with pytest.raises(N2OError):
        umap_graph(ids, sims, keep, n_neighbors=10)


def test_pca_coords_preserve_planar_geometry():
    rng = np.random.default_rng(0)
    P = rng.standard_normal((40, 2))
    Q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    X = (P @ Q[:2]).astype(np.float32)  # a plane inside 8-D
    Y = pca_coords(X)
    d = lambda A: np.linalg.norm(A[:, None] - A[None], axis=-1)  # noqa: E731
    np.testing.assert_allclose(d(Y), d(X), atol=1e-4)
    S = pca_coords(sp.csr_matrix(np.abs(X) + 0.1))
    assert S.shape == (40, 2) and np.all(np.isfinite(S))


def test_pca_projection_is_cached_and_zero_rows_are_nan(ws_clusters):
    ws, _, labels = ws_clusters
    first = projection(ws, "x", "pca")
    assert first.method == "pca" and not first.cached and first.coords.shape == (180, 2)
    assert not first.drawn[5] and first.drawn.sum() == 179
    ok = first.drawn
    assert knn_label_agreement(first.coords[ok], labels[ok]) > 0.95
    again = projection(ws, "x", "pca")
    assert again.cached
    np.testing.assert_array_equal(np.isnan(again.coords), np.isnan(first.coords))
    np.testing.assert_allclose(again.coords[ok], first.coords[ok])


def test_cached_projection_reads_what_projection_kept_and_computes_nothing(ws_clusters, monkeypatch):
    ws, _, _ = ws_clusters
    assert cached_projection(ws, "x", "pca") is None  # nothing kept yet, and nothing is computed
    assert cached_projection(ws, "x", "pca") is None
    first = projection(ws, "x", "pca")
    monkeypatch.setattr(proj, "pca_coords", lambda *a, **k: pytest.fail("a cached read computed a map"))
    got = cached_projection(ws, "x", "pca")
    assert got is not None and got.cached and got.method == "pca" and got.params == first.params
    np.testing.assert_array_equal(got.coords, first.coords)
    assert cached_projection(ws, "x", "pca", seed=1) is None  # the parameters are in the key
    with pytest.raises(N2OError, match="n_neighbors must be at least 2"):
        cached_projection(ws, "x", "umap", n_neighbors=1)


def test_umap_failure_falls_back_to_pca_uncached(ws_clusters, monkeypatch):
    ws, _, _ = ws_clusters

    def boom(*a, **k):
        raise RuntimeError("numba exploded")

    monkeypatch.setattr(proj, "umap_coords", boom)
    got = projection(ws, "x", "umap", n_neighbors=10)
    assert got.method == "pca" and got.requested == "umap" and "numba exploded" in got.note
    monkeypatch.setattr(proj, "library_version", lambda m: "missing" if m == "umap" else "1")
    got = projection(ws, "x", "umap", n_neighbors=10)
    assert got.method == "pca" and "not installed" in got.note


def test_bad_input(tmp_path):
    corpus = from_texts(["one", "two"], name="tiny")
    ws = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    np.save(tmp_path / "v.npy", np.eye(2, dtype=np.float32))
    ws.add_vectors("v", tmp_path / "v.npy")
    with pytest.raises(N2OError, match="Too few sentences"):
        projection(ws, "v", "pca")
    corpus = from_texts([f"s{i}" for i in range(10)], name="small")
    ws = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    np.save(tmp_path / "w.npy", np.random.default_rng(0).standard_normal((10, 4)).astype(np.float32))
    ws.add_vectors("w", tmp_path / "w.npy")
    with pytest.raises(N2OError, match="n_neighbors=15 needs more than 15"):
        projection(ws, "w", "umap")
    with pytest.raises(N2OError, match="Unknown map method"):
        projection(ws, "w", "tsne")
    with pytest.raises(N2OError, match="min_dist"):
        projection(ws, "w", "umap", n_neighbors=4, min_dist=2.0)
    assert projection(ws, "w", "pca").coords.shape == (10, 2)
    Z = np.zeros((10, 4), np.float32)
    Z[:2] = 1.0
    np.save(tmp_path / "z.npy", Z)
    ws.add_vectors("z", tmp_path / "z.npy")
    with pytest.raises(N2OError, match="2 have a vector"):
        projection(ws, "z", "pca")


@pytest.mark.slow
def test_umap_on_the_exact_graph_separates_clusters(ws_clusters):
    """The real UMAP (slow: umap-learn compiles its numba functions in every fresh process, 1-2 min here)."""
    from n2o_core.analyses.projection import warm_up_umap

    assert warm_up_umap() > 0
    ws, _, labels = ws_clusters
    got = projection(ws, "x", "umap", n_neighbors=10)
    assert got.method == "umap" and got.note == "" and not got.drawn[5]
    ok = got.drawn
    assert knn_label_agreement(got.coords[ok], labels[ok]) > 0.95
    assert projection(ws, "x", "umap", n_neighbors=10).cached
    assert not projection(ws, "x", "umap", n_neighbors=10, min_dist=0.5).cached  # parameters are in the key


@pytest.mark.slow
def test_umap_on_sparse_tfidf_like_rows(tmp_path):
    X, labels = clusters(n_per=50, d=30)
    S = sp.csr_matrix(np.where(X > 1.0, X, 0.0))
    nb = exact_knn(S, 9, query_ids=np.arange(S.shape[0]))
    knn, dist = umap_graph(nb.ids, nb.sims, np.ones(S.shape[0], bool), 10)
    Y = proj.umap_coords(proj._svd_stand_in(normalized(S)[0], 0), knn, dist, n_neighbors=10)
    assert knn_label_agreement(Y, labels) > 0.9


def test_neighbor_preservation():
    from n2o_core.analyses.projection import neighbor_preservation

    line = np.column_stack([np.arange(10.0), np.zeros(10)])
    ids = np.array([[j for j in sorted(range(10), key=lambda j: (abs(j - i), j)) if j != i][:2] for i in range(10)])
    assert neighbor_preservation(line, ids, k=2) == 1.0
    shuffled = ids.copy()
    shuffled[0] = [9, 8]  # point 0's true neighbors drawn far away
    assert neighbor_preservation(line, shuffled, k=2) == pytest.approx(18 / 20)
    with_nan = line.copy()
    with_nan[9] = np.nan
    # point 9 is not drawn: skipped as a sentence and dropped from the others' true neighbors
    assert neighbor_preservation(with_nan, shuffled, k=2) == pytest.approx(15 / 16)
    with pytest.raises(N2OError):
        neighbor_preservation(line, ids, k=3)
