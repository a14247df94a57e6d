"""End-to-end fixtures: one `streamlit run app.py` server on loopback for the whole session; the headless
Debian Chromium driven by Playwright is tests/conftest.py's `browser`. Every module in tests/e2e/ visits its pages
against this server; tests skip, saying why, without chromium."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_app import running_app  # noqa: E402


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The session's app (shared by every e2e module; its cache warms up as tests go)."""
    with running_app(tmp_path_factory.mktemp("e2e")) as url:
        yield url
