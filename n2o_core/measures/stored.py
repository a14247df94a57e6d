"""Measure comparisons kept in the disk cache, with when each was computed and how long it took, so that the
Measures page opens on the last result for the same settings (computed by an earlier visit, another server
process or `python -m n2o_core warm --measures`), and a button can say how long a run takes on this machine.

    got = compare_and_store(ws, Setup(("tfidf", "minilm-l6-mean"), k=10))   # computes and keeps it
    got = load(ws, Setup(("minilm-l6-mean", "tfidf"), k=10))                # the same, read back (None if absent)
    got.result, got.computed_at, got.seconds

A result is keyed by the corpus, each embedder's cache key (so new vectors never meet an old result), k, the
measures, permutations, resamples, subsample, null subsample and seed (`Setup`); the embedders' order does not
matter (the values do not depend on it). The entry is a JSON document (NaN as null). `last_timing` is the last
run's duration and size, kept whatever its settings, from which `estimate_seconds` scales a new run's.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from n2o_core.measures.nulls import DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS
from n2o_core.measures.run import (
    DEFAULT_K,
    DEFAULT_SUBSAMPLE,
    NULL_SUBSAMPLE,
    MeasureComparison,
    check_measures,
    compare_measures,
)
from n2o_core.runtime.progress import Progress

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace

__all__ = ["BENCHMARK", "Setup", "Stored", "Timing", "compare_and_store", "estimate_seconds", "last_timing", "load"]

#: Bumped whenever a change alters what a stored comparison holds.
STORE_VERSION = "1"
_TIMING = "measures/last-timing.json"


@dataclass(frozen=True)
class Setup:
    """What a comparison depends on besides the corpus and the embedders' vectors (measures: all when empty)."""

    embedders: tuple[str, ...]
    k: int = DEFAULT_K
    measures: tuple[str, ...] = ()
    permutations: int = DEFAULT_PERMUTATIONS
    bootstrap: int = DEFAULT_BOOTSTRAP
    subsample: int = DEFAULT_SUBSAMPLE
    null_subsample: int = NULL_SUBSAMPLE
    seed: int = 0

    def draws(self) -> dict[str, int]:
        """`compare_measures`' keyword arguments for the draws and the rows they use."""
        return {
            "permutations_": self.permutations,
            "bootstrap": self.bootstrap,
            "subsample": self.subsample,
            "null_subsample": self.null_subsample,
            "seed": self.seed,
        }

    def chosen(self) -> list[str]:
        """The measure ids, in registry order (every measure when none is named)."""
        return check_measures(list(self.measures))


@dataclass(frozen=True)
class Stored:
    """A comparison, when it was computed (Unix time) and how many seconds it took."""

    result: MeasureComparison
    computed_at: float
    seconds: float


@dataclass(frozen=True)
class Timing:
    """How long one comparison took here, and its size: pairs of embedders, sentences, measures, draws."""

    seconds: float
    pairs: int
    sentences: int
    measures: int
    draws: int  # permutations + bootstrap resamples
    where: str = field(default="here")


#: The recorded benchmark (benchmarks/README.md, 'Similarity measures'): every measure, the six defaults (15
#: pairs), 5,000 sentences, 100 permutations and 100 resamples, 29.8 s on a quiet 2-core machine.
BENCHMARK = Timing(29.8, 15, 5000, 12, 200, where="on a quiet 2-core machine (benchmarks/README.md)")


def _key(ws: Workspace, setup: Setup) -> str:
    from n2o_core.storage.cache import hash_key

    embedders = sorted(setup.embedders)
    parts = [STORE_VERSION, ws.corpus.fingerprint, *embedders, *(ws.embedder_key(e) for e in embedders)]
    parts += [str(setup.k), ",".join(setup.chosen()), str(setup.permutations), str(setup.bootstrap)]
    parts += [str(setup.subsample), str(setup.null_subsample), str(setup.seed)]
    return f"measures/{ws.corpus.fingerprint}/comparison-{hash_key(*parts)}.json"


def _number(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _document(got: Stored) -> dict[str, Any]:
    res = got.result
    doc = {k: v for k, v in asdict(res).items() if k != "rows"}
    doc["rows"] = [{k: _number(float(v) if isinstance(v, float) else v) for k, v in r.items()} for r in res.rows]
    return {"comparison": doc, "computed_at": got.computed_at, "seconds": got.seconds}


def _from_document(doc: dict[str, Any]) -> Stored:
    c = dict(doc["comparison"])
    rows = [{k: (math.nan if v is None else v) for k, v in r.items()} for r in c.pop("rows")]
    return Stored(MeasureComparison(**c, rows=rows), float(doc["computed_at"]), float(doc["seconds"]))


def load(ws: Workspace, setup: Setup) -> Stored | None:
    """The stored comparison for this corpus and setup, or None (absent, or written by other code)."""
    doc = ws.cache.load_json(_key(ws, setup))
    if doc is None:
        return None
    try:
        return _from_document(doc)
    except (KeyError, TypeError, ValueError):
        return None


def last_timing(ws: Workspace) -> Timing | None:
    """The last comparison computed with this cache: its duration and size (None before the first)."""
    doc = ws.cache.load_json(_TIMING)
    try:
        return Timing(**doc) if doc is not None else None
    except TypeError:
        return None


def estimate_seconds(pairs: int, sentences: int, measures: int, draws: int, timing: Timing | None = None) -> float:
    """Seconds a comparison of this size should take, scaled from `timing` (default: `BENCHMARK`): in
    proportion to pairs, measures and (1 + draws), and to the sentences up to the kernel subsample's 5,000."""
    t = timing or BENCHMARK

    def size(p: int, n: int, m: int, d: int) -> float:
        return max(p, 1) * max(m, 1) * (1 + d) * min(max(n, 1), DEFAULT_SUBSAMPLE)

    return t.seconds * size(pairs, sentences, measures, draws) / size(t.pairs, t.sentences, t.measures, t.draws)


def compare_and_store(ws: Workspace, setup: Setup, progress: Progress | None = None) -> Stored:
    """`compare_measures` for this setup, kept in the cache with its time (and the cache's `last_timing`); the
    stored one when the cache holds it already."""
    got = load(ws, setup)
    if got is not None:
        return got
    t0 = time.perf_counter()
    res = compare_measures(ws, list(setup.embedders), setup.k, setup.chosen(), progress=progress, **setup.draws())
    got = Stored(res, time.time(), time.perf_counter() - t0)
    names = ", ".join(res.embedders)
    ws.cache.save_json(_key(ws, setup), _document(got), description=f"similarity measures of {names}")
    pairs = len(res.embedders) * (len(res.embedders) - 1) // 2
    timing = Timing(got.seconds, pairs, res.corpus_size, len(res.measures), res.permutations + res.bootstrap)
    ws.cache.save_json(_TIMING, asdict(timing), description="the last similarity-measures run's time")
    return got
