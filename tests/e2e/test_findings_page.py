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

    # z-normalization and averaged GloVe on the Lee pairs: two cheap embedders
    page.locator(".st-key-check_sts-znorm-glove button").click()
    card = page.locator(".st-key-finding_sts-znorm-glove")
    card.get_by_text("Holds in").first.wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    assert card.locator(".st-key-check_sts-znorm-glove").count() == 0  # the button gave way to the verdict
    text = card.inner_text()
    assert ("✓" in text) or ("✗" in text)
    assert "Sensitivity" in text  # the other composition beside the verdict, never deciding it
    page.close()
