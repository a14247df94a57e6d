"""Workspace scale paths: float16 storage on disk, approximate mode (recall, N2O error, cached graph)."""

from __future__ import annotations

import hashlib
import threading

import numpy as np
import pytest

from n2o_core.analyses.compare import approximation_error, compare
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.registry import register_embedder
from n2o_core.runtime.progress import report
from n2o_core.search.exact import exact_knn, row_inverse_norms
from n2o_core.search.result import Neighbors, recall_of
from n2o_core.storage.cache import Cache


class HashWordsEmbedder:
    """Deterministic test embedder: the mean of per-word random vectors (seeded by the word's hash)."""

    def __init__(self, name: str, dim: int = 24):
        self.info = EmbedderInfo(name, "user", "average", dim, "hashed words (tests)", default=False)
        self.dim = dim

    def fingerprint(self) -> str:
        return self.info.id

    def fit(self, texts, progress=None) -> None:
        pass

    def _word(self, w: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(w.encode()).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self.dim)

    def encode(self, texts, progress=None) -> np.ndarray:
        out = np.array([np.mean([self._word(w) for w in t.lower().split()], axis=0) for t in texts], np.float32)
        report(progress, "embed", len(texts), len(texts))
        return out


def word_corpus(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(60)]
    return from_texts([" ".join(rng.choice(vocab, rng.integers(3, 9))) + f" s{i}" for i in range(n)], name="words")


@pytest.fixture(scope="module")
def hash_embedder():
    emb = HashWordsEmbedder("test-hash-words")
    register_embedder(emb)
    return emb


def test_float16_storage_is_a_float16_memmap_and_search_matches_in_memory(tmp_path, hash_embedder):
    corpus = word_corpus(1500)
    ws16 = Workspace(corpus, cache=Cache(tmp_path / "c"), storage_dtype="float16")
    X = ws16.embeddings(hash_embedder.info.id)
    assert isinstance(X, np.memmap) and X.dtype == np.float16 and X.shape == (1500, 24)
    files = list((tmp_path / "c" / "embeddings").rglob("*-float16.npy"))
    assert len(files) == 1 and np.load(files[0], mmap_mode="r").dtype == np.float16
    # the values are the float32 encoding rounded to float16 (half the bytes of float32 storage)
    ws32 = Workspace(corpus, cache=Cache(tmp_path / "c"), storage_dtype="float32")
    X32 = ws32.embeddings(hash_embedder.info.id)
    assert X32.dtype == np.float32 and np.array_equal(np.asarray(X32).astype(np.float16), np.asarray(X))
    assert files[0].stat().st_size < 0.6 * next((tmp_path / "c" / "embeddings").rglob("*-float32.npy")).stat().st_size
    q = np.arange(0, 1500, 13)
    got = ws16.neighbors(hash_embedder.info.id, q, 15)
    ref = exact_knn(np.asarray(X, np.float32), 15, query_ids=q, block=1500)  # one in-memory float32 block
    assert np.array_equal(got.ids, ref.ids) and np.array_equal(got.sims, ref.sims)
    # float16 rounding moves few neighbors: recall of the float16 lists against float32 storage stays high
    assert recall_of(got.ids, ws32.neighbors(hash_embedder.info.id, q, 15).ids) > 0.95


def test_head_recomputes_recall_and_approximation_error_from_checks():
    held = np.array([3, 7])
    exact = np.array([[1, 2, 3, 4], [5, 6, 8, 9]])
    approx = np.array([[1, 2, 4, 0], [5, 0, 8, 6]])  # recall@4 = 6/8, recall@2 = 3/4
    nb = Neighbors(np.zeros((1, 4), np.int64), np.zeros((1, 4), np.float32), 0.75, 0.0, held, exact, approx)
    assert nb.head(4).recall == pytest.approx(0.75) and nb.head(2).recall == pytest.approx(0.75)
    assert nb.head(1).recall == pytest.approx(1.0)
    other = Neighbors(nb.ids, nb.sims, 1.0, 0.0, held, exact, exact)  # a perfect approximation
    err = approximation_error({"a": nb, "b": other}, ["a", "b"], 4)
    # N2O(a,b) exact = 1; approx: overlap of approx with exact lists = 3/4 and 3/4 -> 0.75; error 0.25
    assert err[0, 1] == pytest.approx(0.25) and err[1, 0] == pytest.approx(0.25)
    assert approximation_error({"a": nb}, ["a", "b"], 4) is None


@pytest.mark.slow
def test_approx_mode_reports_recall_and_n2o_error_and_caches_the_graph(tmp_path, hash_embedder):
    corpus = word_corpus(3000, seed=1)
    second = HashWordsEmbedder("test-hash-words-32", dim=32)
    register_embedder(second)
    ids = [hash_embedder.info.id, second.info.id]
    ws = Workspace(corpus, cache=Cache(tmp_path / "c"))
    res = compare(ws, ids, 10, n_queries=40, n_samples=2, seed=0, approx=True)
    exact = compare(ws, ids, 10, n_queries=40, n_samples=2, seed=0, approx=False)
    for e in ids:
        assert 0.5 < res.recall[e] <= 1.0
        assert exact.recall[e] is None
    assert res.n2o_error is not None and res.n2o_error.shape == (2, 2)
    assert "n2o_error" in res.to_json() and "recall" in res.to_json()
    # the recall is a real measurement: recompute it from the held-out queries' exact neighbors
    nb = ws.neighbors(ids[0], res.pool, 10, approx=True)
    ref = exact_knn(ws.embeddings(ids[0]), 10, query_ids=nb.check_ids)
    assert np.array_equal(nb.check_exact, ref.ids)
    assert nb.recall == pytest.approx(recall_of(nb.check_approx, ref.ids))
    # the in-memory index is reused for a new query set; the pool's result (with its checks) is cached on disk
    assert not (tmp_path / "c" / "ann").exists()
    again = ws.neighbors(ids[0], np.arange(5, 3000, 50), 10, approx=True)
    assert again.recall is not None and again.recall > 0.9
    assert recall_of(again.ids, exact_knn(ws.embeddings(ids[0]), 10, query_ids=np.arange(5, 3000, 50)).ids) > 0.9
    fresh = Workspace(corpus, cache=Cache(tmp_path / "c"))
    cached = fresh.neighbors(ids[0], res.pool, 10, approx=True)  # read back, no index built
    assert not fresh._indexes and cached.recall == nb.recall and np.array_equal(cached.check_approx, nb.check_approx)


def test_texts_outside_the_corpus_are_encoded_once_and_cached(tmp_path, hash_embedder, monkeypatch):
    eid = hash_embedder.info.id
    corpus = word_corpus(50)
    pairs = ["w1 w2 w3 fresh", "w4 w5 unseen words", "w1 w2 w3 fresh"]
    ws = Workspace(corpus, cache=Cache(tmp_path))
    x = ws.encode_texts(eid, pairs)
    assert x.shape == (3, 24) and x.dtype == np.float32
    np.testing.assert_allclose(x, ws.embedder(eid).encode(pairs), rtol=1e-6)

    ws2 = Workspace(corpus, cache=Cache(tmp_path))  # a restarted process: read back, nothing encoded

    def boom(*a, **k):
        raise AssertionError("encoded again")

    monkeypatch.setattr(type(ws2.embedder(eid)), "encode", boom)
    np.testing.assert_array_equal(ws2.encode_texts(eid, pairs), x)
    with pytest.raises(Exception, match="encoded again"):  # another list is another entry
        ws2.encode_texts(eid, pairs[:2])


def test_tfidf_texts_round_trip_sparse(tmp_path):
    import scipy.sparse as sp

    corpus = word_corpus(80)
    ws = Workspace(corpus, cache=Cache(tmp_path))
    a = ws.encode_texts("tfidf", ["w1 w2 w3", "w7 w8"])
    b = Workspace(corpus, cache=Cache(tmp_path)).encode_texts("tfidf", ["w1 w2 w3", "w7 w8"])
    assert sp.issparse(a) and sp.issparse(b)
    assert (a != b).nnz == 0 and a.nnz > 0


def test_non_finite_output_is_refused_and_not_cached(tmp_path, hash_embedder, monkeypatch):
    from n2o_core.errors import EmbedderError

    eid = hash_embedder.info.id
    ws = Workspace(word_corpus(30), cache=Cache(tmp_path))
    emb = ws.embedder(eid)
    monkeypatch.setattr(type(emb), "encode", lambda self, t, progress=None: np.full((len(t), 24), np.nan, np.float32))
    with pytest.raises(EmbedderError, match="NaN"):
        ws.encode_texts(eid, ["w1 w2"])
    assert not list((tmp_path / "texts").rglob("*.npy"))


def test_znorm_through_the_workspace_matches_standardizing_by_hand(tmp_path):
    """Workspace.neighbors(znorm=True) = exact search on the corpus vectors standardized by hand, for dense
    (word2vec) and sparse (tf-idf) embeddings; and it changes the neighbors."""
    from synthetic_text import sentences

    corpus = from_texts(sentences(300, seed=3), name="z")
    ws = Workspace(corpus, cache=Cache(tmp_path / "c"))
    q = np.arange(0, 300, 7)
    for eid in ("word2vec", "tfidf"):
        X = ws.embeddings(eid)
        dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X, np.float64)
        mu, sd = dense.mean(0), dense.std(0)
        sd[sd < 1e-12] = 1.0
        Z = (dense - mu) / sd
        Z[~np.any(dense != 0, axis=1)] = 0.0
        want = exact_knn(Z.astype(np.float32), 5, query_ids=q)
        got = ws.neighbors(eid, q, 5, znorm=True)
        assert np.array_equal(got.ids, want.ids), eid
        np.testing.assert_allclose(got.sims, want.sims, atol=1e-5)
        plain = ws.neighbors(eid, q, 5)
        assert not np.array_equal(plain.ids, got.ids), eid


def test_one_embedder_training_does_not_block_the_others(tmp_path, monkeypatch):
    """Loading and fitting lock one embedder only: while word2vec trains in one thread, tf-idf is fitted, embedded
    and searched in another; a second caller of word2vec waits for the first training (no second one)."""
    from n2o_core.embedders.trained_vectors import TrainedVectorsEmbedder

    training = threading.Event()
    release = threading.Event()
    calls = []
    real = TrainedVectorsEmbedder._train

    def slow_train(self, texts, progress=None):
        calls.append(self.info.id)
        training.set()
        assert release.wait(60)
        real(self, texts, progress)

    monkeypatch.setattr(TrainedVectorsEmbedder, "_train", slow_train)
    ws = Workspace(word_corpus(60), cache=Cache(tmp_path))
    first = threading.Thread(target=ws.embedder, args=("word2vec",))
    second = threading.Thread(target=ws.embedder, args=("word2vec",))
    first.start()
    assert training.wait(60)
    second.start()
    assert ws.neighbors("tfidf", np.arange(5), 3).ids.shape == (5, 3)  # not blocked by the training
    assert not ws.is_loaded("word2vec") and second.is_alive()
    release.set()
    first.join(60)
    second.join(60)
    assert ws.is_loaded("word2vec") and calls == ["word2vec"]


def test_precomputed_search_takes_the_norms_of_the_vectors_it_searches(tmp_path, monkeypatch):
    """A float32 vectors file's search gets the inverse norms its check computed, and only while the searched
    array is that file's: vectors replaced between the two (a reload) get none (the search computes its own)."""
    import n2o_core.corpus_workspace as wsmod

    corpus = from_texts([f"sentence number {i} about topic {i % 5}" for i in range(40)], "c")
    np.save(tmp_path / "v.npy", np.random.default_rng(1).standard_normal((40, 6)).astype(np.float32))
    ws = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    ws.add_vectors("v", tmp_path / "v.npy")
    seen = []

    def spy(X, k, **kw):
        seen.append(kw.get("row_inv"))
        return exact_knn(X, k, **kw)

    monkeypatch.setattr(wsmod, "exact_knn", spy)
    got = ws.neighbors("v", np.arange(5), 3)
    X = ws.embeddings("v")
    assert seen[-1] is not None
    np.testing.assert_array_equal(seen[-1], row_inverse_norms(X)[0])
    assert (got.ids == exact_knn(X, 3, query_ids=np.arange(5)).ids).all()
    monkeypatch.setattr(ws, "embeddings", lambda eid, progress=None: np.array(X))  # another array
    ws.neighbors("v", np.arange(6), 3)
    assert seen[-1] is None


def test_training_with_a_background_reembeds_only_the_trained_embedders(tmp_path, monkeypatch):
    """The background-corpus switch changes what word2vec and tf-idf learn from, not the sentences: GloVe's
    vectors and neighbors come from the cache (its model is never asked to embed), the trained embedders are
    trained and embed again, under their own keys."""
    from synthetic_text import sentences

    import n2o_core.embedders.registry as registry
    from n2o_core.corpora import with_background
    from n2o_core.pipeline import plan_queries, prepare_embedder

    mine = from_texts(sentences(80, seed=3), name="mine")
    both = with_background(mine, from_texts(sentences(300, seed=4), name="background"))
    cache = Cache(tmp_path / "c")
    ids = ["glove-6b-50d", "tfidf", "word2vec"]
    pool = plan_queries(len(mine), 20, 2).pool
    before = Workspace(mine, cache=cache)
    first = {e: prepare_embedder(before, e, pool, 10) for e in ids}

    encoded: list[str] = []
    real = registry.get_embedder

    def spying(eid, **kwargs):
        emb = real(eid, **kwargs)
        encode = emb.encode
        monkeypatch.setattr(emb, "encode", lambda texts, **kw: (encoded.append(eid), encode(texts, **kw))[1])
        return emb

    monkeypatch.setattr(registry, "get_embedder", spying)
    after = Workspace(both, cache=cache)
    assert after.has_neighbors("glove-6b-50d", pool, 10) and not after.has_neighbors("word2vec", pool, 10)
    second = {e: prepare_embedder(after, e, pool, 10) for e in ids}
    assert sorted(encoded) == ["tfidf", "word2vec"]  # GloVe is not trained on the corpus: nothing to redo
    np.testing.assert_array_equal(second["glove-6b-50d"].ids, first["glove-6b-50d"].ids)
    assert after.embedder_key("glove-6b-50d") == before.embedder_key("glove-6b-50d")
    for e in ("tfidf", "word2vec"):
        assert after.embedder_key(e) != before.embedder_key(e)
    assert not np.array_equal(second["word2vec"].ids, first["word2vec"].ids)  # it learned from more sentences
