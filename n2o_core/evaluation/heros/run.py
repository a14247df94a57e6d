"""One call for the dashboard and the CLI: make (or take) minimal pairs, then score embedders on them.

res = run_heros(workspace, ["tfidf", "minilm-l6-mean"], n_pairs=500, seed=0)
res.results    # embedder, subset, n, raw, normalized, ci_low, ci_high
res.baseline   # {embedder: b}
res.pairs      # subset, original, variant, target, replacement, ... (generated or loaded)
res.dropped    # {subset: {reason: count}}: failed rule applications, per rule
res.meta["coverage"]  # pairs made vs asked, sentences tried, yield (`coverage.Coverage.to_json`)
res.meta["unseen"]    # {embedder: why its word-subset scores measure its vocabulary} (`unseen.unseen_notes`)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from n2o_core.corpora import Corpus
from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.averaging import AVERAGING_DEFAULT, scored_id
from n2o_core.evaluation.heros.coverage import coverage
from n2o_core.evaluation.heros.generate import PairSet
from n2o_core.evaluation.heros.score import RESULT_COLUMNS, score_one
from n2o_core.evaluation.heros.unseen import unseen_notes
from n2o_core.runtime.progress import Progress, report, scoped

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace


JSON_PAIR_COLUMNS = ["subset", "original", "variant", "target"]
#: Pair columns shown beside each embedder's cosine.
PAIR_VIEW_COLUMNS = ["subset", "original", "variant", "target", "replacement"]


@dataclass
class HerosResult:
    """Scores of every embedder on every subset, with the pairs they were computed on."""

    results: pd.DataFrame
    baseline: dict[str, float]
    pairs: pd.DataFrame
    dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    #: the pairs (PAIR_VIEW_COLUMNS) with each scored embedder's raw cosine as a column
    cosines: pd.DataFrame = field(default_factory=pd.DataFrame)

    def table(self, value: str = "normalized") -> pd.DataFrame:
        """Subset x embedder table of `value` (normalized, raw, ci_low, ci_high or n)."""
        if self.results.empty:
            return pd.DataFrame()
        order = list(dict.fromkeys(self.results["embedder"]))
        subs = list(dict.fromkeys(self.results["subset"]))
        return self.results.pivot(index="subset", columns="embedder", values=value).reindex(index=subs, columns=order)

    def to_frame(self) -> pd.DataFrame:
        """One row per (embedder, subset): normalized and raw cosine, CI, pairs (long format)."""
        return self.results.reset_index(drop=True).copy()

    def to_json(self, max_pairs: int | None = None) -> dict[str, Any]:
        """JSON-ready dict: baseline, results, pairs (all, or the first `max_pairs` per subset), dropped..."""
        pairs = self.pairs
        if max_pairs is not None:
            pairs = pairs.groupby("subset", sort=False, group_keys=False).head(max_pairs)
        cols = [c for c in JSON_PAIR_COLUMNS if c in pairs.columns]
        return {
            "baseline": {k: float(v) for k, v in self.baseline.items()},
            "results": _records(self.results),
            "pairs": pairs[cols].to_dict(orient="records"),
            "dropped": self.dropped,
            "skipped": self.skipped,
            "errors": self.errors,
            "meta": self.meta,
        }


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    for rec in df.to_dict(orient="records"):
        out.append({k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in rec.items()})
    return out


def _workspace(source: Any, cache_dir: str | None) -> Any:
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    if isinstance(source, Workspace):
        return source
    if isinstance(source, Corpus):
        return Workspace(source, cache=Cache(cache_dir))
    if isinstance(source, (list, tuple)):
        from n2o_core.corpora import from_texts

        return Workspace(from_texts(list(source), name="texts"), cache=Cache(cache_dir))
    raise N2OError(f"run_heros needs a Workspace, a Corpus or a list of sentences (got {type(source).__name__}).")


def make_pairs(
    ws: Workspace, n_pairs: int, seed: int = 0, *, mlm_model: str | None = None, progress: Progress | None = None
) -> PairSet:
    """Up to `n_pairs` minimal pairs per subset from the workspace's corpus (read from the cache when made before;
    stage "pairs" reported to `progress` while they are made)."""
    from n2o_core.evaluation.heros.pair_cache import cached_generate_pairs

    return cached_generate_pairs(
        ws.cache, ws.corpus.fingerprint, ws.corpus.texts, n_pairs, seed=seed, mlm_model=mlm_model, progress=progress
    )


def pairs_ready(ws: Workspace, n_pairs: int, seed: int = 0, mlm_model: str | None = None) -> bool:
    """Whether `make_pairs` would read its pairs from the cache (nothing is loaded)."""
    from n2o_core.evaluation.heros.pair_cache import pairs_cached

    return pairs_cached(ws.cache, ws.corpus.fingerprint, n_pairs, seed, mlm_model=mlm_model)


@dataclass
class EmbedderScores:
    """One embedder's HEROS scores: the baseline b, a row per subset, and the raw cosine of every pair."""

    embedder: str
    baseline: float
    results: pd.DataFrame  # RESULT_COLUMNS, one row per subset
    cosines: np.ndarray  # raw cosine per pair, aligned with the rows of the pairs frame
    seconds: float = 0.0


def score_embedder(
    ws: Workspace, pairs: pd.DataFrame, eid: str, *, seed: int = 0, n_boot: int = 1000, znorm: bool = False
) -> EmbedderScores:
    """Score one embedder on the pairs: cosine of each pair, the baseline b and (s - b)/(1 - b) per subset.

    With `znorm`, vectors are z-normalized with the corpus statistics (`Workspace.standardizer`) before cosine
    (dense and sparse tf-idf alike).
    Vectors of the pair sentences are cached per embedder (`Workspace.encode_texts`)."""
    t0 = time.perf_counter()
    std = ws.standardizer(eid) if znorm else None
    b, res, cosines = score_one(
        pairs, eid, lambda texts: ws.encode_texts(eid, texts), seed=seed, n_boot=n_boot, standardizer=std
    )
    return EmbedderScores(eid, b, res, cosines, time.perf_counter() - t0)


class CombinedScores(NamedTuple):
    """Several embedders' scores on the same pairs as one: results rows (RESULT_COLUMNS), each embedder's baseline
    b, and the pairs (PAIR_VIEW_COLUMNS) with each embedder's raw cosine as a column."""

    results: pd.DataFrame
    baseline: dict[str, float]
    cosines: pd.DataFrame


def combine_scores(pairs: pd.DataFrame, scores: Sequence[EmbedderScores]) -> CombinedScores:
    """The scores of several embedders on `pairs` (one `score_embedder` each, in the order given) as one: what
    `run_heros` reports and the dashboard shows (it keeps one embedder's scores at a time)."""
    results = (
        pd.concat([sc.results for sc in scores], ignore_index=True) if scores else pd.DataFrame(columns=RESULT_COLUMNS)
    )
    cosines = pairs[[c for c in PAIR_VIEW_COLUMNS if c in pairs.columns]].copy()
    for sc in scores:
        cosines[sc.embedder] = sc.cosines
    return CombinedScores(results, {sc.embedder: sc.baseline for sc in scores}, cosines)


#: The column of `embedder_table` holding each embedder's random-pair baseline b.
BASELINE_COLUMN = "baseline b"


def embedder_table(results: pd.DataFrame, baseline: dict[str, float], value: str = "normalized") -> pd.DataFrame:
    """Embedder x subset table of `value` ("normalized" or "raw"; subsets in the order of `results`), with each
    embedder's baseline b as a last column (`BASELINE_COLUMN`): the HEROS page's tables and downloads."""
    subsets = list(results["subset"].unique())
    table = results.pivot(index="embedder", columns="subset", values=value)[subsets]
    return table.join(pd.Series(baseline, name=BASELINE_COLUMN))


def trained_on(ws: Workspace, embedder_ids: Sequence[str]) -> dict[str, int]:
    """{embedder: sentences it was fit on} for the corpus-trained ones among `embedder_ids`."""
    return {e: len(ws.corpus.fit_texts) for e in embedder_ids if ws.info(e).corpus_trained}


def run_heros(
    source: Any,
    embedder_ids: Sequence[str],
    n_pairs: int = 500,
    seed: int = 0,
    progress: Progress | None = None,
    *,
    pairs: pd.DataFrame | None = None,
    mlm_model: str | None = None,
    n_boot: int = 1000,
    cache_dir: str | None = None,
    skip_failed: bool = False,
    znorm: bool = False,
    averaging: str = AVERAGING_DEFAULT,
) -> HerosResult:
    """Generate `n_pairs` pairs per subset from the corpus of `source` (or score the given `pairs`,
    e.g. from `load_heros`), then score every embedder on them with `score_embedder`.

    `source`: a Workspace (its cached, fitted embedders are reused), a Corpus or a list of sentences.
    Corpus-trained embedders (tf-idf, word2vec, fastText) are fit on that corpus. With
    `skip_failed`, an embedder that raises is recorded in `.errors` and the others go on.
    `averaging` ("nostop", the default, or "all"): averaged word vectors are scored with stop words dropped (their
    `-nostop` id, as Heros and the HEROS page do) or over every token; results carry the scored ids, and
    `meta["scored_ids"]` maps each requested id to its scored id. Reports to `progress` the stages "pairs" (while
    pairs are made) and "embedders" (embedders scored, of all, with the one being scored as the item).
    """
    ws = _workspace(source, cache_dir)
    if not embedder_ids:
        raise N2OError("Choose at least one embedder to score.")
    scored = {eid: scored_id(eid, averaging) for eid in embedder_ids}
    embedder_ids = list(dict.fromkeys(scored.values()))
    t0 = time.perf_counter()
    meta: dict[str, Any] = {
        "corpus": ws.corpus.name,
        "seed": seed,
        "znorm": bool(znorm),
        "averaging": averaging,
        "scored_ids": scored,
    }
    dropped: dict[str, dict[str, int]] = {}
    skipped: dict[str, int] = {}
    if pairs is None:
        ps = make_pairs(ws, n_pairs, seed, mlm_model=mlm_model, progress=scoped(progress, stage="pairs"))
        pairs, dropped, skipped = ps.pairs, ps.dropped, ps.skipped
        cov = coverage(ps)
        meta.update(
            source="generated",
            n_per_subset=n_pairs,
            pair_counts=ps.counts(),
            n_originals=ps.n_originals,
            n_parsed=ps.n_parsed,
            coverage=cov.to_json(),
        )
        if pairs.empty:
            raise N2OError(f"No minimal pairs could be made from '{ws.corpus.name}': {cov.sentence()}")
    else:
        meta.update(source=pairs.attrs.get("source", "given"), pair_counts=pairs["subset"].value_counts().to_dict())
    meta["pairs_seconds"] = round(time.perf_counter() - t0, 1)
    for eid in embedder_ids:
        ws.info(eid)  # an unknown id fails before any model loads
    scores: list[EmbedderScores] = []
    errors: dict[str, str] = {}
    for k, eid in enumerate(embedder_ids):
        report(progress, "embedders", k, len(embedder_ids), eid)
        try:
            scores.append(score_embedder(ws, pairs, eid, seed=seed, n_boot=n_boot, znorm=znorm))
        except Exception as exc:  # noqa: BLE001 - with skip_failed, one embedder's failure leaves the others
            if not skip_failed:
                raise
            errors[eid] = str(exc) if isinstance(exc, N2OError) else f"{type(exc).__name__}: {exc}"
    report(progress, "embedders", len(embedder_ids), len(embedder_ids))
    results, baseline, cosines = combine_scores(pairs, scores)
    meta.update(
        embedder_seconds={sc.embedder: round(sc.seconds, 1) for sc in scores},
        seconds=round(time.perf_counter() - t0, 1),
        unseen=unseen_notes(results, trained_on(ws, [sc.embedder for sc in scores])),
    )
    return HerosResult(
        results=results,
        baseline=baseline,
        pairs=pairs,
        dropped=dropped,
        skipped=skipped,
        errors=errors,
        meta=meta,
        cosines=cosines,
    )
