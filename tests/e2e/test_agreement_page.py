"""End to end: the per-sentence agreement page in Chromium. A box selection dragged on the first map highlights
the same sentences on the second, the selected sentences replace the rankings, and "Clear selection" brings
them back (fixtures in conftest.py: the session's server and Chromium)."""

from __future__ import annotations

from browser_app import no_exception, settle

MAPS = ".st-key-agree_maps .js-plotly-plot"
#: Corpus ids highlighted in each panel (plotly's selectedpoints are positions; customdata holds the ids).
HIGHLIGHTED = f"""() => {{
  const gd = document.querySelector("{MAPS}");
  return gd._fullData.map(t => t.selectedpoints == null ? null
    : Array.from(t.selectedpoints).map(i => Number(t.customdata[i])).sort((a, b) => a - b));
}}"""
N_POINTS = f"() => document.querySelector('{MAPS}')._fullData.map(t => t.customdata.length)"


def _drag(page, panel: int, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A mouse drag inside one map panel, corners as fractions of the panel's plot area."""
    page.locator(MAPS).scroll_into_view_if_needed()
    box = page.locator(f"{MAPS} .nsewdrag").nth(panel).bounding_box()
    assert box is not None
    x0, y0 = box["x"] + box["width"] * start[0], box["y"] + box["height"] * start[1]
    x1, y1 = box["x"] + box["width"] * end[0], box["y"] + box["height"] * end[1]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=12)
    page.mouse.up()


def test_box_selection_on_one_map_highlights_the_other(server, tab):
    page = tab({"width": 1400, "height": 1000})
    page.goto(f"{server}/agreement?pair=tfidf,glove-6b-50d&map=pca")
    page.get_by_role("heading", name="Where two embedders disagree").wait_for(timeout=240_000)
    page.locator(MAPS).wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    assert page.get_by_role("heading", name="Least and most agreed sentences").is_visible()
    assert page.evaluate(HIGHLIGHTED) == [None, None]
    n_left, n_right = page.evaluate(N_POINTS)
    assert n_left > 100 and n_right > 100
    assert "pair=tfidf%2Cglove-6b-50d" in page.url or "pair=tfidf,glove-6b-50d" in page.url

    # a box over the middle of the first map: the same sentences light up on the second
    _drag(page, 0, (0.15, 0.15), (0.85, 0.85))
    page.wait_for_function(
        f"() => {{ const t = document.querySelector('{MAPS}')?._fullData?.[1];"
        " return t && t.selectedpoints != null && t.selectedpoints.length > 0; }",
        timeout=120_000,
    )
    settle(page)
    no_exception(page)
    left, right = page.evaluate(HIGHLIGHTED)
    assert left and left == right and len(left) < n_left
    heading = page.get_by_role("heading", name="Selected:")
    assert heading.inner_text().startswith(f"Selected: {len(left)} sentence")
    assert page.get_by_role("heading", name="Least and most agreed sentences").count() == 0

    # a new box on the second map replaces the selection, in both panels
    _drag(page, 1, (0.5, 0.02), (0.98, 0.98))
    page.wait_for_function(
        f"""before => {{ const t = document.querySelector('{MAPS}')?._fullData?.[0];
        if (!t || t.selectedpoints == null) return false;
        const now = Array.from(t.selectedpoints).map(i => Number(t.customdata[i])).sort((a, b) => a - b);
        return JSON.stringify(now) !== JSON.stringify(before); }}""",
        arg=left,
        timeout=120_000,
    )
    settle(page)
    left2, right2 = page.evaluate(HIGHLIGHTED)
    assert left2 == right2 and left2 != left

    page.get_by_role("button", name="Clear selection").click()
    page.get_by_role("heading", name="Least and most agreed sentences").wait_for(timeout=120_000)
    settle(page)
    no_exception(page)
    assert page.evaluate(HIGHLIGHTED) == [None, None]
    assert "selection" not in page.url  # the selection is not part of the link


def test_a_ranked_sentence_opens_in_the_query_explorer(server, browser):
    """The id cell of the least-agreed sentence is a link: the query explorer for that sentence, in a new tab,
    with the shared settings of the view (k here)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{server}/agreement?k=6&pair=word2vec,fasttext")
    table = page.locator("[role='tabpanel'] [data-testid='stDataFrame']").first
    table.wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    assert box is not None
    x, y = box["x"] + 16, box["y"] + 36 + 17  # the first row's id (the grid is drawn on a canvas)
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    with context.expect_page(timeout=60_000) as opened:
        page.mouse.click(x, y)
    tab = opened.value
    tab.get_by_role("heading", name="Query explorer").wait_for(timeout=240_000)
    tab.locator("table.nb").first.wait_for(timeout=240_000)
    assert "/query?" in tab.url and "qid=" in tab.url and "k=6" in tab.url
    assert tab.locator("[data-testid='stException']").count() == 0
    context.close()
