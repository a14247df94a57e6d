"""The style gates as tests, so that `python -m pytest` (what CI runs) holds them: ruff's lint and format checks
on the whole tree and mypy on the core package and the dashboard (configuration in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


GATES = {"lint": ("ruff", "check", "."), "format": ("ruff", "format", "--check", ".")}


@pytest.mark.parametrize("command", GATES.values(), ids=GATES.keys())
def test_ruff(command):
    pytest.importorskip("ruff", reason="ruff is not installed (pip install -r requirements-dev.txt)")
    r = _run(*command)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_mypy(tmp_path):
    """mypy over the files pyproject.toml names (n2o_core, ui, pages, app.py, tools), every function annotated."""
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -r requirements-dev.txt)")
    r = _run("mypy", "--cache-dir", str(tmp_path / "mypy-cache"))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
