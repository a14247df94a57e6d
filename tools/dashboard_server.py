"""The dashboard as a server process: `streamlit run app.py` on a loopback port, ready once `/_stcore/health`
answers "ok". The browser tests, the reliability tests and the benchmarks start and stop it through here.

    server = start_server(env, tmp / "server.log")     # raises ServerError, with the log's tail, if it fails
    try:
        ...  # open server.url in a browser
    finally:
        server.stop()

or `with serving(env, log_path) as server: ...`. Standard library only (no Streamlit import): a test or a
benchmark script imports it before it starts anything.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The repository root: `app.py` is run from here.
ROOT = Path(__file__).resolve().parents[1]
#: How the server is started by default; a test may put a wrapper in front (e.g. a script that injects faults).
STREAMLIT: tuple[str, ...] = (sys.executable, "-m", "streamlit")


class ServerError(RuntimeError):
    """The server exited, or did not become healthy in time; the message ends with the tail of its log."""


def free_port() -> int:
    """A loopback port that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def healthy(url: str) -> bool:
    """Whether the server at `url` answers its health check."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return bool(r.read().strip() == b"ok")
    except OSError:
        return False


@dataclass
class Server:
    """A started server: its process, port and log file."""

    proc: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log_tail(self, chars: int = 3000) -> str:
        """The end of the server's output (stdout and stderr)."""
        try:
            return self.log_path.read_bytes().decode(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self, timeout: float = 15) -> None:
        """Terminate the server; kill it when it has not exited after `timeout` seconds."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_server(
    env: Mapping[str, str],
    log_path: Path,
    *,
    port: int | None = None,
    extra_args: Sequence[str] = (),
    launcher: Sequence[str] = STREAMLIT,
    timeout: float = 90,
    poll: float = 0.3,
    cwd: Path = ROOT,
) -> Server:
    """Start `<launcher> run app.py --server.headless true` on `port` (default: a free one) with `env`, its output
    in `log_path`, and wait until it is healthy. Raises ServerError (the server stopped) when it exits first or
    is not healthy after `timeout` seconds."""
    port = free_port() if port is None else port
    cmd = [*launcher, "run", "app.py", "--server.headless", "true", "--server.port", str(port)]
    cmd += ["--server.address", "127.0.0.1", *extra_args]
    with open(log_path, "wb") as log:  # the child writes to its own copy of the descriptor
        proc = subprocess.Popen(cmd, cwd=cwd, env=dict(env), stdout=log, stderr=subprocess.STDOUT)
    server = Server(proc, port, Path(log_path))
    deadline = time.monotonic() + timeout
    while not healthy(server.url):
        if proc.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise ServerError(f"the app did not become healthy (log: {log_path}):\n{server.log_tail()}")
        time.sleep(poll)
    return server


@contextlib.contextmanager
def serving(
    env: Mapping[str, str],
    log_path: Path,
    *,
    port: int | None = None,
    extra_args: Sequence[str] = (),
    launcher: Sequence[str] = STREAMLIT,
    timeout: float = 90,
) -> Iterator[Server]:
    """`start_server(...)` for the length of a `with` block; the server is stopped on the way out."""
    server = start_server(env, log_path, port=port, extra_args=extra_args, launcher=launcher, timeout=timeout)
    try:
        yield server
    finally:
        server.stop()


#: The memory budget (issue 27): resident MB of the server after one visitor's tour of every page on the default
#: corpus, and the MB each further concurrent visitor may add. benchmarks/bench_memory.py records the server
#: against it and the two-visitor browser test (tests/e2e/test_two_visitors.py) asserts it.
MEMORY_BUDGET_MB = 1500
MEMORY_PER_SESSION_MB = 100


def memory_budget_mb(sessions: int) -> int:
    """The resident MB allowed with `sessions` (>= 1) concurrent visitors, each having toured every page."""
    return MEMORY_BUDGET_MB + MEMORY_PER_SESSION_MB * max(0, sessions - 1)


def resident_mb(pid: int) -> float:
    """Resident memory (RSS) of process `pid` and its child processes, in MB (10^6 bytes; psutil, which Dask's
    distributed brings)."""
    import psutil

    proc = psutil.Process(pid)
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):  # a child that just exited
            total += p.memory_info().rss
    return total / 1e6


__all__ = [
    "MEMORY_BUDGET_MB",
    "MEMORY_PER_SESSION_MB",
    "ROOT",
    "STREAMLIT",
    "Server",
    "ServerError",
    "free_port",
    "healthy",
    "memory_budget_mb",
    "resident_mb",
    "serving",
    "start_server",
]
