"""Shape metrics and linear predictability between two embeddings of the same sentences, in feature space.

`procrustes` — the angular shape metric of Williams et al. 2021 ("Generalized shape metrics on neural
representations", NeurIPS) with orthogonal alignment (alpha = 1, no whitening): center both sides, scale each to
unit Frobenius norm (A^, B^), and

    theta(A, B) = arccos( max_Q tr(A^T B^ Q) ) = arccos( ||A^^T B^||_* ),   Q orthogonal,

the nuclear norm being the optimum of the orthogonal Procrustes problem (Schönemann 1966; different widths are
zero-padded, which does not change it). theta is a metric in [0, pi/2]: 0 for the same space up to rotation,
reflection, translation and isotropic scaling. It is a *distance*: the registry turns it into the similarity
cos(theta) = ||A^^T B^||_* (in [0, 1]) for ranking and maps. The Procrustes distance of the same alignment is
sqrt(2 - 2 cos theta).

`regression_r2` — the share of B's variance that a least-squares linear map (with intercept) from A explains:

    R^2(B | A) = ||P_A Bc||_F^2 / ||Bc||_F^2,   P_A the projection onto the column space of Ac,

= ||S_a^-1 V_a^T Ac^T Bc||_F^2 / ||Bc||_F^2 with Ac = U_a S_a V_a^T. It is *asymmetric* (B from A); the runner
reports both directions as the ordered pairs (a, b) and (b, a). In-sample R^2 rises towards 1 as A's rank nears
the number of sentences (d_A / n for unrelated spaces): compare it with its permutation null.

Both run in feature space (O(n d^2) per embedder, O(n da db) per pair, `n2o_core.measures.feature_space`).
"""

from __future__ import annotations

import numpy as np

from n2o_core.measures.feature_space import FeatureSpace, cross, feature_space, singular_values


def procrustes_from(a: FeatureSpace, b: FeatureSpace, C: np.ndarray) -> float:
    """Angular shape distance arccos(||Ac^T Bc||_* / (||Ac||_F ||Bc||_F)) from the spaces and C = Ac^T Bc."""
    den = np.sqrt(a.sq_norm * b.sq_norm)
    if den <= 0:
        return float("nan")
    nuclear = float(singular_values(C).sum()) / float(den)
    return float(np.arccos(np.clip(nuclear, -1.0, 1.0)))


def regression_r2_from(a: FeatureSpace, b: FeatureSpace, C: np.ndarray) -> float:
    """R^2 of the least-squares prediction of B from A, from the spaces and C = Ac^T Bc."""
    if b.sq_norm <= 0:
        return float("nan")
    P = (a.evecs.T @ C) / a.svals[:, None]
    return float(np.sum(P * P)) / b.sq_norm


def procrustes(A: np.ndarray, B: np.ndarray) -> float:
    """Angular Procrustes shape distance in radians, [0, pi/2]; 0 = the same shape (lower is more similar)."""
    a, b = feature_space(A), feature_space(B)
    return procrustes_from(a, b, cross(a, b))


def regression_r2(A: np.ndarray, B: np.ndarray) -> float:
    """R^2 of B predicted from A by least squares (with intercept), in [0, 1]."""
    a, b = feature_space(A), feature_space(B)
    return regression_r2_from(a, b, cross(a, b))
