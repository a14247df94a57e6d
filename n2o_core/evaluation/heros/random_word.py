"""Random-word replacements: a corpus word with the target's exact Penn tag, or a masked-LM fill.

The paper filled the masked target with bert-large-uncased and removed synonyms, antonyms and their
derivational forms (WordNet + LemmInflect). Offline, no masked LM ships, so by default the word is
drawn from the corpus itself: same fine-grained tag (so the inflection matches), seen at least
`min_count` times, not a stop word, and not a synonym/antonym/derivation of the target in any sense.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.inflect import match_case
from n2o_core.evaluation.heros.lexicon import related_lemmas
from n2o_core.runtime.import_lock import heavy_imports


def frame(tok: Any) -> str:
    """Coarse syntactic frame: a verb with/without a direct object; an attributive/predicative adjective."""
    if tok.pos_ == "ADJ":
        return "attr" if tok.dep_ == "amod" else "pred"
    return "obj" if any(c.dep_ == "dobj" for c in tok.children) else "noobj"


class TagVocab:
    """Counts of lowercase verb/adjective forms per (Penn tag, frame), with each form's lemma."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], Counter[str]] = {}
        self.lemma: dict[str, str] = {}
        self._memo: dict[tuple[str, str | None, int], list[str]] = {}

    def add(self, doc: Any) -> None:
        self._memo.clear()
        for t in doc:
            if not t.is_alpha or t.is_stop or t.pos_ not in ("VERB", "ADJ") or not t.text.islower():
                continue
            self.counts.setdefault((t.tag_, frame(t)), Counter())[t.lower_] += 1
            self.lemma.setdefault(t.lower_, t.lemma_.lower())

    def candidates(self, tag: str, frame_: str | None, min_count: int) -> list[str]:
        """Forms seen with this tag (and frame, when given) at least `min_count` times, sorted."""
        key = (tag, frame_, min_count)
        if key not in self._memo:
            total: Counter[str] = Counter()
            for (tg, fr), c in self.counts.items():
                if tg == tag and (frame_ is None or fr == frame_):
                    total.update(c)
            self._memo[key] = sorted(w for w, c in total.items() if c >= min_count and len(w) > 2)
        return self._memo[key]


def pick_corpus_word(
    vocab: TagVocab, target: Any, target_lemma: str, rng: random.Random, min_count: int = 3
) -> str | None:
    """A corpus word with the target token's tag (and frame, if possible) unrelated to it per WordNet.

    Words seen at least `min_count` times are preferred; a small corpus falls back to rarer ones.
    """
    banned = related_lemmas(target_lemma) | {target.lower_}
    for count in dict.fromkeys((min_count, 1)):
        for fr in (frame(target), None):
            pool = [
                w for w in vocab.candidates(target.tag_, fr, count) if w not in banned and vocab.lemma[w] not in banned
            ]
            if pool:
                return rng.choice(pool)
    return None


class MaskedLMFiller:
    """Fill the target's position with a masked language model (transformers fill-mask pipeline)."""

    def __init__(self, model_name: str, top_k: int = 50, pipeline_factory: Callable[..., Any] | None = None) -> None:
        try:
            if pipeline_factory is None:
                with heavy_imports():
                    from transformers import pipeline

                pipeline_factory = pipeline
            self.pipe = pipeline_factory("fill-mask", model=model_name, top_k=top_k)
        except Exception as exc:  # noqa: BLE001 - any loading failure becomes one clear user error
            raise N2OError(
                f"Cannot load the masked language model '{model_name}' (is it a fill-mask model, "
                f"downloaded or reachable?): {type(exc).__name__}."
            ) from exc
        tokenizer = getattr(self.pipe, "tokenizer", None)
        if tokenizer is None or not getattr(tokenizer, "mask_token", None):
            raise N2OError(f"The model '{model_name}' has no mask token; give a fill-mask model.")
        self.mask = tokenizer.mask_token

    def fill(self, doc: Any, i: int, target_lemma: str, tag: str) -> str | None:
        """Best-scoring complete word for token i that has the same tag and is unrelated to the target."""
        from lemminflect import getAllLemmas, getInflection

        text = "".join((self.mask if t.i == i else t.text) + t.whitespace_ for t in doc)
        banned = related_lemmas(target_lemma)
        for cand in self.pipe(text):
            word = str(cand.get("token_str", "")).strip()
            if not word.isalpha() or word.lower() in banned:
                continue
            lemmas = {lem.lower() for forms in getAllLemmas(word.lower()).values() for lem in forms}
            if lemmas & banned:
                continue
            if any(word.lower() in getInflection(lem, tag=tag) for lem in lemmas):
                return match_case(word.lower(), doc[i].text)
        return None
