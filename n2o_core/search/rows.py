"""Rows ready for cosine by dot product: L2 normalization, z-normalization (`Standardizer`) and its sparse,
factored form (`ZNormRows`); `prepare_rows` picks the right one.

- Cosine similarity of L2-normalized rows. Zero vectors (a sentence with no in-vocabulary token) have no
  direction: they stay zero and are reported in a mask, so the search ranks them after every real candidate and
  gives a zero-vector query no neighbors.
- z-normalization (Eger et al., *Pitfalls*; `Standardizer`): each dimension is standardized over the corpus,
  z = (x - mean) / std (a constant dimension, std 0, is only centred), then rows are L2-normalized. A raw all-zero
  row stays zero (it has no direction; standardizing would give every such sentence the same vector -mean/std),
  and a row equal to the mean on every dimension standardizes to zero: both follow the zero-vector rule above.
- Sparse rows (tf-idf, CSR with |V| columns) are z-normalized without densifying (`ZNormRows`): with
  Y = X D (D = diag(1/std)) and m = D mean, z_i = y_i - m, so z_i . z_j = y_i . y_j - y_i . m - y_j . m + m . m:
  one sparse product plus a rank-2 correction. Exact search, free-text queries, the Dask shards and approximate
  search (a custom pynndescent metric) all use it; results equal densifying, standardizing and searching.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import scipy.sparse as sp
from numpy.typing import DTypeLike

from n2o_core.errors import N2OError


@dataclass(frozen=True)
class Standardizer:
    """Per-dimension standardization applied before L2 normalization (z-normalization, Eger et al.)."""

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray | sp.spmatrix, block: int = 65536) -> Standardizer:
        """Mean and std per dimension over the corpus: in blocks for dense X, by column sums for sparse X
        (float64 accumulators either way; an all-zero row counts like any other row)."""
        n, d = X.shape
        if sp.issparse(X):
            C = sp.csr_matrix(X)
            if not C.has_canonical_format:
                C = C.copy()
                C.sum_duplicates()
            v = C.data.astype(np.float64)
            s = np.bincount(C.indices, weights=v, minlength=d)
            ss = np.bincount(C.indices, weights=v * v, minlength=d)
        else:
            s = np.zeros(d, np.float64)
            ss = np.zeros(d, np.float64)
            for i in range(0, n, block):
                b = np.asarray(X[i : i + block], dtype=np.float64)
                s += b.sum(0)
                ss += (b * b).sum(0)
        mean = s / max(n, 1)
        var = np.maximum(ss / max(n, 1) - mean * mean, 0.0)
        std = np.sqrt(var)
        std[std < 1e-12] = 1.0  # constant dimension: leave unscaled
        return cls(mean.astype(np.float32), (1.0 / std).astype(np.float32))


@dataclass(frozen=True)
class ZNormRows:
    """Sparse rows, z-normalized and L2-normalized, kept factored (never densified).

    Row i stands for the dense unit vector u_i = y_i - inv_i m, where `y` holds the raw row scaled per dimension
    and by inv_i = 1 / ||z_i|| (CSR, the raw sparsity), m = mean / std (dense), t_i = y_i . m and c = m . m.
    Then u_i . u_j = y_i . y_j - t_i inv_j - inv_i t_j + c inv_i inv_j. Zero rows have inv = t = 0 and an empty y.
    """

    y: sp.csr_matrix
    inv: np.ndarray  # (n,) float64
    t: np.ndarray  # (n,) float64
    m: np.ndarray  # (d,) float64
    c: float

    @property
    def shape(self) -> tuple[int, int]:
        return self.y.shape

    def __len__(self) -> int:
        return self.y.shape[0]

    def __getitem__(self, rows: Any) -> ZNormRows:
        return ZNormRows(self.y[rows], self.inv[rows], self.t[rows], self.m, self.c)

    def dot(self, other: ZNormRows) -> np.ndarray:
        """Dense (len(self), len(other)) cosines, in y's dtype: the sparse product plus a rank-2 correction."""
        S = np.asarray((self.y @ other.y.T).toarray())
        a = np.stack([self.inv, -self.t], axis=1).astype(S.dtype)
        b = np.stack([self.c * other.inv - other.t, other.inv], axis=1).astype(S.dtype)
        S += a @ b.T
        return S

    def dot_pairs(self, other: ZNormRows, pos: np.ndarray) -> np.ndarray:
        """Cosine of row r with other row pos[r, j], shape pos.shape, computed elementwise (no BLAS), so the
        value of a pair does not depend on which other rows are in the batch."""
        P = np.asarray((self.y @ other.y.T).toarray(), dtype=np.float64)
        sc = np.take_along_axis(P, pos, 1)
        oi, ot = other.inv[pos], other.t[pos]
        return sc + self.inv[:, None] * (self.c * oi - ot) - self.t[:, None] * oi

    def rowwise(self, other: ZNormRows) -> np.ndarray:
        """Cosine of row i of self with row i of other (float64)."""
        p = np.asarray(self.y.multiply(other.y).sum(axis=1), dtype=np.float64).ravel()
        return p + self.inv * (self.c * other.inv - other.t) - self.t * other.inv

    def sum(self, axis: int = 0) -> np.ndarray:
        """Sum of the unit rows, a dense (d,) float64 vector."""
        if axis != 0:
            raise ValueError("ZNormRows.sum only sums rows (axis=0).")
        return np.asarray(self.y.sum(axis=0), dtype=np.float64).ravel() - self.inv.sum() * self.m

    def augmented(self) -> sp.csr_matrix:
        """float32 CSR [inv, t, sqrt(c) inv | y] (3 + d columns), the input of `zcos_distance` (pynndescent)."""
        n = len(self)
        extra = np.stack([self.inv, self.t, np.sqrt(self.c) * self.inv], axis=1)
        head = sp.csr_matrix((extra.ravel(), np.tile(np.arange(3), n), np.arange(0, 3 * n + 1, 3)), shape=(n, 3))
        return sp.csr_matrix(sp.hstack([head, self.y], format="csr"), dtype=np.float32)


def znorm_sparse(
    block: sp.spmatrix, standardizer: Standardizer, dtype: DTypeLike = np.float32
) -> tuple[ZNormRows, np.ndarray]:
    """z-normalized, L2-normalized sparse rows (factored, see `ZNormRows`) and their zero mask.

    Computed in float64 (y stored as `dtype`). A row is zero when its raw values are all zero or it equals the
    (float32) mean on every dimension, as in the dense path. ||z_i||^2 = sum over stored j of (y_ij - m_j)^2 plus
    c - sum over stored j of m_j^2 (the unstored dimensions), which avoids cancelling large terms.
    """
    X = sp.csr_matrix(block)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    n, d = X.shape
    if standardizer.mean.shape[0] != d:
        raise N2OError(f"The standardizer has {standardizer.mean.shape[0]} dimensions, the vectors {d}.")
    mu = standardizer.mean.astype(np.float64)
    scale = standardizer.scale.astype(np.float64)
    m = mu * scale
    c = float(m @ m)
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    x = X.data.astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise N2OError("The vectors contain NaN or infinite values.")
    col = X.indices
    y = x * scale[col]
    mc = m[col]
    t = np.bincount(rows, weights=y * mc, minlength=n)
    own = np.bincount(rows, weights=(y - mc) ** 2, minlength=n)
    rest = np.maximum(c - np.bincount(rows, weights=mc * mc, minlength=n), 0.0)
    norm2 = own + rest
    zero_raw = np.bincount(rows[x != 0], minlength=n) == 0
    # equal to the mean everywhere: every stored value matches it, and every dimension with a nonzero mean is stored
    mismatch = np.bincount(rows[x != mu[col]], minlength=n) + (
        np.count_nonzero(mu) - np.bincount(rows[mu[col] != 0], minlength=n)
    )
    zero = zero_raw | (mismatch == 0) | ~(norm2 > 0)
    inv = np.where(zero, 0.0, 1.0 / np.sqrt(np.where(zero, 1.0, norm2)))
    Y = sp.csr_matrix((y * inv[rows], X.indices.copy(), X.indptr.copy()), shape=(n, d), dtype=dtype)
    return ZNormRows(Y, inv, np.where(zero, 0.0, t * inv), m, c), zero


#: Rows as `prepare_rows` hands them out: dense, CSR, or z-normalized sparse rows in factored form.
PreparedRows: TypeAlias = "np.ndarray | sp.csr_matrix | ZNormRows"


def normalize_rows(block: np.ndarray, standardizer: Standardizer | None = None) -> tuple[np.ndarray, np.ndarray]:
    """float32 L2-normalized copy of `block` and a mask of its zero rows (which stay zero)."""
    if standardizer is not None:
        raw = np.asarray(block)
        zero_raw = ~np.any(raw != 0, axis=1)
        b = (raw.astype(np.float32) - standardizer.mean) * standardizer.scale
        b[zero_raw] = 0.0
    else:
        b = np.asarray(block, dtype=np.float32)
    norms = np.sqrt(np.einsum("ij,ij->i", b, b, dtype=np.float64))
    if not np.all(np.isfinite(norms)):
        raise N2OError("The vectors contain NaN or infinite values.")
    zero = norms == 0
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=~zero).astype(np.float32)
    return np.multiply(b, inv[:, None], dtype=np.float32), zero


def _normalize_sparse(block: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
    b = sp.csr_matrix(block, dtype=np.float32, copy=True)
    norms = np.sqrt(np.asarray(b.multiply(b).sum(axis=1)).ravel())
    zero = norms == 0
    inv = np.zeros_like(norms)
    inv[~zero] = 1.0 / norms[~zero]
    return sp.csr_matrix(sp.diags(inv.astype(np.float32)) @ b), zero


def prepare_rows(
    block: np.ndarray | sp.spmatrix, standardizer: Standardizer | None = None, dtype: DTypeLike = np.float32
) -> tuple[PreparedRows, np.ndarray]:
    """Rows ready for cosine by dot product, and their zero mask (zero rows stay zero; see the module docstring).

    dtype float32 is what the search scans (`normalize_rows` for dense rows); float64 is the exact re-scoring.
    Dense rows give an array, sparse rows a CSR matrix, or `ZNormRows` when sparse rows are z-normalized.
    """
    if sp.issparse(block) and standardizer is not None:
        return znorm_sparse(block, standardizer, dtype)
    if np.dtype(dtype) == np.float32:
        if sp.issparse(block):
            return _normalize_sparse(block)
        return normalize_rows(block, standardizer)
    if sp.issparse(block):
        b = sp.csr_matrix(block, dtype=np.float64, copy=True)
        norms = np.sqrt(np.asarray(b.multiply(b).sum(axis=1)).ravel())
        zero = norms == 0
        inv = np.where(zero, 0.0, 1.0 / np.where(zero, 1.0, norms))
        return sp.csr_matrix(sp.diags(inv) @ b), zero
    b = np.array(block, dtype=np.float64, copy=True)
    zero = ~np.any(b != 0, axis=1)
    if standardizer is not None:
        b -= standardizer.mean.astype(np.float64)
        b *= standardizer.scale.astype(np.float64)
        b[zero] = 0.0
    norms = np.sqrt(np.einsum("ij,ij->i", b, b))
    nz = norms > 0
    b[nz] /= norms[nz, None]
    return b, zero | ~nz


def row_scores(Q: PreparedRows, Xb: PreparedRows) -> np.ndarray:
    """Dense (len(Q), len(Xb)) cosines of two sets of prepared rows (float32 for sparse rows)."""
    if isinstance(Q, ZNormRows):
        assert isinstance(Xb, ZNormRows)
        return Q.dot(Xb)
    assert not isinstance(Xb, ZNormRows)
    if sp.issparse(Q) or sp.issparse(Xb):
        S: Any = Q @ Xb.T
        return np.asarray(S.toarray() if sp.issparse(S) else S, dtype=np.float32)
    return Q @ Xb.T
