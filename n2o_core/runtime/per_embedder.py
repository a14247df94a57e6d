"""One job for several embedders, one embedder after another, each reported as it starts, advances and ends.

The dashboard runs its heavy jobs through `runtime.child`; a page that scores six embedders used to start six
children, each paying for an interpreter, its imports and its own model loading. `each_embedder` lets one child
do them all while the page still draws a bar per embedder and keeps the ones that worked when another fails:

    child.call(each_embedder, run_sts, (ws, pairs), ["glove-6b-50d", "minilm-l6-mean"],
               callbacks={"on_event": handler}, listed=True)

calls `run_sts(ws, pairs, ["glove-6b-50d"])`, then the next, and reports through `on_event(kind, eid, payload)`:

- "start", None: the embedder's turn begins;
- "stage", (the job's progress arguments): with `report_progress`, each call of the job's `progress=` callback;
- "done", result: what the job returned for it;
- "failed", exception: what it raised (the others go on).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["EmbedderEvent", "each_embedder"]

#: on_event(kind, eid, payload): kind is "start", "stage", "done" or "failed" (see the module docstring).
EmbedderEvent = Callable[[str, str, Any], None]


def each_embedder(
    fn: Callable[..., Any],
    args: Sequence[Any],
    names: Sequence[str],
    *,
    on_event: EmbedderEvent,
    listed: bool = False,
    report_progress: bool = False,
    **kwargs: Any,
) -> None:
    """`fn(*args, eid, **kwargs)` for each embedder id in `names` (`[eid]` when `listed`: jobs that take a list
    of embedders), with `progress=` relayed as "stage" events when `report_progress`; every outcome goes to
    `on_event`. An exception raised by `on_event` itself stops the loop."""
    for eid in names:
        on_event("start", eid, None)
        extra = dict(kwargs)
        if report_progress:
            extra["progress"] = lambda *a, _eid=eid: on_event("stage", _eid, a)
        try:
            result = fn(*args, [eid] if listed else eid, **extra)
        except Exception as e:  # noqa: BLE001 - reported per embedder; the others go on
            on_event("failed", eid, e)
            continue
        on_event("done", eid, result)
