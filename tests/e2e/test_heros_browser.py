"""End to end, in Chromium: a user uploads 60 sentences and opens the HEROS page. It says how many minimal pairs it
made of the 50 asked per subset, from all 60 sentences, that the corpus is too small, and the pairs slider still
shows the 50 it was asked for (choosing an upload is a run without a corpus, which once dropped the slider's
state)."""

from __future__ import annotations

import re

from browser_app import no_exception, settle, upload


def test_heros_says_how_many_pairs_it_made_on_a_60_sentence_upload(server, tab):
    page = tab({"width": 1400, "height": 1000})
    page.goto(f"{server}/heros?pairs=50")
    page.get_by_role("heading", name="HEROS subsets").wait_for(timeout=240_000)
    settle(page, timeout=600_000)
    upload(page, "sixty.txt", 60)
    page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=600_000)
    settle(page, timeout=600_000)
    no_exception(page)
    # the chart may be the previous corpus's while the upload's run is still starting: wait for the run's own note
    # (or an error it shows instead: the test then fails with the page's words, not after 600 s of waiting)
    note = page.locator("[data-testid='stAlert']", has_text="HEROS made").first
    error = page.locator("[data-testid='stAlertContentError'], [data-testid='stException']")
    note.or_(error).first.wait_for(timeout=600_000)
    assert error.count() == 0, "\n".join(error.all_inner_texts())
    settle(page, timeout=600_000)
    no_exception(page)
    said = note.inner_text()
    made = re.search(r"HEROS made (\d+) of 50 asked per subset from all 60 sentences of the corpus", said)
    assert made is not None and 0 < int(made.group(1)) < 50, said
    assert "too small for 50 per subset" in said
    assert page.locator("input[type='range'][aria-label='Pairs per subset']").get_attribute("aria-valuetext") == "50"
