"""Embedders that do not see the change a minimal pair makes, said in words.

An embedder that knows only some words gives both sentences of a pair the same vector when neither the word taken
out nor the word put in is in its vocabulary (or they are stop words it drops), the same vector to every word
subset's variant of a sentence when only the word put in is unknown (each reads as "the word taken out"), and a zero
vector to a sentence with no word it knows. Trained on a small corpus (word2vec keeps only words seen twice in the
compared corpus; tf-idf knows only the corpus's words) it knows few words, so the word subsets' means come out the
same number in every column (61 BBC sentences: word2vec-nostop's 4 pairs per subset, 3 at cosine 1 and one
original without a known word, 0.726 in every column; issue 34 saw 0.786 on its 61-sentence upload). That number
measures the vocabulary, not synonyms against antonyms; `unseen_notes` says so for each such embedder, from the
scorer's `same_vector`, `same_variant` and `zero_vectors` counts.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from n2o_core.evaluation.heros.score import WORD_SUBSETS

#: An embedder is named when at least this share of the pairs of every word subset is unseen.
UNSEEN_SHARE = 0.5


def unseen_notes(results: pd.DataFrame, trained_on: Mapping[str, int] | None = None) -> dict[str, str]:
    """{embedder: sentence} for the embedders that give the same vector (or a zero vector) to at least
    `UNSEEN_SHARE` of the pairs in every word subset present. `trained_on`: the number of sentences a corpus-trained
    embedder was fit on (named in its sentence)."""
    if results.empty or not {"same_vector", "same_variant", "zero_vectors"} <= set(results.columns):
        return {}
    out: dict[str, str] = {}
    words = results[results["subset"].isin(WORD_SUBSETS)]
    for eid, g in words.groupby("embedder", sort=False):
        n = g["n"].to_numpy(float)
        unseen = (g["same_vector"] + g["same_variant"] + g["zero_vectors"]).to_numpy(float)
        if not len(n) or (unseen < UNSEEN_SHARE * n).any():
            continue
        total = int(g["n"].sum())
        parts = [
            f"{int(g['same_vector'].sum())} get the same vector for both sentences (cosine 1: neither the word "
            "taken out nor the word put in is in its vocabulary, or they are stop words it drops)",
            f"{int(g['same_variant'].sum())} get the same vector as another subset's variant of the same sentence "
            "(the word put in is unknown to it, so synonym, antonym, typo and random word all read as the word "
            "taken out)",
            f"{int(g['zero_vectors'].sum())} have a sentence with no word it knows (a zero vector, cosine 0)",
        ]
        said = [p for p, c in zip(parts, ("same_vector", "same_variant", "zero_vectors")) if g[c].sum() > 0]
        text = (
            f"{eid} does not see most of the changes: of the {total} pairs of the word subsets, "
            + "; ".join(said)
            + ". Its scores there measure its vocabulary, not synonyms against antonyms, so they come out alike in "
            "every column."
        )
        fit = (trained_on or {}).get(str(eid))
        if fit is not None:
            text += (
                f" It is trained on the compared corpus ({fit:,} sentences), whose vocabulary lacks these words; a "
                "larger corpus (or a pretrained embedder) gives it the words."
            )
        out[str(eid)] = text
    return out
