"""The cache under faults: a lock holder killed with SIGKILL, a lock held for long (the waiting notice), a disk
that fills during a write (a patched writer here; a real tiny tmpfs in the slow test), entry names that point
outside the cache."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from harness import ROOT, fork_server, lost_entries, scan, start, write_corpus

from n2o_core.errors import CacheError, N2OError
from n2o_core.runtime import notices
from n2o_core.storage import cache as cache_mod
from n2o_core.storage.cache import Cache

FORK = fork_server()


def _hold(root: str, rel: str, ready, seconds: float) -> None:
    """Child: take the entry's lock, say so, hold it."""
    with Cache(root).lock(rel, what=f"test entry {rel}"):
        ready.set()
        time.sleep(seconds)


# ------------------------------------------------------------------------------------------------ locks


def test_lock_of_a_killed_holder_is_free_at_once(tmp_path):
    """kill -9 of a process inside Cache.lock leaves the lock file on disk but no lock: the next taker gets
    it in well under a second (flock locks belong to the open file, which the kernel closes at death).
    Repeated 5 times; the lock file is the same one each time."""
    c = Cache(tmp_path)
    waits = []
    for _ in range(5):
        ready = FORK.Event()
        p = FORK.Process(target=_hold, args=(str(tmp_path), "emb/x.npy", ready, 600))
        start(p)
        assert ready.wait(30)
        got = threading.Event()

        def take(got: threading.Event = got) -> None:
            with c.lock("emb/x.npy"):
                got.set()

        t = threading.Thread(target=take, daemon=True)
        t.start()
        assert not got.wait(0.3), "the lock should be held while its holder lives"
        os.kill(p.pid, signal.SIGKILL)
        t0 = time.monotonic()
        assert got.wait(10), "the lock of a killed holder blocked the next run"
        waits.append(time.monotonic() - t0)
        p.join(5)
        assert p.exitcode == -signal.SIGKILL
    assert len(list((tmp_path / "locks").glob("*.lock"))) == 1  # the file stays; it holds no lock
    assert max(waits) < 1.0, waits
    print(f"\nlock of a killed holder: next taker waited {', '.join(f'{w * 1000:.0f}' for w in waits)} ms")


def test_waiting_for_a_lock_is_announced_with_holder_and_time(tmp_path, monkeypatch):
    """A process that waits more than LOCK_NOTICE_S says who it waits for, what it computes and how long it has
    waited, through the notices listener (CLI: stderr line; app: the embedder's status line)."""
    monkeypatch.setattr(cache_mod, "LOCK_NOTICE_S", 0.3)
    monkeypatch.setattr(cache_mod, "LOCK_NOTICE_EVERY_S", 0.5)
    ready = FORK.Event()
    p = FORK.Process(
        target=_hold, args=(str(tmp_path), "knn/y.npz", ready, 3.0)
    )  # long enough for repeated notices on a loaded machine
    start(p)
    assert ready.wait(30)
    heard: list[str] = []
    t0 = time.monotonic()
    with notices.listen(heard.append), Cache(tmp_path).lock("knn/y.npz"):
        waited = time.monotonic() - t0
    p.join(5)
    assert 1.0 < waited < 10
    assert heard, "no notice while waiting"
    assert f"pid {p.pid}" in heard[0] and "test entry knn/y.npz" in heard[0] and "so far" in heard[0]
    assert len(heard) >= 2  # repeated while the wait goes on
    secs = [float(m.split(": ")[1].split(" s so far")[0]) for m in heard]
    assert secs == sorted(secs)


def test_waiting_thread_of_the_same_process_is_told_too(tmp_path, monkeypatch):
    """Two dashboard sessions are threads of one server: the second waits for the first (flock locks are per
    open file, so threads exclude each other too) and is told it waits for another session."""
    monkeypatch.setattr(cache_mod, "LOCK_NOTICE_S", 0.2)
    c = Cache(tmp_path)
    inside = threading.Event()
    release = threading.Event()

    def first() -> None:
        with c.lock("embeddings/z.npy"):
            inside.set()
            release.wait(10)

    t = threading.Thread(target=first)
    t.start()
    assert inside.wait(10)
    heard: list[str] = []
    threading.Timer(0.8, release.set).start()
    with notices.listen(heard.append), c.lock("embeddings/z.npy"):
        pass
    t.join(5)
    assert heard and "another session of this process" in heard[0]


def test_cli_prints_the_waiting_notice(tmp_path, monkeypatch, capsys):
    """The CLI's listener: `note: Waiting for ...` on stderr while another process holds the entry."""
    from n2o_core.cli.main import main
    from n2o_core.corpora import load_file
    from n2o_core.corpus_workspace import Workspace

    monkeypatch.setattr(cache_mod, "LOCK_NOTICE_S", 0.2)
    corpus = write_corpus(tmp_path / "c.txt", 40)
    cache_dir = tmp_path / "cache"
    ws = Workspace(load_file(corpus), cache=Cache(cache_dir))
    rel = ws._rel("embeddings", "tfidf", "-float32.npy")
    ready = FORK.Event()
    p = FORK.Process(target=_hold, args=(str(cache_dir), rel, ready, 3.0))
    start(p)
    assert ready.wait(30)
    rc = main(["embed", "--corpus", str(corpus), "--embedder", "tfidf", "--cache-dir", str(cache_dir)])
    p.join(5)
    err = capsys.readouterr().err
    assert rc == 0
    assert f"note: Waiting for another process (pid {p.pid}) that is computing test entry" in err


# ------------------------------------------------------------------------------------------------ disk full


def _enospc(*_a, **_kw):
    raise OSError(errno.ENOSPC, "No space left on device")


def _fill_cache(c: Cache) -> None:
    c.save_dense("embeddings/a.npy", np.arange(12, dtype=np.float32).reshape(3, 4), description="a")
    c.save_json("heros/p.json", {"pairs": [["a", "b"]]})
    c.save_bundle("knn/n.npz", ids=np.arange(6).reshape(2, 3), sims=np.ones((2, 3), np.float32))


@pytest.mark.parametrize("stage", ["data", "sidecar", "manifest"])
@pytest.mark.parametrize("kind", ["dense", "json", "sparse", "bundle"])
def test_disk_full_during_a_write_fails_clearly_and_keeps_the_cache(tmp_path, monkeypatch, stage, kind):
    """The disk fills half-way through the data file (after 100 bytes), or while the sidecar or the manifest
    is written: one CacheError sentence, no temporary file left, the new entry absent, every other entry intact."""
    import scipy.sparse as sp

    from n2o_core.storage import fileio

    c = Cache(tmp_path)
    _fill_cache(c)
    before = scan(tmp_path)
    manifest_before = json.loads((tmp_path / "manifest.json").read_text())

    real_atomic_write = fileio.atomic_write

    class Full:
        def __init__(self, f):
            self.f, self.n = f, 0

        def write(self, b):
            if self.n + len(b) > 100:
                self.f.write(bytes(b)[: max(0, 100 - self.n)])
                raise OSError(errno.ENOSPC, "No space left on device")
            self.n += len(b)
            return self.f.write(b)

        def __getattr__(self, name):
            return getattr(self.f, name)

    def data_full(path, write, mode=0o644):
        return real_atomic_write(path, lambda f: write(Full(f)), mode)

    if stage == "data":
        monkeypatch.setattr(cache_mod, "atomic_write", data_full)
    elif stage == "sidecar":
        calls = {"n": 0}
        real_json = cache_mod.atomic_write_json

        def sidecar_full(path, obj, **kw):
            calls["n"] += 1
            if calls["n"] == 1:
                return real_atomic_write(path, lambda f: Full(f).write(b"x" * 200))
            return real_json(path, obj, **kw)

        monkeypatch.setattr(cache_mod, "atomic_write_json", sidecar_full)
    else:
        real_json = cache_mod.atomic_write_json
        monkeypatch.setattr(
            cache_mod,
            "atomic_write_json",
            lambda path, obj, **kw: _enospc() if Path(path).name == "manifest.json" else real_json(path, obj, **kw),
        )

    big = np.random.default_rng(0).standard_normal((50, 20)).astype(np.float32)
    with pytest.raises(CacheError) as ei:
        if kind == "dense":
            c.save_dense("embeddings/new.npy", big)
        elif kind == "json":
            c.save_json("heros/new.json", {"x": big.tolist()})
        elif kind == "sparse":
            c.save_sparse("embeddings/new.npz", sp.csr_matrix(big))
        else:
            c.save_bundle("knn/new.npz", ids=np.arange(1000).reshape(10, 100), sims=big)
    msg = str(ei.value)
    assert "the disk is full" in msg and "nothing was stored" in msg and "\n" not in msg
    monkeypatch.undo()
    after = scan(tmp_path)
    assert lost_entries(before, after) == []
    assert after.leftovers == [] and after.torn == []
    assert set(after.valid) == set(before.valid)  # the new entry is absent, not half there
    assert json.loads((tmp_path / "manifest.json").read_text()) == manifest_before
    assert (c.load_dense("embeddings/a.npy") == np.arange(12, dtype=np.float32).reshape(3, 4)).all()


def test_disk_full_through_the_cli_is_one_error_line(tmp_path, monkeypatch, capsys):
    """`embed` on a full disk: exit 2, one `error:` line, and the run after the disk is freed gives the same
    embeddings as a run that never failed."""
    from n2o_core.cli.main import main

    corpus = write_corpus(tmp_path / "c.txt", 40)
    args = ["embed", "--corpus", str(corpus), "--embedder", "tfidf", "--cache-dir"]
    clean = tmp_path / "clean"
    assert main([*args, str(clean)]) == 0
    monkeypatch.setattr(cache_mod, "atomic_write", lambda *a, **k: _enospc())
    capsys.readouterr()
    assert main([*args, str(tmp_path / "full")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: Could not write 'embeddings/") and "disk is full" in err[0]
    monkeypatch.undo()
    assert main([*args, str(tmp_path / "full")]) == 0
    assert scan(tmp_path / "full").valid == scan(clean).valid


def test_cli_json_output_on_a_full_disk_is_one_error_line(tmp_path, monkeypatch, capsys):
    """An OSError outside the cache (the --json file) is one line too, not a traceback."""
    import n2o_core.cli.common as cli_common
    from n2o_core.cli.main import main

    corpus = write_corpus(tmp_path / "c.txt", 40)
    monkeypatch.setattr(cli_common, "atomic_write_text", lambda *a, **k: _enospc())
    argv = ["neighbors", "--corpus", str(corpus), "--embedder", "tfidf", "--query", "0", "--k", "3"]
    rc = main([*argv, "--cache-dir", str(tmp_path / "cache"), "--json", str(tmp_path / "out.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == ["error: No space left on device."]


@pytest.mark.slow
def test_disk_full_on_a_real_tiny_tmpfs(tmp_path):
    """`compare` with its cache on a 96 KiB tmpfs (a private mount namespace: `unshare -m`): the disk fills
    during a cache write; the run exits 2 with one `error:` line; every entry left on the tmpfs is valid; the
    same cache moved to a roomy disk finishes the run with the clean run's result."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is missing")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a private mount namespace here: {probe.stderr.decode().strip()}")
    corpus = write_corpus(tmp_path / "c.txt", 200)
    mnt, copy = tmp_path / "mnt", tmp_path / "copy"
    mnt.mkdir()
    cmd = [sys.executable, "-m", "n2o_core", "compare", "--corpus", str(corpus), "--embedder", "tfidf"]
    cmd += ["--embedder", "glove-6b-50d", "--k", "5", "--queries", "20", "--samples", "2", "--cache-dir"]
    script = (
        f"mount -t tmpfs -o size=96k tmpfs {mnt} && "
        f"{' '.join(cmd)} {mnt}/cache; echo rc=$? >&2; "
        f'python -c \'import sys; sys.path.insert(0, "{ROOT}"); from tests.reliability.harness import scan; '
        f's = scan("{mnt}/cache"); print("SCAN", len(s.valid), len(s.torn), len(s.leftovers), s.manifest_ok)\' >&2; '
        f"cp -a {mnt}/cache {copy}"
    )
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=900)
    err = r.stderr
    assert "rc=2" in err, err[-2000:]
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and ("disk is full" in lines[0] or "No space left" in lines[0]), err[-2000:]
    assert "Traceback" not in err
    scan_line = next(ln for ln in err.splitlines() if ln.startswith("SCAN"))
    _, n_valid, n_torn, n_left, ok = scan_line.split()
    assert int(n_torn) == 0 and int(n_left) == 0 and ok == "True", scan_line
    clean = subprocess.run([*cmd, str(tmp_path / "clean"), "--json", str(tmp_path / "clean.json")], cwd=ROOT)
    again = subprocess.run([*cmd, str(copy), "--json", str(tmp_path / "again.json")], cwd=ROOT)
    assert clean.returncode == 0 and again.returncode == 0
    assert (tmp_path / "clean.json").read_text() == (tmp_path / "again.json").read_text()
    print(f"\ntiny tmpfs: {n_valid} valid entries kept, error line: {lines[0]}")


# ------------------------------------------------------------------------------------------------ names


@pytest.mark.parametrize("rel", ["../escape.json", "a/../../escape.json", "/etc/passwd", "knn/\x00.npz"])
def test_entry_names_cannot_leave_the_cache(tmp_path, rel):
    c = Cache(tmp_path / "cache")
    with pytest.raises(CacheError, match="outside the cache"):
        c.save_json(rel, {"x": 1})
    with pytest.raises(N2OError):
        c.load_json(rel)
    assert not (tmp_path / "escape.json").exists()
