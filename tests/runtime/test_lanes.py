"""Jobs on lanes (`n2o_core.runtime.lanes.Lanes`): the long jobs start beside the cheap ones, the load lane works
once the cheap lane is done, a job sharing a group with one under way waits while the lane takes another, the
caller sees one job at a time (a failure in its place, the others going on), and closing starts nothing more."""

from __future__ import annotations

import threading

import pytest

from n2o_core.runtime.lanes import Lanes

WAIT = 30  # seconds any gate is waited for before the test fails


def well_formed(events: list[tuple[str, str, object]]) -> list[str]:
    """The jobs in the order they were reported, checking that each one's events are contiguous: "start", its
    stages, then "done" or "failed"."""
    shown: list[str] = []
    current = None
    for kind, name, _ in events:
        if kind == "start":
            assert current is None, f"{name} started while {current} was reported"
            current = name
            shown.append(name)
        else:
            assert name == current, f"{kind} of {name} while {current} was reported"
            if kind in ("done", "failed"):
                current = None
    assert current is None
    return shown


def test_long_jobs_start_beside_the_cheap_ones_and_the_caller_sees_one_at_a_time():
    began: dict[str, threading.Event] = {n: threading.Event() for n in ("cheap", "long-a", "long-b", "model")}
    loaded_while: list[bool] = []
    release = threading.Event()

    def run(name, stage):
        began[name].set()
        if name == "cheap":  # a sequential schedule would wait here for ever: the long jobs must be under way
            assert began["long-a"].wait(WAIT) and began["long-b"].wait(WAIT)
            stage(("step", 1, 1))
        elif name.startswith("long"):
            stage(("train", 0, 2))
            assert release.wait(WAIT)
            stage(("train", 2, 2))
        return name.upper()

    def load(name):  # after the cheap lane, while the long jobs run: they end once the model is loaded
        loaded_while.append(began["long-a"].is_set() and began["cheap"].is_set() and not release.is_set())
        release.set()

    events: list = []
    lanes = Lanes(
        ["cheap", "long-a", "long-b", "model"],
        run,
        rank={"cheap": 1, "long-a": 2, "long-b": 2, "model": 4},
        cheap={"cheap"},
        workers=2,
        ahead=["model"],
        load=load,
    )
    assert lanes.lanes == ["cheap", "load", "any", "any"]

    out = lanes.report(lambda *event: events.append(event))
    assert out == {"cheap": "CHEAP", "long-a": "LONG-A", "long-b": "LONG-B", "model": "MODEL"}
    assert well_formed(events) == ["cheap", "long-a", "long-b", "model"]
    assert lanes.loaded_ahead == ["model"] and loaded_while == [True]  # loaded while the long jobs ran
    starts = {name: payload for kind, name, payload in events if kind == "start"}
    assert starts["cheap"] is False and starts["long-a"] is starts["long-b"] is True  # began while cheap was shown
    # a long job's stages sent before its turn come first, in order, then the rest
    assert [p for k, n, p in events if (k, n) == ("stage", "long-b")] == [("train", 0, 2), ("train", 2, 2)]
    result, seconds = next(p for k, n, p in events if (k, n) == ("done", "long-a"))
    assert result == "LONG-A" and seconds > 0


def test_a_job_whose_group_is_under_way_waits_while_the_lane_takes_another():
    release = threading.Event()
    started = threading.Event()

    def run(name, stage):
        if name == "word2vec":
            started.set()
            assert release.wait(WAIT)
        elif name == "fasttext":
            release.set()  # taken while word2vec still trains
        return name

    lanes = Lanes(
        ["word2vec", "word2vec-nostop", "fasttext"],
        run,
        rank=dict.fromkeys(["word2vec", "word2vec-nostop", "fasttext"], 2),
        workers=2,
        group=lambda name: name.removesuffix("-nostop"),
    )
    out = lanes.report(lambda *_: None)
    assert set(out) == {"word2vec", "word2vec-nostop", "fasttext"}
    assert lanes.taken == ["word2vec", "fasttext", "word2vec-nostop"]


def test_a_failure_is_reported_in_its_place_and_the_others_go_on():
    def run(name, stage):
        if name == "broken":
            stage(("load", 0, 1))
            raise RuntimeError("boom")
        return len(name)

    events: list = []
    lanes = Lanes(["a", "broken", "ccc"], run, rank={"a": 0, "broken": 1, "ccc": 2}, workers=2)
    out = lanes.report(lambda *e: events.append(e))
    assert out == {"a": 1, "ccc": 3}
    assert sorted(well_formed(events)) == ["a", "broken", "ccc"]
    failed = [(n, p) for k, n, p in events if k == "failed"]
    assert len(failed) == 1 and failed[0][0] == "broken" and str(failed[0][1]) == "boom"
    assert ("stage", "broken", ("load", 0, 1)) in events


def test_an_error_in_the_callers_handler_closes_the_lanes_and_propagates():
    gate = threading.Event()
    seen: list[str] = []

    def run(name, stage):
        seen.append(name)
        assert gate.wait(WAIT)
        return name

    lanes = Lanes(["one", "two", "three"], run, rank=dict.fromkeys(["one", "two", "three"], 2), workers=1)

    def emit(kind, name, payload):
        if kind == "start":
            raise KeyboardInterrupt  # e.g. the visitor left the page

    with pytest.raises(KeyboardInterrupt):
        lanes.report(emit)
    gate.set()
    lanes.join(WAIT)
    assert seen == ["one"]  # closed: the others were never started


def test_leaving_the_block_starts_nothing_more():
    gate = threading.Event()
    seen: list[str] = []
    first = threading.Event()

    def run(name, stage):
        seen.append(name)
        first.set()
        assert gate.wait(WAIT)

    with Lanes(["x", "y", "z"], run, rank=dict.fromkeys("xyz", 2), workers=1) as lanes:
        lanes.start()
        assert first.wait(WAIT)
    gate.set()
    lanes.join(WAIT)
    assert seen == ["x"]
