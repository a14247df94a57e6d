"""Centered kernel alignment (CKA) and representational similarity analysis (RSA).

Linear CKA (Kornblith et al. 2019, "Similarity of neural network representations revisited", ICML), with
K = Ac Ac^T and L = Bc Bc^T the linear Gram matrices of the centered vectors:

    CKA(K, L) = HSIC(K, L) / sqrt(HSIC(K, K) HSIC(L, L))

- `cka_linear`: the biased estimator HSIC_b = tr(KHLH) / (n-1)^2, which for linear kernels is
  ||Ac^T Bc||_F^2 / (n-1)^2, so CKA = ||Ac^T Bc||_F^2 / (||Ac^T Ac||_F ||Bc^T Bc||_F): computed in feature space,
  O(n d^2), never an n x n matrix (`n2o_core.measures.feature_space`).
- `cka_linear_unbiased`: the unbiased estimator of Song et al. 2012 ("Feature selection via dependence
  maximization", JMLR 13, eq. 5), with K~, L~ the Gram matrices with their diagonal set to zero:

      HSIC_u = [tr(K~ L~) + (1^T K~ 1)(1^T L~ 1) / ((n-1)(n-2)) - 2/(n-2) 1^T K~ L~ 1] / (n (n-3))

  In feature space, with k = diag(K) and l = diag(L) (squared row norms of the centered vectors, whose column sums
  are 0): tr(K~ L~) = ||Ac^T Bc||_F^2 - k.l, 1^T K~ 1 = -sum(k), K~ 1 = -k, so again O(n d^2).
  It is invariant to translating either side (tested), and near 0 for unrelated spaces at any n, where the biased
  estimator is inflated at small n.
- `cka_rbf`: biased-HSIC CKA of RBF kernels, bandwidth sigma = RBF_FRACTION (0.5) x the median distance between
  the sentences (`n2o_core.measures.pairwise`). O(n^2 d), computed in row blocks; meant for a subsample.

RSA (Kriegeskorte et al. 2008, "Representational similarity analysis", Front. Syst. Neurosci.): the
representational dissimilarity matrix of each embedder is its cosine distances 1 - cos(x_i, x_j) between
sentences (a zero vector has cosine 0 with everything); `rsa_pearson` / `rsa_spearman` correlate the two matrices'
upper triangles (i < j), Spearman with ties given their mean rank (as scipy.stats.spearmanr).

Invariances: linear CKA is unchanged by any orthogonal transform and any isotropic scaling of either side (not
by general invertible linear maps), RBF CKA by orthogonal maps and translations (its bandwidth follows the
median distance, so also by isotropic scaling), RSA by anything that keeps cosines (rotations, scaling; not
translations), and RSA Spearman by any monotone map of the distances.

Library choice: PyPI offers rsatoolbox (RSA; many dependencies and its own data classes) and repsim / netrep
(PyTorch or older); each formula here is a few lines of NumPy, so they are written out and tested against the
plain definitions instead of adding a dependency.
"""

from __future__ import annotations

import numpy as np

from n2o_core.errors import N2OError
from n2o_core.measures.feature_space import FeatureSpace, cross, feature_space
from n2o_core.measures.pairwise import RBF_FRACTION, average_ranks, pairwise_space, rbf_cka, tri_correlation


def hsic_biased(K: np.ndarray, L: np.ndarray) -> float:
    """tr(KHLH) / (n-1)^2 of two n x n kernel matrices (dense; the reference formula)."""
    n = K.shape[0]
    H = np.eye(n) - 1.0 / n
    return float(np.trace(K @ H @ L @ H)) / (n - 1) ** 2


def hsic_unbiased(K: np.ndarray, L: np.ndarray) -> float:
    """Song et al. 2012, eq. 5, of two n x n kernel matrices (n >= 4; dense; the reference formula)."""
    n = K.shape[0]
    if n < 4:
        raise N2OError(f"The unbiased HSIC needs at least 4 sentences (got {n}).")
    Kt = K - np.diag(np.diag(K))
    Lt = L - np.diag(np.diag(L))
    value = np.sum(Kt * Lt.T) + Kt.sum() * Lt.sum() / ((n - 1) * (n - 2)) - 2.0 * np.sum(Kt @ Lt) / (n - 2)
    return float(value) / (n * (n - 3))


def cka_gram(K: np.ndarray, L: np.ndarray, unbiased: bool = False) -> float:
    """CKA of two kernel matrices with the chosen HSIC estimator (dense; the reference formula)."""
    h = hsic_unbiased if unbiased else hsic_biased
    den = h(K, K) * h(L, L)
    return h(K, L) / float(np.sqrt(den)) if den > 0 else float("nan")


# --------------------------------------------------------------------------- feature space


def cka_linear_from(a: FeatureSpace, b: FeatureSpace, C: np.ndarray) -> float:
    """Biased linear CKA from the spaces and C = Ac^T Bc."""
    den = a.gram_norm * b.gram_norm
    return float(np.sum(C * C)) / den if den > 0 else float("nan")


def _hsic_u_features(cross_sq: float, k: np.ndarray, l: np.ndarray, n: int) -> float:  # noqa: E741
    kl = float(k @ l)
    return (cross_sq - kl + float(k.sum()) * float(l.sum()) / ((n - 1) * (n - 2)) - 2.0 * kl / (n - 2)) / (n * (n - 3))


def cka_linear_unbiased_from(
    a: FeatureSpace, b: FeatureSpace, C: np.ndarray, b_row_sq: np.ndarray | None = None
) -> float:
    """Unbiased linear CKA from the spaces and C; `b_row_sq` replaces b's squared row norms (a permutation)."""
    n = a.n
    lb = b.row_sq if b_row_sq is None else b_row_sq
    kl = _hsic_u_features(float(np.sum(C * C)), a.row_sq, lb, n)
    kk = _hsic_u_features(a.gram_norm**2, a.row_sq, a.row_sq, n)
    ll = _hsic_u_features(b.gram_norm**2, b.row_sq, b.row_sq, n)
    return kl / float(np.sqrt(kk * ll)) if kk * ll > 0 else float("nan")


def cka_linear(A: np.ndarray, B: np.ndarray) -> float:
    """Linear CKA (biased HSIC) of two embeddings of the same n sentences, in [0, 1]; 1 for the same space."""
    a, b = feature_space(A), feature_space(B)
    return cka_linear_from(a, b, cross(a, b))


def cka_linear_unbiased(A: np.ndarray, B: np.ndarray) -> float:
    """Linear CKA with the unbiased HSIC estimator (Song et al. 2012); near 0 for unrelated spaces, can be < 0."""
    a, b = feature_space(A), feature_space(B)
    return cka_linear_unbiased_from(a, b, cross(a, b))


# --------------------------------------------------------------------------- pairwise (O(n^2))


def cka_rbf(A: np.ndarray, B: np.ndarray, fraction: float = RBF_FRACTION) -> float:
    """CKA (biased HSIC) of RBF kernels, sigma = `fraction` x the median distance of each side's sentences."""
    return rbf_cka(
        pairwise_space(A, dist=False, rank=False, fraction=fraction),
        pairwise_space(B, dist=False, rank=False, fraction=fraction),
    )


def rsa_pearson(A: np.ndarray, B: np.ndarray) -> float:
    """Pearson correlation of the two cosine-distance matrices' upper triangles."""
    a = pairwise_space(A, rbf=False, rank=False)
    b = pairwise_space(B, rbf=False, rank=False)
    return tri_correlation(a.dist, b.dist)


def rsa_spearman(A: np.ndarray, B: np.ndarray) -> float:
    """Spearman correlation of the two cosine-distance matrices' upper triangles (ties: mean rank)."""
    a = pairwise_space(A, rbf=False, dist=False)
    b = pairwise_space(B, rbf=False, dist=False)
    return tri_correlation(a.rank, b.rank)


def rsa_from_distances(da: np.ndarray, db: np.ndarray, method: str = "spearman") -> float:
    """RSA of two condensed dissimilarity vectors (the upper triangles, e.g. scipy's pdist): Spearman (ties at
    their mean rank) or Pearson correlation. The vector functions above equal this on cosine distances."""
    x, y = np.asarray(da, np.float64).ravel(), np.asarray(db, np.float64).ravel()
    if x.shape != y.shape or x.size < 2:
        raise N2OError(f"Two dissimilarity vectors of the same length (>= 2) are needed, not {x.shape} and {y.shape}.")
    if method == "spearman":
        x, y = average_ranks(x), average_ranks(y)
    elif method != "pearson":
        raise N2OError(f"RSA method must be 'spearman' or 'pearson' (got {method!r}).")
    x, y = x - x.mean(), y - y.mean()
    den = float(np.sqrt((x @ x) * (y @ y)))
    return float(x @ y) / den if den > 0 else float("nan")
