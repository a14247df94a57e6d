"""Figure builders: real data in, plotly figures out, with the values and labels where they belong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from n2o_core import figures, overlap
from n2o_core.errors import N2OError


@pytest.fixture
def sampled():
    """N2O over 3 samples for four embedders whose neighbor lists are built to overlap in a known way."""
    rng = np.random.default_rng(0)
    n, pool_n, k = 200, 60, 10
    base = np.stack([rng.choice(n, size=k, replace=False) for _ in range(pool_n)])
    other = np.stack([rng.choice(n, size=k, replace=False) for _ in range(pool_n)])
    a = base
    b = np.concatenate([base[:, :8], other[:, :2]], axis=1)  # ~0.8 with a
    c = np.concatenate([base[:, :2], other[:, 2:]], axis=1)  # ~0.2 with a
    d = np.concatenate([base[:, :3], other[:, 3:]], axis=1)
    neighbors = {"a": a, "b": b, "c": c, "d": d}
    pool = np.arange(pool_n)
    samples = [np.sort(rng.choice(pool, 30, replace=False)) for _ in range(3)]
    return overlap.n2o_over_samples(neighbors, pool, samples, k), neighbors


def test_cluster_order_groups_similar_embedders():
    M = np.array([[1.0, 0.1, 0.9, 0.1], [0.1, 1.0, 0.1, 0.8], [0.9, 0.1, 1.0, 0.2], [0.1, 0.8, 0.2, 1.0]])
    order = figures.cluster_order(M)
    assert sorted(order) == [0, 1, 2, 3]
    pos = {e: i for i, e in enumerate(order)}
    assert abs(pos[0] - pos[2]) == 1 and abs(pos[1] - pos[3]) == 1
    assert figures.cluster_order(np.eye(2)) == [0, 1]
    with pytest.raises(N2OError):
        figures.cluster_order(np.ones((2, 3)))


def test_reorder_permutes_rows_and_columns():
    M = np.arange(9.0).reshape(3, 3)
    R, names = figures.reorder(M, ["x", "y", "z"], [2, 0, 1])
    assert names == ["z", "x", "y"]
    assert R[0, 1] == M[2, 0] and R[1, 2] == M[0, 1]


def test_heatmap_carries_mean_std_and_chance(sampled):
    res, _ = sampled
    fig = figures.n2o_heatmap(res.mean, res.embedders, std=res.std, chance=0.05, k=10)
    assert isinstance(fig, go.Figure)
    hm = fig.data[0]
    assert hm.type == "heatmap"
    np.testing.assert_allclose(np.asarray(hm.z), res.mean)
    assert list(hm.x) == ["a", "b", "c", "d"] and list(hm.y) == ["a", "b", "c", "d"]
    custom = np.asarray(hm.customdata)
    np.testing.assert_allclose(custom[..., 0], res.std)
    assert np.all(custom[..., 1] == 0.05)
    np.testing.assert_allclose(custom[..., 2], res.mean / 0.05)
    assert "chance" in hm.hovertemplate and "±" in hm.hovertemplate
    assert hm.texttemplate == "%{z:.2f}"
    # a: b share 8 of 10 neighbors on every query
    assert res.mean[0, 1] == pytest.approx(0.8, abs=0.02)
    with pytest.raises(N2OError):
        figures.n2o_heatmap(res.mean, ["a", "b"])


def test_boxplot_one_box_per_embedder_with_all_partners(sampled):
    res, _ = sampled
    dist = overlap.n2o_distribution(res.mean, res.embedders)
    fig = figures.n2o_boxplot(dist, chance=0.05, order=["b", "a", "c", "d"])
    assert [t.name for t in fig.data] == ["b", "a", "c", "d"]
    for t in fig.data:
        i = res.embedders.index(t.name)
        expected = sorted(res.mean[i, j] for j in range(4) if j != i)
        assert sorted(np.asarray(t.y)) == pytest.approx(expected)
    assert any(getattr(s, "y0", None) == 0.05 for s in fig.layout.shapes)
    with pytest.raises(N2OError):
        figures.n2o_boxplot(pd.DataFrame({"embedder": ["a"]}))


def test_spearman_heatmap_and_curves(sampled):
    _, neighbors = sampled
    ks = [4, 6, 8, 10]
    R = overlap.robustness_across_k(neighbors, ks)
    fig = figures.spearman_heatmap(R)
    z = np.asarray(fig.data[0].z)
    assert z.shape == (len(ks), len(ks))
    np.testing.assert_allclose(np.diag(z), 1.0)
    assert list(fig.data[0].x) == [str(k) for k in ks]
    rows = []
    for k in ks:
        M = overlap.n2o_matrix(neighbors, k)
        for _, r in overlap.pairs_frame(M, list(neighbors)).iterrows():
            rows.append({"pair": f"{r['a']} · {r['b']}", "k": k, "n2o": r["n2o"]})
    curves = pd.DataFrame(rows)
    fig2 = figures.n2o_vs_k(curves, chance=[k / 199 for k in ks])
    assert len(fig2.data) == 6 + 1  # 6 pairs + chance line
    assert fig2.data[-1].name.startswith("chance")


def test_token_overlap_bars_error_bars_match_ci():
    texts = [
        "the cat sat on the mat",
        "a cat sat on a mat",
        "dogs bark loudly",
        "the cat is on the mat",
        "stocks fell sharply today",
        "the mat is red",
    ]
    q = np.array([0, 2])
    nb = {"lexical": np.array([[3, 1], [4, 5]]), "other": np.array([[4, 2], [0, 1]])}
    df = overlap.token_overlap_by_embedder(texts, q, nb, 2)
    fig = figures.token_overlap_bars(df, random_level=0.1)
    bar = fig.data[0]
    assert list(bar.x) == ["lexical", "other"]
    np.testing.assert_allclose(bar.y, df["mean"])
    np.testing.assert_allclose(bar.error_y.array, df["ci_high"] - df["mean"])
    np.testing.assert_allclose(bar.error_y.arrayminus, df["mean"] - df["ci_low"])
    assert df.loc[df.embedder == "lexical", "mean"].item() > df.loc[df.embedder == "other", "mean"].item()
    assert any(getattr(s, "y0", None) == 0.1 for s in fig.layout.shapes)


def test_heros_bars_grouped_by_subset():
    res = pd.DataFrame(
        {
            "embedder": ["e1", "e1", "e2", "e2"],
            "subset": ["synonym", "antonym"] * 2,
            "n": [20, 20, 20, 20],
            "raw": [0.9, 0.8, 0.7, 0.6],
            "normalized": [0.7, 0.5, 0.4, 0.2],
            "ci_low": [0.6, 0.4, 0.3, 0.1],
            "ci_high": [0.8, 0.6, 0.5, 0.3],
        }
    )
    fig = figures.heros_bars(res)
    assert [t.name for t in fig.data] == ["e1", "e2"]
    assert fig.layout.barmode == "group"
    assert list(fig.data[1].x) == ["synonym", "antonym"]
    np.testing.assert_allclose(np.asarray(fig.data[1].customdata)[:, 0], [0.7, 0.6])
    np.testing.assert_allclose(fig.data[0].error_y.array, [0.1, 0.1])
    with pytest.raises(N2OError):
        figures.heros_bars(res.drop(columns=["raw"]))


def test_recall_bars_skip_exact():
    fig = figures.recall_bars({"a": 0.97, "b": None, "c": 0.5}, k=10)
    assert list(fig.data[0].x) == ["a", "c"]
    assert list(fig.data[0].y) == [0.97, 0.5]


def test_figures_module_does_not_import_streamlit():
    import subprocess
    import sys

    code = "import n2o_core.figures, n2o_core.settings, sys; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
