"""N2O and the analyses built on neighbor ids: samples, chance level, robustness, popular/outlier neighbors,
token overlap. Pure functions over arrays of neighbor ids (nearest first, -1 = no neighbor).

N2O(A, B) = sum_q |NN_A(q) ∩ NN_B(q)| / (k n)  (Lin & Smith 2019, Fig. 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from n2o_core.errors import N2OError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.text import token_incidence, token_set

if TYPE_CHECKING:
    import pandas as pd


def _frame(data: Any, **kwargs: Any) -> pd.DataFrame:
    """pandas.DataFrame(data, **kwargs), pandas imported on first use: a command-line `compare` builds no table and
    starts sooner without it (measured: benchmarks/README.md, 'Measurements behind the code's choices')."""
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame(data, **kwargs)


def _stats() -> Any:
    """scipy.stats, imported on first use (a large share of the app's first-run imports;
    measured: benchmarks/README.md, 'Measurements behind the code's choices')."""
    with heavy_imports():
        from scipy import stats  # noqa: PLC0415

    return stats


# --------------------------------------------------------------------------- queries and chance


def chance_level(k: int, n_corpus: int) -> float:
    """Expected N2O of two embedders picking k neighbors uniformly at random among the N - 1 candidates."""
    if n_corpus < 2:
        raise N2OError("Chance level needs a corpus of at least 2 sentences.")
    return k / (n_corpus - 1)


def times_chance(n2o: Any, chance: float) -> np.ndarray:
    """N2O as a multiple of the chance level (`chance_level`), value by value: n2o / chance ("1.6× chance"); NaN
    where chance is not a positive number. The one definition the heatmap's cells and hover, its pairs table and
    the findings' pair tables use."""
    v = np.asarray(n2o, float)
    if not (np.isfinite(chance) and chance > 0):
        return np.full_like(v, np.nan)
    return v / chance


# --------------------------------------------------------------------------- overlap


def overlap_counts(ids_a: np.ndarray, ids_b: np.ndarray, k: int) -> np.ndarray:
    """|NN_A(q) ∩ NN_B(q)| per query for the first k neighbors (-1 entries never match).

    Assumes the ids within a row are distinct, as k-NN returns them (a repeated id would be counted twice)."""
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

    The diagonal is each embedder's overlap with itself: the share of the k·n neighbor slots that hold a
    neighbor (1 unless some queries have fewer than k neighbors, e.g. all-zero query rows).
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
    """N2O averaged over query samples (the paper: five samples of n = 100 queries).

    `mean` and `std` are element-wise over the per-sample matrices; `std` is the sample standard deviation
    (ddof = 1), zeros for a single sample."""

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
        return _frame(self.mean, index=self.embedders, columns=self.embedders)


def n2o_over_samples(
    neighbors: Mapping[str, np.ndarray], pool: np.ndarray, samples: Sequence[np.ndarray], k: int
) -> SampledN2O:
    """N2O matrix per query sample, from neighbor arrays computed once for `pool` (row i = pool[i]).

    `pool` must be sorted ascending and hold every sampled id (as `pipeline.query_pool` returns it)."""
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
    df = _frame({"a": [names[int(i)] for i in iu[0]], "b": [names[int(j)] for j in iu[1]], "n2o": M[iu]})
    return df.sort_values("n2o", ascending=False, ignore_index=True)


#: Decimals of the pairs table as shown and downloaded (`pairs_table`): N2O, and its multiple of chance.
PAIRS_DECIMALS = 4
TIMES_CHANCE_DECIMALS = 2


def pairs_table(M: np.ndarray, names: Sequence[str], chance: float) -> pd.DataFrame:
    """Every unordered pair, most similar first (`pairs_frame`), with its N2O as a multiple of chance ("× chance",
    `times_chance`): the heatmap's pairs table as shown and downloaded, N2O to PAIRS_DECIMALS decimals and the
    multiple of chance to TIMES_CHANCE_DECIMALS."""
    df = pairs_frame(M, names)
    df["× chance"] = times_chance(df["n2o"].to_numpy(), chance).round(TIMES_CHANCE_DECIMALS)
    return df.round(PAIRS_DECIMALS)


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rho of two equal-length vectors; NaN (no warning) when either is constant."""
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(_stats().spearmanr(a, b).statistic)


def spearman_between(matrices: Sequence[np.ndarray]) -> np.ndarray:
    """Spearman rho between the pair rankings (upper triangles) of every two matrices (paper §6).

    Ties get average ranks. Every entry is NaN when there are fewer than 3 pairs (fewer than 3 embedders);
    an entry is NaN when either matrix has the same value for every pair (no ranking)."""
    L = len(matrices)
    vals = [pair_values(M) for M in matrices]
    R = np.eye(L)
    if len(vals) and len(vals[0]) < 3:
        return np.full((L, L), np.nan)
    for i, j in combinations(range(L), 2):
        R[i, j] = R[j, i] = _spearman(vals[i], vals[j])
    return R


def robustness_across_k(
    neighbors: Mapping[str, np.ndarray], k_values: Sequence[int], rows: np.ndarray | None = None
) -> pd.DataFrame:
    """Spearman rho between embedder-pair rankings at every two k (the paper uses k in {5, 10, ..., 50})."""
    mats = [n2o_matrix(neighbors, k, rows) for k in k_values]
    R = spearman_between(mats)
    return _frame(R, index=list(k_values), columns=list(k_values))


def robustness_across_samples(per_sample: Sequence[np.ndarray], labels: Sequence | None = None) -> pd.DataFrame:
    """Spearman rho between the embedder-pair rankings of every two query samples (paper §6, "Query sampling":
    average rho 0.994 over five samples of 100 queries at k = 50).

    `per_sample`: one (E, E) N2O matrix per sample (`SampledN2O.per_sample`); labels default to 1..S."""
    labels = list(range(1, len(per_sample) + 1)) if labels is None else list(labels)
    if len(labels) != len(per_sample):
        raise N2OError(f"{len(labels)} labels were given for {len(per_sample)} query samples.")
    R = spearman_between(per_sample)
    return _frame(R, index=labels, columns=labels)


def sample_sizes(n_full: int, grid: Sequence[int] = (10, 25, 50, 100, 250, 500, 1000, 2500, 5000)) -> list[int]:
    """The sizes of `grid` below `n_full`, then `n_full` itself."""
    if n_full < 1:
        raise N2OError("A query sample must hold at least one query.")
    return [n for n in grid if n < n_full] + [n_full]


_DECIMALS = 12  # N2O values compared after rounding (ties between pairs stay ties)
SAMPLE_SIZE_COLUMNS = ["n", "repeats", "rho_mean", "rho_min", "abs_diff_mean", "abs_diff_max"]


def robustness_to_sample_size(
    neighbors: Mapping[str, np.ndarray],
    pool: np.ndarray,
    samples: Sequence[np.ndarray],
    k: int,
    sizes: Sequence[int] | None = None,
    repeats: int = 20,
    seed: int = 0,
) -> pd.DataFrame:
    """How far the N2O pair ranking moves when each query sample is cut down to n queries.

    Reference: the mean N2O matrix over the full `samples` (`n2o_over_samples(...).mean`). For each n in
    `sizes` (default `sample_sizes(shortest sample)`) and each of `repeats` repeats, every sample is cut to a
    sub-sample of n of its own queries drawn uniformly without replacement (numpy generator seeded with
    `seed`), N2O is computed on each sub-sample and averaged over the samples, as for the full matrix: one
    estimate M_n per repeat. Over the unordered embedder pairs (upper triangle) of M_n and the reference:

    - rho = Spearman rho of the two pair rankings (ties get average ranks; NaN with fewer than 3 pairs or
      when either has one value for every pair); rho_mean / rho_min over the repeats (NaN repeats ignored);
    - abs_diff = mean over pairs of |M_n - reference|; abs_diff_mean / abs_diff_max over the repeats.

    Both are rounded to 12 decimals first, so float noise never breaks a tie between pairs (N2O values are
    fractions with denominators k·n). At the full size (samples of equal length, as `pipeline.draw_query_samples`
    makes them) every sub-sample is its sample: rho = 1, abs_diff = 0.
    Columns: n, repeats, rho_mean, rho_min, abs_diff_mean, abs_diff_max, one row per size in `sizes` order.
    The paper reports the spread across samples (§6), not this curve; it is this app's check that the sample
    size is large enough. `neighbors`/`pool`/`samples` as for `n2o_over_samples`.
    """
    if not samples:
        raise N2OError("Robustness to sample size needs at least one query sample.")
    if repeats < 1:
        raise N2OError("The number of repeats must be positive.")
    pool = np.asarray(pool)
    names = list(neighbors)
    rows_of = []
    for s in samples:
        s = np.asarray(s)
        r = np.searchsorted(pool, s)
        if np.any(r >= len(pool)) or np.any(pool[np.minimum(r, len(pool) - 1)] != s):
            raise N2OError("A sampled query is missing from the query pool.")
        rows_of.append(r)
    n_full = min(len(r) for r in rows_of)
    sizes = sample_sizes(n_full) if sizes is None else [int(n) for n in sizes]
    bad = [n for n in sizes if not 1 <= n <= n_full]
    if bad:
        raise N2OError(f"Sample size(s) {bad} are outside 1..{n_full} (the shortest query sample).")
    # |NN_A(q) ∩ NN_B(q)| per unordered pair (rows) and pool query (columns): every estimate is a mean of these.
    pairs = list(combinations(range(len(names)), 2))
    arrs = [np.asarray(neighbors[e]) for e in names]
    counts = np.array([overlap_counts(arrs[i], arrs[j], k) for i, j in pairs], float).reshape(len(pairs), len(pool))
    ref = np.round(np.mean([counts[:, r].mean(axis=1) for r in rows_of], axis=0) / k, _DECIMALS)
    rng = np.random.default_rng(seed)
    out = []
    for n in sizes:
        est = np.zeros((repeats, len(pairs)))
        for r in rows_of:
            pick = rng.random((repeats, len(r))).argsort(axis=1)[:, :n]  # `repeats` draws of n rows, no replacement
            est += counts[:, r[pick]].mean(axis=2).T
        est = np.round(est / (len(rows_of) * k), _DECIMALS)
        rho = np.array([_spearman(e, ref) if len(pairs) >= 3 else np.nan for e in est])
        diff = np.abs(est - ref).mean(axis=1) if pairs else np.full(repeats, np.nan)
        finite = rho[np.isfinite(rho)]
        out.append(
            {
                "n": n,
                "repeats": repeats,
                "rho_mean": float(finite.mean()) if finite.size else float("nan"),
                "rho_min": float(finite.min()) if finite.size else float("nan"),
                "abs_diff_mean": float(diff.mean()),
                "abs_diff_max": float(diff.max()),
            }
        )
    return _frame(out, columns=SAMPLE_SIZE_COLUMNS)


def k_grid(k_max: int, step: int = 5) -> list[int]:
    """{step, 2 step, ..., k_max} (k_max included), or [1..k_max] for small k_max."""
    if k_max < step:
        return list(range(1, k_max + 1))
    ks = list(range(step, k_max + 1, step))
    return ks if ks[-1] == k_max else [*ks, k_max]


def off_diagonal_summary(R: np.ndarray) -> dict[str, float]:
    """Mean and min of the off-diagonal entries of a symmetric matrix (upper triangle; non-finite entries
    ignored; NaN when none is left)."""
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
    return _frame(rows, columns=["embedder", "other", "n2o"])


def box_order(dist: pd.DataFrame) -> list[str]:
    """The embedders of an `n2o_distribution` frame by decreasing median N2O with the others: the box plot's order
    (Fig. 6), best-shared neighbors first."""
    return list(dist.groupby("embedder")["n2o"].median().sort_values(ascending=False).index)


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

    Columns: embedder, rank (1-based), id. Empty for a single embedder. Lists shorter than k are used as they
    are (not checked), so pass at least k ids per embedder for the paper's definition.
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
    return _frame(rows, columns=["embedder", "rank", "id"])


# --------------------------------------------------------------------------- token overlap


def _content(tokens: frozenset[str], stop_words: frozenset[str] | None) -> frozenset[str]:
    return tokens - stop_words if stop_words else tokens


def token_overlap(query: str, neighbor: str, stop_words: frozenset[str] | None = None) -> float:
    """Share of the query's distinct word tokens that also occur in the neighbor, in [0, 1].

    Tokens: lowercased words (n2o_core.text.tokenize). Tokens in `stop_words` (lowercase) are dropped on both
    sides; None keeps every token. 0 for a query with no (content) tokens.
    """
    q = _content(token_set(query), stop_words)
    return len(q & token_set(neighbor)) / len(q) if q else 0.0


def mean_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t confidence interval of the mean of `values` (which must hold no NaN):
    mean ± t_{(1+level)/2, n-1} · s / sqrt(n), s the sample standard deviation (ddof = 1).
    NaN for no values; (m, m, m) for a single value."""
    v = np.asarray(values, float)
    m = float(v.mean()) if v.size else float("nan")
    if v.size < 2:
        return m, m, m
    from scipy.special import stdtrit  # noqa: PLC0415 - the t quantile scipy.stats.t.ppf computes, without its import

    half = float(v.std(ddof=1) / np.sqrt(v.size) * stdtrit(v.size - 1, (1 + level) / 2))
    return m, m - half, m + half


TOKEN_OVERLAP_COLUMNS = ["embedder", "mean", "ci_low", "ci_high", "n", "n_no_tokens", "n_no_neighbors"]


def token_overlap_by_embedder(
    texts: Sequence[str],
    query_ids: np.ndarray,
    neighbors: Mapping[str, np.ndarray],
    k: int,
    stop_words: frozenset[str] | None = None,
) -> pd.DataFrame:
    """`token_overlap_rows` as a table (columns TOKEN_OVERLAP_COLUMNS, one row per embedder)."""
    return _frame(token_overlap_rows(texts, query_ids, neighbors, k, stop_words), columns=TOKEN_OVERLAP_COLUMNS)


def token_overlap_rows(
    texts: Sequence[str],
    query_ids: np.ndarray,
    neighbors: Mapping[str, np.ndarray],
    k: int,
    stop_words: frozenset[str] | None = None,
) -> list[dict[str, Any]]:
    """Per embedder: mean token overlap (`token_overlap`) between each query and its k neighbors (Fig. 5).

    Each query is one observation: the mean of its overlaps with its (up to k) neighbors. `mean` is the mean
    of these per-query values and [ci_low, ci_high] their 95% Student-t interval (`mean_ci`, n - 1 degrees of
    freedom): an interval over queries, not over (query, neighbor) pairs. Tokens in `stop_words` are ignored
    on both sides (None keeps every token). A query with no (content) tokens is skipped and counted in
    n_no_tokens; a query without neighbors (-1 only) is skipped and counted in n_no_neighbors.
    One dict per embedder with the keys embedder, mean, ci_low, ci_high, n (queries used), n_no_tokens,
    n_no_neighbors (TOKEN_OVERLAP_COLUMNS).
    """
    q_ids = np.asarray(query_ids, np.int64).ravel()
    lists = {e: np.asarray(ids, np.int64)[: len(q_ids), :k] for e, ids in neighbors.items()}
    is_needed = np.zeros(len(texts), bool)  # the sentences to tokenize: queries and neighbors
    is_needed[q_ids] = True
    for v in lists.values():
        is_needed[v[v >= 0]] = True
    needed = np.flatnonzero(is_needed)
    row_of = np.cumsum(is_needed) - 1  # corpus id -> row of M (for needed ids)
    M = token_incidence([texts[i] for i in needed.tolist()], stop_words or ()).matrix  # a row per needed sentence
    q_rows = row_of[q_ids]
    q_size = np.diff(M.indptr)[q_rows]  # distinct content tokens of each query
    rows = []
    for e, v in lists.items():
        valid = v >= 0
        n_nb = valid.sum(axis=1)
        used = (q_size > 0) & (n_nb > 0)
        pair_q = np.repeat(np.arange(len(q_ids)), n_nb)  # (query, neighbor) pairs, row-major like v[valid]
        shared = np.asarray(M[q_rows[pair_q]].multiply(M[row_of[v[valid]]]).sum(axis=1)).ravel()
        frac = shared / np.maximum(q_size[pair_q], 1)
        per_query = np.bincount(pair_q, frac, minlength=len(q_ids))[used] / n_nb[used]
        m, lo, hi = mean_ci(per_query)
        rows.append(
            {
                "embedder": e,
                "mean": m,
                "ci_low": lo,
                "ci_high": hi,
                "n": int(used.sum()),
                "n_no_tokens": int((q_size == 0).sum()),
                "n_no_neighbors": int(((q_size > 0) & (n_nb == 0)).sum()),
            }
        )
    return rows


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
    return _frame(rows, columns=["pair", "k", "n2o"])


def popular_frame(lists: Mapping[str, Sequence[int]], m: int) -> pd.DataFrame:
    """`popular_neighbors` as a table: id and mean rank (1-based) over the embedders, nearest first."""
    pop = popular_neighbors(lists, m)
    tops = [list(v)[:m] for v in lists.values()]
    ranks = [round(float(np.mean([t.index(i) + 1 for t in tops])), 1) for i in pop]
    return _frame({"id": pop, "mean rank": ranks}, columns=["id", "mean rank"])


POPULAR_COLUMNS = ["id", "embedders", "mean rank", "missing from"]


@dataclass(frozen=True)
class Popular:
    """Popular neighbors of one query: the paper's (in the top m of every embedder) when there are any, else the
    nearest thing: the sentences in the top m of the most embedders short of all (`required` of `total`)."""

    frame: pd.DataFrame  # POPULAR_COLUMNS: id, embedders (how many have it in their top m), mean rank, missing from
    m: int
    required: int  # embedders whose top m each row is in (at least)
    total: int

    @property
    def paper(self) -> bool:
        """Whether these are popular neighbors as the paper defines them (in the top m of every embedder)."""
        return self.required == self.total

    def label(self) -> str:
        """What the table holds, in words."""
        if self.paper:
            return f"in the top {self.m} of all {self.total} embedders (the paper's popular neighbors, Table 2)"
        if self.frame.empty:
            return (
                f"no sentence is in the top {self.m} of all {self.total} embedders (the paper's popular neighbors), "
                f"nor in the top {self.m} of {self.required} of them"
            )
        return (
            f"no sentence is in the top {self.m} of all {self.total} embedders (the paper's popular neighbors); "
            f"nearest to it: in the top {self.m} of {self.required} of the {self.total}"
        )


def with_sentences(frame: pd.DataFrame, texts: Sequence[str], query_tokens: AbstractSet[str]) -> pd.DataFrame:
    """A table of corpus sentences (its "id" column: popular or outlier neighbors) with each one's text
    ("sentence") and the words it shares with the query ("shared words": `query_tokens` it contains, sorted,
    comma-separated); a new frame."""
    out = frame.copy()
    out["sentence"] = [texts[i] for i in out["id"]]
    out["shared words"] = [", ".join(sorted(query_tokens & token_set(texts[i]))) for i in out["id"]]
    return out


def popular_or_nearest(lists: Mapping[str, Sequence[int]], m: int, *, min_embedders: int = 2) -> Popular:
    """Popular neighbors of one query (`popular_neighbors`: in the top m of every embedder, Table 2); when there is
    none, the nearest thing: the sentences in the top m of n - 1 embedders, else n - 2, ... down to
    `min_embedders`, labelled by how many embedders have them (`Popular.required`). Rows: nearest first by mean
    rank over the embedders that have them (1-based), then by id; "missing from" names the others."""
    tops = {e: [i for i in list(v)[:m] if i >= 0] for e, v in lists.items()}
    n = len(tops)
    if n == 0:
        return Popular(_frame([], columns=POPULAR_COLUMNS), m, 0, 0)
    where: dict[int, dict[str, int]] = {}
    for e, top in tops.items():
        for rank, i in enumerate(top, start=1):
            where.setdefault(int(i), {})[e] = rank
    floor = min(n, max(1, min_embedders))
    for need in range(n, floor - 1, -1):
        hits = {i: ranks for i, ranks in where.items() if len(ranks) >= need}
        if hits or need == floor:
            break
    mean_rank = {i: float(np.mean(list(ranks.values()))) for i, ranks in hits.items()}
    rows = [
        (i, len(hits[i]), round(mean_rank[i], 1), ", ".join(e for e in tops if e not in hits[i]))
        for i in sorted(hits, key=lambda i: (-len(hits[i]), mean_rank[i], i))
    ]
    return Popular(_frame(rows, columns=POPULAR_COLUMNS), m, need, n)


def token_overlap_report(
    texts: Sequence[str],
    pool: np.ndarray,
    neighbors: Mapping[str, np.ndarray],
    k: int,
    *,
    stop_words: frozenset[str] | None = None,
    seed: int = 0,
) -> tuple[pd.DataFrame, float]:
    """Fig. 5: token overlap per embedder (`token_overlap_by_embedder`) and the same measure for k sentences drawn
    at random per query (`random_neighbor_ids`), the level an embedder that knows nothing would reach."""
    rand = random_neighbor_ids(pool, len(texts), k, seed)
    key = "\0random"  # never an embedder id; one call tokenizes the queries and every neighbor once
    both = token_overlap_by_embedder(texts, pool, {**neighbors, key: rand}, k, stop_words=stop_words)
    base = both[both["embedder"] == key]
    return both[both["embedder"] != key].reset_index(drop=True), float(base["mean"].iloc[0])


def by_token_overlap(frame: pd.DataFrame) -> pd.DataFrame:
    """A token-overlap frame (`token_overlap_by_embedder`, `token_overlap_report`) with its embedders by decreasing
    mean overlap: Fig. 5's bars, the page's table and the findings' token tables."""
    return frame.sort_values("mean", ascending=False, ignore_index=True)


def queries_without_words(frame: pd.DataFrame) -> int:
    """How many pooled queries a token-overlap frame leaves out for having no word to count (its `n_no_tokens`: no
    content word when stop words are not counted); 0 for an empty frame."""
    return int(frame["n_no_tokens"].max()) if "n_no_tokens" in frame and len(frame) else 0
