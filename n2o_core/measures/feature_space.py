"""What every feature-space measure needs from one embedder's vectors, computed once per embedder.

Linear CKA (both estimators), orthogonal Procrustes, linear regression, SVCCA and PWCCA of two embedders A (n x da)
and B (n x db) are all functions of

- the centered cross-product C = Ac^T Bc (da x db, the only per-pair O(n da db) work),
- per embedder: ||Ac||_F^2 = tr(K), ||Ac^T Ac||_F = ||K||_F (K = Ac Ac^T the linear Gram matrix, never formed),
  the squared row norms diag(K), and the eigendecomposition Ac^T Ac = V S^2 V^T (S the singular values of Ac,
  V its right singular vectors; the left ones are U = Ac V S^-1, never formed either).

So no measure of this family ever holds an n x n matrix: the cost is O(n d^2) per embedder and O(n da db) per
pair. Products run in float64 over row blocks, centering each block as it is read (a float32 or float16 memory
map is never copied whole). Singular values below `RANK_TOL` x the largest are treated as zero (rank-deficient
vectors, e.g. fewer sentences than dimensions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from n2o_core.errors import N2OError

#: Rows per block of the float64 products.
BLOCK_ROWS = 8192
#: Singular values below this fraction of the largest count as zero.
RANK_TOL = 1e-6


@dataclass(frozen=True)
class FeatureSpace:
    """One embedder's vectors on a set of sentences, centered, with what the feature-space measures need."""

    X: np.ndarray  # (n, d) as given (any float dtype, maybe a memory map); centered on the fly
    mean: np.ndarray  # (d,) float64 column means
    sq_norm: float  # ||Xc||_F^2 = tr(K)
    gram_norm: float  # ||Xc^T Xc||_F = ||K||_F
    row_sq: np.ndarray  # (n,) float64 squared norms of the centered rows, diag(K)
    evecs: np.ndarray  # (d, r) right singular vectors of Xc with a nonzero singular value, descending
    svals: np.ndarray  # (r,) those singular values, descending

    @property
    def n(self) -> int:
        """Number of sentences (rows)."""
        return int(self.X.shape[0])

    @property
    def dim(self) -> int:
        """Number of dimensions (columns)."""
        return int(self.X.shape[1])

    def centered(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The centered float64 rows (all, or `rows`): materialized, so meant for small row sets."""
        X = self.X if rows is None else self.X[np.asarray(rows)]
        return np.asarray(X, np.float64) - self.mean


def _check(X: np.ndarray, name: str = "vectors") -> np.ndarray:
    if not isinstance(X, np.ndarray):
        raise N2OError(
            f"The {name} must be a dense NumPy array (got {type(X).__name__}); sparse tf-idf enters through its "
            "truncated SVD (n2o_core.measures.run.dense_view)."
        )
    if X.ndim != 2:
        raise N2OError(f"The {name} must be 2-D (sentences x dimensions), not of shape {X.shape}.")
    if X.shape[0] < 4:
        raise N2OError(f"The similarity measures need at least 4 sentences (got {X.shape[0]}).")
    if X.shape[1] < 1:
        raise N2OError(f"The {name} have no dimensions.")
    return X


def _blocks(n: int, block: int = BLOCK_ROWS) -> range:
    return range(0, n, block)


def feature_space(X: np.ndarray) -> FeatureSpace:
    """Center X (n x d) and compute its summaries in float64, O(n d^2), in row blocks."""
    X = _check(X)
    n, d = X.shape
    total = np.zeros(d)
    for s in _blocks(n):
        total += np.asarray(X[s : s + BLOCK_ROWS], np.float64).sum(axis=0)
    mean = total / n
    G = np.zeros((d, d))
    row_sq = np.empty(n)
    for s in _blocks(n):
        Xb = np.asarray(X[s : s + BLOCK_ROWS], np.float64) - mean
        G += Xb.T @ Xb
        row_sq[s : s + len(Xb)] = np.einsum("ij,ij->i", Xb, Xb)
    if not np.all(np.isfinite(G)):
        raise N2OError("The vectors contain NaN or infinite values.")
    lam, V = np.linalg.eigh(G)
    lam, V = lam[::-1], V[:, ::-1]
    lam = np.clip(lam, 0.0, None)
    svals = np.sqrt(lam)
    keep = svals > RANK_TOL * (svals[0] if svals.size and svals[0] > 0 else 1.0)
    keep &= svals > 0
    return FeatureSpace(
        X=X,
        mean=mean,
        sq_norm=float(np.trace(G)),
        gram_norm=float(np.linalg.norm(G)),
        row_sq=row_sq,
        evecs=np.ascontiguousarray(V[:, keep]),
        svals=svals[keep],
    )


def check_pair(a: FeatureSpace, b: FeatureSpace) -> None:
    """Both spaces must hold the same sentences (same row count)."""
    if a.n != b.n:
        raise N2OError(f"The two embeddings have {a.n} and {b.n} rows: they must embed the same sentences.")


def cross(a: FeatureSpace, b: FeatureSpace) -> np.ndarray:
    """C = Ac^T Bc (da x db, float64), accumulated over row blocks."""
    check_pair(a, b)
    C = np.zeros((a.dim, b.dim))
    for s in _blocks(a.n):
        Ab = np.asarray(a.X[s : s + BLOCK_ROWS], np.float64) - a.mean
        Bb = np.asarray(b.X[s : s + BLOCK_ROWS], np.float64) - b.mean
        C += Ab.T @ Bb
    return C


def whitened_cross(a: FeatureSpace, b: FeatureSpace, C: np.ndarray) -> np.ndarray:
    """Ua^T Ub = S_a^-1 V_a^T C V_b S_b^-1 from C = Ac^T Bc (the cosines of the principal angles between the two
    column spaces are its singular values)."""
    return (a.evecs.T @ C @ b.evecs) / a.svals[:, None] / b.svals[None, :]
