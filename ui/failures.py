"""Failures remembered per visitor session (a failed embedder, an unreachable Dask scheduler), never per process:
one visitor's failed attempt is never another visitor's banner or "Retry failed embedders" button.

What succeeded stays shared (the Workspace, the neighbor memos, the disk cache); only the sentence of a failure,
which spares the same visitor a second slow attempt on every rerun, lives in `st.session_state`. Outside a
Streamlit session (a bare script, a unit test) one fallback store is used.
"""

from __future__ import annotations

from collections.abc import Hashable, MutableMapping

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from n2o_core.runtime.memo import LRU

#: The session-state key of the store: {(area, key): sentence}.
STATE_KEY = "_n2o_failures"
_BARE: LRU[tuple[str, Hashable], str] = LRU(1024)  # outside a session (scripts, tests): bounded


def _store() -> MutableMapping[tuple[str, Hashable], str]:
    if get_script_run_ctx(suppress_warning=True) is None:
        return _BARE
    store: dict[tuple[str, Hashable], str] = st.session_state.setdefault(STATE_KEY, {})
    return store


def get(area: str, key: Hashable) -> str | None:
    """The sentence of a failure this session remembers (None when there is none)."""
    return _store().get((area, key))


def remember(area: str, key: Hashable, sentence: str) -> str:
    """Remember a failure for this session; returns the sentence."""
    _store()[(area, key)] = sentence
    return sentence


def items(area: str | None = None) -> dict[tuple[str, Hashable], str]:
    """This session's failures (of one area, or all)."""
    return {k: v for k, v in _store().items() if area is None or k[0] == area}


def clear(area: str | None = None) -> None:
    """Forget this session's failures (of one area, or all), so the next run tries again."""
    store = _store()
    for k in [k for k in store if area is None or k[0] == area]:
        del store[k]
