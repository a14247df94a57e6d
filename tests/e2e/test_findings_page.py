"""End to end: the papers' findings page in Chromium: every finding listed, one cheap finding checked in place,
no exception element (session fixtures in conftest.py)."""

from __future__ import annotations

from browser_app import no_exception, settle

from n2o_core.evaluation.findings import FINDINGS


def test_findings_page_checks_a_finding(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/findings")
    page.get_by_role("heading", name="The papers' findings, checked live").wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    for f in FINDINGS:
        assert page.locator(f".st-key-finding_{f.id}").count() == 1, f.id
    assert "fpairs=200" in page.url

    # tf-idf vs the static averages: embedders the session's server already uses (cheap)
    page.locator(".st-key-check_n2o-tfidf-apart button").click()
    card = page.locator(".st-key-finding_n2o-tfidf-apart")
    card.get_by_text("mean N2O within").first.wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    assert card.locator(".st-key-check_n2o-tfidf-apart").count() == 0  # the button gave way to the verdict
    text = card.inner_text()
    assert ("✓" in text) or ("✗" in text)
    page.close()
