"""A `streamlit run app.py` server for browser tests: a free loopback port, a small synthetic corpus, four cheap
embedders and a temporary cache (the e2e session server and the reliability browser tests start theirs here)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from synthetic_text import write_corpus

from tools.dashboard_server import Server, ServerError, start_server

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
EMBEDDERS = "tfidf,glove-6b-50d,word2vec,fasttext"
#: The servers this test process has running now: a failing test's report ends with their logs (tests/conftest.py).
RUNNING: list[Server] = []


def require_browser() -> None:
    """Skip, saying why, when Debian's chromium or Playwright is missing."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); the browser tests need it")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")


@contextlib.contextmanager
def running_app(folder: Path, extra_env: dict[str, str] | None = None, *, sentences: int = 200) -> Iterator[str]:
    """`streamlit run app.py` on a free loopback port with a synthetic corpus of `sentences` lines and a cache in
    `folder` (`extra_env` overrides the defaults); yields the URL. Skips, saying why, without a browser."""
    with running_server(folder, extra_env, sentences=sentences) as server:
        yield server.url


@contextlib.contextmanager
def running_server(folder: Path, extra_env: dict[str, str] | None = None, *, sentences: int = 200) -> Iterator[Server]:
    """`running_app`, yielding the started `tools.dashboard_server.Server` (its URL, process id and log)."""
    require_browser()
    corpus = write_corpus(folder / "corpus.txt", sentences)
    env: dict[str, str] = dict(
        os.environ,
        N2O_CACHE_DIR=str(folder / "cache"),
        N2O_DEFAULT_CORPUS=str(corpus),
        N2O_DEFAULT_EMBEDDERS=EMBEDDERS,
        N2O_DEFAULT_QUERIES="40",
        N2O_DEFAULT_SAMPLES="3",
        HF_HUB_OFFLINE="1",
        N2O_PRELOAD="0",
        N2O_WARM_APPROX="0",
        TRANSFORMERS_OFFLINE="1",
    )
    env.update(extra_env or {})
    try:
        server = start_server(env, folder / "server.log")
    except ServerError as e:
        pytest.fail(str(e))
    RUNNING.append(server)
    try:
        yield server
    finally:
        RUNNING.remove(server)
        server.stop()
