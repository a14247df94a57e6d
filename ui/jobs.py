"""The one bar loop of the dashboard: a job that makes several named calls and reports each one
(`runtime.serial_calls`' events, or `pipeline.prepare_each`'s), run through `runtime.child` (one child process for
all the calls when isolating, in this process otherwise), drawn as a bar per call in the current Streamlit container
(an `st.status`), each call kept as it ends and each failure turned into a sentence while the others go on."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from n2o_core.runtime import child, notices
from n2o_core.runtime.progress import Progress
from n2o_core.text import escape_markup

from .guard import message


def run_with_bars(
    job: Callable[..., Any],
    *args: Any,
    names: Sequence[str],
    what: Callable[[str], str],
    keep: Callable[[str, Any], str | None],
    bar_text: Callable[[str], str] | None = str,
    stages: Callable[[Any, str], Progress] | None = None,
    on_start: Callable[[int, str, Any], str | None] | None = None,
    say_failures: bool = False,
    lines: bool = False,
    isolate: bool | None = None,
    **kwargs: Any,
) -> dict[str, str]:
    """`child.call(job, *args, callbacks={"on_event": ...}, report_progress=..., isolate=isolate, **kwargs)` for a
    job whose calls are `names`, reporting each through `on_event(kind, name, payload)` ("start", "stage" with a
    ProgressEvent, "done" with the result, "failed" with the exception: `runtime.serial_calls`).

    On each call's start: `on_start(calls started before it, name, payload)`, then a bar (labelled
    `bar_text(name)` unless that is None), its progress drawn by `stages(bar, name)` (which also asks the job to
    report progress); when done, `keep(name, result)`, whose string (if any) labels the full bar. With `lines`, a
    line above each bar says instead what the call is doing: the string `on_start` returns, each notice the job
    sends while the call runs, then `keep`'s string or the failure (each shown as plain text). A failure, or the
    job's process dying, gives the name the sentence `message(error, what(name))` (shown under the bars with
    `say_failures`). Returns {name: sentence}."""
    view = _Bars(list(names), what, keep, bar_text, stages, on_start, say_failures, lines)
    try:
        with notices.listen(view.notice) if lines else contextlib.nullcontext():
            child.call(
                job,
                *args,
                callbacks={"on_event": view.on_event},
                isolate=isolate,
                report_progress=stages is not None,
                **kwargs,
            )
    except Exception as e:  # noqa: BLE001 - the job's process itself failed: the calls left get its sentence
        for name in names:
            if name not in view.ended:
                view.failed(name, e)
    return view.errors


def run_embedders(
    job: Callable[..., Any],
    *args: Any,
    names: Sequence[str],
    keep: Callable[[str, Any], str | None],
    stages: Callable[[Any, str], Progress],
    on_start: Callable[[int, str, Any], str | None],
    isolate: bool | None = None,
    **kwargs: Any,
) -> dict[str, str]:
    """`run_with_bars` for a job over embedders (`names` are their ids) as the pipeline's views draw it: a line
    above each bar ("**eid**: loading cached embeddings…", "ready in 1.2 s"), the bar named by its stages, and a
    failure said as "Embedder 'eid' ...". Returns {eid: sentence}."""
    return run_with_bars(
        job,
        *args,
        names=names,
        what=lambda eid: f"Embedder '{eid}'",
        keep=keep,
        bar_text=None,
        stages=stages,
        on_start=on_start,
        lines=True,
        isolate=isolate,
        **kwargs,
    )


def close_embedders(status: Any, ready: int, total: int, failed: bool) -> None:
    """After `run_embedders`: its `st.status` closed as "{ready} of {total} embedders ready" (an error state, left
    open, when some `failed`)."""
    status.update(label=f"{ready} of {total} embedders ready", state="error" if failed else "complete", expanded=failed)


@dataclass
class _Bars:
    """What `run_with_bars` draws, call by call, from the job's events."""

    names: list[str]
    what: Callable[[str], str]
    keep: Callable[[str, Any], str | None]
    bar_text: Callable[[str], str] | None
    stages: Callable[[Any, str], Progress] | None
    on_start: Callable[[int, str, Any], str | None] | None
    say_failures: bool
    lines: bool
    errors: dict[str, str] = field(default_factory=dict)
    ended: set[str] = field(default_factory=set)
    bars: dict[str, Any] = field(default_factory=dict)
    rows: dict[str, Any] = field(default_factory=dict)  # the line above each bar (with `lines`)
    steps: dict[str, Progress] = field(default_factory=dict)
    current: str | None = None  # the call under way: notices go on its line

    def on_event(self, kind: str, name: str, payload: Any) -> None:
        if kind == "start":
            self.start(name, payload)
        elif kind == "stage" and name in self.steps:
            self.steps[name](payload)
        elif kind == "done":
            self.done(name, payload)
        elif kind == "failed":
            self.failed(name, payload)

    def say(self, name: str, text: str) -> None:
        """`**name**: text` (plain text) on the call's line."""
        if name in self.rows:
            self.rows[name].markdown(f"**{escape_markup(name)}**: {escape_markup(text)}")

    def start(self, name: str, payload: Any) -> None:
        self.current = name
        doing = self.on_start(len(self.bars), name, payload) if self.on_start is not None else None
        if self.lines:
            self.rows[name] = st.empty()
        text = self.bar_text(name) if self.bar_text is not None else None
        self.bars[name] = st.progress(0.0, text=escape_markup(text) if text is not None else None)
        if doing is not None:
            self.say(name, doing)
        if self.stages is not None:
            self.steps[name] = self.stages(self.bars[name], name)

    def done(self, name: str, result: Any) -> None:
        self.ended.add(name)
        label = self.keep(name, result)
        if self.lines:
            self.bars[name].progress(1.0)
            if label is not None:
                self.say(name, label)
        else:
            self.bars[name].progress(1.0, text=escape_markup(label or f"{name}: done"))

    def failed(self, name: str, error: BaseException) -> None:
        self.ended.add(name)
        self.errors[name] = message(error, self.what(name))
        if name in self.bars:
            self.bars[name].empty()
        if self.lines and name in self.rows:
            self.say(name, f"failed — {self.errors[name]}")
        elif self.say_failures:
            st.markdown(f"**{escape_markup(name)}**: failed — {escape_markup(self.errors[name])}")

    def notice(self, sentence: str) -> None:
        """A notice of the job (another process computes it, ...), on the line of the call under way."""
        if self.current is not None:
            self.say(self.current, sentence)


__all__ = ["close_embedders", "run_embedders", "run_with_bars"]
