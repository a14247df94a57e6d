"""What the browser tests share: `running_app` (from tests/app_server.py), selectors, and waits and checks on a
page."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from app_server import CHROMIUM, EMBEDDERS, ROOT, require_browser, running_app  # noqa: E402, F401 - re-exported
from synthetic_text import sentences  # noqa: E402

EXCEPTION = "[data-testid='stException']"
HEATMAP = "[data-testid='stPlotlyChart'] .js-plotly-plot g.hm image"
#: The sidebar's corpus picker (its input shows the chosen entry).
PICKER = "[data-testid='stSidebar'] [data-testid='stSelectbox'] input"


def settle(page, timeout: float = 240_000) -> None:
    """Wait until the script run is over (the app reports notRunning) and the page is connected."""
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)
    page.wait_for_timeout(150)
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)


def no_exception(page) -> None:
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()


def upload(page, name: str, lines: int) -> None:
    """Upload a corpus of `lines` synthetic sentences from the sidebar (a page with the sidebar is open), and wait
    until the uploader shows the file, the link's corpus changes (a second upload replaces the first's) and the
    picker names the file. (After an upload, choosing "Upload a file…" again shows the uploader with the last file
    while the picker names that file.)"""
    before = page.evaluate("() => new URLSearchParams(location.search).get('corpus')")
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="Upload a file…").click()
    files = page.locator("[data-testid='stSidebar'] input[type='file'][accept*='.txt']")
    files.wait_for(state="attached", timeout=60_000)
    settle(page)
    body = "\n".join(sentences(lines, seed=lines)) + "\n"
    files.set_input_files(files=[{"name": name, "mimeType": "text/plain", "buffer": body.encode()}])
    chip = "[data-testid='stSidebar'] [data-testid='stFileChipName']"
    page.locator(chip, has_text=name).first.wait_for(timeout=60_000)
    page.wait_for_function(
        "(before) => { const c = new URLSearchParams(location.search).get('corpus') || '';"
        " return c.startsWith('upload:') && c !== before; }",
        arg=before,
        timeout=240_000,
    )
    settle(page, timeout=600_000)
    stem = name.rsplit(".", 1)[0]
    page.wait_for_function(
        "([sel, stem]) => document.querySelector(sel).value.startsWith('Uploaded: ' + stem + ' (')",
        arg=[PICKER, stem],
        timeout=240_000,
    )
