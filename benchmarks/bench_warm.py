"""`warm` ahead of a talk: fill an empty cache with `python -m n2o_core warm`, then start a fresh server on it and
time its first heatmap in Chromium, checking that the server embedded and searched nothing (no new embeddings/
or knn/ entry in the cache's manifest).

    python benchmarks/bench_warm.py                                   # the app's default view (minutes cold)
    python benchmarks/bench_warm.py --max-sentences 1000 --embedder tfidf --embedder glove-6b-50d
    python benchmarks/bench_warm.py --max-sentences 2000 --talk-screenshot docs/screenshots/talk-mode.png

Prints its numbers; the recorded run is `python benchmarks/bench_warm.py | tee benchmarks/results/bench_warm.txt`.
The options are handed to `warm` and, as N2O_DEFAULT_*, to the server, so both prepare the same view; --cache-dir
reuses a cache (default: a fresh temporary one).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT  # noqa: E402
from browser_tour import CHROMIUM, HEATMAP, IDLE, start  # noqa: E402

from tools.dashboard_server import free_port  # noqa: E402

GROWING = ("embeddings/", "knn/")


def entries(cache: Path) -> dict[str, int]:
    try:
        doc = json.loads((cache / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}
    return {rel: int(e.get("bytes") or 0) for rel, e in (doc.get("entries") or {}).items()}


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=None, help="default: the app's")
    ap.add_argument("--max-sentences", type=int, default=None, help="default: the app's")
    ap.add_argument("--embedder", action="append", default=[], help="repeatable; default: the app's")
    ap.add_argument("--cache-dir", default=None, help="default: a fresh temporary folder")
    ap.add_argument("--talk-screenshot", default=None, metavar="PNG", help="then open ?talk=1 at 1920x1080, save it")
    ap.add_argument("--talk-params", default="", help="more of the talk link, e.g. 'view=box&k=20'")
    return ap.parse_args()


def warm(env: dict[str, str]) -> None:
    """`python -m n2o_core warm` with `env`; exits when it fails."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "n2o_core", "warm"], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    warm_s = time.perf_counter() - t0
    print(done.stdout.strip())
    if done.returncode != 0:
        raise SystemExit(f"warm failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    print(f"warm: {warm_s:.1f} s wall", flush=True)


def talk_screenshot(browser, url: str, path: str, params: str) -> None:
    """The prepared talk link on the same server (no controls, larger text), drawn and saved to `path`."""
    talk = browser.new_page(viewport={"width": 1920, "height": 1080})
    t2 = time.perf_counter()
    talk.goto(f"{url}/?talk=1" + (f"&{params}" if params else ""))
    talk.wait_for_selector("[data-testid='stPlotlyChart'] .js-plotly-plot", timeout=600_000)
    talk.wait_for_selector(IDLE, state="attached", timeout=600_000)
    talk.wait_for_timeout(800)  # plotly transitions
    talk.screenshot(path=path)
    print(f"talk link drawn in {time.perf_counter() - t2:.1f} s; screenshot {path}")


def first_heatmap(url: str, args: argparse.Namespace) -> tuple[float, int, list[str]]:
    """Seconds until the first heatmap is drawn in Chromium, the exception elements and the error messages."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1440, "height": 1200})
        t1 = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(HEATMAP, timeout=1_800_000)
        page.wait_for_selector(IDLE, state="attached", timeout=1_800_000)
        first_s = time.perf_counter() - t1
        exc = page.locator("[data-testid='stException']").count()
        errors = [e.inner_text()[:200] for e in page.locator("[data-testid='stAlertContentError']").all()]
        if args.talk_screenshot:
            talk_screenshot(browser, url, args.talk_screenshot, args.talk_params)
        browser.close()
    return first_s, exc, errors


def main() -> None:
    args = parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="n2o-warm-"))
    cache = Path(args.cache_dir).resolve() if args.cache_dir else tmp / "cache"
    env = dict(os.environ, N2O_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    if args.corpus:
        env["N2O_DEFAULT_CORPUS"] = args.corpus
    if args.max_sentences:
        env["N2O_MAX_SENTENCES"] = str(args.max_sentences)
    if args.embedder:
        env["N2O_DEFAULT_EMBEDDERS"] = ",".join(args.embedder)
    print(f"load {[round(x, 2) for x in os.getloadavg()]}, {os.cpu_count()} cpus, cache {cache}", flush=True)
    warm(env)
    before = entries(cache)
    t_server = time.perf_counter()
    server = start(env, free_port(), tmp / "server.log")
    server_s = time.perf_counter() - t_server
    try:
        first_s, exc, errors = first_heatmap(server.url, args)
    finally:
        server.stop(timeout=20)
    after = entries(cache)
    grown = sorted(rel for rel in after if rel not in before and rel.startswith(GROWING))
    print(f"server start {server_s:.1f} s; first heatmap in Chromium {first_s:.1f} s after the page was opened")
    print(f"exception elements {exc}; error messages {errors or 'none'}")
    print(
        "the fresh server embedded and searched nothing (no new embeddings/ or knn/ entry)"
        if not grown
        else f"the fresh server still computed {len(grown)} entr(y/ies): {grown[:6]}"
    )
    print(f"load {[round(x, 2) for x in os.getloadavg()]}")
    if grown or exc or errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
