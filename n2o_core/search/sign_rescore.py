"""Binary search with rescoring (`@binary@rescore=R`): the r·k nearest rows by Hamming distance, re-ranked by the
float query's score with each candidate's sign bits, cut to k -- sentence-transformers' route
(`semantic_search_faiss` / `semantic_search_usearch` with `rescore=True, rescore_multiplier=R`): the float32
query against the binary documents.

sentence-transformers scores a candidate by q · b, with b its bits unpacked as 0/1. Since b = (s + 1) / 2 for the
±1 sign vector s, q · b = (q · s + sum(q)) / 2: for one query the same order as q · s / (|q| sqrt(dim)), the
cosine of the float query with the candidate's sign vector, which is the similarity reported here (in [-1, 1],
as every search's). Ties (scores equal to TIE_DECIMALS) go to the lower corpus index; the query's own row is
excluded by its index; rows flagged in `zero` rank last and zero queries have no neighbors, as in exact search.
"""

from __future__ import annotations

import time

import numpy as np

from n2o_core.errors import N2OError
from n2o_core.runtime.progress import Progress, counter
from n2o_core.search.exact import check_queries
from n2o_core.search.hamming import hamming_candidates, query_zero
from n2o_core.search.rescore import TIE_DECIMALS, finish_neighbors
from n2o_core.search.result import Neighbors
from n2o_core.search.rows import prepare_rows
from n2o_core.search.scan import NO_ID, ZERO_SCORE

#: Queries re-scored per call of the compiled scorer (bounds nothing large; keeps progress moving).
_QUERY_CHUNK = 4096


def rescore_count(k: int, multiplier: int, n: int, corpus_queries: bool) -> int:
    """How many Hamming candidates are re-scored per query: multiplier · k, capped by the corpus."""
    return min(multiplier * k, n - 1 if corpus_queries else n)


def sign_rescore_knn(
    bits: np.ndarray,
    dim: int,
    k: int,
    multiplier: int,
    query_floats: np.ndarray,
    query_ids: np.ndarray | None = None,
    queries: np.ndarray | None = None,
    *,
    zero: np.ndarray | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
) -> Neighbors:
    """k nearest neighbors of corpus rows `query_ids` (self excluded) or of external packed `queries`: the
    `multiplier`·k nearest by Hamming distance among `bits` (n, ceil(dim / 8)) uint8, re-ranked by the cosine of
    the float query vectors `query_floats` (q, dim; the vectors the bits were made from) with each candidate's
    ±1 sign vector. `zero` flags corpus rows with no direction; stage "neighbors" reported to `progress` counts the
    Hamming scan's rows."""
    from n2o_core.search._hamming_kernel import EXCLUDED, sign_scores

    t0 = time.perf_counter()
    if multiplier < 1:
        raise N2OError(f"The rescoring multiplier must be a whole number ≥ 1 (got {multiplier}).")
    n = bits.shape[0]
    query_ids, Qbits = check_queries(bits, k, query_ids, queries)
    Qf = np.asarray(query_floats, np.float64)
    q = Qf.shape[0]
    if Qf.shape != (np.asarray(Qbits).shape[0], dim):
        raise N2OError(f"The float queries have shape {Qf.shape}; expected ({np.asarray(Qbits).shape[0]}, {dim}).")
    if q == 0:
        return Neighbors(np.empty((0, k), np.int64), np.empty((0, k), np.float32), None, 0.0)
    rr = rescore_count(k, multiplier, n, query_ids is not None)

    tick = counter(progress, "neighbors", n)
    D, cand = hamming_candidates(
        bits, dim, rr, np.asarray(Qbits), query_ids, zero=zero, threads=threads, count_rows=tick
    )
    valid = D < EXCLUDED
    ids = np.where(valid, cand, -1)
    Qn = np.ascontiguousarray(prepare_rows(Qf, None, np.float64)[0], np.float64)
    score = np.empty(ids.shape)
    for a in range(0, q, _QUERY_CHUNK):
        score[a : a + _QUERY_CHUNK] = sign_scores(bits, ids[a : a + _QUERY_CHUNK], Qn[a : a + _QUERY_CHUNK])
    if zero is not None:
        score[valid & np.asarray(zero, bool)[np.where(valid, cand, 0)]] = ZERO_SCORE
    score = np.round(score, TIE_DECIMALS)
    out_ids = np.where(valid, cand, NO_ID)
    order = np.lexsort((out_ids, -score), axis=-1)[:, :k]
    top_s = np.take_along_axis(score, order, 1).astype(np.float32)
    top_i = np.take_along_axis(out_ids, order, 1)
    qzero = query_zero(zero, query_ids, q) | ~Qf.any(axis=1)
    return finish_neighbors(top_s, top_i, qzero, time.perf_counter() - t0)
