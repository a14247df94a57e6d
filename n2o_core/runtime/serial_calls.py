"""One job for several calls of the same function, one after another, each reported as it starts, advances and
ends.

The dashboard runs its heavy jobs through `runtime.child`; a page that scores six embedders (or checks several
findings) used to start a child per call, each paying for an interpreter, its imports and its own model loading.
`each_call` lets one child make every call while the page still draws a bar per call and keeps the ones that
worked when another fails:

    child.call(each_embedder, run_sts, (ws, pairs), ["glove-6b-50d", "minilm-l6-mean"],
               callbacks={"on_event": handler}, listed=True)

calls `run_sts(ws, pairs, ["glove-6b-50d"])`, then the next, and reports through `on_event(kind, name, payload)`:

- "start", None: the call's turn begins;
- "stage", a `progress.ProgressEvent`: with `report_progress`, each event the call reports to its `progress=`;
- "done", result: what it returned;
- "failed", exception: what it raised (the others go on).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from n2o_core.runtime.progress import Progress, ProgressEvent

__all__ = ["CallEvent", "each_call", "each_embedder"]

#: on_event(kind, name, payload): kind is "start", "stage", "done" or "failed" (see the module docstring).
CallEvent = Callable[[str, str, Any], None]


def each_call(
    fn: Callable[..., Any],
    calls: Sequence[tuple[str, Sequence[Any]]],
    *,
    on_event: CallEvent,
    report_progress: bool = False,
    **kwargs: Any,
) -> None:
    """`fn(*args, **kwargs)` for each (name, args) of `calls`, in order, with `progress=` relayed as "stage"
    events when `report_progress`; every outcome goes to `on_event` under its name. An exception raised by
    `on_event` itself stops the loop."""
    for name, args in calls:
        on_event("start", name, None)
        extra = dict(kwargs)
        if report_progress:
            extra["progress"] = _relay(on_event, name)
        try:
            result = fn(*args, **extra)
        except Exception as e:  # noqa: BLE001 - reported per call; the others go on
            on_event("failed", name, e)
            continue
        on_event("done", name, result)


def _relay(on_event: CallEvent, name: str) -> Progress:
    """A `progress=` callback that passes each event on as the call's "stage" event."""

    def cb(event: ProgressEvent) -> None:
        on_event("stage", name, event)

    return cb


def each_embedder(
    fn: Callable[..., Any],
    args: Sequence[Any],
    names: Sequence[str],
    *,
    on_event: CallEvent,
    listed: bool = False,
    report_progress: bool = False,
    **kwargs: Any,
) -> None:
    """`each_call` of `fn(*args, eid, **kwargs)` for each embedder id in `names`, named by it (`[eid]` when
    `listed`: jobs that take a list of embedders)."""
    calls = [(eid, (*args, [eid] if listed else eid)) for eid in names]
    each_call(fn, calls, on_event=on_event, report_progress=report_progress, **kwargs)
