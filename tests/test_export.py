"""Downloads: matrix CSV, neighbors JSON, and figures rendered to PNG/SVG by the renderer that ships in
requirements.txt (kaleido 0.2.1 with its own Chromium: no system browser needed)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from n2o_core import export, figures
from n2o_core.errors import N2OError

NAMES = ["tfidf", "glove-6b-50d", "word2vec"]
M = np.array([[1.0, 0.12, 0.2], [0.12, 1.0, 0.31], [0.2, 0.31, 1.0]])


def test_matrix_csv_holds_every_ordered_pair():
    df = pd.read_csv(io.StringIO(export.matrix_csv(M, M / 10, NAMES, k=10, chance=0.01)))
    assert len(df) == 9 and set(df["k"]) == {10} and set(df["chance"]) == {0.01}
    row = df[(df["a"] == "glove-6b-50d") & (df["b"] == "word2vec")].iloc[0]
    assert row["n2o_mean"] == 0.31 and row["n2o_std"] == pytest.approx(0.031)


def test_neighbors_json_keeps_ids_and_cosines_for_k():
    ids = {"a": np.array([[3, 1, 2], [0, 2, 3]]), "b": np.array([[1, 3, 0], [3, 0, 1]])}
    sims = {e: np.full((2, 3), 0.5) for e in ids}
    doc = json.loads(export.neighbors_json({"name": "c"}, {"k": 2}, np.array([0, 1]), [np.array([0, 1])], ids, sims, 2))
    assert doc["neighbors"]["a"] == [[3, 1], [0, 2]] and doc["cosine"]["b"] == [[0.5, 0.5], [0.5, 0.5]]
    assert doc["queries"] == [0, 1] and doc["k"] == 2


def test_figures_render_to_png_and_svg():
    from PIL import Image

    fig = figures.n2o_heatmap(M, NAMES, chance=0.01, k=10)
    png = export.figure_image(fig, "png", width=600, height=500, scale=2)
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == (1200, 1000)
    colours = img.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # a drawn heatmap, not a blank page
    svg = export.figure_image(fig, "svg", width=600, height=500).decode()
    assert svg.startswith("<svg") and all(n in svg for n in NAMES)


def test_unknown_format_is_a_clear_error():
    with pytest.raises(N2OError, match="png or svg"):
        export.figure_image(figures.n2o_heatmap(M, NAMES), "gif")
