"""Every single-bar job of the dashboard goes through the one bar loop (`ui.jobs.run_with_bar` over
`runtime.serial_calls.each_call`, through `runtime.child.call` with the isolate rule left to it), keeps its result
in its memo, and, with jobs isolated, is computed in a child process (Streamlit calls run bare here)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.runtime import child
from n2o_core.runtime.progress import ProgressEvent
from n2o_core.runtime.serial_calls import each_call
from n2o_core.storage.cache import Cache

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from synthetic_text import sentences  # noqa: E402


@pytest.fixture
def corpus():
    return from_texts(sentences(60), name="[tiny](x)")


@pytest.fixture
def ws(corpus, cache_dir):
    """A workspace on the fresh $N2O_CACHE_DIR, the dashboard's cache too; the memos are emptied before and after
    (results made up here never reach another test)."""
    from ui import agreement_runs, evaluation_runs, heros_runs, measures_runs, n2o_runs, probe_runs, variants_runs

    memos = (agreement_runs._memo, evaluation_runs._memo, measures_runs._memo, probe_runs._memo, variants_runs._memo)
    memos += (heros_runs._pair_sets,)
    for memo in (n2o_runs.cache, *memos):
        memo.clear()
    yield Workspace(corpus, cache=Cache(cache_dir))
    for memo in (n2o_runs.cache, *memos):
        memo.clear()


class _Loop:
    """`child.call` replaced: what each job asked for, answered as the one loop's events with a made-up result."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.jobs: list[dict[str, Any]] = []

    def __call__(self, fn, *args, callbacks=None, isolate=None, **kwargs):
        job, calls = args
        [(name, call_args)] = calls
        self.jobs.append(
            {"fn": fn, "job": job, "args": call_args, "isolate": isolate, "callbacks": set(callbacks), **kwargs}
        )
        on_event = callbacks["on_event"]
        on_event("start", name, None)
        if kwargs.get("report_progress"):
            on_event("stage", name, ProgressEvent("embed", "", 1, 2))
        on_event("done", name, self.result)


def _through_the_loop(monkeypatch, run, result: Any) -> dict[str, Any]:
    """`run()` twice with `child.call` replaced: the first goes through the loop and returns its result, the
    second comes from the memo; the one job's request."""
    loop = _Loop(result)
    monkeypatch.setattr(child, "call", loop)
    assert run() is result
    assert run() is result  # memoized: no second job
    [job] = loop.jobs
    assert job["fn"] is each_call and job["isolate"] is None and job["report_progress"] is True
    return job


def test_variants_part(monkeypatch, ws):
    from n2o_core.evaluation.variants.stored import Setup, compute_and_store
    from ui import variants_runs

    monkeypatch.setattr(variants_runs, "load", lambda *a: None)  # nothing in the disk cache
    setup = Setup("tfidf")
    job = _through_the_loop(monkeypatch, lambda: variants_runs.run(ws, setup, "index"), object())
    assert job["job"] is compute_and_store and job["args"] == (ws, setup, "index")


def test_measures(monkeypatch, ws):
    from n2o_core.measures.stored import compare_and_store
    from ui import measures_runs

    monkeypatch.setattr(measures_runs, "load", lambda *a: None)
    setup = measures_runs.MeasureSetup(("tfidf", "glove-6b-50d"), 5, ("cka",), 10, 10, 0, 0)
    job = _through_the_loop(monkeypatch, lambda: measures_runs.run(ws, setup), object())
    assert job["job"] is compare_and_store and job["args"] == (ws, setup.core())


def test_probing(monkeypatch, corpus, ws):
    from n2o_core.evaluation.probe.run import run_probe
    from ui import probe_runs

    setup = probe_runs.ProbeSetup(("tfidf",), ("SentLen",), ("logreg",), 50, 0, 2)
    result = type("Result", (), {"meta": {"seconds": 1.0}, "errors": {}})()
    job = _through_the_loop(monkeypatch, lambda: probe_runs.run(corpus, setup), result)
    assert job["job"] is run_probe and job["args"][1] == ["tfidf"] and job["args"][0].corpus is corpus
    assert job["callbacks"] == {"on_event", "on_step"} and job["skip_failed"] is True
    assert (job["tasks"], job["classifiers"], job["per_class"], job["min_train"]) == (["SentLen"], ["logreg"], 50, 2)


def test_synthetic_pairs(monkeypatch, corpus, ws):
    from n2o_core.evaluation.pairs import load_pairs
    from ui import evaluation_runs

    key = evaluation_runs.pair_key("synthetic:heros-synonym:20", None, corpus, 3)
    job = _through_the_loop(monkeypatch, lambda: evaluation_runs.pairs(key, corpus), ["a pair"])
    assert job["job"] is load_pairs and job["args"] == ("synthetic:heros-synonym:20",)
    assert job["corpus"] is corpus and job["seed"] == 3 and job["columns"] is None


def test_heros_pairs(monkeypatch, corpus, ws):
    from types import SimpleNamespace

    from n2o_core.evaluation.heros.run import make_pairs
    from ui import heros_runs

    lo = SimpleNamespace(corpus=corpus, ws=ws)
    made = SimpleNamespace(pairs=pd.DataFrame({"original": ["a"]}))  # a stand-in PairSet: its status counts pairs
    job = _through_the_loop(monkeypatch, lambda: heros_runs.pairs(lo, 20, 3), made)
    assert job["job"] is make_pairs and job["args"] == (ws, 20, 3)


def test_isolated_heros_pairs_are_made_in_a_child(monkeypatch, corpus, ws):
    """With jobs isolated, the HEROS page's minimal pairs are made in a child process (this process cannot make
    them): the pairs the core makes."""
    from types import SimpleNamespace

    from n2o_core.evaluation.heros import pair_cache
    from n2o_core.evaluation.heros.run import make_pairs
    from ui import heros_runs

    started = _children(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(pair_cache, "cached_generate_pairs", lambda *a, **k: pytest.fail("the pairs were made here"))
        got = heros_runs.pairs(SimpleNamespace(corpus=corpus, ws=ws), 20, 0)
    assert started == [("each_call", "make_pairs", ())]
    expected = make_pairs(ws, 20, 0)  # read from the cache the child filled
    pd.testing.assert_frame_equal(got.pairs, expected.pairs)
    assert len(got.pairs) > 0 and set(got.pairs["original"]) <= set(corpus.texts)
    heros_runs._pair_sets().clear()  # a new server process: the pairs are on disk, read here without a child
    again = heros_runs.pairs(SimpleNamespace(corpus=corpus, ws=ws), 20, 0)
    assert started == [("each_call", "make_pairs", ())]
    pd.testing.assert_frame_equal(again.pairs, got.pairs)


def test_a_pair_file_is_read_here_without_a_job(monkeypatch, ws, tmp_path):
    """A pair file or built-in set is read in this process, without a bar (it takes moments)."""
    from ui import evaluation_runs

    monkeypatch.setattr(child, "call", lambda *a, **k: pytest.fail("a pair file was read through a job"))
    path = tmp_path / "pairs.tsv"
    path.write_text("sentence1\tsentence2\tscore\nA cat sat.\tA cat was sitting.\t4.5\n", encoding="utf-8")
    got = evaluation_runs.pairs(evaluation_runs.pair_key(str(path), None, None, 0))
    assert got.queries == ["A cat sat."] and got.paraphrases == ["A cat was sitting."]


def _agreement(corpus, ws):
    from n2o_core.settings import Settings
    from ui.agreement_runs import AgreementData

    return AgreementData(Settings(embedders=("tfidf", "glove-6b-50d")), corpus, ws, 50, False)


def test_pca_map(monkeypatch, corpus, ws):
    from n2o_core.analyses import projection
    from ui import agreement_runs

    ad = _agreement(corpus, ws)
    job = _through_the_loop(monkeypatch, lambda: agreement_runs.pca_map(ad, "tfidf"), object())
    assert job["job"] is projection.projection and job["args"] == (ws, "tfidf", "pca")
    assert (job["znorm"], job["approx"], job["k_search"]) == (False, False, 50)


def _children(monkeypatch) -> list[tuple[str, str, tuple]]:
    """Jobs isolated (N2O_ISOLATE=1); the list gets, for each child process started, (its function, the function
    of its call, the call's arguments)."""
    started: list[tuple[str, str, tuple]] = []
    real = child.run

    def recording(fn, *args, **kwargs):
        job, [(_name, call_args)] = args
        started.append((fn.__name__, job.__name__, tuple(a for a in call_args if isinstance(a, str))))
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(child, "run", recording)
    monkeypatch.setenv("N2O_ISOLATE", "1")
    return started


def test_isolated_pca_map_is_computed_in_a_child_and_read_here_once_kept(monkeypatch, corpus, ws, tmp_path):
    """With jobs isolated the PCA map is computed in a child process (this process cannot compute one), the map
    the core computes; once on disk it is read here, without a child."""
    from n2o_core.analyses import projection
    from ui import agreement_runs

    here = Workspace(corpus, cache=Cache(tmp_path / "elsewhere"))
    expected = projection.projection(here, "tfidf", "pca", seed=agreement_runs.MAP_SEED)
    started = _children(monkeypatch)
    monkeypatch.setattr(projection, "pca_coords", lambda *a, **k: pytest.fail("the map was computed here"))
    got = agreement_runs.pca_map(_agreement(corpus, ws), "tfidf")
    assert started == [("each_call", "projection", ("tfidf", "pca"))]
    assert got.method == "pca" and not got.cached
    np.testing.assert_allclose(got.coords, expected.coords, atol=1e-6)
    agreement_runs._memo.clear()  # a new server process: the map is on disk
    again = agreement_runs.pca_map(_agreement(corpus, ws), "tfidf")
    assert again.cached and started == [("each_call", "projection", ("tfidf", "pca"))]
    np.testing.assert_array_equal(again.coords, got.coords)


def test_isolated_synthetic_pairs_are_made_in_a_child(monkeypatch, corpus, ws):
    """With jobs isolated, synthetic pairs are made in a child process (this process cannot make them): the pairs
    the core makes."""
    from n2o_core.evaluation.heros import pair_cache
    from n2o_core.evaluation.pairs import load_pairs
    from ui import evaluation_runs, n2o_runs

    started = _children(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(pair_cache, "cached_generate_pairs", lambda *a, **k: pytest.fail("the pairs were made here"))
        key = evaluation_runs.pair_key("synthetic:heros-synonym:20", None, corpus, 0)
        got = evaluation_runs.pairs(key, corpus)
    assert started == [("each_call", "load_pairs", ("synthetic:heros-synonym:20",))]
    assert got.source.synthetic and len(got) > 0
    expected = load_pairs("synthetic:heros-synonym:20", corpus=corpus, cache=n2o_runs.cache(), seed=0)
    pd.testing.assert_frame_equal(got.frame, expected.frame)
    assert set(got.queries) <= set(corpus.texts)
