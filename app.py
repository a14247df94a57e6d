"""N2O Explorer: `streamlit run app.py`. st.navigation over the page scripts in pages/ and the sidebar with the
shared choices.

Streamlit still treats a pages/ folder next to the entry script as a v1 multipage app on a process's first run
(and on every AppTest run); ui.shell.through_app, called first here and in every page, turns that off and
reruns, so a shared deep link on a fresh server is served by this script with its sidebar.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import streamlit as st  # noqa: E402

from ui import sidebar  # noqa: E402
from ui.shell import through_app  # noqa: E402

through_app()

st.set_page_config(page_title="N2O Explorer", page_icon=":material/hub:", layout="wide")

PAGES = [
    st.Page("pages/heatmap.py", title="N2O heatmap", icon=":material/grid_on:", url_path="heatmap", default=True),
    st.Page("pages/query.py", title="Query explorer", icon=":material/manage_search:", url_path="query"),
    st.Page("pages/tokens.py", title="Token overlap", icon=":material/abc:", url_path="tokens"),
    st.Page("pages/heros.py", title="HEROS subsets", icon=":material/science:", url_path="heros"),
    st.Page("pages/about.py", title="About", icon=":material/info:", url_path="about"),
]

page = st.navigation(PAGES)
st.sidebar.title("N2O Explorer")
st.sidebar.caption("How similar are sentence embedders? Nearest-neighbor overlap (Lin & Smith 2019).")
sidebar.draw()
page.run()
