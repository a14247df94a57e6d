"""End to end, in Chromium: a user uploads 60 sentences and opens the HEROS page. It says how many minimal pairs it
made of the 50 asked per subset, from all 60 sentences, that the corpus is too small, and the pairs slider still
shows the 50 it was asked for (choosing an upload is a run without a corpus, which once dropped the slider's
state)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from browser_app import no_exception, settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from synthetic_text import sentences  # noqa: E402


def test_heros_says_how_many_pairs_it_made_on_a_60_sentence_upload(server, tab):
    page = tab({"width": 1400, "height": 1000})
    page.goto(f"{server}/heros?pairs=50")
    page.get_by_role("heading", name="HEROS subsets").wait_for(timeout=240_000)
    settle(page, timeout=600_000)
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="Upload a file…").click()
    settle(page)
    body = "\n".join(sentences(60, seed=60)) + "\n"
    page.locator("[data-testid='stSidebar'] input[type='file'][accept*='.txt']").set_input_files(
        files=[{"name": "sixty.txt", "mimeType": "text/plain", "buffer": body.encode()}]
    )
    page.wait_for_function("() => window.location.search.includes('corpus=upload')", timeout=240_000)
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
