"""The one bar loop of the dashboard: a job that makes several named calls and reports each one
(`runtime.serial_calls`' events, or `pipeline.prepare_each`'s), run through `runtime.child` (one child process for
all the calls when isolating, in this process otherwise), drawn as a bar per call in the current Streamlit container
(an `st.status`), each call kept as it ends and each failure turned into a sentence while the others go on.

A job of one call (`run_with_bar`) goes the same way: its own `st.status` with one bar, its result returned and its
exception raised as they are (the page says it in a sentence, `guard.message`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import streamlit as st

from n2o_core.runtime import child, notices
from n2o_core.runtime.progress import Progress, ProgressEvent
from n2o_core.runtime.serial_calls import each_call
from n2o_core.text import escape_markup

from .guard import message
from .progress import bar_progress

T = TypeVar("T")


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
    _run(view, job, args, isolate, {}, kwargs)
    return view.errors


def _run(
    view: _Bars,
    job: Callable[..., Any],
    args: tuple[Any, ...],
    isolate: bool | None,
    callbacks: Mapping[str, Callable[..., Any]],
    kwargs: dict[str, Any],
) -> None:
    """The job through `child.call`, its events drawn by `view` (with `callbacks`, the job's other callbacks)."""
    try:
        with notices.listen(view.notice) if view.lines else contextlib.nullcontext():
            child.call(
                job,
                *args,
                callbacks={**callbacks, "on_event": view.on_event},
                isolate=isolate,
                report_progress=view.stages is not None,
                **kwargs,
            )
    except Exception as e:  # noqa: BLE001 - the job's process itself failed: the calls left get its sentence
        for name in view.names:
            if name not in view.ended:
                view.failed(name, e)


def run_with_bar(
    job: Callable[..., T],
    *args: Any,
    title: str,
    ready: Callable[[T], str],
    bar_text: Callable[[ProgressEvent], str | None] | None = None,
    failed: str | None = None,
    some_failed: Callable[[T], bool] | None = None,
    expanded: bool = False,
    more: Callable[[Any, Any], Mapping[str, Callable[..., None]]] | None = None,
    isolate: bool | None = None,
    bar_start: str = "starting",
    **kwargs: Any,
) -> T:
    """`job(*args, **kwargs)` as a job of one call of `run_with_bars` (`runtime.serial_calls.each_call` through
    `child.call`: in a child process when isolating, default `child.isolating()`), in an `st.status` labelled
    `title` with one bar (`bar_start` until the job reports: what it does before its first event). The bar shows
    each progress event as `bar_text(event)` (None: the bar is left as it is; `bar_text` None: the job is not asked
    for progress). `more(bar, status)` gives the job's other callbacks (keyword -> callable), drawn in this thread
    as the events are.

    Done: the status is labelled `ready(result)`, complete (an error when `some_failed(result)`), folded, and the
    result returned. A failure (or the job's process dying) labels it `failed` (default: `title`) in the error
    state and raises the exception as it is. Every label is plain text (escaped here)."""
    got: list[tuple[T, str]] = []

    def keep(_name: str, result: T) -> str:
        got.append((result, ready(result)))
        return got[-1][1]

    with st.status(escape_markup(title), expanded=expanded) as status:
        bar = st.progress(0.0, text=escape_markup(bar_start))
        view = _Bars(
            names=[title],
            what=None,
            keep=keep,
            bar_text=None,
            stages=(lambda drawn, _name: bar_progress(drawn, bar_text)) if bar_text is not None else None,
            on_start=None,
            say_failures=False,
            lines=False,
            bars={title: bar},
        )
        _run(view, each_call, (job, [(title, args)]), isolate, more(bar, status) if more is not None else {}, kwargs)
        if not got:
            status.update(label=escape_markup(failed or title), state="error", expanded=False)
            raise view.raised[title]
        result, label = got[0]
        ok = some_failed is None or not some_failed(result)
        status.update(label=escape_markup(label), state="complete" if ok else "error", expanded=False)
    return result


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
    what: Callable[[str], str] | None  # None: a failure is not said here but kept in `raised` (`run_with_bar`)
    keep: Callable[[str, Any], str | None]
    bar_text: Callable[[str], str] | None
    stages: Callable[[Any, str], Progress] | None
    on_start: Callable[[int, str, Any], str | None] | None
    say_failures: bool
    lines: bool
    errors: dict[str, str] = field(default_factory=dict)
    raised: dict[str, BaseException] = field(default_factory=dict)
    ended: set[str] = field(default_factory=set)
    bars: dict[str, Any] = field(default_factory=dict)  # a bar drawn before its call starts is kept
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
        if name not in self.bars:
            text = self.bar_text(name) if self.bar_text is not None else None
            self.bars[name] = st.progress(0.0, text=escape_markup(text) if text is not None else None)
        if doing is not None:
            self.say(name, doing)
        if self.stages is not None:
            self.steps[name] = self.stages(self.bars[name], name)

    def done(self, name: str, result: Any) -> None:
        label = self.keep(name, result)  # a `keep` that raises leaves the call to fail with its exception
        self.ended.add(name)
        if self.lines:
            self.bars[name].progress(1.0)
            if label is not None:
                self.say(name, label)
        else:
            self.bars[name].progress(1.0, text=escape_markup(label or f"{name}: done"))

    def failed(self, name: str, error: BaseException) -> None:
        self.ended.add(name)
        self.raised[name] = error
        if name in self.bars:
            self.bars[name].empty()
        if self.what is None:
            return
        self.errors[name] = message(error, self.what(name))
        if self.lines and name in self.rows:
            self.say(name, f"failed — {self.errors[name]}")
        elif self.say_failures:
            st.markdown(f"**{escape_markup(name)}**: failed — {escape_markup(self.errors[name])}")

    def notice(self, sentence: str) -> None:
        """A notice of the job (another process computes it, ...), on the line of the call under way."""
        if self.current is not None:
            self.say(self.current, sentence)


__all__ = ["close_embedders", "run_embedders", "run_with_bar", "run_with_bars"]
