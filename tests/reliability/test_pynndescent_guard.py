"""pynndescent kept off the request path: its numba compile runs once per process (in the background, or once
before the first build), and a build that does not finish within its time limit gives way to exact search with
a notice. The fast tests stand a fake `pynndescent` in for the real one (a build that never ends, a compile
counter); the slow one runs the real library on many near-identical rows."""

from __future__ import annotations

import sys
import threading
import time
import types

import numpy as np
import pytest

from n2o_core.runtime import notices
from n2o_core.search import approx as nb
from n2o_core.search.approx import ExactFallback, approx_knn
from n2o_core.search.exact import exact_knn


@pytest.fixture
def fake_pynndescent(monkeypatch):
    """A `pynndescent` whose NNDescent counts its builds and sleeps `hang` seconds (an endless build)."""
    mod = types.ModuleType("pynndescent")
    state = {"builds": 0, "hang": 0.0, "release": threading.Event()}

    class NNDescent:
        def __init__(self, data, **kw):
            state["builds"] += 1
            if state["hang"]:
                state["release"].wait(state["hang"])
            self.data = data

        def prepare(self):
            pass

        def query(self, Q, k):
            raise AssertionError("the fallback must not query the unfinished index")

    mod.NNDescent = NNDescent
    monkeypatch.setitem(sys.modules, "pynndescent", mod)
    monkeypatch.setattr(nb, "_warm", {})
    yield state
    state["release"].set()  # let the abandoned build thread end


def _data(n=400, d=16, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(np.float32)
    m = n // 2
    X[n // 4 : n // 4 + m] = X[0] + 1e-6 * rng.standard_normal((m, d)).astype(np.float32)  # near-identical rows
    return X


def test_a_build_past_its_time_limit_falls_back_to_exact_search(fake_pynndescent, monkeypatch):
    fake_pynndescent["hang"] = 600.0  # a build that does not end
    monkeypatch.setattr(nb, "_compile_pynndescent", lambda nice: None)
    X = _data()
    q = np.arange(0, 400, 7)
    heard: list[str] = []
    t0 = time.monotonic()
    with notices.listen(heard.append):
        res, index = approx_knn(X, 10, q, time_limit=0.5, recall_sample=30)
    took = time.monotonic() - t0
    assert took < 30  # the time limit, the tiny warm-up and the exact search; not the endless build
    assert isinstance(index, ExactFallback)
    exact = exact_knn(X, 10, query_ids=q)
    assert np.array_equal(res.ids, exact.ids) and np.allclose(res.sims, exact.sims)
    assert res.recall == 1.0
    assert np.array_equal(res.check_exact, res.check_approx)  # N2O error of the "approximation": 0
    assert len(heard) == 1 and "within 0.5 s" in heard[0]
    assert "did not finish its index of 400 rows" in heard[0] and "exact search was used instead" in heard[0]
    # the workspace keeps the fallback as its index: later query sets are answered exactly, with no rebuild
    builds = fake_pynndescent["builds"]
    res2, _ = approx_knn(X, 5, np.arange(3), index=index, recall_sample=10)
    assert fake_pynndescent["builds"] == builds
    assert np.array_equal(res2.ids, exact_knn(X, 5, query_ids=np.arange(3)).ids)


def test_time_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(nb.TIME_LIMIT_ENV, raising=False)
    assert nb.approx_time_limit(1000) == 300.0 and nb.approx_time_limit(1_000_000) == 5000.0
    monkeypatch.setenv(nb.TIME_LIMIT_ENV, "12.5")
    assert nb.approx_time_limit(10**6) == 12.5
    monkeypatch.setenv(nb.TIME_LIMIT_ENV, "soon")
    with pytest.raises(nb.N2OError, match="must be a number of seconds"):
        nb.approx_time_limit(10)


def test_the_compile_runs_once_per_process_and_builds_wait_for_it(fake_pynndescent, monkeypatch):
    """warm_approx starts one background compile; a build that comes while it runs waits for it instead of
    compiling again; later calls are no-ops."""
    gate = threading.Event()
    compiles = []

    def slow_compile(nice: bool) -> None:
        compiles.append(nice)
        gate.wait(10)

    monkeypatch.setattr(nb, "_compile_pynndescent", slow_compile)
    t = nb.warm_approx()
    assert t.is_alive() and compiles == [True]  # background, lowest priority
    assert nb.warm_approx() is t
    done = threading.Event()

    def build() -> None:
        nb.build_index(_data(60, 4), 5, time_limit=30)
        done.set()

    threading.Thread(target=build, daemon=True).start()
    assert not done.wait(0.5)  # waits for the compile under way
    gate.set()
    assert done.wait(20)
    assert compiles == [True] and fake_pynndescent["builds"] == 1


@pytest.mark.slow
def test_real_pynndescent_on_many_near_identical_rows_finishes_or_falls_back():
    """3,000 near-identical rows among 5,000 (the pattern that made pynndescent loop): approximate search
    returns within its limit (plus the exact check), from the index or from the exact fallback, and the
    neighbors of the distinct rows agree with exact search. (Recall on held-out queries drawn among the
    near-identical rows is low by construction: their exact neighbors are 2,999 near-ties in arbitrary order.)"""
    from n2o_core.search.result import recall_of

    rng = np.random.default_rng(1)
    X = rng.standard_normal((5000, 50)).astype(np.float32)
    X[1000:4000] = X[0] + 1e-6 * rng.standard_normal((3000, 50)).astype(np.float32)
    t0 = time.monotonic()
    nb.warm_approx(block=True)  # the compile is not part of the limit
    compile_s = time.monotonic() - t0
    q = np.arange(4000, 5000, 10)  # distinct rows
    t0 = time.monotonic()
    res, index = approx_knn(X, 10, q, time_limit=240, recall_sample=50)
    took = time.monotonic() - t0
    distinct = recall_of(res.ids, exact_knn(X, 10, query_ids=q).ids)
    how = "exact fallback" if isinstance(index, ExactFallback) else "index"
    print(
        f"\nnear-identical rows: compile {compile_s:.0f} s, search {took:.1f} s ({how}), recall@10 of the distinct "
        f"rows {distinct:.3f}, held-out recall {res.recall:.3f}"
    )
    assert took < 240 + 60
    assert distinct >= 0.9
