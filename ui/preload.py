"""Background preloading for the dashboard: after a page has been drawn, load in a low-priority thread what the
next clicks will need (`n2o_core.preload`): the chosen embedders' models, the neighbors of every sentence (a new
query sample is then a slice), WordNet and spaCy, umap-learn's code, and pynndescent's where approximate search is
chosen (or the default: over `pipeline.APPROX_ABOVE` sentences). What then sits unused is given back (ui/release.py).
Once per server process and corpus; it never delays the page that started it and never shows an error (the page
that needs a failed step reports it in place). N2O_PRELOAD=0 turns it off (the tests do, to keep their timing).
When the dashboard isolates its jobs (`runtime.child`; a shared server) only what lands in the disk cache is
prepared, in a child process: the neighbor search and the HEROS page's default minimal pairs; models, lexicons and
compiled code would only sit in the server's memory (each isolated job loads its own)."""

from __future__ import annotations

import logging
import os
import threading

import streamlit as st

from n2o_core import pipeline
from n2o_core.corpora import Corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.limits import k_max_for
from n2o_core.preload import lower_this_threads_priority, preload
from n2o_core.runtime import child
from n2o_core.runtime.memo import LRU
from n2o_core.settings import HEROS_DEFAULT_PAIRS, Settings

from . import n2o_runs

log = logging.getLogger("n2o")


#: Preloads remembered as started (corpus and embedder choices); a forgotten one may run again, reading its caches.
MAX_PRELOADS = 256


@st.cache_resource(show_spinner=False)
def _started() -> LRU[str, threading.Thread]:
    return LRU(MAX_PRELOADS)


def start(settings: Settings, corpus: Corpus | None) -> None:
    """Start the background preload for this corpus and embedder choice (no-op when one ran or runs already)."""
    if corpus is None or not settings.embedders or os.environ.get("N2O_PRELOAD", "1") == "0":
        return
    key = f"{corpus.fingerprint}|{','.join(settings.embedders)}|{settings.scheduler}|{settings.znorm}"
    started = _started()
    if key in started:
        return
    ws = n2o_runs.workspace(corpus.fingerprint, corpus, settings.scheduler)
    ids = list(settings.embedders)

    isolated = child.isolating()

    def run() -> None:
        lower_this_threads_priority()  # a child process started from this thread inherits the lower priority
        try:
            done = _preload(
                ws,
                ids,
                isolated,
                approx=os.environ.get("N2O_WARM_APPROX", "1") != "0"
                and (settings.approx or pipeline.default_approx(len(corpus))),
                every_sentence=None
                if settings.approx or settings.scheduler
                else (k_max_for(len(corpus)), settings.znorm),
                seed=settings.seed,
            )
        except Exception:  # noqa: BLE001 - preloading is an optimization: the page that needs a step reports it
            log.exception("preloading stopped")
            return
        log.info("preloading done in %.1f s", sum(done.values()))

    t = threading.Thread(target=run, name="n2o-preload", daemon=True)
    started[key] = t
    t.start()


def _log_step(name: str, seconds: float, error: str | None) -> None:
    log.info("preloaded %s in %.1f s%s", name, seconds, f" ({error})" if error else "")


def _preload(
    ws: Workspace, ids: list[str], isolated: bool, approx: bool, every_sentence: tuple[int, bool] | None, seed: int
) -> dict[str, float]:
    """`preload`; isolating (a shared server), only what lands in the disk cache (every sentence's neighbors, the
    HEROS page's default pairs), computed in a child process: models, WordNet, spaCy and compiled code would stay
    in this process's memory, and each isolated job loads its own. pynndescent's compile (~300 MB resident,
    benchmarks/results/memory.txt) only where approximate search is chosen or the default: a search that needs it
    later compiles it then."""
    return child.call(
        preload,
        ws,
        ids,
        models=not isolated,
        heros=not isolated,
        maps=not isolated,
        approx=approx and not isolated,
        every_sentence=every_sentence,
        heros_pairs=(HEROS_DEFAULT_PAIRS, seed) if isolated else None,
        callbacks={"on_step": _log_step},
        isolate=isolated,
    )
