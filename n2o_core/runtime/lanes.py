"""Named jobs on threads that keep every core busy from the start, reported to the calling thread one job at a time.

`pipeline.Preparation` prepares embedders with it; nothing here knows what a job does:

    lanes = Lanes(["tfidf", "word2vec", "minilm"], run, rank={...}, cheap={"tfidf"}, workers=2,
                  ahead=["minilm"], load=load_model, group=lambda name: ...)
    results = lanes.report(emit)      # emit(kind, name, payload) in this thread

Threads ("lanes"), all started at once, each taking jobs in the given order: one "cheap" lane runs the jobs named in
`cheap` (short ones whose results are wanted first); `workers` "any" lanes run the others, then help with the cheap
ones; one "load" lane, once the cheap lane is done, calls `load(name)` for each job in `ahead` that no worker has
taken yet (work a job would do first, done before its turn on a core the workers leave idle). An "any" lane skips a
job whose `group` (a key, or None) is that of a job under way in another lane while something else is left (two
jobs that build the same state would run one after the other anyway). `run(name, stage)` does a job; it may call
`stage(payload)` from any thread.

`report(emit)` passes the events to `emit(kind, name, payload)` in the calling thread, one job at a time:
"start" (True when the job began before its turn, while another job was reported), then its "stage" payloads (those
sent before its turn first), then "done" ((result, seconds it ran)) or "failed" (the exception); the others go on
after a failure. Next comes the first job that ended, else the first cheap job left, else the lowest-`rank` job
under way. An exception raised by `emit` closes the lanes and propagates; leaving a `with` block closes them too:
nothing more starts, and a job under way finishes in its thread (daemon threads).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

__all__ = ["LaneEvent", "Lanes"]

#: emit(kind, name, payload): "start" (began before its turn: bool), "stage" (payload), "done" ((result, seconds)),
#: "failed" (exception).
LaneEvent = Callable[[str, str, Any], None]


class Lanes:
    """Jobs run by a cheap lane, `workers` "any" lanes and a load lane, reported one at a time (module docstring)."""

    def __init__(
        self,
        order: Sequence[str],
        run: Callable[[str, Callable[[Any], None]], Any],
        *,
        rank: Mapping[str, int],
        cheap: Collection[str] = (),
        workers: int = 1,
        ahead: Sequence[str] = (),
        load: Callable[[str], None] | None = None,
        group: Callable[[str], str | None] = lambda _name: None,
    ):
        self.order = list(dict.fromkeys(order))
        self._run, self._rank, self._load, self._group = run, rank, load, group
        self._cheap = {n for n in self.order if n in cheap}
        self._to_load = [n for n in ahead if n in self.order] if load is not None else []
        n_any = max(0 if self._cheap else 1, min(workers, len(self.order) - len(self._cheap)))
        self.lanes = ["cheap"] * bool(self._cheap) + ["load"] * bool(self._to_load) + ["any"] * n_any
        self.taken: list[str] = []  # jobs in the order lanes took them
        self.loaded_ahead: list[str] = []  # jobs the load lane loaded
        self._todo = list(self.order)
        self._running: set[str] = set()
        self._closed = False
        self._lock = threading.Lock()
        self._events: queue.SimpleQueue[tuple[str, str, Any]] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._cheap_done = threading.Event()  # the load lane starts once the cheap lane is done
        if not self._cheap:
            self._cheap_done.set()

    def __enter__(self) -> Lanes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Start nothing more (a job under way finishes in its thread)."""
        with self._lock:
            self._closed = True
            self._todo.clear()

    def start(self) -> None:
        """Start the lanes' threads (once; `report` does)."""
        with self._lock:
            if self._threads or self._closed:
                return
            self._threads = [
                threading.Thread(target=self._work, args=(lane,), name=f"n2o-lane-{i}-{lane}", daemon=True)
                for i, lane in enumerate(self.lanes)
            ]
        for t in self._threads:
            t.start()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the lanes' threads to end."""
        for t in self._threads:
            t.join(timeout)

    def _take(self, lane: str) -> str | None:
        """The next job for `lane` (under the lock), or None when it has nothing more to do."""
        if self._closed or not self._todo:
            return None
        if lane == "cheap":
            name = next((n for n in self._todo if n in self._cheap), None)
        else:
            busy = {self._group(n) for n in self._running} - {None}
            free = [n for n in self._todo if self._group(n) not in busy] or self._todo
            name = next((n for n in free if n not in self._cheap), free[0])
        if name is not None:
            self._todo.remove(name)
            self._running.add(name)
            self.taken.append(name)
        return name

    def _load_ahead(self) -> None:
        assert self._load is not None
        self._cheap_done.wait()
        while True:
            with self._lock:
                name = next((n for n in self._to_load if n in self._todo and not self._closed), None)
                if name is None:
                    return
                self._to_load.remove(name)
            try:
                self._load(name)
                self.loaded_ahead.append(name)
            except Exception:  # noqa: BLE001 - the job itself loads it again and reports the error
                pass

    def _work(self, lane: str) -> None:
        if lane == "load":
            self._load_ahead()
            return
        while True:
            with self._lock:
                name = self._take(lane)
            if name is None:
                if lane == "cheap":
                    self._cheap_done.set()
                return
            self._events.put(("begin", name, None))
            t0 = time.perf_counter()

            def stage(payload: Any, _name: str = name) -> None:
                self._events.put(("stage", _name, payload))

            try:
                result = self._run(name, stage)
            except Exception as e:  # noqa: BLE001 - reported per job; the others go on
                self._events.put(("failed", name, e))
            else:
                self._events.put(("done", name, (result, time.perf_counter() - t0)))
            finally:
                with self._lock:
                    self._running.discard(name)

    def _next_shown(self, left: list[str], begun: Mapping[str, bool], ended: Mapping[str, Any]) -> str | None:
        """The job to report next: the first that ended, else the first cheap one left (it ends in seconds, begun
        or not), else the lowest-rank one under way (the first to begin among equals); None when none has begun."""
        return (
            next((n for n in ended if n in left), None)
            or next((n for n in left if n in self._cheap), None)
            or min((n for n in begun if n in left), key=self._rank.__getitem__, default=None)
        )

    def report(self, emit: LaneEvent) -> dict[str, Any]:
        """Start the lanes and pass their events to `emit` in this thread, one job at a time; returns the results of
        the jobs that worked, in the order they were reported (module docstring)."""
        out: dict[str, Any] = {}
        left = list(self.order)
        begun: dict[str, bool] = {}  # jobs under way (in the order they began): whether another job was shown then
        ended: dict[str, tuple[str, Any]] = {}  # ("done" or "failed", payload), in the order they ended
        held: dict[str, list[Any]] = {}  # stage payloads sent before the job's turn
        shown: str | None = None
        self.start()
        try:
            while left:
                if shown is None:
                    shown = self._next_shown(left, begun, ended)
                    if shown is not None:
                        emit("start", shown, begun.get(shown, False))
                        for payload in held.pop(shown, []):
                            emit("stage", shown, payload)
                if shown is not None and shown in ended:
                    kind, payload = ended.pop(shown)
                    if kind == "done":
                        out[shown] = payload[0]
                    left.remove(shown)
                    emit(kind, shown, payload)
                    shown = None
                    continue
                kind, name, payload = self._events.get()
                if kind == "begin":
                    begun[name] = shown is not None
                elif kind == "stage" and name == shown:
                    emit("stage", name, payload)
                elif kind == "stage":
                    held.setdefault(name, []).append(payload)
                else:
                    ended[name] = (kind, payload)
        finally:
            self.close()
        return out
