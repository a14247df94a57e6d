"""The dashboard in a real browser: cold start, warm k change and page switch timings, and the README screenshots.

    python benchmarks/browser_tour.py                       # default corpus and embedders, a fresh cache
    python benchmarks/browser_tour.py --cache-dir cache     # reuse ./cache (a warm start)

Starts `streamlit run app.py --server.headless true`, waits for /_stcore/health, and drives it in headless
Chromium (Playwright, /usr/bin/chromium). Timings are browser-side wall clock: from the user's action until the
new output is on screen and the app reports that its script run is over. Writes benchmarks/results/browser_tour.json
(and .txt) and docs/screenshots/<page>.png.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, save_flat  # noqa: E402

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(env: dict[str, str], port: int, log_path: Path, extra: Sequence[str] = ()) -> subprocess.Popen:
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            *extra,
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 120
    while True:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read().strip() == b"ok":
                return proc
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the app did not start; see {log_path}")
        time.sleep(0.2)


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", help="N2O_CACHE_DIR for the server (default: a fresh temporary folder)")
    ap.add_argument("--repeats", type=int, default=5, help="warm k changes / page switches to time")
    ap.add_argument("--no-screenshots", action="store_true")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="n2o-tour-"))
    cache_dir = Path(args.cache_dir).resolve() if args.cache_dir else tmp / "cache"
    cold = not cache_dir.exists()
    env = dict(os.environ, N2O_CACHE_DIR=str(cache_dir), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    out: dict = {
        "cache": "cold (empty)" if cold else f"existing {cache_dir}",
        "cpus": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }
    t_server = time.perf_counter()
    proc = start(env, port, tmp / "server.log")
    out["server_start_s"] = round(time.perf_counter() - t_server, 1)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1440, "height": 1500})
            t0 = time.perf_counter()
            page.goto(url)
            if cold:  # per-embedder progress shows while the cache fills
                page.locator("[data-testid='stProgress']").first.wait_for(timeout=300_000)
                out["progress_shown_s"] = round(time.perf_counter() - t0, 1)
            page.wait_for_selector(HEATMAP, timeout=1_800_000)
            settle(page)
            out["first_visit_s"] = round(time.perf_counter() - t0, 1)
            check(page)
            out["url"] = page.url.replace(url, "")

            # a second visit (a new session on the warm server)
            p2 = browser.new_page(viewport={"width": 1440, "height": 1500})
            out["warm_visit_ms"] = round(timed(p2, lambda: p2.goto(url), HEATMAP))
            p2.close()

            # warm k changes: keyboard steps on the sidebar slider
            thumb = page.locator("[data-testid='stSidebar'] [data-testid='stSlider'] input[type='range']").first
            ks = []
            k = int(thumb.get_attribute("value"))
            for i in range(args.repeats):
                key, k = ("ArrowLeft", k - 1) if i % 2 == 0 else ("ArrowRight", k + 1)
                thumb.focus()
                ks.append(timed(page, lambda key=key: thumb.press(key), f"text=k = {k} ·"))
                check(page)
            out["k_change_ms"] = [round(v) for v in ks]

            # page switches: the first visit of a page may compute (token overlap, HEROS pairs); then warm
            first, warm = {}, {name: [] for *_, name, _ in PAGES}
            nav = page.locator("[data-testid='stSidebarNav']")
            for r in range(args.repeats + 1):
                for label, heading, name, sel in PAGES[1:] + PAGES[:1]:
                    ms = timed(
                        page,
                        lambda label=label: nav.locator("a", has_text=label).click(),
                        f"h2:has-text('{heading}') >> nth=0",
                    )
                    page.wait_for_selector(sel, timeout=900_000)
                    settle(page)
                    ms = max(ms, 0)
                    check(page)
                    if r == 0:
                        first[name] = round(ms)
                        if not args.no_screenshots:
                            SHOTS.mkdir(parents=True, exist_ok=True)
                            page.wait_for_timeout(600)  # plotly transitions
                            page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
                    else:
                        warm[name].append(round(ms))
            # the heatmap page's other sections (one at a time, view= in the link)
            views = {}
            for label, name, sel in (
                ("Per embedder", "heatmap-box", ".js-plotly-plot"),
                ("Robustness across k", "heatmap-robustness", ".js-plotly-plot"),
                ("Matrix", None, HEATMAP),
            ):
                btn = page.locator("[data-testid='stMain'] [data-testid='stButtonGroup'] button", has_text=label)
                views[label] = round(timed(page, lambda btn=btn: btn.first.click(), sel))
                settle(page)
                check(page)
                if name and not args.no_screenshots:
                    page.wait_for_timeout(600)
                    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
            out["heatmap_view_switch_ms"] = views
            out["page_first_visit_ms"] = first
            out["page_switch_ms"] = warm
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    allw = [v for vs in out["page_switch_ms"].values() for v in vs]
    out["summary"] = {
        "first_visit_s": out["first_visit_s"],
        "k_change_ms_median": statistics.median(out["k_change_ms"]),
        "k_change_ms_max": max(out["k_change_ms"]),
        "page_switch_ms_median": statistics.median(allw),
        "page_switch_ms_max": max(allw),
    }
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    save_flat("browser_tour", out)


if __name__ == "__main__":
    main()
