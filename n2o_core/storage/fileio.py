"""Files on disk, defined once: atomic writes, stable hashes of values, and the cheap identity of a file.

- `atomic_write`: the data go to a temporary file in the target's folder, are flushed and fsynced, and the file is
  renamed over the target (os.replace), so a reader never sees half a file and a killed writer leaves the old one.
- `hash_key`: a short, stable hash of JSON-able values (cache keys, fingerprints).
- `file_identity`: what identifies a file or a model folder without reading all of it: path, size, modification
  time and the bytes of its first and last MiB (for a folder: the same for every file in it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

_SPAN = 1 << 20  # bytes read from each end of a file for its identity


def hash_key(*parts: Any, length: int = 16) -> str:
    """Short stable hash of the parts (JSON-encoded with sorted keys; non-JSON values by str())."""
    blob = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:length]


def head_tail_digest(path: str | os.PathLike) -> str:
    """sha256 of a file's size and the bytes of its first and last MiB (the whole file when smaller)."""
    p = Path(path)
    size = p.stat().st_size
    h = hashlib.sha256(str(size).encode())
    with open(p, "rb") as f:
        h.update(f.read(_SPAN))
        if size > _SPAN:
            f.seek(max(size - _SPAN, _SPAN))
            h.update(f.read())
    return h.hexdigest()[:32]


def file_identity(path: str | os.PathLike) -> str:
    """Cheap identity of a local file or folder: absolute path, size, mtime and head/tail bytes of each file.

    A replaced or edited file gets a new identity; reading it costs at most 2 MiB per file."""
    p = Path(path).expanduser()
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file() and ".git" not in f.parts)
        return hash_key(str(p.resolve()), [_one_file(f, str(f.relative_to(p))) for f in files])
    return hash_key(_one_file(p, str(p.resolve())))


def _one_file(f: Path, name: str) -> list[Any]:
    st = f.stat()
    return [name, st.st_size, st.st_mtime_ns, head_tail_digest(f)]


def file_sha256(path: str | os.PathLike, chunk: int = 1 << 22) -> str:
    """sha256 of all of a file's bytes (streamed)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def atomic_write(path: str | os.PathLike, write: Callable[[IO[bytes]], Any], mode: int = 0o644) -> None:
    """Write a file atomically: `write(f)` fills a temporary file that then replaces `path`."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix="." + p.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)  # mkstemp makes the file private
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 text atomically."""
    data = text.encode("utf-8")
    atomic_write(path, lambda f: f.write(data))


def atomic_write_json(path: str | os.PathLike, obj: Any, *, indent: int | None = 1, allow_nan: bool = True) -> None:
    """Write a JSON document atomically (UTF-8, keys sorted)."""
    text = json.dumps(obj, indent=indent, sort_keys=True, ensure_ascii=False, allow_nan=allow_nan)
    atomic_write_text(path, text)


def json_plain(obj: Any, *, nan_as_none: bool = False) -> Any:
    """`obj` in JSON's own types, for `json.dumps` without a `default`: mappings (keys as str) and sequences
    walked, numpy scalars and arrays as Python numbers and lists, pandas' NA as None, anything else unknown as its
    str. With `nan_as_none`, NaN and infinities become None (for documents written with allow_nan=False)."""
    if isinstance(obj, Mapping):
        return {str(k): json_plain(v, nan_as_none=nan_as_none) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [json_plain(v, nan_as_none=nan_as_none) for v in obj]
    if hasattr(obj, "dtype") and callable(getattr(obj, "tolist", None)):  # numpy scalar or array
        return json_plain(obj.tolist(), nan_as_none=nan_as_none)
    if isinstance(obj, float):
        return None if nan_as_none and not math.isfinite(obj) else obj
    if obj is None or isinstance(obj, (str, int)):
        return obj
    if type(obj).__name__ == "NAType":  # pandas.NA
        return None
    return str(obj)


def json_objects(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number from 1, object) of every non-blank line of JSON Lines text; ValueError naming the line when one
    is not JSON or not a JSON object (the caller says which file)."""
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {n} is not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"line {n} is not a JSON object")
        yield n, obj
