"""What an N2O value's meaning depends on, worded next to it (docs: design.md, "Numbers at face value"): chance
k/(N - 1) when it is a large share of the values, k as a share of the N - 1 candidates, query samples that cover
the corpus, and corpus-trained embedders fit on fewer sentences than they need. Pure rules over numbers the
comparison already has; the pages and the CLI word them with `FaceValue.notes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from n2o_core.analyses.overlap import chance_level, pair_values
from n2o_core.limits import K_SHARE_MAX, k_share_cap

#: Chance is written in every cell of the heatmap (as a multiple, "1.6×") when it is at least this share of the
#: median pair's N2O: below it, chance is a small correction and the colour bar's tick says enough.
CHANCE_SHOWN_FROM = 0.1


def chance_share(values: np.ndarray, chance: float) -> float:
    """Chance as a share of the median of the finite `values` (NaN without values or with a median of 0)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan")
    med = float(np.median(v))
    return chance / med if med > 0 else float("inf") if chance > 0 else float("nan")


def chance_in_cells(values: np.ndarray, chance: float) -> bool:
    """Whether chance is at least CHANCE_SHOWN_FROM of the median value (then every N2O is shown beside it)."""
    share = chance_share(values, chance)
    return bool(np.isfinite(share) and share >= CHANCE_SHOWN_FROM) or share == float("inf")


@dataclass(frozen=True)
class NoiseSize:
    """Below `sentences` training sentences, a corpus-trained embedder's neighbors are noise (the rule of
    benchmarks/small_corpus_noise.py); `at_least`: the rule was not met even at the largest size measured, so the
    true size is larger still."""

    sentences: int
    at_least: bool = False

    def words(self) -> str:
        return f"{'more than ' if self.at_least else ''}{self.sentences:,}"


#: Measured by benchmarks/small_corpus_noise.py (results/small_corpus_noise.txt, grid 50 ... 20,000 sentences, 3 draws
#: each): trained on n BBC sentences, a recipe keeps less than half of the neighbor agreement above chance that two
#: seeds of the same recipe trained on all 38,019 BBC sentences share, at every n of the grid below this size
#: (word2vec: 0.24 at 10,000, 0.56 at 20,000); `at_least`: still below half at 20,000, the largest size measured
#: (word2vec-nostop 0.47, fastText 0.39, fastText-nostop 0.41, fastText with subwords 0.26 and 0.29 without stop
#: words). tf-idf kept 0.75-0.94 at every size from 50 sentences on: it is not flagged.
TRAINED_NOISE_BELOW: dict[str, NoiseSize] = {
    "word2vec": NoiseSize(20_000),
    "word2vec-nostop": NoiseSize(20_000, at_least=True),
    "fasttext": NoiseSize(20_000, at_least=True),
    "fasttext-nostop": NoiseSize(20_000, at_least=True),
    "fasttext-sub": NoiseSize(20_000, at_least=True),
    "fasttext-sub-nostop": NoiseSize(20_000, at_least=True),
}


def noise_size(eid: str) -> NoiseSize | None:
    """The measured size below which `eid`'s neighbors are noise (None: not trained on the corpus, or not measured)."""
    return TRAINED_NOISE_BELOW.get(eid)


def trained_on_too_few(embedders: Sequence[str], fit_size: int) -> dict[str, NoiseSize]:
    """The corpus-trained embedders among `embedders` fit on fewer than their noise size of sentences."""
    out = {}
    for e in embedders:
        size = noise_size(e)
        if size is not None and (fit_size < size.sentences or (size.at_least and fit_size <= size.sentences)):
            out[e] = size
    return out


@dataclass(frozen=True)
class FaceValue:
    """Everything a heatmap's numbers must be read against, for one comparison."""

    corpus_size: int
    k: int
    values: np.ndarray = field(repr=False)  # the off-diagonal N2O values
    fit_size: int = 0  # sentences the corpus-trained embedders are fit on
    sampling_note: str = ""  # `QueryPlan.sampling_note()`
    trained: Mapping[str, NoiseSize] = field(default_factory=dict)

    @property
    def chance(self) -> float:
        return chance_level(self.k, self.corpus_size)

    @property
    def chance_share(self) -> float:
        return chance_share(self.values, self.chance)

    @property
    def chance_in_cells(self) -> bool:
        return chance_in_cells(self.values, self.chance)

    @property
    def k_share(self) -> float:
        """k as a share of the N - 1 candidates (= chance)."""
        return self.chance

    @property
    def k_too_large(self) -> bool:
        """Whether k is more than K_SHARE_MAX of the N - 1 candidates."""
        return self.k > k_share_cap(self.corpus_size)

    def chance_note(self) -> str:
        """The chance level against the values, when it is shown in the cells ('' otherwise)."""
        if not self.chance_in_cells:
            return ""
        share = self.chance_share
        of = "above the median N2O" if share > 1 else f"{share:.0%} of the median N2O"
        return (
            f"Chance k/(N−1) = {self.k}/{self.corpus_size - 1:,} = {self.chance:.3f} is {of} here (shown in every "
            f"cell from {CHANCE_SHOWN_FROM:.0%} on): each cell's second line is its N2O as a multiple of chance, "
            "and only the distance above chance says how alike two embedders are."
        )

    def k_note(self) -> str:
        if not self.k_too_large:
            return ""
        return (
            f"k = {self.k} is {self.k_share:.0%} of the {self.corpus_size - 1:,} other sentences (more than "
            f"{K_SHARE_MAX:.0%}): random neighbors would already share {self.chance:.2f} of them. k ≤ "
            f"{k_share_cap(self.corpus_size)} keeps it within {K_SHARE_MAX:.0%}."
        )

    def trained_note(self) -> str:
        if not self.trained:
            return ""
        names = ", ".join(self.trained)
        by_size: dict[str, list[str]] = {}
        for e, size in self.trained.items():
            by_size.setdefault(size.words(), []).append(e)
        below = "; ".join(f"{w} for {', '.join(es)}" for w, es in by_size.items())
        verb = "is" if len(self.trained) == 1 else "are"
        said = f"{names} {verb} trained on this corpus's {self.fit_size:,} sentences, and their neighbors are mostly "
        said += f"noise below {below} training sentences (measured on BBC News: trained on fewer, they keep less "
        said += "than half of the neighbor agreement above chance that two seeds of the same recipe trained on all "
        said += "38,019 sentences share). Read their N2O as such, or train them with the built-in BBC corpus (the "
        return said + "sidebar's switch) while comparing these sentences."

    def notes(self) -> list[str]:
        """Every note that applies, in reading order."""
        return [n for n in (self.chance_note(), self.k_note(), self.sampling_note, self.trained_note()) if n]


def face_value(
    mean: np.ndarray,
    k: int,
    corpus_size: int,
    *,
    embedders: Sequence[str] = (),
    fit_size: int | None = None,
    sampling_note: str = "",
) -> FaceValue:
    """The `FaceValue` of an N2O matrix (`ComparisonResult.mean`) at k on an N-sentence corpus whose corpus-trained
    embedders are fit on `fit_size` sentences (default N)."""
    fit = corpus_size if fit_size is None else int(fit_size)
    return FaceValue(
        corpus_size,
        int(k),
        pair_values(np.asarray(mean, float)),
        fit,
        sampling_note,
        trained_on_too_few(embedders, fit),
    )
