"""Which embedders exist and how to get one: built-in ids and user specs.

Built-in ids (`DEFAULT_EMBEDDER_IDS`, rows of `list_embedders()`, mirroring Table 1 of Lin & Smith 2019) all
load offline from PyPI packages. User specs:
- `st:<name-or-path>`          any sentence-transformers model, its own pooling;
- `hf:<name-or-path>@<pooling>` transformers AutoModel, pooling cls / mean / max / last;
- `wv:<path>`                  word vectors, averaged: word2vec .bin/.txt, GloVe .txt (no header), fastText .bin;
- `npy:<path>`                 precomputed vectors, one row per corpus sentence (`PrecomputedEmbedder`).

Every failure to load raises EmbedderError with one sentence. Heavy libraries (torch, transformers, gensim,
onnxruntime) are imported inside the backends, so importing this module is cheap.

Zero vectors: a sentence with nothing to embed (tf-idf, averaged word vectors or model2vec with no known token;
an all-zero row of precomputed vectors) is an all-zero row, never NaN. `n2o_core.neighbors` gives it no direction:
as a candidate it is ranked after every real candidate, even one with negative cosine (used only when fewer than k
real ones remain, reported with cosine 0), so it never becomes everyone's neighbor; as a query it has no neighbors
(its row is all NO_NEIGHBOR), so it overlaps with nothing.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..errors import EmbedderError
from .base import Embedder, EmbedderInfo
from .catalog import DEFAULT_EMBEDDER_IDS, DEFAULT_INFOS
from .precomputed import PrecomputedEmbedder

__all__ = [
    "DEFAULT_EMBEDDER_IDS",
    "USER_SPEC_PREFIXES",
    "PrecomputedEmbedder",
    "get_embedder",
    "list_embedders",
    "register_embedder",
]

USER_SPEC_PREFIXES = ("st:", "hf:", "wv:", "npy:")
_USER: dict[str, Embedder] = {}
_SIGNATURES: dict[str, str | None] = {}  # user spec -> file signature when it was loaded
_USER_LOCK = threading.Lock()


def list_embedders(include_user: bool = False) -> list[EmbedderInfo]:
    """Rows of the embedders table: the built-ins, then (optionally) user embedders loaded in this process."""
    rows = list(DEFAULT_INFOS)
    if include_user:
        with _USER_LOCK:
            rows.extend(e.info for e in _USER.values())
    return rows


def register_embedder(embedder: Embedder) -> None:
    """Make a ready embedder (e.g. a PrecomputedEmbedder) available to get_embedder under its info.id."""
    if embedder.info.id in DEFAULT_EMBEDDER_IDS:
        raise EmbedderError(f"'{embedder.info.id}' is a built-in embedder id; pick another name.")
    with _USER_LOCK:
        _USER[embedder.info.id] = embedder


def _unknown(spec: str) -> EmbedderError:
    return EmbedderError(
        f"Unknown embedder '{spec}'; valid ids are {', '.join(DEFAULT_EMBEDDER_IDS)}, or a user spec "
        "st:<model>, hf:<model>@<cls|mean|max|last>, wv:<word-vector file> or npy:<vectors file>."
    )


def _builtin(spec: str, cache_dir: Path | None) -> Embedder:
    if spec == "tfidf":
        from .tfidf import TfidfEmbedder

        return TfidfEmbedder(cache_dir)
    if spec in ("word2vec", "fasttext", "fasttext-sub"):
        from .trained_vectors import TrainedVectorsEmbedder

        return TrainedVectorsEmbedder(spec, cache_dir)
    if spec == "glove-6b-50d":
        from .static import glove_embedder

        return glove_embedder()
    if spec == "model2vec":
        from .m2v import Model2VecEmbedder

        return Model2VecEmbedder(cache_dir)
    if spec in ("minilm-l6-mean", "minilm-l6-cls"):
        from .sbert import MiniLMEmbedder

        return MiniLMEmbedder(spec.rsplit("-", 1)[1], cache_dir)
    if spec == "paraphrase-minilm-l3-mean":
        from .onnx_minilm import OnnxMiniLMEmbedder

        return OnnxMiniLMEmbedder()
    if spec == "e5-small":
        from .e5 import E5Embedder

        return E5Embedder()
    raise _unknown(spec)  # pragma: no cover - catalog and factories disagree


def _user(spec: str) -> Embedder:
    prefix, _, rest = spec.partition(":")
    rest = rest.strip()
    if not rest:
        raise EmbedderError(f"Embedder spec '{spec}' names no model or file after '{prefix}:'.")
    if prefix == "st":
        from .sbert import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(spec, rest)
    if prefix == "hf":
        name, at, pooling = rest.rpartition("@")
        if not at or not name:
            raise EmbedderError(f"Embedder spec '{spec}' needs a pooling: hf:<model>@cls, @mean, @max or @last.")
        from .hf import HFEmbedder

        return HFEmbedder(spec, name, pooling.strip().lower())
    if prefix == "wv":
        from .static import word_vectors_embedder

        return word_vectors_embedder(spec, rest)
    if prefix == "npy":
        return PrecomputedEmbedder(spec, rest)
    raise _unknown(spec)


def get_embedder(spec: str, cache_dir: Path | str | os.PathLike | None = None) -> Embedder:
    """A new embedder for a built-in id or a user spec (see module docstring); models load lazily or now.

    `cache_dir` holds fitted state of corpus-trained embedders and the distilled model2vec model; without it
    they are trained / distilled in memory for this process only.
    """
    spec = str(spec).strip()
    cache = Path(cache_dir) if cache_dir is not None else None
    if spec in DEFAULT_EMBEDDER_IDS:
        return _builtin(spec, cache)
    signature = _file_signature(spec)
    with _USER_LOCK:
        if spec in _USER and _SIGNATURES.get(spec) == signature:
            return _USER[spec]
    if not spec.startswith(USER_SPEC_PREFIXES):
        raise _unknown(spec)
    embedder = _user(spec)
    with _USER_LOCK:
        _USER[spec] = embedder
        _SIGNATURES[spec] = signature
    return embedder


def _file_signature(spec: str) -> str | None:
    """Size and mtime of the file behind a wv:/npy: spec, so a replaced file is loaded again (None otherwise)."""
    prefix, _, rest = spec.partition(":")
    if prefix not in ("wv", "npy"):
        return None
    try:
        st = Path(rest.strip()).expanduser().stat()
    except OSError:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}"
