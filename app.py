"""N2O Explorer: `streamlit run app.py`. The sidebar with the shared choices, st.navigation over the pages in
pages/, and the chosen page drawn with the sidebar's settings and corpus (`render(settings, corpus)`).

Streamlit still treats a pages/ folder next to the entry script as a v1 multipage app on a process's first run
(and on every AppTest run); ui.shell.through_app, called first here and at the top of every page module, turns
that off and reruns, so a shared deep link on a fresh server is served by this script with its sidebar.
"""

from __future__ import annotations

import importlib
import logging
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import streamlit as st  # noqa: E402

from ui import preload, release, sidebar, talk  # noqa: E402
from ui.guard import shown  # noqa: E402
from ui.nav import OLD_PATHS, PAGES, title  # noqa: E402
from ui.shell import through_app  # noqa: E402

through_app()

_log = logging.getLogger("n2o")  # what "the details are in the server log" points to: the server's stderr
if not any(getattr(h, "name", "") == "n2o-server-log" for h in _log.handlers):
    _handler = logging.StreamHandler()
    _handler.name = "n2o-server-log"
    _handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    _log.addHandler(_handler)

st.set_page_config(
    page_title="N2O Explorer",
    page_icon=":material/hub:",
    layout="wide",
    initial_sidebar_state="collapsed" if talk.active() else "auto",
)
talk.apply()  # talk=1 in the link: no sidebar or widgets, larger text and figures

# The first page is the default, served at "/": Streamlit gives a default page the empty URL path whatever its
# url_path, so "/heatmap" would be "Page not found". The same page again under its own path, hidden from the
# menu, serves /heatmap (?talk=1, ...) too; the default's own url_path is then only an internal name.
first = PAGES[0]
page = st.navigation(
    [
        st.Page(f"pages/{p.name}.py", title=p.title, icon=p.icon, url_path=p.name if i else "home", default=i == 0)
        for i, p in enumerate(PAGES)
    ]
    + [st.Page(f"pages/{first.name}.py", title=first.title, icon=first.icon, url_path=first.name, visibility="hidden")]
    + [
        st.Page(f"pages/{old}.py", title=title(new), url_path=old, visibility="hidden")
        for old, new in OLD_PATHS.items()
    ],
    expanded=True,  # every page listed: collapsed, the menu shows 10 and hides the rest behind "View more"
)
st.sidebar.title("N2O Explorer")
st.sidebar.caption("How similar are sentence embedders? Nearest-neighbor overlap (Lin & Smith 2019).")
settings, corpus = sidebar.draw()
name = OLD_PATHS.get(page.url_path, page.url_path) or PAGES[0].name  # an old link opens the page renamed
with shown(f"The {page.title} page"):  # anything unexpected is one sentence in place, never a traceback
    importlib.import_module(f"pages.{name}").render(settings, corpus)
preload.start(settings, corpus)  # what the next clicks need, loaded in the background once the page is drawn
release.start()  # and what sits unused for a while is given back (N2O_RELEASE_AFTER_S)
