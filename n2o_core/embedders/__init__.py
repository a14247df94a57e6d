"""Sentence embedders behind one small protocol (`base.Embedder`); see `registry` for ids and user specs."""

from n2o_core.embedders.base import Embedder, EmbedderInfo
from n2o_core.embedders.registry import (
    BUILTIN_EMBEDDER_IDS,
    PAPER_EMBEDDER_IDS,
    PrecomputedEmbedder,
    default_info,
    engine_label,
    get_embedder,
    list_embedders,
    register_embedder,
)

__all__ = [
    "BUILTIN_EMBEDDER_IDS",
    "PAPER_EMBEDDER_IDS",
    "Embedder",
    "EmbedderInfo",
    "PrecomputedEmbedder",
    "default_info",
    "engine_label",
    "get_embedder",
    "list_embedders",
    "register_embedder",
]
