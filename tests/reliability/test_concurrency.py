"""Concurrent users of one cache: sessions (threads of one server) and processes (CLI runs) asking for the same
uncached embedder at the same moment. It must be computed once (the others wait on its lock and load it),
nothing may be corrupted, and every one of them must get the same array.

- Fast: 3 threads of this process plus 2 processes (children of a fork server) start together.
- Slow: a real Streamlit server with 5 Chromium sessions opened at once plus 3 CLI `compare` runs, all on a
  cold cache; the server's RSS is recorded with 1 and with 5 sessions open.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from harness import ROOT, VICTIM, fork_server, scan, start, write_corpus

from tools.dashboard_server import serving

EMBEDDER = "word2vec"  # corpus-trained: the first caller trains the model and embeds, inside the entry's lock


def _worker(corpus: str, cache: str, go: str, log: str, out: str) -> None:
    """Fork-server child: wait for the start signal, then ask for the embeddings (encodes are logged)."""
    from n2o_core.corpora import load_file
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    real = Workspace._encode

    def logged(self, eid, progress):
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {eid}\n")
        return real(self, eid, progress)

    Workspace._encode = logged
    ws = Workspace(load_file(corpus), cache=Cache(cache))
    while not os.path.exists(go):
        time.sleep(0.005)
    X = np.asarray(ws.embeddings(EMBEDDER))
    np.save(out, X)


def test_same_uncached_embedder_asked_by_threads_and_processes_at_once(tmp_path, monkeypatch):
    from n2o_core.corpora import load_file
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    corpus = write_corpus(tmp_path / "c.txt", 150)
    cache, go, log = tmp_path / "cache", tmp_path / "go", tmp_path / "encodes.log"
    ctx = fork_server()
    procs = [
        ctx.Process(target=_worker, args=(str(corpus), str(cache), str(go), str(log), str(tmp_path / f"p{i}.npy")))
        for i in range(2)
    ]
    for p in procs:
        start(p)

    real = Workspace._encode

    def logged(self, eid, progress):
        with open(log, "a") as f:
            f.write(f"{os.getpid()}-{threading.get_ident()} {eid}\n")
        return real(self, eid, progress)

    monkeypatch.setattr(Workspace, "_encode", logged)
    barrier = threading.Barrier(4)
    got: dict[int, np.ndarray] = {}
    errors: list[BaseException] = []

    def session(i: int) -> None:
        ws = Workspace(load_file(corpus), cache=Cache(cache))  # one workspace per session, like separate servers
        barrier.wait()
        try:
            got[i] = np.asarray(ws.embeddings(EMBEDDER))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=session, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # let the children reach their start line
    go.touch()
    barrier.wait()
    for t in threads:
        t.join(300)
    for p in procs:
        p.join(300)
        assert p.exitcode == 0
    assert not errors, errors
    encodes = log.read_text().splitlines()
    assert len(encodes) == 1, encodes  # computed once, by whoever took the lock first
    arrays = [got[i] for i in range(3)] + [np.load(tmp_path / f"p{i}.npy") for i in range(2)]
    assert all(np.array_equal(a, arrays[0]) for a in arrays[1:])
    s = scan(cache)
    assert s.torn == [] and s.leftovers == [] and s.manifest_ok
    assert sum(r.startswith("embeddings/") for r in s.valid) == 1


# ------------------------------------------------------------------------------------------------ slow

CHROMIUM = "/usr/bin/chromium"
HEATMAP = "[data-testid='stPlotlyChart'] .js-plotly-plot g.hm image"
EXCEPTION = "[data-testid='stException']"
EMBEDDERS = "tfidf,glove-6b-50d,word2vec,fasttext"


def _rss_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in KiB."""
    vals = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            k, v = line.split(":")
            vals[k] = int(v.split()[0])
    return vals["VmRSS"], vals["VmHWM"]


def _cli_runs(cli: list[str], cache: Path, out: Path, env: dict[str, str]) -> list[subprocess.Popen[str]]:
    """Three CLI `compare` runs on `cache`, started together; their JSON in out/cli<i>.json."""
    return [
        subprocess.Popen(
            [*cli, "--cache-dir", str(cache), "--json", str(out / f"cli{i}.json")],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(3)
    ]


def _five_sessions(browser, url: str) -> int:
    """Open five browser sessions at once and wait for each heatmap; returns how many showed a wait notice."""
    pages = []
    for _ in range(5):
        ctx = browser.new_context(viewport={"width": 1300, "height": 900})
        page = ctx.new_page()
        page.goto(url, wait_until="commit")
        pages.append(page)
    waits_seen = 0
    for page in pages:
        page.locator(HEATMAP).first.wait_for(timeout=900_000)
        page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=300_000)
        assert page.locator(EXCEPTION).count() == 0
        assert page.get_by_text("chance level k/(N−1)").first.is_visible()
        waits_seen += int("Waiting for" in page.content())
    return waits_seen


def _check_cli_runs(clis: list[subprocess.Popen[str]], out: Path, report: dict) -> None:
    """Each CLI run succeeded and wrote the clean run's JSON; counts the lock notes they printed."""
    for i, p in enumerate(clis):
        _, err = p.communicate(timeout=900)
        assert p.returncode == 0, err[-2000:]
        report.setdefault("cli_lock_notes", 0)
        report["cli_lock_notes"] += err.count("note: Waiting")
        assert json.loads((out / f"cli{i}.json").read_text()) == json.loads((out / "clean.json").read_text())


def _server_and_clients(tmp_path: Path, browser, cli: list[str], env: dict[str, str]) -> dict:
    """The server with five sessions and three CLI runs at once, then a sixth (warm) session; returns the report."""
    report: dict = {}
    with serving(
        env, tmp_path / "server.log", launcher=(sys.executable, str(VICTIM), "streamlit"), timeout=120
    ) as server:
        report["rss_idle_kib"] = _rss_kib(server.pid)[0]
        t0 = time.monotonic()
        clis = _cli_runs(cli, tmp_path / "cache", tmp_path, env)
        report["sessions_that_showed_a_wait_notice"] = _five_sessions(browser, server.url)
        report["seconds_all_sessions_served"] = round(time.monotonic() - t0, 1)
        report["rss_5_sessions_kib"], report["hwm_kib"] = _rss_kib(server.pid)
        _check_cli_runs(clis, tmp_path, report)
        # a sixth session after all is cached: served from the cache
        page = browser.new_page()
        t1 = time.monotonic()
        page.goto(server.url)
        page.locator(HEATMAP).first.wait_for(timeout=300_000)
        report["warm_session_seconds"] = round(time.monotonic() - t1, 1)
        report["rss_after_6th_kib"] = _rss_kib(server.pid)[0]
    return report


@pytest.mark.slow
def test_five_browser_sessions_and_three_cli_runs_on_a_cold_cache(tmp_path, browser):
    corpus = write_corpus(tmp_path / "c.txt", 300)
    cache, log = tmp_path / "cache", tmp_path / "encodes.log"
    env = dict(
        os.environ,
        N2O_CACHE_DIR=str(cache),
        N2O_DEFAULT_CORPUS=str(corpus),
        N2O_DEFAULT_EMBEDDERS=EMBEDDERS,
        N2O_DEFAULT_QUERIES="30",
        N2O_DEFAULT_SAMPLES="2",
        N2O_WARM_APPROX="0",
        N2O_TEST_ENCODE_LOG=str(log),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    # the clean result, on a cache of its own
    cli = [sys.executable, str(VICTIM), "cli", "compare", "--corpus", str(corpus), "--k", "10", "--queries", "30"]
    cli += ["--samples", "2", *(a for e in EMBEDDERS.split(",") for a in ("--embedder", e))]
    clean_env = dict(env, N2O_TEST_ENCODE_LOG=str(tmp_path / "clean.log"))
    r = subprocess.run(
        [*cli, "--cache-dir", str(tmp_path / "clean"), "--json", str(tmp_path / "clean.json")],
        cwd=ROOT,
        env=clean_env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    report = _server_and_clients(tmp_path, browser, cli, env)
    encodes = [ln.split()[1] for ln in log.read_text().splitlines()]
    report["encodes"] = {e: encodes.count(e) for e in sorted(set(encodes))}
    s = scan(cache)
    report["cache"] = {"valid": len(s.valid), "torn": len(s.torn), "leftovers": len(s.leftovers)}
    print("\nconcurrent sessions:", json.dumps(report, indent=1))
    out = os.environ.get("N2O_RELIABILITY_OUT")
    if out:
        Path(out + ".sessions.json").write_text(json.dumps(report, indent=1))
    assert report["encodes"] == {e: 1 for e in EMBEDDERS.split(",")}, report  # each computed once in all
    assert s.torn == [] and s.leftovers == [] and s.manifest_ok
