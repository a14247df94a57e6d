"""End to end: the paraphrase needle, human similarity and quality pages in Chromium against the session's server
(fixtures in conftest.py), each without an exception element, with the synthetic label on screen and each
page's own choices in the link."""

from __future__ import annotations

from browser_app import no_exception, settle


def test_evaluation_pages_render_in_chromium(server, tab):
    page = tab({"width": 1400, "height": 1000})
    page.goto(f"{server}/needle?npairs=synthetic:heros-synonym:100")
    page.get_by_role("heading", name="Paraphrase needle · SYNTHETIC pairs").wait_for(timeout=300_000)
    settle(page, timeout=300_000)
    no_exception(page)
    page.get_by_text("SYNTHETIC pairs, not human paraphrases").first.wait_for(timeout=30_000)
    page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=60_000)
    assert "npairs=synthetic" in page.url and "max_overlap=off" in page.url

    for name, heading, param in (
        ("Human similarity (STS)", "Human similarity (STS)", "hpairs=builtin"),
        ("Quality vs agreement", "Quality beside agreement", "qx=n2o_mean"),
    ):
        page.locator("[data-testid='stSidebarNav'] a", has_text=name).click()
        page.get_by_role("heading", name=heading).wait_for(timeout=300_000)
        settle(page, timeout=300_000)
        no_exception(page)
        page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=60_000)
        assert param in page.url and "k=10" in page.url
    # the needle run above fills the quality table's MRR column without a button
    assert page.get_by_role("button", name="Run the paraphrase needle").count() == 0
