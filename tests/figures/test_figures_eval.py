"""Figure builders of the evaluation pages: the cores' frames in, plotly figures out, with the values, order,
labels and highlighting where they belong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from n2o_core.analyses.quality import quality_table
from n2o_core.errors import N2OError
from n2o_core.evaluation.sts import SCORINGS, rank_table
from n2o_core.figures import evaluation as figures_eval
from n2o_core.figures.style import embedder_colors


def needle_results() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "embedder": ["b", "a", "c"],  # sorted by MRR, as run_needle returns it
            "mrr": [0.8, 0.5, 0.2],
            "mrr_ci_low": [0.7, 0.4, 0.1],
            "mrr_ci_high": [0.9, 0.65, 0.3],
            "top1": [70, 40, 10],
            "top5": [90, 60, 30],
            "n": [100, 100, 100],
        }
    )


def test_needle_dots_with_asymmetric_cis_best_on_top():
    fig = figures_eval.needle_mrr(needle_results(), color_order=["a", "b", "c"])
    (tr,) = fig.data
    assert list(tr.y) == ["c", "a", "b"]  # plotly draws the first category at the bottom: best last = on top
    np.testing.assert_allclose(tr.x, [0.2, 0.5, 0.8])
    np.testing.assert_allclose(tr.error_x.array, [0.1, 0.15, 0.1])
    np.testing.assert_allclose(tr.error_x.arrayminus, [0.1, 0.1, 0.1])
    colors = embedder_colors(["a", "b", "c"])
    assert list(tr.marker.color) == [colors["c"], colors["a"], colors["b"]]
    assert "SYNTHETIC" not in fig.layout.title.text
    assert fig.layout.title.text.endswith(", 100 pairs")  # what the intervals rest on, next to them
    assert figures_eval.needle_mrr(needle_results().assign(n=[18, 18, 17])).layout.title.text.endswith("17–18 pairs")
    assert fig.layout.xaxis.range[0] == 0 and fig.layout.xaxis.range[1] == pytest.approx(0.9 * 1.08)
    syn = figures_eval.needle_mrr(needle_results(), synthetic=True)
    assert syn.layout.title.text.startswith("SYNTHETIC pairs")
    with pytest.raises(N2OError, match="lacks column"):
        figures_eval.needle_mrr(needle_results().drop(columns="top5"))


def sts_results() -> pd.DataFrame:
    # a ranks 1st raw and 3rd after z-norm; b is 2nd everywhere; c climbs from 3rd to 1st
    return pd.DataFrame(
        {
            "embedder": ["a", "b", "c"],
            "dim": [300, 384, 50],
            "n": [10, 10, 10],
            "pearson": [0.7, 0.6, 0.4],
            "spearman": [0.7, 0.6, 0.5],
            "pearson_znorm": [0.5, 0.6, 0.7],
            "spearman_znorm": [0.5, 0.6, 0.8],
            "zero_vectors": [0, 0, 0],
        }
    )


def test_rank_bump_lines_follow_the_ranks_and_bold_the_movers():
    ranks = rank_table(sts_results())
    fig = figures_eval.rank_bump(ranks)
    by = {t.name: t for t in fig.data}
    labels = list(figures_eval.SCORING_LABELS.values())
    assert [figures_eval.SCORING_LABELS[s] for s in SCORINGS] == labels
    assert list(by["a"].x) == labels
    assert list(by["a"].y) == [1, 1, 3, 3]
    assert list(by["b"].y) == [2, 2, 2, 2]
    assert list(by["c"].y) == [3, 3, 1, 1]
    assert by["a"].line.width > by["b"].line.width and by["b"].line.dash == "dot" and by["c"].line.dash == "solid"
    assert list(by["c"].text)[-1].strip() == "c"  # the name at the line's end
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]  # rank 1 on top


def test_correlation_bars_show_the_four_scorings():
    fig = figures_eval.correlation_bars(sts_results())
    assert [t.name for t in fig.data] == list(figures_eval.SCORING_LABELS.values())
    for t, s in zip(fig.data, SCORINGS):
        np.testing.assert_allclose(t.y, sts_results()[s])
        assert list(t.x) == ["a", "b", "c"]


def test_quality_scatter_plots_the_chosen_columns_and_names_what_it_leaves_out():
    M = np.array([[1.0, 0.2, 0.4], [0.2, 1.0, 0.6], [0.4, 0.6, 1.0]])
    t = quality_table(
        ["a", "b", "c"],
        n2o=M,
        needle=pd.DataFrame({"embedder": ["a", "c"], "mrr": [0.3, 0.8]}),
        dims={"a": 5000, "b": 50, "c": 100},
    )
    fig = figures_eval.quality_scatter(t, "n2o_mean", "needle_mrr", labels={"n2o_mean": "N2O", "needle_mrr": "MRR"})
    (tr,) = fig.data
    assert list(tr.text) == ["a", "c"]
    np.testing.assert_allclose(tr.x, [0.3, 0.5])
    np.testing.assert_allclose(tr.y, [0.3, 0.8])
    assert fig.layout.xaxis.title.text == "N2O" and fig.layout.yaxis.title.text == "MRR"
    assert "not shown (no value): b" in fig.layout.title.text
    dim = figures_eval.quality_scatter(t, "dim", "n2o_mean")
    assert dim.layout.xaxis.type == "log"  # tf-idf's vocabulary next to 50-d vectors
    assert len(dim.data[0].x) == 3 and dim.layout.title.text is None
