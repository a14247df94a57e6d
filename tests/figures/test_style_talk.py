"""figures.style.for_talk: a figure for a projector, no text under 24 px, sized as asked, the original untouched."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from n2o_core.figures import n2o as figures
from n2o_core.figures.style import TALK_FONT_PX, TALK_FONT_SCALE, base_layout, for_talk


def _sizes(d: dict) -> list[float]:
    """Every font size anywhere in a figure dict."""
    found: list[float] = []

    def walk(node):
        if isinstance(node, dict):
            for key, val in node.items():
                if key.endswith("font") and isinstance(val, dict) and isinstance(val.get("size"), (int, float)):
                    found.append(float(val["size"]))
                walk(val)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(d)
    return found


def test_every_text_of_the_n2o_heatmap_is_at_least_24_px():
    names = ["tfidf", "glove-6b-50d", "paraphrase-minilm-l3-mean"]
    fig = figures.n2o_heatmap(np.array([[1, 0.3, 0.2], [0.3, 1, 0.5], [0.2, 0.5, 1]]), names, chance=0.01, k=10)
    before = fig.to_json()
    d = for_talk(fig, height=880)
    go.Figure(d)  # still a valid figure
    layout = d["layout"]
    assert min(_sizes(d)) >= TALK_FONT_PX
    # what Streamlit's theme would otherwise size (ticks 12 px, hover labels 12 px) is given a size
    assert layout["xaxis"]["tickfont"]["size"] == 24 and layout["yaxis"]["tickfont"]["size"] == 24
    assert layout["hoverlabel"]["font"]["size"] == 24 and layout["legend"]["font"]["size"] == 24
    assert d["data"][0]["textfont"]["size"] == 24  # the cell values: 12 px, doubled
    assert layout["font"]["size"] == 26  # the base font: 13 px, doubled
    # 880 px tall; the square keeps pace with the height, labels and colour bar (width − height) with the fonts
    old_w, old_h = fig.layout.width, fig.layout.height
    m = layout["margin"]
    assert layout["height"] == 880 and m["t"] == 2 * fig.layout.margin.t
    assert layout["width"] == 880 - m["t"] - m["b"] + 2 * (old_w - old_h)
    assert d["data"][0]["colorbar"]["thickness"] == 2 * fig.data[0].colorbar.thickness
    assert np.array_equal(d["data"][0]["text"], fig.data[0].text)  # one panel: its values stay
    assert fig.to_json() == before  # the cached figure is not changed


def test_a_figure_left_to_the_theme_gets_sizes_and_a_taller_default():
    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2], text=["1", "2"]))  # no layout at all
    d = for_talk(fig)
    assert d["layout"]["height"] == round(450 * 1.3)  # plotly's default height, 1.3 times taller
    assert d["layout"]["font"]["size"] == 24  # 12 px (plotly's default) doubled
    assert d["layout"]["xaxis"]["title"]["font"]["size"] == 24 and d["data"][0]["textfont"]["size"] == 24
    titled = for_talk({"layout": {"title": "Paraphrase rank", "xaxis": {"title": "MRR"}}, "data": []})
    assert titled["layout"]["title"] == {"text": "Paraphrase rank", "font": {"size": 30}}
    assert titled["layout"]["xaxis"]["title"] == {"text": "MRR", "font": {"size": 24}}


def test_small_multiples_keep_colours_and_name_their_embedders_once():
    names = ["minilm-l6-mean", "glove-6b-50d", "tfidf"]
    fig = make_subplots(rows=1, cols=3, subplot_titles=["cka", "rsa", "svcca"])
    for col in (1, 2, 3):
        z = np.eye(3) * col
        fig.add_trace(go.Heatmap(z=z, x=names, y=names, text=z.round(2), texttemplate="%{text}"), row=1, col=col)
    base_layout(fig, None, 360)
    d = for_talk(fig, height=820)
    assert all("texttemplate" not in t and "text" not in t for t in d["data"])  # values: in the hover
    assert [t["z"] for t in d["data"]] == [t["z"] for t in fig.to_dict()["data"]]  # colours unchanged (base64)
    assert d["layout"]["xaxis"]["showticklabels"] is False and d["layout"]["xaxis2"]["showticklabels"] is False
    assert d["layout"]["yaxis"].get("showticklabels") is not False  # the rows still name them, every one
    assert d["layout"]["yaxis2"]["dtick"] == 1 and d["layout"]["yaxis2"]["tickmode"] == "linear"
    assert min(_sizes(d)) >= TALK_FONT_PX  # the panel titles (annotations) too
    assert d["layout"]["height"] == 820


def test_two_panels_of_few_columns_keep_their_values():
    """The Variants page's two 7 x 7 layer matrices (N2O, CKA): cells wide enough for 24 px values; eight columns
    at most, else (or with a third panel) the values go to the hover."""
    for cols, kept in ((7, True), (9, False)):
        names = [f"layer {i}" for i in range(cols)]
        fig = make_subplots(rows=1, cols=2, subplot_titles=["N2O", "linear CKA"])
        for col in (1, 2):
            z = np.eye(cols) * col
            fig.add_trace(go.Heatmap(z=z, x=names, y=names, text=z.round(2), texttemplate="%{text}"), row=1, col=col)
        base_layout(fig, None, 360)
        d = for_talk(fig, height=820)
        assert all(("texttemplate" in t) == kept for t in d["data"]), cols
        assert min(_sizes(d)) >= TALK_FONT_PX
    ring = go.Scatter(x=["a"], y=["a"], mode="markers", marker=dict(symbol="square-open", size=26))
    assert for_talk(go.Figure(ring))["data"][0]["marker"]["size"] == 26 * TALK_FONT_SCALE  # around 2x the text


def test_text_that_plotly_would_set_at_70_percent_is_written_at_full_size():
    """The colour bar's "chance 0.05 is below the scale" is a <sub> (70% of the title's size: 16.8 px at 24 px):
    on a projector it is written at the title's size; the figure for the page keeps it."""
    M = np.array([[1, 0.5, 0.6], [0.5, 1, 0.9], [0.6, 0.9, 1]])
    fig = figures.n2o_heatmap(M, ["a", "b", "c"], chance=0.01, k=10, extend_to_chance=False)
    title = fig.data[0].colorbar.title.text
    assert "<sub>chance 0.01<br>is below<br>the scale</sub>" in title
    d = for_talk(fig, height=880)
    assert d["data"][0]["colorbar"]["title"]["text"] == title.replace("<sub>", "").replace("</sub>", "")
    assert "<sup>" not in str(for_talk({"layout": {"title": {"text": "Ranks<br><sup>2 left out</sup>"}}})["layout"])
    assert fig.data[0].colorbar.title.text == title


def test_short_column_labels_stay_under_the_panels():
    """The layers of one model ("layer 0" …) are short enough to stand upright under both matrices."""
    layers = [f"layer {i}" for i in range(7)]
    fig = make_subplots(rows=1, cols=2)
    for col in (1, 2):
        fig.add_trace(go.Heatmap(z=np.eye(7), x=layers, y=layers), row=1, col=col)
    d = for_talk(fig, height=800)
    assert d["layout"]["xaxis"].get("showticklabels") is not False
    assert d["layout"]["xaxis2"].get("showticklabels") is not False
    many = [f"layer {i}" for i in range(13)]  # a base-size model's 13: they would slant, named on the rows only
    fig = make_subplots(rows=1, cols=2)
    for col in (1, 2):
        fig.add_trace(go.Heatmap(z=np.eye(13), x=many, y=many), row=1, col=col)
    assert for_talk(fig, height=800)["layout"]["xaxis"]["showticklabels"] is False
