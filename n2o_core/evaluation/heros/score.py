"""Score minimal pairs: per embedder and subset, mean cosine, Heros-normalized, with a bootstrap CI.

Normalization (Heros, Appendix D): the unique originals are split into a first and a second half;
b = mean cosine over ALL cross pairs (first half x second half); s' = (s - b) / (1 - b).
The cross-pair mean is computed exactly as (sum of unit rows of A) . (sum of unit rows of B) / (|A| |B|).

z-normalization (Eger et al., *Pitfalls*): with a `Standardizer` fitted on the corpus by the caller, every cosine
here (pairs and baseline) is taken after standardizing each dimension, by `neighbors.prepare_rows` -- the same
rule as the neighbor search, sparse tf-idf rows included (factored `ZNormRows`, never densified); an all-zero
row stays zero, so its cosines are 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from n2o_core.errors import EmbedderError, N2OError
from n2o_core.evaluation.heros.subsets import ALL_SUBSETS
from n2o_core.runtime.progress import Progress, report
from n2o_core.search.rows import Standardizer, ZNormRows, prepare_rows

EncodeFn = Callable[[list[str]], "np.ndarray | sp.spmatrix"]
RESULT_COLUMNS = [
    "embedder",
    "subset",
    "n",
    "raw",
    "normalized",
    "ci_low",
    "ci_high",
    "same_vector",
    "same_variant",
    "zero_vectors",
]
#: The subsets that replace one word: their variants of one original differ only in the word put in.
WORD_SUBSETS = ("synonym", "antonym", "typo", "random")
#: A pair whose two vectors have cosine this close to 1 got one vector for both sentences: the embedder does not
#: see the change (the changed word is unknown to it, or a stop word it drops).
SAME_VECTOR_COS = 1.0 - 1e-6


def unit_rows(
    x: np.ndarray | sp.spmatrix, standardizer: Standardizer | None = None
) -> np.ndarray | sp.csr_matrix | ZNormRows:
    """Rows scaled to unit L2 norm (float64), z-normalized first when a standardizer is given; all-zero rows
    stay zero, so their cosines are 0. z-normalized sparse rows come back factored (`ZNormRows`)."""
    if sp.issparse(x):
        if standardizer is not None:
            return prepare_rows(x, standardizer, np.float64)[0]
        m = sp.csr_matrix(x, dtype=np.float64)
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
        inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        return sp.csr_matrix(sp.diags(inv) @ m)
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 2:
        raise EmbedderError(f"An embedder returned an array of shape {a.shape}; expected (n, d).")
    if not np.all(np.isfinite(a)):
        raise EmbedderError("An embedder returned NaN or infinite values.")
    if standardizer is not None:
        if standardizer.mean.shape[0] != a.shape[1]:
            raise N2OError(f"The standardizer has {standardizer.mean.shape[0]} dimensions, the vectors {a.shape[1]}.")
        return prepare_rows(a, standardizer, np.float64)[0]
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    return np.divide(a, norms, out=np.zeros_like(a), where=norms > 0)


def _rowwise_units(ua: Any, ub: Any) -> np.ndarray:
    """Row i of ua . row i of ub, for unit rows from `unit_rows`."""
    if isinstance(ua, ZNormRows):
        return ua.rowwise(ub)
    if sp.issparse(ua) or sp.issparse(ub):
        return np.asarray(sp.csr_matrix(ua).multiply(sp.csr_matrix(ub)).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", ua, ub)


def _baseline_units(u: Any) -> float:
    """Mean cross-pair cosine of the first and second half of unit rows `u`."""
    n = u.shape[0]
    if n < 2:
        raise N2OError("The baseline needs at least 2 distinct original sentences.")
    h = n // 2
    sa = np.asarray(u[:h].sum(axis=0)).ravel()
    sb = np.asarray(u[h:].sum(axis=0)).ravel()
    return float(sa @ sb / (h * (n - h)))


def rowwise_cosine(
    a: np.ndarray | sp.spmatrix, b: np.ndarray | sp.spmatrix, standardizer: Standardizer | None = None
) -> np.ndarray:
    """Cosine of row i of `a` with row i of `b` (0 where either row is all-zero), z-normalized if a
    standardizer is given."""
    return _rowwise_units(unit_rows(a, standardizer), unit_rows(b, standardizer))


def baseline_similarity(originals: np.ndarray | sp.spmatrix, standardizer: Standardizer | None = None) -> float:
    """Mean cosine over all (first half) x (second half) pairs of the originals' embeddings (z-normalized if a
    standardizer is given)."""
    return _baseline_units(unit_rows(originals, standardizer))


def normalize(sims: np.ndarray, b: float) -> np.ndarray:
    """Heros normalization (s - b) / (1 - b); NaN when b == 1 (every sentence looks identical)."""
    if b >= 1.0:
        return np.full_like(np.asarray(sims, dtype=np.float64), np.nan)
    return (np.asarray(sims, dtype=np.float64) - b) / (1.0 - b)


def bootstrap_ci(values: np.ndarray, n_boot: int = 1000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of `values` (resampling items with replacement)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0 or not np.all(np.isfinite(v)):
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    block = max(1, 2_000_000 // v.size)
    for start in range(0, n_boot, block):
        stop = min(n_boot, start + block)
        idx = rng.integers(0, v.size, size=(stop - start, v.size))
        means[start:stop] = v[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def _subset_order(subsets: Sequence[str]) -> list[str]:
    known = [s for s in ALL_SUBSETS if s in subsets]
    return known + sorted(s for s in set(subsets) if s not in ALL_SUBSETS)


def _check_pairs(pairs: pd.DataFrame) -> None:
    missing = {"subset", "original", "variant"} - set(pairs.columns)
    if missing:
        raise N2OError(f"The pairs table lacks the column(s) {', '.join(sorted(missing))}.")
    if pairs.empty:
        raise N2OError("There are no pairs to score.")


def _pair_index(pairs: pd.DataFrame) -> tuple[list[str], int, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct sentences (originals first, in order of appearance), the number of originals, and each pair's
    original / variant position in that list and its subset."""
    _check_pairs(pairs)
    originals = list(dict.fromkeys(pairs["original"].astype(str)))
    texts = list(dict.fromkeys(originals + pairs["variant"].astype(str).tolist()))
    pos = {t: i for i, t in enumerate(texts)}
    oi = pairs["original"].astype(str).map(pos).to_numpy()
    vi = pairs["variant"].astype(str).map(pos).to_numpy()
    return texts, len(originals), oi, vi, pairs["subset"].astype(str).to_numpy()


def score_one(
    pairs: pd.DataFrame,
    name: str,
    encode: EncodeFn,
    *,
    seed: int = 0,
    n_boot: int = 1000,
    standardizer: Standardizer | None = None,
) -> tuple[float, pd.DataFrame, np.ndarray]:
    """One embedder on every subset: (baseline b, RESULT_COLUMNS rows, raw cosine of each pair in row order).

    Each distinct sentence is encoded once. The baseline uses the distinct originals in order of appearance.
    With a `standardizer` (fitted on the corpus) vectors are z-normalized before every cosine. Per subset,
    `same_vector` counts the pairs whose two sentences got the same vector (cosine 1: the embedder does not see the
    change), `same_variant` the other pairs of a word subset whose variant got the same vector as another word
    subset's variant of the same original (the words put in are unknown to it: "synonym", "antonym", "typo" and
    "random" all read as the word taken out), and `zero_vectors` those with a sentence that has no vector at all (no
    word the embedder knows; its cosines are 0)."""
    texts, n_orig, oi, vi, subsets = _pair_index(pairs)
    x = encode(texts)
    if x.shape[0] != len(texts):
        raise EmbedderError(f"Embedder '{name}' returned {x.shape[0]} vectors for {len(texts)} sentences.")
    zero = _zero_rows(x)
    u = unit_rows(x, standardizer)
    if sp.issparse(u):
        u = sp.csr_matrix(u)
    b = _baseline_units(u[:n_orig])
    sims = _rowwise_units(u[oi], u[vi])
    has_zero = zero[oi] | zero[vi]
    same = (sims >= SAME_VECTOR_COS) & ~has_zero
    twin = _same_as_another_variant(u, oi, vi, subsets) & ~same & ~has_zero
    rows: list[dict[str, object]] = []
    for j, sub in enumerate(_subset_order(list(set(subsets)))):
        mask = subsets == sub
        s = sims[mask]
        norm = normalize(s, b)
        lo, hi = bootstrap_ci(norm, n_boot=n_boot, seed=seed + j)
        rows.append(
            {
                "embedder": name,
                "subset": sub,
                "n": int(s.size),
                "raw": float(s.mean()),
                "normalized": float(norm.mean()),
                "ci_low": lo,
                "ci_high": hi,
                "same_vector": int(same[mask].sum()),
                "same_variant": int(twin[mask].sum()),
                "zero_vectors": int(has_zero[mask].sum()),
            }
        )
    return b, pd.DataFrame(rows, columns=RESULT_COLUMNS), np.asarray(sims, np.float64)


def _same_as_another_variant(u: Any, oi: np.ndarray, vi: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Per pair: whether its variant (in a word subset) got the same vector as another word subset's variant of the
    same original."""
    out = np.zeros(len(oi), dtype=bool)
    word = np.flatnonzero(np.isin(subsets, WORD_SUBSETS))
    by_original: dict[int, list[int]] = {}
    for i in word:
        by_original.setdefault(int(oi[i]), []).append(int(i))
    pairs = [(a, b) for idx in by_original.values() for k, a in enumerate(idx) for b in idx[k + 1 :]]
    if not pairs:
        return out
    first, second = (np.array(c) for c in zip(*pairs))
    hit = _rowwise_units(u[vi[first]], u[vi[second]]) >= SAME_VECTOR_COS
    out[first[hit]] = True
    out[second[hit]] = True
    return out


def _zero_rows(x: np.ndarray | sp.spmatrix) -> np.ndarray:
    """Which rows are all zero (a sentence with no word the embedder knows)."""
    if sp.issparse(x):
        m = sp.csr_matrix(x)
        return np.asarray(abs(m).sum(axis=1)).ravel() == 0
    return ~np.any(np.asarray(x) != 0, axis=1)


def score_pairs(
    pairs: pd.DataFrame,
    embedders: Mapping[str, EncodeFn],
    seed: int = 0,
    n_boot: int = 1000,
    progress: Progress | None = None,
    standardizers: Mapping[str, Standardizer | None] | None = None,
) -> tuple[dict[str, float], pd.DataFrame]:
    """Score every embedder on every subset of `pairs` (columns subset, original, variant) with `score_one`.

    Returns (baseline per embedder, results with RESULT_COLUMNS). `standardizers` (embedder name -> Standardizer
    fitted on the corpus, or None) z-normalizes that embedder's vectors before every cosine; embedders not in it
    are scored on raw cosine. Stage "embedders" (embedders scored, of all) reported to `progress`.
    """
    _check_pairs(pairs)
    baseline: dict[str, float] = {}
    frames: list[pd.DataFrame] = []
    for k, (name, encode) in enumerate(embedders.items()):
        b, res, _ = score_one(
            pairs, name, encode, seed=seed, n_boot=n_boot, standardizer=(standardizers or {}).get(name)
        )
        baseline[name] = b
        frames.append(res)
        report(progress, "embedders", k + 1, len(embedders), name)
    return baseline, pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RESULT_COLUMNS)
