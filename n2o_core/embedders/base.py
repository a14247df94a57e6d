"""The one small protocol every embedder implements, and its registry entry."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from n2o_core.runtime.progress import Progress
from n2o_core.text import SBERT_STOP_WORDS_NAME

#: Coarse groups of embedders for pickers and colours, in display order (`EmbedderInfo.family_group`).
FAMILY_GROUPS: tuple[str, ...] = (
    "tf-idf",
    "static averages",  # averaged word vectors: GloVe, word2vec, fastText without subwords, wv: files
    "subword",  # averaged word vectors with character n-gram vectors for unknown words (fastText + subwords)
    "distilled",  # static token vectors distilled from a transformer (model2vec)
    "transformers",  # contextual encoders: MiniLM, E5, st:, hf:
    "precomputed",  # vectors supplied by the user (npy:, --vectors)
    "other",
)


#: Compositions of averaged word vectors: every token, or sentence-transformers' stop words dropped first.
AVERAGE_ALL_TOKENS = "average, all tokens"
AVERAGE_NO_STOP_WORDS = f"average, stop words dropped ({SBERT_STOP_WORDS_NAME})"


@dataclass(frozen=True)
class EmbedderInfo:
    """A row of the embedders table (mirrors Table 1 of Lin & Smith 2019)."""

    id: str
    family: str  # the method, as in the paper's Table 1: "tf-idf", "GloVe", "fastText", "MiniLM", ...; "user"
    composition: str  # "n/a", "average, all tokens", "average, stop words dropped (...)", "mean", "cls", ...
    dim: int | None  # None when it depends on the corpus (tf-idf: |V|)
    data: str  # one line on what it was trained on
    default: bool = (
        True  # in the paper's line-up (PAPER_EMBEDDER_IDS, the CLI's default); user and variant rows are not
    )
    corpus_trained: bool = False  # fit on the corpus being compared (tf-idf, word2vec, fastText)
    sparse: bool = False  # encode() returns a scipy.sparse CSR matrix
    family_group: str = "other"  # one of FAMILY_GROUPS


@runtime_checkable
class Embedder(Protocol):
    """Maps sentences to vectors.

    `encode` returns float32 of shape (n, dim), or a float32 CSR matrix when `info.sparse`.
    Rows are NOT required to be normalized; a sentence with no usable token is an all-zero row.
    """

    info: EmbedderInfo

    def fingerprint(self) -> str:
        """Identity of the model weights and settings (plus the fit corpus for corpus-trained ones)."""
        ...

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Train on the corpus (no-op for pretrained embedders), reporting stage "train" to `progress` while it
        trains. Must be called before encode."""
        ...

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray | sp.csr_matrix:
        """The sentences' vectors, reporting stage "embed" (sentences done of all) to `progress`."""
        ...
