"""The Dask backend as users run it: `dask scheduler` and `dask worker` started as separate processes in another
folder (loopback only), then `python -m n2o_core compare --scheduler ...` gives the JSON of a local run; and a
cluster that cannot import n2o_core is named in one sentence, not as a deserialization error."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from synthetic_text import write_corpus  # noqa: E402

pytestmark = pytest.mark.slow  # two Python processes start and a compare runs twice: about 30 s
EMBEDDERS = ("tfidf", "glove-6b-50d")
WORKER_ARGS = ("--no-dashboard", "--memory-limit", "0")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(importable: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if importable:
        env["PYTHONPATH"] = str(ROOT)  # what `pip install .` gives a machine; the package is not installed here
    env["DASK_DISTRIBUTED__WORKER__DAEMON"] = "False"
    return env


@contextmanager
def cluster(folder: Path, importable: bool, worker_importable: bool | None = None) -> Iterator[str]:
    """A scheduler and one worker started with cwd=`folder` (outside the repository); yields the address."""
    dask = shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command is not installed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    common = {"cwd": folder, "env": _env(importable), "stdout": subprocess.DEVNULL, "stderr": subprocess.STDOUT}
    procs = [
        subprocess.Popen(  # noqa: S603
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **common
        )
    ]
    try:
        _wait_for_port(port, procs[0])
        procs.append(
            subprocess.Popen(  # noqa: S603
                [dask, "worker", address, "--host", "127.0.0.1", "--nworkers", "1", "--nthreads", "1", *WORKER_ARGS],
                **{**common, "env": _env(importable if worker_importable is None else worker_importable)},
            )
        )
        _wait_for_worker(address)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def _wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, "the scheduler exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise AssertionError("the scheduler did not listen in time")


def _wait_for_worker(address: str, timeout: float = 60) -> None:
    from distributed import Client

    with Client(address, timeout=20) as client:
        client.wait_for_workers(1, timeout=timeout)


def _compare(tmp: Path, corpus: Path, out: Path, scheduler: str | None) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "n2o_core", "compare", "--corpus", str(corpus), "--cache-dir", str(tmp)]
    for e in EMBEDDERS:
        args += ["--embedder", e]
    args += ["--k", "5", "--queries", "20", "--samples", "2", "--json", str(out)]
    if scheduler:
        args += ["--scheduler", scheduler]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "N2O_PRELOAD": "0"}
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)  # noqa: S603


def _results(path: Path) -> dict:
    doc = json.loads(path.read_text())
    return _without_timings(doc)


def _without_timings(doc):
    if isinstance(doc, dict):
        return {k: _without_timings(v) for k, v in doc.items() if "second" not in k and k not in ("timings",)}
    if isinstance(doc, list):
        return [_without_timings(v) for v in doc]
    return doc


def test_compare_on_a_cluster_started_elsewhere_equals_a_local_run(tmp_path):
    corpus = write_corpus(tmp_path / "corpus.txt", 120)
    local = _compare(tmp_path / "cache-local", corpus, tmp_path / "local.json", None)
    assert local.returncode == 0, local.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with cluster(elsewhere, importable=True) as address:
        remote = _compare(tmp_path / "cache-dask", corpus, tmp_path / "dask.json", address)
    assert remote.returncode == 0, remote.stderr
    assert _results(tmp_path / "dask.json") == _results(tmp_path / "local.json")


@pytest.mark.parametrize(("scheduler_ok", "who"), [(False, "scheduler"), (True, "worker at tcp://127.0.0.1:")])
def test_a_cluster_without_the_package_is_named(tmp_path, scheduler_ok, who):
    corpus = write_corpus(tmp_path / "corpus.txt", 60)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with cluster(elsewhere, importable=scheduler_ok, worker_importable=False) as address:
        run = _compare(tmp_path / "cache", corpus, tmp_path / "out.json", address)
    assert run.returncode != 0
    said = run.stderr + run.stdout
    assert f"The Dask {who}" in said, said
    assert "cannot import n2o_core: install this package there (pip install .)" in said
    assert "deserialization" not in said
