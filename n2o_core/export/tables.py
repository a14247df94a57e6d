"""What the dashboard and the CLI let users take away: matrix CSV, neighbors as CSV/JSON with the sentences'
texts and cosines, any table as CSV/JSON, figures as PNG/SVG (`n2o_core.export.report` puts figures and tables into one
self-contained HTML file)."""

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
from n2o_core.storage.fileio import json_plain


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
    texts: Sequence[str] | None = None,
) -> str:
    """JSON document: corpus identity, settings, query samples and each embedder's k neighbors (ids, cosines)
    for every pooled query, nearest first. With the corpus `texts`, `"texts"` maps every id that occurs (queries
    and neighbors) to its sentence, so the file can be read without the corpus."""
    ids_k = {e: np.asarray(ids)[:, :k].astype(int) for e, ids in neighbors.items()}
    doc = {
        "corpus": dict(corpus),
        "settings": dict(settings),
        "k": int(k),
        "queries": [int(q) for q in pool],
        "samples": [[int(q) for q in s] for s in samples],
        "neighbors": {e: ids.tolist() for e, ids in ids_k.items()},
        "cosine": {e: np.round(np.asarray(s)[:, :k].astype(float), 5).tolist() for e, s in sims.items()},
    }
    if texts is not None:
        used = set(int(q) for q in pool)
        for ids in ids_k.values():
            used.update(int(i) for i in np.unique(ids) if i >= 0)
        doc["texts"] = {str(i): texts[i] for i in sorted(used)}
    return json.dumps(doc, ensure_ascii=False)


def neighbors_frame(
    texts: Sequence[str],
    query_ids: Sequence[int | None],
    neighbors: Mapping[str, np.ndarray],
    sims: Mapping[str, np.ndarray],
    k: int,
    query_texts: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Long table of neighbors with their sentences: one row per (query, embedder, rank) with `query_id`,
    `query`, `embedder`, `rank` (1 = nearest), `id`, `sentence`, `cosine`. `neighbors[e]` / `sims[e]` hold one
    row per query (ids -1: no neighbor, sentence empty, cosine missing). A query typed by the user has id None
    and its text in `query_texts`."""
    rows = []
    for qi, q in enumerate(query_ids):
        qtext = query_texts[qi] if query_texts is not None else texts[int(q)]  # type: ignore[arg-type]
        for e, ids in neighbors.items():
            row_ids = np.asarray(ids)[qi, :k]
            row_sims = np.asarray(sims[e])[qi, :k]
            for rank, (i, c) in enumerate(zip(row_ids, row_sims), start=1):
                ok = int(i) >= 0
                rows.append(
                    {
                        "query_id": None if q is None else int(q),
                        "query": qtext,
                        "embedder": e,
                        "rank": rank,
                        "id": int(i) if ok else None,
                        "sentence": texts[int(i)] if ok else "",
                        "cosine": round(float(c), 6) if ok else None,
                    }
                )
    cols = ["query_id", "query", "embedder", "rank", "id", "sentence", "cosine"]
    out = pd.DataFrame(rows, columns=cols)
    return out.astype({"query_id": "Int64", "id": "Int64"})


def neighbors_csv(
    texts: Sequence[str],
    query_ids: Sequence[int | None],
    neighbors: Mapping[str, np.ndarray],
    sims: Mapping[str, np.ndarray],
    k: int,
    query_texts: Sequence[str] | None = None,
) -> str:
    """`neighbors_frame` as CSV (UTF-8, quoted where needed)."""
    return neighbors_frame(texts, query_ids, neighbors, sims, k, query_texts).to_csv(index=False)


def table_csv(df: pd.DataFrame, *, index: bool = False) -> str:
    """Any result table as CSV (the index kept as the first column when `index`)."""
    return df.to_csv(index=index)


def table_json(df: pd.DataFrame, meta: Mapping[str, object] | None = None, *, index: bool = False) -> str:
    """Any result table as JSON: {"meta", "columns", "rows": [one object per row]}; NaN and missing values
    become null. With `index`, the index is the first column."""
    frame = df.reset_index() if index else df
    frame = frame.astype(object).where(pd.notna(frame), None)
    rows = [
        {str(c): json_plain(v, nan_as_none=True) for c, v in zip(frame.columns, r)}
        for r in frame.itertuples(index=False, name=None)
    ]
    doc = {"meta": dict(meta or {}), "columns": [str(c) for c in frame.columns], "rows": rows}
    return json.dumps(doc, ensure_ascii=False, allow_nan=False)


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
