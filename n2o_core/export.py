"""Downloads offered by the dashboard: matrix CSV, neighbors JSON, figure PNG/SVG. No Streamlit here."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from n2o_core.errors import N2OError

_CHROME_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
_server_lock = threading.Lock()
_server_started = False


def matrix_csv(mean: np.ndarray, std: np.ndarray, names: Sequence[str], *, k: int, chance: float) -> str:
    """Long CSV: one row per ordered embedder pair with mean and std N2O over samples, k and chance level."""
    rows = [
        {
            "a": a,
            "b": b,
            "k": k,
            "n2o_mean": round(float(mean[i, j]), 6),
            "n2o_std": round(float(std[i, j]), 6),
            "chance": round(chance, 6),
        }
        for i, a in enumerate(names)
        for j, b in enumerate(names)
    ]
    return pd.DataFrame(rows).to_csv(index=False)


def neighbors_json(
    corpus: Mapping[str, object],
    settings: Mapping[str, object],
    pool: np.ndarray,
    samples: Sequence[np.ndarray],
    neighbors: Mapping[str, np.ndarray],
    sims: Mapping[str, np.ndarray],
    k: int,
) -> str:
    """JSON document: corpus identity, settings, query samples and each embedder's k neighbors (ids, cosines)
    for every pooled query, nearest first."""
    doc = {
        "corpus": dict(corpus),
        "settings": dict(settings),
        "k": int(k),
        "queries": [int(q) for q in pool],
        "samples": [[int(q) for q in s] for s in samples],
        "neighbors": {e: np.asarray(ids)[:, :k].astype(int).tolist() for e, ids in neighbors.items()},
        "cosine": {e: np.round(np.asarray(s)[:, :k].astype(float), 5).tolist() for e, s in sims.items()},
    }
    return json.dumps(doc, ensure_ascii=False)


def chrome_path() -> str | None:
    """A Chromium/Chrome executable for figure export, or None."""
    for name in _CHROME_NAMES:
        p = shutil.which(name)
        if p:
            return p
    return None


def figure_image(fig: go.Figure, fmt: str, *, width: int = 900, height: int | None = None, scale: float = 2) -> bytes:
    """PNG or SVG bytes of a figure, rendered by kaleido in a headless browser kept running after first use."""
    global _server_started
    if fmt not in ("png", "svg"):
        raise N2OError(f"Figures export as png or svg (not {fmt!r}).")
    if chrome_path() is None:
        raise N2OError("Figure export needs Chromium (apt-get install chromium); use the chart's camera icon instead.")
    try:
        import kaleido  # noqa: PLC0415

        with _server_lock:
            if not _server_started:
                kaleido.start_sync_server(silence_warnings=True)
                _server_started = True
        import warnings  # noqa: PLC0415

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fig.to_image(
                format=fmt, width=width, height=height or fig.layout.height or 500, scale=scale if fmt == "png" else 1
            )
    except N2OError:
        raise
    except Exception as e:  # noqa: BLE001 - export failure is reported as one sentence
        raise N2OError(f"The figure could not be exported as {fmt.upper()} ({type(e).__name__}).") from e
