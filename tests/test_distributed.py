"""Dask backend on a LocalCluster: sharded exact k-NN and sharded embedding equal the single-process path."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")
from distributed import Client, LocalCluster  # noqa: E402

import n2o_core.distributed as dd  # noqa: E402
from n2o_core.corpora import from_texts  # noqa: E402
from n2o_core.corpus_workspace import Workspace  # noqa: E402
from n2o_core.embedders.base import EmbedderInfo  # noqa: E402
from n2o_core.embedders.registry import register_embedder  # noqa: E402
from n2o_core.errors import EmbedderError, N2OError  # noqa: E402
from n2o_core.search.exact import exact_knn  # noqa: E402
from n2o_core.search.rows import Standardizer  # noqa: E402
from n2o_core.storage.cache import Cache  # noqa: E402


class HashWordsEmbedder:
    """Deterministic test embedder: the mean of per-word random vectors (seeded by the word's hash)."""

    def __init__(self, name: str, dim: int = 16):
        self.info = EmbedderInfo(name, "user", "average", dim, "hashed words (tests)", default=False)
        self.dim = dim
        self.calls = 0

    def fingerprint(self) -> str:
        return self.info.id

    def fit(self, texts, progress=None) -> None:
        pass

    def encode(self, texts, progress=None) -> np.ndarray:
        self.calls += 1
        rows = []
        for t in texts:
            ws = [
                np.random.default_rng(
                    int.from_bytes(hashlib.sha256(w.encode()).digest()[:8], "little")
                ).standard_normal(self.dim)
                for w in t.split()
            ]
            rows.append(np.mean(ws, axis=0))
        return np.array(rows, np.float32)


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        Client(cluster) as c,
    ):
        yield c


@pytest.fixture
def tie_memmap(tie_vectors, tmp_path):
    np.save(tmp_path / "x.npy", tie_vectors)
    return np.load(tmp_path / "x.npy", mmap_mode="r")


@pytest.mark.parametrize("data", ["auto", "scatter"])
def test_sharded_exact_knn_is_identical(client, tie_memmap, data):
    q = np.random.default_rng(3).choice(300, 80, replace=False)
    ref = exact_knn(np.asarray(tie_memmap), 12, query_ids=q)
    for shard_rows in (37, 100, 300):  # shard edges fall inside groups of tied rows
        got = dd.exact_knn(client, tie_memmap, 12, query_ids=q, shard_rows=shard_rows, data=data)
        assert np.array_equal(got.ids, ref.ids) and np.array_equal(got.sims, ref.sims)


def test_sharded_exact_knn_float16_standardized_sparse_and_external(client, tmp_path):
    rng = np.random.default_rng(5)
    X = (rng.standard_normal((2001, 20)) * np.linspace(0.1, 5, 20)).astype(np.float16)
    np.save(tmp_path / "h.npy", X)
    Xm = np.load(tmp_path / "h.npy", mmap_mode="r")
    q = rng.choice(2001, 50, replace=False)
    std = Standardizer.fit(Xm)
    for kwargs in ({}, {"standardizer": std}):
        ref = exact_knn(Xm, 9, query_ids=q, **kwargs)
        got = dd.exact_knn(client, Xm, 9, query_ids=q, shard_rows=450, **kwargs)
        assert np.array_equal(got.ids, ref.ids) and np.array_equal(got.sims, ref.sims)
    S = sp.random(900, 70, density=0.05, format="csr", random_state=1, dtype=np.float32)
    ref = exact_knn(S, 7, query_ids=np.arange(0, 900, 17))
    got = dd.exact_knn(client, S, 7, query_ids=np.arange(0, 900, 17), shard_rows=200)
    assert np.array_equal(got.ids, ref.ids) and np.allclose(got.sims, ref.sims)
    ext = np.asarray(Xm[[4, 9]], np.float32)
    assert np.array_equal(dd.exact_knn(client, Xm, 5, queries=ext).ids, exact_knn(Xm, 5, queries=ext).ids)


def test_workspace_with_scheduler_equals_single_process_and_shares_the_cache(client, tmp_path):
    emb = HashWordsEmbedder("test-dask-hash")
    register_embedder(emb)
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(50)]
    corpus = from_texts([" ".join(rng.choice(vocab, rng.integers(3, 8))) + f" s{i}" for i in range(5000)])
    q = np.arange(0, 5000, 41)
    local = Workspace(corpus, cache=Cache(tmp_path / "local"))
    remote = Workspace(corpus, cache=Cache(tmp_path / "dask"), scheduler=client)
    calls = []
    Xd = remote.embeddings(emb.info.id, progress=lambda e: calls.append((e.stage, e.done, e.total)))
    assert emb.calls >= 3  # 5,000 sentences in shards of 2,048: encoded shard by shard on the workers
    assert calls[-1] == ("embed", 5000, 5000)
    assert np.array_equal(np.asarray(Xd), np.asarray(local.embeddings(emb.info.id)))
    a, b = local.neighbors(emb.info.id, q, 20), remote.neighbors(emb.info.id, q, 20)
    assert np.array_equal(a.ids, b.ids) and np.array_equal(a.sims, b.sims)
    # results land in the same cache: a single-process workspace on the Dask cache reads them, no encoding
    before = emb.calls
    reader = Workspace(corpus, cache=Cache(tmp_path / "dask"))
    assert reader.is_cached(emb.info.id)
    assert np.array_equal(reader.neighbors(emb.info.id, q, 20).ids, a.ids) and emb.calls == before


def test_corpus_trained_embedders_are_not_sharded(client):
    with pytest.raises(EmbedderError, match="fitted on the whole corpus"):
        dd.embed(client, "tfidf", ["a b", "c d"])


def test_bad_scheduler_address():
    with pytest.raises(N2OError, match="address"):
        dd.connect("")


def test_process_cluster_exact_search_is_identical_to_single_process(tie_memmap, tmp_path):
    """Two worker processes (data pickled across processes, workers opening the memory-mapped file by path):
    the sharded exact search equals the single-process one, ties, duplicates, zero rows and standardizer included."""
    q = np.random.default_rng(4).choice(300, 60, replace=False)
    std = Standardizer.fit(tie_memmap)
    S = sp.random(400, 50, density=0.06, format="csr", random_state=2, dtype=np.float32)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as c,
    ):
        pids = set(c.run(os.getpid).values())
        assert len(pids) == 2 and os.getpid() not in pids  # really two other processes
        for data in ("path", "scatter"):
            for kwargs in ({}, {"standardizer": std}):
                ref = exact_knn(np.asarray(tie_memmap), 12, query_ids=q, **kwargs)
                got = dd.exact_knn(c, tie_memmap, 12, query_ids=q, shard_rows=37, data=data, **kwargs)
                assert np.array_equal(got.ids, ref.ids) and np.array_equal(got.sims, ref.sims)
        ref = exact_knn(S, 7, query_ids=np.arange(0, 400, 9))
        got = dd.exact_knn(c, S, 7, query_ids=np.arange(0, 400, 9), shard_rows=150)
        assert np.array_equal(got.ids, ref.ids) and np.allclose(got.sims, ref.sims)


@pytest.mark.slow
def test_process_cluster_with_a_builtin_embedder(tmp_path):
    texts = [f"the {w} market rose {i} points" for i, w in enumerate(["stock", "bond", "oil", "gold"] * 150)]
    corpus = from_texts(texts)
    q = np.arange(0, len(corpus), 7)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as c,
    ):
        remote = Workspace(corpus, cache=Cache(tmp_path / "d"), scheduler=c)
        local = Workspace(corpus, cache=Cache(tmp_path / "l"))
        Xr, Xl = remote.embeddings("glove-6b-50d"), local.embeddings("glove-6b-50d")
        assert np.array_equal(np.asarray(Xr), np.asarray(Xl))
        a, b = local.neighbors("glove-6b-50d", q, 10), remote.neighbors("glove-6b-50d", q, 10)
        assert np.array_equal(a.ids, b.ids) and np.array_equal(a.sims, b.sims)
