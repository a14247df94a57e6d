"""Notices: one sentence about something slow or degraded that the user should see while it happens
(waiting for another process's cache lock, approximate search falling back to exact search).

The core calls `notify(sentence)`; a front end shows the sentences with `listen(callback)` around its work (the
CLI prints `note: ...` to stderr, the app writes them on the embedder's status line). Listeners are per thread
and task (a context variable), so each dashboard session sees only its own notices. Without a listener the
sentence goes to the `n2o_core` log as a warning.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Callable, Iterator

__all__ = ["listen", "notify"]

log = logging.getLogger("n2o_core")
_listener: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "n2o_notice_listener", default=None
)


@contextlib.contextmanager
def listen(callback: Callable[[str], None]) -> Iterator[None]:
    """Within the block (this thread or task), notices go to `callback(sentence)` instead of the log."""
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)


def notify(sentence: str) -> None:
    """Tell the current listener (else the log); a failing listener never breaks the caller."""
    cb = _listener.get()
    if cb is not None:
        try:
            cb(sentence)
            return
        except Exception:  # noqa: BLE001 - a notice is best effort
            pass
    log.warning("%s", sentence)
