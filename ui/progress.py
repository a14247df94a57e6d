"""Progress callbacks of the core drawn on one `st.progress` bar.

The core reports progress as `(stage, done, total)` calls (the pipeline's `on_stage` adds the embedder id in
front). A bar is redrawn only when the stage or the whole percentage changes, and an update that Streamlit
refuses (a call from a worker thread without a script context) is skipped: progress is never worth an error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from n2o_core.text import escape_markup

Progress = Callable[[str, int, int], None]
StageProgress = Callable[[str, str, int, int], None]  # the pipeline's on_stage: (eid, stage, done, total)


def bar_progress(bar: Any, text: Callable[[str, int, int], str], also: Progress | None = None) -> Progress:
    """A `(stage, done, total)` callback that draws on `bar` with the line `text(stage, done, total)`.

    `also` runs after each redraw (same arguments), under the same rule: a refused update is skipped.
    """
    last: list[tuple[str, int] | None] = [None]

    def cb(stage: str, done: int, total: int) -> None:
        pct = int(100 * done / total) if total else 100
        if (stage, pct) == last[0]:
            return
        last[0] = (stage, pct)
        with contextlib.suppress(Exception):  # progress from a worker thread: skip the update
            bar.progress(min(max(pct, 0), 100) / 100, text=escape_markup(text(stage, done, total)))
            if also is not None:
                also(stage, done, total)

    return cb


def stage_progress(bar: Any, text: Mapping[str, str], prefix: str = "") -> StageProgress:
    """The pipeline's `on_stage` callback on one bar: each stage named by `text` (else by itself), then done/total."""
    draw = bar_progress(bar, lambda stage, done, total: f"{prefix}{text.get(stage, stage)} {done:,}/{total:,}")

    def cb(eid: str, stage: str, done: int, total: int) -> None:
        draw(stage, done, total)

    return cb


__all__ = ["Progress", "StageProgress", "bar_progress", "stage_progress"]
