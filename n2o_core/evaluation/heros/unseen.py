"""Embedders that do not see the change a minimal pair makes, said in words.

An averaged word-vector embedder gives both sentences of a pair the same vector when the changed word is not in its
vocabulary (or is a stop word it drops), and a zero vector to a sentence with no word it knows. Trained on a small
corpus (word2vec keeps only words seen twice in the compared corpus) it knows few words, so in every word subset
most pairs score cosine 1 and the rest 0, and the subset means come out the same number in every column (61 BBC
sentences: 3 of the 4 pairs per subset at cosine 1, one original without a known word, 0.726 in every column;
issue 34 saw 0.786 on its 61-sentence upload). That number measures the vocabulary, not synonyms against antonyms;
`unseen_notes` says so for each such embedder, from the scorer's `same_vector` and `zero_vectors` counts.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

#: The subsets that replace one word (negations change stop words, which a -nostop embedder drops by design).
WORD_SUBSETS = ("synonym", "antonym", "typo", "random")
#: An embedder is named when at least this share of the pairs of every word subset is unseen.
UNSEEN_SHARE = 0.5


def unseen_notes(results: pd.DataFrame, trained_on: Mapping[str, int] | None = None) -> dict[str, str]:
    """{embedder: sentence} for the embedders that give the same vector (or a zero vector) to at least
    `UNSEEN_SHARE` of the pairs in every word subset present. `trained_on`: the number of sentences a corpus-trained
    embedder was fit on (named in its sentence)."""
    if results.empty or not {"same_vector", "zero_vectors"} <= set(results.columns):
        return {}
    out: dict[str, str] = {}
    words = results[results["subset"].isin(WORD_SUBSETS)]
    for eid, g in words.groupby("embedder", sort=False):
        n = g["n"].to_numpy(float)
        unseen = (g["same_vector"] + g["zero_vectors"]).to_numpy(float)
        if not len(n) or (unseen < UNSEEN_SHARE * n).any():
            continue
        same, zero, total = int(g["same_vector"].sum()), int(g["zero_vectors"].sum()), int(g["n"].sum())
        text = (
            f"{eid} does not see most of the changes: over the word subsets, {same} of {total} pairs get the same "
            f"vector for both sentences (cosine 1: the changed word is not in its vocabulary, or is a stop word it "
            f"drops) and {zero} have a sentence with no word it knows (a zero vector, cosine 0). Its scores there "
            "measure its vocabulary, not synonyms against antonyms, so they come out alike in every column."
        )
        fit = (trained_on or {}).get(str(eid))
        if fit is not None:
            text += (
                f" It is trained on the compared corpus ({fit:,} sentences), whose vocabulary lacks these words; a "
                "larger corpus (or a pretrained embedder) gives it the words."
            )
        out[str(eid)] = text
    return out
