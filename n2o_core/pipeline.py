"""The pipeline both front ends run, one embedder at a time: embed the corpus (cached), then search the k_max
nearest neighbors of the query pool (cached). The CLI's `compare` loops over `prepare_embedder`; the dashboard
calls it embedder by embedder to draw partial results. One corpus sentence or a free-text query is searched the
same way.

    plan = plan_queries(len(ws.corpus), n_queries=100, n_samples=5, seed=0)
    prepared = prepare_all(ws, ["tfidf", "glove-6b-50d"], plan, k_max_for(len(ws.corpus)))
    comparison(prepared, k=10)     # analyses.compare: N2O at k for every sample (ComparisonResult)

Changing k (<= k_max) or the sample only slices the cached neighbor arrays; nothing is embedded or searched.
"""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from n2o_core.embedders.infos import NOSTOP_SUFFIX
from n2o_core.errors import N2OError
from n2o_core.limits import validate_k
from n2o_core.runtime.lanes import Lanes
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import Progress, report, scoped
from n2o_core.runtime.serial_calls import CallEvent
from n2o_core.search.result import Neighbors
from n2o_core.search.scan import search_threads
from n2o_core.storage.fileio import hash_key

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace

# --------------------------------------------------------------------------- query samples


@dataclass(frozen=True)
class QueryPlan:
    """Random query samples and their pool (sorted union); neighbors are searched once for the pool."""

    corpus_size: int
    samples: tuple[np.ndarray, ...]
    pool: np.ndarray
    #: what was asked (queries per sample, samples); None when the plan was built from samples directly
    asked: tuple[int, int] | None = None

    @property
    def every_sentence_once(self) -> bool:
        """Whether the queries asked covered the corpus, so that one sample of every sentence replaced the samples
        asked (`draw_query_samples`)."""
        return self.asked is not None and self.asked[0] >= self.corpus_size

    def sampling_note(self) -> str:
        """One sentence when the samples differ from those asked (queries >= N), else ''."""
        if not self.every_sentence_once or self.asked is None:
            return ""
        q, s = self.asked
        copies = (
            f" instead of {s} samples: {s} copies of it would only repeat the same numbers with a spread of 0"
            if s > 1
            else ""
        )
        return (
            f"{q:,} queries per sample cover all {self.corpus_size:,} sentences of the corpus: one sample of every "
            f"sentence is used{copies}."
        )

    @property
    def pool_key(self) -> str:
        """Hash of the pooled query ids (the neighbor arrays depend on the pool only)."""
        return hash_key(np.asarray(self.pool, np.int64).tobytes().hex())

    @property
    def key(self) -> str:
        """Hash of every sample (N2O values depend on how the pool is split into samples)."""
        return hash_key([np.asarray(s, np.int64).tobytes().hex() for s in self.samples])

    def rows(self, sample: int) -> np.ndarray:
        """Rows of the pool arrays that hold sample `sample`."""
        return np.searchsorted(self.pool, self.samples[sample])


def draw_query_samples(n_corpus: int, n_queries: int, n_samples: int, seed: int = 0) -> list[np.ndarray]:
    """`n_samples` independent samples of `n_queries` corpus ids, each without replacement (sorted).

    When `n_queries` >= `n_corpus` every sample would be the whole corpus: then one sample of every sentence is
    returned, never the same sample repeated (`QueryPlan.sampling_note` says so)."""
    if n_corpus < 2:
        raise N2OError(f"A corpus of {n_corpus} sentence(s) is too small: N2O needs at least 2.")
    if n_queries <= 0 or n_samples <= 0:
        raise N2OError("The number of queries and of samples must be positive.")
    if n_queries >= n_corpus:
        return [np.arange(n_corpus, dtype=np.int64)]
    rng = np.random.default_rng(seed)
    return [np.sort(rng.choice(n_corpus, size=n_queries, replace=False)) for _ in range(n_samples)]


def query_pool(samples: Sequence[np.ndarray]) -> np.ndarray:
    """Sorted union of all sampled query ids (neighbors are searched once for the pool)."""
    return np.unique(np.concatenate([np.asarray(s, np.int64) for s in samples]))


def plan_queries(n: int, n_queries: int = 100, n_samples: int = 5, seed: int = 0) -> QueryPlan:
    """`n_samples` random samples of `n_queries` corpus ids each (the paper: 5 x 100), seeded; one sample of
    every sentence when `n_queries` >= n (`draw_query_samples`)."""
    samples = draw_query_samples(n, n_queries, n_samples, seed)
    return QueryPlan(n, tuple(samples), query_pool(samples), (int(n_queries), int(n_samples)))


# --------------------------------------------------------------------------- the per-embedder step


def prepare_embedder(
    ws: Workspace,
    eid: str,
    pool: np.ndarray,
    k_max: int,
    *,
    znorm: bool = False,
    approx: bool = False,
    progress: Progress | None = None,
    searching: AbstractContextManager[Any] | None = None,
) -> Neighbors:
    """Embed the corpus with `eid` (cached) and search the k_max nearest neighbors of every pooled query (cached),
    reporting to `progress` the stages "train", "embed" and "neighbors" with the embedder id as the item.

    A corpus-trained embedder that still has to be fitted reports stage "train" first (sentences x epochs for
    word2vec / fastText). `searching`: held while the neighbors are searched (`Preparation` runs one search at a
    time: each uses every core). Raises N2OError (EmbedderError) with one sentence when the embedder cannot be
    used."""
    if progress is not None and not ws.is_cached(eid) and ws.info(eid).corpus_trained:
        ws.embedder(eid, progress=scoped(progress, stage="train", item=eid))
    ws.embeddings(eid, progress=scoped(progress, stage="embed", item=eid))
    with searching or contextlib.nullcontext():
        sliced = _rows_of_every_sentence(ws, eid, pool, k_max, znorm=znorm, approx=approx)
        if sliced is not None:
            report(progress, "neighbors", len(pool), len(pool), eid)
            return sliced
        return ws.neighbors(
            eid, pool, k_max, znorm=znorm, approx=approx, progress=scoped(progress, stage="neighbors", item=eid)
        )


#: Corpus size above which all-pairs search defaults to pynndescent (approximate). Exact all-pairs search costs
#: N^2 d, pynndescent (index build + N queries) about N. For transformer-sized vectors the two cross over a little
#: below this size, and for low-dimensional and sparse vectors exact search is clearly faster; up to this size
#: exact search costs little more than pynndescent would, is computed once per corpus and embedder (cached), and
#: gives exactly the neighbors `compare` uses
#: (measured: benchmarks/README.md, 'Measurements behind the code's choices').
APPROX_ABOVE = 50_000


def default_approx(n: int) -> bool:
    """Whether the search with every sentence of an n-sentence corpus as a query is approximate by default."""
    return n > APPROX_ABOVE


def every_sentence_neighbors(
    ws: Workspace,
    eid: str,
    k_max: int,
    *,
    znorm: bool = False,
    approx: bool | None = None,
    progress: Progress | None = None,
) -> Neighbors:
    """`prepare_embedder` with every corpus sentence as a query (embed, cached; search, cached); `seconds` holds the
    wall time of both. `approx=None` picks exact search up to APPROX_ABOVE sentences and pynndescent beyond."""
    n = len(ws.corpus)
    if approx is None:
        approx = default_approx(n)
    t0 = time.perf_counter()
    nb = prepare_embedder(ws, eid, np.arange(n, dtype=np.int64), k_max, znorm=znorm, approx=approx, progress=progress)
    return replace(nb, seconds=time.perf_counter() - t0)


#: Corpora up to this size get the neighbors of every sentence searched once, in the background after the first
#: result (`search_every_sentence`, from `preload`): then any new query sample only slices them.
EVERY_SENTENCE_MAX = 10_000


def search_every_sentence(ws: Workspace, eid: str, k_max: int, *, znorm: bool = False) -> bool:
    """Search (exact, cached) the k_max neighbors of every corpus sentence when the corpus has at most
    EVERY_SENTENCE_MAX sentences; returns whether it did. `prepare_embedder` then takes any query pool's rows from
    them: the same ids and similarities as searching the pool itself (the query excluded by index, ties broken by
    index, the k + 16 candidates re-scored in float64), found in milliseconds."""
    n = len(ws.corpus)
    if n > EVERY_SENTENCE_MAX:
        return False
    nb = ws.neighbors(eid, np.arange(n, dtype=np.int64), k_max, znorm=znorm)  # not prepare_embedder: it reads back here
    _every_of(ws)[(eid, k_max, znorm)] = nb
    return True


#: Every-sentence neighbor arrays kept in memory per workspace (a few MB each: 10,000 x 50 ids and similarities),
#: the least recently used dropped first (the disk cache keeps them all).
EVERY_PER_WORKSPACE = 16
#: Every sentence's neighbors kept in memory per workspace, so that a new sample reads no file: for each live
#: workspace (held weakly: a dropped workspace takes its arrays with it), (embedder, k_max, znorm) -> Neighbors.
_EVERY: weakref.WeakKeyDictionary[Workspace, LRU[tuple[str, int, bool], Neighbors]] = weakref.WeakKeyDictionary()
_EVERY_LOCK = threading.Lock()


def _every_of(ws: Workspace) -> LRU[tuple[str, int, bool], Neighbors]:
    with _EVERY_LOCK:
        memo = _EVERY.get(ws)
        if memo is None:
            memo = _EVERY[ws] = LRU(EVERY_PER_WORKSPACE)
        return memo


def _rows_of_every_sentence(
    ws: Workspace, eid: str, pool: np.ndarray, k_max: int, *, znorm: bool, approx: bool
) -> Neighbors | None:
    """The pool's rows of the every-sentence neighbors when they are in memory or cached on disk (exact search
    only), else None."""
    n = len(ws.corpus)
    if approx or n > EVERY_SENTENCE_MAX:
        return None
    memo = _every_of(ws)
    nb = memo.get((eid, k_max, znorm))
    if nb is None:
        everyone = np.arange(n, dtype=np.int64)
        if not ws.has_neighbors(eid, everyone, k_max, znorm=znorm):
            return None
        nb = ws.neighbors(eid, everyone, k_max, znorm=znorm)  # read from the cache
        memo[(eid, k_max, znorm)] = nb
    rows = np.asarray(pool, np.int64)
    return Neighbors(np.ascontiguousarray(nb.ids[rows]), np.ascontiguousarray(nb.sims[rows]))


@dataclass
class Prepared:
    """Neighbors at k_max of the pooled queries for each embedder that worked; errors of those that did not."""

    plan: QueryPlan
    k_max: int
    znorm: bool = False
    approx: bool = False
    neighbors: dict[str, Neighbors] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """Embedders with neighbors, in the order they were prepared."""
        return list(self.neighbors)

    @property
    def key(self) -> str:
        """Hash of everything the neighbor arrays and N2O values depend on (samples included)."""
        return hash_key(self.plan.key, self.k_max, self.znorm, self.approx, self.names)

    def ids_at(self, k: int, names: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """Neighbor ids at k (a slice of the k_max arrays) per embedder."""
        return {e: self.neighbors[e].ids[:, :k] for e in (names if names is not None else self.names)}


def prepare_all(
    ws: Workspace,
    embedder_ids: Sequence[str],
    plan: QueryPlan,
    k_max: int,
    *,
    znorm: bool = False,
    approx: bool = False,
    progress: Progress | None = None,
    on_done: Callable[[Prepared, str], None] | None = None,
    skip_failed: bool = True,
    ahead: bool = True,
) -> Prepared:
    """`prepare_embedder` for each embedder, cheapest first, on one worker thread per usable CPU (`Preparation`;
    `ahead=False`: one at a time in this thread). With `skip_failed`, an embedder that fails is recorded
    in `.errors` (its sentence) and the others go on; otherwise its error is raised. `progress` gets each
    embedder's stages (`prepare_embedder`); `on_done(prepared, eid)` is called after each embedder, so a front end
    can draw partial results. `.neighbors` is in the order given."""
    out = Prepared(plan, k_max, znorm, approx)

    def on_event(kind: str, eid: str, payload: Any) -> None:
        if kind == "stage" and progress is not None:
            progress(payload)
        elif kind == "done":
            out.neighbors[eid], out.seconds[eid] = payload
        elif kind == "failed":
            if not skip_failed or not isinstance(payload, N2OError):
                raise payload
            out.errors[eid] = str(payload)
        if kind in ("done", "failed") and on_done is not None:
            on_done(out, eid)

    prepare_each(
        ws,
        embedder_ids,
        plan.pool,
        k_max,
        znorm=znorm,
        approx=approx,
        on_event=on_event,
        ahead=ahead,
        report_progress=progress is not None,
    )
    out.neighbors = {e: out.neighbors[e] for e in embedder_ids if e in out.neighbors}
    return out


# --------------------------------------------------------------------------- order, and overlapped preparation

#: The sentence `load_model` embeds once (never cached: one-sentence encodes stay out of every cache).
WARM_UP_TEXT = "Markets rose after the bank said profits were up."


def load_model(ws: Workspace, eid: str) -> None:
    """Make `eid` ready to embed a new sentence at once: loaded and fitted in `ws`, and `WARM_UP_TEXT` encoded by
    it (its vectors are thrown away). Raises what loading raises."""
    emb = ws.embedder(eid)
    if not ws.is_precomputed(eid):
        emb.encode([WARM_UP_TEXT])


#: Cost classes of preparing an embedder from an empty cache, cheapest first (`preparation_cost`).
COST_CACHED, COST_CHEAP, COST_TRAINED, COST_DISTILLED, COST_MODEL = 0, 1, 2, 3, 4
_COST_BY_GROUP = {"precomputed": COST_CACHED, "tf-idf": COST_CHEAP, "distilled": COST_DISTILLED}


def preparation_cost(ws: Workspace, eid: str) -> int:
    """Cost class of preparing `eid` now: embeddings already cached (0); tf-idf and pretrained word vectors (1,
    seconds); word vectors trained on the corpus (2, word2vec / fastText: a training run on one core each); model2vec
    (3, distilled once); transformers and anything else (4, a forward pass per sentence on every core). An
    embedder whose registry row cannot be read counts as 0, so that its error shows at once
    (measured: benchmarks/README.md, 'Measurements behind the code's choices')."""
    try:
        if ws.is_cached(eid):
            return COST_CACHED
        info = ws.info(eid)
    except Exception:  # noqa: BLE001 - preparing it reports the error in its place
        return COST_CACHED
    if info.corpus_trained:
        return COST_CHEAP if info.sparse else COST_TRAINED
    if info.family_group in _COST_BY_GROUP:
        return _COST_BY_GROUP[info.family_group]
    return COST_CHEAP if info.family_group == "static averages" else COST_MODEL


def embeddings_cached(ws: Workspace, eid: str) -> bool:
    """Whether `eid`'s embeddings are in the cache; False for a user model that cannot even be named (preparing it
    then says why)."""
    try:
        return ws.is_cached(eid)
    except Exception:  # noqa: BLE001 - the preparation reports the failure in its own words
        return False


class Preparation(Lanes):
    """Embedders prepared on threads that keep every core busy from the start (`runtime.lanes.Lanes`), reported to
    the caller one at a time with `prepare_each`'s events (`report`).

    The lanes take the embedders in `order`, cheapest first (`preparation_cost`, stable among equals): the cheap
    lane runs the cached ones, tf-idf and pretrained word vectors (the first cells of a heatmap after seconds); one
    worker per usable CPU runs the others, the corpus-trained word vectors first (gensim trains on one core each:
    the longest single-core runs start first), then the models (a transformer encodes on every core: it fills
    whatever a training leaves); once the cheap ones are done, the load lane compiles the models' graphs ahead
    (`load_model`). On two cores the default embedders' word2vec and fastText train side by side from the first
    second, beside tf-idf and GloVe, then beside the MiniLM graphs' compilation, and MiniLM encodes as soon as one
    training ends (measured: benchmarks/README.md, 'Cold start to a first heatmap'). A worker runs an embedder's
    whole preparation (`prepare_embedder`); the searches run one at a time (each uses every core), and
    `word2vec-nostop` waits for a word2vec training under way while its worker takes something else. Vectors do not
    change: each embedder is computed as it would be alone (gensim trains with one worker, bit-identical; an
    encoder's batches are the same whatever runs beside it; tested). Leaving the `with` block starts nothing more;
    an embedder under way finishes into the cache."""

    def __init__(
        self,
        ws: Workspace,
        embedder_ids: Sequence[str],
        pool: np.ndarray,
        k_max: int,
        *,
        znorm: bool = False,
        approx: bool = False,
        workers: int | None = None,
        report_progress: bool = True,
    ):
        self.ws, self.pool, self.k_max, self.znorm, self.approx = ws, pool, k_max, znorm, approx
        ids = list(dict.fromkeys(embedder_ids))
        self.costs = {e: preparation_cost(ws, e) for e in ids}
        self.cached = {e: embeddings_cached(ws, e) for e in ids}  # before anything runs: what "start" says
        self._searching = threading.Lock()
        self.report_progress = report_progress
        order = sorted(ids, key=self.costs.__getitem__)
        super().__init__(
            order,
            self._prepare,
            rank=self.costs,
            cheap={e for e in ids if self.costs[e] <= COST_CHEAP},
            workers=workers or search_threads(),  # the CPUs this process may run on
            ahead=[e for e in order if self.costs[e] >= COST_DISTILLED],
            load=lambda e: load_model(ws, e),
            group=lambda e: e.removesuffix(NOSTOP_SUFFIX) if self.costs[e] == COST_TRAINED else None,
        )

    def _prepare(self, eid: str, stage: Progress) -> Neighbors:
        return prepare_embedder(
            self.ws,
            eid,
            self.pool,
            self.k_max,
            znorm=self.znorm,
            approx=self.approx,
            progress=stage if self.report_progress else None,
            searching=self._searching,
        )

    def report(self, emit: CallEvent) -> dict[str, Neighbors]:
        """Run the lanes and pass `prepare_each`'s events to `emit` in this thread, one embedder at a time; returns
        the neighbors of those that worked, in the order they were reported."""
        return super().report(
            lambda kind, eid, payload: emit(kind, eid, (self.cached[eid], payload) if kind == "start" else payload)
        )


def prepare_each(
    ws: Workspace,
    embedder_ids: Sequence[str],
    pool: np.ndarray,
    k_max: int,
    *,
    znorm: bool = False,
    approx: bool = False,
    on_event: CallEvent | None = None,
    ahead: bool = True,
    report_progress: bool = True,
) -> dict[str, Neighbors]:
    """`prepare_embedder` for each embedder, cheapest first, on one worker thread per usable CPU (`Preparation`:
    training, encoding and model loading overlapped; `ahead=False`: one at a time in this thread), reporting each
    step as `runtime.serial_calls` does, through `on_event(kind, embedder, payload)`: "start" ((cached, began before its
    turn): two bools), "stage" (a ProgressEvent; only with `report_progress`), "done" ((Neighbors, seconds)),
    "failed" (the exception), one embedder at a time, in this thread: one embedder that fails is reported and the
    others go on, unless `on_event` raises. Returns the neighbors of those that worked. The dashboard draws its
    progress from the events, in this process or from a child process's (`runtime.child`)."""
    emit = on_event or (lambda _k, _e, _p: None)
    if ahead:
        with Preparation(
            ws, embedder_ids, pool, k_max, znorm=znorm, approx=approx, report_progress=report_progress
        ) as prep:
            return prep.report(emit)
    out: dict[str, Neighbors] = {}
    ids = list(dict.fromkeys(embedder_ids))
    for eid in sorted(ids, key=lambda e: preparation_cost(ws, e)):
        emit("start", eid, (embeddings_cached(ws, eid), False))
        t0 = time.perf_counter()
        try:
            nb = prepare_embedder(
                ws,
                eid,
                pool,
                k_max,
                znorm=znorm,
                approx=approx,
                progress=(lambda event: emit("stage", event.item, event)) if report_progress else None,
            )
        except Exception as e:  # noqa: BLE001 - reported per embedder; the others go on
            emit("failed", eid, e)
            continue
        out[eid] = nb
        emit("done", eid, (nb, time.perf_counter() - t0))
    return out


# --------------------------------------------------------------------------- one query


def search_corpus_sentence(ws: Workspace, eid: str, qid: int, k: int, *, znorm: bool = False) -> Neighbors:
    """The k nearest neighbors of corpus sentence `qid` (itself excluded), exact, one row."""
    n = len(ws.corpus)
    if not 0 <= int(qid) < n:
        raise N2OError(f"Query id {qid} is outside the corpus (0..{n - 1}).")
    validate_k(k, n)
    return ws.search(eid, np.array([int(qid)], np.int64), k, znorm=znorm)


def search_free_text(ws: Workspace, eid: str, text: str, k: int, *, znorm: bool = False) -> Neighbors:
    """The k nearest corpus sentences of a typed sentence, embedded on the fly; one row."""
    return ws.search_text(eid, text, min(k, len(ws.corpus)), znorm=znorm)


def neighbors_of_pooled(prepared: Prepared, eid: str, qid: int) -> Neighbors | None:
    """The row of a pooled query in the prepared arrays (None when `qid` is not in the pool)."""
    pool = prepared.plan.pool
    pos = int(np.searchsorted(pool, qid))
    if pos >= len(pool) or pool[pos] != qid:
        return None
    nb = prepared.neighbors[eid]
    return Neighbors(nb.ids[pos : pos + 1], nb.sims[pos : pos + 1], nb.recall)
