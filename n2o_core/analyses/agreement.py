"""Where two embedders disagree: N2O per sentence, every corpus sentence a query.

Per-sentence N2O of sentence q between embedders A and B = |NN_A(q) ∩ NN_B(q)| / k, with the neighbor
conventions of `n2o_core.search.exact` (cosine, the query excluded by index, ties by lower id, a zero-vector query
has no neighbors and overlaps with nothing). Its mean over all N sentences is exactly N2O(A, B) of Lin & Smith
(2019) with the whole corpus as the query set: `compare(ws, [A, B], k, n_queries=N, n_samples=1)` gives the same
number (tested), and the two share the cached neighbor arrays (same query set, same k).

With more than two embedders, a sentence's *mean pairwise agreement* is the mean of its per-sentence N2O over
every unordered pair of the selected embedders.

Neighbors of all N sentences come from `Workspace.neighbors(eid, arange(N), k)` (cached on disk). Exact search
is used up to `pipeline.APPROX_ABOVE` sentences and pynndescent beyond (see the constant for the measurement).

Rankings and the decile table describe what distinguishes the least- from the most-agreed sentences: length in
word tokens, share of rare tokens (corpus frequency <= `RARE_MAX` in the text the corpus-trained embedders are
fit on) and, where the corpus has labels, the topic mix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from n2o_core.analyses.overlap import chance_level, overlap_counts
from n2o_core.corpora import Corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.pipeline import default_approx, every_sentence_neighbors
from n2o_core.runtime.progress import Progress
from n2o_core.search.result import NO_NEIGHBOR, Neighbors
from n2o_core.text import tokenize

#: The paper's k.
DEFAULT_K = 50
#: A token is rare when it occurs at most this many times in the corpus's fit texts.
RARE_MAX = 5


def per_sentence_n2o(ids_a: np.ndarray, ids_b: np.ndarray, k: int) -> np.ndarray:
    """|NN_A(q) ∩ NN_B(q)| / k for every query row (float64, in [0, 1])."""
    return overlap_counts(ids_a, ids_b, k) / float(k)


@dataclass
class Agreement:
    """Per-sentence N2O of every pair of embedders; row i of every array is corpus sentence i."""

    embedders: list[str]
    k: int
    corpus_size: int
    neighbors: dict[str, np.ndarray]  # embedder -> (N, >= k) neighbor ids, nearest first
    approx: bool = False
    recall: dict[str, float | None] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_neighbors(
        cls, neighbors: Mapping[str, Neighbors], k: int, corpus_size: int, approx: bool = False
    ) -> Agreement:
        """The agreement at k of embedders whose all-pairs neighbors (at any k_max >= k, e.g. from
        `pipeline.every_sentence_neighbors`) are given, in the order given; a smaller k is a slice, no search."""
        validate(list(neighbors), k, corpus_size)
        ids: dict[str, np.ndarray] = {}
        recall: dict[str, float | None] = {}
        seconds: dict[str, float] = {}
        for eid, nb in neighbors.items():
            if nb.ids.shape[0] != corpus_size:
                raise N2OError(f"'{eid}' has neighbors for {nb.ids.shape[0]} sentences, not all {corpus_size}.")
            head = nb.head(k)
            ids[eid], recall[eid], seconds[eid] = head.ids, head.recall, nb.seconds
        return cls(list(neighbors), k, corpus_size, ids, approx, recall, seconds)

    @property
    def chance(self) -> float:
        """Expected N2O of two random neighbor lists, k / (N - 1)."""
        return chance_level(self.k, self.corpus_size)

    def pairs(self) -> list[tuple[str, str]]:
        """Every unordered pair of embedders, in the order given."""
        return list(combinations(self.embedders, 2))

    def pair(self, a: str, b: str) -> np.ndarray:
        """(N,) per-sentence N2O of embedders a and b."""
        for e in (a, b):
            if e not in self.neighbors:
                raise N2OError(f"Embedder '{e}' is not part of this agreement (have: {', '.join(self.embedders)}).")
        return per_sentence_n2o(self.neighbors[a], self.neighbors[b], self.k)

    def mean_pairwise(self) -> np.ndarray:
        """(N,) mean of each sentence's N2O over every pair of embedders."""
        return np.mean([self.pair(a, b) for a, b in self.pairs()], axis=0)

    def pair_means(self, *, least_first: bool = False) -> pd.DataFrame:
        """Columns a, b, n2o: each pair's mean over all sentences (its corpus-wide N2O), in the order of `pairs`,
        or with `least_first` from the least to the most agreed pair (equal values in that order)."""
        rows = [{"a": a, "b": b, "n2o": float(self.pair(a, b).mean())} for a, b in self.pairs()]
        out = pd.DataFrame(rows, columns=["a", "b", "n2o"])
        return out.sort_values("n2o", kind="stable") if least_first else out

    def has_neighbors(self, *embedders: str) -> np.ndarray:
        """(N,) False where a sentence has no neighbors under one of `embedders` (default: all of them), i.e. it
        is a zero vector there and its N2O is 0 by convention; rankings leave such sentences out."""
        ok = np.ones(self.corpus_size, bool)
        for e in embedders or self.embedders:
            if e not in self.neighbors:
                raise N2OError(f"Embedder '{e}' is not part of this agreement (have: {', '.join(self.embedders)}).")
            ok &= np.asarray(self.neighbors[e])[:, 0] != NO_NEIGHBOR
        return ok

    def values(self, a: str | None = None, b: str | None = None) -> np.ndarray:
        """Per-sentence N2O of a and b, or the mean pairwise agreement when no pair is named."""
        if a is None and b is None:
            return self.mean_pairwise()
        if a is None or b is None:
            raise N2OError("Name both embedders of a pair, or neither for the mean over all pairs.")
        return self.pair(a, b)

    def to_frame(self) -> pd.DataFrame:
        """One row per corpus sentence: its id, the per-sentence N2O of every pair (columns "A|B") and the mean
        pairwise agreement ("mean")."""
        df = pd.DataFrame({"sentence": np.arange(self.corpus_size)})
        for a, b in self.pairs():
            df[f"{a}|{b}"] = self.pair(a, b)
        df["mean"] = self.mean_pairwise()
        return df

    def to_json(self, a: str | None = None, b: str | None = None, decimals: int = 6) -> dict:
        """The CLI's document: {"embedders", "k", "corpus_size", "chance", "search", "mean", "per_sentence":
        [{"id", "n2o"}], "pairs": [{"a", "b", "n2o"}]}; per_sentence holds the pair (a, b), by default the first
        two embedders when there are two and the mean pairwise agreement otherwise."""
        if a is None and b is None and len(self.embedders) == 2:
            a, b = self.embedders
        v = self.values(a, b)
        doc = {
            "embedders": list(self.embedders),
            "k": int(self.k),
            "corpus_size": int(self.corpus_size),
            "chance": round(float(self.chance), decimals),
            "search": "approx" if self.approx else "exact",
            "pair": [a, b] if a is not None else None,
            "mean": float(v.mean()),
            "per_sentence": [{"id": i, "n2o": round(float(x), decimals)} for i, x in enumerate(v)],
            "pairs": [
                {"a": r.a, "b": r.b, "n2o": round(float(r.n2o), decimals)} for r in self.pair_means().itertuples()
            ],
        }
        if self.approx:
            doc["recall"] = dict(self.recall)
        return doc


def validate(embedder_ids: Sequence[str], k: int, n: int) -> None:
    """At least two distinct embedders, 0 < k < N."""
    if len(embedder_ids) < 2:
        raise N2OError(f"Per-sentence agreement needs at least two embedders (got {len(embedder_ids)}).")
    if len(set(embedder_ids)) != len(embedder_ids):
        raise N2OError("An embedder was given twice.")
    if k <= 0:
        raise N2OError(f"k must be a positive integer (got {k}).")
    if k >= n:
        raise N2OError(f"k={k} must be smaller than the corpus size ({n} sentences): lower k or use a larger corpus.")


def pair_param(params: Mapping[str, object], names: Sequence[str], name: str = "pair") -> tuple[str, str, str | None]:
    """The embedder pair a link names as `pair=A,B` (parsed as n2o_core.settings parses page parameters: never
    raises, a bad value falls back with a note): (a, b, note). Both must be among `names` and differ; an
    unusable one is replaced by the first other name, a missing parameter gives the first two names."""
    if len(names) < 2:
        raise N2OError(f"Per-sentence agreement needs at least two embedders (got {len(names)}).")
    raw = params.get(name)
    if isinstance(raw, (list, tuple)):
        raw = raw[0] if raw else None
    if raw is None or not str(raw).strip():
        return names[0], names[1], None
    asked = [p.strip() for p in str(raw).split(",")]
    a = asked[0] if asked and asked[0] in names else None
    b = asked[1] if len(asked) == 2 and asked[1] in names and asked[1] != a else None
    if a is not None and b is not None:
        return a, b, None
    a = a or next(e for e in names if e != b)
    b = b or next(e for e in names if e != a)
    return a, b, f"'{name}' in the link must name two different embedders among those chosen; using {a},{b}."


def agreement(
    ws: Workspace,
    embedder_ids: Sequence[str],
    k: int = DEFAULT_K,
    *,
    k_max: int | None = None,
    znorm: bool = False,
    approx: bool | None = None,
    progress: Progress | None = None,
) -> Agreement:
    """Embed (cached) and search all-pairs neighbors (cached, at k_max >= k so a later smaller k is a slice),
    then per-sentence N2O at k for every pair; each embedder's stages reported to `progress` (`prepare_embedder`)."""
    n = len(ws.corpus)
    validate(embedder_ids, k, n)
    k_max = min(max(k, k_max or k), n - 1)
    if approx is None:
        approx = default_approx(n)
    prepared = {
        eid: every_sentence_neighbors(ws, eid, k_max, znorm=znorm, approx=approx, progress=progress)
        for eid in embedder_ids
    }
    return Agreement.from_neighbors(prepared, k, n, approx)


def summarize(values: np.ndarray, valid: np.ndarray | None = None) -> dict[str, float]:
    """Distribution of per-sentence N2O over the valid sentences: mean, median, 10th and 90th percentiles,
    share of sentences with no shared neighbor (N2O 0) and share with at least half shared (N2O >= 0.5)."""
    v = np.asarray(values, float)
    if valid is not None:
        v = v[np.asarray(valid, bool)]
    if v.size == 0:
        raise N2OError("No sentence to summarize.")
    return {
        "sentences": int(v.size),
        "mean": float(v.mean()),
        "median": float(np.median(v)),
        "p10": float(np.quantile(v, 0.1)),
        "p90": float(np.quantile(v, 0.9)),
        "share_zero": float(np.mean(v == 0)),
        "share_half_or_more": float(np.mean(v >= 0.5)),
    }


# --------------------------------------------------------------------------- rankings


def by_value(ids: Sequence[int] | np.ndarray, values: np.ndarray) -> np.ndarray:
    """The sentence `ids` ordered by their per-sentence value, lowest first (equal values in the order given)."""
    ids = np.asarray(ids, np.int64)
    return ids[np.argsort(np.asarray(values, float)[ids], kind="stable")]


def _order(values: np.ndarray, valid: np.ndarray, ascending: bool, seed: int) -> np.ndarray:
    """Ids of valid sentences sorted by value; equal values in a fixed random order (not by id: corpus ids of
    the built-in corpora follow the topic folders, so an id tie-break would bias the topic mix)."""
    ids = np.flatnonzero(valid)
    tie = np.random.default_rng(seed).permutation(len(values))[ids]
    v = values[ids] if ascending else -values[ids]
    return ids[np.lexsort((tie, v))]


def extremes(
    values: np.ndarray, n: int = 10, *, valid: np.ndarray | None = None, seed: int = 0, offset: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(least-agreed ids ascending, most-agreed ids descending), n each, among `valid` sentences, from rank
    `offset` on (0: the extremes; n, 2n, ...: the next pages of the same fixed order, ties included)."""
    values = np.asarray(values, float)
    valid = np.ones(len(values), bool) if valid is None else np.asarray(valid, bool)
    lo, hi = max(0, int(offset)), max(0, int(offset)) + n
    return _order(values, valid, True, seed)[lo:hi], _order(values, valid, False, seed)[lo:hi]


@dataclass(frozen=True)
class ExtremeTies:
    """How many valid sentences share the lowest and the highest value: when more share it than a list shows, the
    list is a random few of them (`extremes` orders ties at random), which the page must say."""

    low: float
    n_low: int
    high: float
    n_high: int
    n_valid: int

    def sentence(self, end: str, shown: int) -> str:
        """'2,460 sentences tied at 0; 10 shown at random' for end 'low' or 'high' when more than `shown` tie there,
        else ''."""
        value, count = (self.low, self.n_low) if end == "low" else (self.high, self.n_high)
        if count <= shown:
            return ""
        return (
            f"{count:,} sentences ({count / self.n_valid:.0%} of those ranked) are tied at {value:.3g}; "
            f"{min(shown, count)} shown at random"
        )


def extreme_ties(values: np.ndarray, valid: np.ndarray | None = None) -> ExtremeTies:
    """The lowest and highest value among the `valid` sentences and how many sentences hold each (values equal to
    12 decimals count as tied)."""
    v = np.asarray(values, float)
    if valid is not None:
        v = v[np.asarray(valid, bool)]
    if v.size == 0:
        raise N2OError("No sentence to rank.")
    v = np.round(v, 12)  # means over pairs of multiples of 1/k: equal values may differ in the last bits
    lo, hi = float(v.min()), float(v.max())
    return ExtremeTies(lo, int(np.sum(v == lo)), hi, int(np.sum(v == hi)), int(v.size))


def ranking_frame(ids: np.ndarray, values: np.ndarray, texts: Sequence[str], features: pd.DataFrame) -> pd.DataFrame:
    """Rows for the given sentence ids: id, n2o, text and the features (n_tokens, rare_share[, label])."""
    ids = np.asarray(ids, np.int64)
    df = pd.DataFrame({"id": ids, "n2o": np.asarray(values, float)[ids], "text": [texts[i] for i in ids]})
    return pd.concat([df, features.iloc[ids].reset_index(drop=True)], axis=1)


def token_counts(texts: Sequence[str]) -> Counter:
    """Corpus frequency of every lower-cased word token (n2o_core.text.tokenize)."""
    c: Counter = Counter()
    for t in texts:
        c.update(tokenize(t))
    return c


def sentence_features(
    texts: Sequence[str],
    *,
    counts: Counter | None = None,
    labels: Sequence[str] | None = None,
    rare_max: int = RARE_MAX,
) -> pd.DataFrame:
    """Per sentence: n_tokens (word tokens), rare_share (share of its token occurrences whose frequency in
    `counts` is <= rare_max; 0 for a sentence without tokens) and label (when labels are given).

    `counts` defaults to the frequencies in `texts` themselves."""
    counts = token_counts(texts) if counts is None else counts
    n_tok = np.zeros(len(texts), np.int64)
    rare = np.zeros(len(texts))
    for i, t in enumerate(texts):
        toks = tokenize(t)
        n_tok[i] = len(toks)
        if toks:
            rare[i] = sum(counts.get(w, 0) <= rare_max for w in toks) / len(toks)
    df = pd.DataFrame({"n_tokens": n_tok, "rare_share": rare})
    if labels is not None:
        if len(labels) != len(texts):
            raise N2OError(f"{len(labels)} labels for {len(texts)} sentences.")
        df["label"] = list(labels)
    return df


def corpus_features(corpus: Corpus, rare_max: int = RARE_MAX) -> pd.DataFrame:
    """sentence_features of a Corpus; rare words counted in `corpus.fit_texts` (the whole built-in corpus when
    a sample is compared: the text tf-idf, word2vec and fastText are fit on), labels from `corpus.labels`."""
    return sentence_features(
        corpus.texts, counts=token_counts(corpus.fit_texts), labels=corpus.labels, rare_max=rare_max
    )


def group_table(values: np.ndarray, features: pd.DataFrame, groups: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """One row per named group of sentence ids: sentences, n2o (mean), n_tokens (mean), n_tokens_median,
    rare_share (mean of the per-sentence shares) and, when features has a label column, one "label: X" column
    per label of the whole corpus with its share of the group (an empty group gives NaN)."""
    values = np.asarray(values, float)
    labels = sorted(features["label"].unique().tolist()) if "label" in features else []
    rows = []
    for name, ids in groups.items():
        ids = np.asarray(ids, np.int64)
        f = features.iloc[ids]
        empty = len(ids) == 0
        shares = f["label"].value_counts(normalize=True) if labels and not empty else None
        row = {
            "group": name,
            "sentences": len(ids),
            "n2o": float("nan") if empty else float(values[ids].mean()),
            "n_tokens": float("nan") if empty else float(f["n_tokens"].mean()),
            "n_tokens_median": float("nan") if empty else float(f["n_tokens"].median()),
            "rare_share": float("nan") if empty else float(f["rare_share"].mean()),
        }
        for lab in labels:
            row[f"label: {lab}"] = float("nan") if shares is None else float(shares.get(lab, 0.0))
        rows.append(row)
    return pd.DataFrame(rows).set_index("group")


def decile_table(
    values: np.ndarray, features: pd.DataFrame, *, valid: np.ndarray | None = None, frac: float = 0.1, seed: int = 0
) -> pd.DataFrame:
    """Least-agreed share `frac` vs most-agreed share vs all valid sentences.

    Rows "least agreed 10%", "most agreed 10%", "all"; columns sentences, n2o (mean), n_tokens (mean),
    n_tokens_median, rare_share (mean of the per-sentence shares) and, when features has a label column,
    one "label: X" column per label with its share of the group. Groups are ceil(frac * n) sentences by rank;
    ties at the cut are broken in a fixed random order (see `extremes`)."""
    if not 0 < frac <= 0.5:
        raise N2OError(f"frac must be in (0, 0.5] (got {frac}).")
    values = np.asarray(values, float)
    valid = np.ones(len(values), bool) if valid is None else np.asarray(valid, bool)
    m = int(np.ceil(frac * int(valid.sum())))
    if m == 0:
        raise N2OError("No sentence has neighbors under every embedder: nothing to rank.")
    low, high = extremes(values, m, valid=valid, seed=seed)
    pct = f"{frac:.0%}"
    groups = {f"least agreed {pct}": low, f"most agreed {pct}": high, "all": np.flatnonzero(valid)}
    return group_table(values, features, groups)
