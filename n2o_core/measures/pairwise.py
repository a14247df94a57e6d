"""The kernel measures, RBF CKA and RSA, from sentence-pair matrices of each embedder built in row blocks
(`engine.KernelFamily` computes their values, nulls and bootstrap from them; the plain formulas are the tests'
oracle, tests/measures/reference_formulas.py).

- `cka_rbf` (Kornblith et al. 2019): CKA with the biased HSIC of RBF kernels K_ij = exp(-||x_i - x_j||^2 /
  (2 sigma^2)), sigma = `RBF_FRACTION` (0.5) x the median distance between the sentences: <HKH, HLH>_F /
  (||HKH||_F ||HLH||_F) (`rbf_cka`). Unchanged by orthogonal maps, translations and (its bandwidth following the
  median distance) isotropic scaling.
- `rsa_pearson`, `rsa_spearman` (Kriegeskorte et al. 2008, "Representational similarity analysis", Front. Syst.
  Neurosci.): the Pearson / Spearman correlation (ties at their mean rank, as scipy.stats.spearmanr) of the two
  embedders' cosine distances 1 - cos(x_i, x_j) over the pairs i < j (`tri_correlation`). Unchanged by anything
  that keeps cosines (rotations, scaling; not translations), RSA Spearman by any monotone map of the distances.
  PyPI offers rsatoolbox (many dependencies, its own data classes) and repsim / netrep (PyTorch or older); each
  formula is a few lines of NumPy here.

A `PairwiseSpace` holds, for n sentences, only the strict upper triangles it needs, as flat float32 vectors of
n(n-1)/2 values in row-major order (pair (i, j), i < j, at i*n - i*(i+1)/2 + j - i - 1):

- `rbf`: the doubly centered RBF kernel HKH, K_ij = exp(-||x_i - x_j||^2 / (2 sigma^2)), its diagonal kept apart
  (`rbf_diag`); sigma = `RBF_FRACTION` x the median Euclidean distance between the n sentences (taken as the square
  root of the median squared distance).
- `dist`: cosine distances 1 - cos(x_i, x_j), centered and scaled to unit norm (so the Pearson correlation of two
  embedders' distances is one dot product); a zero vector has cosine 0 with everything.
- `rank`: the average ranks (ties share their mean rank) of those distances, centered and scaled the same way
  (Spearman = Pearson of the ranks).

Each triangle costs 2 n^2 bytes: never a dense n x n float64 matrix, let alone two. The n x n products are
computed one block of `BLOCK_ROWS` rows at a time, upper half only, one Gram product for every triangle. Ranks
come from a radix sort of the float32 distances. Dot products of two triangles accumulate in float64 over
chunks. `DenseKernels` holds the same matrices densely (float64) for a small row set: the permutation null and
the bootstrap of these measures are drawn on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from n2o_core.errors import N2OError

#: RBF bandwidth sigma as a fraction of the median distance between sentences (Kornblith et al. 2019 report
#: fractions 0.2-0.8 of the median; 0.5 is in the middle of that range).
RBF_FRACTION = 0.5
#: Rows per block of the n x n products.
BLOCK_ROWS = 512
#: Values per chunk of the float64-accumulated dot products.
DOT_CHUNK = 1 << 20
#: Largest row count whose triangles are built (3 x 2 n^2 bytes per embedder: 600 MB at 10,000).
MAX_ROWS = 10_000


def tri_size(n: int) -> int:
    """Number of pairs i < j among n sentences."""
    return n * (n - 1) // 2


def tri_offsets(n: int) -> np.ndarray:
    """(n + 1,) start of row i's segment (pairs (i, j), j > i) in the flat triangle; the last entry is the size."""
    i = np.arange(n + 1, dtype=np.int64)
    return i * n - i * (i + 1) // 2


def tri_dot(u: np.ndarray, v: np.ndarray) -> float:
    """sum(u * v) of two flat float32 triangles, accumulated in float64 chunk by chunk."""
    if u.shape != v.shape:
        raise N2OError(f"Pairwise triangles differ in size: {u.shape} vs {v.shape} (different sentence counts).")
    total = 0.0
    for s in range(0, u.size, DOT_CHUNK):
        total += float(np.dot(u[s : s + DOT_CHUNK].astype(np.float64), v[s : s + DOT_CHUNK].astype(np.float64)))
    return total


def _center_scale(v: np.ndarray) -> float:
    """Center a flat float32 vector in place and scale it to unit norm; returns its norm before scaling (0: it
    was constant and stays all zeros)."""
    mean = sum(float(v[s : s + DOT_CHUNK].astype(np.float64).sum()) for s in range(0, v.size, DOT_CHUNK)) / max(
        v.size, 1
    )
    v -= np.float32(mean)
    norm = float(np.sqrt(tri_dot(v, v)))
    if norm > 0:
        v /= np.float32(norm)
    return norm


def _float32_order(v: np.ndarray) -> np.ndarray:
    """A stable argsort of a float32 vector by two stable 16-bit radix passes (NumPy sorts 16-bit integers by
    radix, O(n)) over the order-preserving unsigned view of the floats: the same order as
    np.argsort(v, kind="stable") (NaN aside), in about half the time of a comparison sort of 12.5M values."""
    u = v.view(np.uint32)
    u = np.where(u >> np.uint32(31), ~u, u | np.uint32(0x80000000))  # float order = unsigned order (-0 < +0)
    low = np.argsort((u & np.uint32(0xFFFF)).astype(np.uint16), kind="stable")
    high = np.argsort((u[low] >> np.uint32(16)).astype(np.uint16), kind="stable")
    return low[high]


def average_ranks(v: np.ndarray, dtype: type[np.floating] = np.float64) -> np.ndarray:
    """0-based ranks of v with ties sharing their mean rank (as scipy.stats.rankdata, minus one), as `dtype`
    (float32 halves the memory of 12.5M ranks: the mean ranks are rounded to it as they are written)."""
    # tied values get their mean rank whatever their order among themselves
    fast = v.dtype == np.float32 and v.ndim == 1
    order = _float32_order(np.ascontiguousarray(v)) if fast else np.argsort(v)
    sv = v[order]
    starts = np.flatnonzero(np.r_[True, sv[1:] != sv[:-1]])
    del sv
    ends = np.r_[starts[1:], v.size]
    ranks = np.empty(v.size, dtype)
    ranks[order] = np.repeat(((starts + ends - 1) / 2.0).astype(dtype), ends - starts)
    return ranks


def _dense(X: np.ndarray) -> np.ndarray:
    if not isinstance(X, np.ndarray) or X.ndim != 2:
        raise N2OError("The kernel measures take a dense 2-D array (sentences x dimensions).")
    if X.shape[0] < 4:
        raise N2OError(f"The similarity measures need at least 4 sentences (got {X.shape[0]}).")
    if X.shape[0] > MAX_ROWS:
        raise N2OError(
            f"The kernel measures (RBF CKA, RSA) hold n^2 values per embedder: {X.shape[0]:,} sentences are more "
            f"than {MAX_ROWS:,}; draw them on a subsample."
        )
    A = np.asarray(X, np.float64)
    if not np.all(np.isfinite(A)):
        raise N2OError("The vectors contain NaN or infinite values.")
    return A


def unit_rows(A: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm; a zero row stays zero."""
    norms = np.linalg.norm(A, axis=1)
    return A / np.where(norms > 0, norms, 1.0)[:, None]


def _fill_triangles(A: np.ndarray, makers: list[Callable[[np.ndarray, int, int], np.ndarray]]) -> list[np.ndarray]:
    """Flat strict upper triangles of n x n matrices built from the Gram matrix A A^T, one per maker: row block
    [s, e) of the Gram matrix's columns s.. (the only ones above the diagonal), G = A[s:e] A[s:]^T, goes to
    `maker(G, s, e)`, whose (e - s) x (n - s) block is copied row by row. One product serves every triangle,
    and only the upper half of it is computed."""
    n = A.shape[0]
    outs = [np.empty(tri_size(n), np.float32) for _ in makers]
    off = tri_offsets(n)
    for s in range(0, n, BLOCK_ROWS):
        e = min(n, s + BLOCK_ROWS)
        G = A[s:e] @ A[s:].T
        for out, maker in zip(outs, makers, strict=True):
            M = maker(G, s, e)
            for i in range(s, e):
                out[off[i] : off[i + 1]] = M[i - s, i - s + 1 :]
    return outs


def _sq_maker(A: np.ndarray) -> Callable[[np.ndarray, int, int], np.ndarray]:
    sq = np.einsum("ij,ij->i", A, A)
    return lambda G, s, e: np.maximum(sq[s:e, None] + sq[None, s:] - 2.0 * G, 0)


def _cos_maker(A: np.ndarray) -> Callable[[np.ndarray, int, int], np.ndarray]:
    norms = np.linalg.norm(A, axis=1)
    inv = np.where(norms > 0, 1.0 / np.where(norms > 0, norms, 1.0), 0.0)  # a zero vector: cosine 0
    return lambda G, s, e: 1.0 - G * inv[s:e, None] * inv[None, s:]


def squared_distances(A: np.ndarray) -> np.ndarray:
    """Flat strict upper triangle of squared Euclidean distances (float32)."""
    return _fill_triangles(A, [_sq_maker(A)])[0]


def median_sigma(sq_tri: np.ndarray, fraction: float = RBF_FRACTION) -> float:
    """RBF bandwidth: `fraction` x sqrt(median squared distance); 1.0 when every distance is 0."""
    med = float(np.median(sq_tri)) if sq_tri.size else 0.0
    return fraction * np.sqrt(med) if med > 0 else 1.0


def _row_col_sums(tri: np.ndarray, n: int) -> np.ndarray:
    """Sum of each row of the symmetric matrix with zero diagonal whose strict upper triangle is `tri`."""
    off = tri_offsets(n)
    sums = np.zeros(n)
    for i in range(n - 1):
        seg = tri[off[i] : off[i + 1]].astype(np.float64)
        sums[i] += seg.sum()
        sums[i + 1 :] += seg
    return sums


def _center_kernel(tri: np.ndarray, diag: np.ndarray) -> tuple[np.ndarray, float]:
    """Doubly center (HKH) the symmetric kernel (strict upper triangle `tri`, diagonal `diag`) in place; returns
    the centered diagonal and ||HKH||_F^2."""
    n = diag.size
    off = tri_offsets(n)
    row = (_row_col_sums(tri, n) + diag) / n
    grand = float(row.mean())
    for i in range(n - 1):
        seg = tri[off[i] : off[i + 1]]
        seg += (grand - row[i] - row[i + 1 :]).astype(np.float32)
    cdiag = diag - 2.0 * row + grand
    return cdiag, 2.0 * tri_dot(tri, tri) + float(cdiag @ cdiag)


@dataclass
class PairwiseSpace:
    """Triangles of one embedder on n sentences; None where not asked for."""

    n: int
    sigma: float | None = None
    rbf: np.ndarray | None = None
    rbf_diag: np.ndarray | None = None
    rbf_sq_norm: float = 0.0  # ||HKH||_F^2
    dist: np.ndarray | None = None
    rank: np.ndarray | None = None

    def nbytes(self) -> int:
        """Memory held by the triangles."""
        return sum(int(t.nbytes) for t in (self.rbf, self.dist, self.rank) if t is not None)


def pairwise_space(
    X: np.ndarray, *, rbf: bool = True, dist: bool = True, rank: bool = True, fraction: float = RBF_FRACTION
) -> PairwiseSpace:
    """Build the triangles asked for (see the module docstring)."""
    A = _dense(X)
    n = A.shape[0]
    out = PairwiseSpace(n)
    makers = ([_sq_maker(A)] if rbf else []) + ([_cos_maker(A)] if dist or rank else [])
    tris = _fill_triangles(A, makers) if makers else []
    if rbf:
        tri = tris.pop(0)
        out.sigma = median_sigma(tri, fraction)
        for s in range(0, tri.size, DOT_CHUNK):
            np.exp(tri[s : s + DOT_CHUNK] * np.float32(-0.5 / out.sigma**2), out=tri[s : s + DOT_CHUNK])
        out.rbf_diag, out.rbf_sq_norm = _center_kernel(tri, np.ones(n))
        out.rbf = tri
    if dist or rank:
        d = tris.pop(0)
        if rank:
            r = average_ranks(d, np.float32) if d.size else np.zeros(0, np.float32)
            _center_scale(r)
            out.rank = r
        if dist:
            _center_scale(d)
            out.dist = d
    return out


def rbf_cka(a: PairwiseSpace, b: PairwiseSpace) -> float:
    """Biased-HSIC CKA of the two RBF kernels: <HKH, HLH>_F / (||HKH||_F ||HLH||_F)."""
    if a.rbf is None or b.rbf is None or a.rbf_diag is None or b.rbf_diag is None:
        raise N2OError("RBF triangles were not built.")
    den = np.sqrt(a.rbf_sq_norm * b.rbf_sq_norm)
    if den <= 0:
        return float("nan")
    return (2.0 * tri_dot(a.rbf, b.rbf) + float(a.rbf_diag @ b.rbf_diag)) / float(den)


def tri_correlation(u: np.ndarray | None, v: np.ndarray | None) -> float:
    """Pearson correlation of two centered unit-norm triangles (nan when one is constant)."""
    if u is None or v is None:
        raise N2OError("RSA triangles were not built.")
    if not (np.any(u) and np.any(v)):
        return float("nan")
    return tri_dot(u, v)


# --------------------------------------------------------------------------- dense matrices of a small row set


def center_gram(K: np.ndarray) -> np.ndarray:
    """HKH of a square matrix (H = I - 11^T/n)."""
    return K - K.mean(axis=0)[None, :] - K.mean(axis=1)[:, None] + K.mean()


def _offdiag_unit(M: np.ndarray) -> np.ndarray:
    """Off-diagonal entries centered and scaled so that the full sum of squares is 1; zero diagonal."""
    n = M.shape[0]
    off = ~np.eye(n, dtype=bool)
    out = np.zeros_like(M)
    out[off] = M[off] - M[off].mean()
    norm = np.sqrt(np.sum(out * out))
    return out / norm if norm > 0 else out


@dataclass(frozen=True)
class DenseKernels:
    """Dense (m x m, float64) matrices of one embedder on m sentences, for nulls and bootstraps."""

    K: np.ndarray  # RBF kernel, uncentered
    Kc: np.ndarray  # HKH scaled to unit Frobenius norm
    D: np.ndarray  # cosine distances, zero diagonal
    Dc: np.ndarray  # off-diagonal distances centered, unit norm, zero diagonal
    R: np.ndarray  # average ranks of the off-diagonal distances (symmetric), zero diagonal
    Rc: np.ndarray  # ranks centered, unit norm, zero diagonal


def dense_kernels(X: np.ndarray, sigma: float) -> DenseKernels:
    """The dense matrices of X's rows; `sigma` the RBF bandwidth (the one its kernel sample used)."""
    A = _dense(X)
    m = A.shape[0]
    sq = np.einsum("ij,ij->i", A, A)
    K = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2.0 * (A @ A.T), 0) / (2.0 * sigma**2))
    Kc = center_gram(K)
    nk = np.linalg.norm(Kc)
    U = unit_rows(A)
    D = 1.0 - U @ U.T
    np.fill_diagonal(D, 0.0)
    iu = np.triu_indices(m, 1)
    R = np.zeros((m, m))
    R[iu] = average_ranks(D[iu])
    R = R + R.T
    return DenseKernels(K, Kc / nk if nk > 0 else Kc, D, _offdiag_unit(D), R, _offdiag_unit(R))
