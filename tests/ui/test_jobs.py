"""ui.jobs.run_with_bars: each call kept as it ends, a failing call said in a sentence while the others go on,
and a job whose process dies gives every call left its sentence (Streamlit calls run bare here)."""

from __future__ import annotations

import math
import os

from n2o_core.runtime.serial_calls import each_call
from ui.jobs import run_with_bars


def test_each_result_is_kept_and_a_failure_is_a_sentence(monkeypatch):
    monkeypatch.setenv("N2O_ISOLATE", "0")
    kept: dict[str, float] = {}
    errors = run_with_bars(
        each_call,
        math.sqrt,
        [("four", (4.0,)), ("text", ("x",)), ("nine", (9.0,))],
        names=["four", "text", "nine"],
        what=lambda name: f"Root of {name}",
        keep=lambda name, value: kept.__setitem__(name, value),
    )
    assert kept == {"four": 2.0, "nine": 3.0}
    assert list(errors) == ["text"] and errors["text"].startswith("Root of text")


def test_a_dead_job_process_gives_every_call_left_its_sentence(monkeypatch):
    monkeypatch.setenv("N2O_ISOLATE", "1")
    kept: list[str] = []
    errors = run_with_bars(
        each_call,
        os.abort,
        [("a", ()), ("b", ())],
        names=["a", "b"],
        what=lambda name: f"Call {name}",
        keep=lambda name, _value: kept.append(name),
    )
    assert kept == [] and sorted(errors) == ["a", "b"]
    assert all("stopped unexpectedly" in sentence for sentence in errors.values())


class _Bar:
    """A stand-in for st.progress: what it was last asked to show."""

    def __init__(self) -> None:
        self.drawn: list[tuple[float, str | None]] = []

    def progress(self, value: float, text: str | None = None) -> None:
        self.drawn.append((value, text))

    def empty(self) -> None:
        self.drawn.append((0.0, "emptied"))


def test_a_bar_draws_each_event_once_per_percent_with_its_stage_text():
    from n2o_core.runtime.progress import ProgressEvent
    from ui.progress import stage_progress

    bar = _Bar()
    draw = stage_progress(bar, {"embed": "glove: embedding"}, prefix="run 1: ")
    for done in (0, 1, 2, 500, 1000):
        draw(ProgressEvent("embed", "glove", done, 1000))
    draw(ProgressEvent("neighbors", "glove", 3, 4))  # a stage `text` does not name: named by itself
    assert bar.drawn == [
        (0.0, "run 1: glove: embedding 0/1,000"),  # 1 and 2 of 1,000 stay at 0%: not redrawn
        (0.5, "run 1: glove: embedding 500/1,000"),
        (1.0, "run 1: glove: embedding 1,000/1,000"),
        (0.75, "run 1: neighbors 3/4"),
    ]


def test_stages_of_each_call_reach_its_own_bar(monkeypatch):
    """`stages` gets each call's ProgressEvents (relayed by `runtime.serial_calls`) on that call's bar."""
    import numpy as np

    from n2o_core.runtime.progress import ProgressEvent
    from n2o_core.search.exact import exact_knn

    monkeypatch.setenv("N2O_ISOLATE", "0")
    X = np.random.default_rng(0).standard_normal((64, 4)).astype(np.float32)
    seen: dict[str, list[ProgressEvent]] = {}
    kept: dict[str, object] = {}
    errors = run_with_bars(
        each_call,
        exact_knn,
        [("three", (X, 3)), ("five", (X, 5))],
        names=["three", "five"],
        what=lambda name: f"Search {name}",
        keep=lambda name, nb: kept.__setitem__(name, nb.ids.shape),
        stages=lambda _bar, name: seen.setdefault(name, []).append,
        query_ids=np.arange(4),
        threads=1,
    )
    assert not errors and kept == {"three": (4, 3), "five": (4, 5)}
    assert set(seen) == {"three", "five"}
    assert all(e.stage == "neighbors" for events in seen.values() for e in events)
    assert seen["five"][-1] == ProgressEvent("neighbors", "", 64, 64)


def test_lines_say_what_each_call_does_and_how_it_ended(monkeypatch):
    """With `lines`, a line above each bar: what `on_start` says, a notice the job sends, then `keep`'s text or
    the failure's sentence (user text shown as plain text)."""
    import streamlit as st

    from n2o_core.runtime import notices

    monkeypatch.setenv("N2O_ISOLATE", "0")
    written: list[str] = []

    class Line:
        def markdown(self, text: str) -> None:
            written.append(text)

    monkeypatch.setattr(st, "empty", Line)
    monkeypatch.setattr(st, "progress", lambda *a, **k: _Bar())

    def noisy(x: float) -> float:
        notices.notify("waiting for [another process]")
        return math.sqrt(x)

    starts: list[tuple[int, str, object]] = []
    errors = run_with_bars(
        each_call,
        noisy,
        [("four", (4.0,)), ("*text*", ("x",))],
        names=["four", "*text*"],
        what=lambda name: f"Root of {name}",
        keep=lambda name, value: f"ready: {value}",
        on_start=lambda i, name, payload: starts.append((i, name, payload)) or "computing (a root)",
        lines=True,
    )
    assert starts == [(0, "four", None), (1, "*text*", None)]
    assert list(errors) == ["*text*"]
    four = [w for w in written if w.startswith("**four**")]
    assert [w.split(": ", 1)[1] for w in four] == [
        "computing (a root)",
        "waiting for &#91;another process&#93;",
        "ready: 2.0",
    ]
    failed = [w for w in written if "failed" in w]
    assert len(failed) == 1 and failed[0].startswith("**&#42;text&#42;**: failed — Root of &#42;text&#42;")
