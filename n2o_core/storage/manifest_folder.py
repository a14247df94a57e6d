"""A folder written atomically with a manifest: one folder per key, no pickle (an embedder's fitted or distilled
state, an ONNX export).

A folder holds plain files (JSON, .npy, safetensors) plus `manifest.json`, written last, listing every
file with its size and sha256. A folder whose manifest is missing, unreadable or does not match its files is
treated as absent (and replaced by the next write). Folders are built under a temporary name beside the target
and moved into place with os.replace, so readers never see a half-written folder.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from n2o_core.errors import CacheError
from n2o_core.storage.fileio import file_sha256

__all__ = ["MANIFEST", "folder_path", "load_json", "load_npy", "read_manifest", "save_json", "save_npy", "write_folder"]

MANIFEST = "manifest.json"
FORMAT = 1


def folder_path(cache_dir: str | os.PathLike, kind: str, key: str) -> Path:
    """Where one folder lives: <cache_dir>/<kind>/<key>."""
    return Path(cache_dir) / kind / key


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest's `meta` when the folder is complete and intact, else None."""
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("format") != FORMAT:
            return None
        for name, (size, sha) in manifest["files"].items():
            f = path / name
            if not f.is_file() or f.stat().st_size != size or file_sha256(f) != sha:
                return None
        return dict(manifest.get("meta", {}))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_folder(path: Path, build: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    """Run `build(tmp_dir)` (writes files, returns JSON-able meta), then publish the folder at `path`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.parent / f".tmp-{path.name}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
    except OSError as exc:
        raise CacheError(f"Cannot write {path.name} under {path.parent}: {exc.strerror or exc}.") from exc
    try:
        meta = build(tmp)
        files = {
            str(f.relative_to(tmp)): (f.stat().st_size, file_sha256(f)) for f in sorted(tmp.rglob("*")) if f.is_file()
        }
        manifest = {"format": FORMAT, "files": files, "meta": meta}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if path.exists():
            shutil.rmtree(path, ignore_errors=True)  # stale or corrupt: replace it
        try:
            os.replace(tmp, path)
        except OSError:
            if read_manifest(path) is None:  # not a concurrent writer's good copy
                raise
        return meta
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def save_npy(path: Path, arr: np.ndarray) -> None:
    np.save(path, np.ascontiguousarray(arr), allow_pickle=False)


def load_npy(path: Path) -> np.ndarray:
    return np.load(path, allow_pickle=False)


def save_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
