"""AppTest setup: a small synthetic corpus, cheap embedders and a temporary cache, chosen through the
environment variables the app reads for its defaults."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from app_checks import app_environment  # noqa: E402


@pytest.fixture(scope="session")
def app_env(tmp_path_factory):
    """Environment for the app under test (restored afterwards)."""
    yield from app_environment(tmp_path_factory.mktemp("app"))


@pytest.fixture
def app(app_env, monkeypatch):
    """A fresh AppTest of app.py (run it yourself); failures memoized by the app are forgotten afterwards."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    yield at
    from ui import n2o_runs

    n2o_runs.clear_failures()


@pytest.fixture
def isolated_jobs(monkeypatch) -> list[str]:
    """Jobs run in child processes, as on a shared server (N2O_ISOLATE=1); the returned list gets the name of
    each function a child process was started for."""
    from n2o_core.runtime import child

    started: list[str] = []
    real = child.run

    def counting(fn, *args, **kwargs):
        started.append(getattr(fn, "__name__", str(fn)))
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(child, "run", counting)
    monkeypatch.setenv("N2O_ISOLATE", "1")
    return started
