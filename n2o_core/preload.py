"""What the next click will need, loaded ahead of it: the models behind the chosen embedders (a free-text query
embeds with them), WordNet and the spaCy parser (the HEROS page makes minimal pairs with them), umap-learn's
compiled code (the agreement page's maps) and pynndescent's (approximate search): numba compiles each for tens of
seconds per process, which a request must not wait for. Each step is cached where it lives (the workspace's
embedders, the lexicon's lru_cache, numba's cache), so a step done here is free later and a step done later makes
this one free.

A model counts as loaded when a sentence can be embedded without waiting (`pipeline.load_model`): the embedder is loaded
and fitted in the workspace, and one short sentence has gone through it, which opens what a model only opens on first
use (the MiniLM ONNX export, built once per machine when missing, and its OpenVINO session; e5's graph; model2vec's
distilled model, distilled once per machine when missing). model2vec is distilled only when it is one of the chosen
embedders: distilling it speculatively would hold both cores for a long while. On a corpus of up to
`pipeline.EVERY_SENTENCE_MAX` sentences the chosen embedders' neighbors of every sentence are searched too (cheap at
that size), so a new query sample is a slice (measured: benchmarks/README.md, 'Measurements behind the code's choices').

`preload(ws, embedder_ids)` runs the steps in order (every sentence's neighbors, models, WordNet and spaCy, umap,
pynndescent) and reports each one's seconds; the dashboard runs it in a low-priority background thread once per
server process after the first page is drawn (`ui/preload.py`).
`pipeline.Preparation` uses `pipeline.load_model` to load models ahead while others are prepared."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from n2o_core.pipeline import load_model

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace

#: Called as on_step(step name, seconds it took, error sentence or None).
StepReport = Callable[[str, float, "str | None"], None]


def lower_this_threads_priority(niceness: int = 10) -> None:
    """Give the calling thread a lower CPU priority (Linux: per-thread niceness), so preloading never slows the
    page a user is waiting for. A no-op where the platform does not allow it."""
    with contextlib.suppress(AttributeError, OSError):
        import threading

        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)


def _steps(
    ws: Workspace,
    embedder_ids: Sequence[str],
    models: bool,
    heros: bool,
    maps: bool,
    approx: bool,
    every_sentence: tuple[int, bool] | None,
    heros_pairs: tuple[int, int] | None = None,
) -> list[tuple[str, Callable]]:
    steps: list[tuple[str, Callable]] = []
    if every_sentence is not None:  # first: a new query sample is a sidebar click away (models are not needed)
        from n2o_core.pipeline import search_every_sentence

        k_max, znorm = every_sentence
        steps += [
            (f"neighbors of every sentence, {eid}", lambda e=eid: search_every_sentence(ws, e, k_max, znorm=znorm))
            for eid in embedder_ids
        ]
    if models:
        steps += [(f"model {eid}", lambda e=eid: load_model(ws, e)) for eid in embedder_ids]
    if heros:

        def lexicon() -> None:
            from n2o_core.evaluation.heros.lexicon import wordnet
            from n2o_core.evaluation.heros.nlp import load_nlp

            wordnet()
            load_nlp()

        steps.append(("WordNet and spaCy", lexicon))
    if heros_pairs is not None:
        from n2o_core.evaluation.heros.run import make_pairs

        n_per, seed = heros_pairs
        steps.append((f"HEROS pairs ({n_per} per subset)", lambda: make_pairs(ws, n_per, seed)))
    if maps:

        def umap() -> None:
            from n2o_core.analyses.projection import warm_up_umap

            warm_up_umap()

        steps.append(("umap-learn", umap))
    if approx:

        def pynndescent() -> None:
            from n2o_core.search.approx import warm_approx

            warm_approx(block=False).join()  # compiled at the lowest priority; later searches find it done

        steps.append(("pynndescent", pynndescent))
    return steps


def preload(
    ws: Workspace,
    embedder_ids: Sequence[str],
    *,
    models: bool = True,
    heros: bool = True,
    maps: bool = True,
    approx: bool = True,
    every_sentence: tuple[int, bool] | None = None,
    heros_pairs: tuple[int, int] | None = None,
    on_step: StepReport | None = None,
) -> dict[str, float]:
    """Load each step once (see the module docstring); a step that fails is reported and skipped: preloading is
    an optimization and never the reason something breaks. `every_sentence` (k_max, znorm): also search the
    neighbors of every corpus sentence (`pipeline.search_every_sentence`), so that a new query sample only slices
    them. `heros_pairs` (pairs per subset, seed): also make the HEROS page's minimal pairs, into the disk cache.
    `models`, `heros`, `maps`, `approx` False: skip those steps. Returns {step: seconds}."""
    done: dict[str, float] = {}
    for name, step in _steps(ws, embedder_ids, models, heros, maps, approx, every_sentence, heros_pairs):
        t0 = time.perf_counter()
        error = None
        try:
            step()
        except Exception as e:  # noqa: BLE001 - the page that needs it reports the failure in place
            error = f"{type(e).__name__}: {e}"
        done[name] = time.perf_counter() - t0
        if on_step is not None:
            on_step(name, done[name], error)
    return done
