"""Figure builders: real data in, plotly figures out, with the values and labels where they belong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from n2o_core.analyses import overlap
from n2o_core.errors import N2OError
from n2o_core.figures import heros as figures_heros
from n2o_core.figures import n2o as figures
from n2o_core.figures import style as figures_style


@pytest.fixture
def sampled():
    """N2O over 3 samples for four embedders whose neighbor lists overlap by construction: `base` ids come from
    0..99 and `other` ids from 100..199, so rows never repeat an id and every N2O is exact on every query:
    a·b 0.8, a·c 0.2, a·d 0.3, b·c 0.2, b·d 0.3, c·d 0.9 (2 shared base ids + 7 shared other ids)."""
    rng = np.random.default_rng(0)
    pool_n, k = 60, 10
    base = np.stack([rng.choice(100, size=k, replace=False) for _ in range(pool_n)])
    other = np.stack([100 + rng.choice(100, size=k, replace=False) for _ in range(pool_n)])
    a = base
    b = np.concatenate([base[:, :8], other[:, :2]], axis=1)
    c = np.concatenate([base[:, :2], other[:, 2:]], axis=1)
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


EXPECTED = np.array([[1, 0.8, 0.2, 0.3], [0.8, 1, 0.2, 0.3], [0.2, 0.2, 1, 0.9], [0.3, 0.3, 0.9, 1]])


def test_heatmap_keeps_the_diagonal_off_a_scale_fitted_to_the_pairs(sampled):
    res, _ = sampled
    np.testing.assert_allclose(res.mean, EXPECTED)
    fig = figures.n2o_heatmap(res.mean, res.embedders, std=res.std, chance=0.05, k=10)
    hm, self_ = fig.data
    assert hm.type == self_.type == "heatmap"
    z = np.asarray(hm.z, float)
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_allclose(z[off], EXPECTED[off])
    assert np.isnan(np.diag(z)).all() and hm.hoverongaps is False
    text = np.asarray(hm.text)
    assert list(np.diag(text)) == [""] * 4 and text[0, 1] == "0.80" and text[2, 3] == "0.90"
    assert list(hm.x) == ["a", "b", "c", "d"] and list(hm.y) == ["a", "b", "c", "d"]
    # chance 0.05 is 0.15 below the lowest pair (0.2), under half the pairs' range 0.7: the scale reaches down to it
    assert (hm.zmin, hm.zmax) == (0.05, 0.9)
    ticks = dict(zip(hm.colorbar.tickvals, hm.colorbar.ticktext))
    assert ticks[0.05] == "chance 0.05"
    assert [t for t in ticks if t != 0.05] == [0.25, 0.5, 0.75]  # round steps inside the scale
    assert hm.colorbar.title.text == "N2O@10"
    custom = np.asarray(hm.customdata)
    np.testing.assert_allclose(custom[..., 0], res.std)
    assert np.all(custom[..., 1] == 0.05)
    np.testing.assert_allclose(custom[..., 2], res.mean / 0.05)
    assert "±" in hm.hovertemplate and "chance" in hm.hovertemplate and "× chance" in hm.hovertemplate
    # the diagonal: one neutral colour, no scale, its self-overlap on hover only
    sz = np.asarray(self_.z, float)
    assert np.isnan(sz[off]).all() and (np.diag(sz) == 0).all() and self_.showscale is False
    assert self_.colorscale[0][1] == self_.colorscale[-1][1]
    np.testing.assert_allclose(np.diag(np.asarray(self_.customdata, float)), 1.0)
    with pytest.raises(N2OError):
        figures.n2o_heatmap(res.mean, ["a", "b"])


def test_heatmap_chance_far_below_the_pairs_stays_off_the_scale():
    M = np.array([[1, 0.3, 0.4], [0.3, 1, 0.35], [0.4, 0.35, 1]])
    hm = figures.n2o_heatmap(M, ["x", "y", "z"], chance=0.01, k=5).data[0]
    # extending to 0.01 would spend 0.29 of a 0.39 scale below the lowest pair: not by default
    assert (hm.zmin, hm.zmax) == (0.3, 0.4)
    assert "chance 0.01" in hm.colorbar.title.text and "below" in hm.colorbar.title.text
    assert not any("chance" in t for t in hm.colorbar.ticktext)
    assert min(hm.colorbar.tickvals) >= 0.3 and max(hm.colorbar.tickvals) <= 0.4
    forced = figures.n2o_heatmap(M, ["x", "y", "z"], chance=0.01, extend_to_chance=True).data[0]
    assert forced.zmin == 0.01 and "chance 0.01" in forced.colorbar.ticktext
    kept = figures.n2o_heatmap(M, ["x", "y", "z"], chance=0.25, extend_to_chance=False).data[0]
    assert kept.zmin == 0.3 and "below" in kept.colorbar.title.text
    above = figures.n2o_heatmap(M, ["x", "y", "z"], chance=0.5).data[0]
    assert (above.zmin, above.zmax) == (0.3, 0.4) and "above" in above.colorbar.title.text


def test_heatmap_fallbacks_for_two_and_one_embedders():
    two = figures.n2o_heatmap(np.array([[1, 0.3], [0.3, 1]]), ["x", "y"]).data[0]
    assert (two.zmin, two.zmax) == pytest.approx((0.25, 0.35))  # one pair: its value mid-scale
    assert "chance" not in two.hovertemplate and not any("chance" in t for t in two.colorbar.ticktext)
    one = figures.n2o_heatmap(np.array([[1.0]]), ["x"]).data[0]
    assert (one.zmin, one.zmax) == (0.0, 1.0)
    assert figures_style.heatmap_range(np.array([0.0, 0.0])) == (0.0, 0.05)
    assert figures_style.heatmap_range(np.array([1.5]), bounds=(-1.0, 1.0)) == (1.45, 1.55)
    assert figures.nice_ticks(0.05, 0.9) == [0.25, 0.5, 0.75]
    assert figures.nice_ticks(0.0, 0.4) == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert figures.nice_ticks(0.3, 0.4) == [0.3, 0.325, 0.35, 0.375, 0.4]


def test_boxplot_one_box_per_embedder_with_all_partners(sampled):
    res, _ = sampled
    dist = overlap.n2o_distribution(res.mean, res.embedders)
    fig = figures.n2o_boxplot(dist, chance=0.05, order=["b", "a", "c", "d"])
    boxes = [t for t in fig.data if t.type == "box"]
    assert [t.name for t in boxes] == ["b", "a", "c", "d"]
    assert [t.name for t in fig.data if t.type != "box"] == ["chance 0.0500"]  # named in the legend, not on the plot
    for t in boxes:
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
    assert fig.layout.xaxis.title.text == "k" and "k=%{y} vs k=%{x}" in fig.data[0].hovertemplate
    rows = []
    for k in ks:
        M = overlap.n2o_matrix(neighbors, k)
        for _, r in overlap.pairs_frame(M, list(neighbors)).iterrows():
            rows.append({"pair": f"{r['a']} · {r['b']}", "k": k, "n2o": r["n2o"]})
    curves = pd.DataFrame(rows)
    fig2 = figures.n2o_vs_k(curves, chance=[k / 199 for k in ks])
    assert len(fig2.data) == 6 + 1  # 6 pairs + chance line
    assert fig2.data[-1].name.startswith("chance")


def test_samples_heatmap_names_its_axes(sampled):
    res, _ = sampled
    per = [res.per_sample[0], res.per_sample[1], 1 - res.per_sample[2]]
    R = overlap.robustness_across_samples(per, labels=["s1", "s2", "s3"])
    fig = figures.samples_heatmap(R)
    hm = fig.data[0]
    assert list(hm.x) == ["s1", "s2", "s3"] and fig.layout.yaxis.title.text == "query sample"
    assert "query sample %{y} vs query sample %{x}" in hm.hovertemplate
    z = np.asarray(hm.z)
    assert z[0, 1] == pytest.approx(1.0) and z[0, 2] == pytest.approx(-1.0)  # reversed matrix: reversed ranking


def test_sample_size_curve_plots_the_frame():
    df = pd.DataFrame(
        {
            "n": [30, 10, 20],
            "repeats": [5, 5, 5],
            "rho_mean": [1.0, 0.8, 0.9],
            "rho_min": [1.0, 0.6, 0.85],
            "abs_diff_mean": [0.0, 0.04, 0.02],
            "abs_diff_max": [0.0, 0.07, 0.03],
        }
    )
    fig = figures.sample_size_curve(df)
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["ρ, mean over repeats"].x) == [10, 20, 30]
    assert list(by_name["ρ, mean over repeats"].y) == [0.8, 0.9, 1.0]
    assert list(by_name["ρ, worst repeat"].y) == [0.6, 0.85, 1.0]
    assert list(by_name["|ΔN2O|, mean over repeats"].y) == [0.04, 0.02, 0.0]
    assert by_name["|ΔN2O|, worst repeat"].yaxis == "y2"
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"
    with pytest.raises(N2OError):
        figures.sample_size_curve(df.drop(columns=["rho_min"]))


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


@pytest.fixture
def heros_results():
    return pd.DataFrame(
        {
            "embedder": ["e1", "e1", "e1", "e2", "e2", "e2"],
            "subset": ["typo", "synonym", "negation_main"] * 2,
            "n": [20, 20, 18, 20, 20, 18],
            "raw": [0.95, 0.97, 0.96, 0.90, 0.93, 0.91],
            "normalized": [0.90, 0.95, 0.97, 0.88, 0.92, 0.89],
            "ci_low": [0.89, 0.94, 0.96, 0.87, 0.91, 0.88],
            "ci_high": [0.91, 0.96, 0.98, 0.89, 0.93, 0.90],
        }
    )


def test_heros_bars_grouped_by_subset_with_a_fitted_axis(heros_results):
    fig = figures_heros.heros_bars(heros_results)
    assert [t.name for t in fig.data] == ["e1", "e2"]
    assert fig.layout.barmode == "group"
    assert list(fig.data[1].x) == ["Typo", "Synonym", "Negation (Main)"]
    np.testing.assert_allclose(np.asarray(fig.data[1].customdata)[:, 0], [0.90, 0.93, 0.91])
    np.testing.assert_allclose(fig.data[0].error_y.array, [0.01, 0.01, 0.01], atol=1e-12)
    lo, hi = fig.layout.yaxis.range
    # CIs span 0.87-0.98; the axis keeps 0.08 of that span (but at least 0.01) on each side, far from 0-1
    assert (lo, hi) == pytest.approx((0.86, 0.99))
    assert not fig.layout.shapes  # no zero line outside the range
    with pytest.raises(N2OError):
        figures_heros.heros_bars(heros_results.drop(columns=["raw"]))


def test_heros_heatmap_writes_values_in_cells(heros_results):
    hm = figures_heros.heros_heatmap(heros_results).data[0]
    assert list(hm.y) == ["e1", "e2"]
    assert list(hm.x) == ["Synonym", "Typo", "Negation (Main)"]  # Heros' order, the paper's labels
    np.testing.assert_allclose(np.asarray(hm.z, float), [[0.95, 0.90, 0.97], [0.92, 0.88, 0.89]])
    assert np.asarray(hm.text).tolist() == [["0.95", "0.90", "0.97"], ["0.92", "0.88", "0.89"]]
    assert (hm.zmin, hm.zmax) == (0.88, 0.97)  # coloured over the data, not 0-1
    custom = np.asarray(hm.customdata, float)
    np.testing.assert_allclose(custom[1, 2], [0.91, 0.89, 0.88, 0.90, 18])  # raw, normalized, CI, n
    for word in ("raw cosine", "normalized", "CI", "n ="):
        assert word in hm.hovertemplate
    raw = figures_heros.heros_heatmap(heros_results, value="raw", decimals=3).data[0]
    np.testing.assert_allclose(np.asarray(raw.z, float)[0], [0.97, 0.95, 0.96])
    assert raw.text[0][0] == "0.970" and raw.colorbar.title.text == "raw cosine"


def test_heros_heatmap_states_its_colour_scale(heros_results):
    """The scale spans the cells (0.88-0.97 here, wider than the 0.02 CIs), and the figure says so."""
    fig = figures_heros.heros_heatmap(heros_results)
    note = fig.layout.annotations[0].text
    assert "Colour scale: 0.880 to 0.970, the cells' range (0.880 to 0.970)" in note and "Not 0 to 1" in note
    assert "median 95% CI is 0.020 wide" in note


def test_heros_heatmap_cells_within_the_noise_get_a_scale_as_wide_as_the_ci(heros_results):
    """Cells 0.90-0.91 with 95% CIs 0.06 wide: a scale over 0.90-0.91 would paint noise as dark against light,
    so it is widened about its middle to 0.06, and the figure says so."""
    close = heros_results.assign(
        normalized=[0.900, 0.905, 0.910, 0.902, 0.904, 0.906],
        ci_low=lambda d: d["normalized"] - 0.03,
        ci_high=lambda d: d["normalized"] + 0.03,
    )
    fig = figures_heros.heros_heatmap(close)
    hm = fig.data[0]
    assert (hm.zmin, hm.zmax) == pytest.approx((0.875, 0.935))
    assert "widened to the median 95% CI (0.060 wide)" in fig.layout.annotations[0].text


def test_heros_heatmap_relative_to_synonym(heros_results):
    hm = figures_heros.heros_heatmap(heros_results, relative_to="synonym").data[0]
    assert list(hm.x) == ["Typo", "Negation (Main)"]
    np.testing.assert_allclose(np.asarray(hm.z, float), [[-0.05, 0.02], [-0.04, -0.03]], atol=1e-12)
    assert np.asarray(hm.text).tolist() == [["-0.05", "+0.02"], ["-0.04", "-0.03"]]
    assert hm.zmid == 0 and hm.zmin == pytest.approx(-0.05) and hm.zmax == pytest.approx(0.05)
    np.testing.assert_allclose(np.asarray(hm.customdata, float)[:, :, 5], [[0.95, 0.95], [0.92, 0.92]])
    assert "minus Synonym" in hm.hovertemplate and hm.colorbar.title.text == "minus Synonym"
    note = figures_heros.heros_heatmap(heros_results, relative_to="synonym").layout.annotations[0].text
    assert note.startswith("Colour scale: ±0.050, the largest difference from Synonym")


def test_heros_heatmap_blank_missing_cells_and_bad_input(heros_results):
    hm = figures_heros.heros_heatmap(heros_results.drop(index=5)).data[0]  # e2 has no negation_main
    z = np.asarray(hm.z, float)
    assert np.isnan(z[1, 2]) and hm.text[1][2] == "" and hm.hoverongaps is False
    with pytest.raises(N2OError):
        figures_heros.heros_heatmap(heros_results, relative_to="antonym")
    with pytest.raises(N2OError):
        figures_heros.heros_heatmap(heros_results, value="ci_low")
    with pytest.raises(N2OError):
        figures_heros.heros_heatmap(pd.concat([heros_results, heros_results.iloc[:1]]))


def test_recall_bars_skip_exact():
    fig = figures.recall_bars({"a": 0.97, "b": None, "c": 0.5}, k=10)
    assert list(fig.data[0].x) == ["a", "c"]
    assert list(fig.data[0].y) == [0.97, 0.5]


def test_figures_module_does_not_import_streamlit():
    import subprocess
    import sys

    code = "import n2o_core.figures.n2o, n2o_core.settings, sys; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_package_face_names_every_builder_and_imports_plotly_only_on_use():
    import subprocess
    import sys

    code = (
        "import sys, n2o_core.figures as f; light = 'plotly' not in sys.modules; "
        "f.n2o_heatmap; one = sorted(m for m in sys.modules if m.startswith('n2o_core.figures.')); "
        "print(light, one, all(getattr(f, n) is not None for n in f.__all__))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True ['n2o_core.figures.n2o', 'n2o_core.figures.style'] True"


def test_partial_heatmap_keeps_order_and_scale_while_embedders_come_in():
    names = ["tfidf", "glove", "word2vec", "minilm"]
    two = figures.partial_heatmap(np.array([[1, 0.3], [0.3, 1]]), ["word2vec", "tfidf"], names, chance=0.01, k=10)
    three = figures.partial_heatmap(
        np.array([[1, 0.3, 0.5], [0.3, 1, 0.2], [0.5, 0.2, 1]]), ["tfidf", "word2vec", "minilm"], names, chance=0.01
    )
    for fig in (two, three):
        hm = fig.data[0]
        assert list(hm.x) == names and list(hm.y) == names  # every chosen embedder, the sidebar's order
        assert (hm.zmin, hm.zmax) == figures.PARTIAL_ZRANGE  # not the values' range, which moves
    z = np.array(two.data[0].z, float)
    assert z[0, 2] == z[2, 0] == 0.3 and np.isnan(z[1]).all()  # glove not in yet: a blank row
    assert "2 of 4 embedders ready" in two.layout.title.text
    final = figures.n2o_heatmap(np.array([[1, 0.3, 0.5], [0.3, 1, 0.2], [0.5, 0.2, 1]]), names[:3]).data[0]
    assert (final.zmin, final.zmax) == (0.2, 0.5)  # the complete one spans the values


def test_chance_beside_every_value_when_asked():
    M = np.array([[1, 0.25, 0.21], [0.25, 1, 0.3], [0.21, 0.3, 1]])
    cells = figures.n2o_heatmap(M, ["a", "b", "c"], chance=1 / 6, k=10, cells_vs_chance=True).data[0]
    assert cells.text[0][1] == "0.25<br>1.5×" and cells.text[1][2] == "0.30<br>1.8×" and cells.text[0][0] == ""
    assert "× chance" in cells.colorbar.title.text
    plain = figures.n2o_heatmap(M, ["a", "b", "c"], chance=1 / 6, k=10).data[0]
    assert plain.text[0][1] == "0.25"
