"""What a browser test pays per view: a new Chromium page for each view (what the browser tests did) against one tab
reused (`goto` in it: a new visitor's session on the server all the same), and in-app navigation (a click in the
sidebar: the same session), in the same run, on the browser tests' own server (tests/app_server.py: 200 synthetic
sentences, four cheap embedders).

    python benchmarks/bench_browser_tab.py [--rounds 3]

Every page is visited once first (the server's caches warm), then each way visits the same six pages per round,
rounds alternating. Measured: wall time, and the machine's CPU time over the visits (/proc/stat: Chromium, the
server and this script together; the machine must be otherwise quiet). The baseline is a new page per view.
Writes benchmarks/results/bench_browser_tab.json (and .txt).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, save_flat  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from app_server import CHROMIUM, running_app  # noqa: E402

PAGES = ("tokens", "query", "agreement", "needle", "findings", "about")
VIEWPORT = {"width": 1400, "height": 1000}


def busy_s() -> float:
    """CPU seconds the whole machine has been busy (all cores, /proc/stat)."""
    with open("/proc/stat") as f:
        ticks = list(map(int, f.readline().split()[1:8]))
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def settle(page) -> None:
    for _ in range(2):
        page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=240_000)
        page.wait_for_timeout(150)


def new_page_each(browser, url: str) -> None:
    for p in PAGES:
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{url}/{p}")
        settle(page)
        page.close()


def one_tab(browser, url: str) -> None:
    page = browser.new_page(viewport=VIEWPORT)  # opened once per round here (once per test process in the suite)
    for p in PAGES:
        page.goto(f"{url}/{p}")
        settle(page)
    page.close()


def in_app(browser, url: str) -> None:
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(f"{url}/{PAGES[-1]}")
    settle(page)
    for p in PAGES:
        page.locator(f"[data-testid='stSidebarNav'] a[href$='/{p}']").first.click()
        page.wait_for_function(f"() => location.pathname.endsWith('/{p}')")
        settle(page)
    page.close()


WAYS = {"new_page_per_view (baseline)": new_page_each, "one_tab_goto": one_tab, "in_app_navigation": in_app}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    wall: dict[str, list[float]] = {w: [] for w in WAYS}
    cpu: dict[str, list[float]] = {w: [] for w in WAYS}
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp)) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-background-networking"])
        new_page_each(browser, url)  # every page once: the server's caches warm
        for _ in range(args.rounds):
            for name, way in WAYS.items():
                t0, c0 = time.perf_counter(), busy_s()
                way(browser, url)
                wall[name].append(time.perf_counter() - t0)
                cpu[name].append(busy_s() - c0)
        browser.close()
    base = sum(cpu["new_page_per_view (baseline)"])
    out: dict = {"pages_per_round": len(PAGES), "rounds": args.rounds}
    for name in WAYS:
        out[f"{name}: cpu_s_per_view"] = round(sum(cpu[name]) / (args.rounds * len(PAGES)), 2)
        out[f"{name}: wall_s_per_view"] = round(sum(wall[name]) / (args.rounds * len(PAGES)), 2)
        out[f"{name}: cpu_ratio_to_baseline"] = round(sum(cpu[name]) / base, 3)
    save_flat("bench_browser_tab", out)


if __name__ == "__main__":
    main()
