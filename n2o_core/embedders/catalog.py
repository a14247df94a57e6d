"""The built-in embedders: one table of rows, each its registry entry (`EmbedderInfo`) and its factory.

As in Lin & Smith (2019), Table 1, the family is the method (tf-idf, word2vec, GloVe, fastText, ...);
`composition` says how a sentence vector is made from it (average of word vectors, [CLS], mean pooling), and
`family_group` puts it in one of `base.FAMILY_GROUPS` for pickers and colours.

Averaged word vectors come in two compositions: the default ids average every token (as the N2O paper's
averaged embeddings do); the `-nostop` rows drop sentence-transformers' default stop list first (`text.py`), as
the averaged GloVe models built with sentence-transformers and evaluated by Heros do. A `-nostop` row of a
corpus-trained embedder trains exactly like its all-tokens row and shares its saved state; only the averaging
differs. The `-nostop` rows are built-in but not defaults (`EmbedderInfo.default` is False).

Factories import their backend when called, so importing this module (and the registry) stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from n2o_core.embedders.base import AVERAGE_ALL_TOKENS, AVERAGE_NO_STOP_WORDS, Embedder, EmbedderInfo
from n2o_core.text import SBERT_STOP_WORDS

#: Makes the embedder of a row; gets the workspace's cache folder for state fitted on a corpus (None: in memory
#: only). Models derived from installed packages alone (the MiniLM ONNX export, model2vec's distillation) live in
#: the per-user model cache instead (`_onnx.user_model_cache`).
Factory = Callable[[Path | None], Embedder]

NOSTOP_SUFFIX = "-nostop"
_CORPUS = "the compared corpus (whole built-in corpus when a sample is compared)"


@dataclass(frozen=True)
class Builtin:
    """One row of the table: what the embedder is, and how to make it."""

    info: EmbedderInfo
    make: Factory


# ---------------------------------------------------------------- factories (lazy imports)


def _tfidf(cache_dir: Path | None) -> Embedder:
    from n2o_core.embedders.tfidf import TfidfEmbedder

    return TfidfEmbedder(cache_dir)


def _glove(embedder_id: str, stop_words: frozenset[str]) -> Factory:
    def make(cache_dir: Path | None) -> Embedder:
        from n2o_core.embedders.static import glove_embedder

        return glove_embedder(embedder_id, stop_words)

    return make


def _trained(preset: str, embedder_id: str, stop_words: frozenset[str]) -> Factory:
    def make(cache_dir: Path | None) -> Embedder:
        from n2o_core.embedders.trained_vectors import TrainedVectorsEmbedder

        return TrainedVectorsEmbedder(embedder_id, cache_dir, preset=preset, stop_words=stop_words)

    return make


def _model2vec(cache_dir: Path | None) -> Embedder:
    from n2o_core.embedders._onnx import user_model_cache
    from n2o_core.embedders.m2v import Model2VecEmbedder

    return Model2VecEmbedder(user_model_cache())  # distilled once per machine (see _minilm)


def _minilm(pooling: str) -> Factory:
    def make(cache_dir: Path | None) -> Embedder:
        from n2o_core.embedders.sbert import MiniLMEmbedder

        # The ONNX export depends on the installed model and libraries only, never on a corpus: it is built once
        # per machine in the per-user model cache ($N2O_MODEL_CACHE, else ~/.cache/n2o-explorer/models), not in
        # each workspace cache, so an emptied ./cache does not export again.
        return MiniLMEmbedder(pooling)

    return make


def _onnx_minilm(cache_dir: Path | None) -> Embedder:
    from n2o_core.embedders.onnx_minilm import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder()


def _e5(cache_dir: Path | None) -> Embedder:
    from n2o_core.embedders.e5 import E5Embedder

    return E5Embedder()


# ---------------------------------------------------------------- the table


def _averaged(info: EmbedderInfo, factory: Callable[[str, frozenset[str]], Factory]) -> tuple[Builtin, Builtin]:
    """An averaged word-vector embedder as two rows: all tokens (a default) and stop words dropped."""
    nostop = replace(info, id=info.id + NOSTOP_SUFFIX, composition=AVERAGE_NO_STOP_WORDS, default=False)
    return (Builtin(info, factory(info.id, frozenset())), Builtin(nostop, factory(nostop.id, SBERT_STOP_WORDS)))


def _preset(name: str) -> Callable[[str, frozenset[str]], Factory]:
    return lambda embedder_id, stop_words: _trained(name, embedder_id, stop_words)


#: Every built-in embedder, in display order (Table 1 style; each -nostop row beside its all-tokens row).
BUILTINS: tuple[Builtin, ...] = (
    Builtin(
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
        _tfidf,
    ),
    *_averaged(
        EmbedderInfo(
            "glove-6b-50d",
            "GloVe",
            AVERAGE_ALL_TOKENS,
            50,
            "GloVe: Wikipedia 2014 + Gigaword 5 (6B tokens, uncased, 400k words)",
            family_group="static averages",
        ),
        _glove,
    ),
    *_averaged(
        EmbedderInfo(
            "word2vec",
            "word2vec",
            AVERAGE_ALL_TOKENS,
            100,
            f"word2vec skip-gram trained on {_CORPUS} (5 epochs)",
            corpus_trained=True,
            family_group="static averages",
        ),
        _preset("word2vec"),
    ),
    *_averaged(
        EmbedderInfo(
            "fasttext",
            "fastText",
            AVERAGE_ALL_TOKENS,
            100,
            f"fastText CBOW without subwords trained on {_CORPUS} (5 epochs)",
            corpus_trained=True,
            family_group="static averages",
        ),
        _preset("fasttext"),
    ),
    *_averaged(
        EmbedderInfo(
            "fasttext-sub",
            "fastText",
            AVERAGE_ALL_TOKENS,
            100,
            f"fastText CBOW + subword information (char 3-6-grams) trained on {_CORPUS} (5 epochs)",
            corpus_trained=True,
            family_group="subword",
        ),
        _preset("fasttext-sub"),
    ),
    Builtin(
        EmbedderInfo(
            "model2vec",
            "model2vec",
            "model2vec",
            256,
            "static token vectors distilled from all-MiniLM-L6-v2 (model2vec: PCA to 256-d, SIF weights)",
            family_group="distilled",
        ),
        _model2vec,
    ),
    Builtin(
        EmbedderInfo(
            "minilm-l6-mean",
            "MiniLM",
            "mean",
            384,
            "all-MiniLM-L6-v2: MiniLM fine-tuned contrastively on ~1B sentence pairs (its trained pooling)",
            family_group="transformers",
        ),
        _minilm("mean"),
    ),
    Builtin(
        EmbedderInfo(
            "minilm-l6-cls",
            "MiniLM",
            "cls",
            384,
            "all-MiniLM-L6-v2, [CLS] token of the last layer (not the pooling it was trained with)",
            family_group="transformers",
        ),
        _minilm("cls"),
    ),
    Builtin(
        EmbedderInfo(
            "paraphrase-minilm-l3-mean",
            "MiniLM",
            "mean",
            384,
            "paraphrase-MiniLM-L3-v2 (3 layers, ONNX): distilled and tuned on paraphrase pairs",
            family_group="transformers",
        ),
        _onnx_minilm,
    ),
    Builtin(
        EmbedderInfo(
            "e5-small",
            "E5",
            "mean",
            384,
            "multilingual-e5-small (4-bit): weakly supervised contrastive pretraining + fine-tuning, 'passage:' prefix",
            family_group="transformers",
        ),
        _e5,
    ),
)

_BY_ID: dict[str, Builtin] = {row.info.id: row for row in BUILTINS}

#: Registry entries of every built-in embedder, in display order.
BUILTIN_INFOS: tuple[EmbedderInfo, ...] = tuple(row.info for row in BUILTINS)
#: Ids of every built-in embedder (what `get_embedder` resolves without a user-spec prefix).
BUILTIN_EMBEDDER_IDS: tuple[str, ...] = tuple(_BY_ID)
#: The default embedders (Table 1 of Lin & Smith 2019 as far as it loads offline): rows with `default` set.
DEFAULT_INFOS: tuple[EmbedderInfo, ...] = tuple(i for i in BUILTIN_INFOS if i.default)
DEFAULT_EMBEDDER_IDS: tuple[str, ...] = tuple(i.id for i in DEFAULT_INFOS)


def builtin(embedder_id: str) -> Builtin:
    """The table row of a built-in embedder (KeyError when unknown)."""
    return _BY_ID[embedder_id]


def default_info(embedder_id: str) -> EmbedderInfo:
    """The registry entry of a built-in embedder, default or not (KeyError when unknown)."""
    return _BY_ID[embedder_id].info


def with_stop_words_dropped(embedder_id: str) -> str:
    """The built-in `-nostop` row of an averaged embedder (the id itself when it has none)."""
    candidate = embedder_id + NOSTOP_SUFFIX
    return candidate if candidate in BUILTIN_EMBEDDER_IDS else embedder_id
