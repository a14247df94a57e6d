"""A bounded, process-wide memo: the least recently used entry goes first once it holds `maxsize` entries, so a
visitor cycling link parameters (seeds, sizes) cannot grow the server's memory without end."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any


class LRU(OrderedDict):
    """An OrderedDict that keeps at most `maxsize` entries; reading an entry marks it as recently used."""

    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = maxsize

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        self.move_to_end(key)
        return value

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.maxsize:
            self.popitem(last=False)
