"""The built-in embedders: each registry entry (`infos.BUILTIN_INFOS`) paired with its factory.

Factories import their backend when called, so importing this module (and the registry) stays cheap; each
backend reads its own registry entry from `infos`, which imports no backend (no import circle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from n2o_core.embedders.base import Embedder, EmbedderInfo
from n2o_core.embedders.infos import BUILTIN_INFOS, NOSTOP_SUFFIX
from n2o_core.text import SBERT_STOP_WORDS

#: Makes the embedder of a row; gets the workspace's cache folder for state fitted on a corpus (None: in memory
#: only). Models derived from installed packages alone (the MiniLM ONNX export, model2vec's distillation) live in
#: the per-user model cache instead (`_onnx.user_model_cache`).
Factory = Callable[[Path | None], Embedder]


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


def _averaged(embedder_id: str, factory: Callable[[str, frozenset[str]], Factory]) -> dict[str, Factory]:
    """An averaged word-vector embedder's two factories: all tokens, and stop words dropped (`-nostop`)."""
    nostop = embedder_id + NOSTOP_SUFFIX
    return {embedder_id: factory(embedder_id, frozenset()), nostop: factory(nostop, SBERT_STOP_WORDS)}


def _preset(name: str) -> Callable[[str, frozenset[str]], Factory]:
    return lambda embedder_id, stop_words: _trained(name, embedder_id, stop_words)


#: The factory of every built-in embedder, by id.
FACTORIES: dict[str, Factory] = {
    "tfidf": _tfidf,
    **_averaged("glove-6b-50d", _glove),
    **_averaged("word2vec", _preset("word2vec")),
    **_averaged("fasttext", _preset("fasttext")),
    **_averaged("fasttext-sub", _preset("fasttext-sub")),
    "model2vec": _model2vec,
    "minilm-l6-mean": _minilm("mean"),
    "minilm-l6-cls": _minilm("cls"),
    "paraphrase-minilm-l3-mean": _onnx_minilm,
    "e5-small": _e5,
}

#: Every built-in embedder, in display order: its registry entry and its factory.
BUILTINS: tuple[Builtin, ...] = tuple(Builtin(info, FACTORIES[info.id]) for info in BUILTIN_INFOS)
_BY_ID: dict[str, Builtin] = {row.info.id: row for row in BUILTINS}


def builtin(embedder_id: str) -> Builtin:
    """The table row of a built-in embedder (KeyError when unknown)."""
    return _BY_ID[embedder_id]
