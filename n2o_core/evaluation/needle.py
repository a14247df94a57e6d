"""Paraphrase needle in a haystack (Lin & Smith 2019, section 8 and Table 3).

Each pair's first sentence is the query; its second (the paraphrase) is added to the corpus for that query only
(the other queries' paraphrases are not candidates). The paraphrase's rank is

    rank = 1 + #{corpus sentences j : cos(q, x_j) > cos(q, p) + TIE_TOL}

- Ties: a corpus sentence exactly as similar as the paraphrase does NOT count as more similar, i.e. the
  paraphrase wins ties (standard competition rank, "1 + the number strictly better"). Exact cosine ties come
  from vectors that are equal up to float rounding (identical texts are excluded, see below; identical bags of
  words under averaging embedders remain): the embedder cannot tell those sentences apart from the paraphrase,
  so they do not push it down. Scores are compared in float64; |cos - cos(q, p)| <= TIE_TOL (1e-6, about the
  float32 resolution of stored embeddings) is a tie. Each pair's tie count is kept (`ties`), so the pessimistic
  rank is rank + ties.
- Exclusions: the query is never its own candidate: a corpus row whose text equals the query is excluded; so is
  a corpus row whose text equals the paraphrase (it stands for the paraphrase itself, which is already the
  added candidate). Texts are compared after whitespace normalization, case-sensitively.
- Zero vectors (no token to embed): a zero corpus row is never more similar (it ranks after every real
  candidate, as everywhere in n2o_core); a zero query or zero paraphrase cannot be ranked: rank None,
  reciprocal rank 0, counted in `unrankable`.
- Cosine on the raw vectors, or with z-normalization (per-dimension standardization with the corpus's mean and
  std, `Workspace.standardizer`, applied to corpus, queries and paraphrases alike; sparse tf-idf too, without
  densifying it: `neighbors.prepare_rows`).

No full sort: the corpus is scanned in blocks (dense BLAS, or CSR products for tf-idf), counting per query the
scores above its paraphrase's and keeping the few best (`top`) corpus sentences: those that outrank the
paraphrase are reported per pair. MRR = mean of 1/rank over the pairs, with a percentile bootstrap 95% CI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from n2o_core.errors import EmbedderError, N2OError
from n2o_core.evaluation.heros.score import bootstrap_ci
from n2o_core.evaluation.pairs.frame import FilteredPairs
from n2o_core.runtime.progress import Progress, report, scoped
from n2o_core.search.rows import Standardizer, ZNormRows, prepare_rows

TIE_TOL = 1e-6
RESULT_COLUMNS = ["embedder", "mrr", "mrr_ci_low", "mrr_ci_high", "top1", "top5", "n", "unrankable", "tied_pairs"]


@dataclass
class Ranks:
    """Per pair: the paraphrase's rank (0 = unrankable), ties, its cosine, and the `top` best corpus rows."""

    rank: np.ndarray  # (n,) int64, 0 where the query or the paraphrase is a zero vector
    ties: np.ndarray  # (n,) int64: corpus sentences as similar as the paraphrase (within TIE_TOL)
    sims: np.ndarray  # (n,) float64 cosine(query, paraphrase)
    top_ids: np.ndarray  # (n, top) int64, best first, -1 where empty
    top_sims: np.ndarray  # (n, top) float64

    def outrankers(self, i: int) -> list[tuple[int, float]]:
        """(corpus id, cosine) of the best corpus sentences more similar than pair i's paraphrase."""
        if self.rank[i] <= 1:
            return []
        return [
            (int(j), float(s))
            for j, s in zip(self.top_ids[i], self.top_sims[i])
            if j >= 0 and s > self.sims[i] + TIE_TOL
        ]


# ---------------------------------------------------------------------------------------------- pure core


def unit_rows(block: Any, standardizer: Standardizer | None) -> tuple[Any, np.ndarray]:
    """float64 unit rows (z-normalized first when a standardizer is given, sparse tf-idf included) and the zero
    mask: `neighbors.prepare_rows`, the search's own definition."""
    if not sp.issparse(block) and np.ndim(block) != 2:
        raise EmbedderError(f"Expected a 2-D array of vectors, got shape {np.shape(block)}.")
    return prepare_rows(block, standardizer, dtype=np.float64)


def _scores(a: Any, b: Any) -> np.ndarray:
    """Cosines of every row of `a` with every row of `b` (dense float64)."""
    if isinstance(a, ZNormRows):
        return np.asarray(a.dot(b), dtype=np.float64)
    S = a @ b.T
    return np.asarray(S.toarray() if sp.issparse(S) else S, dtype=np.float64)


def _rowdot(a: Any, b: Any) -> np.ndarray:
    if isinstance(a, ZNormRows):
        return np.asarray(a.rowwise(b), dtype=np.float64)
    if sp.issparse(a) or sp.issparse(b):
        return np.asarray(sp.csr_matrix(a).multiply(sp.csr_matrix(b)).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", a, b)


def paraphrase_ranks(
    X: Any,
    Q: Any,
    P: Any,
    exclude: np.ndarray | None = None,
    *,
    standardizer: Standardizer | None = None,
    top: int = 3,
    block: int | None = None,
    progress: Progress | None = None,
) -> Ranks:
    """Rank of each paraphrase P[i] among the corpus X for the query Q[i] (see the module docstring).

    X: (N, d) array / memmap, or CSR (tf-idf); Q, P: (n, d) raw vectors of the same kind. `exclude`: (n, m)
    corpus ids never counted for pair i (-1 = none). Counts in corpus blocks; never sorts the corpus; stage "rank"
    (corpus rows counted, of N) reported to `progress`."""
    N = X.shape[0]
    Qn, qzero = unit_rows(Q, standardizer)
    Pn, pzero = unit_rows(P, standardizer)
    n = Qn.shape[0]
    if Pn.shape[0] != n:
        raise N2OError(f"{n} queries but {Pn.shape[0]} paraphrases.")
    if Qn.shape[1] != X.shape[1] or Pn.shape[1] != X.shape[1]:
        raise EmbedderError(f"Query vectors have {Qn.shape[1]} dimensions, the corpus {X.shape[1]}.")
    exclude = np.full((n, 0), -1, np.int64) if exclude is None else np.asarray(exclude, np.int64).reshape(n, -1)
    p = _rowdot(Qn, Pn)
    top = max(0, int(top))
    count = np.zeros(n, np.int64)
    ties = np.zeros(n, np.int64)
    top_s = np.full((n, top), -np.inf)
    top_i = np.full((n, top), -1, np.int64)
    if block is None:
        block = int(min(max(N, 1), max(1024, (32 << 20) // max(8 * n, 1))))  # ~32 MB of float64 scores
        if sp.issparse(X):
            block = min(block, 16384)
    rows = np.arange(n)
    hi, lo = (p + TIE_TOL)[:, None], (p - TIE_TOL)[:, None]
    for start in range(0, N, block):
        stop = min(start + block, N)
        Xb, zb = unit_rows(X[start:stop], standardizer)
        S = _scores(Qn, Xb)
        S[:, zb] = -np.inf  # zero corpus rows are never more similar
        inside = (exclude >= start) & (exclude < stop)
        if inside.any():
            r, c = np.nonzero(inside)
            S[r, exclude[r, c] - start] = -np.inf
        above = np.count_nonzero(hi < S, axis=1)
        count += above
        ties += np.count_nonzero(lo <= S, axis=1) - above
        if top:
            k = min(top, stop - start)
            part = np.argpartition(-S, k - 1, axis=1)[:, :k] if k < stop - start else np.tile(np.arange(k), (n, 1))
            cand_s = np.concatenate([top_s, S[rows[:, None], part]], axis=1)
            cand_i = np.concatenate([top_i, part + start], axis=1)
            order = np.lexsort((cand_i, -cand_s), axis=1)[:, :top] if n else np.zeros((0, top), np.int64)
            top_s = np.take_along_axis(cand_s, order, axis=1)
            top_i = np.take_along_axis(cand_i, order, axis=1)
        report(progress, "rank", stop, N)
    top_i[~np.isfinite(top_s)] = -1
    unrankable = qzero | pzero
    rank = np.where(unrankable, 0, count + 1)
    ties[unrankable] = 0
    return Ranks(rank, ties, p, top_i, np.where(np.isfinite(top_s), top_s, 0.0))


def reciprocal_ranks(rank: np.ndarray) -> np.ndarray:
    """1 / rank, 0 for unrankable pairs (rank 0)."""
    r = np.asarray(rank, np.float64)
    return np.divide(1.0, r, out=np.zeros_like(r), where=r > 0)


def summarize(rank: np.ndarray, ties: np.ndarray, n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """MRR with a percentile bootstrap 95% CI over pairs, # top (rank 1), # top-5 (rank <= 5), n, unrankable,
    and how many pairs had at least one tie."""
    rr = reciprocal_ranks(rank)
    lo, hi = bootstrap_ci(rr, n_boot=n_boot, seed=seed) if rr.size else (float("nan"), float("nan"))
    ok = rank > 0
    return {
        "mrr": float(rr.mean()) if rr.size else float("nan"),
        "mrr_ci_low": lo,
        "mrr_ci_high": hi,
        "top1": int(np.sum(ok & (rank == 1))),
        "top5": int(np.sum(ok & (rank <= 5))),
        "n": int(rank.size),
        "unrankable": int(np.sum(~ok)),
        "tied_pairs": int(np.sum(ties > 0)),
    }


def exclusions(texts: Sequence[str], queries: Sequence[str], paraphrases: Sequence[str]) -> np.ndarray:
    """(n, 2) corpus ids of the query's and the paraphrase's own text in the corpus (-1 when absent)."""
    pos = {t: i for i, t in enumerate(texts)}
    norm = [[pos.get(" ".join(q.split()), -1), pos.get(" ".join(p.split()), -1)] for q, p in zip(queries, paraphrases)]
    return np.asarray(norm, np.int64).reshape(len(queries), 2)


# ---------------------------------------------------------------------------------------------- runner


@dataclass
class NeedleResult:
    """Table 3 for the given embedders, and every pair's ranks."""

    results: pd.DataFrame  # RESULT_COLUMNS + znorm, sorted by decreasing MRR
    ranks: dict[str, Ranks]
    pairs: FilteredPairs
    corpus_name: str
    corpus_texts: Sequence[str]
    excluded: dict[str, int]
    znorm: bool
    meta: dict[str, Any] = field(default_factory=dict)

    def pair_records(self, top: int | None = None) -> list[dict[str, Any]]:
        """One dict per pair: texts, score, overlap, each embedder's rank (None = unrankable) and the corpus
        sentences that outranked the paraphrase (at most `top`)."""
        df = self.pairs.pairs.frame
        src = self.pairs.pairs.source
        out = []
        for i, row in enumerate(df.itertuples(index=False)):
            rec: dict[str, Any] = {
                "row": int(row.row),
                "query": row.sentence1,
                "paraphrase": row.sentence2,
                "score": None if np.isnan(row.score) else round(float(row.score), 4),
                "overlap": round(float(row.overlap), 4),
                "genre": row.genre,
                "source": src.spec,
                "synthetic": src.synthetic,
                "ranks": {e: (int(r.rank[i]) or None) for e, r in self.ranks.items()},
                "ties": {e: int(r.ties[i]) for e, r in self.ranks.items()},
                "paraphrase_cosine": {e: round(float(r.sims[i]), 6) for e, r in self.ranks.items()},
                "outranked_by": {
                    e: [
                        {"id": j, "text": self.corpus_texts[j], "cosine": round(s, 6)}
                        for j, s in r.outrankers(i)[: top if top is not None else None]
                    ]
                    for e, r in self.ranks.items()
                },
            }
            out.append(rec)
        return out

    def rank_table(self, names: Sequence[str] | None = None) -> pd.DataFrame:
        """Every pair's rank as the page lists them: row, query, paraphrase, score, word overlap (3 decimals), then
        the rank under each of `names` (default: every embedder), empty where the pair is unrankable."""
        df = self.pairs.pairs.frame
        out = pd.DataFrame(
            {
                "row": df["row"],
                "query": df["sentence1"],
                "paraphrase": df["sentence2"],
                "score": df["score"],
                "overlap": df["overlap"].round(3),
            }
        )
        for e in self.ranks if names is None else names:  # rank 0 = unrankable
            out[e] = pd.array([int(v) if v > 0 else None for v in self.ranks[e].rank], dtype="Int64")
        return out

    def to_frame(self) -> pd.DataFrame:
        """Table 3: one row per embedder (MRR with its CI, top-1, top-5, pairs, unrankable, ties), best first."""
        return self.results.reset_index(drop=True).copy()

    def to_json(self, top: int | None = None) -> dict[str, Any]:
        """The CLI's JSON: embedders, corpus_size, n_pairs, dropped, results (sorted by MRR), pairs, ..."""
        res = []
        for r in self.results.to_dict(orient="records"):
            res.append(
                {
                    "embedder": r["embedder"],
                    "mrr": _num(r["mrr"]),
                    "mrr_ci": [_num(r["mrr_ci_low"]), _num(r["mrr_ci_high"])],
                    "top1": int(r["top1"]),
                    "top5": int(r["top5"]),
                    "n": int(r["n"]),
                    "unrankable": int(r["unrankable"]),
                    "tied_pairs": int(r["tied_pairs"]),
                    "znorm": bool(r["znorm"]),
                }
            )
        src = self.pairs.pairs.source
        return {
            "embedders": list(self.ranks),
            "corpus": self.corpus_name,
            "corpus_size": len(self.corpus_texts),
            "pairs_source": src.to_json(),
            "synthetic": src.synthetic,
            "n_loaded": self.pairs.n_loaded,
            "n_pairs": len(self.pairs.pairs),
            "dropped": self.pairs.dropped,
            "filters": self.pairs.filters,
            "excluded_corpus_rows": self.excluded,
            "znorm": self.znorm,
            "tie_rule": "rank = 1 + #(corpus cosine > paraphrase cosine + 1e-6); ties favour the paraphrase",
            "results": res,
            "pairs": self.pair_records(top),
            "meta": self.meta,
        }


def by_mrr(results: pd.DataFrame) -> pd.DataFrame:
    """Table 3's rows best first: by decreasing MRR, equal MRRs in the order given (a stable sort)."""
    return results.sort_values("mrr", ascending=False, kind="stable").reset_index(drop=True)


def combine_needle(parts: Sequence[NeedleResult]) -> NeedleResult | None:
    """One NeedleResult from results on the same pairs and corpus for other embedders (e.g. one per embedder, as
    the dashboard keeps them): their rows in one table sorted as `run_needle` sorts it (`by_mrr`), every
    embedder's ranks; the pairs, corpus, exclusions and settings of the first. None when there is no part. Since
    every embedder is bootstrapped with the same seed, this is what one `run_needle` call over them all gives."""
    if not parts:
        return None
    first = parts[0]
    results = by_mrr(pd.concat([p.results for p in parts], ignore_index=True))
    ranks = {e: r for p in parts for e, r in p.ranks.items()}
    return NeedleResult(
        results, ranks, first.pairs, first.corpus_name, first.corpus_texts, first.excluded, first.znorm, first.meta
    )


def display_table(results: pd.DataFrame, tag: str) -> pd.DataFrame:
    """The per-embedder table as shown (Table 3's columns), sorted by MRR: the MRR and its 95% interval with the
    interval's half-width and the number of pairs it rests on beside it, then # top, # top-5, unrankable pairs,
    pairs with ties, and the pairs named (`tag`)."""
    t = results.rename(
        columns={
            "mrr": "MRR",
            "mrr_ci_low": "CI low",
            "mrr_ci_high": "CI high",
            "n": "pairs kept",
            "top1": "# top",
            "top5": "# top-5",
            "tied_pairs": "pairs with ties",
        }
    )
    t["± (95%)"] = (t["CI high"] - t["CI low"]) / 2
    cols = ["embedder", "MRR", "CI low", "CI high", "± (95%)", "pairs kept", "# top", "# top-5", "unrankable"]
    t = t[[*cols, "pairs with ties"]].copy()
    t["pairs"] = tag
    return t


def interval_line(results: pd.DataFrame, n_loaded: int) -> str:
    """'**18 of 1,225 pairs kept**: MRR intervals ±0.12 to ±0.19 (95%)' (the half-widths of every embedder's
    interval, so that a difference smaller than them is read as noise)."""
    half = ((results["mrr_ci_high"] - results["mrr_ci_low"]) / 2).to_numpy(float)
    half = half[np.isfinite(half)]
    n = int(results["n"].iloc[0]) if len(results) else 0
    head = f"**{n:,} of {n_loaded:,} pairs kept**"
    if not half.size:
        return head
    lo, hi = float(half.min()), float(half.max())
    width = f"±{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"±{lo:.2f} to ±{hi:.2f}"
    return f"{head}: MRR intervals {width} (95%, bootstrap over the pairs); MRRs closer than that are not told apart"


def _num(v: Any) -> float | None:
    return None if v is None or not np.isfinite(v) else round(float(v), 6)


def _pair_vectors(eid: str, arr: np.ndarray, rows: np.ndarray, n_loaded: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(arr)
    if a.ndim != 2 or a.shape[0] != 2 * n_loaded:
        raise EmbedderError(
            f"Pair vectors for '{eid}' have shape {a.shape}; expected {2 * n_loaded} rows: sentence1 of the "
            f"{n_loaded} loaded pairs in order, then their sentence2."
        )
    return a[rows], a[n_loaded + rows]


def run_needle(
    ws: Any,
    pairs: FilteredPairs,
    embedder_ids: Sequence[str],
    *,
    znorm: bool = False,
    top: int = 3,
    n_boot: int = 1000,
    seed: int = 0,
    pair_vectors: Mapping[str, np.ndarray] | None = None,
    progress: Progress | None = None,
) -> NeedleResult:
    """Rank every pair's paraphrase for every embedder against the workspace's corpus (cached embeddings; only
    queries and paraphrases are embedded, with `ws.encode_texts`). Precomputed-vector embedders cannot embed
    new text: give their query/paraphrase rows in `pair_vectors[eid]` (2 x loaded pairs, sentence1 block
    first). Reports to `progress`, with the embedder id as the item, the stages "embed" (the corpus) and "rank"."""
    if not embedder_ids:
        raise N2OError("Choose at least one embedder.")
    pair_vectors = dict(pair_vectors or {})
    for eid in embedder_ids:
        if ws.is_precomputed(eid) and eid not in pair_vectors:
            raise EmbedderError(
                f"'{eid}' is precomputed corpus vectors and cannot embed the pairs; give --pair-vectors "
                f"{eid}=FILE.npy with the pairs' vectors."
            )
        if not ws.is_precomputed(eid):
            ws.info(eid)  # unknown ids fail before any work
    df = pairs.pairs.frame
    queries, paras = df["sentence1"].tolist(), df["sentence2"].tolist()
    texts = list(ws.corpus.texts)
    excl = exclusions(texts, queries, paras)
    uniq = list(dict.fromkeys(queries + paras))
    pos = {t: i for i, t in enumerate(uniq)}
    qi = np.array([pos[t] for t in queries])
    pi = np.array([pos[t] for t in paras])
    rows: list[dict[str, Any]] = []
    ranks: dict[str, Ranks] = {}
    for eid in embedder_ids:
        X = ws.embeddings(eid, progress=scoped(progress, stage="embed", item=eid))
        if eid in pair_vectors:
            Q, P = _pair_vectors(eid, pair_vectors[eid], df["row"].to_numpy(), pairs.n_loaded)
        else:
            V = ws.encode_texts(eid, uniq)
            Q, P = V[qi], V[pi]
        std = ws.standardizer(eid) if znorm else None
        r = paraphrase_ranks(
            X, Q, P, excl, standardizer=std, top=top, progress=scoped(progress, stage="rank", item=eid)
        )
        ranks[eid] = r
        # one seed for every embedder: the same resamples of the pairs, so an embedder's CI does not depend on
        # which others are in the run
        rows.append({"embedder": eid, **summarize(r.rank, r.ties, n_boot, seed), "znorm": std is not None})
    results = pd.DataFrame(rows, columns=[*RESULT_COLUMNS, "znorm"])
    results = by_mrr(results)
    excluded = {"query_in_corpus": int(np.sum(excl[:, 0] >= 0)), "paraphrase_in_corpus": int(np.sum(excl[:, 1] >= 0))}
    return NeedleResult(results, ranks, pairs, ws.corpus.name, ws.corpus.texts, excluded, znorm)
