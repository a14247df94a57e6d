"""The dashboard server's resident memory: after each page of one visitor's tour of every page on the default corpus
and embedders, after the tour, and after a second and a third concurrent visitor's tour (issue 27's budget:
tools.dashboard_server.MEMORY_BUDGET_MB after one tour, MEMORY_PER_SESSION_MB more per further visitor).

    python benchmarks/bench_memory.py                        # a fresh cache folder (cold: everything computed)
    python benchmarks/bench_memory.py --cache-dir cache      # over ./cache (a server restarted on a filled cache)

Starts `streamlit run app.py --server.headless true` on a free port (tools.dashboard_server) with N2O_CACHE_DIR set to a
fresh temporary folder (the disk cache the app and the core use: n2o_core.storage.cache, ui.n2o_runs.cache), the
background preload on as a user gets it. Drives headless Chromium (Playwright, /usr/bin/chromium): each visitor is its
own browser context (its own Streamlit session) and stays open while the next one tours. Each page of ui.nav.PAGES is
opened from the sidebar's navigation; a page whose analysis runs on request gets its button clicked (measures: "Compute
the measures", probing: "Run probing" on three tasks at 100 per class as benchmarks/browser_tour.py does, findings: the
first "Check", quality: each "Run ..." button). After each step the script waits until the app reports its run over and
the server's CPU is quiet (the preload thread done), then reads the resident memory (RSS, psutil) of the server and its
child processes, and its anonymous part (RssAnon: what a memory-mapped file's pages are not). After each visitor's tour
the figure is read right away and again after `--idle-s` seconds without a request (default N2O_RELEASE_AFTER_S + 20:
what an idle server gives back, ui/release.py, is then given back); the budget applies to the second.

Writes benchmarks/results/memory.json and .txt (`--out NAME` for another name). RSS hardly depends on the load
of the machine; the load is recorded anyway.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import LOAD_AT_IMPORT, ROOT, save_flat, server_folder  # noqa: E402 - puts the repository root on sys.path

from n2o_core.runtime.release import release_after_s  # noqa: E402
from tools.dashboard_server import (
    MEMORY_BUDGET_MB,
    MEMORY_PER_SESSION_MB,
    ServerError,
    memory_budget_mb,
    resident_mb,
    start_server,
)  # noqa: E402
from ui.nav import PAGES as NAV_PAGES  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-background-networking"]
IDLE = "[data-test-script-state='notRunning']"
EXCEPTION = "[data-testid='stException']"
#: (url path, nav label, heading) of every page, in navigation order (ui.nav).
PAGES = [(p.name, p.title, p.heading) for p in NAV_PAGES]
#: A page's own link parameters for the tour (probing: three of the ten tasks, as browser_tour.py).
EXTRA = {"probe": "tasks=sentlen,bshift,tense&per_class=100&min_train=1"}
#: Buttons that run a page's analysis on request (label, exact); every one present is clicked, once.
RUN_BUTTONS = {
    "measures": [("Compute the measures", True)],
    "probe": [("Run probing", False)],  # its label goes on with how long the run will take
    "findings": [("Check", True)],
    "quality": [("Run the paraphrase needle", False), ("Run human similarity", False), ("Run HEROS", False)],
}


def anon_mb(pid: int) -> float:
    """RssAnon of `pid` and its children in MB (the resident memory that is not a mapped file's pages)."""
    import psutil

    total = 0
    for p in [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total / 1e6


def wait_quiet(pid: int, *, below: float = 3.0, window: float = 2.0, timeout: float = 900) -> float:
    """Wait until the server's CPU use (percent of one core, children included) stays below `below` for `window`
    seconds (its background work is over); returns the seconds waited."""
    import psutil

    t0 = time.monotonic()
    proc = psutil.Process(pid)
    while time.monotonic() - t0 < timeout:
        procs = [proc, *proc.children(recursive=True)]
        before = sum(sum(p.cpu_times()[:2]) for p in procs)
        time.sleep(window)
        after = sum(sum(p.cpu_times()[:2]) for p in procs if p.is_running())
        if (after - before) / window * 100 < below:
            break
    return time.monotonic() - t0


def settle(page, timeout: float = 1_800_000) -> None:
    page.wait_for_selector(IDLE, state="attached", timeout=timeout)
    page.wait_for_timeout(200)
    page.wait_for_selector(IDLE, state="attached", timeout=timeout)


def visit(page, base: str, name: str, label: str, heading: str) -> list[str]:
    """Open one page (sidebar link, or a link with the page's extras), run its on-request analyses; returns the
    buttons clicked."""
    if name in EXTRA:
        query = page.url.partition("?")[2]
        page.goto(f"{base}/{name}?" + "&".join(q for q in (query, EXTRA[name]) if q))
        page.wait_for_timeout(1500)  # a new session: its first run may not have started yet
    else:
        page.locator("[data-testid='stSidebarNav'] a", has_text=label).first.click()
    page.locator(f'h2:has-text("{heading}")').first.wait_for(timeout=1_800_000)
    settle(page)
    clicked = []
    for text, exact in RUN_BUTTONS.get(name, []):
        btn = page.get_by_role("button", name=text, exact=exact)
        if btn.count():
            btn.first.click()
            page.wait_for_timeout(500)
            settle(page)
            clicked.append(text)
    exc = page.locator(EXCEPTION)
    if exc.count():
        raise SystemExit(f"exception element on {page.url}: {exc.first.inner_text()[:300]}")
    return clicked


def tour(context, base: str, pid: int, rows: list[dict], visitor: int) -> None:
    """One visitor's tour of every page; a row per page with the server's memory after it."""
    page = context.new_page()
    page.set_viewport_size({"width": 1440, "height": 1500})
    page.goto(base)
    page.locator(f'h2:has-text("{PAGES[0][2]}")').first.wait_for(timeout=1_800_000)
    for name, label, heading in PAGES:
        t0 = time.perf_counter()
        clicked = [] if name == "heatmap" else visit(page, base, name, label, heading)
        if name == "heatmap":
            page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=1_800_000)
            settle(page)
        took = time.perf_counter() - t0
        quiet = wait_quiet(pid)
        rows.append(
            {
                "visitor": visitor,
                "page": name,
                "rss_mb": round(resident_mb(pid)),
                "anon_mb": round(anon_mb(pid)),
                "page_s": round(took, 1),
                "quiet_wait_s": round(quiet, 1),
                **({"clicked": clicked} if clicked else {}),
            }
        )
        print(rows[-1], flush=True)


class PeakSampler:
    """The largest RSS of the server and its children (a job's child process included), sampled every 0.25 s in
    a thread; `take()` returns the peak since the last take."""

    def __init__(self, pid: int):
        import threading

        self.pid, self.peak, self._lock = pid, 0.0, threading.Lock()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while True:
            try:
                mb = resident_mb(self.pid)
            except Exception:  # noqa: BLE001 - a child that exits while it is read
                mb = 0.0
            with self._lock:
                self.peak = max(self.peak, mb)
            time.sleep(0.25)

    def take(self) -> int:
        with self._lock:
            got, self.peak = self.peak, 0.0
        return round(got)


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", help="N2O_CACHE_DIR for the server (default: a fresh temporary folder)")
    ap.add_argument("--visitors", type=int, default=3, help="concurrent visitors, each touring every page")
    ap.add_argument(
        "--idle-s",
        type=float,
        default=release_after_s() + 20,
        help="seconds idle after each tour before the figure is read (default: N2O_RELEASE_AFTER_S + 20)",
    )
    ap.add_argument(
        "--shared",
        action="store_true",
        help="run the server as a shared server (N2O_SHARED=1: heavy jobs in child processes, runtime.child)",
    )
    ap.add_argument("--label", default="", help="what code this measures (e.g. a commit), recorded")
    ap.add_argument("--out", default="memory", help="result name under benchmarks/results/")
    return ap.parse_args()


def main() -> None:
    args = parse_args()
    from playwright.sync_api import sync_playwright

    tmp, cache_dir, cold, env = server_folder("n2o-memory-", args.cache_dir)
    if args.shared:
        env["N2O_SHARED"] = "1"
    try:
        server = start_server(env, tmp / "server.log", timeout=120)
    except ServerError as e:
        raise SystemExit(str(e)) from None
    rows: list[dict] = []
    out: dict = {
        "label": args.label,
        "mode": "shared server (N2O_SHARED=1)" if args.shared else "personal server (the default)",
        "idle_s_before_reading": args.idle_s,
        "cache": "cold (a fresh folder)" if cold else f"existing {cache_dir}",
        "budget_mb": MEMORY_BUDGET_MB,
        "per_session_mb": MEMORY_PER_SESSION_MB,
        "loadavg_start": LOAD_AT_IMPORT,
        "rss_mb_started": round(resident_mb(server.pid)),
    }
    t0 = time.perf_counter()
    peak = PeakSampler(server.pid)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            contexts = []
            for v in range(1, args.visitors + 1):
                contexts.append(browser.new_context())
                tour(contexts[-1], server.url, server.pid, rows, v)
                wait_quiet(server.pid, window=5)
                out[f"peak_rss_mb_during_visitor_{v}"] = peak.take()
                out[f"rss_mb_right_after_visitor_{v}"] = round(resident_mb(server.pid))
                time.sleep(args.idle_s)  # what the server gives back when unused (ui/release.py)
                out[f"rss_mb_after_visitor_{v}"] = round(resident_mb(server.pid))
                out[f"anon_mb_after_visitor_{v}"] = round(anon_mb(server.pid))
                print(f"after visitor {v}: {out[f'rss_mb_after_visitor_{v}']} MB", flush=True)
            for c in contexts:
                c.close()
            browser.close()
        time.sleep(5)
        out["rss_mb_after_sessions_closed"] = round(resident_mb(server.pid))
    finally:
        server.stop(timeout=20)
    first = out["rss_mb_after_visitor_1"]
    out["per_extra_visitor_mb"] = [
        out[f"rss_mb_after_visitor_{v}"] - out[f"rss_mb_after_visitor_{v - 1}"] for v in range(2, args.visitors + 1)
    ]
    out["within_budget"] = all(
        out[f"rss_mb_after_visitor_{v}"] <= memory_budget_mb(v) for v in range(1, args.visitors + 1)
    ) and all(d <= MEMORY_PER_SESSION_MB for d in out["per_extra_visitor_mb"])
    out["summary"] = (
        f"{first} MB after one tour (budget {MEMORY_BUDGET_MB}); "
        + ", ".join(f"+{d} MB" for d in out["per_extra_visitor_mb"])
        + f" per further visitor (budget +{MEMORY_PER_SESSION_MB})"
    )
    out["tour_s"] = round(time.perf_counter() - t0)
    out["pages"] = rows
    out["root"] = str(ROOT)
    save_flat(args.out, out)


if __name__ == "__main__":
    main()
