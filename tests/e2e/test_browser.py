"""End to end: `streamlit run app.py --server.headless true`, driven in headless Chromium through Playwright.

A small synthetic corpus, four cheap embedders and a temporary cache keep it quick; the test asserts a rendered
heatmap, a k change, every page without an exception element, and a shared deep link on a fresh server.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
EMBEDDERS = "tfidf,glove-6b-50d,word2vec,fasttext"

if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); the browser test needs it", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")

sys.path.insert(0, str(ROOT / "tests"))
from synthetic_text import write_corpus  # noqa: E402

EXCEPTION = "[data-testid='stException']"
HEATMAP = "[data-testid='stPlotlyChart'] .js-plotly-plot g.hm image"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A running app on a free port (stopped afterwards); yields its base URL."""
    d = tmp_path_factory.mktemp("e2e")
    corpus = write_corpus(d / "corpus.txt", 200)
    port = _free_port()
    env = dict(
        os.environ,
        N2O_CACHE_DIR=str(d / "cache"),
        N2O_DEFAULT_CORPUS=str(corpus),
        N2O_DEFAULT_EMBEDDERS=EMBEDDERS,
        N2O_DEFAULT_QUERIES="40",
        N2O_DEFAULT_SAMPLES="3",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    log = open(d / "server.log", "w+b")
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


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def settle(page, timeout: float = 240_000) -> None:
    """Wait until the script run is over (the app reports notRunning) and the page is connected."""
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)
    page.wait_for_timeout(150)
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)


def no_exception(page) -> None:
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()


def test_deep_link_on_a_fresh_server(server, browser):
    """The first request a server gets is a shared link to a page other than the default one."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/tokens?k=5&samples=2")
    page.get_by_role("heading", name="Token overlap").wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=60_000)
    assert "k=5" in page.url
    page.close()


def test_pages_render_in_chromium(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server)
    page.locator(HEATMAP).first.wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    assert page.get_by_role("heading", name="N2O heatmap").is_visible()
    assert page.get_by_text("chance level k/(N−1)").first.is_visible()
    assert "k=10" in page.url

    # a warm k change: the slider's keyboard step re-renders the matrix and rewrites the link
    thumb = page.locator("[data-testid='stSidebar'] [data-testid='stSlider'] input[type='range']").first
    thumb.focus()
    thumb.press("ArrowLeft")
    page.get_by_text("k = 9 ·").first.wait_for(timeout=30_000)
    settle(page)
    no_exception(page)
    assert "k=9" in page.url
    assert page.locator(HEATMAP).count() >= 1

    for name, heading in (
        ("Query explorer", "Query explorer"),
        ("Token overlap", "Token overlap"),
        ("HEROS subsets", "HEROS subsets"),
        ("About", "About N2O Explorer"),
    ):
        page.locator("[data-testid='stSidebarNav'] a", has_text=name).click()
        page.get_by_role("heading", name=heading).wait_for(timeout=240_000)
        settle(page)
        no_exception(page)
        assert "k=9" in page.url  # the shared choices survive a page switch
    page.close()
