"""End to end: talk mode fills a 1080p projector. At 1920×1080 with `talk=1` each page, opened on its own path
(`/heatmap?talk=1` too, which Streamlit would answer with "Page not found" for its default page), shows its main
figure centred and above the fold, spanning >= 75% of the width or >= 80% of the height (with the one-line notes
drawn right above it, which it makes room for: `ui.talk.note`), with no text under 24 px (ticks, titles, cell
values, colour-bar notes, legends, hover labels), and captions at 24 px in dark ink; every note and warning is
above the fold too. The fast test tours the pages that draw at once (the heatmap with its small-corpus note: the
session's corpus has 200 sentences, and word2vec and fastText are trained on them); the slow one the rest,
computing the measures, probing and the Variants page's compression first on the session's small corpus."""

from __future__ import annotations

import pytest
from browser_app import no_exception, settle
from test_figure_labels import run_measures

from ui.nav import PAGE_NAMES, heading
from ui.talk import NOTE_KEY, NOTE_PX, SCREEN_PX

SCREEN = dict(zip(("width", "height"), SCREEN_PX))
PLOT = ".js-plotly-plot"
#: Each page's main figure: CSS selectors whose union box is measured (a plotly figure, the query explorer's
#: neighbor tables, the findings table); None: a page of text (About), whose paragraphs are measured instead.
MAIN: dict[str, tuple[str, ...] | None] = {
    "heatmap": (f".st-key-heatmap {PLOT}",),
    "query": ("table.nb",),
    "tokens": (f".st-key-tokens {PLOT}",),
    "heros": (f".st-key-heros {PLOT}",),
    "agreement": (f".st-key-agree_hist {PLOT}", f".st-key-agree_hist_all {PLOT}"),
    "measures": (f".st-key-measures_matrices {PLOT}",),
    "needle": (f".st-key-needle {PLOT}",),
    "sts": (f".st-key-sts_bars {PLOT}",),
    "quality": (f".st-key-quality_scatter {PLOT}",),
    "findings": ("[data-testid='stTable']",),
    "probe": (f".st-key-probe_heatmap_lr {PLOT}",),
    "variants": (f".st-key-variants {PLOT}",),
    "about": None,
}
#: The pages the default run tours (each draws at once on the session's corpus); the slow test does the rest.
FAST = ("heatmap", "query", "tokens", "agreement", "about")
#: Link parameters of a page (the probing run the slow test computes first).
PARAMS = {"probe": "emb=tfidf,glove-6b-50d&tasks=sentlen,bshift&per_class=50&min_train=1"}  # below the default minimum
#: A table longer than a screen scrolls (the findings, one row per finding): its top is measured, not its end.
SCROLLS = ("findings",)
#: Pages that show a note above their main figure on the session's corpus (200 sentences: word2vec and fastText
#: are trained on too few).
NOTED = ("heatmap", "heros", "needle", "sts", "variants")  # each with a note on this small corpus or its pairs
NOTES = f"[class*='st-key-{NOTE_KEY}']"

_MEASURE = """
([selectors, notesSel]) => {
  const textOf = el => Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const els = selectors ? selectors.flatMap(s => Array.from(document.querySelectorAll(s))).filter(shown)
                        : Array.from(document.querySelectorAll('[data-testid=stMarkdownContainer] p')).filter(shown);
  const boxes = els.map(e => e.getBoundingClientRect());
  const fonts = [];
  for (const el of els) {
    // a tspan has its own size where plotly shrinks part of a text (<sub>, <sup>: 70%)
    const texts = el.matches('.js-plotly-plot') ? Array.from(el.querySelectorAll('svg text, svg tspan'))
        .filter(t => t.textContent.trim() && t.getBBox().width > 0)
        : [el, ...el.querySelectorAll('*')].filter(e => textOf(e) && shown(e));
    for (const t of texts) fonts.push([t.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(t).fontSize)]);
    if (el._fullLayout) fonts.push(['(hover label)', el._fullLayout.hoverlabel.font.size]);
  }
  const captions = Array.from(document.querySelectorAll('[data-testid=stCaptionContainer]')).filter(shown)
    .map(c => { const s = getComputedStyle(c); return [c.textContent.slice(0, 40), parseFloat(s.fontSize),
                                                        parseFloat(s.opacity), s.color]; });
  const notes = Array.from(document.querySelectorAll(notesSel)).filter(shown).map(e => e.getBoundingClientRect());
  const alerts = Array.from(document.querySelectorAll('[data-testid=stAlert]')).filter(shown)
    .map(e => [e.innerText.slice(0, 50), e.getBoundingClientRect().bottom]);
  return {n: els.length, fonts, captions, alerts,
          notes: notes.map(b => [b.top, b.bottom]),
          x0: Math.min(...boxes.map(b => b.left)), x1: Math.max(...boxes.map(b => b.right)),
          y0: Math.min(...boxes.map(b => b.top)), y1: Math.max(...boxes.map(b => b.bottom))};
}
"""


def open_talk(page, server: str, name: str) -> None:
    """Open page `name` on its own path with talk=1 (and its PARAMS); wait until it is drawn."""
    query = "&".join(q for q in (PARAMS.get(name, ""), "talk=1") if q)
    page.goto(f"{server}/{name}?{query}")
    page.get_by_role("heading", name=heading(name)).first.wait_for(timeout=300_000)
    for selector in MAIN[name] or ():
        page.locator(selector).first.wait_for(timeout=300_000)
    settle(page, timeout=300_000)
    page.wait_for_timeout(400)  # plotly's first layout pass
    settle(page, timeout=300_000)
    no_exception(page)


def fills_the_screen(page, name: str) -> dict:
    """The measures of page `name`'s main figure (its union box, every font size in it, the captions), checked."""
    assert page.get_by_text("Page not found").count() == 0, name
    m = page.evaluate(_MEASURE, [list(MAIN[name]) if MAIN[name] else None, NOTES])
    assert m["n"] > 0, f"{name}: no main figure"
    small = [f for f in m["fonts"] if f[1] < 23.9]
    assert m["fonts"] and not small, f"{name}: text under 24 px: {small[:8]}"
    for text, size, opacity, color in m["captions"]:
        ink = [float(c) for c in color[color.index("(") + 1 : color.index(")")].split(",")[:3]]
        assert size >= 23.9 and opacity == 1 and max(ink) <= 80, f"{name}: caption {text!r}: {size} px {color}"
    if MAIN[name] is None:  # a page of text: its paragraphs fill the width
        assert m["x1"] - m["x0"] >= 0.75 * SCREEN["width"], (name, m["x0"], m["x1"])
        return m
    for top, bottom in m["notes"]:  # one line each, right above the figure
        assert bottom - top == NOTE_PX and bottom <= m["y0"], (name, top, bottom, m["y0"])
    for text, bottom in m["alerts"]:
        assert bottom <= SCREEN["height"], f"{name}: {text!r} ends at {bottom:.0f} px, below the fold"
    assert bool(m["notes"]) == (name in NOTED), (name, m["notes"])
    # the notes' room (from the first note to the figure) counts with the figure: the figure is that much shorter
    room = m["y0"] - min(top for top, _ in m["notes"]) if m["notes"] else 0
    w, h = m["x1"] - m["x0"], m["y1"] - m["y0"]
    assert w >= 0.75 * SCREEN["width"] or h + room >= 0.8 * SCREEN["height"], f"{name}: {w:.0f}×{h:.0f}+{room} px"
    assert abs((m["x0"] + m["x1"]) / 2 - SCREEN["width"] / 2) <= 0.025 * SCREEN["width"], (name, m["x0"], m["x1"])
    if name not in SCROLLS:
        assert m["y1"] <= SCREEN["height"] + 0.5, f"{name}: the figure ends at {m['y1']:.0f} px, below the fold"
    return m


def test_talk_mode_fills_the_screen(server, tab):
    page = tab(SCREEN)
    page.goto(f"{server}/?talk=1")  # the default page at the root, as before
    page.get_by_role("heading", name=heading("heatmap")).first.wait_for(timeout=300_000)
    page.locator(MAIN["heatmap"][0]).first.wait_for(timeout=300_000)
    settle(page, timeout=300_000)
    fills_the_screen(page, "heatmap")
    for name in FAST:
        open_talk(page, server, name)
        fills_the_screen(page, name)
        assert "talk=1" in page.url and f"/{name}" in page.url  # the page kept its own path and the link


@pytest.mark.slow  # HEROS, the needle, human similarity, the findings, and the measures and probing runs
def test_talk_mode_fills_the_screen_on_every_page(server, tab):
    page = tab(SCREEN)
    run_measures(page, server)  # kept for the server process: talk mode (no button) shows it
    page.goto(f"{server}/probe?{PARAMS['probe']}")
    page.get_by_role("heading", name=heading("probe")).first.wait_for(timeout=300_000)
    settle(page, timeout=300_000)
    run = page.get_by_role("button", name="Run probing")
    if run.count():  # none when this server has probed these settings already
        run.click()
        page.get_by_role("heading", name="Accuracy, MLP").wait_for(timeout=600_000)
        settle(page, timeout=600_000)
    page.goto(f"{server}/variants?part=compression")  # the Variants page's compression, kept for talk mode
    page.get_by_role("heading", name=heading("variants")).first.wait_for(timeout=300_000)
    compute = page.locator("button", has_text="Compute the Compression")
    page.locator(f"{MAIN['variants'][0]}, button:has-text('Compute the Compression')").first.wait_for(timeout=300_000)
    if compute.count():  # none when this server has computed it already
        compute.click()
        page.locator(MAIN["variants"][0]).first.wait_for(timeout=600_000)
        settle(page, timeout=600_000)
    for name in PAGE_NAMES:
        if name not in FAST:
            open_talk(page, server, name)
            fills_the_screen(page, name)
