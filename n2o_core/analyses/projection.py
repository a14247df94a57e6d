"""2-D maps of an embedder's space: UMAP (umap-learn) on the core's exact cosine k-NN graph, PCA as the fast
fallback; cached per corpus x embedder x method x parameters x library version.

Choices (measured: benchmarks/README.md, 'Measurements behind the code's choices'):
- **UMAP never runs its own neighbor search.** Its k-NN graph is the workspace's all-pairs cosine search
  (`Workspace.neighbors(eid, arange(N), k_search)`, the same cached arrays the per-sentence agreement uses),
  passed as `precomputed_knn`. This reuses work already done, makes the graph exact, and is the guard against
  pynndescent's hang hazard (its RP-tree build can loop forever on more than ~1,024 near-identical rows, e.g.
  template sentences): below `pipeline.APPROX_ABOVE` no RP tree is built at all. (Above it the graph is the
  workspace's approximate search, which carries the core's pynndescent caveat.) No time limit is used: numba
  code cannot be interrupted inside the process, and a subprocess would pay the numba compilation (below) on
  every map.
- **tf-idf (CSR)**: the graph is exact cosine on the sparse vectors themselves: it preserves neighbors
  (`neighbor_preservation`) as well as umap-learn's own metric="cosine" search on the CSR matrix and far better
  than TruncatedSVD then UMAP, in a fraction of either one's time (and its search is the one the agreement
  already ran). UMAP's one other use of the data, placing disconnected graph components in its spectral
  initialisation, gets a 50-component TruncatedSVD of the L2-normalized rows.
- **numba**: importing umap-learn and compiling its layout code is slow in a fresh process; it is paid once per
  process, so an app should warm it off the request path (`warm_up_umap`).
- **Zero vectors** (no in-vocabulary token) have no direction: they are left out of the fit and get NaN
  coordinates (the figures do not draw them and say how many were left out).
- UMAP runs with a fixed `random_state` (deterministic, single-threaded layout), metric cosine.
- A failure inside UMAP (or umap-learn missing) falls back to PCA and says why in `Projection.note`; the
  fallback is not cached under the UMAP key, so the next call tries UMAP again.
- PCA: of the L2-normalized rows (cosine geometry), centered; sparse input through ARPACK (no dense copy).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from n2o_core.analyses.agreement import DEFAULT_K
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.pipeline import default_approx, every_sentence_neighbors
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.progress import Progress, report, scoped
from n2o_core.search.result import NO_NEIGHBOR
from n2o_core.search.rows import Standardizer, normalize_rows
from n2o_core.storage.cache import hash_key

METHODS = ("umap", "pca")
#: Fewest sentences with a vector that a map is drawn for (PCA needs 3 points for 2 components to mean
#: anything; UMAP needs more than n_neighbors).
MIN_POINTS = 3
#: Components of the TruncatedSVD that stands in for sparse tf-idf where UMAP needs coordinates.
SVD_COMPONENTS = 50


@dataclass
class Projection:
    """2-D coordinates of every corpus sentence (row i = sentence i; NaN for sentences without a vector)."""

    coords: np.ndarray
    method: str  # the method that produced the coordinates
    requested: str
    params: dict = field(default_factory=dict)
    seconds: float = 0.0
    cached: bool = False
    note: str = ""  # why the requested method was not used, if it was not

    @property
    def drawn(self) -> np.ndarray:
        """(N,) True where the sentence has coordinates."""
        return np.all(np.isfinite(self.coords), axis=1)


# --------------------------------------------------------------------------- pure computations


def normalized(X: Any, standardizer: Standardizer | None = None) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """L2-normalized rows (float32; CSR stays CSR) and the mask of rows that have a direction (non-zero)."""
    if sp.issparse(X):
        from sklearn.preprocessing import normalize

        Xc = sp.csr_matrix(X, dtype=np.float32)
        nonzero = np.asarray(Xc.multiply(Xc).sum(axis=1)).ravel() > 0
        return normalize(Xc, norm="l2", copy=True), nonzero
    Xn, zero = normalize_rows(np.asarray(X), standardizer)
    return Xn, ~zero


def _check_size(n_points: int, method: str, n_neighbors: int) -> None:
    if n_points < MIN_POINTS:
        raise N2OError(f"Too few sentences to draw a map: {n_points} have a vector, at least {MIN_POINTS} are needed.")
    if method == "umap" and n_points <= n_neighbors:
        raise N2OError(
            f"A UMAP map with n_neighbors={n_neighbors} needs more than {n_neighbors} sentences with a vector "
            f"(have {n_points}); lower n_neighbors or use PCA."
        )


def pca_coords(Xn: np.ndarray | sp.csr_matrix, seed: int = 0) -> np.ndarray:
    """(n, 2) principal-component coordinates of already normalized rows (CSR through ARPACK)."""
    from sklearn.decomposition import PCA

    if Xn.shape[0] < MIN_POINTS:
        raise N2OError(f"PCA needs at least {MIN_POINTS} rows (got {Xn.shape[0]}).")
    if sp.issparse(Xn):
        if min(Xn.shape) <= 2:
            raise N2OError("PCA of sparse vectors needs more than 2 rows and columns.")
        pca = PCA(2, svd_solver="arpack", random_state=seed)
    else:
        pca = PCA(min(2, Xn.shape[1]), svd_solver="full")
    out = pca.fit_transform(Xn).astype(np.float32)
    if out.shape[1] < 2:  # one-dimensional vectors: a line
        out = np.hstack([out, np.zeros((out.shape[0], 2 - out.shape[1]), np.float32)])
    return out


def umap_graph(ids: np.ndarray, sims: np.ndarray, keep: np.ndarray, n_neighbors: int) -> tuple[np.ndarray, np.ndarray]:
    """UMAP's precomputed_knn for the kept rows: (ids, cosine distances), (m, n_neighbors) each, column 0 the
    point itself (UMAP's convention), ids renumbered to positions among the kept rows; a missing neighbor or
    a neighbor outside the kept rows is -1 with infinite distance (UMAP skips it)."""
    if ids.shape[1] < n_neighbors - 1:
        raise N2OError(f"UMAP with n_neighbors={n_neighbors} needs {n_neighbors - 1} neighbors per sentence.")
    keep = np.asarray(keep, bool)
    kept = np.flatnonzero(keep)
    pos = np.full(len(keep) + 1, -1, np.int64)  # pos[-1] (NO_NEIGHBOR) stays -1
    pos[kept] = np.arange(len(kept))
    nb = np.asarray(ids)[kept, : n_neighbors - 1]
    sub = np.where(nb == NO_NEIGHBOR, -1, pos[np.where(nb == NO_NEIGHBOR, len(keep), nb)])
    dist = 1.0 - np.asarray(sims, np.float32)[kept, : n_neighbors - 1]
    dist = np.where(sub < 0, np.inf, np.clip(dist, 0.0, 2.0)).astype(np.float32)
    self_col = np.arange(len(kept), dtype=np.int64)[:, None]
    knn_ids = np.hstack([self_col, sub]).astype(np.int64)
    knn_dist = np.hstack([np.zeros((len(kept), 1), np.float32), dist])
    return np.ascontiguousarray(knn_ids), np.ascontiguousarray(knn_dist)


def umap_coords(
    data: np.ndarray,
    knn_ids: np.ndarray,
    knn_dist: np.ndarray,
    *,
    n_neighbors: int = 15,
    min_dist: float = 0.1,
    seed: int = 0,
) -> np.ndarray:
    """(n, 2) UMAP layout of a precomputed k-NN graph (no neighbor search of its own). `data` (dense, one row
    per point) is used only to place disconnected components."""
    with heavy_imports():
        import umap

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*precomputed_knn.*")
        warnings.filterwarnings("ignore", message=".*n_jobs value.*")
        warnings.filterwarnings("ignore", message=".*disconnected.*")
        warnings.filterwarnings("ignore", category=UserWarning, module="umap")
        reducer = umap.UMAP(
            n_neighbors=n_neighbors,
            n_components=2,
            min_dist=min_dist,
            metric="cosine",
            random_state=seed,
            precomputed_knn=(knn_ids.copy(), knn_dist.copy()),
            low_memory=True,
            verbose=False,
        )
        return np.asarray(reducer.fit_transform(data), np.float32)


def neighbor_preservation(coords: np.ndarray, ids: np.ndarray, k: int = 10) -> float:
    """How faithful a map is: the mean share of each sentence's k nearest neighbors in the embedding (`ids`,
    row i = sentence i, self excluded) that are also among its k nearest points on the 2-D map (Euclidean).
    Sentences without coordinates or neighbors are skipped. 1.0 = every neighborhood kept."""
    from sklearn.neighbors import NearestNeighbors

    coords = np.asarray(coords, np.float64)
    ids = np.asarray(ids)[:, :k]
    if ids.shape[1] < k:
        raise N2OError(f"k={k} is larger than the {ids.shape[1]} neighbors given.")
    drawn = np.flatnonzero(np.all(np.isfinite(coords), axis=1))
    if len(drawn) <= k:
        raise N2OError(f"Neighbor preservation at k={k} needs more than {k} points on the map.")
    nn = NearestNeighbors(n_neighbors=k + 1).fit(coords[drawn])
    _, pos = nn.kneighbors(coords[drawn])
    hits = total = 0
    for row, near in zip(drawn, drawn[pos]):
        truth = {int(j) for j in ids[row] if j >= 0 and np.isfinite(coords[j]).all()}
        if not truth:
            continue
        mapped = [int(j) for j in near if j != row][:k]
        hits += len(truth.intersection(mapped))
        total += len(truth)
    return hits / total if total else float("nan")


def warm_up_umap() -> float:
    """Import umap-learn and compile its numba code on a tiny graph (call from a background thread at app start);
    seconds taken. Raises ImportError when umap-learn is missing."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    X = normalize_rows(rng.standard_normal((64, 4)).astype(np.float32))[0]
    S = X @ X.T
    np.fill_diagonal(S, -np.inf)
    ids = np.argsort(-S, axis=1)[:, :7]
    knn_ids, knn_dist = umap_graph(ids, np.take_along_axis(S, ids, 1), np.ones(64, bool), 8)
    umap_coords(X, knn_ids, knn_dist, n_neighbors=8)
    return time.perf_counter() - t0


def library_version(method: str) -> str:
    """Version of the library behind a method ("missing" when umap-learn is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("umap-learn" if method == "umap" else "scikit-learn")
    except PackageNotFoundError:
        return "missing"


def _svd_stand_in(Xn: sp.csr_matrix, seed: int) -> np.ndarray:
    from sklearn.decomposition import TruncatedSVD

    n_comp = max(2, min(SVD_COMPONENTS, min(Xn.shape) - 1))
    Z = TruncatedSVD(n_comp, random_state=seed).fit_transform(Xn).astype(np.float32)
    return normalize_rows(Z)[0]


# --------------------------------------------------------------------------- cached, per workspace


def _rel(ws: Workspace, eid: str, method: str, key: str, suffix: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in eid)[:60]
    return f"projections/{ws.corpus.sentences_fingerprint}/{safe}-{ws.embedder_key(eid)}-{method}-{key}{suffix}"


def _check_args(method: str, n_neighbors: int, min_dist: float, n: int) -> None:
    """N2OError for a map that cannot be asked for: unknown method, bad UMAP parameters, too few sentences."""
    if method not in METHODS:
        raise N2OError(f"Unknown map method {method!r}; choose one of {', '.join(METHODS)}.")
    if n_neighbors < 2:
        raise N2OError(f"n_neighbors must be at least 2 (got {n_neighbors}).")
    if not 0.0 <= min_dist <= 1.0:
        raise N2OError(f"min_dist must be in [0, 1] (got {min_dist}).")
    if n < MIN_POINTS:
        raise N2OError(f"Too few sentences to draw a map: the corpus has {n}, at least {MIN_POINTS} are needed.")


@dataclass(frozen=True)
class _Place:
    """Where a map is kept in the disk cache, and what it was made with."""

    method: str
    params: dict
    version: str
    rel: str
    info_rel: str
    approx: bool  # the graph's search (UMAP), resolved from its default
    k_search: int

    def read(self, ws: Workspace) -> Projection | None:
        """The map the cache holds here (call under `ws.cache.lock(self.rel)`), or None."""
        coords = ws.cache.load_dense(self.rel, mmap=False)
        info = ws.cache.load_json(self.info_rel)
        if coords is None or info is None or coords.shape != (len(ws.corpus), 2):
            return None
        m = self.method
        return Projection(np.asarray(coords), m, m, self.params, float(info.get("seconds", 0.0)), True)


def _place(
    ws: Workspace,
    eid: str,
    method: str,
    n_neighbors: int,
    min_dist: float,
    seed: int,
    znorm: bool,
    approx: bool | None,
    k_search: int | None,
) -> _Place:
    """The map's place in the cache; N2OError for a map that cannot be asked for (before any embedding work)."""
    n = len(ws.corpus)
    _check_args(method, n_neighbors, min_dist, n)
    approx = default_approx(n) if approx is None else approx
    k_search = min(DEFAULT_K, n - 1) if k_search is None else k_search
    params: dict = {"seed": seed, "znorm": znorm}
    if method == "umap":
        _check_size(n, method, n_neighbors)
        if n_neighbors - 1 > k_search:
            raise N2OError(f"n_neighbors={n_neighbors} needs k_search >= {n_neighbors - 1} (got {k_search}).")
        params.update(n_neighbors=n_neighbors, min_dist=min_dist, graph="approx" if approx else "exact")
    version = library_version(method)
    key = hash_key(method, params, version)
    rel, info_rel = _rel(ws, eid, method, key, ".npy"), _rel(ws, eid, method, key, "-info.json")
    return _Place(method, params, version, rel, info_rel, approx, k_search)


def cached_projection(ws: Workspace, eid: str, method: str = "umap", **options: Any) -> Projection | None:
    """The map `projection(ws, eid, method, **options)` returns when the disk cache holds it (read, nothing
    computed), else None (`options`: `projection`'s keywords but `progress`, its defaults otherwise). Raises what
    `projection` raises for a map that cannot be asked for."""
    given = {**(projection.__kwdefaults__ or {}), **options}
    given.pop("progress", None)
    place = _place(ws, eid, method, **given)
    if place.version == "missing":
        return None
    with ws.cache.lock(place.rel):
        return place.read(ws)


def projection(
    ws: Workspace,
    eid: str,
    method: str = "umap",
    *,
    n_neighbors: int = 15,
    min_dist: float = 0.1,
    seed: int = 0,
    znorm: bool = False,
    approx: bool | None = None,
    k_search: int | None = None,
    progress: Progress | None = None,
) -> Projection:
    """The 2-D map of one embedder's corpus vectors, from the cache or computed (and cached).

    UMAP's graph is the all-pairs search at `k_search` (default min(DEFAULT_K, N - 1), the size the
    per-sentence agreement searches, so both share one cached search), cut to n_neighbors - 1. Reports to
    `progress`, with the embedder id as the item, the stages "embed", "neighbors" (UMAP's graph) and the method
    ("pca" or "umap": 0 of 1 when it starts, 1 of 1 when the map is there)."""
    n = len(ws.corpus)
    place = _place(ws, eid, method, n_neighbors, min_dist, seed, znorm, approx, k_search)
    params, version, rel, info_rel = place.params, place.version, place.rel, place.info_rel
    approx, k_search = place.approx, place.k_search
    if method == "umap" and version == "missing":
        got = projection(ws, eid, "pca", seed=seed, znorm=znorm, progress=progress)
        got.requested, got.note = "umap", "umap-learn is not installed (pip install umap-learn): PCA shown."
        return got
    with ws.cache.lock(rel):
        cached = place.read(ws)
        if cached is not None:
            report(progress, method, 1, 1, eid)
            return cached
        X = ws.embeddings(eid, progress=scoped(progress, stage="embed", item=eid))
        std = ws.standardizer(eid) if znorm else None
        Xn, keep = normalized(X, std)
        m = int(keep.sum())
        _check_size(m, method, n_neighbors)
        t0 = time.perf_counter()
        out = np.full((n, 2), np.nan, np.float32)
        if method == "umap":
            nb = every_sentence_neighbors(ws, eid, k_search, znorm=znorm, approx=approx, progress=progress)
            t0 = time.perf_counter()
            report(progress, "umap", 0, 1, eid)
            knn_ids, knn_dist = umap_graph(nb.ids, nb.sims, keep, n_neighbors)
            data = _svd_stand_in(Xn[keep], seed) if sp.issparse(Xn) else np.asarray(Xn[keep])
            try:
                out[keep] = umap_coords(data, knn_ids, knn_dist, n_neighbors=n_neighbors, min_dist=min_dist, seed=seed)
            except Exception as e:  # noqa: BLE001 - any failure inside UMAP/numba falls back to PCA, said so
                got = projection(ws, eid, "pca", seed=seed, znorm=znorm, progress=progress)
                got.requested, got.note = "umap", f"UMAP failed ({type(e).__name__}: {e}); PCA shown instead."
                return got
        else:
            report(progress, "pca", 0, 1, eid)
            out[keep] = pca_coords(Xn[keep], seed)
        seconds = time.perf_counter() - t0
        ws.cache.save_dense(rel, out, description=f"{method} map of {eid} on {ws.corpus.name}")
        ws.cache.save_json(info_rel, {"method": method, "params": params, "version": version, "seconds": seconds})
        report(progress, method, 1, 1, eid)
        return Projection(out, method, method, params, seconds, False)
