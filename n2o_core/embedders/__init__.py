"""Sentence embedders behind one small protocol (`base.Embedder`); see `registry` for ids and user specs."""

from .base import Embedder, EmbedderInfo, Progress
from .registry import DEFAULT_EMBEDDER_IDS, PrecomputedEmbedder, get_embedder, list_embedders, register_embedder

__all__ = [
    "DEFAULT_EMBEDDER_IDS",
    "Embedder",
    "EmbedderInfo",
    "PrecomputedEmbedder",
    "Progress",
    "get_embedder",
    "list_embedders",
    "register_embedder",
]
