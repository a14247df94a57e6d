"""What the engine keeps on disk: the content-addressed cache of embeddings, neighbors and generated pairs, and
the file primitives under it (atomic writes, stable hashes, a file's identity).

cache = Cache()                                    # under $N2O_CACHE_DIR, else cache/ (default_cache_dir)
X = cache.load_dense(rel)                          # .npy, memory-mapped, verified; None if absent or corrupt
X = cache.save_dense(rel, X, description="...")    # written atomically, returned memory-mapped
with cache.lock(rel, what="embedding ..."): ...    # one writer per entry across processes (fcntl)
atomic_write_json(path, obj); key = hash_key(*parts); file_identity(path)

Modules, lowest first (cache and manifest_folder import fileio):
  fileio  `atomic_write`, `atomic_write_text`, `atomic_write_json`, `hash_key`, `head_tail_digest`,
          `file_identity`, `file_sha256`, `json_plain`, `json_objects`
  manifest_folder  a folder written atomically with a manifest of its files' sizes and sha256 (an embedder's
          fitted or distilled state, an ONNX export): `folder_path`, `write_folder`, `read_manifest` (None when
          absent or damaged), `save_npy`/`load_npy`, `save_json`/`load_json` for the files inside
  cache   `Cache` (dense .npy, sparse .npz, bundles and JSON; a sidecar per entry, a manifest, locks that die with
          their holder, corrupt entries removed and rebuilt), `default_cache_dir`, ENV_VAR (N2O_CACHE_DIR),
          LOCK_NOTICE_S, CACHE_CODE_VERSION

The names below are resolved on first use, so importing `n2o_core.storage.fileio` does not import the cache (nor
numpy and scipy). Inside n2o_core, import from the modules themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "ENV_VAR",
    "Cache",
    "atomic_write",
    "atomic_write_json",
    "atomic_write_text",
    "default_cache_dir",
    "file_identity",
    "file_sha256",
    "folder_path",
    "hash_key",
    "json_objects",
    "json_plain",
    "read_manifest",
    "write_folder",
]

if TYPE_CHECKING:
    from n2o_core.storage.cache import ENV_VAR, Cache, default_cache_dir
    from n2o_core.storage.fileio import (
        atomic_write,
        atomic_write_json,
        atomic_write_text,
        file_identity,
        file_sha256,
        hash_key,
        json_objects,
        json_plain,
    )
    from n2o_core.storage.manifest_folder import folder_path, read_manifest, write_folder

_LAZY = {
    "atomic_write": "fileio",
    "atomic_write_json": "fileio",
    "atomic_write_text": "fileio",
    "file_identity": "fileio",
    "file_sha256": "fileio",
    "hash_key": "fileio",
    "json_objects": "fileio",
    "json_plain": "fileio",
    "folder_path": "manifest_folder",
    "read_manifest": "manifest_folder",
    "write_folder": "manifest_folder",
    "ENV_VAR": "cache",
    "Cache": "cache",
    "default_cache_dir": "cache",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use (keeps `import n2o_core.storage.fileio` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
