"""The app's Streamlit settings (.streamlit/config.toml), read by `streamlit run app.py` from the repo root."""

from __future__ import annotations

from pathlib import Path

import tomllib

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def _config() -> dict:
    with CONFIG.open("rb") as f:
        return tomllib.load(f)


def test_no_traceback_is_ever_shown():
    assert _config()["client"]["showErrorDetails"] == "none"


def test_no_full_garbage_collection_after_every_rerun():
    # with WordNet and spaCy loaded, gc.collect(2) doubled a page switch (benchmarks/bench_page_switch.py)
    assert _config()["runner"]["postScriptGC"] is False


def test_streamlit_knows_every_option():
    from streamlit import config

    for section, opts in _config().items():
        for name in opts:
            assert f"{section}.{name}" in config._config_options_template, f"{section}.{name}"
