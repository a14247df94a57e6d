"""The rules that say what an N2O must be read against (`analyses.face_value`): chance beside every value from a
stated share of the median, k's share of the candidates, corpus-trained embedders on too few sentences."""

from __future__ import annotations

import numpy as np

from n2o_core.analyses.face_value import (
    CHANCE_SHOWN_FROM,
    TRAINED_NOISE_BELOW,
    chance_in_cells,
    chance_share,
    face_value,
    trained_on_too_few,
)
from n2o_core.limits import K_SHARE_MAX, k_share_cap


def test_chance_in_cells_from_a_share_of_the_median():
    values = np.array([0.2, 0.3, 0.4])
    assert chance_share(values, 0.03) == 0.1
    assert chance_in_cells(values, CHANCE_SHOWN_FROM * 0.3)
    assert not chance_in_cells(values, CHANCE_SHOWN_FROM * 0.3 * 0.99)
    assert chance_in_cells(np.array([0.0, 0.0, 0.0]), 0.2)  # chance above every value
    assert not chance_in_cells(np.array([np.nan]), 0.2)


def test_k_share_cap():
    assert k_share_cap(60) == 5  # 10% of 59 candidates
    assert k_share_cap(101) == 10 and k_share_cap(5000) == 499
    assert k_share_cap(3) == 1
    assert all(k_share_cap(n) <= max(1, K_SHARE_MAX * (n - 1)) for n in range(2, 500))


def test_a_60_sentence_upload_is_said():
    M = np.array([[1.0, 0.25, 0.21], [0.25, 1.0, 0.30], [0.21, 0.30, 1.0]])
    fv = face_value(M, 10, 61, embedders=["tfidf", "word2vec", "minilm-l6-mean"], fit_size=61)
    assert fv.chance == 10 / 60
    assert fv.chance_in_cells and "0.167" in fv.chance_note()
    assert fv.k_too_large and "k = 10 is 17%" in fv.k_note()
    assert list(fv.trained) == ["word2vec"]  # tf-idf keeps its neighbors from 50 sentences on; MiniLM is pretrained
    assert "trained on this corpus's 61 sentences" in fv.trained_note()
    assert "mostly noise below 20,000 for word2vec training sentences" in fv.trained_note()
    assert len(fv.notes()) == 3


def test_a_large_corpus_says_nothing():
    M = np.array([[1.0, 0.25], [0.25, 1.0]])
    fv = face_value(M, 10, 5000, embedders=["word2vec", "fasttext-sub"], fit_size=38_019)
    assert fv.notes() == []


def test_trained_on_too_few_follows_the_measured_sizes():
    for eid, size in TRAINED_NOISE_BELOW.items():
        assert eid in trained_on_too_few([eid], size.sentences - 1)
        assert eid not in trained_on_too_few([eid], 38_019)  # a BBC sample: trained on the whole corpus
    assert "word2vec" not in trained_on_too_few(["word2vec"], 20_000)  # met the rule at 20,000
    assert "fasttext-sub" in trained_on_too_few(["fasttext-sub"], 20_000)  # did not, even there
    assert trained_on_too_few(["glove-6b-50d", "tfidf"], 60) == {}
