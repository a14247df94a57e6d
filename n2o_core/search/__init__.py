"""Cosine k-nearest-neighbor search: exact (blocked BLAS + compiled top-k) and approximate (pynndescent).

nb = exact_knn(X, k=10, query_ids=ids)                    # Neighbors(ids, sims), nearest first, self excluded
nb = exact_knn(X, 10, queries=Q, standardizer=Standardizer.fit(X))   # free-text queries, z-normalized
nb, index = approx_knn(X, 10, ids)                        # pynndescent, with recall@k on held-out queries
nb = hamming_knn(bits, 384, 10, query_ids=ids)             # exact Hamming k-NN on packed sign bits

Modules, lowest first (each imports only those above it in this list):
  result       `Neighbors` (ids, cosines, recall), `NO_NEIGHBOR`, `recall_of`
  rows         `Standardizer` (z-normalization), `ZNormRows` (sparse z-normalized rows, factored),
               `prepare_rows`, `normalize_rows`, `znorm_sparse`, `row_scores`
  _topk_kernel the compiled kernels (numba): row norms, top-k selection, float64 re-scoring
  scan         the tiled float32 scan on worker threads: `scan_candidates`, `candidate_count`,
               `merge_candidates`, `default_block`, `search_threads`, TILE_BYTES / QUERY_CHUNK / SMALL_SEARCH
  rescore      `rescore_candidates` (float64, ties by lower id), `finish_neighbors`
  exact        `exact_knn`, `check_queries`, `search_shard`, `finish_exact`, `row_inverse_norms`
  _hamming_kernel  the compiled Hamming kernels (numba): block distances + top-k, sign-vector scores
  hamming      `hamming_knn` (exact, on packed bits), `hamming_candidates`, `as_words`
  sign_rescore `sign_rescore_knn`: binary candidates re-ranked with the float query (`@binary@rescore=R`)
  approx       `approx_knn`, `build_index`, `approx_query`, `warm_approx`, `ExactFallback`, `approx_time_limit`,
               `approx_n_neighbors`, `held_out_queries`, `zcos_distance`

The same search (and embedding) sharded on Dask is `n2o_core.distributed`, beside the workspace: it embeds too,
so it stands above both this folder and embedders/.

The names below are resolved on first use, so importing one module (`import n2o_core.search.exact`) does not
import the others. Inside n2o_core, import from the modules themselves, not from this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "NO_NEIGHBOR",
    "ExactFallback",
    "Neighbors",
    "Standardizer",
    "ZNormRows",
    "approx_knn",
    "approx_n_neighbors",
    "build_index",
    "exact_knn",
    "finish_exact",
    "hamming_knn",
    "merge_candidates",
    "normalize_rows",
    "prepare_rows",
    "recall_of",
    "row_inverse_norms",
    "search_shard",
    "sign_rescore_knn",
    "warm_approx",
]

if TYPE_CHECKING:
    from n2o_core.search.approx import ExactFallback, approx_knn, approx_n_neighbors, build_index, warm_approx
    from n2o_core.search.exact import exact_knn, finish_exact, row_inverse_norms, search_shard
    from n2o_core.search.hamming import hamming_knn
    from n2o_core.search.result import NO_NEIGHBOR, Neighbors, recall_of
    from n2o_core.search.rows import Standardizer, ZNormRows, normalize_rows, prepare_rows
    from n2o_core.search.scan import merge_candidates
    from n2o_core.search.sign_rescore import sign_rescore_knn

_LAZY = {
    "NO_NEIGHBOR": "result",
    "Neighbors": "result",
    "recall_of": "result",
    "Standardizer": "rows",
    "ZNormRows": "rows",
    "normalize_rows": "rows",
    "prepare_rows": "rows",
    "merge_candidates": "scan",
    "exact_knn": "exact",
    "finish_exact": "exact",
    "row_inverse_norms": "exact",
    "search_shard": "exact",
    "hamming_knn": "hamming",
    "sign_rescore_knn": "sign_rescore",
    "ExactFallback": "approx",
    "approx_knn": "approx",
    "approx_n_neighbors": "approx",
    "build_index": "approx",
    "warm_approx": "approx",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use (keeps `import n2o_core.search.exact` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
