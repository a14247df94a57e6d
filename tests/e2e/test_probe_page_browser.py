"""End to end: the probing page in Chromium on the session's small synthetic corpus: the controls from the link,
nothing run before the button, then the per-classifier heatmaps and tables, the ranking, a task the corpus cannot
fill named with its reason, the example items as a table, no exception element (session fixtures in conftest.py)."""

from __future__ import annotations

import re

from browser_app import no_exception, settle

CHART = "[data-testid='stPlotlyChart'] .js-plotly-plot"


def test_probe_page_runs_on_the_button(server, tab):
    page = tab({"width": 1400, "height": 1000})
    page.goto(f"{server}/probe?emb=tfidf,glove-6b-50d&tasks=sentlen,bshift,tense&per_class=50&min_train=1")
    page.get_by_role("heading", name="Probing tasks").first.wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    assert page.locator(CHART).count() == 0  # heavy work waits for the button
    assert "tasks=sentlen%2Cbshift%2Ctense" in page.url or "tasks=sentlen,bshift,tense" in page.url
    assert "clf=lr%2Cmlp" in page.url or "clf=lr,mlp" in page.url
    page.get_by_text("What differs from the paper").click()
    page.get_by_text("spaCy's small English dependency parser").wait_for(timeout=30_000)
    assert "min_train=1" in page.url and page.get_by_text("Deviation from the paper").count() >= 1

    button = page.get_by_role("button", name="Run probing")
    assert re.fullmatch(r"Run probing · (about \d+ (s|min)|a few seconds) here", button.inner_text().strip())
    button.click()
    page.get_by_role("heading", name="Accuracy, MLP").wait_for(timeout=600_000)
    settle(page, timeout=600_000)
    no_exception(page)
    page.locator(CHART).first.wait_for(timeout=60_000)
    assert page.locator(CHART).count() == 3  # one heatmap per classifier and the ranking
    heatmaps = page.locator(f"{CHART} g.hm image")
    assert heatmaps.count() == 2
    body = page.locator("[data-testid='stMain']").inner_text()
    assert "Ranking of the embedders under each classifier" in body
    assert "Skipped: Tense: the corpus has too few candidates" in body  # every sentence is in the past
    assert "for 1 training item per class" in body
    assert page.get_by_role("tab", name="BShift").count() == 1
    assert page.get_by_role("tab", name="Tense").count() == 0  # no items: no examples
    assert page.get_by_role("button", name="Run probing").count() == 0
