"""End to end, the Similarity measures page in Chromium: every measure's chip is visible at first (all chosen),
panels are titled by display names, no map label's drawn text comes near any marker, and a reload of the page
opens on the result kept in the cache for the same settings, saying when it was computed (no button)."""

from __future__ import annotations

import math

from browser_app import no_exception, settle
from test_figure_labels import run_measures

from n2o_core.measures import DISPLAY_NAMES, MEASURE_IDS

_CHIPS = """
() => { const m = Array.from(document.querySelectorAll('[data-testid="stMultiSelect"]'))
          .find(m => !m.closest('[data-testid="stSidebar"]'));
  const w = m.querySelector('[data-testid="stMultiSelectTagsContainer"]'); const box = w.getBoundingClientRect();
  return Array.from(w.querySelectorAll('[data-tag]')).map(t => { const r = t.getBoundingClientRect();
    return {text: t.textContent, shown: r.left >= box.left - 1 && r.right <= box.right + 1
                                       && r.top >= box.top - 1 && r.bottom <= box.bottom + 1}; }); }
"""

_MAP = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => ({
  labels: Array.from(plot.querySelectorAll('.annotation-text')).map(t => { const r = t.getBoundingClientRect();
    return {text: t.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; }),
  markers: Array.from(plot.querySelectorAll('.scatterlayer .point')).map(p => { const r = p.getBoundingClientRect();
    return {cx: (r.left + r.right) / 2, cy: (r.top + r.bottom) / 2, r: (r.right - r.left) / 2}; }) }))
"""


def gap(label: dict, marker: dict) -> float:
    """Pixels between a drawn text box and a marker's edge (negative: they cross)."""
    dx = max(label["x0"] - marker["cx"], 0.0, marker["cx"] - label["x1"])
    dy = max(label["y0"] - marker["cy"], 0.0, marker["cy"] - label["y1"])
    return math.hypot(dx, dy) - marker["r"]


def test_gap_sees_a_label_on_a_marker():
    marker = {"cx": 10.0, "cy": 10.0, "r": 5.0}
    assert gap({"x0": 0, "y0": 0, "x1": 20, "y1": 20}, marker) < 0
    assert gap({"x0": 20, "y0": 0, "x1": 40, "y1": 20}, marker) == 5.0


def test_measures_page_in_chromium(server, tab):
    page = tab({"width": 1500, "height": 1100})
    page.goto(f"{server}/measures")
    # right after the page opens the script state can read notRunning before the page's run starts: wait for the
    # measure picker itself
    page.locator('[data-testid="stMain"] [data-testid="stMultiSelect"]').first.wait_for(timeout=300_000)
    settle(page, timeout=300_000)
    no_exception(page)
    chips = page.evaluate(_CHIPS)
    assert [c["text"] for c in chips] == [DISPLAY_NAMES[m] for m in MEASURE_IDS]
    assert all(c["shown"] for c in chips), [c["text"] for c in chips if not c["shown"]]

    run_measures(page, server)
    figures = page.evaluate(_MAP)
    maps = [f for f in figures if f["markers"]]
    assert len(maps) == 1
    names = set(DISPLAY_NAMES.values())
    labels = [t for t in maps[0]["labels"] if t["text"] not in names]  # the panels' titles are names
    assert len(labels) >= len(MEASURE_IDS)  # at least one label a panel (touching markers share one)
    worst = min(gap(t, m) for t in labels for m in maps[0]["markers"])
    assert worst > 0, worst
    titles = {t["text"] for f in figures for t in f["labels"]}
    assert any(t.startswith("Procrustes angle(distance; null ") for t in titles)  # two lines: no space between
    assert not titles & set(MEASURE_IDS)  # no id as a title

    page.reload()  # a new session; with the same settings the result comes from the cache
    # the reloaded page can read notRunning before its run starts (as on opening): wait for the picker, then the run
    page.locator('[data-testid="stMain"] [data-testid="stMultiSelect"]').first.wait_for(timeout=300_000)
    settle(page, timeout=300_000)
    page.locator("button:has-text('Compute the measures')").first.wait_for(timeout=120_000)
    assert page.locator("button:has-text('Compute the measures')").count() == 1  # 100 permutations: not computed
    box = page.get_by_label("Permutations")
    box.fill("20")
    box.press("Enter")
    settle(page, timeout=300_000)
    no_exception(page)
    # gone once the rerun that Enter asked for has drawn the kept result (settle can run before that rerun starts)
    page.locator("button:has-text('Compute the measures')").wait_for(state="detached", timeout=120_000)
    assert page.get_by_text("kept in the cache for these settings").count() == 1
