"""One corpus and its cached per-embedder arrays: embeddings, z-normalization statistics, neighbor sets.

Embeddings are computed once per (corpus, embedder, code version) and memory-mapped from cache/ after that;
neighbor ids are searched once per (embedder, query pool, k_max, z-norm, exact/approx). Changing k <= k_max or
picking another sample of an already-searched pool only slices arrays.

Every method that takes an embedder id also takes a variant id (`minilm-l6-mean@layer=4@binary`,
`n2o_core.variants.spec`): its vectors come from the base's cached embeddings, or from one cached forward pass for
a layer or pooling, never from embedding again (`n2o_core.variants.store.VariantStore`).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

import n2o_core.runtime.release as release
from n2o_core.corpora import Corpus
from n2o_core.embedders.base import Embedder, EmbedderInfo
from n2o_core.embedders.precomputed import PrecomputedEmbedder
from n2o_core.errors import EmbedderError, N2OError
from n2o_core.limits import validate_k
from n2o_core.runtime.progress import Progress, report
from n2o_core.search.approx import approx_knn, approx_n_neighbors, build_index
from n2o_core.search.exact import exact_knn
from n2o_core.search.result import Neighbors
from n2o_core.search.rows import Standardizer, prepare_rows
from n2o_core.storage.cache import CACHE_CODE_VERSION, Cache
from n2o_core.storage.fileio import file_identity, hash_key
from n2o_core.variants.spec import Variant, describe
from n2o_core.variants.store import VariantStore, variant_of

STORAGE_DTYPES = ("float32", "float16")


class Workspace:
    """Cached arrays for one corpus. Thread-safe for concurrent readers (the app)."""

    def __init__(
        self, corpus: Corpus, cache: Cache | None = None, storage_dtype: str = "float32", scheduler: Any = None
    ):
        """`storage_dtype`: how embeddings are stored on disk ("float16" halves memory; searches convert one
        block at a time to float32). `scheduler`: None (this process), a Dask scheduler address
        ("tcp://host:8786") or a `distributed.Client`: pretrained embedders then encode corpus shards on the
        workers and exact neighbor search runs shard by shard there (identical results, same cache)."""
        if storage_dtype not in STORAGE_DTYPES:
            raise N2OError(f"Storage dtype must be one of {STORAGE_DTYPES} (got {storage_dtype!r}).")
        self.corpus = corpus
        self.cache = cache or Cache()
        self.storage_dtype = storage_dtype
        self.scheduler = None if isinstance(scheduler, str) and not scheduler.strip() else scheduler
        self._client: Any = None
        self._embedders: dict[str, Embedder] = {}
        self._fitted: set[str] = set()
        self._vectors: dict[str, str] = {}  # name -> .npy path of precomputed vectors
        self._arrays: dict[str, np.ndarray | sp.csr_matrix] = {}
        self._standardizers: dict[str, Standardizer] = {}
        self._indexes: dict[tuple, Any] = {}  # (embedder, znorm, n_neighbors) -> pynndescent index
        self._loading: dict[str, threading.RLock] = {}  # one lock per embedder while it loads and fits
        self._lock = threading.RLock()
        self.variants = VariantStore(self)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as what it reads (corpus, cache folder, storage dtype, scheduler address, registered vectors),
        not what it has loaded: unpickled in a child process (`runtime.child`) it opens the same disk cache, so
        what either computes is there for the other. A `distributed.Client` travels as no scheduler (the child
        computes locally; the results are the same)."""
        scheduler = self.scheduler if isinstance(self.scheduler, str) else None
        return (_reopened, (self.corpus, self.cache, self.storage_dtype, scheduler, dict(self._vectors)))

    # ------------------------------------------------------------------ Dask

    def client(self) -> Any:
        """The Dask client of `scheduler` (connected on first use), or None without a scheduler."""
        if self.scheduler is None:
            return None
        with self._lock:
            if self._client is None:
                from n2o_core.distributed import connect

                self._client = connect(self.scheduler)
            return self._client

    # ------------------------------------------------------------------ embedders

    def add_vectors(self, name: str, path: str | os.PathLike) -> None:
        """Register precomputed vectors (.npy, one row per corpus sentence) under `name`.

        The file is checked (readable, 2-D, finite, one row per sentence) and memory-mapped, never copied; it is
        mapped again, and gets a new cache key, when it changes on disk (`fileio.file_identity`)."""
        with self._lock:
            self._vectors[name] = str(path)
            self._forget(name)
            try:
                self._precomputed(name)
            except N2OError:
                del self._vectors[name]
                raise

    def _precomputed(self, eid: str) -> PrecomputedEmbedder:
        """The loaded vectors of `eid`, loaded again (and derived arrays dropped) when the file has changed."""
        path = self._vectors[eid]
        with self._lock:
            emb = self._embedders.get(eid)
            if isinstance(emb, PrecomputedEmbedder) and _identity(path) == emb.identity:
                return emb
            self._forget(eid)
            emb = PrecomputedEmbedder(eid, path)  # checks the file: readable, 2-D, finite
            n, shape = len(self.corpus), emb.vectors.shape
            if shape[0] != n:
                raise EmbedderError(f"{path} has shape {shape}, but the corpus has {n:,} sentences (one row each).")
            self._embedders[eid] = emb
            return emb

    def _row_inv(self, eid: str, X: Any, znorm: bool) -> np.ndarray | None:
        """The inverse row norms precomputed vectors got when their file was checked (float32, raw cosine only),
        when `X` is those very vectors: the loaded embedder, with no second look at the file (which could have
        been replaced since `X` was taken)."""
        if znorm:
            return None
        with self._lock:
            emb = self._embedders.get(eid)
        return emb.row_inv if isinstance(emb, PrecomputedEmbedder) and emb.vectors is X else None

    def _forget(self, eid: str) -> None:
        """Drop the loaded embedder of `eid` and everything derived from its vectors in memory (its variants')."""
        self.variants.forget(eid)
        for vid in [vid for vid in self._arrays if vid.startswith(eid + "@")]:
            self._arrays.pop(vid, None)
        self._embedders.pop(eid, None)
        self._fitted.discard(eid)
        self._arrays.pop(eid, None)
        self._standardizers.pop(eid, None)
        for key in [key for key in self._indexes if key[0] == eid]:
            del self._indexes[key]

    def variant(self, eid: str) -> Variant | None:
        """The variant an id names (None for a plain embedder id or a name of added vectors); N2OError for a
        malformed variant part."""
        return None if eid in self._vectors else variant_of(eid)

    def base_id(self, eid: str) -> str:
        """The embedder a variant id is a variant of (the id itself for a plain one)."""
        v = self.variant(eid)
        return eid if v is None else v.base

    def is_precomputed(self, eid: str) -> bool:
        """Whether `eid` names precomputed vectors added with add_vectors."""
        return eid in self._vectors

    def embedder(self, eid: str, fitted: bool = True, progress: Progress | None = None) -> Embedder:
        """The loaded embedder (once per workspace); corpus-trained ones are fit on the corpus (stage "train"
        reported to `progress` while one trains).

        Loading and fitting hold a lock of this embedder only: one thread can train word2vec while another trains
        fastText or encodes with MiniLM (`pipeline.preparation`); a second caller of the same embedder waits.
        For a variant id: its base's embedder (whose `encode` gives the base's vectors, not the variant's: ask
        `embeddings` and `encode_texts` for those)."""
        eid = self.base_id(eid)
        with self._lock:
            if eid in self._vectors:
                pre = self._precomputed(eid)
                self._fitted.add(eid)
                return pre
            lock = self._loading.setdefault(eid, threading.RLock())
        with lock:
            with self._lock:
                emb = self._embedders.get(eid)
            if emb is None:
                from n2o_core.embedders.registry import get_embedder

                emb = get_embedder(eid, cache_dir=self.cache.path("models"))
                with self._lock:
                    self._embedders[eid] = emb
                ref = weakref.ref(self)
                release.loaded(self._holder(eid), lambda: (ws := ref()) is not None and ws.release_model(eid))
            else:
                release.used(self._holder(eid))
            if fitted and eid not in self._fitted:
                if emb.info.corpus_trained:
                    emb.fit(list(self.corpus.fit_texts), progress=progress)
                with self._lock:
                    self._fitted.add(eid)
            return emb

    def _holder(self, eid: str) -> str:
        return f"model {eid} (workspace {id(self):x})"

    def release_model(self, eid: str) -> bool:
        """Drop the loaded model of `eid` (its embeddings, neighbors and z-norm statistics stay): the next call
        that needs the model (a free-text query, sentences outside the corpus) loads it again, refitting a
        corpus-trained one from its state in the disk cache. Precomputed vectors stay (a memory map). Returns
        whether a model was dropped (`runtime.release` calls it when the model has been unused for a while)."""
        eid = self.base_id(eid)
        if eid in self._vectors:
            return False
        lock = self._loading.setdefault(eid, threading.RLock())
        with lock, self._lock:  # not while it loads or fits
            self._fitted.discard(eid)
            return self._embedders.pop(eid, None) is not None

    def is_loaded(self, eid: str) -> bool:
        """Whether the embedder is loaded and fitted in this workspace (a query embeds without waiting)."""
        eid = self.base_id(eid)
        with self._lock:
            return eid in self._embedders and eid in self._fitted

    def info(self, eid: str) -> EmbedderInfo:
        """Registry row of an embedder (without loading it when it is a built-in); a variant's says what it is."""
        v = self.variant(eid)
        if v is not None:
            return self.variants.info(v)
        if eid not in self._vectors:
            from n2o_core.embedders.registry import list_embedders

            for inf in list_embedders():
                if inf.id == eid:
                    return inf
        return self.embedder(eid, fitted=False).info

    def embedder_key(self, eid: str) -> str:
        """Cache key of an embedder's output on this corpus (no model is loaded for built-ins)."""
        if eid in self._vectors:  # the identity of the file as loaded (loaded again first if it has changed)
            return hash_key("vectors", self._precomputed(eid).identity)
        v = self.variant(eid)
        if v is not None:  # the base's key and the variant's canonical parts (with the transforms' version)
            return hash_key(self.embedder_key(v.base), v.cache_part())
        from n2o_core.embedders.registry import BUILTIN_EMBEDDER_IDS

        parts: list[str] = [eid, CACHE_CODE_VERSION]
        if eid in BUILTIN_EMBEDDER_IDS:
            if self.info(eid).corpus_trained:
                parts.append(self.corpus.fit_fingerprint)
        else:
            parts.append(self.embedder(eid, fitted=False).fingerprint())
            for prefix in ("wv:", "st:", "hf:"):
                path = eid[len(prefix) :].split("@")[0] if eid.startswith(prefix) else ""
                if path and os.path.exists(path):
                    parts.append(file_identity(path))
            if self.info(eid).corpus_trained:
                parts.append(self.corpus.fit_fingerprint)
        return hash_key(*parts)

    def _rel(self, kind: str, eid: str, suffix: str) -> str:
        """A cache path of `eid`'s output on these sentences: the sentences' fingerprint, then the embedder's key
        (which holds the training text's fingerprint for a corpus-trained embedder, `embedder_key`)."""
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in eid)[:60]
        return f"{kind}/{self.corpus.sentences_fingerprint}/{safe}-{self.embedder_key(eid)}{suffix}"

    # ------------------------------------------------------------------ embeddings

    def is_cached(self, eid: str) -> bool:
        """Whether the embeddings are already in memory or on disk (nothing is computed); for a variant, whether
        the vectors it is derived from are."""
        if eid in self._arrays or eid in self._vectors:
            return True
        v = self.variant(eid)
        if v is not None:
            return self.variants.is_cached(v)
        for suffix in (f"-{self.storage_dtype}.npy", ".npz"):
            rel = self._rel("embeddings", eid, suffix)
            if self.cache.has(rel):
                return True
        return False

    def cached_dimension(self, eid: str) -> int | None:
        """Columns of the embeddings when they are already cached (tf-idf: its vocabulary), else None; never
        embeds."""
        return int(self.embeddings(eid).shape[1]) if self.is_cached(eid) else None

    def embeddings(self, eid: str, progress: Progress | None = None) -> np.ndarray | sp.csr_matrix:
        """(N, d) raw embeddings (float32/float16 memmap, or CSR for tf-idf), computed at most once; stage "embed"
        reported to `progress` (all at once when they are cached)."""
        if eid in self._vectors:  # the memory map itself (checked when it was loaded)
            arr = self._precomputed(eid).vectors
            report(progress, "embed", arr.shape[0], arr.shape[0])
            return arr
        with self._lock:
            if eid in self._arrays:
                return self._arrays[eid]
        v = self.variant(eid)
        arr = self._cached_or_encode(eid, progress) if v is None else self.variants.embeddings(v, progress)
        with self._lock:
            self._arrays[eid] = arr
        return arr

    def _cached_or_encode(self, eid: str, progress: Progress | None) -> np.ndarray | sp.csr_matrix:
        n = len(self.corpus)
        return self._stored_or_encoded(
            eid,
            "embeddings",
            "",
            n,
            lambda: self._encode(eid, progress),
            self.storage_dtype,
            f"{eid} on {self.corpus.name}",
            "the corpus",
            mmap=True,
            on_hit=lambda: report(progress, "embed", n, n),
        )

    def _stored_or_encoded(
        self,
        eid: str,
        kind: str,
        tag: str,
        n_rows: int,
        encode: Callable[[], Any],
        dtype: str,
        desc: str,
        what: str,
        mmap: bool,
        on_hit: Callable[[], None] | None = None,
    ) -> np.ndarray | sp.csr_matrix:
        """An embedding matrix from the cache (dense .npy or, for tf-idf, sparse .npz), else `encode()`d,
        checked (row count, finite values) and stored: one path for corpus and out-of-corpus sentences."""
        dense_rel = self._rel(kind, eid, f"{tag}-{dtype}.npy")
        sparse_rel = self._rel(kind, eid, f"{tag}.npz")
        with self.cache.lock(dense_rel):
            got = self.cache.load_dense(dense_rel, mmap=mmap)
            if got is None:
                got = self.cache.load_sparse(sparse_rel) if self.cache.path(sparse_rel).exists() else None
            if got is not None and got.shape[0] == n_rows:
                if on_hit:
                    on_hit()
                return got
            try:
                out = encode()
            except N2OError:
                raise
            except Exception as e:  # noqa: BLE001 - a model failing mid-way is reported, not crashed on
                raise EmbedderError(f"Embedder '{eid}' failed while encoding {what}: {e}") from e
            if out.shape[0] != n_rows:
                raise EmbedderError(f"Embedder '{eid}' returned {out.shape[0]} rows for {n_rows} sentences.")
            _check_finite(out, eid)
            if sp.issparse(out):
                return self.cache.save_sparse(sparse_rel, out.astype(np.float32), description=desc)
            saved = self.cache.save_dense(dense_rel, np.asarray(out).astype(dtype), description=desc)
            return saved if mmap else np.asarray(saved)

    def _encode(self, eid: str, progress: Progress | None) -> np.ndarray | sp.csr_matrix:
        """Encode the corpus: on the Dask workers for pretrained embedders when a scheduler is set."""
        if self.scheduler is not None and not self.info(eid).corpus_trained:
            from n2o_core.distributed import embed

            return embed(
                self.client(), eid, list(self.corpus.texts), cache_dir=self.cache.path("models"), progress=progress
            )
        return self.embedder(eid).encode(list(self.corpus.texts), progress=progress)

    def standardizer(self, eid: str) -> Standardizer:
        """Per-dimension mean/std over the corpus for z-normalization (dense and sparse tf-idf alike)."""
        X = self.embeddings(eid)
        with self._lock:
            if eid not in self._standardizers:
                self._standardizers[eid] = Standardizer.fit(X)
            return self._standardizers[eid]

    def zero_vector_count(self, eid: str) -> int:
        """Sentences whose embedding is all zeros (no in-vocabulary token)."""
        X = self.embeddings(eid)
        if sp.issparse(X):
            return int(np.sum(np.diff(sp.csr_matrix(X).indptr) == 0))
        return int(
            sum(int(np.sum(~np.any(np.asarray(X[i : i + 65536]) != 0, axis=1))) for i in range(0, X.shape[0], 65536))
        )

    # ------------------------------------------------------------------ neighbors

    def _knn_rel(self, eid: str, query_ids: np.ndarray, k: int, znorm: bool, approx: bool) -> str:
        qkey = hash_key(query_ids.tobytes().hex())
        # "-z2": z-normalized search also for sparse tf-idf (entries named "-z" held plain cosine for tf-idf)
        mode = ("approx" if approx else "exact") + ("-z2" if znorm else "")
        return self._rel("knn", eid, f"-{mode}-{qkey}-k{k}.npz")

    def has_neighbors(
        self, eid: str, query_ids: np.ndarray, k: int, *, znorm: bool = False, approx: bool = False
    ) -> bool:
        """Whether `neighbors` with these arguments is on disk (nothing is computed)."""
        return self.cache.has(self._knn_rel(eid, np.asarray(query_ids, np.int64).ravel(), k, znorm, approx))

    def neighbors(
        self,
        eid: str,
        query_ids: np.ndarray,
        k: int,
        *,
        znorm: bool = False,
        approx: bool = False,
        progress: Progress | None = None,
    ) -> Neighbors:
        """k nearest neighbors of corpus queries (self excluded), cached on disk per query set and k."""
        query_ids = np.asarray(query_ids, np.int64).ravel()
        validate_k(k, len(self.corpus))
        mode = ("approx" if approx else "exact") + ("-z2" if znorm else "")
        rel = self._knn_rel(eid, query_ids, k, znorm, approx)
        with self.cache.lock(rel):
            got = self.cache.load_bundle(rel)
            if got is not None and got["ids"].shape == (len(query_ids), k):
                rec = float(got["recall"][0]) if got["recall"].size else None
                check = [got.get(f) for f in ("check_ids", "check_exact", "check_approx")]
                if not all(c is not None and c.size for c in check):
                    check = [None, None, None]
                return Neighbors(got["ids"], got["sims"], rec, 0.0, *check)
            v = self.variant(eid)
            if v is not None and v.precision != "float32":  # its own exact search (Hamming, int8 codes)
                res = self.variants.knn(v, k, query_ids, znorm=znorm, progress=progress)
                return self._saved_neighbors(rel, res, k, query_ids, describe(v), mode)
            X = self.embeddings(eid)
            std = self.standardizer(eid) if znorm else None
            if approx:
                res = self._approx(eid, X, k, query_ids, std, znorm)
            elif self.scheduler is not None:
                from n2o_core.distributed import exact_knn as dask_exact_knn

                res = dask_exact_knn(self.client(), X, k, query_ids=query_ids, standardizer=std, progress=progress)
            else:
                res = exact_knn(
                    X, k, query_ids=query_ids, standardizer=std, progress=progress, row_inv=self._row_inv(eid, X, znorm)
                )
            return self._saved_neighbors(rel, res, k, query_ids, describe(v) if v is not None else eid, mode)

    def _saved_neighbors(
        self, rel: str, res: Neighbors, k: int, query_ids: np.ndarray, what: str, mode: str
    ) -> Neighbors:
        recall = np.array([res.recall], np.float64) if res.recall is not None else np.zeros(0)
        extra: dict[str, Any] = {}
        if res.check_ids is not None:
            extra = dict(check_ids=res.check_ids, check_exact=res.check_exact, check_approx=res.check_approx)
        self.cache.save_bundle(
            rel,
            description=f"{k}-NN of {len(query_ids)} queries, {what}, {mode}",
            ids=res.ids,
            sims=res.sims,
            recall=recall,
            **extra,
        )
        return res

    def search(self, eid: str, query_ids: np.ndarray, k: int, *, znorm: bool = False) -> Neighbors:
        """k nearest neighbors of corpus rows `query_ids` (self excluded), exact, not cached: a few queries."""
        query_ids = np.asarray(query_ids, np.int64).ravel()
        validate_k(k, len(self.corpus))
        v = self.variant(eid)
        if v is not None and v.precision != "float32":
            return self.variants.knn(v, k, query_ids, znorm=znorm)
        std = self.standardizer(eid) if znorm else None
        return exact_knn(self.embeddings(eid), k, query_ids=query_ids, standardizer=std)

    def _approx(
        self, eid: str, X: Any, k: int, query_ids: np.ndarray, std: Standardizer | None, znorm: bool
    ) -> Neighbors:
        """pynndescent search. The index lives in memory for this workspace (reused for new query sets); what
        is cached on disk is the result for the query pool (ids, sims, recall@k and the held-out check
        arrays), not the index: pynndescent indexes persist only by pickling, which the cache never does."""
        nn = approx_n_neighbors(k, len(self.corpus))
        key = (eid, znorm, nn)
        with self._lock:
            index = self._indexes.get(key)
        if index is None:
            Xn, _ = prepare_rows(X, std)
            index = build_index(Xn, k, n_neighbors=nn)
            with self._lock:
                self._indexes[key] = index
        res, _ = approx_knn(X, k, query_ids, standardizer=std, index=index)
        return res

    def encode_texts(self, eid: str, texts: list[str]) -> np.ndarray | sp.csr_matrix:
        """Raw float32 embeddings of sentences outside the corpus (e.g. HEROS pairs), cached per embedder and
        list. Corpus-trained embedders are fit on this workspace's corpus first."""
        texts = list(texts)
        v = self.variant(eid)
        return self._stored_or_encoded(
            eid,
            "texts",
            "-" + hash_key("texts", texts),
            len(texts),
            (lambda: self.embedder(eid).encode(texts)) if v is None else (lambda: self.variants.encode_texts(v, texts)),
            "float32",
            f"{eid}: {len(texts)} sentences outside {self.corpus.name}",
            f"{len(texts)} sentences",
            mmap=False,
        )

    def search_text(self, eid: str, text: str, k: int, *, znorm: bool = False) -> Neighbors:
        """k nearest corpus sentences of a free-text query (embedded on the fly)."""
        if not text.strip():
            raise N2OError("Type a sentence to search for.")
        v = self.variant(eid)
        if v is not None:
            return self.variants.search_text(v, text, min(k, len(self.corpus)), znorm=znorm)
        X = self.embeddings(eid)
        emb = self.embedder(eid)
        try:
            q = emb.encode([text])
        except N2OError:
            raise
        except Exception as e:  # noqa: BLE001
            raise EmbedderError(f"Embedder '{eid}' failed on the query: {e}") from e
        std = self.standardizer(eid) if znorm else None
        return exact_knn(X, min(k, len(self.corpus)), queries=q, standardizer=std)


def _reopened(corpus: Corpus, cache: Cache, storage_dtype: str, scheduler: Any, vectors: dict[str, str]) -> Workspace:
    """A workspace over the same corpus, cache and vectors (the unpickling side of `Workspace.__reduce__`)."""
    ws = Workspace(corpus, cache=cache, storage_dtype=storage_dtype, scheduler=scheduler)
    ws._vectors.update(vectors)  # checked when first used, as after add_vectors
    return ws


def _check_finite(arr: Any, eid: str) -> None:
    data = arr.data if sp.issparse(arr) else arr
    for i in range(0, data.shape[0], 65536):
        block = np.asarray(data[i : i + 65536])
        if not np.all(np.isfinite(block)):
            raise EmbedderError(f"Embedder '{eid}' produced NaN or infinite values; nothing was cached.")


def _identity(path: str) -> str | None:
    """`file_identity` of a vectors file, None when it cannot be read (then loading it reports why)."""
    try:
        return file_identity(path)
    except OSError:
        return None
