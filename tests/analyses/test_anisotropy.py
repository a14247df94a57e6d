"""Anisotropy (Ethayarajh 2019): the mean cosine of random sentence pairs, exact over every pair, on vectors whose
value is known by hand; z-normalization takes a shared direction out."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from synthetic_text import sentences

from n2o_core.analyses.anisotropy import HIGH_ANISOTROPY, Anisotropy, anisotropy, implication, mean_pair_cosine
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.search.rows import Standardizer
from n2o_core.storage.cache import Cache


def brute(X: np.ndarray) -> float:
    """Mean cosine over every pair of distinct non-zero rows, one pair at a time."""
    rows = [x / np.linalg.norm(x) for x in np.asarray(X, float) if np.any(x != 0)]
    return float(np.mean([a @ b for a, b in combinations(rows, 2)]))


def test_hand_made_values():
    # unit rows (1, 0), (0, 1), (1, 1)/sqrt 2: pair cosines 0, 1/sqrt 2, 1/sqrt 2; the zero row has no direction
    X = np.array([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0], [0.0, 0.0]])
    assert mean_pair_cosine(X) == pytest.approx(2 / np.sqrt(2) / 3)
    assert mean_pair_cosine(sp.csr_matrix(X)) == pytest.approx(2 / np.sqrt(2) / 3)
    assert mean_pair_cosine(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])) == pytest.approx(1.0)  # one direction
    assert mean_pair_cosine(np.array([[1.0, 0.0], [-1.0, 0.0]])) == pytest.approx(-1.0)
    assert np.isnan(mean_pair_cosine(np.array([[1.0, 0.0], [0.0, 0.0]])))  # fewer than two vectors


def test_equals_every_pair_and_znorm_removes_a_shared_direction():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 6)) + np.array([5.0, 0, 0, 0, 0, 0])  # a common offset: a narrow cone
    X[7] = 0
    raw = mean_pair_cosine(X)
    assert raw == pytest.approx(brute(X), abs=1e-12)
    assert raw > 0.8
    std = Standardizer.fit(X)
    Z = (X - std.mean) * std.scale
    Z[7] = 0
    assert mean_pair_cosine(X, std) == pytest.approx(brute(Z), abs=1e-5)
    assert abs(mean_pair_cosine(X, std)) < 0.1
    S = sp.csr_matrix(np.abs(X))  # sparse rows, z-normalized in factored form
    Sz = (np.abs(X) - Standardizer.fit(S).mean) * Standardizer.fit(S).scale
    Sz[7] = 0
    assert mean_pair_cosine(S, Standardizer.fit(S)) == pytest.approx(brute(Sz), abs=1e-5)


def test_workspace_values_and_words(tmp_path):
    ws = Workspace(from_texts(sentences(60, seed=1), "tiny"), cache=Cache(tmp_path / "cache"))
    a = anisotropy(ws, "tfidf")
    X = ws.embeddings("tfidf").toarray()
    assert a.raw == pytest.approx(brute(X), abs=1e-6)
    assert a.high is (a.raw >= HIGH_ANISOTROPY)
    high = Anisotropy("glove", 0.87, 0.01)
    assert high.high and not Anisotropy("minilm", 0.07, 0.0).high
    assert "0.87" in implication(high) and "z-normalization" in implication(high)
