"""The one progress protocol (`n2o_core.runtime.progress`): one event (stage, item, done, total) with a fraction
and a label derived from it, the helpers that report, relabel and count, and events that cross a child process
and `runtime.serial_calls` unchanged."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from n2o_core.runtime import child
from n2o_core.runtime.progress import ProgressEvent, counter, report, scoped
from n2o_core.runtime.serial_calls import each_call
from n2o_core.search.exact import exact_knn


def test_an_event_derives_its_fraction_and_label():
    e = ProgressEvent("embed", "glove-6b-50d", 250, 1000)
    assert (e.stage, e.item, e.done, e.total) == ("embed", "glove-6b-50d", 250, 1000)
    assert e.fraction == 0.25 and e.label == "embed glove-6b-50d"
    assert ProgressEvent("tasks", "", 3, 10).label == "tasks"  # no item: the stage alone
    assert ProgressEvent("parse", "", 0, 0).fraction == 1.0  # nothing to do is done
    assert ProgressEvent("rank", "", 12, 10).fraction == 1.0 and ProgressEvent("rank", "", -1, 10).fraction == 0.0
    assert pickle.loads(pickle.dumps(e)) == e
    with pytest.raises(AttributeError):
        e.done = 3  # type: ignore[misc]  # frozen: a relayed event cannot be changed on the way


def test_report_scoped_and_counter():
    got: list[ProgressEvent] = []
    report(None, "embed", 1, 2)  # no callback: nothing happens
    report(got.append, "embed", 1, 2)
    report(got.append, "neighbors", 3.0, 4, "tfidf")  # type: ignore[arg-type]  # counts are made ints
    assert got == [ProgressEvent("embed", "", 1, 2), ProgressEvent("neighbors", "tfidf", 3, 4)]
    assert isinstance(got[1].done, int)
    got.clear()
    scoped(got.append, item="word2vec")(ProgressEvent("train", "", 5, 10))
    scoped(got.append, stage="rank", item="e5-small")(ProgressEvent("neighbors", "x", 6, 10))
    assert got == [ProgressEvent("train", "word2vec", 5, 10), ProgressEvent("rank", "e5-small", 6, 10)]
    append = got.append
    assert scoped(None, item="a") is None and scoped(append) is append  # nothing to set: the callback itself
    got.clear()
    tick = counter(got.append, "neighbors", 10, "glove")
    tick(4)
    tick(6)
    assert [(e.done, e.total, e.item) for e in got] == [(4, 10, "glove"), (10, 10, "glove")]
    counter(None, "neighbors", 10)(3)  # no callback: counts silently


def test_events_cross_a_child_process_in_order():
    X = np.random.default_rng(0).standard_normal((300, 8)).astype(np.float32)
    here: list[ProgressEvent] = []
    there: list[ProgressEvent] = []
    ids = np.arange(0, 300, 7)
    a = exact_knn(X, 5, query_ids=ids, block=32, threads=1, progress=here.append)
    b = child.run(exact_knn, X, 5, query_ids=ids, block=32, threads=1, callbacks={"progress": there.append})
    np.testing.assert_array_equal(a.ids, b.ids)
    assert there == here and len(here) >= 2
    assert {e.stage for e in here} == {"neighbors"} and here[-1] == ProgressEvent("neighbors", "", 300, 300)
    assert [e.done for e in here] == sorted(e.done for e in here)


def test_each_call_relays_each_calls_events_under_its_name():
    X = np.random.default_rng(1).standard_normal((100, 4)).astype(np.float32)
    seen: list[tuple[str, str, object]] = []
    calls = [("first", (X, 3)), ("second", (X, 4))]
    each_call(
        exact_knn,
        calls,
        on_event=lambda kind, name, payload: seen.append((kind, name, payload)),
        report_progress=True,
        query_ids=np.arange(5),
        threads=1,
    )
    stages = [(name, p) for kind, name, p in seen if kind == "stage"]
    assert {name for name, _ in stages} == {"first", "second"}
    assert all(isinstance(p, ProgressEvent) and p.stage == "neighbors" for _, p in stages)
    order = [(k, name) for k, name, _ in seen if k != "stage"]
    assert order == [("start", "first"), ("done", "first"), ("start", "second"), ("done", "second")]


def test_how_long_says_a_few_seconds_under_ten_then_seconds_then_minutes():
    from n2o_core.runtime.progress import how_long

    assert [how_long(s) for s in (0.0, 0.4, 9.4, 10.0, 40.4, 89.0, 90.0, 150.0, 400.0)] == [
        "a few seconds",
        "a few seconds",
        "a few seconds",
        "about 10 s",
        "about 40 s",
        "about 89 s",
        "about 2 min",
        "about 2 min",
        "about 7 min",
    ]
