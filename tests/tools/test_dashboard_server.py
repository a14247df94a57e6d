"""tools.dashboard_server: a server that exits before it is healthy is an error that quotes its log (the healthy
path is the browser tests' session server)."""

from __future__ import annotations

import sys
import time

import pytest

from tools.dashboard_server import ServerError, free_port, healthy, start_server


def test_a_server_that_exits_raises_with_its_log(tmp_path):
    code = "import sys; print('no app here', flush=True); sys.exit(3)"
    t0 = time.monotonic()
    with pytest.raises(ServerError, match="no app here"):
        start_server({}, tmp_path / "server.log", launcher=(sys.executable, "-c", code), timeout=60, poll=0.05)
    assert time.monotonic() - t0 < 30  # noticed when the process exits, not at the deadline


def test_nothing_listens_on_a_free_port():
    assert not healthy(f"http://127.0.0.1:{free_port()}")
