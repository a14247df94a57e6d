"""The built-in embedders' registry entries: one table of `EmbedderInfo` rows, in display order.

As in Lin & Smith (2019), Table 1, the family is the method (tf-idf, word2vec, GloVe, fastText, ...);
`composition` says how a sentence vector is made from it (average of word vectors, [CLS], mean pooling), and
`family_group` puts it in one of `base.FAMILY_GROUPS` for pickers and colours.

Averaged word vectors come in two compositions: the default ids average every token (as the N2O paper's
averaged embeddings do); the `-nostop` rows drop sentence-transformers' default stop list first (`text.py`), as
the averaged GloVe models built with sentence-transformers and evaluated by Heros do. A `-nostop` row of a
corpus-trained embedder trains exactly like its all-tokens row and shares its saved state; only the averaging
differs. The `-nostop` rows are built-in but not defaults (`EmbedderInfo.default` is False).

This module is data only (no backend is imported): the backends read their own row here, and `catalog` pairs
each row with the factory that makes it.
"""

from __future__ import annotations

from dataclasses import replace

from n2o_core.embedders.base import AVERAGE_ALL_TOKENS, AVERAGE_NO_STOP_WORDS, EmbedderInfo

NOSTOP_SUFFIX = "-nostop"
_CORPUS = "the compared corpus (whole built-in corpus when a sample is compared)"


def _with_nostop(info: EmbedderInfo) -> tuple[EmbedderInfo, EmbedderInfo]:
    """An averaged word-vector embedder as two rows: all tokens (a default) and stop words dropped."""
    return (info, replace(info, id=info.id + NOSTOP_SUFFIX, composition=AVERAGE_NO_STOP_WORDS, default=False))


#: Registry entries of every built-in embedder, in display order (Table 1 style; each -nostop row beside its
#: all-tokens row).
BUILTIN_INFOS: tuple[EmbedderInfo, ...] = (
    EmbedderInfo(
        "tfidf",
        "tf-idf",
        "n/a",
        None,
        f"tf-idf statistics of {_CORPUS}, each sentence a document (gensim, log2 idf, L2 rows)",
        corpus_trained=True,
        sparse=True,
        family_group="tf-idf",
    ),
    *_with_nostop(
        EmbedderInfo(
            "glove-6b-50d",
            "GloVe",
            AVERAGE_ALL_TOKENS,
            50,
            "GloVe: Wikipedia 2014 + Gigaword 5 (6B tokens, uncased, 400k words)",
            family_group="static averages",
        )
    ),
    *_with_nostop(
        EmbedderInfo(
            "word2vec",
            "word2vec",
            AVERAGE_ALL_TOKENS,
            100,
            f"word2vec skip-gram trained on {_CORPUS} (5 epochs)",
            corpus_trained=True,
            family_group="static averages",
        )
    ),
    *_with_nostop(
        EmbedderInfo(
            "fasttext",
            "fastText",
            AVERAGE_ALL_TOKENS,
            100,
            f"fastText CBOW without subwords trained on {_CORPUS} (5 epochs)",
            corpus_trained=True,
            family_group="static averages",
        )
    ),
    *_with_nostop(
        EmbedderInfo(
            "fasttext-sub",
            "fastText",
            AVERAGE_ALL_TOKENS,
            100,
            f"fastText CBOW + subword information (char 3-6-grams) trained on {_CORPUS} (5 epochs)",
            corpus_trained=True,
            family_group="subword",
        )
    ),
    EmbedderInfo(
        "model2vec",
        "model2vec",
        "model2vec",
        256,
        "static token vectors distilled from all-MiniLM-L6-v2 (model2vec: PCA to 256-d, SIF weights)",
        family_group="distilled",
    ),
    EmbedderInfo(
        "minilm-l6-mean",
        "MiniLM",
        "mean",
        384,
        "all-MiniLM-L6-v2: MiniLM fine-tuned contrastively on ~1B sentence pairs (its trained pooling)",
        family_group="transformers",
    ),
    EmbedderInfo(
        "minilm-l6-cls",
        "MiniLM",
        "cls",
        384,
        "all-MiniLM-L6-v2, [CLS] token of the last layer (not the pooling it was trained with)",
        family_group="transformers",
    ),
    EmbedderInfo(
        "paraphrase-minilm-l3-mean",
        "MiniLM",
        "mean",
        384,
        "paraphrase-MiniLM-L3-v2 (3 layers, ONNX): distilled and tuned on paraphrase pairs",
        family_group="transformers",
    ),
    EmbedderInfo(
        "e5-small",
        "E5",
        "mean",
        384,
        "multilingual-e5-small (4-bit): weakly supervised contrastive pretraining + fine-tuning, 'passage:' prefix",
        family_group="transformers",
    ),
)

_BY_ID: dict[str, EmbedderInfo] = {info.id: info for info in BUILTIN_INFOS}

#: Ids of every built-in embedder (what `get_embedder` resolves without a user-spec prefix).
BUILTIN_EMBEDDER_IDS: tuple[str, ...] = tuple(_BY_ID)
#: The paper's line-up (Table 1 of Lin & Smith 2019 as far as it loads offline): rows with `default` set; what the
#: CLI and the Python API run when no embedder is named. The dashboard opens on fewer (settings.DASHBOARD_EMBEDDERS).
PAPER_INFOS: tuple[EmbedderInfo, ...] = tuple(i for i in BUILTIN_INFOS if i.default)
PAPER_EMBEDDER_IDS: tuple[str, ...] = tuple(i.id for i in PAPER_INFOS)


def default_info(embedder_id: str) -> EmbedderInfo:
    """The registry entry of a built-in embedder, default or not (KeyError when unknown)."""
    return _BY_ID[embedder_id]


def with_stop_words_dropped(embedder_id: str) -> str:
    """The built-in `-nostop` row of an averaged embedder (the id itself when it has none)."""
    candidate = embedder_id + NOSTOP_SUFFIX
    return candidate if candidate in _BY_ID else embedder_id
