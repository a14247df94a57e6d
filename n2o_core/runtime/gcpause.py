"""Python's cyclic garbage collector paused around work that builds many containers and no reference cycles."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic collector for the block; it is switched back on after it if it was on.

    Reading a 1M-line corpus builds lists of a million strings, and the collections its allocations trigger walk those
    lists again and again, a noticeable share of the read
    (measured: benchmarks/README.md, 'Measurements behind the code's choices'). Nothing in such a block creates
    reference cycles, so nothing is left for the collector to find. The switch is process-wide: another thread's cyclic
    garbage waits until the block ends."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
