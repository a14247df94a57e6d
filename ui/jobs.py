"""A job that makes several named calls and reports each one (`n2o_core.runtime.each`), run through
`runtime.child` (one child process for all the calls when isolating, in this process otherwise), drawn as a bar
per call in the current Streamlit container (an `st.status`), each call kept as it ends and each failure turned
into a sentence while the others go on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from n2o_core.runtime import child
from n2o_core.text import escape_markup

from .guard import message


def run_with_bars(
    job: Callable[..., None],
    *args: Any,
    names: Sequence[str],
    what: Callable[[str], str],
    keep: Callable[[str, Any], str | None],
    bar_text: Callable[[str], str] = str,
    stages: Callable[[Any, str], Callable[..., None]] | None = None,
    on_start: Callable[[int, str], None] | None = None,
    say_failures: bool = False,
    **kwargs: Any,
) -> dict[str, str]:
    """`child.call(job, *args, callbacks={"on_event": ...}, **kwargs)` for a job of `runtime.each` whose calls are
    `names`. On each call's start: `on_start(index, name)`, then a bar labelled `bar_text(name)`; its progress
    drawn by `stages(bar, name)` (which also asks the job to report progress); when done, `keep(name, result)`,
    whose string (if any) labels the full bar. A failure, or the job's process dying, gives the name the sentence
    `message(error, what(name))` (shown under the bars with `say_failures`). Returns {name: sentence}."""
    errors: dict[str, str] = {}
    bars: dict[str, Any] = {}
    steps: dict[str, Callable[..., None]] = {}
    ended: set[str] = set()

    def failed(name: str, error: BaseException) -> None:
        ended.add(name)
        errors[name] = message(error, what(name))
        if name in bars:
            bars[name].empty()
        if say_failures:
            st.markdown(f"**{escape_markup(name)}**: failed — {escape_markup(errors[name])}")

    def on_event(event: str, name: str, payload: Any) -> None:
        if event == "start":
            if on_start is not None:
                on_start(list(names).index(name), name)
            bars[name] = st.progress(0.0, text=escape_markup(bar_text(name)))
            if stages is not None:
                steps[name] = stages(bars[name], name)
        elif event == "stage" and name in steps:
            steps[name](*payload)
        elif event == "done":
            ended.add(name)
            bars[name].progress(1.0, text=escape_markup(keep(name, payload) or f"{name}: done"))
        elif event == "failed":
            failed(name, payload)

    try:
        child.call(job, *args, callbacks={"on_event": on_event}, report_progress=stages is not None, **kwargs)
    except Exception as e:  # noqa: BLE001 - the job's process itself failed: the calls left get its sentence
        for name in names:
            if name not in ended:
                failed(name, e)
    return errors
