"""What identifies an embedder's output on disk: the backends' code version and short stable hashes."""

from __future__ import annotations

import zlib

from n2o_core.storage.fileio import hash_key

__all__ = ["EMBEDDER_CODE_VERSION", "digest", "stable_hash"]

#: Bumped when a backend changes the vectors it returns for the same model and settings.
EMBEDDER_CODE_VERSION = "1"


def digest(*parts: object) -> str:
    """Short stable hash of JSON-able parts (`fileio.hash_key` with 20 hex digits, the length embedder keys use)."""
    return hash_key(*parts, length=20)


def stable_hash(text: str) -> int:
    """Process-independent string hash (gensim's default `hash` is salted per process)."""
    return zlib.crc32(text.encode("utf-8"))
