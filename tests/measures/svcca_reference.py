"""A test oracle: PWCCA as the authors' released code computes it (google/svcca, `cca_core.get_cca_similarity`
and `pwcca.compute_pwcca`, Apache-2.0), restated step by step on (dimensions x sentences) arrays, with the same
operations in the same order (numpy's cov, pinv, eigh and SVD, its epsilon, its rescaling and its choice of side),
so that its output is the released code's. Written for the tests; the production version is
`n2o_core.measures.cca.pwcca_released`.

Notes on the released code kept here as they are:
- `epsilon` (default 0 in `compute_pwcca`) drops the dimensions whose rescaled variance is below it and is added to
  the rescaled covariances' diagonals;
- `threshold` (0.98 in `get_cca_similarity`) only trims the unweighted mean it also reports; PWCCA does not use it;
- the weights come from the side with fewer kept dimensions (the first on a tie): its rotation (u^T or v, without
  the inverse square root) applied to its centered activations, each dimension's mean added to the direction of
  the same index, orthonormalized by QR; the weights are the absolute projections of the *uncentered* activations.
  (One published version reads the first side's activations in the second side's branch, which fails on a shape
  mismatch whenever that branch runs with different dimensions; the second side's activations are used here, as
  in the later version.)
"""

from __future__ import annotations

import numpy as np


def _sqrt_of_psd(M: np.ndarray) -> np.ndarray:
    """The released code's matrix square root: eigh, square roots of the eigenvalues (NaN for a negative one)."""
    w, v = np.linalg.eigh(M)
    return np.dot(v, np.dot(np.diag(np.sqrt(w)), np.conj(v).T))


def released_cca(acts1: np.ndarray, acts2: np.ndarray, epsilon: float = 0.0) -> dict:
    """What `get_cca_similarity(acts1, acts2, epsilon, compute_coefs=True)` returns that PWCCA reads."""
    assert acts1.shape[1] == acts2.shape[1] and acts1.shape[0] < acts1.shape[1]
    nx = acts1.shape[0]
    cov = np.cov(acts1, acts2)
    sxx, sxy, syx, syy = cov[:nx, :nx], cov[:nx, nx:], cov[nx:, :nx], cov[nx:, nx:]
    xmax, ymax = np.max(np.abs(sxx)), np.max(np.abs(syy))
    sxx = sxx / xmax
    syy = syy / ymax
    sxy = sxy / np.sqrt(xmax * ymax)
    syx = syx / np.sqrt(xmax * ymax)
    # remove_small: dimensions whose rescaled variance is below epsilon
    x_idxs = np.abs(np.diagonal(sxx)) >= epsilon
    y_idxs = np.abs(np.diagonal(syy)) >= epsilon
    sxx = sxx[x_idxs][:, x_idxs]
    sxy = sxy[x_idxs][:, y_idxs]
    syy = syy[y_idxs][:, y_idxs]
    # compute_ccas
    sxx = sxx + epsilon * np.eye(sxx.shape[0])
    syy = syy + epsilon * np.eye(syy.shape[0])
    invsqrt_xx = _sqrt_of_psd(np.linalg.pinv(sxx))
    invsqrt_yy = _sqrt_of_psd(np.linalg.pinv(syy))
    u, s, v = np.linalg.svd(np.dot(invsqrt_xx, np.dot(sxy, invsqrt_yy)))
    return {
        "coef_x": u.T,
        "coef_y": v,
        "cca_coef1": np.abs(s),
        "cca_coef2": np.abs(s),
        "x_idxs": x_idxs,
        "y_idxs": y_idxs,
        "neuron_means1": np.mean(acts1, axis=1, keepdims=True),
        "neuron_means2": np.mean(acts2, axis=1, keepdims=True),
    }


def released_pwcca(acts1: np.ndarray, acts2: np.ndarray, epsilon: float = 0.0) -> tuple[float, np.ndarray, np.ndarray]:
    """`compute_pwcca(acts1, acts2, epsilon)`: (weighted mean, weights, canonical correlations); arrays are
    (dimensions x sentences), as the released code takes them."""
    r = released_cca(acts1, acts2, epsilon)
    if np.sum(r["x_idxs"]) <= np.sum(r["y_idxs"]):
        coef, acts, idxs, means, coefs = r["coef_x"], acts1, r["x_idxs"], r["neuron_means1"], r["cca_coef1"]
    else:
        coef, acts, idxs, means, coefs = r["coef_y"], acts2, r["y_idxs"], r["neuron_means2"], r["cca_coef2"]
    dirns = np.dot(coef, acts[idxs] - means[idxs]) + means[idxs]
    P, _ = np.linalg.qr(dirns.T)
    weights = np.sum(np.abs(np.dot(P.T, acts[idxs].T)), axis=1)
    weights = weights / np.sum(weights)
    return float(np.sum(weights * coefs)), weights, coefs
