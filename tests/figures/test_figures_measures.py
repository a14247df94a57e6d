"""The measures' figures and summaries: built from a `MeasureComparison` of hand-made arrays."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.figures.measures import embedder_maps, measure_agreement_heatmap, measure_matrices
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
    assert "cka_linear (null 0.000)" in titles
    procrustes = np.mean([r["null_mean"] for r in cmp.rows if r["measure"] == "procrustes"])
    assert f"procrustes (null {procrustes:.3f})" in titles
