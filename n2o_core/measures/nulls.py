"""Is a value meaningful? Permutation nulls and bootstrap confidence intervals, seeded.

Permutation null (as the Mantel test, and as Kornblith et al. 2019 test CKA): shuffle the rows of B, so that
sentence i of A is paired with a random sentence of B, and compute the measure again; repeated `permutations`
times (default 100) with one seeded generator. The null mean is what two unrelated spaces with the same
marginal geometry give at that number of sentences, and

    p = (1 + #{null >= observed}) / (1 + permutations)

(#{null <= observed} for a distance such as Procrustes), never 0, so 1/101 is the smallest p of 100
permutations (Phipson & Smyth 2010).

Bootstrap CI: resample the sentences with replacement (seeded), compute the measure on each resample and take
the percentile interval (default 95%, 100 resamples) of the replicates re-centered on the value,
[v + q_lo - mean*, v + q_hi - mean*]: a resample repeats sentences, which raises the biased estimators (linear
and RBF CKA, SVCCA, R^2) by an amount that has nothing to do with the uncertainty, and the plain percentile
interval could then miss the value altogether. The engine (`n2o_core.measures.engine`) draws them per family
(neighbor lists relabelled, batched products in each side's singular basis, gathered kernel matrices); the tests'
oracle recomputes each measure from scratch on the same draws (tests/measures/reference_formulas.py).
"""

from __future__ import annotations

import numpy as np

#: Permutations of the null by default (the issue asks for at least 100).
DEFAULT_PERMUTATIONS = 100
#: Bootstrap resamples by default.
DEFAULT_BOOTSTRAP = 100
#: Coverage of the bootstrap interval.
CI_LEVEL = 0.95


def permutations(n: int, count: int, seed: int = 0, stream: int = 1) -> np.ndarray:
    """(count, n) row permutations from the generator seeded with (seed, stream)."""
    rng = np.random.default_rng([seed, stream])
    return np.stack([rng.permutation(n) for _ in range(count)]) if count > 0 else np.zeros((0, n), np.int64)


def resamples(n: int, count: int, seed: int = 0, stream: int = 3) -> np.ndarray:
    """(count, n) bootstrap row indices (with replacement), seeded with (seed, stream)."""
    rng = np.random.default_rng([seed, stream])
    return rng.integers(0, n, size=(count, n)) if count > 0 else np.zeros((0, n), np.int64)


def p_value(observed: float, null: np.ndarray, higher_is_similar: bool = True) -> float:
    """(1 + #{null at least as extreme as observed}) / (1 + number of null values); nan without a null or
    with a nan observation. Null values that are nan count as not extreme."""
    v = np.asarray(null, np.float64)
    if v.size == 0 or not np.isfinite(observed):
        return float("nan")
    with np.errstate(invalid="ignore"):
        extreme = v >= observed if higher_is_similar else v <= observed
    return float((1 + int(np.sum(extreme))) / (1 + v.size))


def percentile_ci(values: np.ndarray, level: float = CI_LEVEL) -> tuple[float, float]:
    """The (1 - level)/2 and (1 + level)/2 percentiles of the finite values; (nan, nan) without any."""
    v = np.asarray(values, np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.percentile(v, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


def centered_ci(boot: np.ndarray, value: float, level: float = CI_LEVEL, scale: float = 1.0) -> tuple[float, float]:
    """The percentile interval of the bootstrap replicates moved so that their mean falls on `value`, its spread
    multiplied by `scale` (sqrt(m / n) when the replicates resample m of the value's n sentences)."""
    v = np.asarray(boot, np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0 or not np.isfinite(value):
        return float("nan"), float("nan")
    lo, hi = percentile_ci(v, level)
    center = float(v.mean())
    return value + (lo - center) * scale, value + (hi - center) * scale


def null_mean(values: np.ndarray) -> float:
    """Mean of the finite null values (nan without any)."""
    v = np.asarray(values, np.float64)
    v = v[np.isfinite(v)]
    return float(v.mean()) if v.size else float("nan")
