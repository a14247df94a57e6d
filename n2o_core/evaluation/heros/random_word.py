"""Random-word replacements, as in Heros' Random MLM subset: a word that fits the slot and means something else.

The paper filled the masked target with bert-large-uncased and removed synonyms, antonyms and their
derivational forms (WordNet + LemmInflect), then by hand the fills still close in meaning. Offline, no masked LM
ships, so by default the word is drawn from the vetted lexicon (`vetted.py`): a word that takes the target's frame
(a direct object, a clause, "to", "of" ...), in the target's exact Penn tag, of another meaning class, and not a
WordNet synonym, antonym or derivation of the target in any sense. `--mlm-model` names a fill-mask model instead.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from typing import Any

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.inflect import match_case
from n2o_core.evaluation.heros.lexicon import related_lemmas
from n2o_core.evaluation.heros.vetted import Entry, Slot, random_candidates
from n2o_core.runtime.import_lock import heavy_imports


def pick_vetted_word(
    target: Entry,
    slot: Slot,
    tag: str,
    rng: random.Random,
    present: Collection[str],
    form_of: Callable[[str, str], str | None],
) -> str | None:
    """A vetted word for the target's slot, inflected to `tag` by `form_of`, unrelated to the target per WordNet
    and not already in the sentence in any form (`present`: its words and lemmas, lowercase); None when none fits."""
    banned = related_lemmas(target.lemma)
    pool = []
    for lemma in random_candidates(target, slot):
        if lemma in banned or target.lemma in related_lemmas(lemma):
            continue
        form = form_of(lemma, tag)
        if form is not None and form.lower() not in present and lemma not in present:
            pool.append(form)
    return rng.choice(pool) if pool else None


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
