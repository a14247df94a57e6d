"""N2O Explorer: how differently do these sentence embedders see the same text?

The engine behind the dashboard and the command line, as a Python API (no UI):

    import n2o_core as n2o

    n2o.list_embedders()                                   # ids, families, compositions, dimensions
    corpus = n2o.load_corpus("builtin:bbc-news", max_sentences=2000)
    res = n2o.compare(corpus, ["tfidf", "glove-6b-50d"], k=10)
    res.to_frame()                                         # N2O of every pair, with its spread and chance level
    n2o.agreement(corpus, ["tfidf", "glove-6b-50d"], k=10) # per-sentence N2O, every sentence a query
    n2o.needle(corpus, ["tfidf"], pairs="builtin:lee")     # the paraphrase needle (N2O §8)
    n2o.sts("builtin:lee", ["tfidf"])                      # cosine vs human similarity (Pitfalls)
    n2o.heros(corpus, ["glove-6b-50d"], n_pairs=200)       # HEROS-style minimal pairs
    n2o.probe(corpus, ["glove-6b-50d"], tasks="sentlen")   # SentEval probing tasks built from the corpus
    n2o.similarity_measures(corpus, ["tfidf", "glove-6b-50d"])  # CKA, CKNNA, RSA, Procrustes, CCA; nulls
    n2o.variant_analysis(corpus, "minilm-l6-mean")         # its layers, compressions (@binary...) and index

Each result has `.to_frame()` (pandas) and `.to_json()` (the document the CLI writes). The functions live in
`n2o_core.api` and are imported on first use, so `import n2o_core` stays light. The folders below are the
engine itself (docs/architecture.md): pipeline, storage, runtime, search, corpora, embedders, analyses,
evaluation, measures, figures, export, cli.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from n2o_core.version import __version__

__all__ = [
    "N2OError",
    "__version__",
    "agreement",
    "compare",
    "heros",
    "list_embedders",
    "load_corpus",
    "needle",
    "probe",
    "similarity_measures",
    "sts",
    "variant_analysis",
    "workspace",
]

if TYPE_CHECKING:
    from n2o_core.api import (
        agreement,
        compare,
        heros,
        list_embedders,
        load_corpus,
        needle,
        probe,
        similarity_measures,
        sts,
        variant_analysis,
        workspace,
    )
    from n2o_core.errors import N2OError

_API = {
    "agreement",
    "compare",
    "heros",
    "list_embedders",
    "load_corpus",
    "similarity_measures",
    "needle",
    "probe",
    "sts",
    "variant_analysis",
    "workspace",
}


def __getattr__(name: str) -> Any:
    """The API's functions, imported on first use."""
    if name in _API:
        import n2o_core.api as api

        return getattr(api, name)
    if name == "N2OError":
        import n2o_core.errors as errors

        return errors.N2OError
    raise AttributeError(f"module 'n2o_core' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
