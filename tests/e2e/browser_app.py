"""What the browser tests share: `running_app` (from tests/app_server.py), selectors, and waits and checks on a
page."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from app_server import CHROMIUM, EMBEDDERS, ROOT, require_browser, running_app  # noqa: E402, F401 - re-exported

EXCEPTION = "[data-testid='stException']"
HEATMAP = "[data-testid='stPlotlyChart'] .js-plotly-plot g.hm image"


def settle(page, timeout: float = 240_000) -> None:
    """Wait until the script run is over (the app reports notRunning) and the page is connected."""
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)
    page.wait_for_timeout(150)
    page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=timeout)


def no_exception(page) -> None:
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()
