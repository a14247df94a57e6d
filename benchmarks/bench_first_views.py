"""First views of the evaluation pages (paraphrase needle, human similarity, HEROS, and the findings page's "Check
all") on a freshly started server over a filled disk cache: a shared server (N2O_SHARED=1: each page's scoring runs
in a child process, runtime.child) against a personal one (jobs in the server), in the same run.

    python benchmarks/bench_first_views.py [--cache-dir DIR] [--label TEXT] [--out first_views]

1. Warm-up (reported apart): a personal server over the cache folder (default: a fresh temporary one) opens the
   heatmap and the three pages once, so the disk cache holds every embedding, the pairs' sentence vectors and the
   HEROS minimal pairs: what is timed next is what a restarted server does per process (starting children,
   loading models, scoring), not what the disk cache keeps.
2. For each mode, personal then shared: a new server process over that cache; the heatmap is opened and the
   server left to go quiet (its background preload done), then the needle, human similarity and HEROS pages are
   opened from the sidebar, each timed from the click until the app reports its run over; then the findings
   page, timed from its sidebar click through its "Check all" until the run is over.

Ratio = shared / personal per page. Writes results/<out>.{json,txt}. Record on a quiet machine
(/work/shared/tools/when-quiet).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import LOAD_AT_IMPORT, save_flat, server_folder  # noqa: E402 - puts the repository root on sys.path
from bench_memory import ARGS, CHROMIUM, EXCEPTION, PAGES, settle, visit, wait_quiet  # noqa: E402

from tools.dashboard_server import ServerError, start_server  # noqa: E402

#: The pages timed, by url path ("findings": opened, then "Check all" clicked).
TIMED = ("needle", "sts", "heros", "findings")


def _views(env: dict[str, str], log: Path, pages: tuple[str, ...]) -> dict[str, float]:
    """Start a server with `env`, open the heatmap, wait for quiet, then time each page of `pages` (seconds)."""
    from playwright.sync_api import sync_playwright

    try:
        server = start_server(env, log, timeout=120)
    except ServerError as e:
        raise SystemExit(str(e)) from None
    took: dict[str, float] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_context().new_page()
            page.set_viewport_size({"width": 1440, "height": 1500})
            page.goto(server.url)
            page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=1_800_000)
            settle(page)
            wait_quiet(server.pid, window=5)
            by_name = {name: (label, heading) for name, label, heading in PAGES}
            for name in pages:
                t0 = time.perf_counter()
                if name == "findings":
                    label, heading = by_name[name]
                    page.locator("[data-testid='stSidebarNav'] a", has_text=label).first.click()
                    page.locator(f'h2:has-text("{heading}")').first.wait_for(timeout=1_800_000)
                    settle(page)
                    page.get_by_role("button", name="Check all", exact=True).first.click()
                    page.wait_for_timeout(500)
                    settle(page)
                    if page.locator(EXCEPTION).count():
                        raise SystemExit(f"exception element on {page.url}")
                else:
                    visit(page, server.url, name, *by_name[name])
                took[name] = round(time.perf_counter() - t0, 1)
                print(f"  {name}: {took[name]} s", flush=True)
                wait_quiet(server.pid)
            browser.close()
    finally:
        server.stop(timeout=20)
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", help="N2O_CACHE_DIR for the servers (default: a fresh temporary folder)")
    ap.add_argument("--label", default="", help="what code this measures (e.g. a commit), recorded")
    ap.add_argument("--out", default="first_views", help="result name under benchmarks/results/")
    args = ap.parse_args()
    tmp, cache_dir, cold, env = server_folder("n2o-first-views-", args.cache_dir)
    personal = dict(env, N2O_SHARED="0", N2O_ISOLATE="0")
    shared = dict(env, N2O_SHARED="1")
    shared.pop("N2O_ISOLATE", None)
    out: dict = {"label": args.label, "loadavg_start": LOAD_AT_IMPORT, "cache": "fresh" if cold else str(cache_dir)}
    t0 = time.perf_counter()
    print("warm-up (personal server, filling the disk cache)", flush=True)
    _views(personal, tmp / "warm.log", TIMED)
    out["warm_up_s"] = round(time.perf_counter() - t0, 1)
    print("personal server", flush=True)
    mine = _views(personal, tmp / "personal.log", TIMED)
    print("shared server", flush=True)
    theirs = _views(shared, tmp / "shared.log", TIMED)
    for name in TIMED:
        out[f"{name}_personal_s"] = mine[name]
        out[f"{name}_shared_s"] = theirs[name]
        out[f"{name}_ratio_shared_to_personal"] = round(theirs[name] / mine[name], 2) if mine[name] else None
    out["note"] = (
        "each page timed from its sidebar click until the app reports its run over, on a new server process over a "
        "disk cache filled by the warm-up; personal: jobs in the server (N2O_ISOLATE=0); shared: N2O_SHARED=1, "
        "each page's scoring in a child process"
    )
    save_flat(args.out, out)


if __name__ == "__main__":
    main()
