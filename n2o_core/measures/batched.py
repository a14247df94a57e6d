"""The feature-space measures, of one value or of many draws at once (permutation nulls, bootstrap resamples), and
threads. Their plain formulas, as the papers state them, are the tests' oracle (tests/measures/reference_formulas.py).

With A (n x da) and B (n x db) two embeddings of the same sentences, Ac and Bc their centered vectors:

- `cka_linear` (Kornblith et al. 2019, "Similarity of neural network representations revisited", ICML): CKA(K, L)
  = HSIC(K, L) / sqrt(HSIC(K, K) HSIC(L, L)) of the linear Gram matrices K = Ac Ac^T, L = Bc Bc^T with the biased
  HSIC_b = tr(KHLH) / (n-1)^2, i.e. ||Ac^T Bc||_F^2 / (||Ac^T Ac||_F ||Bc^T Bc||_F). Unchanged by orthogonal maps
  and isotropic scaling of either side, not by general invertible linear maps.
- `cka_linear_unbiased`: the same with the unbiased HSIC of Song et al. 2012 ("Feature selection via dependence
  maximization", JMLR 13, eq. 5), K~, L~ the Gram matrices with their diagonal set to zero:
  HSIC_u = [tr(K~ L~) + (1^T K~ 1)(1^T L~ 1) / ((n-1)(n-2)) - 2/(n-2) 1^T K~ L~ 1] / (n (n-3)). With k = diag(K),
  l = diag(L) (squared row norms of the centered vectors, whose column sums are 0): tr(K~ L~) = ||Ac^T Bc||_F^2 -
  k.l, 1^T K~ 1 = -sum(k), K~ 1 = -k. Near 0 for unrelated spaces at any n, where the biased one is inflated.
- `procrustes`: the angular shape metric of Williams et al. 2021 ("Generalized shape metrics on neural
  representations", NeurIPS) with orthogonal alignment: theta = arccos(||Ac^T Bc||_* / (||Ac||_F ||Bc||_F)) in
  [0, pi/2], the nuclear norm being the optimum of the orthogonal Procrustes problem (Schönemann 1966). A distance
  (0 = the same shape up to rotation, reflection, translation and isotropic scaling); its similarity is cos(theta).
- `regression_r2`: the share of B's variance a least-squares linear map with intercept from A explains,
  ||P_A Bc||_F^2 / ||Bc||_F^2 (P_A the projection onto the column space of Ac). Asymmetric (B from A); in-sample it
  rises towards 1 as A's rank nears n (d_A / n for unrelated spaces): compare it with its null.
- `svcca` (Raghu et al. 2017, NeurIPS): keep each side's leading singular directions that explain `KEEP_VARIANCE`
  (99%) of its variance and average the min(ka, kb) canonical correlations between the two reduced spaces.
- `pwcca` (Morcos et al. 2018, NeurIPS, their formula): the canonical correlations rho_i of the full (nonzero-
  variance) spaces weighted by how much of A each canonical variate h_i accounts for, alpha_i = sum_j |<h_i, a_j>|
  over A's centered dimensions a_j: sum alpha_i rho_i / sum alpha_i. Asymmetric (weights from A). With nearly as
  many dimensions as sentences CCA finds spurious correlations (all rho near 1): compare with the null. The
  released code's variant is `pwcca_released`.

All are functions of each side's singular basis, Xc = U diag(s) V^T (`feature_space`: U is never formed for the
values) and of M = Ua^T Ub (ra x rb) = diag(sa)^-1 Va^T (Ac^T Bc) Vb diag(sb)^-1 (`feature_space.whitened_cross`,
the per-pair O(n da db) work), so no measure ever holds an n x n matrix:

- ||Ac^T Bc||_F^2 = ||diag(sa) M diag(sb)||_F^2 (linear CKA, both estimators),
- the singular values of Ac^T Bc are those of diag(sa) M diag(sb) (Procrustes),
- R^2(B | A) = ||M diag(sb)||_F^2 / ||Bc||_F^2, and R^2(A | B) = ||diag(sa) M||_F^2 / ||Ac||_F^2,
- SVCCA's canonical correlations are the singular values of M[:ka, :kb], PWCCA's those of M (its canonical
  directions the singular vectors of M, alpha = rowsums |Um^T diag(sa) Va^T|).

A value is one such M (`values`); a permutation p of B's rows is M = Ua^T Ub[p] (`Basis`: U formed on the null's
few rows): for a chunk of T permutations one batched product (T, ra, rb) and batched eigendecompositions
(numpy.linalg on stacked arrays) replace T rounds of per-draw products and decompositions (`pair_values`).

`map_threads` runs independent chunks on `WORKERS` threads, BLAS held to one thread each: the draws are small
matrices (a few hundred wide), where a multi-threaded BLAS on two shared cores spends its time waiting (an
eigendecomposition of a 300 x 300 matrix took 30x longer with OpenBLAS's threads on a loaded machine than with one).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from threadpoolctl import threadpool_limits

from n2o_core.measures.feature_space import FeatureSpace, whitened_cross

Key = tuple[str, str, str]  # (a, b, measure)
T = TypeVar("T")
R = TypeVar("R")

#: Threads for independent draws (at most the machine's cores).
WORKERS = max(1, min(4, os.cpu_count() or 1))
#: Permutations per batched product (T x m x rb float64 per pair: 8 x 1,000 x 384 x 8 bytes = 25 MB).
CHUNK = 8
#: Share of variance the SVD step of SVCCA keeps on each side.
KEEP_VARIANCE = 0.99


def map_threads(
    fn: Callable[[T], R], items: Iterable[T], workers: int = WORKERS, count_done: Callable[[], None] | None = None
) -> list[R]:
    """[fn(x) for x in items] on `workers` threads with a one-thread BLAS, results in order; `count_done()` is
    called in the calling thread as each result is taken (a progress bar's tick: never from a worker)."""
    todo = list(items)
    done = count_done or (lambda: None)
    out: list[R] = []
    with threadpool_limits(limits=1, user_api="blas"):
        if workers <= 1 or len(todo) <= 1:
            for x in todo:
                out.append(fn(x))
                done()
            return out
        with ThreadPoolExecutor(max_workers=workers) as ex:
            for r in ex.map(fn, todo):
                out.append(r)
                done()
    return out


def kept_directions(space: FeatureSpace, keep: float = KEEP_VARIANCE) -> int:
    """Fewest leading singular directions whose variance reaches `keep` of the total (at least 1; 0 without any)."""
    var = space.svals**2
    if var.size == 0:
        return 0
    share = np.cumsum(var) / var.sum()
    return min(int(var.size), int(np.searchsorted(share, keep - 1e-12)) + 1)


@dataclass(frozen=True)
class Side:
    """What the feature-space measures need of one embedder's centered rows Xc = U diag(s) V^T besides U."""

    s: np.ndarray  # (r,) singular values (nonzero), descending
    SVt: np.ndarray  # (r, d) diag(s) V^T: PWCCA's weights are |canonical directions^T SVt|
    row_sq: np.ndarray  # (m,) squared norms of the centered rows
    sq_norm: float  # ||Xc||_F^2
    gram_norm: float  # ||Xc^T Xc||_F
    keep: int  # SVCCA's kept directions (99% of the variance)


@dataclass(frozen=True)
class Basis(Side):
    """A `Side` with its left singular vectors, for the draws: M = Ua^T Ub[p]."""

    U: np.ndarray  # (m, r) left singular vectors of the nonzero singular values, descending


def side(space: FeatureSpace) -> Side:
    """The summaries of `space` (U not formed: a value's M comes from C = Ac^T Bc)."""
    return Side(
        s=space.svals,
        SVt=space.svals[:, None] * space.evecs.T,
        row_sq=space.row_sq,
        sq_norm=space.sq_norm,
        gram_norm=space.gram_norm,
        keep=kept_directions(space),
    )


def basis(space: FeatureSpace, centered: np.ndarray) -> Basis:
    """The basis of `space`, whose centered rows are `centered` (m x d float64)."""
    U = (centered @ space.evecs) / np.where(space.svals > 0, space.svals, 1.0)[None, :]
    sd = side(space)
    return Basis(sd.s, sd.SVt, sd.row_sq, sd.sq_norm, sd.gram_norm, sd.keep, U=np.ascontiguousarray(U))


def _gram(M: np.ndarray) -> np.ndarray:
    """The smaller Gram matrix of each stacked M (T, p, q): M^T M if q <= p, else M M^T."""
    Mt = np.swapaxes(M, 1, 2)
    return Mt @ M if M.shape[2] <= M.shape[1] else M @ Mt


def singular_values_batched(M: np.ndarray) -> np.ndarray:
    """(T, min(p, q)) singular values of each stacked M, descending, from the eigenvalues of its smaller Gram
    matrix (a third of the cost of an SVD)."""
    if M.shape[1] == 0 or M.shape[2] == 0:
        return np.zeros((M.shape[0], 0))
    return np.sqrt(np.clip(np.linalg.eigvalsh(_gram(M)), 0.0, None))[:, ::-1]


def _hsic_u(cross_sq: np.ndarray, kl: np.ndarray, ksum: float, lsum: float, n: int) -> np.ndarray:
    return (cross_sq - kl + ksum * lsum / ((n - 1) * (n - 2)) - 2.0 * kl / (n - 2)) / (n * (n - 3))


def _cka_unbiased(a: Side, b: Side, cross_sq: np.ndarray, kl: np.ndarray) -> np.ndarray:
    n = a.row_sq.size
    ka, kb = float(a.row_sq @ a.row_sq), float(b.row_sq @ b.row_sq)
    kk = float(_hsic_u(np.array(a.gram_norm**2), np.array(ka), a.row_sq.sum(), a.row_sq.sum(), n))
    ll = float(_hsic_u(np.array(b.gram_norm**2), np.array(kb), b.row_sq.sum(), b.row_sq.sum(), n))
    if not kk * ll > 0:
        return np.full(cross_sq.shape, np.nan)
    return _hsic_u(cross_sq, kl, float(a.row_sq.sum()), float(b.row_sq.sum()), n) / float(np.sqrt(kk * ll))


def _weighted(U: np.ndarray, rho: np.ndarray, sd: Side) -> np.ndarray:
    """sum alpha_i rho_i / sum alpha_i per draw, alpha = rowsums |U^T SVt| (U: canonical directions in sd's basis)."""
    alpha = np.abs(np.swapaxes(U, 1, 2) @ sd.SVt).sum(axis=2)
    total = alpha.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.sum(alpha * np.clip(rho, 0.0, 1.0), axis=1) / total
    return np.where(total > 0, out, np.nan)


def _pwcca(a: Side, b: Side, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(PWCCA(A, B), PWCCA(B, A)) per draw from one eigendecomposition of the smaller Gram matrix of M."""
    if a.s.size == 0 or b.s.size == 0:
        nan = np.full(M.shape[0], np.nan)
        return nan, nan
    Mt = np.swapaxes(M, 1, 2)
    if M.shape[1] <= M.shape[2]:  # U from M M^T, V = M^T U / rho
        lam, U = np.linalg.eigh(M @ Mt)
        rho, U = np.sqrt(np.clip(lam, 0.0, None))[:, ::-1], U[:, :, ::-1]
        V = (Mt @ U) / np.where(rho > 0, rho, 1.0)[:, None, :]
    else:  # V from M^T M, U = M V / rho
        lam, V = np.linalg.eigh(Mt @ M)
        rho, V = np.sqrt(np.clip(lam, 0.0, None))[:, ::-1], V[:, :, ::-1]
        U = (M @ V) / np.where(rho > 0, rho, 1.0)[:, None, :]
    return _weighted(U, rho, a), _weighted(V, rho, b)


def pair_values(
    a: Side, b: Side, M: np.ndarray, names: tuple[str, str], measures: Sequence[str], b_row_sq: np.ndarray | None = None
) -> dict[Key, np.ndarray]:
    """Every requested feature-space measure of T draws from M (T, ra, rb) = Ua^T Ub per draw (both orders for
    the asymmetric ones); `b_row_sq` (T, m) are B's squared row norms in each draw's order (a permutation), B's own
    by default. The released code's PWCCA is not among them (`pwcca_released`)."""
    ea, eb = names
    out: dict[Key, np.ndarray] = {}
    W = a.s[None, :, None] * M * b.s[None, None, :]
    cross_sq = np.einsum("tij,tij->t", W, W)
    if "cka_linear" in measures:
        den = a.gram_norm * b.gram_norm
        out[(ea, eb, "cka_linear")] = cross_sq / den if den > 0 else np.full(M.shape[0], np.nan)
    if "cka_linear_unbiased" in measures:
        lb = b.row_sq[None, :] if b_row_sq is None else b_row_sq
        out[(ea, eb, "cka_linear_unbiased")] = _cka_unbiased(a, b, cross_sq, lb @ a.row_sq)
    if "procrustes" in measures:
        den = np.sqrt(a.sq_norm * b.sq_norm)
        if den > 0:
            nuclear = singular_values_batched(W).sum(axis=1) / float(den)
            out[(ea, eb, "procrustes")] = np.arccos(np.clip(nuclear, -1.0, 1.0))
        else:
            out[(ea, eb, "procrustes")] = np.full(M.shape[0], np.nan)
    if "regression_r2" in measures:
        Pb, Pa = M * b.s[None, None, :], a.s[None, :, None] * M
        nan = np.full(M.shape[0], np.nan)
        out[(ea, eb, "regression_r2")] = np.einsum("tij,tij->t", Pb, Pb) / b.sq_norm if b.sq_norm > 0 else nan
        out[(eb, ea, "regression_r2")] = np.einsum("tij,tij->t", Pa, Pa) / a.sq_norm if a.sq_norm > 0 else nan
    if "svcca" in measures:
        if a.keep == 0 or b.keep == 0:
            out[(ea, eb, "svcca")] = np.full(M.shape[0], np.nan)
        else:
            rho = singular_values_batched(np.ascontiguousarray(M[:, : a.keep, : b.keep]))
            out[(ea, eb, "svcca")] = np.clip(rho, 0.0, 1.0).mean(axis=1)
    if "pwcca" in measures:
        out[(ea, eb, "pwcca")], out[(eb, ea, "pwcca")] = _pwcca(a, b, M)
    return out


def values(
    a: FeatureSpace, b: FeatureSpace, C: np.ndarray, names: tuple[str, str], measures: Sequence[str]
) -> dict[Key, float]:
    """Every requested measure of `pair_values` for one pair, from the spaces and C = Ac^T Bc (one draw: M =
    `whitened_cross(a, b, C)`)."""
    M = whitened_cross(a, b, C)[None]
    return {key: float(v[0]) for key, v in pair_values(side(a), side(b), M, names, measures).items()}
