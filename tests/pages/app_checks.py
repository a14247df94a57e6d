"""What the AppTest modules share: the embedders and the hostile sentence of the test corpus, and checks on a
rendered page (no exception, message text as shown, plotly specs)."""

from __future__ import annotations

import html
import os
from pathlib import Path

#: Cheap embedders from three families (tf-idf, corpus-trained static, pretrained static).
EMBEDDERS = "tfidf,word2vec,fasttext,glove-6b-50d"
HTML_SENTENCE = "The strong <b>team</b> won the final <script>alert(1)</script> on Monday."
#: A time estimate as `runtime.progress.how_long` words it ("a few seconds", "about 40 s", "about 3 min").
HOW_LONG = r"(about \d+ (s|min)|a few seconds)"


def shown(elements) -> str:
    """The text of message elements as a reader sees it: `escape_markup`'s character references decoded and its
    invisible word joiners dropped."""
    return "\n".join(html.unescape(e.value).replace("\u2060", "") for e in elements)


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


def app_environment(d: Path, sentences: int = 150):
    """Set the app's environment for a synthetic corpus of `sentences` (plus one holding HTML) with a cache in `d`;
    yields it and restores the old values afterwards."""
    from synthetic_text import write_corpus  # tests/ (the pages' conftest puts it on sys.path)

    corpus = write_corpus(d / "corpus.txt", sentences)
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
