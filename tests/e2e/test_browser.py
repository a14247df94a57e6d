"""End to end: the heatmap, a k change, every page without an exception element, and a shared deep link on a
fresh server (fixtures in conftest.py: one server and one Chromium for the session)."""

from __future__ import annotations

import pytest
from browser_app import HEATMAP, no_exception, running_app, settle


@pytest.fixture(scope="module")
def fresh_server(tmp_path_factory):
    """A server whose first request is the test's deep link."""
    with running_app(tmp_path_factory.mktemp("fresh")) as url:
        yield url


def test_deep_link_on_a_fresh_server(fresh_server, tab):
    """The first request a server gets is a shared link to a page other than the default one."""
    page = tab({"width": 1400, "height": 1000})
    page.goto(f"{fresh_server}/tokens?k=5&samples=2")
    page.get_by_role("heading", name="Token overlap").wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=60_000)
    assert "k=5" in page.url


def test_pages_render_in_chromium(server, tab):
    page = tab({"width": 1400, "height": 1000})
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
