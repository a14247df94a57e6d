"""Progress: how far a long job has come, in one shape everywhere.

Every function of the engine that runs long takes `progress: Progress | None = None` and calls it with a
`ProgressEvent(stage, item, done, total)`: `stage` says what runs ("embed", "neighbors", "parse", ...), `item`
what it runs on (an embedder id; "" when the job has one), `done` of `total` units so far; `fraction` derives
from them. An event holds two strings and two ints, so it pickles: `runtime.child` replays a child process's
events in the calling thread and `runtime.serial_calls` relays each call's events under the call's name.

    def embed(texts, progress=None):
        ...
        report(progress, "embed", done, len(texts))
    embed(texts, progress=scoped(progress, item="glove-6b-50d"))   # the caller says which embedder

The front ends draw the events: tqdm bars in the CLI (`cli.common.ProgressBars`, one class for every command),
st.progress in the dashboard (`ui.progress`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

__all__ = ["Progress", "ProgressEvent", "counter", "how_long", "prefixed", "report", "scoped"]


@dataclass(frozen=True)
class ProgressEvent:
    """`done` of `total` units of `stage` on `item` ("" when the job has one item)."""

    stage: str
    item: str = ""
    done: int = 0
    total: int = 0

    @property
    def fraction(self) -> float:
        """done / total within [0, 1]; 1.0 when there is nothing to do (total 0)."""
        if self.total <= 0:
            return 1.0
        return min(max(self.done / self.total, 0.0), 1.0)

    @property
    def label(self) -> str:
        """The stage, then the item when there is one ("embed glove-6b-50d"): one line for a bar."""
        return f"{self.stage} {self.item}" if self.item else self.stage


def how_long(seconds: float) -> str:
    """How long something takes, in the pages' and the CLI's words: 'a few seconds' (under 10 s: an estimate
    scaled down to a tiny corpus is no more precise than that), 'about 40 s', 'about 3 min'."""
    if seconds < 10:
        return "a few seconds"
    if seconds < 90:
        return f"about {round(seconds):,} s"
    return f"about {round(seconds / 60):,} min"


#: Called with each event of a long job (see the module docstring).
Progress = Callable[[ProgressEvent], None]


def report(progress: Progress | None, stage: str, done: int, total: int, item: str = "") -> None:
    """`progress(ProgressEvent(stage, item, done, total))` when there is a `progress`."""
    if progress is not None:
        progress(ProgressEvent(stage, item, int(done), int(total)))


def scoped(progress: Progress | None, *, stage: str | None = None, item: str | None = None) -> Progress | None:
    """`progress` with each event's stage and/or item set by the caller, who knows what a lower-level function
    works on (None when there is no `progress`)."""
    if progress is None or (stage is None and item is None):
        return progress
    parent = progress

    def cb(event: ProgressEvent) -> None:
        parent(replace(event, stage=event.stage if stage is None else stage, item=event.item if item is None else item))

    return cb


def prefixed(progress: Progress | None, prefix: str) -> Progress | None:
    """`progress` with `prefix` in front of every event's stage (one part of a larger job: "compression: ",
    "run 2/6 (seed 1): "); None when there is no `progress`."""
    if progress is None or not prefix:
        return progress
    parent = progress

    def cb(event: ProgressEvent) -> None:
        parent(replace(event, stage=prefix + event.stage))

    return cb


def counter(progress: Progress | None, stage: str, total: int, item: str = "") -> Callable[[int], None]:
    """A counter of units done: each call adds its units and reports (stage, item, units so far, total)."""
    done = [0]

    def add(units: int) -> None:
        done[0] += int(units)
        report(progress, stage, done[0], total, item)

    return add
