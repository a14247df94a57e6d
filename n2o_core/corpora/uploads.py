"""Corpora uploaded in the dashboard, kept in the disk cache so that an `upload:<fingerprint>` link keeps working.

An upload is stored as one JSON cache entry (`uploads/<fingerprint>.json`: name, texts, duplicates removed), with
the cache's sidecar check, so a damaged file is detected and reported instead of read. Uploads are capped at
`MAX_UPLOAD_MB`, or `$N2O_MAX_UPLOAD_MB` (the browser refuses bigger files; `check_upload_size` refuses them on
the server too, since a crafted request can skip the browser's check).
"""

from __future__ import annotations

import dataclasses
import re

from n2o_core.corpora.corpus import Corpus, from_texts
from n2o_core.errors import CorpusError
from n2o_core.runtime.server_mode import DEFAULT_MAX_UPLOAD_MB, upload_limit_mb
from n2o_core.storage.cache import Cache

__all__ = [
    "MAX_UPLOAD_MB",
    "UPLOAD_PREFIX",
    "check_upload_size",
    "is_upload_spec",
    "load_upload",
    "save_upload",
    "upload_name",
]

UPLOAD_PREFIX = "upload:"
#: The largest corpus file the dashboard accepts, in MB (10^6 bytes, as Streamlit counts them): about 500,000
#: sentences, well above what the dashboard's sentence caps compare.
MAX_UPLOAD_MB = DEFAULT_MAX_UPLOAD_MB
_SPEC = re.compile(r"^upload:[0-9a-f]{8,64}$")


def is_upload_spec(spec: str) -> bool:
    """`upload:<hex fingerprint>` (nothing else: the name becomes a cache path)."""
    return bool(_SPEC.match(spec))


def check_upload_size(filename: str, n_bytes: int) -> None:
    """CorpusError naming the cap when an upload is larger than the server's limit (N2O_MAX_UPLOAD_MB,
    default MAX_UPLOAD_MB; `runtime.server_mode.upload_limit_mb`)."""
    limit = upload_limit_mb()
    if n_bytes > limit * 1_000_000:
        raise CorpusError(
            f"'{filename[:120]}' is {n_bytes / 1e6:,.1f} MB; uploads are limited to {limit} MB. "
            "Upload a sample of it, or use the command line (python -m n2o_core compare --corpus FILE)."
        )


def _rel(spec_or_fp: str) -> str:
    fp = spec_or_fp[len(UPLOAD_PREFIX) :] if spec_or_fp.startswith(UPLOAD_PREFIX) else spec_or_fp
    if not re.fullmatch(r"[0-9a-f]{8,64}", fp):
        raise CorpusError(f"'{spec_or_fp[:80]}' is not an uploaded corpus.")
    return f"uploads/{fp}.json"


def save_upload(cache: Cache, corpus: Corpus) -> str:
    """Keep an uploaded corpus in the cache; returns its spec `upload:<fingerprint>`."""
    rel = _rel(corpus.fingerprint)
    if not cache.has(rel):
        doc = {"name": corpus.name, "texts": list(corpus.texts), "n_duplicates": corpus.n_duplicates}
        cache.save_json(rel, doc, description=f"uploaded corpus {corpus.name} ({len(corpus):,} sentences)")
    return UPLOAD_PREFIX + corpus.fingerprint


def _document(cache: Cache, spec: str) -> dict | None:
    doc = cache.load_json(_rel(spec))
    if not isinstance(doc, dict) or not isinstance(doc.get("texts"), list):
        return None
    return doc


def upload_name(cache: Cache, spec: str) -> str | None:
    """Display name of a kept upload ('name (N sentences)'), or None when it is not in this cache."""
    try:
        doc = _document(cache, spec)
    except CorpusError:
        return None
    if doc is None:
        return None
    return f"{doc.get('name', 'upload')} ({len(doc['texts']):,} sentences)"


def load_upload(cache: Cache, spec: str) -> Corpus:
    """The uploaded corpus behind `spec` (CorpusError when it is no longer in this cache)."""
    doc = _document(cache, spec)
    if doc is None:
        raise CorpusError("The uploaded corpus in this link is no longer on this server; upload the file again.")
    corpus = from_texts([str(t) for t in doc["texts"]], str(doc.get("name", "upload")), source=spec)
    # the stored texts are already deduplicated: the duplicates removed from the uploaded file are the stored count
    dropped = doc.get("n_duplicates", 0)
    if isinstance(dropped, int) and not isinstance(dropped, bool) and dropped > 0:
        corpus = dataclasses.replace(corpus, n_duplicates=dropped)
    return corpus
