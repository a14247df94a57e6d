"""User-facing errors: one clear sentence, shown as-is by the CLI (exit 2) and the app."""


class N2OError(ValueError):
    """Bad input or an unusable resource; the message is meant for the user."""


class CorpusError(N2OError):
    """A corpus that cannot be read or is unusable (empty, too small, unreadable, not UTF-8)."""


class EmbedderError(N2OError):
    """An embedder that is unknown, fails to load, or returns unusable vectors."""


class CacheError(N2OError):
    """A cache location that cannot be used."""
