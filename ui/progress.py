"""The core's progress (`n2o_core.runtime.progress`: one `ProgressEvent(stage, item, done, total)` per call) drawn
on one `st.progress` bar.

A bar is redrawn only when the stage or the whole percentage changes, and an update that Streamlit refuses (a call
from a worker thread without a script context) is skipped: progress is never worth an error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from n2o_core.runtime.progress import Progress, ProgressEvent
from n2o_core.text import escape_markup


def bar_progress(bar: Any, text: Callable[[ProgressEvent], str], also: Progress | None = None) -> Progress:
    """A `Progress` that draws each event on `bar` with the line `text(event)`.

    `also` runs after each redraw (same event), under the same rule: a refused update is skipped.
    """
    last: list[tuple[str, int] | None] = [None]

    def cb(event: ProgressEvent) -> None:
        pct = int(100 * event.done / event.total) if event.total else 100
        if (event.stage, pct) == last[0]:
            return
        last[0] = (event.stage, pct)
        with contextlib.suppress(Exception):  # progress from a worker thread: skip the update
            bar.progress(min(max(pct, 0), 100) / 100, text=escape_markup(text(event)))
            if also is not None:
                also(event)

    return cb


def stage_progress(bar: Any, text: Mapping[str, str], prefix: str = "") -> Progress:
    """A `Progress` on one bar: each stage named by `text` (else by itself), then done/total."""
    return bar_progress(bar, lambda e: f"{prefix}{text.get(e.stage, e.stage)} {e.done:,}/{e.total:,}")


__all__ = ["bar_progress", "stage_progress"]
