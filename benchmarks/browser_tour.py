"""The dashboard in a real browser: cold start, the first clicks after it, warm k change and page switch timings,
and the README screenshots.

    python benchmarks/browser_tour.py                       # cold: default corpus and embedders, a fresh cache
    python benchmarks/browser_tour.py --cache-dir cache     # reuse ./cache (a warm start)

Starts `streamlit run app.py --server.headless true`, waits for /_stcore/health, and drives it in headless
Chromium (Playwright, /usr/bin/chromium). Timings are browser-side wall clock: from the user's action until the
new output is on screen and the app reports that its script run is over.

Cold (an empty workspace cache): from opening the page, when progress is first shown (the corpus spinner or an
embedder's status), when the first cells are drawn (the partial heatmap of the first two embedders), when the
complete heatmap is; then, after `--read-s` seconds of reading (the background preload runs meanwhile), the first
free-text query (Query explorer, text= link) and the first HEROS visit. Then the same first visit and first clicks
on a restarted server over the filled cache (`restart`: models, WordNet and spaCy loaded on demand or by the
preload). The MiniLM ONNX export lives in the per-user model cache (`--model-cache user`, the default: used as it
is, and `onnx_export_present` says whether it was there) or in a fresh one (`--model-cache empty`: built and
counted).

Refuses to run when the 1-minute load average is above 1.0 at the start (`--force`: run and record as invalid).
Writes benchmarks/results/browser_tour.json (and .txt; `--out NAME` for another name), browser_tour_cold for a cold
run, and docs/screenshots/<page>.png.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import LOAD_AT_IMPORT, MAX_LOAD, ROOT, save_flat, server_folder  # noqa: E402 - puts the repository root on sys.path

from tools.dashboard_server import Server, ServerError, free_port, start_server  # noqa: E402

SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
IDLE = "[data-test-script-state='notRunning']"
HEATMAP = "[data-testid='stPlotlyChart'] .js-plotly-plot g.hm image"
PAGES = [  # (nav label, heading, screenshot name, what shows the page is drawn)
    ("N2O heatmap", "N2O heatmap", "heatmap", HEATMAP),
    ("Query explorer", "Query explorer", "query", "table.nb"),
    ("Token overlap", "Token overlap", "tokens", "[data-testid='stPlotlyChart'] .js-plotly-plot"),
    ("HEROS subsets", "HEROS subsets", "heros", "[data-testid='stPlotlyChart'] .js-plotly-plot"),
    ("About", "About N2O Explorer", "about", "[data-testid='stDataFrame']"),
]
#: The evaluation pages: visited once after the timed tour, for their screenshots (their first visit computes an
#: analysis, which page-switch times must not mix in). A page whose analysis runs on request gets its button
#: clicked (findings: the first finding's "Check"; probing: "Run probing") and is shot when the run is over.
PLOT = "[data-testid='stPlotlyChart'] .js-plotly-plot"
SHOT_PAGES = [  # (nav label, heading, screenshot name, what shows it is drawn or the button that runs it, link extras)
    ("Where embedders disagree", "Where two embedders disagree", "agreement", ".st-key-agree_maps .js-plotly-plot", ""),
    ("Paraphrase needle", "Paraphrase needle", "needle", PLOT, ""),
    ("Human similarity (STS)", "Human similarity (STS)", "sts", PLOT, ""),
    ("Papers' findings", "The papers' findings, checked live", "findings", "Check", ""),
    # three of the ten tasks keep the tour short (all ten on the defaults take minutes)
    ("Probing tasks", "Probing tasks", "probe", "Run probing", "tasks=sentlen,bshift,tense&per_class=100&min_train=1"),
]


def shoot_evaluation_pages(page) -> dict[str, int]:
    """Visit each of SHOT_PAGES once (its analysis computed on the way), take its screenshot; returns the ms each
    first visit took."""
    nav = page.locator("[data-testid='stSidebarNav']")
    took = {}
    for label, heading, name, sel, extra in SHOT_PAGES:
        link = nav.locator("a", has_text=label).first
        if nav.locator("a", has_text=label).count() == 0:
            continue
        if extra:  # the page's own settings in its link
            base, _, query = page.url.partition("?")
            target = base.rsplit("/", 1)[0] + f"/{name}?" + "&".join(q for q in (query, extra) if q)
            ms = timed(page, lambda target=target: page.goto(target), f'h2:has-text("{heading}") >> nth=0')
        else:
            ms = timed(page, link.click, f'h2:has-text("{heading}") >> nth=0')
        if not sel.startswith((".", "[")):  # a button's label: the analysis runs on request
            # the label, or the label and " · " what it says beside (probing: how long the run will take)
            page.get_by_role("button", name=re.compile(rf"^{re.escape(sel)}( · .*)?$")).first.click()
            page.wait_for_timeout(500)
            settle(page, timeout=1_800_000)
        else:
            page.wait_for_selector(sel, timeout=1_800_000)
        settle(page)
        check(page)
        took[name] = round(max(ms, 0))
        page.wait_for_timeout(600)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    return took


def settle(page, timeout: float = 900_000) -> None:
    page.wait_for_selector(IDLE, state="attached", timeout=timeout)
    page.wait_for_timeout(100)
    page.wait_for_selector(IDLE, state="attached", timeout=timeout)


def check(page) -> None:
    exc = page.locator("[data-testid='stException']")
    if exc.count():
        raise SystemExit(f"exception element on {page.url}: {exc.first.inner_text()[:300]}")


def timed(page, action, done_selector: str) -> float:
    """ms from the action until `done_selector` is on screen and the script run is over."""
    t0 = time.perf_counter()
    action()
    page.wait_for_selector(done_selector, timeout=900_000)
    page.wait_for_selector(IDLE, state="attached", timeout=900_000)
    return (time.perf_counter() - t0) * 1000


#: What shows that the app is working on the page: the corpus spinner, the embedders' status box, a progress bar.
PROGRESS = "[data-testid='stSpinner'], [data-testid='stExpander'], [data-testid='stProgress']"
FREE_TEXT = "Shares fell sharply after the bank warned on profits"


def first_visit(page, url: str) -> dict:
    """Seconds from opening `url` until progress shows, the first cells are drawn, and the heatmap is complete."""
    t0 = time.perf_counter()
    page.goto(url)
    page.locator(PROGRESS).first.wait_for(timeout=300_000)
    shown = time.perf_counter() - t0
    page.wait_for_selector(HEATMAP, timeout=1_800_000)  # the partial heatmap once two embedders are ready
    cells = time.perf_counter() - t0
    settle(page)
    check(page)
    return {
        "progress_shown_s": round(shown, 1),
        "first_cells_s": round(cells, 1),
        "full_heatmap_s": round(time.perf_counter() - t0, 1),
    }


def first_clicks(browser, url: str, query: str, read_s: float) -> dict:
    """After `read_s` seconds on the first page: ms of the first free-text query and of the first HEROS visit (each
    in a new tab on the same server, through a link with the same settings)."""
    time.sleep(read_s)
    out = {"read_s": read_s}
    for name, path, sel in (
        ("free_text_first_ms", f"/query?{query}&text={urllib.parse.quote(FREE_TEXT)}", "table.nb"),
        ("heros_first_ms", f"/heros?{query}", "[data-testid='stPlotlyChart'] .js-plotly-plot"),
    ):
        p = browser.new_page(viewport={"width": 1440, "height": 1500})
        out[name] = round(timed(p, lambda p=p, path=path: p.goto(url + path), sel))
        check(p)
        p.close()
    return out


def onnx_export_present(env: dict[str, str]) -> bool:
    """Whether the server will find the MiniLM ONNX export in its per-user model cache."""
    code = (
        "from n2o_core.embedders import _onnx; from n2o_core.embedders.sbert import minilm_path; "
        "from n2o_core.storage.manifest_folder import folder_path, read_manifest; "
        "folder = folder_path(_onnx.user_model_cache(), 'onnx', _onnx.export_key(minilm_path())); "
        "print(read_manifest(folder) is not None)"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return res.stdout.strip() == "True"


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", help="N2O_CACHE_DIR for the server (default: a fresh temporary folder)")
    ap.add_argument("--model-cache", choices=("user", "empty"), default="user", help="see above")
    ap.add_argument("--read-s", type=float, default=5.0, help="seconds on the first page before the first clicks")
    ap.add_argument("--repeats", type=int, default=5, help="warm k changes / page switches to time")
    ap.add_argument("--no-screenshots", action="store_true")
    ap.add_argument("--force", action="store_true", help=f"run even above load {MAX_LOAD} (recorded as invalid)")
    ap.add_argument("--out", help="result name under benchmarks/results/ (default browser_tour[_cold])")
    args = ap.parse_args()
    if LOAD_AT_IMPORT[0] > MAX_LOAD and not args.force:
        raise SystemExit(
            f"browser_tour: 1-minute load {LOAD_AT_IMPORT[0]} > {MAX_LOAD}: not recording "
            "(wait for a quiet machine, e.g. /work/shared/tools/when-quiet, or pass --force to record it as invalid)"
        )
    return args


def start(env: dict[str, str], port: int, log_path: Path, extra: Sequence[str] = ()) -> Server:
    """The dashboard's server on `port` (tools.dashboard_server), healthy; exits with the log's tail when it does not
    start."""
    try:
        return start_server(env, log_path, port=port, extra_args=extra, timeout=120, poll=0.2)
    except ServerError as e:
        raise SystemExit(str(e)) from None


def k_changes(page, repeats: int) -> list[int]:
    """ms of warm k changes: keyboard steps on the sidebar slider, alternately down and up."""
    thumb = page.locator("[data-testid='stSidebar'] [data-testid='stSlider'] input[type='range']").first
    ks = []
    k = int(thumb.get_attribute("value"))
    for i in range(repeats):
        key, k = ("ArrowLeft", k - 1) if i % 2 == 0 else ("ArrowRight", k + 1)
        thumb.focus()
        ks.append(timed(page, lambda key=key: thumb.press(key), f"text=k = {k} ·"))
        check(page)
    return [round(v) for v in ks]


def page_switches(page, repeats: int, screenshots: bool) -> tuple[dict[str, int], dict[str, list[int]]]:
    """ms of each page's first visit (it may compute: token overlap, HEROS pairs; screenshot taken) and of the
    `repeats` warm switches after it."""
    first, warm = {}, {name: [] for *_, name, _ in PAGES}
    nav = page.locator("[data-testid='stSidebarNav']")
    for r in range(repeats + 1):
        for label, heading, name, sel in PAGES[1:] + PAGES[:1]:
            ms = timed(
                page, lambda label=label: nav.locator("a", has_text=label).click(), f"h2:has-text('{heading}') >> nth=0"
            )
            page.wait_for_selector(sel, timeout=900_000)
            settle(page)
            ms = max(ms, 0)
            check(page)
            if r == 0:
                first[name] = round(ms)
                if screenshots:
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    page.wait_for_timeout(600)  # plotly transitions
                    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
            else:
                warm[name].append(round(ms))
    return first, warm


def heatmap_views(page, screenshots: bool) -> dict[str, int]:
    """ms of switching the heatmap page's sections (one at a time, view= in the link)."""
    views = {}
    for label, name, sel in (
        ("Per embedder", "heatmap-box", ".js-plotly-plot"),
        ("Robustness", "heatmap-robustness", ".js-plotly-plot"),
        ("Matrix", None, HEATMAP),
    ):
        btn = page.locator("[data-testid='stMain'] [data-testid='stButtonGroup'] button", has_text=label)
        views[label] = round(timed(page, lambda btn=btn: btn.first.click(), sel))
        settle(page)
        check(page)
        if name and screenshots:
            page.wait_for_timeout(600)
            page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    return views


def tour(browser, url: str, args: argparse.Namespace, cold: bool, out: dict) -> str:
    """The timed tour on a started server (results into `out`); returns the first page's link query."""
    page = browser.new_page(viewport={"width": 1440, "height": 1500})
    visit = first_visit(page, url)
    out.update(visit)
    out["first_visit_s"] = visit["full_heatmap_s"]
    out["url"] = page.url.replace(url, "")
    query = page.url.split("?", 1)[1] if "?" in page.url else ""
    if cold:
        out["first_clicks"] = first_clicks(browser, url, query, args.read_s)
    # a second visit (a new session on the warm server)
    p2 = browser.new_page(viewport={"width": 1440, "height": 1500})
    out["warm_visit_ms"] = round(timed(p2, lambda: p2.goto(url), HEATMAP))
    p2.close()
    out["k_change_ms"] = k_changes(page, args.repeats)
    first, warm = page_switches(page, args.repeats, not args.no_screenshots)
    out["heatmap_view_switch_ms"] = heatmap_views(page, not args.no_screenshots)
    if not args.no_screenshots:
        out["evaluation_page_first_visit_ms"] = shoot_evaluation_pages(page)
    out["page_first_visit_ms"] = first
    out["page_switch_ms"] = warm
    return query


def restart(env: dict[str, str], port: int, log_path: Path, query: str, read_s: float) -> dict:
    """A restarted server over the cache the first run filled (models, WordNet and spaCy not loaded yet): its
    first visit and first clicks."""
    from playwright.sync_api import sync_playwright

    server = start(env, port, log_path)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1440, "height": 1500})
            got = {**first_visit(page, server.url), **first_clicks(browser, server.url, query, read_s)}
            browser.close()
    finally:
        server.stop(timeout=20)
    return got


def summary(out: dict, cold: bool) -> dict:
    allw = [v for vs in out["page_switch_ms"].values() for v in vs]
    return {
        "first_cells_s": out["first_cells_s"],
        "first_visit_s": out["first_visit_s"],
        **({k: out["first_clicks"][k] for k in ("free_text_first_ms", "heros_first_ms")} if cold else {}),
        "k_change_ms_median": statistics.median(out["k_change_ms"]),
        "k_change_ms_max": max(out["k_change_ms"]),
        "page_switch_ms_median": statistics.median(allw),
        "page_switch_ms_max": max(allw),
    }


def main() -> None:
    args = parse_args()
    from playwright.sync_api import sync_playwright

    tmp, cache_dir, cold, env = server_folder("n2o-tour-", args.cache_dir)
    if args.model_cache == "empty":
        env["N2O_MODEL_CACHE"] = str(tmp / "models")
    port = free_port()
    out: dict = {
        "cache": "cold (empty)" if cold else f"existing {cache_dir}",
        "model_cache": args.model_cache,
        "onnx_export_present": onnx_export_present(env),
        "cpus": os.cpu_count(),
        "loadavg_start": LOAD_AT_IMPORT,
    }
    t_server = time.perf_counter()
    server = start(env, port, tmp / "server.log")
    out["server_start_s"] = round(time.perf_counter() - t_server, 1)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            query = tour(browser, server.url, args, cold, out)
            browser.close()
    finally:
        server.stop(timeout=20)
    if cold:  # a restarted server over the cache this run filled: models, WordNet and spaCy not loaded yet
        out["restart"] = restart(env, port, tmp / "server-restart.log", query, args.read_s)
    out["summary"] = summary(out, cold)
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    save_flat(args.out or ("browser_tour_cold" if cold else "browser_tour"), out)


if __name__ == "__main__":
    main()
