"""The per-sentence agreement page in Chromium: time to the two maps and the rankings, cold and warm, and the
round trip of a box selection on one map until the other map highlights it.

    python benchmarks/bench_agreement_page.py                          # default corpus and embedders, fresh cache
    python benchmarks/bench_agreement_page.py --cache-dir cache        # an existing cache (a server restart)
    python benchmarks/bench_agreement_page.py --map umap --cap 38019   # UMAP maps of the whole BBC corpus

Starts `streamlit run app.py --server.headless true` (browser_tour.start) and opens
`/agreement?<shared settings>&pair=A,B&map=M` in headless Chromium (Playwright, /usr/bin/chromium). Timings are
browser-side wall clock, from the action until the result is on screen and the app reports its script run over:
- `first_visit_s`: a fresh server process, first visit: every sentence's neighbors under every chosen embedder
  (embedding too, on an empty cache), the maps, the rankings. With `--map umap` the PCA maps come first and
  `umap_maps_s` is the time until the UMAP maps replace them (numba compilation included: a fresh process).
- `warm_visit_ms`: a new browser session on the same server, `--repeats` times (everything in the process memo).
- `selection_ms`: a box dragged on the first map until the second map's highlighted points are the new ones,
  `--repeats` boxes of different sizes; `clear_ms`: "Clear selection" until the rankings are back.
The server and the browser share the machine's cores: record the load average (written) and compare runs only
with a baseline measured in the same run. Writes benchmarks/results/bench_agreement_page.json (and .txt) unless
--no-save.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
import browser_tour as bt  # noqa: E402
from _common import save_flat, server_folder  # noqa: E402

from tools.dashboard_server import free_port  # noqa: E402

MAPS = ".st-key-agree_maps .js-plotly-plot"
RANKING = "[role='tabpanel'] [data-testid='stDataFrame'] >> nth=0"
TWO_PANELS = (
    f'() => {{ const gd = document.querySelector("{MAPS}"); return !!gd && (gd._fullData || []).length === 2; }}'
)
METHODS = f"""() => Array.from(document.querySelectorAll("{MAPS} .annotation-text")).map(e => e.textContent)"""
HIGHLIGHTED = f"""panel => {{
  const t = document.querySelector("{MAPS}")?._fullData?.[panel];
  if (!t || t.selectedpoints == null) return null;
  return Array.from(t.selectedpoints).map(i => Number(t.customdata[i])).sort((a, b) => a - b);
}}"""
#: Boxes dragged on the first map (fractions of its plot area), one per repeat.
BOXES = [((0.1, 0.1), (0.6, 0.6)), ((0.3, 0.2), (0.9, 0.8)), ((0.05, 0.4), (0.5, 0.95)), ((0.2, 0.05), (0.95, 0.5))]


def ready(page, timeout: float = 3_600_000) -> None:
    """Two map panels and the least-agreed ranking on screen, script run over."""
    page.wait_for_function(TWO_PANELS, timeout=timeout)
    page.wait_for_selector(RANKING, timeout=timeout)
    bt.settle(page, timeout)


def drag(page, panel: int, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.locator(MAPS).scroll_into_view_if_needed()
    box = page.locator(f"{MAPS} .nsewdrag").nth(panel).bounding_box()
    x0, y0 = box["x"] + box["width"] * start[0], box["y"] + box["height"] * start[1]
    x1, y1 = box["x"] + box["width"] * end[0], box["y"] + box["height"] * end[1]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=10)
    page.mouse.up()


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", help="N2O_CACHE_DIR for the server (default: a fresh temporary folder)")
    ap.add_argument("--corpus", default=None, help="corpus spec (default: the app's default corpus)")
    ap.add_argument("--cap", type=int, default=5000, help="sentences (the sidebar's fixed sample)")
    ap.add_argument("--emb", default=None, help="comma-separated embedders (default: the app's defaults)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--pair", default=None, help="A,B (default: the first two embedders)")
    ap.add_argument("--map", choices=["pca", "umap"], default="pca")
    ap.add_argument(
        "--all-points",
        action="store_true",
        help="time the 'Draw all points' toggle, then time selections with every point drawn (N > 20,000 only)",
    )
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--no-save", action="store_true", help="print only; write nothing to benchmarks/results")
    return ap.parse_args()


def first_visit(browser, url: str, umap: bool, out: dict) -> None:
    """A fresh server's first visit: time to the maps and rankings (and to the UMAP maps with `umap`)."""
    page = browser.new_page(viewport={"width": 1440, "height": 1500})
    t0 = time.perf_counter()
    page.goto(url)
    ready(page)
    out["first_visit_s"] = round(time.perf_counter() - t0, 1)
    bt.check(page)
    out["maps_first_shown"] = page.evaluate(METHODS)
    if umap:
        page.wait_for_function(f"() => ({METHODS})().filter(t => t.includes('UMAP')).length === 2", timeout=3_600_000)
        bt.settle(page)
        out["umap_maps_s"] = round(time.perf_counter() - t0, 1)
    out["points_per_panel"] = page.evaluate(
        f'() => document.querySelector("{MAPS}")._fullData.map(t => t.customdata.length)'
    )
    page.close()


def warm_visits(browser, url: str, repeats: int, out: dict):
    """ms of `repeats` new sessions on the warm server; returns the last one's page (left open)."""
    warm = []
    for i in range(repeats):
        page = browser.new_page(viewport={"width": 1440, "height": 1500})
        t0 = time.perf_counter()
        page.goto(url)
        ready(page)
        warm.append(round((time.perf_counter() - t0) * 1000))
        bt.check(page)
        if i < repeats - 1:
            page.close()
    out["warm_visit_ms"] = warm
    return page


def draw_all_points(page, out: dict) -> None:
    """ms of the 'Draw all points' toggle until the second map has more points (when the page offers it)."""
    toggle = page.get_by_text("Draw all points")
    if not toggle.count():
        return
    t0 = time.perf_counter()
    toggle.click()
    page.wait_for_function(
        f'n => document.querySelector("{MAPS}")?._fullData?.[1]?.customdata?.length > n',
        arg=max(out["points_per_panel"]),
        timeout=600_000,
    )
    bt.settle(page)
    out["draw_all_ms"] = round((time.perf_counter() - t0) * 1000)
    out["points_per_panel_all"] = page.evaluate(
        f'() => document.querySelector("{MAPS}")._fullData.map(t => t.customdata.length)'
    )


def selections(page, repeats: int, out: dict) -> None:
    """ms of box selections on the first map until the second highlights them, and of clearing each."""
    sel, clear, sizes = [], [], []
    for r in range(repeats):
        before = page.evaluate(HIGHLIGHTED, 1)
        start, end = BOXES[r % len(BOXES)]
        t0 = time.perf_counter()
        drag(page, 0, start, end)
        page.wait_for_function(
            f"""before => {{ const now = ({HIGHLIGHTED})(1);
            return now !== null && JSON.stringify(now) !== JSON.stringify(before); }}""",
            arg=before,
            timeout=600_000,
        )
        page.wait_for_selector("h3:has-text('Selected:')", timeout=600_000)
        bt.settle(page)
        sel.append(round((time.perf_counter() - t0) * 1000))
        bt.check(page)
        sizes.append(len(page.evaluate(HIGHLIGHTED, 1) or []))
        t0 = time.perf_counter()
        page.get_by_role("button", name="Clear selection").click()
        page.wait_for_selector("h3:has-text('Least and most agreed sentences')", timeout=600_000)
        bt.settle(page)
        clear.append(round((time.perf_counter() - t0) * 1000))
    out["selection_ms"] = sel
    out["selected_points"] = sizes
    out["clear_ms"] = clear


def main() -> None:
    args = parse_args()
    from playwright.sync_api import sync_playwright

    from n2o_core.settings import env_defaults, to_query

    tmp, cache_dir, cold, env = server_folder("n2o-agree-", args.cache_dir)
    s = env_defaults(env)
    query = to_query(s)
    query.update(cap=str(args.cap), k=str(args.k), map=args.map)
    if args.corpus:
        env["N2O_DEFAULT_CORPUS"] = query["corpus"] = args.corpus
    if args.emb:
        query["emb"] = args.emb
    names = query["emb"].split(",")
    query["pair"] = args.pair or ",".join(names[:2])
    path = f"/agreement?{urlencode(query)}"
    out: dict = {
        "cache": "cold (empty)" if cold else f"existing {cache_dir}",
        "cpus": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "url": path,
    }
    server = bt.start(env, free_port(), tmp / "server.log")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=bt.CHROMIUM, args=["--no-sandbox"])
            first_visit(browser, server.url + path, args.map == "umap", out)
            page = warm_visits(browser, server.url + path, args.repeats, out)
            if args.all_points:
                draw_all_points(page, out)
            selections(page, args.repeats, out)
            browser.close()
    finally:
        server.stop(timeout=20)
    for key in ("warm_visit_ms", "selection_ms", "clear_ms"):
        out[key.replace("_ms", "_median_ms")] = statistics.median(out[key])
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    if args.no_save:
        print("\n".join(f"{k}: {v}" for k, v in out.items()))
    else:
        save_flat("bench_agreement_page", out)


if __name__ == "__main__":
    main()
