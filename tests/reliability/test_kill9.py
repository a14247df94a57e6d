"""kill -9 anywhere: the tool is killed while it fills its cache, then run again; every rerun must finish with
exactly the clean run's result, and no entry that was complete before a kill may be lost or changed by it.

- Fast (default suite): `compare` in children of a fork server that has imported the tool once (a plain fork
  of the test process is refused by GNU OpenMP once gensim has used it), killed at two of its commit points
  (the N-th os.replace: data, sidecar, manifest, model state folder, --json file) and once after a random
  delay.
- Slow (`-m slow`): fresh processes of `compare`, `heros` and the app's data path (AppTest on a kept upload),
  each killed after a random delay, >= 50 kills in all; and every commit point of `compare`, before and after
  its os.replace. Figures go to docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest
from harness import Workload, fork_server, lost_entries, run_process, scan, start, write_corpus

# ------------------------------------------------------------------------------------------------ fast


def _compare_args(corpus: Path, cache: Path, out: Path) -> list[str]:
    return [
        "compare",
        "--corpus",
        str(corpus),
        "--embedder",
        "tfidf",
        "--embedder",
        "word2vec",
        "--k",
        "5",
        "--queries",
        "20",
        "--samples",
        "2",
        "--cache-dir",
        str(cache),
        "--json",
        str(out),
    ]


def _child(argv: list[str], kill_at: int, when: str) -> None:
    """Child of the fork server: the CLI, killed by itself at its `kill_at`-th os.replace (0: never)."""
    import sys
    import threading

    real = os.replace
    count = [0]
    lock = threading.Lock()

    def replace(src, dst, *a, **kw):
        with lock:  # embedders commit from several threads: this call's own number, taken under a lock
            count[0] += 1
            n = count[0]
        if n == kill_at and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        out = real(src, dst, *a, **kw)
        if n == kill_at and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return out

    os.replace = replace
    err = Path(argv[argv.index("--json") + 1] + ".stderr")
    sys.stdout = sys.stderr = open(err, "w")  # noqa: SIM115 - the child ends with os._exit
    try:
        from n2o_core.cli.main import main

        rc = main(argv)
    except BaseException:  # noqa: BLE001 - reported through the exit code and the .stderr file
        import traceback

        traceback.print_exc()
        rc = 3
    sys.stderr.flush()
    os._exit(rc)


def _fork_run(argv: list[str], kill_at: int = 0, when: str = "before", kill_after: float | None = None) -> int:
    p = fork_server().Process(target=_child, args=(argv, kill_at, when))
    start(p)
    p.join(kill_after)
    if p.is_alive():
        os.kill(p.pid, signal.SIGKILL)
    p.join(600)
    return p.exitcode


def test_compare_killed_at_commit_points_and_at_random_reruns_to_the_clean_result(tmp_path, monkeypatch):
    from n2o_core.cli.main import main

    corpus = write_corpus(tmp_path / "c.txt", 120)
    clean_cache, work = tmp_path / "clean", tmp_path / "work"
    commits: list[str] = []
    real = os.replace

    def counting(src, dst, *a, **kw):
        commits.append(str(dst))
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(os, "replace", counting)
    t0 = time.monotonic()
    assert main(_compare_args(corpus, clean_cache, tmp_path / "clean.json")) == 0
    t_clean = time.monotonic() - t0
    monkeypatch.undo()
    clean = scan(clean_cache)
    n = len(commits)
    assert n >= 12  # 2 embedders x (embeddings + neighbors) x (data, sidecar, manifest) + states + --json

    rng = random.Random(0)
    plan = [(n // 3, "before", None), (2 * n // 3, "after", None), (0, "before", rng.uniform(0.2, t_clean))]
    for kill_at, when, delay in plan:
        before = scan(work)
        code = _fork_run(_compare_args(corpus, work, tmp_path / "work.json"), kill_at, when, delay)
        log = Path(str(tmp_path / "work.json") + ".stderr")
        assert code in (0, -signal.SIGKILL), (code, log.read_text()[-3000:] if log.exists() else "")
        if kill_at:
            assert code == -signal.SIGKILL
        after = scan(work)
        assert lost_entries(before, after) == [], (kill_at, when, delay)
        assert after.manifest_ok
    assert main(_compare_args(corpus, work, tmp_path / "work.json")) == 0
    assert (tmp_path / "work.json").read_text() == (tmp_path / "clean.json").read_text()
    final = scan(work)
    assert final.valid == clean.valid  # every entry holds the clean run's values
    assert final.torn == []  # a torn entry left by a kill was discarded and rebuilt


# ------------------------------------------------------------------------------------------------ slow


def _round(w: Workload, root: Path, rng: random.Random, t_cold: float, stats: dict, clean_result, clean_scan):
    """Fresh cache; kill after random delays until a run finishes on its own; then check the rerun."""
    cache, out = root / "cache", root / "out.json"
    while True:
        before = scan(cache)
        delay = rng.uniform(0.3, t_cold)
        r = run_process(w.command(cache, out), w.env(), kill_after=delay)
        after = scan(cache)
        lost = lost_entries(before, after)
        stats["data_lost"] += len(lost)
        stats["lost_entries"] += lost
        stats["torn_seen"] += len(after.torn)
        stats["leftovers_max"] = max(stats["leftovers_max"], len(after.leftovers))
        stats["manifest_broken"] += int(not after.manifest_ok)
        stats["lock_waits"] += r.stderr.count("note: Waiting")
        if r.killed:
            stats["kills"] += 1
            stats["kill_delays"].append(round(delay, 2))
            # where the kill landed: the entries complete by then, by kind (embeddings, knn, models, heros, ...)
            kinds = sorted({rel.split("/")[0] for rel in clean_scan.valid})
            stats["complete_at_kill"].append([sum(r_.startswith(k + "/") for r_ in after.valid) for k in kinds])
            stats["kinds"] = kinds
            continue
        stats["runs_finished"] += 1
        ok = r.rc == 0 and w.result(out) == clean_result and scan(cache).valid == clean_scan.valid
        if not ok:
            stats["failures"] += 1
            stats["failure_details"].append({"rc": r.rc, "stderr": r.stderr[-1500:]})
        return


@pytest.mark.slow
def test_kill9_loop_compare_heros_app(tmp_path):
    """>= 50 kills after random delays across `compare`, `heros` and the app's data path (fresh processes,
    the whole process group killed with SIGKILL), each round ending with a rerun compared to a clean run."""
    corpus = write_corpus(tmp_path / "c.txt", 200)
    rng = random.Random(int(os.environ.get("N2O_KILL_SEED", "0")))
    target = {"compare": 20, "heros": 15, "app": 15}
    report = {}
    for name, kills in target.items():
        w = Workload(name, corpus)
        d = tmp_path / name
        d.mkdir()
        t0 = time.monotonic()
        r = run_process(w.command(d / "clean-cache", d / "clean.json"), w.env())
        t_cold = time.monotonic() - t0
        assert r.rc == 0, r.stderr[-3000:]
        clean_result, clean_scan = w.result(d / "clean.json"), scan(d / "clean-cache")
        stats = dict(
            kills=0,
            runs_finished=0,
            failures=0,
            failure_details=[],
            data_lost=0,
            lost_entries=[],
            torn_seen=0,
            leftovers_max=0,
            manifest_broken=0,
            lock_waits=0,
            kill_delays=[],
            complete_at_kill=[],
            cold_seconds=round(t_cold, 1),
        )
        i = 0
        while stats["kills"] < kills:
            i += 1
            rd = d / f"round{i}"
            rd.mkdir()
            _round(w, rd, rng, t_cold, stats, clean_result, clean_scan)
        report[name] = stats
    print("\nkill -9 loop:", json.dumps(report, indent=1))
    out = os.environ.get("N2O_RELIABILITY_OUT")
    if out:
        Path(out).write_text(json.dumps(report, indent=1))
    assert sum(s["kills"] for s in report.values()) >= 50
    assert all(s["failures"] == 0 for s in report.values()), report
    assert all(s["data_lost"] == 0 for s in report.values()), report
    assert all(s["manifest_broken"] == 0 for s in report.values()), report
    assert all(s["lock_waits"] == 0 for s in report.values()), report


@pytest.mark.slow
def test_kill9_at_every_commit_point_of_compare(tmp_path):
    """`compare` killed at each of its os.replace calls, just before and just after it (fresh processes, a
    fresh cache each time), then rerun: the rerun equals the clean run every time and nothing complete is lost."""
    corpus = write_corpus(tmp_path / "c.txt", 200)
    w = Workload("compare", corpus)
    log = tmp_path / "replaces.log"
    r = run_process(w.command(tmp_path / "clean-cache", tmp_path / "clean.json"), w.env(N2O_TEST_REPLACE_LOG=str(log)))
    assert r.rc == 0, r.stderr[-3000:]
    points = log.read_text().splitlines()
    clean_result, clean_scan = w.result(tmp_path / "clean.json"), scan(tmp_path / "clean-cache")
    stats = dict(points=len(points), kills=0, failures=0, data_lost=0, torn_seen=0, details=[])
    for i, line in enumerate(points, start=1):
        target = line.split("\t")[1]
        for when in ("before", "after"):
            d = tmp_path / f"p{i}-{when}"
            cache, out = d / "cache", d / "out.json"
            killed = run_process(w.command(cache, out), w.env(N2O_TEST_KILL_AT_REPLACE=f"{i}:{when}"))
            stats["kills"] += int(killed.killed)
            mid = scan(cache)
            stats["torn_seen"] += len(mid.torn)
            again = run_process(w.command(cache, out), w.env())
            final = scan(cache)
            lost = lost_entries(mid, final)
            stats["data_lost"] += len(lost)
            ok = killed.killed and again.rc == 0 and w.result(out) == clean_result and final.valid == clean_scan.valid
            if not ok:
                stats["failures"] += 1
                stats["details"].append({"point": i, "when": when, "target": target, "stderr": again.stderr[-800:]})
    print("\nkill -9 at every commit point:", json.dumps(stats, indent=1))
    out = os.environ.get("N2O_RELIABILITY_OUT")
    if out:
        Path(out + ".commits.json").write_text(json.dumps(stats, indent=1))
    assert stats["failures"] == 0 and stats["data_lost"] == 0, stats
