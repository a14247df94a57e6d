"""Errors shown in place: a clear sentence, never a traceback (tracebacks go to the server log)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from n2o_core.errors import N2OError
from n2o_core.text import escape_markup

log = logging.getLogger("n2o")
_LOGGED = "_n2o_logged"


def message(e: BaseException, what: str = "") -> str:
    """The user-facing sentence for an exception. An unexpected one (not an N2OError) is logged here, with its
    traceback, on the logger 'n2o' (once per exception), so the sentence's "details in the server log" holds."""
    if isinstance(e, N2OError):
        return str(e)
    prefix = f"{what} failed" if what else "Something failed"
    if not getattr(e, _LOGGED, False):
        log.error("%s unexpectedly", prefix, exc_info=e)
        with contextlib.suppress(AttributeError, TypeError):  # a few built-in exceptions take no attributes
            setattr(e, _LOGGED, True)
    return f"{prefix} unexpectedly ({type(e).__name__}); the details are in the server log."


@contextlib.contextmanager
def shown(what: str = "", stop: bool = False) -> Iterator[None]:
    """Run a block; on error show `st.error` with one sentence (and stop the page when `stop`)."""
    try:
        yield
    except ScriptControlException:  # st.stop / st.rerun pass through
        raise
    except N2OError as e:
        st.error(escape_markup(str(e)), icon="⚠️")
        if stop:
            st.stop()
    except Exception as e:  # noqa: BLE001 - the last resort: the page keeps working (`message` logs it)
        st.error(escape_markup(message(e, what)), icon="⚠️")
        if stop:
            st.stop()
