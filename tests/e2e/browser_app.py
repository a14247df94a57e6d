"""What the browser tests share: `running_app` (a `streamlit run app.py` server on loopback with a small
synthetic corpus, four cheap embedders and a temporary cache), selectors, and waits and checks on a page."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
EMBEDDERS = "tfidf,glove-6b-50d,word2vec,fasttext"

sys.path.insert(0, str(ROOT / "tests"))
from synthetic_text import write_corpus  # noqa: E402

EXCEPTION = "[data-testid='stException']"
HEATMAP = "[data-testid='stPlotlyChart'] .js-plotly-plot g.hm image"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_browser() -> None:
    """Skip, saying why, when Debian's chromium or Playwright is missing."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); the browser tests need it")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")


@contextlib.contextmanager
def running_app(folder: Path, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """`streamlit run app.py` on a free loopback port with a small corpus and a cache in `folder`; yields the URL."""
    require_browser()
    corpus = write_corpus(folder / "corpus.txt", 200)
    port = _free_port()
    env = dict(
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
        **(extra_env or {}),
    )
    log = open(folder / "server.log", "w+b")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read().strip() == b"ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(f"the app did not become healthy:\n{log.read().decode(errors='replace')[-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def settle(page, timeout: float = 240_000) -> None:
    """Wait until the script run is over (the app reports notRunning) and the page is connected."""
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)
    page.wait_for_timeout(150)
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)


def no_exception(page) -> None:
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()
