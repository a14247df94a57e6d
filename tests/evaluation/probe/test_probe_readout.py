"""Readouts on synthetic features: what is linearly or only non-linearly readable, determinism, baselines."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from n2o_core.evaluation.probe.readout import grid, length_features, majority, read_out


def _data(n: int, seed: int = 0, kind: str = "linear"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8)).astype(np.float32)
    noise = 0.2 * rng.normal(size=n)  # not separable: logistic regression converges fast
    y = (X[:, 0] + noise > 0) if kind == "linear" else (X[:, 0] * X[:, 1] + noise > 0)  # XOR: not linear
    y = np.where(y, "yes", "no")
    a, b = int(n * 0.6), int(n * 0.8)
    return X[:a], y[:a], X[a:b], y[a:b], X[b:], y[b:]


def test_logistic_regression_reads_a_linear_property():
    ro = read_out(*_data(600), "lr", seed=0)
    assert ro.accuracy > 0.9 and ro.params in [dict(g) for g in grid("lr")] and ro.n_test == 120


def test_the_mlp_reads_what_logistic_regression_cannot():
    data = _data(1000, kind="xor")
    lr, mlp = read_out(*data, "lr", seed=0), read_out(*data, "mlp", seed=0)
    assert lr.accuracy < 0.65 < 0.8 < mlp.accuracy
    assert {"hidden", "alpha", "passes"} <= set(mlp.params)


def test_same_seed_same_numbers():
    data = _data(200, seed=1, kind="xor")
    assert read_out(*data, "mlp", seed=2) == read_out(*data, "mlp", seed=2)
    assert read_out(*data, "lr", seed=2) == read_out(*data, "lr", seed=2)


def test_sparse_features_are_scaled_not_centred():
    Xtr, ytr, Xdv, ydv, Xte, yte = _data(400)
    ro = read_out(sp.csr_matrix(Xtr), ytr, sp.csr_matrix(Xdv), ydv, sp.csr_matrix(Xte), yte, "lr")
    assert ro.accuracy > 0.8
    mlp = read_out(sp.csr_matrix(Xtr), ytr, sp.csr_matrix(Xdv), ydv, sp.csr_matrix(Xte), yte, "mlp")
    assert mlp.accuracy > 0.8  # through a truncated SVD (here to 7 of the 8 columns)


def test_baselines():
    assert majority(["a", "a", "b"], ["a", "b", "b", "b"]) == 0.25
    lengths = np.array([5, 6, 7, 20, 21, 22] * 20)
    y = np.where(lengths > 10, "long", "short")
    X = length_features(lengths)
    assert X.shape == (120, 1)
    assert read_out(X[:80], y[:80], X[80:100], y[80:100], X[100:], y[100:], "lr").accuracy == 1.0


def test_unknown_classifier():
    with pytest.raises(ValueError):
        read_out(*_data(100), "svm")
