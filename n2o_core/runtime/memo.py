"""The one memo of the code base: a bounded, thread-safe, process-wide mapping in which the least recently used
entry goes first once it holds `maxsize` entries, so a visitor cycling link parameters (seeds, sizes) cannot grow
a server's memory without end. docs/architecture.md ("Cache map") lists every memo, its key and its bound."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, MutableMapping
from typing import Any, TypeVar

__all__ = ["LRU"]

K = TypeVar("K")
V = TypeVar("V")


class LRU(MutableMapping[K, V]):
    """At most `maxsize` entries; reading one (`memo[key]`, `memo.get(key)`) marks it as recently used, and
    storing one beyond the bound drops the least recently used. Safe to share between threads (Streamlit runs
    every session in its own thread); iteration walks a snapshot, oldest first."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"an LRU holds at least one entry (maxsize={maxsize})")
        self.maxsize = int(maxsize)
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.RLock()

    def __getitem__(self, key: K) -> V:
        with self._lock:
            value = self._data[key]
            self._data.move_to_end(key)
            return value

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def __delitem__(self, key: K) -> None:
        with self._lock:
            del self._data[key]

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[K]:
        with self._lock:
            return iter(list(self._data))

    def get(self, key: K, default: Any = None) -> Any:
        """The entry (marked as recently used), else `default`."""
        with self._lock:
            if key not in self._data:
                return default
            return self[key]

    def snapshot(self) -> list[tuple[K, V]]:
        """The entries, least recently used first (none is marked as used)."""
        with self._lock:
            return list(self._data.items())

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __repr__(self) -> str:
        return f"LRU(maxsize={self.maxsize}, {len(self)} entries)"
