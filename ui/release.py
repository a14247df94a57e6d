"""Give memory back while the server idles: a background thread, once per server process, drops what the core
registered as reloadable (WordNet, the spaCy pipelines, models and their ONNX/OpenVINO sessions;
`n2o_core.runtime.release`) once it has been unused for $N2O_RELEASE_AFTER_S seconds (default 60; 0: never), and
trims the heap. A visitor who needs one again (a free-text query, new HEROS pairs) waits for it to load again.
Measured: benchmarks/results/memory.txt."""

from __future__ import annotations

import logging
import threading

import streamlit as st

import n2o_core.runtime.release as release

log = logging.getLogger("n2o")


def _sweep(after_s: float, every_s: float, stop: threading.Event) -> None:
    while not stop.wait(every_s):
        try:
            dropped = release.release_idle(after_s)
        except Exception:  # noqa: BLE001 - giving memory back must never stop the server
            log.exception("releasing idle memory failed")
            continue
        if dropped:
            log.info("released after %.0f s unused: %s", after_s, ", ".join(dropped))


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
