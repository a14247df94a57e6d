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


class _Status:
    """A stand-in for st.status: its label, and each update it was asked for."""

    def __init__(self, label: str, expanded: bool = False) -> None:
        self.label, self.expanded = label, expanded
        self.updates: list[dict] = []

    def __enter__(self) -> _Status:
        return self

    def __exit__(self, *exc: object) -> bool:
        return False

    def update(self, **kw: object) -> None:
        self.updates.append(kw)


def _drawn(monkeypatch) -> tuple[list[_Status], list[_Bar]]:
    """st.status and st.progress replaced by stand-ins; the lists get each one made."""
    import streamlit as st

    boxes: list[_Status] = []
    bars: list[_Bar] = []
    monkeypatch.setattr(st, "status", lambda label, expanded=False: boxes.append(_Status(label, expanded)) or boxes[-1])
    monkeypatch.setattr(st, "progress", lambda *a, **k: bars.append(_Bar()) or bars[-1])
    return boxes, bars


def _points():
    import numpy as np

    return np.random.default_rng(0).standard_normal((64, 4)).astype(np.float32)


def test_one_call_runs_as_a_job_of_the_one_loop_with_its_status_and_bar(monkeypatch):
    """`run_with_bar`: the job goes through `child.call` as `each_call` of one call (isolate passed on), its
    events on one bar, its status labelled by `ready` (plain text, escaped) and the result returned."""
    import numpy as np

    from n2o_core.runtime import child
    from n2o_core.search.exact import exact_knn
    from n2o_core.text import escape_markup
    from ui.jobs import run_with_bar

    monkeypatch.setenv("N2O_ISOLATE", "0")
    boxes, bars = _drawn(monkeypatch)
    calls: list[tuple] = []
    real = child.call

    def spy(fn, *args, isolate=None, **kwargs):
        calls.append((fn, args, isolate))
        return real(fn, *args, isolate=isolate, **kwargs)

    monkeypatch.setattr(child, "call", spy)
    X = _points()
    nb = run_with_bar(
        exact_knn,
        X,
        3,
        title="Searching [the points](x)…",
        ready=lambda got: f"{got.ids.shape[0]} queries *ready*",
        bar_text=lambda e: f"searched {e.done}/{e.total}",
        query_ids=np.arange(4),
        threads=1,
    )
    np.testing.assert_array_equal(nb.ids, exact_knn(X, 3, query_ids=np.arange(4), threads=1).ids)
    [(fn, args, isolate)] = calls
    assert fn is each_call and args[0] is exact_knn and isolate is None
    assert [name for name, _ in args[1]] == ["Searching [the points](x)…"]
    [box] = boxes
    assert box.label == escape_markup("Searching [the points](x)…") and "[" not in box.label and not box.expanded
    assert box.updates == [{"label": "4 queries &#42;ready&#42;", "state": "complete", "expanded": False}]
    [bar] = bars
    assert bar.drawn == [(1.0, "searched 64/64"), (1.0, "4 queries &#42;ready&#42;")], bar.drawn


def test_one_call_that_fails_raises_its_exception_and_marks_the_status(monkeypatch):
    """The job's own exception comes back as it is (the page says it: `guard.message`), the status in the error
    state with the `failed` label; `some_failed` marks a result that holds failures."""
    import pytest

    from n2o_core.errors import N2OError
    from ui.jobs import run_with_bar

    monkeypatch.setenv("N2O_ISOLATE", "0")
    boxes, _ = _drawn(monkeypatch)
    with pytest.raises(N2OError, match="The corpus has no sentences"):
        run_with_bar(_refuse, "The corpus has no sentences.", title="Reading", ready=str, failed="Reading: failed")
    assert boxes[0].updates == [{"label": "Reading: failed", "state": "error", "expanded": False}]
    assert run_with_bar(math.sqrt, 9.0, title="Root", ready=lambda v: f"root {v}", some_failed=lambda v: v > 2) == 3.0
    assert boxes[1].updates == [{"label": "root 3.0", "state": "error", "expanded": False}]


def _refuse(sentence: str) -> None:
    from n2o_core.errors import N2OError

    raise N2OError(sentence)


def test_one_call_isolated_runs_in_a_child_and_a_dead_child_is_a_sentence(monkeypatch):
    """With jobs isolated, the call is made in a child process (its pid is not this one's) and its result comes
    back; a child that dies raises the runtime's sentence, the status in the error state."""
    import pytest

    from n2o_core.errors import N2OError
    from ui.jobs import run_with_bar

    monkeypatch.setenv("N2O_ISOLATE", "1")
    boxes, _ = _drawn(monkeypatch)
    assert run_with_bar(os.getpid, title="Whose process", ready=str) != os.getpid()
    assert boxes[0].updates[0]["state"] == "complete"
    with pytest.raises(N2OError, match="stopped unexpectedly"):
        run_with_bar(os.abort, title="Aborting", ready=str)
    assert boxes[1].updates == [{"label": "Aborting", "state": "error", "expanded": False}]


def test_more_callbacks_reach_the_job_and_are_drawn_here(monkeypatch):
    """`more(bar, status)`: the job's other callbacks, given the bar and the status to draw on."""
    from ui.jobs import run_with_bar

    monkeypatch.setenv("N2O_ISOLATE", "0")
    boxes, bars = _drawn(monkeypatch)

    def job(n: int, on_step) -> int:
        for i in range(n):
            on_step(i)
        return n

    got = run_with_bar(
        job,
        3,
        title="Steps",
        ready=lambda n: f"{n} steps",
        more=lambda bar, status: {"on_step": lambda i: (bar.progress(i / 3, text=f"step {i}"), status.update(step=i))},
    )
    assert got == 3 and [t for _, t in bars[0].drawn] == ["step 0", "step 1", "step 2", "3 steps"]
    assert [u.get("step") for u in boxes[0].updates] == [0, 1, 2, None]


def test_a_keep_that_raises_fails_its_call_in_a_sentence(monkeypatch):
    """A result that cannot be kept (or labelled) fails its call in a sentence (not silently); like any exception of
    `on_event`, it stops the job (`runtime.serial_calls`), so the calls left get the sentence too."""
    monkeypatch.setenv("N2O_ISOLATE", "0")

    def keep(name: str, value: float) -> str:
        return f"{name}: {value:.1f}" if name != "odd" else f"{value:d}"

    errors = run_with_bars(
        each_call,
        math.sqrt,
        [("odd", (2.0,)), ("nine", (9.0,))],
        names=["odd", "nine"],
        what=lambda name: f"Root of {name}",
        keep=keep,
    )
    assert errors == {
        name: f"Root of {name} failed unexpectedly (ValueError); the details are in the server log."
        for name in ("odd", "nine")
    }


def test_the_bar_says_what_the_job_does_before_its_first_event(monkeypatch):
    """`bar_start` (plain text) on the bar until the job reports: the minimal pairs' bar says that WordNet and
    spaCy load, instead of "starting" for the seconds they take."""
    import streamlit as st

    from ui.jobs import run_with_bar

    monkeypatch.setenv("N2O_ISOLATE", "0")
    _drawn(monkeypatch)
    first: list[str | None] = []
    monkeypatch.setattr(st, "progress", lambda value=0.0, text=None: first.append(text) or _Bar())
    assert run_with_bar(sum, [1, 2], title="Adding", ready=str, bar_start="loading *the* adder") == 3
    assert first == ["loading &#42;the&#42; adder"]
