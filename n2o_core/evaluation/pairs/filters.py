"""The paper's filters (N2O section 8): score in the 4-5 range and word-overlap ratio < 0.6 (`word_overlap`, see the
package docstring), and the genre; `filter_pairs` applies them, `paper_defaults` says which apply to a source."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from n2o_core.errors import N2OError
from n2o_core.evaluation.pairs.frame import FilteredPairs, Pairs, PairSource
from n2o_core.text import token_set

#: The paper's filters (N2O section 8): score in the 4-5 range, word-overlap ratio < 0.6.
PAPER_MIN_SCORE = 4.0
PAPER_MAX_OVERLAP = 0.6
OVERLAP_MEASURES = ("query", "jaccard")


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
