"""Canonical correlation measures: SVCCA and PWCCA, in feature space.

With the centered vectors Ac = U_a S_a V_a^T (thin SVD), the canonical correlations between two column spaces are
the singular values of U_a^T U_b = S_a^-1 V_a^T (Ac^T Bc) V_b S_b^-1, so both measures need only C = Ac^T Bc and
each side's eigendecomposition (`n2o_core.measures.feature_space`): O(n d^2), never an n x n matrix.

`svcca` (Raghu et al. 2017, "SVCCA: singular vector canonical correlation analysis", NeurIPS): keep each side's
leading singular directions that explain `KEEP_VARIANCE` (99%) of its variance, run CCA between the two reduced
spaces and average the min(ka, kb) canonical correlations. Symmetric; in [0, 1].

`pwcca` (Morcos et al. 2018, "Insights on representational similarity in neural networks with canonical
correlation", NeurIPS): CCA between the full (nonzero-variance) spaces, canonical correlations rho_i weighted by
how much of A each canonical variate h_i = Ac w_i accounts for, alpha_i = sum_j |<h_i, a_j>| over A's
dimensions a_j, normalized:

    PWCCA(A, B) = sum_i alpha_i rho_i / sum_i alpha_i,   alpha = rowsums |H^T Ac| = rowsums |U_m^T S_a V_a^T|

with U_m the left singular vectors of U_a^T U_b. *Asymmetric* (weights from A, as Morcos et al.); the runner
reports both ordered pairs. With nearly as many dimensions as sentences CCA finds spurious correlations (all
rho near 1): compare with the permutation null.
"""

from __future__ import annotations

import numpy as np

from n2o_core.measures.feature_space import (
    FeatureSpace,
    cross,
    feature_space,
    left_singular,
    singular_values,
    whitened_cross,
)

#: Share of variance the SVD step of SVCCA keeps on each side.
KEEP_VARIANCE = 0.99


def kept_directions(space: FeatureSpace, keep: float = KEEP_VARIANCE) -> int:
    """Fewest leading singular directions whose variance reaches `keep` of the total (at least 1)."""
    var = space.svals**2
    if var.size == 0:
        return 0
    share = np.cumsum(var) / var.sum()
    return min(int(var.size), int(np.searchsorted(share, keep - 1e-12)) + 1)


def svcca_from(a: FeatureSpace, b: FeatureSpace, C: np.ndarray, keep: float = KEEP_VARIANCE) -> float:
    """Mean canonical correlation of the 99%-variance SVD subspaces, from the spaces and C = Ac^T Bc."""
    ka, kb = kept_directions(a, keep), kept_directions(b, keep)
    if ka == 0 or kb == 0:
        return float("nan")
    rho = singular_values(whitened_cross(a, b, C, ka, kb))
    return float(np.clip(rho, 0.0, 1.0).mean())


def _weighted(U: np.ndarray, rho: np.ndarray, space: FeatureSpace) -> float:
    """sum alpha_i rho_i / sum alpha_i with alpha = rowsums |U^T S V^T| (U: canonical directions in space's basis)."""
    alpha = np.abs(U.T @ (space.svals[:, None] * space.evecs.T)).sum(axis=1)
    if alpha.sum() <= 0:
        return float("nan")
    return float(np.sum(alpha * np.clip(rho, 0.0, 1.0)) / alpha.sum())


def pwcca_pair(a: FeatureSpace, b: FeatureSpace, C: np.ndarray) -> tuple[float, float]:
    """(PWCCA(A, B), PWCCA(B, A)) from one decomposition of U_a^T U_b, from the spaces and C = Ac^T Bc."""
    if a.svals.size == 0 or b.svals.size == 0:
        return float("nan"), float("nan")
    M = whitened_cross(a, b, C)
    if M.shape[0] <= M.shape[1]:
        U, rho = left_singular(M)
        V = (M.T @ U) / np.where(rho > 0, rho, 1.0)[None, :]
    else:
        V, rho = left_singular(M.T)
        U = (M @ V) / np.where(rho > 0, rho, 1.0)[None, :]
    return _weighted(U, rho, a), _weighted(V, rho, b)


def pwcca_from(a: FeatureSpace, b: FeatureSpace, C: np.ndarray) -> float:
    """Projection-weighted mean canonical correlation (weights from A), from the spaces and C = Ac^T Bc."""
    return pwcca_pair(a, b, C)[0]


def svcca(A: np.ndarray, B: np.ndarray, keep: float = KEEP_VARIANCE) -> float:
    """SVCCA: mean canonical correlation after keeping 99% of each side's variance (Raghu et al. 2017)."""
    a, b = feature_space(A), feature_space(B)
    return svcca_from(a, b, cross(a, b), keep)


def pwcca(A: np.ndarray, B: np.ndarray) -> float:
    """PWCCA: canonical correlations weighted by their projection on A (Morcos et al. 2018)."""
    a, b = feature_space(A), feature_space(B)
    return pwcca_from(a, b, cross(a, b))
