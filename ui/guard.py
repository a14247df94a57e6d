"""Errors shown in place: a clear sentence, never a traceback (tracebacks go to the server log)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from n2o_core.errors import N2OError

log = logging.getLogger("n2o_explorer")


def message(e: BaseException, what: str = "") -> str:
    """The user-facing sentence for an exception."""
    if isinstance(e, N2OError):
        return str(e)
    prefix = f"{what} failed" if what else "Something failed"
    return f"{prefix} unexpectedly ({type(e).__name__}); the details are in the server log."


@contextlib.contextmanager
def shown(what: str = "", stop: bool = False) -> Iterator[None]:
    """Run a block; on error show `st.error` with one sentence (and stop the page when `stop`)."""
    try:
        yield
    except ScriptControlException:  # st.stop / st.rerun pass through
        raise
    except N2OError as e:
        st.error(str(e), icon="⚠️")
        if stop:
            st.stop()
    except Exception as e:  # noqa: BLE001 - the last resort: the page keeps working
        log.exception("%s failed", what or "a dashboard block")
        st.error(message(e, what), icon="⚠️")
        if stop:
            st.stop()
