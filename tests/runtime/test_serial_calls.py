"""One job for several embedders (`n2o_core.runtime.serial_calls.each_embedder`): each embedder's result is what the
job gives for it alone, one failure is reported and the others go on, progress is relayed per embedder, and the
same events come back from a child process."""

from __future__ import annotations

import pytest

from n2o_core.corpora import load_corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.evaluation.pairs import lee_pairs
from n2o_core.evaluation.sts import run_sts
from n2o_core.runtime import child
from n2o_core.runtime.progress import ProgressEvent
from n2o_core.runtime.serial_calls import each_embedder
from n2o_core.storage.cache import Cache

NAMES = ["glove-6b-50d", "no-such-embedder", "tfidf"]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("each")
    return Workspace(load_corpus("builtin:lee-news", cache_dir=str(root)), cache=Cache(root / "c"))


def _events(run) -> list[tuple[str, str, object]]:
    got: list[tuple[str, str, object]] = []
    run(lambda kind, eid, payload: got.append((kind, eid, payload)))
    return got


def _check(events, ws) -> None:
    kinds = [(kind, eid) for kind, eid, _ in events if kind != "stage"]
    assert kinds == [
        ("start", "glove-6b-50d"),
        ("done", "glove-6b-50d"),
        ("start", "no-such-embedder"),
        ("failed", "no-such-embedder"),
        ("start", "tfidf"),
        ("done", "tfidf"),
    ]
    payload = {(kind, eid): p for kind, eid, p in events}
    for eid in ("glove-6b-50d", "tfidf"):
        alone = run_sts(ws, lee_pairs(), [eid]).results
        got = payload[("done", eid)].results
        assert got.to_dict("records") == alone.to_dict("records")
    failure = payload[("failed", "no-such-embedder")]
    assert isinstance(failure, N2OError) and "no-such-embedder" in str(failure)
    stages = [(eid, p) for kind, eid, p in events if kind == "stage"]
    # run_sts's own progress for a one-embedder list: stage "embedders", 0 of 1 with the embedder as its item,
    # then 1 of 1; the failure stops before it
    assert stages == [
        ("glove-6b-50d", ProgressEvent("embedders", "glove-6b-50d", 0, 1)),
        ("glove-6b-50d", ProgressEvent("embedders", "", 1, 1)),
        ("tfidf", ProgressEvent("embedders", "tfidf", 0, 1)),
        ("tfidf", ProgressEvent("embedders", "", 1, 1)),
    ]


def test_each_embedder_in_this_process(ws):
    events = _events(
        lambda on: each_embedder(run_sts, (ws, lee_pairs()), NAMES, on_event=on, listed=True, report_progress=True)
    )
    _check(events, ws)


def test_each_embedder_in_one_child_process_gives_the_same_events(ws):
    events = _events(
        lambda on: child.run(
            each_embedder,
            run_sts,
            (ws, lee_pairs()),
            NAMES,
            callbacks={"on_event": on},
            listed=True,
            report_progress=True,
        )
    )
    _check(events, ws)


def test_an_error_in_the_handler_stops_the_loop(ws):
    seen: list[str] = []

    def on(kind, eid, payload):
        seen.append(f"{kind} {eid}")
        if kind == "done":
            raise KeyboardInterrupt  # e.g. the page stopped: nothing more runs

    with pytest.raises(KeyboardInterrupt):
        each_embedder(run_sts, (ws, lee_pairs()), NAMES, on_event=on, listed=True)
    assert seen == ["start glove-6b-50d", "done glove-6b-50d"]
