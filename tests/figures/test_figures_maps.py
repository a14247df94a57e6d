"""Figure builders of the agreement views: escaped hover texts, linked selection, downsampling, histogram."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from n2o_core.errors import N2OError
from n2o_core.figures.maps import agreement_histogram, agreement_maps, color_range, downsample, hover_label


def data(n=50, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, 2)).astype(np.float32)
    b = rng.standard_normal((n, 2)).astype(np.float32)
    values = rng.integers(0, 11, n) / 10
    texts = [f"sentence {i} <b>bold</b> & co" for i in range(n)]
    return a, b, values, texts


def test_hover_label_escapes_trims_and_wraps():
    got = hover_label("<script>alert('x')</script> & more " + "word " * 40, max_chars=80, width=30)
    assert "<script>" not in got and "&#60;script&#62;" in got and "&#38;" in got
    lines = got.split("<br>")
    assert len(lines) > 1 and got.endswith("…")
    plain = hover_label("short & sweet")
    assert plain == "short &#38; sweet"
    assert hover_label("x" * 500, max_chars=50).replace("<br>", "").__len__() == 50


def test_downsample_keeps_selected_and_is_deterministic():
    assert downsample(10, None).tolist() == list(range(10))
    assert downsample(10, 20).tolist() == list(range(10))
    got = downsample(1000, 100, keep=[3, 999, 5000], seed=1)
    assert len(got) == 100 and {3, 999} <= set(got.tolist()) and np.all(np.diff(got) > 0)
    assert np.array_equal(got, downsample(1000, 100, keep=[3, 999], seed=1))
    with pytest.raises(N2OError):
        downsample(10, 0)


def test_two_linked_webgl_panels():
    a, b, values, texts = data()
    a[4] = np.nan  # no vector under the first embedder
    fig = agreement_maps([a, b], values, texts, ["tfidf", "glove"], selected_ids=[1, 4, 7], k=10)
    assert len(fig.data) == 2 and all(isinstance(t, go.Scattergl) for t in fig.data)
    left, right = fig.data
    ids_l = np.asarray(left.customdata).astype(int)
    ids_r = np.asarray(right.customdata).astype(int)
    assert 4 not in ids_l and len(ids_l) == 49 and ids_r.tolist() == list(range(50))
    np.testing.assert_allclose(np.asarray(left.x), a[ids_l, 0], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(left.marker.color), values[ids_l], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(right.marker.color), values, rtol=1e-6)
    assert "%{customdata}" in left.hovertemplate and "%{marker.color:.2f}" in left.hovertemplate
    # the same sentences are highlighted in both panels (positions within each trace)
    assert sorted(ids_l[list(left.selectedpoints)].tolist()) == [1, 7]
    assert sorted(ids_r[list(right.selectedpoints)].tolist()) == [1, 4, 7]
    assert right.unselected.marker.opacity < 0.5
    assert "&#60;b&#62;bold&#60;/b&#62; &#38; co" in left.text[0]
    titles = [ann.text for ann in fig.layout.annotations]
    assert "1 without a vector" in titles[0] and "without" not in titles[1]
    assert fig.layout.coloraxis.cmin == 0.0 and fig.layout.coloraxis.cmax == pytest.approx(color_range(values, 10)[1])
    plain = agreement_maps([a, b], values, texts, ["tfidf", "glove"])
    assert plain.data[0].selectedpoints is None


def test_maps_downsample_the_same_sentences_in_both_panels():
    a, b, values, texts = data(n=400)
    fig = agreement_maps([a, b], values, texts, ["A", "B"], max_points=100, selected_ids=[399])
    ids = [np.asarray(t.customdata).astype(int) for t in fig.data]
    assert len(ids[0]) == 100 and np.array_equal(ids[0], ids[1]) and 399 in ids[0]
    assert "100 of 400 sentences" in fig.layout.annotations[0].text


def test_maps_bad_input():
    a, b, values, texts = data()
    with pytest.raises(N2OError):
        agreement_maps([a, b], values, texts, ["only one"])
    with pytest.raises(N2OError):
        agreement_maps([a[:10], b], values, texts, ["A", "B"])


def test_figure_json_is_compact_typed_arrays():
    a, b, values, texts = data(n=2000)
    doc = json.loads(agreement_maps([a, b], values, texts, ["A", "B"]).to_json())
    for key in ("x", "customdata"):
        arr = doc["data"][0][key]
        assert isinstance(arr, dict) and "bdata" in arr  # base64 typed array, not a list of decimal numbers
    assert isinstance(doc["data"][0]["marker"]["color"], dict)


def test_precomputed_labels_are_used():
    from n2o_core.figures.maps import hover_labels

    a, b, values, texts = data(n=30)
    labels = hover_labels(texts)
    assert labels[3] == hover_label(texts[3])
    fig = agreement_maps([a, b], values, texts, ["A", "B"], labels=[f"L{i}" for i in range(30)])
    assert list(fig.data[1].text[:3]) == ["L0", "L1", "L2"]
    with pytest.raises(N2OError):
        agreement_maps([a, b], values, texts, ["A", "B"], labels=labels[:5])


def test_histogram_counts_every_step():
    k = 10
    values = np.array([0.0, 0.1, 0.1, 0.5, 1.0, 0.13])  # 0.13 (a mean over pairs) falls in the 0.1 bin
    fig = agreement_histogram(values, k, chance=0.02)
    bar = fig.data[0]
    assert np.asarray(bar.y).tolist() == [1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    np.testing.assert_allclose(np.asarray(bar.x), np.arange(11) / 10)
    xs = sorted(s.x0 for s in fig.layout.shapes)
    assert xs == pytest.approx([0.02, values.mean()])
    with pytest.raises(N2OError):
        agreement_histogram(values, 0)
    with pytest.raises(N2OError):
        agreement_histogram(np.array([np.nan]), 5)


def test_selected_points_ids_read_customdata():
    from n2o_core.figures.maps import selected_points_ids

    points = [
        {"curve_number": 0, "point_index": 3, "customdata": 17},
        {"curve_number": 1, "point_index": 0, "customdata": [5]},
        {"curve_number": 0, "point_index": 1, "customdata": 17.0},
        {"curve_number": 0, "point_index": 2},
        {"customdata": "x"},
    ]
    assert selected_points_ids(points) == [5, 17]
    assert selected_points_ids([]) == []
    a, b, values, texts = data()
    fig = agreement_maps([a, b], values, texts, ["A", "B"], dragmode="select")
    assert fig.layout.dragmode == "select"
    # the ids a selection returns are the customdata of the points selected, in either panel
    picked = [{"customdata": int(fig.data[1].customdata[i])} for i in (2, 9)]
    assert selected_points_ids(picked) == [2, 9]
