"""Content-addressed disk cache for embeddings and neighbor sets (under cache/ by default).

- Arrays are .npy (memory-mapped on load) or .npz (scipy CSR, neighbor sets), small documents (generated
  HEROS pairs) JSON; nothing is pickled.
- Every entry has a JSON sidecar written after the data; an entry counts only if the sidecar matches the
  file (size, shape, dtype, digest of its first and last MiB). Anything else is corrupt: it is removed and
  rebuilt by the caller.
- Writes are atomic (temp file in the same folder, then os.replace); a per-entry lock file (fcntl) makes a
  second process wait for the first instead of writing the same entry at the same time.
- cache/manifest.json lists the entries (kind, key, shape, dtype, bytes, created, description).

Faults (docs/reliability.md has the tests and their figures):
- The lock is `fcntl.flock` on an open file, so the kernel releases it when its holder dies, kill -9 included:
  a lock file left on disk by a killed process holds no lock and never blocks the next run. (The lock goes with
  the open file, so it stays held while a child process forked by the holder keeps the file open.) A process
  that waits longer than `LOCK_NOTICE_S` for a lock says so through `n2o_core.runtime.notices` (the CLI prints the
  notice, the app shows it), naming the holder's pid and what it computes (the holder writes both into the
  lock file).
- A write that fails (disk full, quota, I/O error) raises CacheError with one sentence; the temporary file is
  removed and the entry is left absent (never half-written), so the cache's other entries stay valid.
- Entry paths are relative and stay inside the cache folder: an absolute path or a `..` part is refused.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
import scipy.sparse as sp

from n2o_core.errors import CacheError
from n2o_core.runtime.notices import notify
from n2o_core.storage.fileio import atomic_write, atomic_write_json, hash_key, head_tail_digest

__all__ = ["ENV_VAR", "LOCK_NOTICE_S", "Cache", "default_cache_dir", "hash_key"]

ENV_VAR = "N2O_CACHE_DIR"
#: A process waiting this long (seconds) for another one's lock says so, then every LOCK_NOTICE_EVERY_S.
LOCK_NOTICE_S = 3.0
LOCK_NOTICE_EVERY_S = 10.0

#: Bumped whenever a change alters cached arrays; part of every cache key.
CACHE_CODE_VERSION = "1"


def _nearly_full(path: Path) -> bool:
    """Whether the filesystem holding `path` (or its nearest existing parent) has less than 1 MiB free."""
    for p in (path, *path.parents):
        if p.exists():
            try:
                return shutil.disk_usage(p).free < (1 << 20)
            except OSError:
                return False
    return False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists
        return True
    return True


def _holder(f: IO[str]) -> dict:
    """What the lock's holder wrote into the lock file ({} when unreadable or empty)."""
    try:
        f.seek(0)
        doc = json.loads(f.read() or "{}")
        return doc if isinstance(doc, dict) else {}
    except (OSError, ValueError):
        return {}


def _wait_sentence(holder: dict, what: str, waited: float) -> str:
    pid = holder.get("pid")
    doing = holder.get("what") or what
    if isinstance(pid, int) and pid != os.getpid() and not _pid_alive(pid):
        who = f"a child of process {pid} (which has ended; the lock is released when the child exits)"
    elif isinstance(pid, int):
        who = f"another process (pid {pid})" if pid != os.getpid() else "another session of this process"
    else:
        who = "another process"
    return f"Waiting for {who} that is computing {doing}: {waited:.0f} s so far; its result will be reused."


def default_cache_dir() -> Path:
    """$N2O_CACHE_DIR, else ./cache."""
    return Path(os.environ.get(ENV_VAR) or "cache")


class Cache:
    """The disk cache. `Cache()` uses $N2O_CACHE_DIR or ./cache."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else default_cache_dir()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.root, prefix=".write-test-"):
                pass
        except OSError as e:
            raise CacheError(f"The cache folder '{self.root}' cannot be written ({e.strerror or e}).") from e

    # ------------------------------------------------------------------ paths and locks

    def path(self, *parts: str) -> Path:
        """A path under the cache root (CacheError for an absolute path or a `..` part: never outside it)."""
        for part in parts:
            pp = Path(part)
            if pp.is_absolute() or ".." in pp.parts or "\x00" in part:
                raise CacheError(f"'{part[:80]}' is not a cache entry name (it would point outside the cache).")
        return self.root.joinpath(*parts)

    @contextlib.contextmanager
    def lock(self, rel: str, what: str | None = None) -> Iterator[None]:
        """Exclusive inter-process (and inter-thread) lock for one entry; blocks until the holder is done.

        `what` (default: `rel`) is what the holder computes, shown to a process that waits for it: after
        LOCK_NOTICE_S seconds of waiting, and every LOCK_NOTICE_EVERY_S after that, a sentence naming the holder's
        pid, `what` and the time waited goes to `runtime.notices.notify` (the front end's listener, else the log)."""
        what = what or rel
        lock_path = self.path("locks", hash_key(rel) + ".lock")
        try:
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            f = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - entered just below, once it opened
        except OSError as e:
            raise CacheError(f"Cannot create the lock file {lock_path} ({e.strerror or e}).") from e
        with f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self._wait_for(f, what)
            try:
                with contextlib.suppress(OSError):  # who holds it, for waiters' notices (a full disk is fine)
                    f.truncate(0)
                    f.write(json.dumps({"pid": os.getpid(), "what": what, "since": time.time()}))
                    f.flush()
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    @staticmethod
    def _wait_for(f: IO[str], what: str) -> None:
        """Block until `f`'s lock is ours, telling the listener after LOCK_NOTICE_S (and then periodically)."""
        t0 = time.monotonic()
        next_notice = LOCK_NOTICE_S
        delay = 0.01
        while True:
            time.sleep(delay)
            delay = min(delay * 2, 0.25)
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
            waited = time.monotonic() - t0
            if waited >= next_notice:
                notify(_wait_sentence(_holder(f), what, waited))
                next_notice = waited + LOCK_NOTICE_EVERY_S

    # ------------------------------------------------------------------ entries

    def has(self, rel: str) -> bool:
        """Whether a valid entry (data file matching its sidecar, current code version) is stored at `rel`."""
        return self._valid(self.path(rel)) is not None

    def _sidecar(self, data_path: Path) -> Path:
        return data_path.with_name(data_path.name + ".json")

    def _valid(self, data_path: Path, expect: dict | None = None) -> dict | None:
        side = self._sidecar(data_path)
        if not data_path.exists() or not side.exists():
            return None
        try:
            meta = json.loads(side.read_text())
            if meta.get("code_version") != CACHE_CODE_VERSION:
                return None
            if data_path.stat().st_size != meta["bytes"] or head_tail_digest(data_path) != meta["digest"]:
                return None
            if expect and any(meta.get(k) != v for k, v in expect.items()):
                return None
            return meta
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _discard(self, data_path: Path) -> None:
        for p in (data_path, self._sidecar(data_path)):
            with contextlib.suppress(OSError):
                p.unlink()

    @contextlib.contextmanager
    def _writing(self, rel: str) -> Iterator[Path]:
        """The data path of `rel` for a write; an OSError (disk full, quota, I/O) leaves the entry absent and is
        raised as CacheError with one sentence (the temporary file is already gone: see fileio.atomic_write)."""
        p = self.path(rel)
        try:
            yield p
        except OSError as e:
            self._discard(p)  # data without a matching sidecar would only be removed by the next reader
            # numpy reports a short write on a full disk as "N requested and M written", without an errno
            full = e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) or (e.errno is None and _nearly_full(p))
            why = "the disk is full" if full and e.errno != errno.EFBIG else (e.strerror or str(e))
            raise CacheError(
                f"Could not write '{rel}' to the cache folder '{self.root}' ({why}); nothing was stored for it "
                "and the other cache entries are unchanged."
                + (" Free some space (or set N2O_CACHE_DIR to another disk) and run again." if full else "")
            ) from e

    def _commit(self, data_path: Path, kind: str, meta: dict) -> dict:
        meta = dict(meta)
        meta.update(
            kind=kind,
            code_version=CACHE_CODE_VERSION,
            bytes=data_path.stat().st_size,
            digest=head_tail_digest(data_path),
            created=time.strftime("%Y-%m-%dT%H:%M:%S"),
        )
        atomic_write_json(self._sidecar(data_path), meta)
        self._update_manifest(str(data_path.relative_to(self.root)), meta)
        return meta

    def _update_manifest(self, rel: str, meta: dict) -> None:
        path = self.path("manifest.json")
        with self.lock("manifest"):
            try:
                manifest = json.loads(path.read_text()) if path.exists() else {}
                if not isinstance(manifest, dict):
                    manifest = {}
            except (OSError, ValueError):
                manifest = {}  # a corrupt manifest is only an index: rebuild it from here on
            manifest.setdefault("entries", {})[rel] = {
                k: meta.get(k) for k in ("kind", "shape", "dtype", "bytes", "created", "description")
            }
            atomic_write_json(path, manifest)

    def manifest(self) -> dict:
        """The manifest (empty if missing or unreadable)."""
        try:
            return json.loads(self.path("manifest.json").read_text())
        except (OSError, ValueError):
            return {}

    # ------------------------------------------------------------------ dense arrays

    def load_dense(self, rel: str, mmap: bool = True) -> np.ndarray | None:
        """A cached .npy (memory-mapped), or None if absent or corrupt (a corrupt entry is removed)."""
        p = self.path(rel)
        meta = self._valid(p)
        if meta is None:
            if p.exists() or self._sidecar(p).exists():
                self._discard(p)
            return None
        try:
            arr = np.load(p, mmap_mode="r" if mmap else None, allow_pickle=False)
        except (OSError, ValueError):
            self._discard(p)
            return None
        if list(arr.shape) != meta.get("shape") or str(arr.dtype) != meta.get("dtype"):
            self._discard(p)
            return None
        return arr

    def save_dense(self, rel: str, arr: np.ndarray, description: str = "", **meta: Any) -> np.ndarray:
        """Store an array atomically and return it memory-mapped from disk."""
        arr = np.ascontiguousarray(arr)
        with self._writing(rel) as p:
            atomic_write(p, lambda f: np.save(f, arr, allow_pickle=False))
            self._commit(p, "dense", dict(meta, shape=list(arr.shape), dtype=str(arr.dtype), description=description))
        out = self.load_dense(rel)
        if out is None:
            raise CacheError(f"Could not read back the cache entry just written: {p}")
        return out

    # ------------------------------------------------------------------ JSON documents

    def load_json(self, rel: str) -> Any | None:
        """A cached JSON document, or None if absent or corrupt (a corrupt entry is removed)."""
        p = self.path(rel)
        if self._valid(p) is None:
            if p.exists() or self._sidecar(p).exists():
                self._discard(p)
            return None
        try:
            return json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self._discard(p)
            return None

    def save_json(self, rel: str, obj: Any, description: str = "", **meta: Any) -> None:
        """Store a JSON document atomically (no NaN: it is not JSON)."""
        data = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
        with self._writing(rel) as p:
            atomic_write(p, lambda f: f.write(data))
            self._commit(p, "json", dict(meta, shape=None, dtype="json", description=description))

    # ------------------------------------------------------------------ sparse matrices and array bundles

    def load_sparse(self, rel: str) -> sp.csr_matrix | None:
        """A cached CSR matrix, or None if absent or corrupt."""
        p = self.path(rel)
        meta = self._valid(p)
        if meta is None:
            self._discard(p)
            return None
        try:
            m = sp.load_npz(p).tocsr()
        except (OSError, ValueError, KeyError):
            self._discard(p)
            return None
        if list(m.shape) != meta.get("shape"):
            self._discard(p)
            return None
        return m

    def save_sparse(self, rel: str, m: sp.spmatrix, description: str = "", **meta: Any) -> sp.csr_matrix:
        """Store a sparse matrix atomically (.npz, no pickle)."""
        m = sp.csr_matrix(m)
        with self._writing(rel) as p:
            atomic_write(p, lambda f: sp.save_npz(f, m, compressed=False))
            self._commit(p, "sparse", dict(meta, shape=list(m.shape), dtype=str(m.dtype), description=description))
        return m

    def load_bundle(self, rel: str) -> dict[str, np.ndarray] | None:
        """A cached .npz of named arrays, or None if absent or corrupt."""
        p = self.path(rel)
        if self._valid(p) is None:
            self._discard(p)
            return None
        try:
            with np.load(p, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except (OSError, ValueError, KeyError):
            self._discard(p)
            return None

    def save_bundle(self, rel: str, description: str = "", meta: dict | None = None, **arrays: np.ndarray) -> None:
        """Store named arrays atomically as one .npz."""
        shapes = {k: list(v.shape) for k, v in arrays.items()}
        with self._writing(rel) as p:
            named: dict[str, Any] = dict(arrays)  # np.savez(file, *args, allow_pickle=..., **named)
            atomic_write(p, lambda f: np.savez(f, **named))
            self._commit(p, "bundle", dict(meta or {}, shape=shapes, dtype="mixed", description=description))
