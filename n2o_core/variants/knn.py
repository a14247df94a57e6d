"""The search each variant's precision calls for, behind one function: `variant_knn(derived, k, query_ids)`.

- float32 (`@dims`, `@pca`, or none): exact cosine search (`n2o_core.search.exact`).
- int8: exact cosine search of the int8 codes, by the same search: its tiles are widened to float32 for BLAS,
  which is exact here (a dot product of two code rows is an integer far below 2^24), and the corpus stays int8 in
  memory (a quarter of float32). benchmarks/bench_hamming.py times it beside the float32 search (`int8_s`); a
  plain compiled int8 dot-product loop, tried while writing this, was slower than BLAS on the widened tiles.
- binary: exact Hamming search on the packed bits (`n2o_core.search.hamming`); `@rescore=R` re-ranks its R·k
  nearest with the float query (`n2o_core.search.sign_rescore`).
All return `Neighbors` with the exact search's conventions: nearest first, ties by lower index, the query's own
row excluded by index, rows with no direction last and without neighbors of their own.
"""

from __future__ import annotations

import numpy as np

from n2o_core.runtime.progress import Progress
from n2o_core.search.exact import exact_knn
from n2o_core.search.hamming import hamming_knn
from n2o_core.search.result import Neighbors
from n2o_core.search.sign_rescore import sign_rescore_knn
from n2o_core.variants.transforms import Derived, zero_rows

__all__ = ["variant_knn"]


def variant_knn(
    derived: Derived,
    k: int,
    query_ids: np.ndarray | None = None,
    queries: np.ndarray | None = None,
    *,
    threads: int | None = None,
    progress: Progress | None = None,
) -> Neighbors:
    """k nearest neighbors in a derived variant of corpus rows `query_ids` (self excluded), or of `queries`: float
    vectors of the variant's source from outside the corpus (free text), put through the same fitted transform.
    Stage "neighbors" (corpus rows scanned) is reported to `progress`."""
    if (query_ids is None) == (queries is None):
        raise ValueError("Give exactly one of query_ids or queries.")
    v = derived.variant
    ext = ext_floats = None
    if queries is not None:
        ext_floats = derived.transform.reduce(np.asarray(queries))
        ext = derived.transform.quantize(ext_floats)
    if derived.precision != "binary":
        return exact_knn(derived.vectors, k, query_ids, ext, threads=threads, progress=progress)
    if v.rescore is None:
        qzero = None if ext_floats is None else zero_rows(ext_floats)
        return hamming_knn(
            derived.vectors,
            derived.dim,
            k,
            query_ids,
            ext,
            zero=derived.zero,
            queries_zero=qzero,
            threads=threads,
            progress=progress,
        )
    if ext_floats is None:
        assert derived.floats is not None and query_ids is not None  # derive_vectors keeps them for @rescore
        floats = derived.floats[np.asarray(query_ids, np.int64)]
    else:
        floats = ext_floats
    return sign_rescore_knn(
        derived.vectors,
        derived.dim,
        k,
        v.rescore,
        floats,
        query_ids,
        ext,
        zero=derived.zero,
        threads=threads,
        progress=progress,
    )
