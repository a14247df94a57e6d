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

#: What a bar of minimal pairs says before the first pair is made: the job loads WordNet and spaCy (on their first
#: use in this server) and parses the first sentences, and reports nothing until a pair is made.
LOADING_LEXICONS = "loading WordNet and spaCy, then parsing the first sentences"


def bar_progress(bar: Any, text: Callable[[ProgressEvent], str | None]) -> Progress:
    """A `Progress` that draws each event on `bar` with the line `text(event)` (an event whose line is None leaves
    the bar as it is)."""
    last: list[tuple[str, int] | None] = [None]

    def cb(event: ProgressEvent) -> None:
        pct = int(100 * event.done / event.total) if event.total else 100
        if (event.stage, pct) == last[0]:
            return
        line = text(event)
        if line is None:
            return
        last[0] = (event.stage, pct)
        with contextlib.suppress(Exception):  # progress from a worker thread: skip the update
            bar.progress(min(max(pct, 0), 100) / 100, text=escape_markup(line))

    return cb


def stage_line(text: Mapping[str, str], prefix: str = "") -> Callable[[ProgressEvent], str]:
    """A bar's line for each event: its stage named by `text` (else by itself), then done/total."""
    return lambda e: f"{prefix}{text.get(e.stage, e.stage)} {e.done:,}/{e.total:,}"


def stage_progress(bar: Any, text: Mapping[str, str], prefix: str = "") -> Progress:
    """A `Progress` on one bar with `stage_line`'s lines."""
    return bar_progress(bar, stage_line(text, prefix))


__all__ = ["bar_progress", "stage_line", "stage_progress"]
