"""What the dashboard and the CLI let users take away: matrix CSV, neighbors JSON, figures as PNG/SVG."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from n2o_core.errors import N2OError


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


def figure_image(fig: go.Figure, fmt: str, *, width: int = 900, height: int | None = None, scale: float = 2) -> bytes:
    """PNG or SVG bytes of a figure.

    Rendered by kaleido 0.2.1, which carries its own headless Chromium inside the wheel (kaleido 1.x, the
    version plotly's `to_image` wants, needs a Chrome installed separately and downloads one when it is
    missing). The plotly.js that draws it is the one plotly ships, so the image matches the dashboard. The
    renderer process starts on first use and is kept for later calls."""
    if fmt not in ("png", "svg"):
        raise N2OError(f"Figures export as png or svg (not {fmt!r}).")
    try:
        scope = _scope()
        with _scope_lock:
            return scope.transform(
                fig.to_dict(),
                format=fmt,
                width=width,
                height=height or fig.layout.height or 500,
                scale=scale if fmt == "png" else 1,
            )
    except N2OError:
        raise
    except Exception as e:  # noqa: BLE001 - export failure is reported as one sentence
        raise N2OError(f"The figure could not be exported as {fmt.upper()} ({type(e).__name__}: {e}).") from e


_scope_lock = threading.Lock()
_scope_obj: Any = None


def _scope() -> Any:
    """The kaleido renderer (started once per process)."""
    global _scope_obj
    with _scope_lock:
        if _scope_obj is None:
            try:
                from kaleido.scopes.plotly import PlotlyScope
            except ImportError:
                raise N2OError(
                    "Figure export needs kaleido 0.2.1 (pip install -r requirements.txt); "
                    "the camera icon on a chart saves a PNG meanwhile."
                ) from None
            import plotly

            js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
            _scope_obj = PlotlyScope(
                plotlyjs=str(js) if js.exists() else None,
                chromium_args=("--headless", "--no-sandbox", "--single-process", "--disable-gpu"),
            )
        return _scope_obj
