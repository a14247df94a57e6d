"""The released code's PWCCA (`pwcca_released`), in feature space; the paper's PWCCA and SVCCA are in `batched`.

PWCCA as the authors' released code computes it (google/svcca, `pwcca.compute_pwcca` over
`cca_core.get_cca_similarity`), which ReSi and most papers use; on 1,000 BBC News sentences it gives 0.774 where
the paper's formula gives 0.705 (MiniLM-L6, e5-small). Its value only: no permutation null and no bootstrap (each
draw would need its own full SVD in the original dimensions, whose signs the value depends on). The tests' oracle
is a step-by-step restatement of the released code (tests/measures/svcca_reference.py). Its steps, on the
covariances Sxx, Sxy, Syy:

1. each side's covariance divided by its largest absolute entry (Sxy by the square root of both); dimensions whose
   scaled variance is below `epsilon` dropped ("kept dimensions"), `epsilon` added to the diagonals;
2. the whitened cross-covariance Sxx^-1/2 Sxy Syy^-1/2 (symmetric inverse square roots of the pseudo-inverses)
   and its SVD u s v^T (numpy's, whose signs matter below): s are the canonical correlations;
3. weights from the side with fewer kept dimensions (A on a tie): the rotation u^T applied to the *centered*
   activations without the inverse square root, plus each dimension's mean added to the direction of the same
   index (d_i = Xc u_i + mu_i), orthonormalized in order (QR), and alpha_i = sum_j |<q_i, x_j>| over the
   *uncentered* activations x_j; PWCCA = sum alpha_i s_i / sum alpha_i.

So the weights are not the paper's (its canonical variates are Xc Sxx^-1/2 u_i), and because the means enter each
direction with a sign the SVD chose, the value moves when those signs flip (by up to 0.0023 in five random flips
on the pairs above): numpy's SVD is called as the released code calls it, so the value is the code's to ~1e-9. Here the
n x k QR runs in the (r + 1)-dimensional span of the centered rows and the constant vector (Xc = U S V^T, U
orthogonal to 1): the directions are [U, 1/sqrt(n)] [S V^T u; sqrt(n) mu^T] and the activations
[U, 1/sqrt(n)] L with L = [S V^T; sqrt(n) mu^T], so the QR of the small (r + 1) x k matrix gives the same
orthonormal directions and alpha = rowsums |Q^T L|: O(d^3) instead of O(n d^2). Deviations from the released
code: a pinv eigenvalue below zero by rounding is taken as 0 where the code takes a NaN square root (and fails).
With more kept dimensions than the rank of the centered rows plus one (a rank-deficient side: the code fails
there, its pinv's rounding giving NaN square roots, and it refuses fewer sentences than dimensions), the QR's
directions beyond that rank are orthogonal to every activation and weigh 0.
Default `RELEASED_EPSILON` = 1e-10, the value the authors' tutorials pass to `get_cca_similarity` (the code's own
default 0 fails on MiniLM-L6, which has three numerically constant dimensions).
"""

from __future__ import annotations

import numpy as np

from n2o_core.measures.feature_space import FeatureSpace

#: The released PWCCA's epsilon: dimensions whose variance (scaled by the largest covariance entry) is below it
#: are dropped, and it is added to the scaled covariances' diagonals.
RELEASED_EPSILON = 1e-10
#: numpy.linalg.pinv's default cutoff (relative to the largest eigenvalue), which the released code relies on.
PINV_RCOND = 1e-15


def _gram(space: FeatureSpace) -> np.ndarray:
    """Xc^T Xc from the space's eigendecomposition."""
    return (space.evecs * space.svals**2) @ space.evecs.T


def _inverse_sqrt(S: np.ndarray) -> np.ndarray:
    """The symmetric square root of S's pseudo-inverse (numpy's pinv cutoff; negative rounding taken as 0)."""
    lam, V = np.linalg.eigh(S)
    inv = np.zeros_like(lam)
    ok = lam > PINV_RCOND * max(float(np.abs(lam).max(initial=0.0)), 0.0)
    inv[ok] = 1.0 / np.sqrt(lam[ok])
    return (V * inv) @ V.T


def _released_weights(space: FeatureSpace, keep: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """alpha_i = sum_j |<q_i, x_j>| (q: the QR of d_i = Xc u_i + mu_i, x: the uncentered kept dimensions), for
    the rotation `coef` (rows u_i^T over the kept dimensions), in the span of [U, 1]; directions beyond that
    span's dimension (more kept dimensions than the rank of the centered rows plus one) are orthogonal to every
    x_j and weigh 0."""
    SVt = space.svals[:, None] * space.evecs[keep].T
    mean_row = np.sqrt(space.n) * space.mean[keep][None, :]
    Q, _ = np.linalg.qr(np.vstack([SVt @ coef.T, mean_row]))
    alpha = np.abs(Q.T @ np.vstack([SVt, mean_row])).sum(axis=1)
    return np.concatenate([alpha, np.zeros(int(keep.sum()) - alpha.size)])


def pwcca_released_pair(
    a: FeatureSpace, b: FeatureSpace, C: np.ndarray, epsilon: float = RELEASED_EPSILON
) -> tuple[float, float]:
    """(PWCCA_released(A, B), PWCCA_released(B, A)) as google/svcca's `compute_pwcca(A.T, B.T, epsilon)`, from
    the spaces and C = Ac^T Bc (see the module docstring)."""
    Ga, Gb = _gram(a), _gram(b)
    xmax, ymax = float(np.abs(Ga).max()), float(np.abs(Gb).max())
    if not (xmax > 0 and ymax > 0):
        return float("nan"), float("nan")
    Sxx, Syy, Sxy = Ga / xmax, Gb / ymax, C / np.sqrt(xmax * ymax)
    kx, ky = np.abs(np.diag(Sxx)) >= epsilon, np.abs(np.diag(Syy)) >= epsilon
    if not kx.any() or not ky.any():
        return float("nan"), float("nan")
    wx = _inverse_sqrt(Sxx[np.ix_(kx, kx)] + epsilon * np.eye(int(kx.sum())))
    wy = _inverse_sqrt(Syy[np.ix_(ky, ky)] + epsilon * np.eye(int(ky.sum())))
    out = []
    for first, (w1, S12, w2) in enumerate(((wx, Sxy[np.ix_(kx, ky)], wy), (wy, Sxy[np.ix_(kx, ky)].T, wx))):
        u, s, vt = np.linalg.svd(w1 @ (S12 @ w2))
        s = np.abs(s)
        # the side with fewer kept dimensions gives the weights: its rotation is u^T (first argument) or v
        x_side = (kx.sum() <= ky.sum()) if first == 0 else (ky.sum() <= kx.sum())
        if first == 0:
            space, keep, coef = (a, kx, u.T) if x_side else (b, ky, vt)
        else:
            space, keep, coef = (b, ky, u.T) if x_side else (a, kx, vt)
        alpha = _released_weights(space, keep, coef)
        out.append(float(np.sum(alpha * s) / alpha.sum()) if np.isfinite(alpha).all() and alpha.sum() > 0 else np.nan)
    return out[0], out[1]
