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


#: The built-in corpus the corpus-trained embedders can also be trained on (the dashboard's switch, `compare
#: --train-with`): the corpus their noise sizes were measured on.
TRAIN_WITH = "bbc-news"
#: Sentences of the built-in BBC News corpus (`builtin:bbc-news`), the training size the noise sizes compare with.
BBC_SENTENCES = 38_019


@dataclass(frozen=True)
class Note:
    """One thing a comparison's numbers must be read against: `text` in full (the pages, the CLI, JSON), `short`
    in one line (talk mode, with `text` on hover), `level` "info" or "warning", `id` one of "chance", "k",
    "samples", "trained"."""

    id: str
    text: str
    short: str
    level: str = "info"

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "level": self.level, "text": self.text}


def listed(names: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}" if names else ""


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

    def _chance_against(self) -> str:
        share = self.chance_share
        return "above the median N2O" if share > 1 else f"{share:.0%} of the median N2O"

    def chance_note(self) -> str:
        """The chance level against the values, when it is a large share of them ('' otherwise)."""
        if not self.chance_in_cells:
            return ""
        return (
            f"Chance k/(N−1) = {self.k}/{self.corpus_size - 1:,} = {self.chance:.3f} is {self._chance_against()} "
            f"here (noted from {CHANCE_SHOWN_FROM:.0%} on): only the distance above chance says how alike two "
            "embedders are."
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
        """Corpus-trained embedders fit on fewer sentences than their measured noise size: what, why (measured),
        what to do."""
        if not self.trained:
            return ""
        one = len(self.trained) == 1
        it, its = ("it", "its") if one else ("they", "their")
        by_size: dict[str, list[str]] = {}
        for e, size in self.trained.items():
            by_size.setdefault(size.words(), []).append(e)
        need = ", while ".join(
            f"{listed(es)} need{'s' if len(es) == 1 else ''} {w}{' training sentences' if i == 0 else ''}"
            for i, (w, es) in enumerate(by_size.items())
        )
        return (
            f"{listed(list(self.trained))} {'is' if one else 'are'} trained on only {self.fit_size:,} sentences "
            f"here, so {its} neighbors are mostly noise. Measured on BBC News, {need} (trained on fewer, "
            f"{'it keeps' if one else 'each keeps'} less than half of the neighbor agreement above chance that two "
            f"training runs on all {BBC_SENTENCES:,} BBC sentences share). Read {its} N2O with this in mind, or "
            f"train {it if one else 'them'} on the built-in BBC News corpus plus these sentences (the sidebar's "
            f"switch, or --train-with {TRAIN_WITH} on the command line)."
        )

    def notes(self) -> list[Note]:
        """Every note that applies, in reading order (each in full and in one line)."""
        n = self.corpus_size
        out = []
        if self.chance_in_cells:
            short = f"Chance k/(N−1) = {self.chance:.3f} is {self._chance_against()}."
            out.append(Note("chance", self.chance_note(), short))
        if self.k_too_large:
            short = f"k = {self.k} is {self.k_share:.0%} of the {n - 1:,} other sentences (over {K_SHARE_MAX:.0%})."
            out.append(Note("k", self.k_note(), short))
        if self.sampling_note:
            short = f"One query sample of all {n:,} sentences: no spread across samples."
            out.append(Note("samples", self.sampling_note, short))
        if self.trained:
            names, one = listed(list(self.trained)), len(self.trained) == 1
            short = (
                f"{names} {'is' if one else 'are'} trained on only {self.fit_size:,} sentences: "
                f"{'its' if one else 'their'} neighbors are mostly noise."
            )
            out.append(Note("trained", self.trained_note(), short, "warning"))
        return out


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
