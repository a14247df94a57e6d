"""The measures' figures and summaries: built from a `MeasureComparison` of hand-made arrays."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.figures.labels import CLEARANCE, box_point_distance, segment_point_distance, text_box
from n2o_core.figures.measures import (
    LABEL_SIZE,
    MAP_MARKER_PX,
    embedder_maps,
    map_geometry,
    measure_agreement_heatmap,
    measure_matrices,
)
from n2o_core.measures import display_name
from n2o_core.measures.run import compare_arrays
from n2o_core.measures.summary import classical_mds, rank_movers, rank_table, similarity_matrix, value_matrix


@pytest.fixture(scope="module")
def cmp():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((120, 8))
    arrays = {
        "a": A,
        "a-rotated": A @ np.linalg.qr(rng.standard_normal((8, 8)))[0] * 3.0,  # CKA-identical to a
        "a-noisy": A + 0.8 * rng.standard_normal((120, 8)),
        "random": rng.standard_normal((120, 8)),
    }
    return compare_arrays(
        arrays,
        k=5,
        measures=["mutual_knn", "cka_linear", "procrustes", "regression_r2"],
        permutations_=20,
        bootstrap=10,
        seed=0,
    )


def test_value_and_similarity_matrices(cmp):
    M = value_matrix(cmp, "cka_linear")
    i, j, r = (cmp.embedders.index(e) for e in ("a", "a-rotated", "random"))
    assert M[i, j] == pytest.approx(1.0, abs=1e-9) and M[i, i] == 1.0 and M[i, r] < 0.5
    P = value_matrix(cmp, "procrustes")  # an angle: 0 for the same shape
    assert P[i, j] == pytest.approx(0.0, abs=1e-6) and P[i, r] > P[i, j]
    S = similarity_matrix(cmp, "procrustes")
    assert S[i, j] == pytest.approx(1.0, abs=1e-9) and np.allclose(S, S.T)
    R = value_matrix(cmp, "regression_r2")  # directional: row predicts column
    assert R[i, r] == pytest.approx(cmp.value("a", "random", "regression_r2"))
    assert R[r, i] == pytest.approx(cmp.value("random", "a", "regression_r2"))


def test_ranks_and_movers(cmp):
    ranks = rank_table(cmp)
    top = ranks.sort_values("cka_linear").iloc[0]
    assert {top["a"], top["b"]} == {"a", "a-rotated"}
    assert set(ranks["cka_linear"]) <= set(range(1, len(ranks) + 1))
    movers = rank_movers(cmp)
    assert list(movers["size"]) == sorted(movers["size"], reverse=True)
    assert (movers["move"] == movers["cka_linear"] - movers["mutual_knn"]).all()


def test_classical_mds_recovers_a_configuration():
    X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0], [3.0, 4.0]])
    D = np.linalg.norm(X[:, None] - X[None], axis=2)
    Y = classical_mds(D)
    np.testing.assert_allclose(np.linalg.norm(Y[:, None] - Y[None], axis=2), D, atol=1e-9)


def test_figures(cmp):
    fig = measure_matrices(cmp, order=[3, 2, 1, 0])
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 4 and list(heat[0].x) == cmp.embedders[::-1]
    assert any("null" in a.text for a in fig.layout.annotations)
    ag = measure_agreement_heatmap(cmp)
    z = np.array(ag.data[0].z, float)
    assert z.shape == (4, 4) and np.allclose(np.diag(z), 1.0)
    maps = embedder_maps(cmp)
    assert len(maps.data) == 4 and list(maps.data[0].text) == cmp.embedders


def test_panel_titles_give_each_null_to_three_decimals_without_a_negative_zero(cmp):
    import copy

    shifted = copy.deepcopy(cmp)
    for r in shifted.rows:
        if r["measure"] == "cka_linear":
            r["null_mean"] = -0.00004  # an RSA-like null that rounds to zero from below
    titles = [a.text for a in measure_matrices(shifted).layout.annotations]
    assert "linear CKA<br>(null 0.000)" in titles
    procrustes = np.mean([r["null_mean"] for r in cmp.rows if r["measure"] == "procrustes"])
    assert f"Procrustes angle<br>(distance; null {procrustes:.3f})" in titles


def test_figures_name_measures_by_their_display_names(cmp):
    names = [display_name(m) for m in cmp.measures]
    assert names == ["mutual k-NN (N2O)", "linear CKA", "Procrustes angle", "linear regression R²"]
    titles = [a.text for a in measure_matrices(cmp).layout.annotations]
    assert all(any(t.startswith(n) for t in titles) for n in names)
    assert not any(m in " ".join(titles) for m in cmp.measures)  # no id as a label
    heat = [t for t in measure_matrices(cmp).data if t.type == "heatmap"]
    assert heat[2].hovertemplate.startswith("Procrustes angle<br>")
    ag = measure_agreement_heatmap(cmp)
    assert list(ag.data[0].x) == names and list(ag.data[0].y) == names
    maps = embedder_maps(cmp)
    assert [a.text for a in maps.layout.annotations[: len(names)]] == names


def test_a_distance_is_drawn_as_one(cmp):
    """Procrustes (lower = more alike) is titled a distance and its scale runs the other way: in every panel the
    darkest cell is the most alike pair."""
    fig = measure_matrices(cmp)
    heat = [t for t in fig.data if t.type == "heatmap"]
    for trace, msr in zip(heat, cmp.measures, strict=True):
        scale = [c for _, c in trace.colorscale]
        lightness = [sum(int(v) for v in c[c.index("(") + 1 : -1].split(",")) for c in scale]
        darkest_at_low = lightness[0] < lightness[-1]
        assert darkest_at_low == (msr == "procrustes"), msr
    titles = [a.text for a in fig.layout.annotations]
    assert [t for t in titles if "distance" in t] == [t for t in titles if t.startswith("Procrustes angle")]


def _marker_pixels(fig, idx: int):
    """The points of map panel idx in that panel's pixels (y up), from the axis ranges the figure fixes, and the
    panel's side in px."""
    geo = map_geometry(len([t for t in fig.data if t.type == "scatter"]))
    sx = "" if idx == 0 else str(idx + 1)
    xr, yr = fig.layout[f"xaxis{sx}"].range, fig.layout[f"yaxis{sx}"].range
    assert xr[1] - xr[0] == pytest.approx(yr[1] - yr[0])  # equal scales: a square window
    assert fig.layout[f"yaxis{sx}"].scaleanchor == f"x{sx}"
    tr = fig.data[idx]
    to_px = geo.panel_px / (xr[1] - xr[0])
    pts = np.column_stack([(np.array(tr.x) - xr[0]) * to_px, (np.array(tr.y) - yr[0]) * to_px])
    return pts, sx, xr, yr, to_px, geo


def assert_labels_clear_every_point(fig, names):
    """Every map panel names each embedder once, and no label box (estimated as `text_box` does) comes within
    `CLEARANCE` of any marker, nor any leader line within it of another marker."""
    r = MAP_MARKER_PX / 2
    for idx in range(len(fig.data)):
        pts, sx, xr, yr, to_px, _ = _marker_pixels(fig, idx)
        mine = [a for a in fig.layout.annotations if a.xref == f"x{sx}" and a.yref == f"y{sx}"]
        named = [n for a in mine for n in a.text.split("<br>")]
        assert sorted(named) == sorted(names), idx
        for a in mine:
            ax, ay = (a.x - xr[0]) * to_px, (a.y - yr[0]) * to_px
            cx, cy = (ax + a.ax, ay - a.ay) if a.showarrow else (ax + a.xshift, ay + a.yshift)
            w, h = text_box(a.text.split("<br>"), LABEL_SIZE)
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            for q in pts:
                assert box_point_distance(box, *q) >= r + CLEARANCE - 1e-6, (idx, a.text)
            if a.showarrow:
                members = [i for i, e in enumerate(fig.data[idx].text) if e in a.text.split("<br>")]
                end = (min(max(ax, box[0]), box[2]), min(max(ay, box[1]), box[3]))
                for j, q in enumerate(pts):
                    if j not in members:
                        assert segment_point_distance((ax, ay), end, tuple(q)) >= r + CLEARANCE - 1e-6


def test_map_labels_never_cross_a_point(cmp):
    assert_labels_clear_every_point(embedder_maps(cmp), cmp.embedders)


def test_map_labels_clear_a_crowded_map():
    """Six embedders, four of them nearly alike (as the MiniLM models, tf-idf and GloVe are under CKA): the old
    labels (a text position per point) crossed a neighbour's marker here."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal((150, 8))
    arrays = {
        "paraphrase-minilm-l3-mean": base @ rng.standard_normal((8, 10)),
        "minilm-l6-mean": base @ rng.standard_normal((8, 10)) + 0.1 * rng.standard_normal((150, 10)),
        "tfidf": base @ rng.standard_normal((8, 6)) + 0.2 * rng.standard_normal((150, 6)),
        "glove-6b-50d": base[:, :5] @ rng.standard_normal((5, 12)) + rng.standard_normal((150, 12)),
        "word2vec": rng.standard_normal((150, 9)),
        "fasttext-sub": rng.standard_normal((150, 9)) + 0.3 * base[:, :1],
    }
    crowded = compare_arrays(arrays, k=5, permutations_=0, bootstrap=0, seed=0)
    fig = embedder_maps(crowded)
    assert_labels_clear_every_point(fig, crowded.embedders)
    assert any(a.showarrow for a in fig.layout.annotations)  # a leader line where no spot beside was free
    assert any("<br>" in a.text for a in fig.layout.annotations)  # touching markers named together
