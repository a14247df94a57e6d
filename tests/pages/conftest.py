"""AppTest setup: a small synthetic corpus, cheap embedders and a temporary cache, chosen through the
environment variables the app reads for its defaults."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from synthetic_text import write_corpus  # noqa: E402

#: Cheap embedders from three families (tf-idf, corpus-trained static, pretrained static).
EMBEDDERS = "tfidf,word2vec,fasttext,glove-6b-50d"
HTML_SENTENCE = "The strong <b>team</b> won the final <script>alert(1)</script> on Monday."


@pytest.fixture(scope="session")
def app_env(tmp_path_factory):
    """Environment for the app under test (restored afterwards)."""
    d = tmp_path_factory.mktemp("app")
    corpus = write_corpus(d / "corpus.txt", 150)
    with open(corpus, "a", encoding="utf-8") as f:
        f.write(HTML_SENTENCE + "\n")
    env = {
        "N2O_CACHE_DIR": str(d / "cache"),
        "N2O_DEFAULT_CORPUS": str(corpus),
        "N2O_DEFAULT_EMBEDDERS": EMBEDDERS,
        "N2O_DEFAULT_QUERIES": "30",
        "N2O_DEFAULT_SAMPLES": "3",
        "HF_HUB_OFFLINE": "1",
        "N2O_PRELOAD": "0",
        "TRANSFORMERS_OFFLINE": "1",
    }
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    yield env
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def app(app_env, monkeypatch):
    """A fresh AppTest of app.py (run it yourself); failures memoized by the app are forgotten afterwards."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    yield at
    from ui import data

    data.clear_failures()


def no_exception(at) -> None:
    """No uncaught exception element anywhere on the page."""
    assert not at.exception, [e.value for e in at.exception]


def _decode(obj):
    """Plotly >= 6 sends numeric arrays as {"dtype", "bdata" (base64), "shape"}: back to nested lists."""
    import base64

    import numpy as np

    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            arr = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]))
            shape = obj.get("shape")
            if shape:
                arr = arr.reshape([int(s) for s in str(shape).split(",")])
            return arr.tolist()
        return {k: _decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    return obj


def plotly_specs(at) -> dict:
    """key -> parsed plotly spec (typed arrays decoded) of every plotly chart on the page."""
    import json

    out = {}
    for el in at.get("plotly_chart"):
        spec = _decode(json.loads(el.proto.spec))
        out[el.key or el.proto.id] = spec
    return out
