"""How long checking findings will take here, before the button is pressed: `estimate_check`, a pure function of
what is missing and of the timings kept in the cache (`store.load_timings`).

The rule. A check computes each of its analyses (neighbors, heros, sts, probe) that is not computed yet for these
settings, and each costs
- its **body**: the last time it ran here, less the embedding it had to do then (the embedding term below for the
  embedders it recorded as not cached), scaled linearly by its size (`analysis_size`: sentences × runs × embedders
  for neighbors and probing, minimal pairs × runs × embedders for HEROS, embedders for the Lee pairs, which do not
  change with the corpus); before it ever ran here, the same from a recorded benchmark (`PRIOR`, each with its
  source);
- plus, for the neighbors analysis, an **embedding term** for each of its embedders whose corpus vectors are not
  cached yet: seconds from the recorded run of `warm` on an empty cache (benchmarks/results/probe_cold_default.txt:
  5,000 BBC sentences, embedded and every sentence's neighbors found, one embedder at a time, on a quiet 2-core
  machine), scaled linearly by the sentences, except the corpus-trained word vectors, which train on the built-in
  corpus whatever the size compared (the same seconds at every size). MiniLM's [CLS] vectors come from the same
  forward pass as its mean: nothing more when both are missing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from n2o_core.evaluation.findings.store import AnalysisTiming
from n2o_core.evaluation.findings.verdict import HEROS, NEIGHBORS, PROBE, STS
from n2o_core.runtime.progress import how_long

#: Where the embedding seconds come from.
EMBED_SOURCE = (
    "`warm` on an empty cache, 5,000 sentences, a quiet 2-core machine (benchmarks/results/probe_cold_default.txt)"
)
EMBED_SENTENCES = 5000
#: Seconds to embed 5,000 sentences and find every sentence's neighbors, per embedder, as recorded there.
EMBED_SECONDS: dict[str, float] = {
    "tfidf": 2.2,
    "glove-6b-50d": 1.3,
    "word2vec": 13.7,
    "fasttext-sub": 16.3,
    "minilm-l6-mean": 13.6,
    "paraphrase-minilm-l3-mean": 6.8,
}
#: Embedders not in that run, costed as the one named (the same recipe: fastText's whole words train as word2vec
#: does; the stop-word GloVe averages the same vectors); any other embedder costs as MiniLM-L6 (a transformer).
EMBED_LIKE: dict[str, str] = {
    "fasttext": "word2vec",
    "glove-6b-50d-nostop": "glove-6b-50d",
    "word2vec-nostop": "word2vec",
    "minilm-l6-cls": "minilm-l6-mean",
}
#: Trained on the built-in corpus whatever the compared corpus's size: their seconds do not scale with it.
TRAINED = frozenset({"word2vec", "fasttext", "fasttext-sub", "word2vec-nostop"})
#: Embedders computed in one pass with another: free when that one is computed too.
SAME_PASS: dict[str, str] = {"minilm-l6-cls": "minilm-l6-mean"}

#: Each analysis's time before it ever ran here, from a recorded benchmark (the `where` says which).
PRIOR: dict[str, AnalysisTiming] = {
    NEIGHBORS: AnalysisTiming(
        7.2,
        5000 * 3 * 8,
        5000,
        where="the findings' whole 'Check all' over a filled cache, 7.2 s for 5,000 sentences on a quiet 2-core "
        "machine (benchmarks/results/first_views_findings_after.txt), all counted as the neighbors' time",
    ),
    HEROS: AnalysisTiming(
        17.1,
        100 * 1 * 3,
        2000,
        where="`heros` on an empty cache (WordNet and spaCy load, pairs made, 3 embedders): 17.1 s for 100 pairs per "
        "subset, recorded at load 2.4 (benchmarks/results/bench_heros_cache.txt)",
    ),
    PROBE: AnalysisTiming(
        136.6,
        5000 * 1 * 6,
        5000,
        where="cold probing at the page's default, 10 tasks × 6 embedders on 5,000 sentences in 136.6 s on a quiet "
        "2-core machine (benchmarks/results/probe_cold_default.txt)",
    ),
    STS: AnalysisTiming(
        0.9,
        6,
        0,
        where="the human-similarity page's first view over a filled cache, 0.9 s for 6 embedders on a quiet 2-core "
        "machine (benchmarks/results/first_views_findings_after.txt)",
    ),
}


def analysis_size(analysis: str, run_sentences: Sequence[int], n_seeds: int, heros_pairs: int, embedders: int) -> float:
    """An analysis's size in the units its time scales with: sentences × runs × embedders (neighbors, probing;
    `run_sentences`: each corpus size of the runs), minimal pairs per subset × runs × embedders (HEROS), embedders
    (the Lee pairs: one run, whatever the corpus)."""
    runs = len(run_sentences) * max(n_seeds, 1)
    if analysis == HEROS:
        return float(heros_pairs * runs * embedders)
    if analysis == STS:
        return float(embedders)
    return float(sum(run_sentences) * max(n_seeds, 1) * embedders)


def embed_seconds(eid: str, sentences: int, also: Collection[str] = ()) -> float:
    """Seconds to embed `sentences` with `eid` and find their neighbors (the module docstring's rule); 0 for an
    embedder computed in one pass with one of `also`."""
    if SAME_PASS.get(eid) in also:
        return 0.0
    ref = EMBED_LIKE.get(eid, eid)
    s = EMBED_SECONDS.get(ref, EMBED_SECONDS["minilm-l6-mean"])
    return s if ref in TRAINED else s * sentences / EMBED_SENTENCES


@dataclass(frozen=True)
class Part:
    """One analysis of a check: its body's seconds and where they come from."""

    analysis: str
    seconds: float
    basis: str


@dataclass(frozen=True)
class CheckEstimate:
    """How long a check will take here: its analyses, the embedding term and which embedders it embeds."""

    parts: tuple[Part, ...]
    embed_seconds: float
    embed: tuple[str, ...]

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.parts) + self.embed_seconds

    def short(self) -> str:
        """'about 6 min here', 'about 40 s here', or 'nothing to compute'."""
        if not self.parts:
            return "nothing to compute"
        return f"{how_long(self.seconds)} here"  # the probing page's wording

    def basis(self) -> str:
        """Where each part comes from, in words."""
        lines = [f"{p.analysis}: {p.seconds:.0f} s, {p.basis}" for p in self.parts]
        if self.embed:
            lines.append(
                f"embedding the corpus with {', '.join(self.embed)} (not cached yet): {self.embed_seconds:.0f} s, "
                f"from {EMBED_SOURCE}"
            )
        return "; ".join(lines)


def estimate_check(
    todo: Sequence[tuple[str, tuple[str, ...]]],
    run_sentences: Sequence[int],
    n_seeds: int,
    heros_pairs: int,
    missing_vectors: Collection[str],
    timings: Mapping[str, AnalysisTiming],
) -> CheckEstimate:
    """The module docstring's rule for the analyses in `todo` ((analysis, its embedders), each not computed yet),
    on runs over `run_sentences` (each run's corpus size) × `n_seeds`, given the embedders whose corpus vectors are
    not cached (`missing_vectors`) and the last timings here (`timings`; `PRIOR` for an analysis without one)."""
    parts = []
    embed: list[str] = []
    for analysis, embedders in todo:
        t = timings.get(analysis)
        basis = "scaled from its last run here"
        if t is None:
            t, basis = PRIOR[analysis], "scaled from " + PRIOR[analysis].where
        body = max(0.0, t.seconds - sum(embed_seconds(e, t.sentences, t.embedded) for e in t.embedded))
        if t.embedded:
            basis += " (less its embedding then)"
        size = analysis_size(analysis, run_sentences, n_seeds, heros_pairs, len(embedders))
        parts.append(Part(analysis, body * size / t.size if t.size > 0 else body, basis))
        if analysis == NEIGHBORS:
            embed += [e for e in embedders if e in missing_vectors and e not in embed]
    embedding = sum(embed_seconds(e, n, embed) for e in embed for n in run_sentences)
    return CheckEstimate(tuple(parts), embedding, tuple(embed))


def timing_of(
    analysis: str,
    run_sentences: Sequence[int],
    n_seeds: int,
    heros_pairs: int,
    embedders: Sequence[str],
    corpus_sentences: int,
    seconds: float,
    missing: Collection[str],
) -> AnalysisTiming:
    """What a check of one analysis keeps of its duration: its size in the analysis's units, the corpus size, and
    the embedders whose corpus vectors it had to compute (`missing`; only the neighbors analysis embeds them)."""
    size = analysis_size(analysis, run_sentences, n_seeds, heros_pairs, len(embedders))
    embedded = tuple(e for e in embedders if e in missing) if analysis == NEIGHBORS else ()
    return AnalysisTiming(round(seconds, 2), size, corpus_sentences, embedded)
