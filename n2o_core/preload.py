"""What the next click will need, loaded ahead of it: the models behind the chosen embedders (a free-text query
embeds with them), WordNet and the spaCy parser (the HEROS page makes minimal pairs with them), umap-learn's
compiled code (the agreement page's maps) and pynndescent's (approximate search): numba compiles each for tens of
seconds per process, which a request must not wait for. Each step is cached where it lives (the workspace's
embedders, the lexicon's lru_cache, numba's cache), so a step done here is free later and a step done later makes
this one free.

`preload(ws, embedder_ids)` runs the steps in order and reports each one's seconds; the dashboard runs it in a
low-priority background thread once per server process after the first page is drawn (`ui/preload.py`), the
`warm` command runs it in the foreground."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .workspace import Workspace

#: Called as on_step(step name, seconds it took, error sentence or None).
StepReport = Callable[[str, float, "str | None"], None]


def lower_this_threads_priority(niceness: int = 10) -> None:
    """Give the calling thread a lower CPU priority (Linux: per-thread niceness), so preloading never slows the
    page a user is waiting for. A no-op where the platform does not allow it."""
    with contextlib.suppress(AttributeError, OSError):
        import threading

        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)


def _steps(
    ws: Workspace, embedder_ids: Sequence[str], heros: bool, maps: bool, approx: bool
) -> list[tuple[str, Callable]]:
    steps: list[tuple[str, Callable]] = [(f"model {eid}", lambda e=eid: ws.embedder(e)) for eid in embedder_ids]
    if heros:

        def lexicon() -> None:
            from .heros.lexicon import wordnet
            from .heros.nlp import load_nlp

            wordnet()
            load_nlp()

        steps.append(("WordNet and spaCy", lexicon))
    if maps:

        def umap() -> None:
            from .projection import warm_up_umap

            warm_up_umap()

        steps.append(("umap-learn", umap))
    if approx:

        def pynndescent() -> None:
            from .neighbors import warm_approx

            warm_approx(block=False).join()  # compiled at the lowest priority; later searches find it done

        steps.append(("pynndescent", pynndescent))
    return steps


def preload(
    ws: Workspace,
    embedder_ids: Sequence[str],
    *,
    heros: bool = True,
    maps: bool = True,
    approx: bool = True,
    on_step: StepReport | None = None,
) -> dict[str, float]:
    """Load each step once (see the module docstring); a step that fails is reported and skipped: preloading is
    an optimization and never the reason something breaks. Returns {step: seconds}."""
    done: dict[str, float] = {}
    for name, step in _steps(ws, embedder_ids, heros, maps, approx):
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
