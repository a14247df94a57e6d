"""The app's Streamlit settings (.streamlit/config.toml), read by `streamlit run app.py` from the repo root."""

from __future__ import annotations

from pathlib import Path

import tomllib

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def _config() -> dict:
    with CONFIG.open("rb") as f:
        return tomllib.load(f)


def test_error_details_are_hidden_from_the_browser():
    # the last line of defence; tests that force failures and check the page: test_heatmap.py
    # (failing embedder), test_guard.py (an unexpected exception in a page block)
    assert _config()["client"]["showErrorDetails"] == "none"


def test_desktop_opens_a_browser_and_a_server_runs_headless():
    server = _config()["server"]
    assert "headless" not in server  # Streamlit decides: a browser tab on a desktop, headless without a display
    assert server["showEmailPrompt"] is False  # the first-run prompt would block `streamlit run app.py`


def test_no_full_garbage_collection_after_every_rerun():
    # with WordNet and spaCy loaded, gc.collect(2) doubled a page switch (benchmarks/bench_page_switch.py)
    assert _config()["runner"]["postScriptGC"] is False


def test_streamlit_knows_every_option():
    from streamlit import config

    for section, opts in _config().items():
        for name in opts:
            assert f"{section}.{name}" in config._config_options_template, f"{section}.{name}"
