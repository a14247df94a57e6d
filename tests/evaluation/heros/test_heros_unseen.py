"""An embedder that does not see the changed words (issue 34: word2vec-nostop scoring one number in every column on a
61-sentence upload) is counted pair by pair and named."""

from __future__ import annotations

import numpy as np
import pandas as pd
from heros_sentences import SENTENCES

from n2o_core.evaluation.heros.run import run_heros
from n2o_core.evaluation.heros.score import score_one
from n2o_core.evaluation.heros.unseen import unseen_notes

PAIRS = pd.DataFrame(
    {
        "subset": ["synonym", "synonym", "antonym", "antonym"],
        "original": ["alpha beta", "gamma delta", "alpha beta", "gamma delta"],
        "variant": ["alpha zeta", "gamma eta", "alpha theta", "gamma delta iota"],
    }
)


def _known_words(texts):
    """Averaged one-hot vectors over a four-word vocabulary: any other word is unknown (an out-of-vocabulary word)."""
    vocab = {"alpha": 0, "beta": 1, "gamma": 2, "delta": 3}
    x = np.zeros((len(texts), 4), np.float32)
    for i, t in enumerate(texts):
        for w in t.split():
            if w in vocab:
                x[i, vocab[w]] += 1
    return x


def test_pairs_whose_change_is_unknown_get_one_vector_and_are_counted():
    _, res, cos = score_one(PAIRS, "toy", _known_words, n_boot=20)
    # "alpha beta" -> "alpha zeta": zeta unknown, so the variant is "alpha" alone: a different vector (cosine 0.71)
    np.testing.assert_allclose(cos, [np.sqrt(0.5), np.sqrt(0.5), np.sqrt(0.5), 1.0], atol=1e-6)
    r = res.set_index("subset")
    assert r.loc["antonym", "same_vector"] == 1 and r.loc["synonym", "same_vector"] == 0
    # "alpha zeta" (synonym) and "alpha theta" (antonym) both read as "alpha": the words put in are unknown
    assert r.loc["synonym", "same_variant"] == 1 and r.loc["antonym", "same_variant"] == 1
    assert (res["zero_vectors"] == 0).all()
    words = pd.DataFrame({"subset": ["synonym"], "original": ["alpha beta"], "variant": ["zeta eta"]})
    _, res2, cos2 = score_one(pd.concat([PAIRS, words]), "toy", _known_words, n_boot=20)
    assert cos2[-1] == 0.0 and res2.set_index("subset").loc["synonym", "zero_vectors"] == 1


def test_a_word2vec_trained_on_ten_sentences_is_named(tmp_path):
    """Ten sentences teach word2vec few words: the changed words are unknown to it in (nearly) every pair, and the
    note says so, with the corpus it was trained on; tf-idf on the same pairs sees the words (named nowhere)."""
    res = run_heros(SENTENCES, ["word2vec", "tfidf"], n_pairs=5, seed=0, cache_dir=str(tmp_path), n_boot=50)
    w2v = res.results[res.results["embedder"] == "word2vec-nostop"].set_index("subset")
    words = w2v.loc[["synonym", "antonym", "typo", "random"]]
    assert ((words["same_vector"] + words["zero_vectors"]) >= 0.5 * words["n"]).all()
    note = res.meta["unseen"]["word2vec-nostop"]
    assert "trained on the compared corpus (10 sentences)" in note and "tfidf" not in res.meta["unseen"]
    tfidf = res.results[res.results["embedder"] == "tfidf"].set_index("subset")
    # a typo and a random word are never among the ten sentences' words: tf-idf reads both as the word taken out
    assert (tfidf.loc[["typo", "random"], "same_variant"] == tfidf.loc[["typo", "random"], "n"]).all()
    assert len(set(np.round(words["normalized"], 6))) <= 2  # (nearly) one number in every column


def test_no_note_when_the_changes_are_seen():
    rows = pd.DataFrame(
        {"embedder": ["e"] * 4, "subset": ["synonym", "antonym", "typo", "random"], "n": [10] * 4,
         "same_vector": [6, 6, 6, 2], "same_variant": [0, 0, 0, 2], "zero_vectors": [0, 0, 0, 0]}
    )  # fmt: skip
    assert unseen_notes(rows) == {}  # the random subset sees 6 of 10 changes
    note = unseen_notes(rows.assign(same_variant=[0, 0, 0, 3]))["e"]
    assert "of the 40 pairs of the word subsets, 20 get the same vector for both sentences" in note
    assert "3 get the same vector as another subset's variant" in note and "zero vector" not in note
