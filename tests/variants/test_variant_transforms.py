"""The derived transforms: int8 and binary equal sentence-transformers' `quantize_embeddings` on the same input,
`@dims=D` is the base, truncation and PCA do what they say, and a variant of a variant is the composed transform."""

from __future__ import annotations

import numpy as np
import pytest

import n2o_core.variants.transforms as tf
from n2o_core.errors import N2OError
from n2o_core.variants.spec import derive, parse_variant
from n2o_core.variants.transforms import derive_vectors


@pytest.fixture(scope="module")
def vectors():
    """Embedding-like rows: unit-norm, correlated dimensions, a few exact zeros and a duplicate."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((600, 48)).astype(np.float32) @ rng.standard_normal((48, 48)).astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X[::50, 3] = 0.0  # exact zeros: sign bit 0, as sentence-transformers' "> 0"
    X[7] = X[3]
    return X


@pytest.fixture(scope="module")
def st_quantize():
    quantization = pytest.importorskip("sentence_transformers.util.quantization")
    return quantization.quantize_embeddings


def test_int8_equals_sentence_transformers(vectors, st_quantize):
    calibration = vectors[:400]
    want = st_quantize(vectors, precision="int8", calibration_embeddings=calibration)
    got = tf.quantize_int8(vectors, tf.int8_ranges(calibration))
    assert got.dtype == np.int8 and want.dtype == np.int8
    np.testing.assert_array_equal(got, want)
    assert len(np.unique(got)) > 200  # the codes use the int8 range, not a few buckets


def test_int8_variant_is_calibrated_on_the_compared_corpus(vectors, st_quantize):
    d = derive_vectors(vectors, "x@int8")
    np.testing.assert_array_equal(d.vectors, st_quantize(vectors, precision="int8", calibration_embeddings=vectors))
    assert d.precision == "int8" and d.dim == 48 and d.nbytes_per_vector == 48


def test_int8_of_a_constant_dimension_matches_too(st_quantize):
    X = np.random.default_rng(1).standard_normal((50, 6)).astype(np.float32)
    X[:, 2] = 0.25  # max = min: step 1, as sentence-transformers sets it
    np.testing.assert_array_equal(
        tf.quantize_int8(X, tf.int8_ranges(X)), st_quantize(X, precision="int8", calibration_embeddings=X)
    )


def test_binary_equals_sentence_transformers_ubinary(vectors, st_quantize):
    for X in (vectors, vectors[:, :45]):  # 48 dims: 6 whole bytes; 45 dims: the last byte padded
        want = st_quantize(X, precision="ubinary")
        got = tf.pack_signs(X)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(derive_vectors(X, "x@binary").vectors, want)
    signs = tf.unpack_signs(tf.pack_signs(vectors), 48)
    np.testing.assert_array_equal(signs, np.where(vectors > 0, 1.0, -1.0))


def test_dims_of_all_dimensions_is_the_base(vectors):
    base = derive_vectors(vectors, "x")
    full = derive_vectors(vectors, "x@dims=48")
    np.testing.assert_array_equal(full.vectors, vectors)
    np.testing.assert_array_equal(full.vectors, base.vectors)
    raw = vectors * np.linspace(0.5, 3.0, len(vectors), dtype=np.float32)[:, None]  # not unit-norm
    np.testing.assert_array_equal(tf.truncate_dims(raw, 48), raw)
    for part in ("int8", "binary"):  # and so in every composition
        np.testing.assert_array_equal(
            derive_vectors(vectors, f"x@dims=48@{part}").vectors, derive_vectors(vectors, f"x@{part}").vectors
        )


def test_truncation_keeps_the_first_dims_at_the_full_norm(vectors):
    raw = vectors * 3.0
    raw[5] = 0.0
    raw[9, :8] = 0.0  # nothing left after truncating to 8 dimensions: no direction
    T = tf.truncate_dims(raw, 8)
    assert T.shape == (600, 8) and T.dtype == np.float32
    keep = ~tf.zero_rows(raw[:, :8])
    np.testing.assert_allclose(np.linalg.norm(T[keep], axis=1), np.linalg.norm(raw[keep], axis=1), rtol=1e-5)
    head = raw[keep, :8]
    cos = np.sum(T[keep] * head, axis=1) / np.linalg.norm(T[keep], axis=1) / np.linalg.norm(head, axis=1)
    np.testing.assert_allclose(cos, 1.0, rtol=1e-5)  # the direction of the first 8 dimensions
    assert not T[5].any() and not T[9].any()
    np.testing.assert_array_equal(derive_vectors(raw, "x@dims=8").zero, ~keep)
    with pytest.raises(N2OError, match="more dimensions than the vectors have"):
        tf.truncate_dims(raw, 49)


def test_pca_is_scikit_learns_fitted_on_the_corpus(vectors):
    from sklearn.decomposition import PCA

    X = vectors.copy()
    p = tf.PcaProjection.fit(X, 10)
    ref = PCA(n_components=10, svd_solver="full").fit(X.astype(np.float64))
    # the same subspace and variances: each component equals the reference's up to its sign
    agree = np.abs(np.sum(p.components * ref.components_, axis=1))
    np.testing.assert_allclose(agree, 1.0, atol=1e-3)
    Y = p.project(X)
    np.testing.assert_allclose(Y.var(axis=0, ddof=1), ref.explained_variance_, rtol=1e-3)
    np.testing.assert_allclose(np.abs(Y), np.abs(ref.transform(X)), atol=1e-4)
    Z = X.copy()
    Z[4] = 0.0
    assert not tf.PcaProjection.fit(Z, 10).project(Z)[4].any()  # a zero row keeps no direction
    with pytest.raises(N2OError, match="more components than"):
        tf.PcaProjection.fit(X[:5], 10)


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("x@dims=20", "int8"),
        ("x@dims=20", "binary"),
        ("x@pca=12", "int8"),
        ("x@pca=12", "binary"),
        ("x@dims=9", "int8"),
    ],
)
def test_a_variant_of_a_variant_is_the_composed_transform(vectors, first, then):
    step = derive_vectors(derive_vectors(vectors, first).vectors, f"y@{then}")
    whole = derive_vectors(vectors, derive(first, then))
    np.testing.assert_array_equal(step.vectors, whole.vectors)
    np.testing.assert_array_equal(step.zero, whole.zero)
    assert whole.variant.id == f"{first}@{then}"
    assert whole.dim == int(first.rpartition("=")[2])


def test_the_fitted_transform_takes_outside_queries_alike(vectors):
    t = tf.VariantTransform.fit(vectors, "x@pca=16@int8")
    whole = derive_vectors(vectors, "x@pca=16@int8")
    np.testing.assert_array_equal(t.apply(vectors[:30]), whole.vectors[:30])  # a query is quantized as the corpus is
    with pytest.raises(N2OError, match="fitted on 48"):
        t.apply(vectors[:, :40])


def test_zero_rows_stay_without_direction(vectors):
    X = vectors.copy()
    X[[2, 11]] = 0.0
    for spec in ("x@int8", "x@binary", "x@pca=8", "x@dims=8"):
        d = derive_vectors(X, spec)
        assert np.flatnonzero(d.zero).tolist() == [2, 11]
        if d.precision != "binary":
            assert not d.vectors[[2, 11]].any()


def test_rescoring_keeps_the_float_vectors_the_bits_came_from(vectors):
    d = derive_vectors(vectors, "x@dims=24@binary@rescore=4")
    assert d.floats is not None
    np.testing.assert_array_equal(d.floats, tf.truncate_dims(vectors, 24))
    np.testing.assert_array_equal(d.vectors, tf.pack_signs(d.floats))
    assert derive_vectors(vectors, "x@binary").floats is None


def test_only_dense_float_vectors_have_variants():
    import scipy.sparse as sp

    with pytest.raises(N2OError, match="dense vectors"):
        derive_vectors(sp.random(5, 4, format="csr", dtype=np.float32), "x@int8")  # type: ignore[arg-type]
    with pytest.raises(N2OError, match="float vectors, not int8"):
        derive_vectors(np.zeros((5, 4), np.int8), "x@binary")
    assert parse_variant("x@layer=3").derived is False
