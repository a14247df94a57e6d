"""Downloads: matrix CSV, neighbors JSON, and figures rendered to PNG/SVG by the renderer that ships in
requirements.txt (kaleido 0.2.1 with its own Chromium: no system browser needed)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from n2o_core.errors import N2OError
from n2o_core.export import tables as export
from n2o_core.figures import n2o as figures

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


TEXTS = ["Shares fell sharply.", 'The "team" won, again.', "Rain hit the coast.", "Prices rose.", "Café opened."]


def test_neighbors_csv_carries_sentences_and_cosines():
    ids = {"a": np.array([[1, 2], [0, -1]]), "b": np.array([[2, 1], [4, 0]])}
    sims = {"a": np.array([[0.9, 0.5], [0.8, 0.0]]), "b": np.array([[0.7, 0.6], [0.4, 0.3]])}
    df = pd.read_csv(io.StringIO(export.neighbors_csv(TEXTS, [0, 3], ids, sims, 2)))
    assert list(df.columns) == ["query_id", "query", "embedder", "rank", "id", "sentence", "cosine"]
    assert len(df) == 8
    row = df[(df["query_id"] == 0) & (df["embedder"] == "a") & (df["rank"] == 2)].iloc[0]
    assert row["query"] == "Shares fell sharply." and row["id"] == 2 and row["sentence"] == "Rain hit the coast."
    assert row["cosine"] == 0.5
    quoted = df[(df["query_id"] == 0) & (df["embedder"] == "a") & (df["rank"] == 1)].iloc[0]
    assert quoted["sentence"] == 'The "team" won, again.'  # commas and quotes survive the round trip
    empty = df[(df["query_id"] == 3) & (df["embedder"] == "a") & (df["rank"] == 2)].iloc[0]
    assert pd.isna(empty["id"]) and pd.isna(empty["sentence"]) and pd.isna(empty["cosine"])  # no neighbor
    assert df[(df["embedder"] == "b") & (df["query_id"] == 3)]["sentence"].tolist() == ["Café opened.", TEXTS[0]]


def test_neighbors_frame_of_a_typed_query():
    df = export.neighbors_frame(TEXTS, [None], {"a": np.array([[3, 1]])}, {"a": np.array([[0.6, 0.2]])}, 1, ["x y"])
    assert len(df) == 1 and pd.isna(df["query_id"][0])
    assert df.iloc[0][["query", "embedder", "rank", "id", "sentence", "cosine"]].tolist() == [
        "x y",
        "a",
        1,
        3,
        "Prices rose.",
        0.6,
    ]


def test_neighbors_json_maps_ids_to_texts():
    ids = {"a": np.array([[3, 1, 2], [0, 2, 3]])}
    sims = {"a": np.full((2, 3), 0.5)}
    doc = json.loads(export.neighbors_json({}, {}, np.array([0, 1]), [np.array([0, 1])], ids, sims, 2, texts=TEXTS))
    assert doc["texts"] == {"0": TEXTS[0], "1": TEXTS[1], "2": TEXTS[2], "3": TEXTS[3]}  # queries and neighbors at k
    assert "texts" not in json.loads(export.neighbors_json({}, {}, np.array([0]), [], {}, {}, 1))


def test_tables_as_csv_and_json():
    df = pd.DataFrame({"id": [4, 0], "mean rank": [1.5, np.nan], "sentence": [TEXTS[4], TEXTS[0]]})
    back = pd.read_csv(io.StringIO(export.table_csv(df)))
    assert back["sentence"].tolist() == [TEXTS[4], TEXTS[0]] and back["id"].tolist() == [4, 0]
    doc = json.loads(export.table_json(df, {"k": 10}))
    assert doc["meta"] == {"k": 10} and doc["columns"] == ["id", "mean rank", "sentence"]
    assert doc["rows"][0] == {"id": 4, "mean rank": 1.5, "sentence": "Café opened."}
    assert doc["rows"][1]["mean rank"] is None  # NaN -> null, valid JSON
    indexed = pd.DataFrame({"synonym": [0.9]}, index=pd.Index(["glove"], name="embedder"))
    assert json.loads(export.table_json(indexed, index=True))["rows"] == [{"embedder": "glove", "synonym": 0.9}]
