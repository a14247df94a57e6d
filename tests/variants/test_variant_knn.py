"""`variant_knn`: each precision's search on a derived variant, with the exact search's conventions."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.search.exact import exact_knn
from n2o_core.search.hamming import hamming_knn
from n2o_core.search.result import NO_NEIGHBOR
from n2o_core.search.sign_rescore import sign_rescore_knn
from n2o_core.variants.knn import variant_knn
from n2o_core.variants.transforms import derive_vectors, truncate_dims


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(21)
    X = rng.standard_normal((1500, 32)).astype(np.float32) @ rng.standard_normal((32, 32)).astype(np.float32)
    X[[10, 20]] = 0.0  # no direction
    return X


IDS = np.array([0, 10, 99, 1499])


def test_float_variants_are_exact_cosine_search(X):
    d = derive_vectors(X, "x@dims=16")
    nb = variant_knn(d, 7, IDS)
    want = exact_knn(truncate_dims(X, 16), 7, IDS)
    np.testing.assert_array_equal(nb.ids, want.ids)
    np.testing.assert_array_equal(nb.sims, want.sims)
    np.testing.assert_array_equal(variant_knn(derive_vectors(X, "x@dims=32"), 7, IDS).ids, exact_knn(X, 7, IDS).ids)


def test_int8_is_cosine_of_the_codes(X):
    d = derive_vectors(X, "x@int8")
    nb = variant_knn(d, 7, IDS)
    codes = d.vectors.astype(np.float64)
    norms = np.linalg.norm(codes, axis=1)
    for r, q in enumerate(IDS):
        if q == 10:
            assert (nb.ids[r] == NO_NEIGHBOR).all()  # a zero row stays without direction
            continue
        cos = np.where(norms > 0, codes @ codes[q] / np.where(norms > 0, norms, 1) / norms[q], -3.0)
        cos[q] = -np.inf
        order = np.lexsort((np.arange(len(cos)), -np.round(cos, 9)))[:7]
        np.testing.assert_array_equal(nb.ids[r], order)
        np.testing.assert_allclose(nb.sims[r], cos[order], atol=1e-6)


def test_binary_and_rescoring_routes(X):
    d = derive_vectors(X, "x@binary")
    np.testing.assert_array_equal(
        variant_knn(d, 9, IDS).ids, hamming_knn(d.vectors, 32, 9, IDS, zero=~X.any(axis=1)).ids
    )
    r = derive_vectors(X, "x@binary@rescore=3")
    nb = variant_knn(r, 9, IDS)
    np.testing.assert_array_equal(nb.ids, sign_rescore_knn(r.vectors, 32, 9, 3, X[IDS], IDS, zero=r.zero).ids)
    assert (nb.ids[1] == NO_NEIGHBOR).all()


@pytest.mark.parametrize("spec", ["x@pca=8", "x@int8", "x@dims=24@binary"])
def test_outside_queries_go_through_the_fitted_transform(X, spec):
    """A query vector from outside the corpus equal to corpus row q finds what row q finds, plus q itself first."""
    d = derive_vectors(X, spec)
    inside = variant_knn(d, 5, IDS[[0, 2, 3]])
    outside = variant_knn(d, 6, queries=X[IDS[[0, 2, 3]]])
    np.testing.assert_array_equal(outside.ids[:, 0], IDS[[0, 2, 3]])
    np.testing.assert_array_equal(outside.ids[:, 1:], inside.ids)
    with pytest.raises(ValueError, match="exactly one"):
        variant_knn(d, 5)


def test_outside_queries_are_rescored_with_their_own_floats(X):
    from n2o_core.variants.transforms import pack_signs

    d = derive_vectors(X, "x@dims=24@binary@rescore=2")
    Q = X[[5, 6]] * 2.0  # the same directions: the same neighbors
    nb = variant_knn(d, 6, queries=Q)
    F = truncate_dims(Q, 24)
    np.testing.assert_array_equal(nb.ids, sign_rescore_knn(d.vectors, 24, 6, 2, F, queries=pack_signs(F)).ids)
    np.testing.assert_array_equal(nb.ids[:, 0], [5, 6])
