"""The paper's filters (N2O section 8): score in the 4-5 range and word-overlap ratio < 0.6 (`word_overlap`, see the
package docstring), and the genre; `filter_pairs` applies them, `paper_defaults` says which apply to a source.

When they keep fewer pairs than the paper's 75 (gensim's Lee pairs: 18 of 1,225, most rated below 4 of 5),
`biggest_drop` names the filter that dropped the most and `looser_setting` relaxes that filter alone, on the
page's slider steps, just enough to keep the paper's 75 pairs: a deviation from the paper, said wherever it is
used."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from n2o_core.errors import N2OError
from n2o_core.evaluation.pairs.frame import FilteredPairs, Pairs, PairSource
from n2o_core.text import token_set

#: The paper's filters (N2O section 8): score in the 4-5 range, word-overlap ratio < 0.6.
PAPER_MIN_SCORE = 4.0
PAPER_MAX_OVERLAP = 0.6
OVERLAP_MEASURES = ("query", "jaccard")
#: N2O §8: "We take 75 sentence pairs in the 4-5 range".
PAPER_N_PAIRS = 75
#: The steps of the needle page's sliders: a looser setting is one the sliders can show.
SCORE_STEP = 0.1
OVERLAP_STEP = 0.05
#: How the filters are named in sentences.
FILTER_NAMES = {"genre": "genre", "score": "score", "overlap": "word overlap"}


def word_overlap(query: str, paraphrase: str, measure: str = "query") -> float:
    """Word-overlap ratio of a pair (see the module docstring): "query" = |T(q) & T(p)| / |T(q)|,
    "jaccard" = |T(q) & T(p)| / |T(q) | T(p)|. 0.0 when the denominator is empty."""
    if measure not in OVERLAP_MEASURES:
        raise N2OError(f"Unknown overlap measure '{measure}'; use one of {', '.join(OVERLAP_MEASURES)}.")
    q, p = token_set(query), token_set(paraphrase)
    den = len(q) if measure == "query" else len(q | p)
    return len(q & p) / den if den else 0.0


#: N2O §8: "We also constrain the sentence pairs to come from the newstext-based parts of the dataset."
NEWS_GENRE = "news"


def paper_defaults(source: PairSource, genres_present: Sequence[str] = ()) -> dict[str, Any]:
    """The paper's filter settings where they mean something: min score 4 and max overlap 0.6 for human-scored
    pairs; no thresholds for unscored ones (Heros files, synthetic pairs: one-word edits by construction, word
    overlap about 0.9, so the paper's overlap filter would drop every one of them). Genre: for human-scored pairs
    whose genres (`genres_present`, the pair file's genre column) include a news genre, "news" (the paper kept the
    newstext parts of STS only); for a Heros file "synonym" (only that subset is a paraphrase); none otherwise
    (a file without genres, e.g. gensim's Lee pairs, which are news documents throughout)."""
    genres = ["synonym"] if source.kind == "heros" else None
    if source.scored and not source.synthetic:
        if any(_genre_match(g, [NEWS_GENRE]) for g in genres_present if g):
            genres = [NEWS_GENRE]
        return {"min_score": PAPER_MIN_SCORE, "max_overlap": PAPER_MAX_OVERLAP, "genres": genres}
    return {"min_score": None, "max_overlap": None, "genres": genres}


def _genre_match(genre: str, wanted: Sequence[str]) -> bool:
    g = genre.lower()
    return any(g == w or g.endswith("-" + w) or g.endswith("_" + w) for w in wanted)


def filter_pairs(
    pairs: Pairs,
    *,
    min_score: float | None = PAPER_MIN_SCORE,
    max_overlap: float | None = PAPER_MAX_OVERLAP,
    genres: Sequence[str] | None = None,
    measure: str = "query",
) -> FilteredPairs:
    """Keep pairs with genre in `genres`, then score >= `min_score` (0-5 scale), then word-overlap ratio <
    `max_overlap` (strictly less, as in the paper); None skips a filter. `dropped` counts, per filter in that
    order, the pairs it removed from those left by the previous ones. A genre matches case-insensitively, by
    its whole name or its last dash/underscore part ("news" matches the STS-B genre "main-news"). Each kept
    pair's overlap is in the frame's `overlap` column. Raises N2OError when nothing is left."""
    if measure not in OVERLAP_MEASURES:
        raise N2OError(f"Unknown overlap measure '{measure}'; use one of {', '.join(OVERLAP_MEASURES)}.")
    if min_score is not None and not 0 <= min_score <= 5:
        raise N2OError(f"--min-score is on the 0-5 scale (got {min_score:g}).")
    if max_overlap is not None and not 0 < max_overlap <= 1:
        raise N2OError(f"--max-overlap must be in (0, 1] (got {max_overlap:g}).")
    if min_score is not None and not pairs.source.scored:
        raise N2OError(f"The pairs from '{pairs.source.spec}' have no similarity scores; leave out --min-score.")
    df = pairs.frame.copy()
    n_loaded = len(df)
    df["overlap"] = [word_overlap(a, b, measure) for a, b in zip(df["sentence1"], df["sentence2"])]
    dropped: dict[str, int] = {}
    wanted = [g.strip().lower() for g in genres or [] if g.strip()]
    if wanted:
        have = sorted(set(df["genre"]))
        keep = df["genre"].map(lambda g: _genre_match(g, wanted))
        if not keep.any():
            raise N2OError(
                f"No pair has the genre {', '.join(wanted)}; genres in '{pairs.source.spec}': "
                f"{', '.join(g or '(none)' for g in have)}."
            )
        dropped["genre"] = int((~keep).sum())
        df = df[keep]
    if min_score is not None:
        keep = df["score"] >= min_score
        dropped["score"] = int((~keep).sum())
        df = df[keep]
    if max_overlap is not None:
        keep = df["overlap"] < max_overlap
        dropped["overlap"] = int((~keep).sum())
        df = df[keep]
    filters = {"genre": wanted or None, "min_score": min_score, "max_overlap": max_overlap, "overlap_measure": measure}
    if df.empty:
        why = ", ".join(f"{k}: {v}" for k, v in dropped.items())
        raise N2OError(
            f"No pairs are left after filtering the {n_loaded} pairs of '{pairs.source.spec}' (dropped by {why}); "
            "loosen --min-score / --max-overlap / --genre."
        )
    out = Pairs(df.reset_index(drop=True), pairs.source, pairs.extra)
    return FilteredPairs(out, dropped, filters, n_loaded)


def biggest_drop(filtered: FilteredPairs) -> tuple[str, int] | None:
    """The filter that dropped the most pairs and how many (the first in order on a tie); None when none dropped
    any."""
    if not filtered.dropped or max(filtered.dropped.values()) == 0:
        return None
    name = max(filtered.dropped, key=lambda k: filtered.dropped[k])
    return name, filtered.dropped[name]


@dataclass(frozen=True)
class LooserSetting:
    """One filter relaxed (`changed`), the others as they were: the settings, and the pairs they keep."""

    changed: str
    min_score: float | None
    max_overlap: float | None
    genres: tuple[str, ...]
    kept: int
    was: float | tuple[str, ...] | None

    def label(self) -> str:
        """'score ≥ 3 (the paper: ≥ 4)', 'word overlap < 0.85 (the paper: < 0.6)', 'every genre (the paper: news)'."""
        if self.changed == "score":
            now = "no minimum score" if self.min_score is None else f"score ≥ {self.min_score:g}"
            return f"{now} (the paper: ≥ {self.was:g})"
        if self.changed == "overlap":
            now = "no overlap limit" if self.max_overlap is None else f"word overlap < {self.max_overlap:g}"
            return f"{now} (the paper: < {self.was:g})"
        was = ", ".join(self.was) if isinstance(self.was, tuple) else str(self.was)
        return f"every genre (the paper: {was})"


def looser_setting(pairs: Pairs, filtered: FilteredPairs, want: int = PAPER_N_PAIRS) -> LooserSetting | None:
    """When `filtered` keeps fewer than `want` pairs: the filter that dropped the most (`biggest_drop`), relaxed alone
    just enough to keep `want` pairs (the paper's 75) on the sliders' steps (score: the highest multiple of 0.1;
    overlap: the lowest multiple of 0.05), or turned off when even that keeps fewer; None when `filtered` already keeps
    `want`, nothing was dropped, or relaxing adds no pair."""
    top = biggest_drop(filtered)
    if top is None or len(filtered.pairs) >= want:
        return None
    f = filtered.filters
    measure = f.get("overlap_measure", "query")
    genres = tuple(f.get("genre") or ())
    df = pairs.frame
    keep_genre = np.array([_genre_match(g, genres) for g in df["genre"]], bool) if genres else np.ones(len(df), bool)
    score = df["score"].to_numpy(float)
    overlap = np.array([word_overlap(a, b, measure) for a, b in zip(df["sentence1"], df["sentence2"])])
    min_score, max_overlap = f.get("min_score"), f.get("max_overlap")
    keep_score = score >= min_score if min_score is not None else np.ones(len(df), bool)
    keep_overlap = overlap < max_overlap if max_overlap is not None else np.ones(len(df), bool)
    name = top[0]
    if name == "genre":
        kept = int(np.sum(keep_score & keep_overlap))
        return LooserSetting("genre", min_score, max_overlap, (), kept, genres) if kept > len(filtered.pairs) else None
    others = keep_genre & (keep_overlap if name == "score" else keep_score)
    vals = score if name == "score" else overlap
    if name == "score":  # the filter dropped pairs, so it was on
        steps = [k * SCORE_STEP for k in range(math.floor(float(f["min_score"]) / SCORE_STEP + 1e-9), -1, -1)]
        counts = [int(np.sum(others & (vals >= v - 1e-9))) for v in steps]
    else:
        n_steps = round(1 / OVERLAP_STEP)
        steps = [k * OVERLAP_STEP for k in range(math.ceil(float(f["max_overlap"]) / OVERLAP_STEP - 1e-9), n_steps + 1)]
        counts = [int(np.sum(others & (vals < v - 1e-12))) for v in steps]
    chosen: float | None = None
    kept = int(np.sum(others))  # the filter off
    for v, n in zip(steps, counts):
        if n >= want:
            chosen, kept = round(v, 2), n
            break
    if kept <= len(filtered.pairs):
        return None
    if name == "score":
        return LooserSetting("score", chosen, max_overlap, genres, kept, min_score)
    return LooserSetting("overlap", min_score, chosen, genres, kept, max_overlap)


def kept_line(filtered: FilteredPairs) -> str:
    """'1,225 pairs loaded → score filter dropped 1,207 → word overlap filter dropped 0 → 18 kept'."""
    steps = " → ".join(f"{FILTER_NAMES.get(k, k)} filter dropped {v:,}" for k, v in filtered.dropped.items())
    return (
        f"{filtered.n_loaded:,} pairs loaded"
        + (f" → {steps}" if steps else " (no filter)")
        + f" → {len(filtered.pairs):,} kept"
    )


def deviations(filters: dict[str, Any], paper: dict[str, Any]) -> list[str]:
    """How `FilteredPairs.filters` differ from the paper's settings for the source (`paper_defaults`), one phrase
    per filter ("score ≥ 3.1 (the paper: ≥ 4)"); [] when they are the paper's. Only human-scored pairs have the
    paper's settings: for others (synthetic, Heros), [] always."""
    if paper.get("min_score") is None and paper.get("max_overlap") is None:
        return []
    out = []
    ms, pms = filters.get("min_score"), paper.get("min_score")
    if ms != pms:
        out.append(("no minimum score" if ms is None else f"score ≥ {ms:g}") + f" (the paper: ≥ {pms:g})")
    mo, pmo = filters.get("max_overlap"), paper.get("max_overlap")
    if mo != pmo:
        out.append(("no overlap limit" if mo is None else f"word overlap < {mo:g}") + f" (the paper: < {pmo:g})")
    g = sorted(x.lower() for x in filters.get("genre") or [])
    pg = sorted(x.lower() for x in paper.get("genres") or [])
    if g != pg:
        now = ", ".join(g) if g else "every genre"
        out.append(f"{now} (the paper: {', '.join(pg) if pg else 'every genre'})")
    return out
