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
    assert fv.trained_note().startswith("word2vec is trained on only 61 sentences here, so its neighbors are mostly")
    assert [n.id for n in fv.notes()] == ["chance", "k", "trained"]
    assert [n.level for n in fv.notes()] == ["info", "info", "warning"]
    assert [n.text for n in fv.notes()] == [fv.chance_note(), fv.k_note(), fv.trained_note()]


def test_the_small_corpus_note_says_what_why_and_what_to_do():
    """One sentence each: what (trained on too few, so noise), why (the size measured on BBC News), what to do
    (read it so, or train with the built-in corpus: the dashboard's switch or the CLI's option)."""
    M = np.full((3, 3), 0.3)
    fv = face_value(M, 10, 200, embedders=["word2vec", "fasttext", "fasttext-sub", "glove-6b-50d"])
    assert fv.trained_note() == (
        "word2vec, fasttext and fasttext-sub are trained on only 200 sentences here, so their neighbors are mostly "
        "noise. Measured on BBC News, word2vec needs 20,000 training sentences, while fasttext and fasttext-sub "
        "need more than 20,000 (trained on fewer, each keeps less than half of the neighbor agreement above chance "
        "that two training runs on all 38,019 BBC sentences share). Read their N2O with this in mind, or train them "
        "on the built-in BBC News corpus plus these sentences (the sidebar's switch, or --train-with bbc-news on "
        "the command line)."
    )
    one = face_value(M[:2, :2], 10, 500, embedders=["fasttext", "tfidf"])
    assert one.trained_note() == (
        "fasttext is trained on only 500 sentences here, so its neighbors are mostly noise. Measured on BBC News, "
        "fasttext needs more than 20,000 training sentences (trained on fewer, it keeps less than half of the "
        "neighbor agreement above chance that two training runs on all 38,019 BBC sentences share). Read its N2O "
        "with this in mind, or train it on the built-in BBC News corpus plus these sentences (the sidebar's switch, "
        "or --train-with bbc-news on the command line)."
    )
    (note,) = [n for n in one.notes() if n.id == "trained"]
    assert note.short == "fasttext is trained on only 500 sentences: its neighbors are mostly noise."
    assert note.to_json() == {"id": "trained", "level": "warning", "text": one.trained_note()}


def test_every_note_has_one_short_line():
    """Talk mode shows each note in one line: its short form names the number and stays short."""
    M = np.array([[1.0, 0.25, 0.21], [0.25, 1.0, 0.30], [0.21, 0.30, 1.0]])
    fv = face_value(M, 10, 61, embedders=["word2vec", "fasttext"], sampling_note="100 queries per sample cover...")
    shorts = {n.id: n.short for n in fv.notes()}
    assert shorts == {
        "chance": "Chance k/(N−1) = 0.167 is 67% of the median N2O.",
        "k": "k = 10 is 17% of the 60 other sentences (over 10%).",
        "samples": "One query sample of all 61 sentences: no spread across samples.",
        "trained": "word2vec and fasttext are trained on only 61 sentences: their neighbors are mostly noise.",
    }


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
