"""Variants results kept in the disk cache, one part at a time (layers, compression, index), with when each was
computed and how long it took, so that the Variants page opens on the last result for the same settings (computed
by an earlier visit, another server process or `python -m n2o_core warm --variants`), and its buttons can say how
long a part takes on this machine.

    got = compute_and_store(ws, Setup("minilm-l6-mean", other="glove-6b-50d"), "layers")   # computes and keeps it
    got = load(ws, Setup("minilm-l6-mean", other="glove-6b-50d"), "layers")               # read back (or None)
    got.result, got.computed_at, got.seconds
    combined(setup, ws, {"layers": got, ...}).to_json()   # the CLI's --json document for the parts at hand

A part is keyed by the corpus, the embedder's cache key (and the other's, for the layers), k, the query samples
and seed, and the part's own defaults (the compression sizes and pairs), so new vectors never meet an old
result. Each part is `run_variants` with the other parts switched off: the same numbers as the CLI and the API.
`last_timing` keeps each part's last duration and corpus size, from which `estimate_seconds` scales a new run's.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from n2o_core.errors import N2OError
from n2o_core.evaluation.variants.run import VariantsResult, run_variants
from n2o_core.runtime.progress import Progress

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace

__all__ = ["BASIS", "PARTS", "Setup", "Stored", "Timing", "combined", "compute_and_store", "estimate_seconds"]

#: Bumped whenever a change alters what a stored part holds.
STORE_VERSION = "1"
#: The parts of the analysis, in the page's order (each stored on its own).
PARTS: tuple[str, ...] = ("layers", "compression", "index")
_TIMING = "variants/last-timing.json"


@dataclass(frozen=True)
class Setup:
    """What a Variants run depends on besides the corpus and the vectors (the CLI's defaults otherwise)."""

    embedder: str
    other: str | None = None
    k: int = 10
    n_queries: int = 100
    n_samples: int = 5
    seed: int = 0
    needle_pairs: str | None = "builtin:lee"
    sts_pairs: str | None = "builtin:lee"


@dataclass(frozen=True)
class Stored:
    """One part's result (a VariantsResult with that part alone), when it was computed (Unix time) and how many
    seconds it took."""

    part: str
    result: VariantsResult
    computed_at: float
    seconds: float


@dataclass(frozen=True)
class Timing:
    """How long one part took, and on how many sentences."""

    seconds: float
    sentences: int
    where: str = "here"


#: What a part takes before any run here (the first estimate): measured once by the page on this project's
#: 2-core machine while other work ran beside it, on 5,000 BBC sentences with every vector already cached
#: (minilm-l6-mean: its 7 layers against glove-6b-50d; its compression curve with the needle and STS on
#: builtin:lee; its index sweep); a part whose vectors are not cached yet also embeds the corpus first.
_WHERE = "measured once on a busy 2-core machine, vectors cached"
BASIS: dict[str, Timing] = {
    "layers": Timing(11.9, 5000, _WHERE),
    "compression": Timing(12.6, 5000, _WHERE),
    "index": Timing(52.7, 5000, _WHERE),
}


def _check(part: str) -> None:
    if part not in PARTS:
        raise N2OError(f"Unknown part '{part}' of the Variants analysis; one of {', '.join(PARTS)}.")


def _key(ws: Workspace, setup: Setup, part: str) -> str:
    from n2o_core.storage.cache import hash_key

    parts = [STORE_VERSION, part, ws.corpus.fingerprint, setup.embedder, ws.embedder_key(setup.embedder)]
    if part == "layers" and setup.other is not None:
        parts += [setup.other, ws.embedder_key(setup.other)]
    parts += [str(setup.k), str(setup.n_queries), str(setup.n_samples), str(setup.seed)]
    if part == "compression":
        parts += [str(setup.needle_pairs), str(setup.sts_pairs)]
    return f"variants/{ws.corpus.fingerprint}/{part}-{hash_key(*parts)}.json"


def load(ws: Workspace, setup: Setup, part: str) -> Stored | None:
    """The stored part for this corpus and setup, or None (absent, or written by other code)."""
    _check(part)
    doc = ws.cache.load_json(_key(ws, setup, part))
    if doc is None:
        return None
    try:
        return Stored(part, VariantsResult.from_json(doc["result"]), float(doc["computed_at"]), float(doc["seconds"]))
    except (KeyError, TypeError, ValueError):
        return None


def last_timing(ws: Workspace, part: str) -> Timing | None:
    """The last run of `part` with this cache: its duration and corpus size (None before the first)."""
    doc = ws.cache.load_json(_TIMING) or {}
    try:
        return Timing(**doc[part]) if part in doc else None
    except TypeError:
        return None


def estimate_seconds(part: str, sentences: int, timing: Timing | None = None) -> float:
    """Seconds `part` should take on `sentences` sentences, scaled in proportion from `timing` (default: BASIS)."""
    _check(part)
    t = timing or BASIS[part]
    return t.seconds * max(sentences, 1) / max(t.sentences, 1)


def compute_and_store(ws: Workspace, setup: Setup, part: str, progress: Progress | None = None) -> Stored:
    """`run_variants` for this setup with `part` alone, kept in the cache with its time (and the cache's
    `last_timing`); the stored one when the cache holds it already. A part that cannot be computed is stored
    too, with its sentence in `result.errors` (asking again gives the same sentence)."""
    got = load(ws, setup, part)
    if got is not None:
        return got
    t0 = time.perf_counter()
    res = run_variants(
        ws,
        setup.embedder,
        other=setup.other if part == "layers" else None,
        k=setup.k,
        layers=part == "layers",
        compression=part == "compression",
        index=part == "index",
        needle_pairs=setup.needle_pairs,
        sts_pairs=setup.sts_pairs,
        n_queries=setup.n_queries,
        n_samples=setup.n_samples,
        seed=setup.seed,
        progress=progress,
    )
    got = Stored(part, res, time.time(), time.perf_counter() - t0)
    doc = {"result": res.to_json(), "computed_at": got.computed_at, "seconds": got.seconds}
    ws.cache.save_json(_key(ws, setup, part), doc, description=f"variants of {setup.embedder}: {part}")
    timings = ws.cache.load_json(_TIMING) or {}
    if not res.errors:
        timings[part] = asdict(Timing(got.seconds, res.corpus_size))
        ws.cache.save_json(_TIMING, timings, description="the last Variants run's time per part")
    return got


def combined(ws: Workspace, setup: Setup, parts: dict[str, Stored]) -> VariantsResult:
    """One VariantsResult from the stored parts at hand (the others None): with every part, the document the CLI
    writes with --json for the same settings."""
    out = VariantsResult(ws.corpus.name, len(ws.corpus), setup.embedder, setup.other, setup.k)
    for part, got in parts.items():
        r = got.result
        if part == "layers":
            out.layers, out.between = r.layers, r.between
        elif part == "compression":
            out.compression = r.compression
        elif part == "index":
            out.index = r.index
        out.errors.update(r.errors)
    return out


def part_of(res: VariantsResult, part: str) -> Any:
    """The part's own result in `res` (LayerComparison, Compression or IndexSweep), or None."""
    _check(part)
    return {"layers": res.layers, "compression": res.compression, "index": res.index}[part]


def default_choice(ws: Workspace, ids: list[str]) -> tuple[str, str | None]:
    """The page's first (embedder, other) among `ids`: the first embedder with hidden layers (else the first with
    dense vectors, else the first), and the first other one with dense vectors (else any other; None alone)."""
    from n2o_core.evaluation.variants.layers import layers_refusal

    if not ids:
        raise N2OError("Choose at least one embedder.")
    dense = [e for e in ids if ws.info(e).dim is not None]
    embedder = next((e for e in ids if layers_refusal(ws, e) is None), dense[0] if dense else ids[0])
    others = [e for e in ids if e != embedder]
    other = next((e for e in others if e in dense), others[0] if others else None)
    return embedder, other
