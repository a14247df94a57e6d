"""Shared fixtures: offline mode, a temporary cache, small synthetic corpora."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from app_server import RUNNING
from suite_order import longest_first, work_unit

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def pytest_collection_modifyitems(items: list) -> None:
    """The longest test files first (`suite_order`)."""
    longest_first(items)


def pytest_xdist_make_scheduler(config, log):
    """pytest.ini's `--dist loadfile`, with every browser test file in one unit (`suite_order.work_unit`)."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class BrowserFilesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return BrowserFilesTogether(config, log)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test's report ends with the log of every dashboard server running in this process and the text of
    the browser tab: a browser test that waits in vain (CI ran one 600 s for a note that never came) then says what
    the server did and what the page showed."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when == "call":
        for server in RUNNING:
            report.sections.append((f"server log {server.url} (last 6000 characters)", server.log_tail(6000)))
        page = (item.funcargs.get("_worker_tab") or {}).get("page")
        if page is not None and not page.is_closed():
            try:
                shown = page.evaluate("() => location.href + '\\n' + document.body.innerText")
            except Exception as e:  # noqa: BLE001 - the page may be gone; say so instead
                shown = f"(could not read the page: {e})"
            report.sections.append(("the browser tab's URL and text", shown[-6000:]))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh cache folder, also exported as N2O_CACHE_DIR."""
    d = tmp_path / "cache"
    monkeypatch.setenv("N2O_CACHE_DIR", str(d))
    return d


@pytest.fixture
def tie_vectors():
    """Small integer vectors: many exact cosine ties, duplicate rows and zero rows."""
    rng = np.random.default_rng(0)
    X = rng.integers(-2, 3, size=(300, 4)).astype(np.float32)
    X[::37] = 0.0
    X[50] = X[10]
    X[60] = X[10]
    return X


@pytest.fixture(autouse=True)
def _keep_main_module():
    """Streamlit's AppTest leaves the app script as sys.modules["__main__"]; a process started with "spawn" later
    (Dask's nanny, a cache writer) would re-import app.py instead of pytest. Put pytest's module back."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium (one for the session: Playwright's sync API allows one per thread); skips, saying
    why, without chromium or Playwright."""
    chromium = "/usr/bin/chromium"
    if not os.path.exists(chromium):
        pytest.skip(f"{chromium} is missing (apt-get install chromium); the browser tests need it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-background-networking"])
        yield b
        b.close()


@pytest.fixture(scope="session")
def _worker_tab(browser):
    """The browser tab this test process reuses ({"page": Page} once opened)."""
    held: dict = {}
    yield held
    if "page" in held and not held["page"].is_closed():
        held["page"].close()


@pytest.fixture
def tab(_worker_tab, browser):
    """`tab(viewport)`: this test process's one browser tab, blank and sized `viewport`. Each `goto` in it is a new
    visitor (a new session on the server); reusing the tab costs Chromium about half the CPU of a new page per
    view (benchmarks/bench_browser_tab.py: 2.7 against 4.9 CPU-seconds). A test that adds a listener to the tab
    removes it."""

    def open_tab(viewport: dict) -> object:
        page = _worker_tab.get("page")
        if page is None or page.is_closed():
            page = _worker_tab["page"] = browser.new_page()
        page.goto("about:blank")
        page.set_viewport_size(viewport)
        return page

    return open_tab


@pytest.fixture(scope="session", autouse=True)
def _model_cache_of_the_session(tmp_path_factory):
    """Models built once per machine (the MiniLM ONNX export, model2vec's distillation) go to a folder of this
    test session ($N2O_MODEL_CACHE), never to the user's ~/.cache."""
    old = os.environ.get("N2O_MODEL_CACHE")
    os.environ["N2O_MODEL_CACHE"] = str(tmp_path_factory.mktemp("model-cache"))
    yield
    if old is None:
        os.environ.pop("N2O_MODEL_CACHE", None)
    else:
        os.environ["N2O_MODEL_CACHE"] = old
