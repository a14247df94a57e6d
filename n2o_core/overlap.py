"""N2O and the analyses built on neighbor ids: samples, chance level, robustness, popular/outlier neighbors,
token overlap. Pure functions over arrays of neighbor ids (nearest first, -1 = no neighbor).

N2O(A, B) = sum_q |NN_A(q) ∩ NN_B(q)| / (k n)  (Lin & Smith 2019, Fig. 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from .errors import N2OError
from .text import token_set


def _stats():
    """scipy.stats, imported on first use (it takes ~1.4 s, a third of the app's first-run imports)."""
    from scipy import stats  # noqa: PLC0415

    return stats


# --------------------------------------------------------------------------- queries and chance


def draw_query_samples(n_corpus: int, n_queries: int, n_samples: int, seed: int = 0) -> list[np.ndarray]:
    """`n_samples` independent samples of `n_queries` corpus ids, each without replacement (sorted)."""
    if n_corpus < 2:
        raise N2OError(f"A corpus of {n_corpus} sentence(s) is too small: N2O needs at least 2.")
    if n_queries <= 0 or n_samples <= 0:
        raise N2OError("The number of queries and of samples must be positive.")
    n_queries = min(n_queries, n_corpus)
    rng = np.random.default_rng(seed)
    return [np.sort(rng.choice(n_corpus, size=n_queries, replace=False)) for _ in range(n_samples)]


def query_pool(samples: Sequence[np.ndarray]) -> np.ndarray:
    """Sorted union of all sampled query ids (neighbors are searched once for the pool)."""
    return np.unique(np.concatenate([np.asarray(s, np.int64) for s in samples]))


def chance_level(k: int, n_corpus: int) -> float:
    """Expected N2O of two embedders picking k neighbors uniformly at random among the N - 1 candidates."""
    if n_corpus < 2:
        raise N2OError("Chance level needs a corpus of at least 2 sentences.")
    return k / (n_corpus - 1)


# --------------------------------------------------------------------------- overlap


def overlap_counts(ids_a: np.ndarray, ids_b: np.ndarray, k: int) -> np.ndarray:
    """|NN_A(q) ∩ NN_B(q)| per query for the first k neighbors (-1 entries never match)."""
    a = np.asarray(ids_a)[:, :k]
    b = np.asarray(ids_b)[:, :k]
    if a.shape != b.shape:
        raise N2OError(f"Neighbor arrays differ in shape: {a.shape} vs {b.shape}.")
    if a.shape[1] < k:
        raise N2OError(f"k={k} is larger than the {a.shape[1]} neighbors available.")
    both = np.sort(np.concatenate([a, b], axis=1), axis=1)
    same = (both[:, 1:] == both[:, :-1]) & (both[:, 1:] >= 0)
    return same.sum(axis=1)


def n2o(ids_a: np.ndarray, ids_b: np.ndarray, k: int) -> float:
    """Nearest neighbor overlap of two embedders over the same queries, in [0, 1]."""
    counts = overlap_counts(ids_a, ids_b, k)
    return float(counts.sum() / (k * len(counts))) if len(counts) else float("nan")


def n2o_matrix(neighbors: Mapping[str, np.ndarray], k: int, rows: np.ndarray | None = None) -> np.ndarray:
    """Symmetric (E, E) N2O matrix over the given query rows (all rows by default).

    The diagonal is each embedder's overlap with itself: 1, less the share of queries without neighbors.
    """
    names = list(neighbors)
    arrs = [np.asarray(neighbors[e]) if rows is None else np.asarray(neighbors[e])[rows] for e in names]
    E = len(names)
    M = np.zeros((E, E))
    for i in range(E):
        M[i, i] = n2o(arrs[i], arrs[i], k)
    for i, j in combinations(range(E), 2):
        M[i, j] = M[j, i] = n2o(arrs[i], arrs[j], k)
    return M


@dataclass
class SampledN2O:
    """N2O averaged over query samples (the paper: five samples of n = 100 queries)."""

    embedders: list[str]
    k: int
    samples: list[np.ndarray]  # query ids per sample
    per_sample: list[np.ndarray]  # (E, E) per sample
    mean: np.ndarray = field(init=False)
    std: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        stack = np.stack(self.per_sample)
        self.mean = stack.mean(axis=0)
        self.std = stack.std(axis=0, ddof=1) if len(self.per_sample) > 1 else np.zeros_like(self.mean)

    def frame(self) -> pd.DataFrame:
        """The mean matrix as a labeled DataFrame."""
        return pd.DataFrame(self.mean, index=self.embedders, columns=self.embedders)


def n2o_over_samples(
    neighbors: Mapping[str, np.ndarray], pool: np.ndarray, samples: Sequence[np.ndarray], k: int
) -> SampledN2O:
    """N2O matrix per query sample, from neighbor arrays computed once for `pool` (row i = pool[i])."""
    pool = np.asarray(pool)
    per = []
    for s in samples:
        rows = np.searchsorted(pool, s)
        if np.any(rows >= len(pool)) or np.any(pool[np.minimum(rows, len(pool) - 1)] != s):
            raise N2OError("A sampled query is missing from the query pool.")
        per.append(n2o_matrix(neighbors, k, rows))
    return SampledN2O(list(neighbors), k, [np.asarray(s) for s in samples], per)


def pair_values(M: np.ndarray) -> np.ndarray:
    """Upper-triangle entries (every unordered embedder pair once)."""
    iu = np.triu_indices(M.shape[0], 1)
    return np.asarray(M)[iu]


def pairs_frame(M: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """Every unordered pair with its value, sorted from most to least similar."""
    iu = np.triu_indices(len(names), 1)
    df = pd.DataFrame({"a": [names[i] for i in iu[0]], "b": [names[j] for j in iu[1]], "n2o": M[iu]})
    return df.sort_values("n2o", ascending=False, ignore_index=True)


def spearman_between(matrices: Sequence[np.ndarray]) -> np.ndarray:
    """Spearman rho between the pair rankings of every two matrices (paper §6). NaN if fewer than 3 pairs."""
    L = len(matrices)
    vals = [pair_values(M) for M in matrices]
    R = np.eye(L)
    if len(vals) and len(vals[0]) < 3:
        return np.full((L, L), np.nan)
    for i, j in combinations(range(L), 2):
        rho = _stats().spearmanr(vals[i], vals[j]).statistic
        R[i, j] = R[j, i] = rho
    return R


def robustness_across_k(
    neighbors: Mapping[str, np.ndarray], k_values: Sequence[int], rows: np.ndarray | None = None
) -> pd.DataFrame:
    """Spearman rho between embedder-pair rankings at every two k (the paper uses k in {5, 10, ..., 50})."""
    mats = [n2o_matrix(neighbors, k, rows) for k in k_values]
    R = spearman_between(mats)
    return pd.DataFrame(R, index=list(k_values), columns=list(k_values))


def k_grid(k_max: int, step: int = 5) -> list[int]:
    """{step, 2 step, ..., k_max} (k_max included), or [1..k_max] for small k_max."""
    if k_max < step:
        return list(range(1, k_max + 1))
    ks = list(range(step, k_max + 1, step))
    return ks if ks[-1] == k_max else ks + [k_max]


def off_diagonal_summary(R: np.ndarray) -> dict[str, float]:
    """Mean and min of the off-diagonal entries of a correlation matrix."""
    v = pair_values(R)
    v = v[np.isfinite(v)]
    return {"mean": float(v.mean()) if v.size else float("nan"), "min": float(v.min()) if v.size else float("nan")}


def n2o_distribution(M: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """Long frame of each embedder's N2O with every other embedder (Fig. 6 box plot)."""
    rows = [
        {"embedder": names[i], "other": names[j], "n2o": float(M[i, j])}
        for i in range(len(names))
        for j in range(len(names))
        if i != j
    ]
    return pd.DataFrame(rows, columns=["embedder", "other", "n2o"])


# --------------------------------------------------------------------------- one query across embedders


def popular_neighbors(lists: Mapping[str, Sequence[int]], m: int) -> list[int]:
    """Ids in every embedder's top m for one query, ordered by mean rank (Table 2, first row)."""
    tops = [list(v)[:m] for v in lists.values()]
    if not tops:
        return []
    common = set(tops[0]).intersection(*tops[1:])
    common.discard(-1)
    ranks = {i: np.mean([t.index(i) for t in tops]) for i in common}
    return sorted(common, key=lambda i: (ranks[i], i))


def outlier_neighbors(lists: Mapping[str, Sequence[int]], r: int, k: int) -> pd.DataFrame:
    """Neighbors ranked <= r by one embedder and outside every other embedder's top k (Table 2).

    Columns: embedder, rank (1-based), id. Requires every list to hold at least k ids.
    """
    rows = []
    sets = {e: set(list(v)[:k]) for e, v in lists.items()}
    for e, v in lists.items():
        others = [sets[o] for o in lists if o != e]
        if not others:
            break
        for rank, i in enumerate(list(v)[:r], start=1):
            if i >= 0 and all(i not in s for s in others):
                rows.append({"embedder": e, "rank": rank, "id": int(i)})
    return pd.DataFrame(rows, columns=["embedder", "rank", "id"])


# --------------------------------------------------------------------------- token overlap


def token_overlap(query: str, neighbor: str) -> float:
    """Share of the query's distinct word tokens that also occur in the neighbor, in [0, 1].

    Tokens: lowercased words (n2o_core.text.tokenize), stop words kept. 0 for a query with no tokens.
    """
    q = token_set(query)
    return len(q & token_set(neighbor)) / len(q) if q else 0.0


def mean_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t confidence interval of `values` (nan-free)."""
    v = np.asarray(values, float)
    m = float(v.mean()) if v.size else float("nan")
    if v.size < 2:
        return m, m, m
    st_ = _stats()
    half = float(st_.sem(v) * st_.t.ppf((1 + level) / 2, v.size - 1))
    return m, m - half, m + half


def token_overlap_by_embedder(
    texts: Sequence[str], query_ids: np.ndarray, neighbors: Mapping[str, np.ndarray], k: int
) -> pd.DataFrame:
    """Per embedder: mean token overlap between each query and its k neighbors, with a 95% CI over queries
    (each query contributes the mean overlap with its neighbors; Fig. 5). Columns: embedder, mean, ci_low,
    ci_high, n (queries with neighbors)."""
    toks = {}

    def ts(i: int) -> frozenset[str]:
        if i not in toks:
            toks[i] = token_set(texts[i])
        return toks[i]

    rows = []
    for e, ids in neighbors.items():
        per_query = []
        for qi, nb in zip(np.asarray(query_ids), np.asarray(ids)[:, :k]):
            q = ts(int(qi))
            nb = [int(j) for j in nb if j >= 0]
            if not q or not nb:
                continue
            per_query.append(np.mean([len(q & ts(j)) / len(q) for j in nb]))
        m, lo, hi = mean_ci(np.array(per_query))
        rows.append({"embedder": e, "mean": m, "ci_low": lo, "ci_high": hi, "n": len(per_query)})
    return pd.DataFrame(rows, columns=["embedder", "mean", "ci_low", "ci_high", "n"])


def random_neighbor_ids(pool: np.ndarray, n_corpus: int, k: int, seed: int = 0) -> np.ndarray:
    """(len(pool), k) corpus ids drawn uniformly at random for each query, never the query itself: the
    'neighbors' of an embedder that knows nothing, for the chance line of the token-overlap figure."""
    rng = np.random.default_rng(seed)
    pool = np.asarray(pool, np.int64)
    rand = rng.integers(0, n_corpus - 1, size=(len(pool), k))
    return rand + (rand >= pool[:, None])


def n2o_by_k(neighbors: Mapping[str, np.ndarray], k_values: Sequence[int]) -> pd.DataFrame:
    """N2O of every embedder pair at every k (columns pair 'a · b', k, n2o), over all rows of the arrays."""
    names = list(neighbors)
    rows = []
    for k in k_values:
        M = n2o_matrix(neighbors, k)
        for _, r in pairs_frame(M, names).iterrows():
            rows.append({"pair": f"{r['a']} · {r['b']}", "k": int(k), "n2o": float(r["n2o"])})
    return pd.DataFrame(rows, columns=["pair", "k", "n2o"])


def popular_frame(lists: Mapping[str, Sequence[int]], m: int) -> pd.DataFrame:
    """`popular_neighbors` as a table: id and mean rank (1-based) over the embedders, nearest first."""
    pop = popular_neighbors(lists, m)
    tops = [list(v)[:m] for v in lists.values()]
    ranks = [round(float(np.mean([t.index(i) + 1 for t in tops])), 1) for i in pop]
    return pd.DataFrame({"id": pop, "mean rank": ranks}, columns=["id", "mean rank"])
