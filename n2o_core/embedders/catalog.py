"""The built-in embedders as rows of a table mirroring Table 1 of Lin & Smith (2019). Data only, no imports.

As in the paper's Table 1, the family is the method (tf-idf, word2vec, GloVe, fastText, ...); `composition` says
how a sentence vector is made from it (average of word vectors, [CLS], mean pooling).
"""

from __future__ import annotations

from .base import EmbedderInfo

_CORPUS = "the compared corpus (whole built-in corpus when a sample is compared)"

#: Built-in embedders in display order.
DEFAULT_INFOS: tuple[EmbedderInfo, ...] = (
    EmbedderInfo(
        "tfidf",
        "tf-idf",
        "n/a",
        None,
        f"tf-idf statistics of {_CORPUS}, each sentence a document (gensim, log2 idf, L2 rows)",
        corpus_trained=True,
        sparse=True,
    ),
    EmbedderInfo(
        "glove-6b-50d", "GloVe", "average", 50, "GloVe: Wikipedia 2014 + Gigaword 5 (6B tokens, uncased, 400k words)"
    ),
    EmbedderInfo(
        "word2vec",
        "word2vec",
        "average",
        100,
        f"word2vec skip-gram trained on {_CORPUS} (5 epochs)",
        corpus_trained=True,
    ),
    EmbedderInfo(
        "fasttext",
        "fastText",
        "average",
        100,
        f"fastText CBOW without subwords trained on {_CORPUS} (5 epochs)",
        corpus_trained=True,
    ),
    EmbedderInfo(
        "fasttext-sub",
        "fastText",
        "average",
        100,
        f"fastText CBOW + subword information (char 3-6-grams) trained on {_CORPUS} (5 epochs)",
        corpus_trained=True,
    ),
    EmbedderInfo(
        "model2vec",
        "model2vec",
        "model2vec",
        256,
        "static token vectors distilled from all-MiniLM-L6-v2 (model2vec: PCA to 256-d, SIF weights)",
    ),
    EmbedderInfo(
        "minilm-l6-mean",
        "MiniLM",
        "mean",
        384,
        "all-MiniLM-L6-v2: MiniLM fine-tuned contrastively on ~1B sentence pairs (its trained pooling)",
    ),
    EmbedderInfo(
        "minilm-l6-cls",
        "MiniLM",
        "cls",
        384,
        "all-MiniLM-L6-v2, [CLS] token of the last layer (not the pooling it was trained with)",
    ),
    EmbedderInfo(
        "paraphrase-minilm-l3-mean",
        "MiniLM",
        "mean",
        384,
        "paraphrase-MiniLM-L3-v2 (3 layers, ONNX): distilled and tuned on paraphrase pairs",
    ),
    EmbedderInfo(
        "e5-small",
        "E5",
        "mean",
        384,
        "multilingual-e5-small (4-bit): weakly supervised contrastive pretraining + fine-tuning, 'passage:' prefix",
    ),
)

DEFAULT_EMBEDDER_IDS: tuple[str, ...] = tuple(i.id for i in DEFAULT_INFOS)


def default_info(embedder_id: str) -> EmbedderInfo:
    """The catalog row of a built-in embedder (KeyError when unknown)."""
    for info in DEFAULT_INFOS:
        if info.id == embedder_id:
            return info
    raise KeyError(embedder_id)
