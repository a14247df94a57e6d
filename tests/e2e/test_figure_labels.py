"""End to end: no two text boxes of a plotly figure overlap (tick labels, annotations, legend entries), read from
the rendered SVG in Chromium (the pages that draw at once; slow: those drawn after a run); and (slow) a talk-mode
screenshot of every page at 1920×1080 into docs/screenshots/ for a person to read."""

from __future__ import annotations

import pytest
from browser_app import ROOT, no_exception, settle

#: Pages whose figures need no button press (path with its query string, what to wait for).
PAGES = ("heatmap", "heatmap?view=box", "tokens", "agreement", "needle", "sts")

_BOXES = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => {
  const sel = '.xtick text, .ytick text, .annotation-text, .legendtext, .cbaxis text, .g-gtitle text';
  return Array.from(plot.querySelectorAll(sel))
    .filter(t => t.textContent.trim() && t.getBBox().width > 0)
    .map(t => { const r = t.getBoundingClientRect();
                return {text: t.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; });
})
"""


def overlaps(boxes: list[dict], slack: float = 1.5) -> list[tuple[str, str]]:
    """Pairs of text boxes that overlap by more than `slack` px both ways."""
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            w = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            h = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
            if w > slack and h > slack:
                out.append((a["text"], b["text"]))
    return out


def test_overlaps_finds_overlapping_boxes():
    a = {"text": "a", "x0": 0, "y0": 0, "x1": 10, "y1": 10}
    assert overlaps([a, dict(a, text="b", x0=5, x1=15)]) == [("a", "b")]
    assert overlaps([a, dict(a, text="c", x0=10, x1=20)]) == []


def _open(page, server: str, path: str, talk: bool = False) -> None:
    sep = "&" if "?" in path else "?"  # the heatmap is the app's main page: "" (its own path is not a page)
    page.goto(f"{server}/{path}{sep + 'talk=1' if talk else ''}")
    settle(page, timeout=300_000)
    page.wait_for_timeout(300)
    settle(page, timeout=300_000)
    no_exception(page)


def _overlapping(page, path: str) -> dict[str, list[tuple[str, str]]]:
    """The overlapping text boxes of every figure on the page, by figure."""
    page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=120_000)
    page.wait_for_timeout(500)
    return {f"{path} #{i}": found for i, boxes in enumerate(page.evaluate(_BOXES)) if (found := overlaps(boxes))}


def _click_all(page, buttons: str) -> None:
    """Press each button matching `buttons` in turn (each press reruns the page), until none is left."""
    for _ in range(5):
        found = page.locator(buttons)
        if found.count() == 0:
            return
        found.first.click()
        settle(page, timeout=300_000)
        no_exception(page)


def run_quality(page, server: str) -> None:
    """The quality page after its default runs (the needle, human-similarity and HEROS buttons pressed)."""
    _open(page, server, "quality")
    _click_all(page, "[data-testid='stButton'] button:has-text('Run ')")


def run_measures(page, server: str, permutations: int = 20) -> None:
    """The measures page computed with few permutations (kept for the server process, talk mode shows it)."""
    _open(page, server, "measures")
    box = page.get_by_label("Permutations")
    box.fill(str(permutations))
    box.press("Enter")
    settle(page, timeout=300_000)
    button = page.get_by_role("button", name="Compute the measures")
    if button.count():  # none when this server has computed them already
        button.click()
        # the script state can read notRunning before the button's rerun starts: wait for the button to go
        button.first.wait_for(state="detached", timeout=600_000)
        settle(page, timeout=600_000)
    no_exception(page)


def test_no_figure_labels_overlap(server, tab):
    """The pages that draw without a button."""
    page = tab({"width": 1400, "height": 1000})
    bad = {}
    for path in PAGES:
        _open(page, server, path)
        bad.update(_overlapping(page, path))
    assert not bad, bad


@pytest.mark.slow  # two runs on the button (~20 s); the measures' map labels are also checked by the fast
def test_no_figure_labels_overlap_after_a_run(server, browser, tab):  # tests/e2e/test_measures_browser.py
    """Quality vs agreement and the similarity measures, after their runs."""
    page = tab({"width": 1400, "height": 1000})
    bad = {}
    run_quality(page, server)
    bad.update(_overlapping(page, "quality"))
    run_measures(page, server)
    bad.update(_overlapping(page, "measures"))
    assert not bad, bad


SHOTS = {
    "": "heatmap",
    "?view=box": "heatmap-box",
    "?view=robustness": "heatmap-robustness",
    "query": "query",
    "tokens": "tokens",
    "heros": "heros",
    "agreement": "agreement",
    "needle": "needle",
    "sts": "sts",
    "quality": "quality",
    "measures": "measures",
    "about": "about",
}  # findings.png and probe.png show the built-in corpus's kept results (README), not this small corpus's


@pytest.mark.slow
def test_talk_mode_screenshots(server, tab):
    """Every page in talk mode at 1920×1080, saved for reading (docs/screenshots/<page>.png; talk-mode.png is the
    heatmap); each page without an exception element."""
    out = ROOT / "docs" / "screenshots"
    page = tab({"width": 1920, "height": 1080})
    run_quality(page, server)  # the runs that talk mode (no buttons) shows
    run_measures(page, server)
    for path, name in SHOTS.items():
        _open(page, server, path, talk=True)
        page.wait_for_timeout(1500)
        page.screenshot(path=str(out / f"{name}.png"))
        if name == "heatmap":
            page.screenshot(path=str(out / "talk-mode.png"))
