"""The tests' oracle: every similarity measure by its plain formula, as its paper states it, one pair and one value
at a time (dense n x n matrices where the definition has them), and the permutation null and the bootstrap by
computing the measure again on each seeded draw. The production code (`n2o_core.measures.engine`, the one
implementation) computes the same values another way — in feature space, in each side's singular basis, from
neighbor lists, many draws at once — and the tests hold it to these on fixed cases. benchmarks/bench_measures.py
times them as its plain baseline.

`REFERENCE[measure](A, B, k)` is the value for the ordered pair (a, b) of two embeddings A (n x da), B (n x db) of the
same sentences (k: neighbors, for the neighborhood measures only); the conventions are the engine's: cosine
neighbors, the query excluded, ties to the lower id; the feature-space and kernel measures center the vectors in
their formula; an asymmetric measure's (a, b) is regression R² of B from A, PWCCA weighted from A, CKNNA(A, B).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.spatial.distance import pdist, squareform
from scipy.stats import pearsonr, spearmanr
from svcca_reference import released_pwcca

from n2o_core.measures.nulls import permutations, resamples

#: RBF bandwidth: this fraction of the median distance between the sentences (Kornblith et al. 2019).
RBF_FRACTION = 0.5
#: SVCCA keeps each side's leading singular directions up to this share of its variance (Raghu et al. 2017).
KEEP_VARIANCE = 0.99
#: Singular values below this fraction of the largest count as zero (rank-deficient vectors).
RANK_TOL = 1e-6
#: The epsilon the released PWCCA is called with (the authors' tutorials' value).
RELEASED_EPSILON = 1e-10

Reference = Callable[..., float]


def center(X: np.ndarray) -> np.ndarray:
    """The columns centered, in float64."""
    X = np.asarray(X, np.float64)
    return X - X.mean(axis=0)


# --------------------------------------------------------------------------- HSIC and CKA (Kornblith et al. 2019)


def hsic(K: np.ndarray, L: np.ndarray, unbiased: bool = False) -> float:
    """HSIC of two n x n kernel matrices. Biased: tr(K H L H) / (n-1)^2 = <HKH, L> / (n-1)^2 (H = I - 11^T/n).
    Unbiased (Song et al. 2012, eq. 5), with K~, L~ the matrices with their diagonal set to zero:
    [tr(K~ L~) + (1^T K~ 1)(1^T L~ 1) / ((n-1)(n-2)) - 2/(n-2) 1^T K~ L~ 1] / (n (n-3))."""
    n = K.shape[0]
    if not unbiased:
        Kc = K - K.mean(0)[None, :] - K.mean(1)[:, None] + K.mean()
        return float(np.sum(Kc * L)) / (n - 1) ** 2
    Kt, Lt = K - np.diag(np.diag(K)), L - np.diag(np.diag(L))
    s = np.sum(Kt * Lt.T) + Kt.sum() * Lt.sum() / ((n - 1) * (n - 2)) - 2 * (Kt.sum(0) @ Lt.sum(1)) / (n - 2)
    return float(s) / (n * (n - 3))


def cka(K: np.ndarray, L: np.ndarray, unbiased: bool = False) -> float:
    """CKA(K, L) = HSIC(K, L) / sqrt(HSIC(K, K) HSIC(L, L))."""
    return hsic(K, L, unbiased) / float(np.sqrt(hsic(K, K, unbiased) * hsic(L, L, unbiased)))


def cka_linear(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """CKA of the linear Gram matrices of the centered vectors, biased HSIC."""
    Ac, Bc = center(A), center(B)
    return cka(Ac @ Ac.T, Bc @ Bc.T)


def cka_linear_unbiased(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """CKA of the linear Gram matrices of the centered vectors, unbiased HSIC."""
    Ac, Bc = center(A), center(B)
    return cka(Ac @ Ac.T, Bc @ Bc.T, unbiased=True)


def rbf_sigma(X: np.ndarray, fraction: float = RBF_FRACTION) -> float:
    """The RBF bandwidth: fraction x sqrt(the median squared distance over the pairs i < j); 1 if it is 0."""
    med = float(np.median(pdist(np.asarray(X, np.float64), "sqeuclidean")))
    return fraction * float(np.sqrt(med)) if med > 0 else 1.0


def rbf_kernel(X: np.ndarray, sigma: float | None = None) -> np.ndarray:
    """exp(-||x_i - x_j||^2 / (2 sigma^2)), sigma = `rbf_sigma(X)` unless given."""
    s = rbf_sigma(X) if sigma is None else sigma
    return np.exp(-squareform(pdist(np.asarray(X, np.float64), "sqeuclidean")) / (2.0 * s**2))


def cka_rbf(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """CKA (biased HSIC) of the two RBF kernels."""
    return cka(rbf_kernel(A), rbf_kernel(B))


# --------------------------------------------------------------------------- RSA (Kriegeskorte et al. 2008)


def cosine_distances(X: np.ndarray) -> np.ndarray:
    """1 - cos(x_i, x_j) over the pairs i < j (a zero vector has cosine 0 with everything)."""
    X = np.asarray(X, np.float64)
    norms = np.linalg.norm(X, axis=1)
    U = X / np.where(norms > 0, norms, 1.0)[:, None]
    return (1.0 - U @ U.T)[np.triu_indices(len(X), 1)]


def rsa_spearman(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """Spearman correlation of the two embedders' cosine distances (ties at their mean rank)."""
    return float(spearmanr(cosine_distances(A), cosine_distances(B))[0])


def rsa_pearson(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """Pearson correlation of the two embedders' cosine distances."""
    return float(pearsonr(cosine_distances(A), cosine_distances(B))[0])


# --------------------------------------------------------------------------- shape and linear predictability


def procrustes(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """The angular shape distance of Williams et al. 2021: arccos(||Ac^T Bc||_* / (||Ac||_F ||Bc||_F)), the nuclear
    norm being the best orthogonal alignment max_Q tr(Ac^T Bc Q) (Schönemann 1966)."""
    Ac, Bc = center(A), center(B)
    nuclear = np.linalg.svd(Ac.T @ Bc, compute_uv=False).sum() / (np.linalg.norm(Ac) * np.linalg.norm(Bc))
    return float(np.arccos(min(1.0, nuclear)))


def regression_r2(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """R^2 of B predicted from A by least squares with an intercept: 1 - ||residual||^2 / ||Bc||^2."""
    design = np.c_[np.ones(len(A)), np.asarray(A, np.float64)]
    coef, *_ = np.linalg.lstsq(design, np.asarray(B, np.float64), rcond=None)
    return float(1 - ((B - design @ coef) ** 2).sum() / (center(B) ** 2).sum())


# --------------------------------------------------------------------------- canonical correlations


def left_basis(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(U, s) of the centered vectors' thin SVD, directions with a singular value below RANK_TOL x the largest
    dropped."""
    U, s, _ = np.linalg.svd(center(X), full_matrices=False)
    keep = s > RANK_TOL * s[0]
    return U[:, keep], s[keep]


def svcca(A: np.ndarray, B: np.ndarray, k: int = 10, keep: float = KEEP_VARIANCE) -> float:
    """Raghu et al. 2017: each side's leading singular directions up to `keep` of its variance, then the mean
    canonical correlation (the singular values of Ua^T Ub, clipped to [0, 1]) of the two reduced spaces."""
    (Ua, sa), (Ub, sb) = left_basis(A), left_basis(B)
    ka = int(np.searchsorted(np.cumsum(sa**2) / np.sum(sa**2), keep - 1e-12)) + 1
    kb = int(np.searchsorted(np.cumsum(sb**2) / np.sum(sb**2), keep - 1e-12)) + 1
    return float(np.clip(np.linalg.svd(Ua[:, :ka].T @ Ub[:, :kb], compute_uv=False), 0.0, 1.0).mean())


def pwcca(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """Morcos et al. 2018 (the paper's formula): canonical correlations rho_i of the two spaces weighted by how much
    of A each canonical variate h_i = Ua u_i accounts for, alpha_i = sum_j |<h_i, a_j>| over A's centered
    dimensions: sum alpha_i rho_i / sum alpha_i."""
    (Ua, _), (Ub, _) = left_basis(A), left_basis(B)
    Um, rho, _ = np.linalg.svd(Ua.T @ Ub, full_matrices=False)
    alpha = np.abs((Ua @ Um).T @ center(A)).sum(axis=1)
    return float(np.sum(alpha * np.clip(rho, 0.0, 1.0)) / alpha.sum())


def pwcca_released(A: np.ndarray, B: np.ndarray, k: int = 10, epsilon: float = RELEASED_EPSILON) -> float:
    """PWCCA as the authors' released code computes it (svcca_reference: its steps restated)."""
    return released_pwcca(np.asarray(A, np.float64).T, np.asarray(B, np.float64).T, epsilon)[0]


# --------------------------------------------------------------------------- neighborhoods (Huh et al. 2024)


def cosine_kernel(X: np.ndarray) -> np.ndarray:
    """cos(x_i, x_j) for every two sentences."""
    X = np.asarray(X, np.float64)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    return U @ U.T


def knn_sets(X: np.ndarray, k: int) -> list[set[int]]:
    """Each sentence's k nearest neighbors by cosine, itself excluded, ties to the lower id."""
    S = cosine_kernel(X)
    np.fill_diagonal(S, -np.inf)
    return [set(row[:k].tolist()) for row in np.argsort(-S, axis=1, kind="stable")]


def mutual_knn(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """Mean over sentences of |NN_A(i) ∩ NN_B(i)| / k: N2O with every sentence a query."""
    return float(np.mean([len(x & y) / k for x, y in zip(knn_sets(A, k), knn_sets(B, k), strict=True)]))


def jaccard_knn(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """Mean over sentences of |NN_A(i) ∩ NN_B(i)| / |NN_A(i) ∪ NN_B(i)|."""
    return float(np.mean([len(x & y) / len(x | y) for x, y in zip(knn_sets(A, k), knn_sets(B, k), strict=True)]))


def cknna(A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
    """CKA restricted to the pairs near in both spaces: the cosine kernels masked to j in NN_A(i) ∩ NN_B(i), the
    unbiased HSIC of the masked kernels as they are (the authors' platonic-rep code), normalized by each kernel
    masked with its own k-NN: HSIC_u(K~, L~) / sqrt(HSIC_u(K~_A, K~_A) HSIC_u(L~_B, L~_B))."""
    K, L = cosine_kernel(A), cosine_kernel(B)
    sa, sb = knn_sets(A, k), knn_sets(B, k)

    def mask(s1: list[set[int]], s2: list[set[int]]) -> np.ndarray:
        M = np.zeros(K.shape)
        for i, (x, y) in enumerate(zip(s1, s2, strict=True)):
            M[i, sorted(x & y)] = 1.0
        return M

    mab, maa, mbb = mask(sa, sb), mask(sa, sa), mask(sb, sb)
    both = hsic(mab * K, mab * L, unbiased=True)
    return both / float(np.sqrt(hsic(maa * K, maa * K, unbiased=True) * hsic(mbb * L, mbb * L, unbiased=True)))


#: Every measure id's plain formula, fn(A, B, k).
REFERENCE: dict[str, Reference] = {
    "mutual_knn": mutual_knn,
    "jaccard_knn": jaccard_knn,
    "cknna": cknna,
    "cka_linear": cka_linear,
    "cka_linear_unbiased": cka_linear_unbiased,
    "cka_rbf": cka_rbf,
    "rsa_spearman": rsa_spearman,
    "rsa_pearson": rsa_pearson,
    "procrustes": procrustes,
    "regression_r2": regression_r2,
    "svcca": svcca,
    "pwcca": pwcca,
    "pwcca_released": pwcca_released,
}


# --------------------------------------------------------------------------- nulls, by recomputation


def permutation_null(
    measure: str, A: np.ndarray, B: np.ndarray, count: int, seed: int = 0, stream: int = 1, k: int = 10
) -> np.ndarray:
    """The measure with B's rows shuffled by each of the seeded permutations (`nulls.permutations`)."""
    fn = REFERENCE[measure]
    return np.array([fn(A, B[p], k) for p in permutations(len(A), count, seed, stream)])


def bootstrap_values(
    measure: str, A: np.ndarray, B: np.ndarray, count: int, seed: int = 0, stream: int = 3, k: int = 10
) -> np.ndarray:
    """The measure on each seeded resample of the sentences (`nulls.resamples`), both sides resampled alike."""
    fn = REFERENCE[measure]
    return np.array([fn(A[d], B[d], k) for d in resamples(len(A), count, seed, stream)])


def query_bootstrap(
    measure: str, A: np.ndarray, B: np.ndarray, count: int, seed: int = 0, stream: int = 3, k: int = 10
) -> np.ndarray:
    """mutual_knn or jaccard_knn over each seeded resample of the queries: the per-sentence overlaps of the lists
    of every sentence, averaged over the resampled sentences (a neighborhood measure's bootstrap resamples its
    queries; the neighbors stay those among every sentence)."""
    sa, sb = knn_sets(A, k), knn_sets(B, k)
    if measure == "mutual_knn":
        per = np.array([len(x & y) / k for x, y in zip(sa, sb, strict=True)])
    else:
        per = np.array([len(x & y) / len(x | y) for x, y in zip(sa, sb, strict=True)])
    return np.array([per[d].mean() for d in resamples(len(A), count, seed, stream)])
