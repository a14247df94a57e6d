"""Every chosen similarity measure for every pair of embedders of one corpus, with nulls, side by side.

    res = compare_measures(ws, ["tfidf", "glove-6b-50d", "minilm-l6-mean"], k=10)
    res.to_json()    # {"embedders", "corpus_size", "subsample", "k", "measures", "results", "measure_agreement"}
    res.to_frame()   # one row per (a, b, measure)
    feature_matrix(ws.embeddings, ["tfidf", "glove-6b-50d"])   # linear CKA of every two, no nulls (a matrix)

Where each value is computed (n sentences of the corpus, all of them unless said):
- neighborhood measures (mutual_knn, jaccard_knn, cknna): every sentence, from the workspace's cached
  every-sentence neighbor search (`n2o_core.pipeline.every_sentence_neighbors`, the one per-sentence N2O
  uses), at k; null and bootstrap on every sentence too.
- feature-space measures (cka_linear, cka_linear_unbiased, procrustes, regression_r2, svcca, pwcca,
  pwcca_released): every sentence, O(n d^2), never an n x n matrix; the permutation null and the bootstrap on
  the seeded *null subsample* (default NULL_SUBSAMPLE = 1,000 sentences), the p-value comparing the value on
  those same sentences (so it tests like with like; `null_mean` is what unrelated spaces give at that size) and
  the bootstrap interval's spread rescaled to every sentence by sqrt(null_n / n) around the value (m-out-of-n
  bootstrap).
- kernel measures (cka_rbf, rsa_spearman, rsa_pearson): the seeded *subsample* (default 5,000; 0 = every
  sentence, at most `pairwise.MAX_ROWS`), in row blocks; null and bootstrap on the null subsample (a subset of
  it), the bootstrap interval's spread rescaled to the subsample by sqrt(null_n / n) around the value.
Bootstrap intervals are percentile intervals re-centered on the value (`nulls.centered_ci`). pwcca_released (the
released code's PWCCA) has its value only: no null, p or interval (`engine.VALUE_ONLY`).

Sparse tf-idf enters the feature-space and kernel measures through its truncated SVD to `TFIDF_SVD_DIM` (300)
dimensions (seeded, `dense_view`); its neighborhoods use cosine on the sparse vectors, as N2O does. Dimensions
may differ between embedders. `measure_agreement` holds the Spearman correlation between two measures over the
unordered pairs (a distance turned into a similarity, an asymmetric measure averaged over both directions).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from n2o_core.errors import N2OError
from n2o_core.measures import MEASURE_IDS, get_measure
from n2o_core.measures.engine import (
    FEATURE_IDS,
    KERNEL_IDS,
    NEIGHBOR_IDS,
    FamilyResult,
    FeatureFamily,
    KernelFamily,
    Key,
    NeighborFamily,
    feature_values,
    pairs_of,
)
from n2o_core.measures.feature_space import FeatureSpace, cross, feature_space
from n2o_core.measures.neighborhood import NeighborLists, knn_lists
from n2o_core.measures.nulls import (
    CI_LEVEL,
    DEFAULT_BOOTSTRAP,
    DEFAULT_PERMUTATIONS,
    centered_ci,
    null_mean,
    p_value,
    permutations,
    resamples,
)
from n2o_core.measures.pairwise import MAX_ROWS
from n2o_core.runtime.progress import Progress, report

if TYPE_CHECKING:
    import pandas as pd

    from n2o_core.corpus_workspace import Workspace

#: Sentences of the kernel measures by default (0 = every sentence).
DEFAULT_SUBSAMPLE = 5_000
#: Sentences the permutation nulls of the feature-space and kernel measures are drawn on.
NULL_SUBSAMPLE = 1_000
#: Dimensions of the truncated SVD through which sparse tf-idf enters the feature-space and kernel measures.
TFIDF_SVD_DIM = 300
DEFAULT_K = 10

#: The stage `compare_arrays` reports: done and total count (measure, unordered pair) steps.
STAGE = "measures"


def dense_view(X: Any, seed: int = 0, dim: int = TFIDF_SVD_DIM, power_iterations: int = 4) -> np.ndarray:
    """Dense vectors as given; a sparse matrix (tf-idf) replaced by its truncated SVD scores U_d S_d (= X V_d) on
    the top `dim` singular directions: a randomized SVD (Halko et al. 2011; seeded Gaussian test matrix, 10 extra
    columns, `power_iterations` power iterations) whose orthonormalizations all run in the n-dimensional sentence
    space, so the vocabulary side is only touched by sparse products (scikit-learn's TruncatedSVD
    orthonormalizes |V| x dim blocks as well: ~10x slower on the 38k-sentence corpus)."""
    if not sp.issparse(X):
        return np.asarray(X) if not isinstance(X, np.ndarray) else X
    S = sp.csr_matrix(X, dtype=np.float64)
    S = S[:, np.unique(S.indices)]  # terms these sentences never use change nothing
    n, v = S.shape
    d = min(dim, v - 1, n - 1)
    if d < 1:
        raise N2OError(f"Sparse vectors of shape {S.shape} are too small for a truncated SVD.")
    width = min(d + 10, n, v)
    Y = S @ np.random.default_rng([seed, 9]).standard_normal((v, width))
    for _ in range(power_iterations):
        Q, _ = np.linalg.qr(Y)
        Y = S @ np.asarray(S.T @ Q)
    Q, _ = np.linalg.qr(Y)
    Bt = np.asarray(S.T @ Q)  # (v, width) = (Q^T S)^T
    lam, W = np.linalg.eigh(Bt.T @ Bt)  # B B^T = W diag(lam) W^T
    top = np.argsort(lam)[::-1][:d]
    return Q @ W[:, top] * np.sqrt(np.clip(lam[top], 0.0, None))[None, :]


def _json_number(x: float, decimals: int = 6) -> float | None:
    return round(float(x), decimals) if x is not None and math.isfinite(x) else None


@dataclass
class MeasureComparison:
    """Every measure for every pair: one row per (a, b, measure); see the module docstring for the rows used."""

    embedders: list[str]
    corpus_size: int
    subsample: int  # sentences of the kernel measures
    null_subsample: int  # sentences of the feature-space and kernel nulls
    k: int
    measures: list[str]
    permutations: int
    bootstrap: int
    seed: int
    rows: list[dict[str, Any]] = field(
        default_factory=list
    )  # a, b, measure, value, ci_lo, ci_hi, null_mean, p, n, null_n

    def to_frame(self) -> pd.DataFrame:
        """Columns a, b, measure, value, ci_lo, ci_hi, null_mean, p, n (sentences of the value), null_n."""
        cols = ["a", "b", "measure", "value", "ci_lo", "ci_hi", "null_mean", "p", "n", "null_n"]
        import pandas as pd  # on first use: the measures command and the page import this module to start

        return pd.DataFrame(self.rows, columns=cols)

    def value(self, a: str, b: str, measure: str) -> float:
        """The value of one ordered pair and measure (a symmetric measure answers either order)."""
        for r in self.rows:
            if r["measure"] == measure and (
                (r["a"], r["b"]) == (a, b) or ((r["a"], r["b"]) == (b, a) and get_measure(measure).symmetric)
            ):
                return float(r["value"])
        raise N2OError(f"No value of '{measure}' for {a} and {b}.")

    def pair_similarities(self, measure: str) -> np.ndarray:
        """One similarity per unordered pair (in `pairs_of(embedders)` order): higher = more similar; an
        asymmetric measure averaged over both directions, a distance turned into a similarity."""
        m = get_measure(measure)
        out = []
        for a, b in pairs_of(self.embedders):
            vals = (
                [self.value(a, b, measure)] if m.symmetric else [self.value(a, b, measure), self.value(b, a, measure)]
            )
            out.append(float(np.mean([m.similarity(v) for v in vals])))
        return np.array(out)

    def measure_agreement(self) -> list[dict[str, Any]]:
        """Spearman correlation over the unordered pairs between every two measures (None below 3 pairs or
        when one is constant)."""
        from scipy.stats import spearmanr

        sims = {m: self.pair_similarities(m) for m in self.measures}
        out = []
        for m1, m2 in combinations(self.measures, 2):
            x, y = sims[m1], sims[m2]
            ok = np.isfinite(x) & np.isfinite(y)
            rho = float("nan")
            if ok.sum() >= 3 and np.ptp(x[ok]) > 0 and np.ptp(y[ok]) > 0:
                rho = float(spearmanr(x[ok], y[ok])[0])
            out.append({"m1": m1, "m2": m2, "spearman": _json_number(rho)})
        return out

    def to_json(self) -> dict[str, Any]:
        """{"embedders", "corpus_size", "subsample", "k", "measures", "results": [{"a", "b", "measure", "value",
        "ci": [lo, hi], "null_mean", "p"}], "measure_agreement": [{"m1", "m2", "spearman"}]}; NaN as null."""
        return {
            "embedders": list(self.embedders),
            "corpus_size": int(self.corpus_size),
            "subsample": int(self.subsample),
            "k": int(self.k),
            "measures": list(self.measures),
            "results": [
                {
                    "a": r["a"],
                    "b": r["b"],
                    "measure": r["measure"],
                    "value": _json_number(r["value"]),
                    "ci": [_json_number(r["ci_lo"]), _json_number(r["ci_hi"])],
                    "null_mean": _json_number(r["null_mean"]),
                    "p": _json_number(r["p"]),
                }
                for r in self.rows
            ],
            "measure_agreement": self.measure_agreement(),
        }


def check_measures(measures: Sequence[str] | None) -> list[str]:
    """The measure ids asked for, in registry order (all by default); N2OError for an unknown or repeated id."""
    if not measures:
        return list(MEASURE_IDS)
    for m in measures:
        get_measure(m)
    if len(set(measures)) != len(measures):
        raise N2OError("A measure was given twice.")
    return [m for m in MEASURE_IDS if m in measures]


def _check_counts(n: int, k: int, permutations_: int, bootstrap: int, subsample: int, null_subsample: int) -> None:
    if n < 4:
        raise N2OError(f"The similarity measures need at least 4 sentences (got {n}).")
    if not 0 < k < n:
        raise N2OError(f"k must be between 1 and the corpus size minus one ({n - 1}); got {k}.")
    for name, v in (("permutations", permutations_), ("bootstrap", bootstrap), ("subsample", subsample)):
        if v < 0:
            raise N2OError(f"{name} must be 0 or more (got {v}).")
    if null_subsample < 4:
        raise N2OError(f"null_subsample must be at least 4 (got {null_subsample}).")


def compare_arrays(
    arrays: Mapping[str, Any],
    *,
    k: int = DEFAULT_K,
    measures: Sequence[str] | None = None,
    neighbors: Mapping[str, NeighborLists] | None = None,
    permutations_: int = DEFAULT_PERMUTATIONS,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    subsample: int = DEFAULT_SUBSAMPLE,
    null_subsample: int = NULL_SUBSAMPLE,
    seed: int = 0,
    progress: Progress | None = None,
) -> MeasureComparison:
    """Every measure for every pair of the given embeddings (name -> n x d array, dense or sparse) of the same
    n sentences. `neighbors` (name -> k-NN lists of every sentence, at >= k) avoids searching again.
    Stage STAGE ("measures") reported to `progress` counts (measure, unordered pair) steps (each family's share
    advancing with its draws). BLAS runs at one thread throughout: the independent work runs on `batched.map_threads` (a
    multi-threaded BLAS on two busy cores took 20x longer for the tf-idf SVD's QR steps)."""
    names = list(arrays)
    if len(names) < 2:
        raise N2OError(f"Comparing measures needs at least two embedders (got {len(names)}).")
    ns = {X.shape[0] for X in arrays.values()}
    if len(ns) != 1:
        raise N2OError(f"The embeddings have different row counts {sorted(ns)}: they must embed the same sentences.")
    n = ns.pop()
    chosen = check_measures(measures)
    _check_counts(n, k, permutations_, bootstrap, subsample, null_subsample)
    n_kernel = n if subsample == 0 else min(subsample, n)
    if n_kernel > MAX_ROWS and any(m in KERNEL_IDS for m in chosen):
        raise N2OError(
            f"The kernel measures (cka_rbf, rsa_*) hold n²/2 values per embedder: use a subsample of at most "
            f"{MAX_ROWS:,} sentences (asked: {n_kernel:,})."
        )
    m_null = min(null_subsample, n_kernel)
    order = np.random.default_rng([seed, 0]).permutation(n)
    kernel_rows = np.sort(order[:n_kernel])
    null_rows = np.sort(order[:m_null])
    npairs = len(names) * (len(names) - 1) // 2
    total = len(chosen) * npairs  # progress: (measure, pair) steps
    start = 0

    def family(ids: Sequence[str]) -> Progress:
        """The family's share done as (measure, pair) steps of the whole call."""
        base, steps = start, sum(m in ids for m in chosen) * npairs
        return lambda event: report(progress, STAGE, base + round(event.fraction * steps), total)

    results: list[FamilyResult] = []
    report(progress, STAGE, 0, total)
    with threadpool_limits(limits=1, user_api="blas"):  # threads of our own (batched.map_threads) instead
        if any(m in NEIGHBOR_IDS for m in chosen):
            lists = {}
            for e in names:
                got = neighbors.get(e) if neighbors else None
                lists[e] = got.head(k) if got is not None else knn_lists(arrays[e], k)
            fam = NeighborFamily(lists, chosen)
            perms, draws = permutations(n, permutations_, seed, 1), resamples(n, bootstrap, seed, 3)
            results.append(fam.run(perms, draws, family(NEIGHBOR_IDS)))
            start += sum(m in NEIGHBOR_IDS for m in chosen) * npairs
        dense: dict[str, np.ndarray] = {}
        if any(m in FEATURE_IDS or m in KERNEL_IDS for m in chosen):
            dense = {e: dense_view(X, seed) for e, X in arrays.items()}
        if any(m in FEATURE_IDS for m in chosen):
            ff = FeatureFamily(dense, chosen, null_rows)
            perms, draws = permutations(m_null, permutations_, seed, 2), resamples(m_null, bootstrap, seed, 4)
            results.append(ff.run(perms, draws, family(FEATURE_IDS)))
            start += sum(m in FEATURE_IDS for m in chosen) * npairs
        if any(m in KERNEL_IDS for m in chosen):
            sub = {e: np.asarray(X[kernel_rows], np.float64) for e, X in dense.items()}
            kf = KernelFamily(sub, chosen, np.searchsorted(kernel_rows, null_rows))
            perms, draws = permutations(m_null, permutations_, seed, 2), resamples(m_null, bootstrap, seed, 4)
            results.append(kf.run(perms, draws, family(KERNEL_IDS)))
    report(progress, STAGE, total, total)
    res = MeasureComparison(
        names, n, n_kernel, m_null, k, chosen, permutations_, bootstrap, seed, _rows(names, chosen, results)
    )
    return res


def _ci(fr: FamilyResult, key: Key, value: float) -> tuple[float, float]:
    boot = fr.boot.get(key)
    if boot is None or boot.size == 0:
        return float("nan"), float("nan")
    # m-out-of-n: replicates of m sentences have a spread sqrt(n / m) times that of n sentences
    return centered_ci(boot, value, CI_LEVEL, math.sqrt(fr.boot_n / fr.n) if fr.boot_n < fr.n else 1.0)


def _rows(names: list[str], chosen: list[str], results: list[FamilyResult]) -> list[dict[str, Any]]:
    found: dict[Key, FamilyResult] = {key: fr for fr in results for key in fr.value}
    rows = []
    for msr in chosen:
        m = get_measure(msr)
        for a, b in pairs_of(names):
            for key in [(a, b, msr)] if m.symmetric else [(a, b, msr), (b, a, msr)]:
                fr = found[key]
                value = fr.value[key]
                lo, hi = _ci(fr, key, value)
                null = fr.null.get(key, np.zeros(0))
                rows.append(
                    {
                        "a": key[0],
                        "b": key[1],
                        "measure": msr,
                        "value": value,
                        "ci_lo": lo,
                        "ci_hi": hi,
                        "null_mean": null_mean(null),
                        "p": p_value(fr.null_observed.get(key, value), null, m.higher_is_similar),
                        "n": fr.n,
                        "null_n": fr.null_n if null.size else 0,
                    }
                )
    return rows


def compare_measures(
    ws: Workspace,
    embedder_ids: Sequence[str],
    k: int = DEFAULT_K,
    measures: Sequence[str] | None = None,
    *,
    permutations_: int = DEFAULT_PERMUTATIONS,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    subsample: int = DEFAULT_SUBSAMPLE,
    null_subsample: int = NULL_SUBSAMPLE,
    seed: int = 0,
    progress: Progress | None = None,
) -> MeasureComparison:
    """Every measure for every pair of the workspace's embedders on its corpus (embeddings and every-sentence
    neighbors from the workspace's cache; see the module docstring). Reports to `progress` the stages "search"
    (embedders whose every-sentence neighbors are ready, of all) and "measures" (`compare_arrays`)."""
    from n2o_core.analyses.agreement import validate
    from n2o_core.pipeline import every_sentence_neighbors

    ids = list(embedder_ids)
    n = len(ws.corpus)
    validate(ids, k, n)
    chosen = check_measures(measures)
    arrays = {e: ws.embeddings(e) for e in ids}
    lists: dict[str, NeighborLists] = {}
    if any(m in NEIGHBOR_IDS for m in chosen):
        for i, e in enumerate(ids):
            got = every_sentence_neighbors(ws, e, k)
            lists[e] = NeighborLists(np.asarray(got.ids), np.asarray(got.sims, np.float64))
            report(progress, "search", i + 1, len(ids))
    return compare_arrays(
        arrays,
        k=k,
        measures=chosen,
        neighbors=lists,
        permutations_=permutations_,
        bootstrap=bootstrap,
        subsample=subsample,
        null_subsample=null_subsample,
        seed=seed,
        progress=progress,
    )


@dataclass
class FeatureMemo:
    """What `feature_matrix` computed, kept for its next calls (one check of the papers' findings, say): each
    embedder's feature space by (scope, embedder) and each value by (scope, a, b, measure), `scope` naming the
    sentences (a corpus fingerprint), so that other sets of the same embedders on the same sentences compute
    nothing again."""

    spaces: dict[tuple[str, str], FeatureSpace] = field(default_factory=dict)
    values: dict[tuple[str, str, str, str], float] = field(default_factory=dict)


def feature_matrix(
    vectors: Callable[[str], Any],
    names: Sequence[str],
    measure: str = "cka_linear",
    *,
    memo: FeatureMemo | None = None,
    scope: str = "",
    seed: int = 0,
) -> np.ndarray:
    """(len(names), len(names)) values of one feature-space measure (linear CKA by default) for every two of
    `names` on every sentence, without nulls, as `compare_arrays` computes them (`engine.feature_values`): row a,
    column b (a to b for a directional measure), the diagonal the value of a space with itself
    (`Measure.self_value`). `vectors(e)` gives e's embeddings (n x d, dense or sparse: tf-idf through its
    truncated SVD, `dense_view` with `seed`). What `memo` holds under `scope` is reused, what is computed is added
    to it. O(n d^2) per embedder and O(n da db) per pair, never an n x n matrix."""
    m = get_measure(measure)
    if m.family != "feature":
        raise N2OError(f"'{measure}' is not a feature-space measure (those are: {', '.join(FEATURE_IDS)}).")
    keep = FeatureMemo() if memo is None else memo

    def space(e: str) -> FeatureSpace:
        if (scope, e) not in keep.spaces:
            keep.spaces[scope, e] = feature_space(dense_view(vectors(e), seed))
        return keep.spaces[scope, e]

    out = np.full((len(names), len(names)), m.self_value)
    for i, j in combinations(range(len(names)), 2):
        a, b = names[i], names[j]
        if (scope, a, b, measure) not in keep.values:
            sa, sb = space(a), space(b)
            for (x, y, _), v in feature_values(sa, sb, cross(sa, sb), (a, b), [measure]).items():
                keep.values[scope, x, y, measure] = v
                if m.symmetric:
                    keep.values[scope, y, x, measure] = v
        out[i, j], out[j, i] = keep.values[scope, a, b, measure], keep.values[scope, b, a, measure]
    return out
