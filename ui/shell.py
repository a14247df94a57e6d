"""Keep every run going through app.py's st.navigation even though the page scripts live in pages/.

Streamlit decides once per process, before the first run, whether the app is a v1 multipage app: if a pages/
folder sits next to the entry script it runs the first request through its own page list, so a first visit to
a deep link (say /query on a fresh server) would run pages/query.py alone, without app.py's sidebar. Calling
st.navigation switches the process to v2 for good; this guard does that switch on that first run and reruns,
so the same URL is served by app.py. Later runs pay one attribute read.
"""

from __future__ import annotations

import streamlit as st


def through_app() -> None:
    """Rerun through app.py if Streamlit started this run in v1 (pages/ folder) mode."""
    try:
        from streamlit.runtime.pages_manager import PagesManager  # noqa: PLC0415
    except ImportError:  # a Streamlit without the v1/v2 split: nothing to do
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()
