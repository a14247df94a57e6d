"""N2O Explorer core: corpora, embedders, cache, neighbors and overlap analyses (no UI)."""

__version__ = "0.1.0"

#: Bumped whenever a change alters cached arrays; part of every cache key.
CACHE_CODE_VERSION = "1"
