"""Give memory back while the server idles: a background thread, once per server process, drops what the core
registered as reloadable (WordNet, the spaCy pipelines, models and their ONNX/OpenVINO sessions;
`n2o_core.runtime.release`) once it has been unused for $N2O_RELEASE_AFTER_S seconds (default 60; 0: never), and
trims the heap; at most that often it also runs a full garbage collection (the app turns off Streamlit's
collection after every run, so big arrays caught in reference cycles would otherwise wait for Python's own). A
visitor who needs a dropped one again (a free-text query, new HEROS pairs) waits for it to load again.
Measured: benchmarks/results/memory.txt."""

from __future__ import annotations

import logging
import threading
import time

import streamlit as st

import n2o_core.runtime.release as release

log = logging.getLogger("n2o")


def _sweep(after_s: float, every_s: float, stop: threading.Event) -> None:
    collected = time.monotonic()
    while not stop.wait(every_s):
        try:
            dropped = release.release_idle(after_s)  # collects when it dropped something
            if dropped:
                log.info("released after %.0f s unused: %s", after_s, ", ".join(dropped))
            elif time.monotonic() - collected >= after_s:
                release.collect()  # once a while at most: a full collection holds the GIL for up to a second
            else:
                continue
            collected = time.monotonic()
        except Exception:  # noqa: BLE001 - giving memory back must never stop the server
            log.exception("releasing idle memory failed")


@st.cache_resource(show_spinner=False)
def start() -> threading.Event | None:
    """Start the sweeping thread (once per process); returns the event that stops it, None when it is off."""
    after_s = release.release_after_s()
    if after_s <= 0:
        return None
    stop = threading.Event()
    every_s = max(1.0, min(15.0, after_s / 4))
    threading.Thread(target=_sweep, args=(after_s, every_s, stop), name="n2o-release", daemon=True).start()
    return stop
