"""Warm page switches in Chromium with Streamlit's after-every-run garbage collection on (its default) and off
(this app's .streamlit/config.toml), in the same run, in two server states.

    python benchmarks/bench_page_switch.py --cache-dir cache     # a cache the default settings filled

States: `cache_only` -- everything on screen comes from the disk cache, no model is loaded in the server;
`models_loaded` -- a typed query (embedded on the fly by every embedder) first loads the models, as on a cold
cache or after any free-text query, so the server's heap holds torch, transformers and the MiniLM weights;
`pairs_made` -- the cached HEROS pairs are removed first, so the HEROS page makes them again in the server
(WordNet, spaCy), as on a cold cache or for a new corpus, pair count or seed. The script works on a copy of
the cache and never writes to the one given.
For each (state, setting), in alternating rounds: start `streamlit run app.py` on the warm cache, open it,
(load the models,) visit every page once (first visits may compute), then cycle through all five pages
`--cycles` times, timing each switch from the click until the new page's heading is on screen and the script
run is over. The baseline is the same app with Streamlit's default `runner.postScriptGC = true`.
Writes benchmarks/results/bench_page_switch.json (and .txt).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import browser_tour as bt  # noqa: E402
from _common import save_flat  # noqa: E402

from tools.dashboard_server import free_port  # noqa: E402

SETTINGS = {"gc_after_every_run (Streamlit default)": "true", "no_gc_after_run (this app)": "false"}
STATES = ("cache_only", "models_loaded", "pairs_made")
TYPED = "The central bank raised interest rates again to fight inflation."


def server_rss_mib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) // 1024 for line in f if line.startswith("VmRSS"))


def one_round(pw, env: dict[str, str], gc: str, state: str, cycles: int, log: Path) -> dict[str, list[float]]:
    if state == "pairs_made":
        for p in (Path(env["N2O_CACHE_DIR"]) / "heros").glob("pairs-*"):
            p.unlink()
    server = bt.start(env, free_port(), log, extra=("--runner.postScriptGC", gc))
    try:
        browser = pw.chromium.launch(
            executable_path=bt.CHROMIUM, args=["--no-sandbox", "--disable-background-networking"]
        )
        page = browser.new_page(viewport={"width": 1440, "height": 1500})
        page.goto(server.url)
        page.wait_for_selector(bt.HEATMAP, timeout=900_000)
        bt.settle(page)
        if state == "models_loaded":
            page.goto(f"{server.url}/query?text={TYPED.replace(' ', '+')}")
            page.wait_for_selector("table.nb", timeout=900_000)
            bt.settle(page)
        nav = page.locator("[data-testid='stSidebarNav']")
        out: dict[str, list[float]] = {name: [] for *_, name, _ in bt.PAGES}
        for r in range(cycles + 1):
            for label, heading, name, sel in bt.PAGES[1:] + bt.PAGES[:1]:
                ms = bt.timed(
                    page,
                    lambda label=label: nav.locator("a", has_text=label).click(),
                    f"h2:has-text('{heading}') >> nth=0",
                )
                page.wait_for_selector(sel, timeout=900_000)
                bt.settle(page)
                bt.check(page)
                if r:  # the first cycle warms the pages
                    out[name].append(round(ms))
        out["_rss_mib"] = [server_rss_mib(server.pid)]
        browser.close()
        return out
    finally:
        server.stop(timeout=20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", required=True, help="a cache filled by the app's default settings")
    ap.add_argument("--rounds", type=int, default=2, help="server starts per setting (alternating)")
    ap.add_argument("--cycles", type=int, default=3, help="timed cycles through the five pages per start")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="n2o-switch-"))
    shutil.copytree(Path(args.cache_dir).resolve(), tmp / "cache", ignore=shutil.ignore_patterns("locks"))
    env = dict(os.environ, N2O_CACHE_DIR=str(tmp / "cache"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    res: dict[str, dict[str, list[float]]] = {f"{st} / {s}": {} for st in STATES for s in SETTINGS}
    out: dict = {"cpus": os.cpu_count(), "loadavg_start": [round(x, 2) for x in os.getloadavg()]}
    t0 = time.perf_counter()
    with sync_playwright() as pw:
        for r in range(args.rounds):
            for state in STATES:
                for setting, gc in SETTINGS.items():
                    label = f"{state} / {setting}"
                    got = one_round(pw, env, gc, state, args.cycles, tmp / f"server-{r}-{state}-{gc}.log")
                    for name, v in got.items():
                        res[label].setdefault(name, []).extend(v)
                    times = [x for name, v in got.items() if not name.startswith("_") for x in v]
                    print(
                        f"round {r + 1}, {label}: median {statistics.median(times):.0f} ms, "
                        f"server RSS {got['_rss_mib'][0]} MiB",
                        flush=True,
                    )
    summary = {}
    for label, per in res.items():
        allv = [x for name, v in per.items() if not name.startswith("_") for x in v]
        summary[label] = {
            "median_ms": statistics.median(allv),
            "max_ms": max(allv),
            "n": len(allv),
            "server_rss_mib": per["_rss_mib"],
            "per_page_median_ms": {k: statistics.median(v) for k, v in per.items() if not k.startswith("_")},
        }
    ratios = {}
    for state in STATES:
        base, ours = (summary[f"{state} / {s}"]["median_ms"] for s in SETTINGS)
        ratios[state] = round(ours / base, 3)
    out.update(
        page_switch_ms=res,
        summary=summary,
        ratio_median_no_gc_over_gc=ratios,
        wall_s=round(time.perf_counter() - t0),
        loadavg_end=[round(x, 2) for x in os.getloadavg()],
    )
    save_flat("bench_page_switch", out, omit_from_txt=("page_switch_ms",))


if __name__ == "__main__":
    main()
