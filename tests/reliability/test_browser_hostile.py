"""End to end in headless Chromium (the setup of tests/e2e/test_browser.py): a hostile link and a hostile upload
reach the real app; the page shows messages and escaped text, never Streamlit's exception element, never a
script dialog, an injected element or a link the user did not write."""

from __future__ import annotations

import contextlib
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from harness import ROOT

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from app_server import running_app  # noqa: E402

EXCEPTION = "[data-testid='stException']"
HEATMAP = "[data-testid='stPlotlyChart'] .js-plotly-plot g.hm image"
HOSTILE_NAME = "<img src=x onerror=alert(5)> [Log in](http:evil.example).txt"
HOSTILE_LINES = [
    "The strong <b>team</b> won the final <script>alert(1)</script> on Monday.",
    "An <img src=x onerror=alert(2)> tag appeared in the team report.",
    "مرحبا بالعالم، هذه جملة عربية عن الفريق.",
    "The family 👨‍👩‍👧 went to the 🏖️ beach with the team.",
    "Red \x1b[31malert\x1b[0m rang a bell\x07 at the bank.",
    "A [link](http:evil.example) and **bold** markdown about the team.",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_app(
        tmp_path_factory.mktemp("hostile-e2e"),
        {"N2O_DEFAULT_EMBEDDERS": "tfidf,glove-6b-50d", "N2O_DEFAULT_QUERIES": "20", "N2O_DEFAULT_SAMPLES": "2"},
        sentences=80,
    ) as url:
        yield url


def settle(page, timeout: float = 240_000) -> None:
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)
    page.wait_for_timeout(200)
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)


@contextlib.contextmanager
def _dialogs(page):
    """The messages of the script dialogs that open on `page` in the block (each dismissed); the listener goes
    with the block (the tab is reused by the next test)."""
    said: list[str] = []

    def on_dialog(dialog) -> None:
        said.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        yield said
    finally:
        page.remove_listener("dialog", on_dialog)


def _safe(page, dialogs: list[str]) -> None:
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()
    assert dialogs == [], dialogs  # no alert() ran
    assert page.locator("img[onerror]").count() == 0
    assert page.locator("a[href*='evil.example']").count() == 0
    assert "Traceback" not in page.content()


def test_hostile_link(server, tab):
    url = server
    page = tab({"width": 1400, "height": 1000})
    with _dialogs(page) as dialogs:
        _hostile_link(url, page, dialogs)


def _hostile_link(url: str, page, dialogs: list[str]) -> None:
    params = {
        "corpus": "[Log in again](http:evil.example)",
        "emb": "<script>alert(1)</script>,tfidf,glove-6b-50d",
        "k": "-3",
        "cap": "<img src=x onerror=alert(2)>",
        "text": "<img src=x onerror=alert(3)> نص عربي 👍",
    }
    page.goto(f"{url}/query?{urllib.parse.urlencode(params)}")
    page.get_by_role("heading", name="Query explorer").wait_for(timeout=240_000)
    settle(page)
    page.locator("div.nq").first.wait_for(timeout=240_000)
    _safe(page, dialogs)
    sidebar = page.locator("[data-testid='stSidebar']").inner_text()
    assert "Unknown corpus '[Log in again](http:evil.example)' in the link" in sidebar  # shown literally
    assert "Unknown embedder(s) in the link ignored: <script>alert(1)</script>" in sidebar
    assert page.locator("div.nq").first.inner_text().endswith("<img src=x onerror=alert(3)> نص عربي 👍")


def _upload_hostile(url: str, page) -> None:
    """Open the app on `page` and upload the hostile file (its heatmap drawn)."""
    page.goto(url)
    page.locator(HEATMAP).first.wait_for(timeout=240_000)
    settle(page)
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="Upload a file…").click()
    settle(page)
    sys.path.insert(0, str(ROOT / "tests"))
    from synthetic_text import sentences

    body = "\n".join(HOSTILE_LINES + sentences(60, seed=7)) + "\n"
    page.locator("[data-testid='stSidebar'] input[type='file'][accept*='.txt']").set_input_files(
        files=[{"name": HOSTILE_NAME, "mimeType": "text/plain", "buffer": body.encode()}]
    )
    page.wait_for_function("() => window.location.search.includes('corpus=upload')", timeout=240_000)
    page.locator(HEATMAP).first.wait_for(timeout=240_000)
    settle(page)


def test_hostile_upload(server, tab):
    page = tab({"width": 1400, "height": 1000})
    with _dialogs(page) as dialogs:
        _upload_hostile(server, page)
        _search_the_hostile_upload(page, dialogs)


def _search_the_hostile_upload(page, dialogs: list[str]) -> None:
    _safe(page, dialogs)
    main = page.locator("[data-testid='stMain']").inner_text()
    assert "Corpus <img src=x onerror=alert(5)> [Log in](http:evil.example):" in main  # the name, as text

    page.locator("[data-testid='stSidebarNav'] a", has_text="Query explorer").click()
    page.get_by_role("heading", name="Query explorer").wait_for(timeout=240_000)
    settle(page)
    search = page.get_by_role("textbox", name="Search the corpus")
    for needle, shown in [
        ("script", "The strong <b>team</b> won the final <script>alert(1)</script> on Monday."),
        ("مرحبا", "مرحبا بالعالم، هذه جملة عربية عن الفريق."),
        ("bell", "Red [31malert[0m rang a bell at the bank."),
    ]:
        search.fill(needle)
        search.press("Enter")
        settle(page)
        page.wait_for_function(
            "(t) => [...document.querySelectorAll('div.nq')].some(e => e.innerText.endsWith(t))",
            arg=shown,
            timeout=120_000,
        )
        _safe(page, dialogs)
        assert page.locator("table.nb").count() >= 2


@pytest.mark.slow
def test_hostile_corpus_on_the_heros_page(server, tab):
    """HEROS pairs made from the hostile corpus: examples (data frames), heatmap tooltips and bars render with no
    dialog, no injected element and no exception element."""
    page = tab({"width": 1400, "height": 1000})
    with _dialogs(page) as dialogs:
        _upload_hostile(server, page)
        _heros_of_the_hostile_upload(page, dialogs)


def _heros_of_the_hostile_upload(page, dialogs: list[str]) -> None:
    page.locator("[data-testid='stSidebarNav'] a", has_text="HEROS subsets").click()
    page.get_by_role("heading", name="HEROS subsets").wait_for(timeout=240_000)
    settle(page, timeout=900_000)
    page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=600_000)
    for expander in page.locator("[data-testid='stExpander'] summary").all():
        expander.click()
    settle(page)
    heat = page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").first
    heat.hover()
    page.mouse.move(700, 400)
    page.wait_for_timeout(500)
    _safe(page, dialogs)
