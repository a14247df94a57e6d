"""AppTest: the shell. A page opened as the process's first run (as a deep link on a fresh server) still gets
app.py's sidebar, although the page scripts live in pages/ (Streamlit's old multipage folder)."""

from __future__ import annotations

import pytest
from app_checks import no_exception


@pytest.mark.parametrize("page", ["pages/about.py", "pages/tokens.py"])
def test_first_run_of_a_page_goes_through_app(app, page):
    from streamlit.runtime.pages_manager import PagesManager

    app.switch_page(page).run()  # AppTest starts every run in the pages/-folder mode, like a fresh server
    no_exception(app)
    assert PagesManager.uses_pages_directory is False
    assert app.sidebar.title and app.sidebar.title[0].value == "N2O Explorer"
    assert app.sidebar.slider(key="w_k").value >= 1
    titles = {"pages/about.py": "About N2O Explorer", "pages/tokens.py": "Token overlap"}
    assert app.header[0].value == titles[page]
