"""The derived transforms of a variant (`@dims`, `@pca`, `@int8`, `@binary`): pure functions of a float32 matrix.

- `truncate_dims(X, n)`: the first n dimensions, each row rescaled to the L2 norm of its full vector (Matryoshka
  truncation: a unit vector stays a unit vector; with n = all dimensions the rows are returned unchanged).
- `PcaProjection.fit(X, n)` / `.project(X)`: scikit-learn's PCA (centred, as scikit-learn and faiss apply it),
  fitted on the compared corpus's vectors.
- `int8_ranges(calibration)` / `quantize_int8(X, ranges)`: per-dimension [min, max] of the calibration vectors cut
  into 256 buckets, exactly as sentence-transformers' `quantize_embeddings(X, "int8", calibration_embeddings=...)`.
- `pack_signs(X)`: one bit per dimension, set where the value is > 0, packed 8 to a byte (big-endian, as
  `numpy.packbits`): sentence-transformers' `quantize_embeddings(X, "ubinary")`.
- `VariantTransform.fit(X, variant)`: a variant's transforms in pipeline order (reduction, then precision),
  fitted on the compared corpus, for the corpus and for free-text queries alike; `derive_vectors(X, variant)`
  applies it to the corpus as a `Derived`. Rows with no direction (all zero after the reduction) are kept in
  `Derived.zero`: the searches rank them last and give them no neighbors, as exact search does; in an int8
  variant their codes are set to zero (their only departure from sentence-transformers' codes).

A variant of a variant is the composed transform: `derive_vectors(derive_vectors(X, a).vectors, b)` equals
`derive_vectors(X, a + b)` for a reduction a followed by a precision b, each fitted on the corpus it is given
(tests/variants/test_transforms.py).
The blocks below only bound temporary memory; every value is computed as the one-shot formula computes it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from n2o_core.errors import N2OError
from n2o_core.variants.spec import Precision, Variant, parse_variant

#: Rows per block of the elementwise transforms (bounds their float32 temporaries).
_BLOCK = 1 << 16


def _dense_f32(X: np.ndarray) -> np.ndarray:
    """X as a 2-D float32 array (float16 widened exactly); N2OError for anything else."""
    if not isinstance(X, np.ndarray) or X.ndim != 2:
        raise N2OError("Variants are derived from dense vectors (one row per sentence); sparse tf-idf has none.")
    if not np.issubdtype(X.dtype, np.floating):
        raise N2OError(f"Variants are derived from float vectors, not {X.dtype} (quantize once, from the floats).")
    return np.asarray(X, np.float32)


def zero_rows(X: np.ndarray) -> np.ndarray:
    """Boolean mask of the all-zero rows of X (sentences with nothing to embed: no direction)."""
    out = np.empty(X.shape[0], bool)
    for s in range(0, X.shape[0], _BLOCK):
        out[s : s + _BLOCK] = ~np.asarray(X[s : s + _BLOCK]).any(axis=1)
    return out


def truncate_dims(X: np.ndarray, n: int) -> np.ndarray:
    """The first n dimensions of every row, rescaled to the L2 norm of the full row (zero rows stay zero)."""
    X = _dense_f32(X)
    d = X.shape[1]
    if not 1 <= n <= d:
        raise N2OError(f"@dims={n} asks for more dimensions than the vectors have ({d}).")
    if n == d:
        return X.copy()
    out = np.empty((X.shape[0], n), np.float32)
    for s in range(0, X.shape[0], _BLOCK):
        b = np.asarray(X[s : s + _BLOCK], np.float64)
        full = np.sqrt(np.einsum("ij,ij->i", b, b))
        head = b[:, :n]
        part = np.sqrt(np.einsum("ij,ij->i", head, head))
        scale = np.divide(full, part, out=np.zeros_like(full), where=part > 0)
        out[s : s + _BLOCK] = head * scale[:, None]
    return out


@dataclass(frozen=True)
class PcaProjection:
    """A PCA fitted on the compared corpus: x -> (x - mean) @ components.T (scikit-learn's convention)."""

    mean: np.ndarray  # (d,) float32
    components: np.ndarray  # (n, d) float32, by decreasing explained variance

    @classmethod
    def fit(cls, X: np.ndarray, n: int) -> PcaProjection:
        """scikit-learn's PCA with n components on the rows of X (the eigenvectors of the covariance)."""
        from sklearn.decomposition import PCA

        X = _dense_f32(X)
        rows, d = X.shape
        if not 1 <= n <= min(rows, d):
            raise N2OError(
                f"@pca={n} asks for more components than {rows} vectors of {d} dimensions have (at most "
                f"{min(rows, d)})."
            )
        pca = PCA(n_components=n, svd_solver="covariance_eigh").fit(X)
        return cls(pca.mean_.astype(np.float32), pca.components_.astype(np.float32))

    def project(self, X: np.ndarray) -> np.ndarray:
        """The rows projected on the components (float32); all-zero rows stay zero (no direction)."""
        X = _dense_f32(X)
        out = np.empty((X.shape[0], self.components.shape[0]), np.float32)
        for s in range(0, X.shape[0], _BLOCK):
            b = np.asarray(X[s : s + _BLOCK])
            p = (b - self.mean) @ self.components.T
            p[~b.any(axis=1)] = 0.0
            out[s : s + _BLOCK] = p
        return out


def int8_ranges(calibration: np.ndarray) -> np.ndarray:
    """(2, d) float32: each dimension's minimum and maximum over the calibration vectors (the compared corpus)."""
    C = _dense_f32(calibration)
    if C.shape[0] < 2:
        raise N2OError("int8 quantization needs at least two calibration vectors for its ranges.")
    lo = np.full(C.shape[1], np.inf, np.float32)
    hi = np.full(C.shape[1], -np.inf, np.float32)
    for s in range(0, C.shape[0], _BLOCK):
        b = np.asarray(C[s : s + _BLOCK])
        np.minimum(lo, b.min(axis=0), out=lo)
        np.maximum(hi, b.max(axis=0), out=hi)
    return np.vstack((lo, hi))


def quantize_int8(X: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """int8 codes: floor((x - min) / step) clipped to 0..255, minus 128, with step = (max - min) / 255 per
    dimension (1 where max = min), in float32 -- sentence-transformers' arithmetic, value for value."""
    X = _dense_f32(X)
    ranges = np.asarray(ranges, np.float32)
    if ranges.shape != (2, X.shape[1]):
        raise N2OError(f"int8 ranges have shape {ranges.shape}; the vectors have {X.shape[1]} dimensions.")
    starts = ranges[0, :]
    steps = (ranges[1, :] - starts) / 255
    steps = np.where(steps == 0, 1, steps)
    out = np.empty(X.shape, np.int8)
    for s in range(0, X.shape[0], _BLOCK):
        q = np.clip(np.floor((np.asarray(X[s : s + _BLOCK]) - starts) / steps), 0, 255)
        out[s : s + _BLOCK] = (q - 128).astype(np.int8)
    return out


def pack_signs(X: np.ndarray) -> np.ndarray:
    """(n, ceil(d / 8)) uint8: bit j of a row is set where x_j > 0, packed big-endian (`numpy.packbits`)."""
    X = _dense_f32(X)
    out = np.empty((X.shape[0], (X.shape[1] + 7) // 8), np.uint8)
    for s in range(0, X.shape[0], _BLOCK):
        out[s : s + _BLOCK] = np.packbits(np.asarray(X[s : s + _BLOCK]) > 0, axis=-1)
    return out


def unpack_signs(bits: np.ndarray, dim: int) -> np.ndarray:
    """The ±1 sign vectors (float32, (n, dim)) of packed bits: +1 where a bit is set, -1 where it is not."""
    b = np.unpackbits(np.asarray(bits, np.uint8), axis=-1, count=dim)
    return (2.0 * b - 1.0).astype(np.float32)


@dataclass
class Derived:
    """A variant's vectors as its search reads them.

    vectors: float32 (n, dim) for a float variant, int8 (n, dim) codes, or uint8 (n, ceil(dim / 8)) packed bits;
    dim: the dimensions (bits for binary); zero: rows with no direction (all zero after the reduction);
    floats: for `@rescore`, the float32 vectors the bits were made from (the rescoring's query side);
    transform: the fitted transform, for query vectors from outside the corpus."""

    variant: Variant
    vectors: np.ndarray
    precision: Precision
    dim: int
    zero: np.ndarray
    transform: VariantTransform
    floats: np.ndarray | None = None

    @property
    def nbytes_per_vector(self) -> int:
        return int(self.vectors.shape[1] * self.vectors.dtype.itemsize)


@dataclass(frozen=True)
class VariantTransform:
    """A derived variant's transforms, fitted on the compared corpus's vectors: the reduction (dims, or a PCA
    fitted on them), then the precision (int8 with ranges from the reduced corpus vectors, or sign bits). Apply it
    to the corpus, or to query vectors of the same source (free text), alike."""

    variant: Variant
    dim: int  # the source vectors' dimensions
    pca: PcaProjection | None = None
    ranges: np.ndarray | None = None  # (2, reduced dim) float32, for int8

    @classmethod
    def fit(cls, X: np.ndarray, variant: Variant | str) -> VariantTransform:
        """Fitted on X, the source's vectors of the compared corpus (one row per sentence)."""
        v = variant if isinstance(variant, Variant) else parse_variant(variant)
        X = _dense_f32(X)
        if v.dims is not None and v.dims > X.shape[1]:
            truncate_dims(X[:0], v.dims)  # the error, before any work
        t = cls(v, X.shape[1], PcaProjection.fit(X, v.pca) if v.pca is not None else None)
        if v.precision != "int8":
            return t
        return replace(t, ranges=int8_ranges(t.reduce(X)))

    def reduce(self, X: np.ndarray) -> np.ndarray:
        """The float32 vectors after the reduction (a copy of X when the variant has none)."""
        X = _dense_f32(X)
        if X.shape[1] != self.dim:
            raise N2OError(f"These vectors have {X.shape[1]} dimensions; the variant was fitted on {self.dim}.")
        if self.variant.dims is not None:
            return truncate_dims(X, self.variant.dims)
        if self.pca is not None:
            return self.pca.project(X)
        return X.copy()

    def quantize(self, R: np.ndarray) -> np.ndarray:
        """Reduced vectors R at the variant's precision: float32 unchanged, int8 codes (all-zero rows stay zero:
        no direction) or packed sign bits."""
        if self.variant.precision == "int8":
            assert self.ranges is not None
            codes = quantize_int8(R, self.ranges)
            codes[zero_rows(R)] = 0
            return codes
        if self.variant.precision == "binary":
            return pack_signs(R)
        return R

    def apply(self, X: np.ndarray) -> np.ndarray:
        """X's vectors in the variant: reduced, then quantized."""
        return self.quantize(self.reduce(X))


def derive_vectors(X: np.ndarray, variant: Variant | str) -> Derived:
    """The vectors of a derived variant from its source's float vectors X (one row per sentence of the compared
    corpus, which the PCA and the int8 ranges are fitted on). The model parts (layer, pool) are the source's
    (`Variant.source`): they are not applied here."""
    t = VariantTransform.fit(X, variant)
    v = t.variant
    R = t.reduce(X)
    zero = zero_rows(R)
    floats = R if v.precision == "binary" and v.rescore is not None else None
    return Derived(v, t.quantize(R), v.precision, R.shape[1], zero, t, floats)
