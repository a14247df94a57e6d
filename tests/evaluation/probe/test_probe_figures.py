"""The probing page's pure pieces: the accuracy heatmap and the ranking chart (n2o_core.figures.probe), the ranking
as shown with its arrows and the hand-read shares (n2o_core.evaluation.probe.report), and the page's URL list parameter
(n2o_core.settings.param_multi_choice)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from n2o_core.errors import N2OError
from n2o_core.evaluation.probe import TASKS
from n2o_core.evaluation.probe.report import (
    done_tasks,
    judged_shares,
    moved_count,
    n_test_range,
    noise_half_width,
    ranking_display,
)
from n2o_core.evaluation.probe.run import ProbeResult
from n2o_core.figures import probe as figures_probe
from n2o_core.settings import param_multi_choice

ROOT = Path(__file__).resolve().parents[3]


def table() -> pd.DataFrame:
    """ProbeResult.table's layout: task names x (majority, length, embedders)."""
    return pd.DataFrame(
        {"majority": [0.5, 1 / 6], "length": [0.52, 0.9], "tfidf": [0.61, np.nan], "fasttext": [0.75, 0.4]},
        index=["BShift", "SentLen"],
    )


def test_heatmap_rows_are_baselines_then_embedders_in_percent_with_values_written():
    fig = figures_probe.accuracy_heatmap(table(), classifier="mlp")
    (hm,) = fig.data
    assert list(hm.y) == ["majority class", "length only (LR)", "tfidf", "fasttext"]
    assert list(hm.x) == ["BShift", "SentLen"]
    z = np.asarray(hm.z, float)
    np.testing.assert_allclose(z[[0, 1, 3]], [[50, 100 / 6], [52, 90], [75, 40]])
    assert np.isnan(z[2, 1]) and hm.text[2][1] == "" and hm.text[3][0] == "75.0"
    np.testing.assert_allclose(np.asarray(hm.customdata, float)[3], [25, 40 - 100 / 6])  # gain over majority
    assert (hm.zmin, hm.zmax) == pytest.approx((40, 75))  # the embedders' span
    assert "MLP" in fig.layout.title.text
    (rule,) = fig.layout.shapes  # between the two baselines and the embedders
    assert rule.y0 == rule.y1 == 1.5


def test_heatmap_refuses_a_table_without_results():
    with pytest.raises(N2OError):
        figures_probe.accuracy_heatmap(table().iloc[:0])
    with pytest.raises(N2OError):
        figures_probe.accuracy_heatmap(table().drop(columns=["majority"]))


def ranking() -> pd.DataFrame:
    """ProbeResult.ranking's layout."""
    return pd.DataFrame(
        {
            "embedder": ["a", "b", "c"],
            "mean_lr": [0.8, 0.7, 0.6],
            "rank_lr": [1, 2, 3],
            "mean_mlp": [0.82, 0.85, 0.65],
            "rank_mlp": [2, 1, 3],
            "change_lr_to_mlp": [-1, 1, 0],
        }
    )


def test_ranking_display_arrows_and_moved_flags():
    shown = ranking_display(ranking(), ["lr", "mlp"])
    assert shown["rank LR"].tolist() == [1, 2, 3]
    assert shown["rank MLP"].tolist() == ["2 ▼1", "1 ▲1", "3 ="]
    assert shown["rank changes"].tolist() == [True, True, False]
    assert shown["mean MLP %"].tolist() == [82.0, 85.0, 65.0]


def test_how_many_embedders_move_between_the_classifiers():
    assert moved_count(ranking(), ["lr", "mlp"]) == 2
    assert moved_count(ranking(), ["lr"]) == 0
    still = ranking().assign(rank_mlp=[1, 2, 3])
    assert moved_count(still, ["lr", "mlp"]) == 0


def test_the_tasks_read_out_and_their_test_sizes():
    tasks = pd.DataFrame(
        {
            "task": ["sentlen", "wc", "bshift", "tense"],
            "n_test": [600, 0, 240, 180],
            "skipped": [None, "WC: too few words", None, None],
        }
    )
    res = ProbeResult(tasks=tasks, results=pd.DataFrame())
    assert done_tasks(res) == ["sentlen", "bshift", "tense"]
    assert n_test_range(res) == (180, 600)  # the skipped task's 0 is not one of them
    none = ProbeResult(tasks=tasks.assign(skipped="skipped"), results=pd.DataFrame())
    assert done_tasks(none) == [] and n_test_range(none) == (0, 0)


def test_ranking_bump_bold_lines_for_the_embedders_that_move():
    fig = figures_probe.ranking_bump(ranking(), ["lr", "mlp"])
    by = {t.name: t for t in fig.data}
    assert list(by["a"].y) == [1, 2] and list(by["b"].y) == [2, 1] and list(by["c"].y) == [3, 3]
    assert list(by["a"].x) == ["logistic regression", "MLP"]
    assert by["a"].line.width > by["c"].line.width and by["c"].line.dash == "dot"
    assert by["b"].text[-1] == " b (▲1)" and by["a"].text[-1] == " a (▼1)" and by["c"].text[-1] == " c"
    np.testing.assert_allclose(by["b"].customdata, [70, 85])
    with pytest.raises(N2OError):
        figures_probe.ranking_bump(ranking().drop(columns=["rank_mlp"]), ["lr", "mlp"])


def test_judged_shares_read_from_the_sample_doc():
    text = (ROOT / "docs" / "probe_sample.md").read_text(encoding="utf-8")
    shares = judged_shares(text)
    assert shares.columns[0] == "task" and len(shares) == 10
    assert shares["task"].tolist()[:2] == ["SentLen", "WC"]
    assert shares["judged correct"].str.contains("/30").all()
    assert judged_shares("# nothing here\n\n| a | b |\n|---|---|\n| 1 | 2 |\n").empty


@pytest.mark.parametrize(
    ("raw", "expected", "noted"),
    [
        (None, ["lr", "mlp"], False),
        ("", ["lr", "mlp"], False),
        ("mlp", ["mlp"], False),
        ("MLP,lr", ["lr", "mlp"], False),  # the choices' order, case ignored
        ("all", ["lr", "mlp"], False),
        ("lr,svm", ["lr"], True),
        ("svm", ["lr", "mlp"], True),
    ],
)
def test_param_multi_choice(raw, expected, noted):
    params = {} if raw is None else {"clf": raw}
    got, note = param_multi_choice(params, "clf", ("lr", "mlp"), ("lr", "mlp"))
    assert got == expected and (note is not None) == noted


def test_param_multi_choice_tasks_in_the_papers_order():
    got, note = param_multi_choice({"tasks": "tense,bshift"}, "tasks", TASKS, TASKS)
    assert got == ["bshift", "tense"] and note is None


def test_noise_half_width_is_the_binomial_interval_at_one_half():
    """1.96 * sqrt(0.25 / n) in points: 9.8 at 100 test items, 4.4 at 500, 3.1 at 1,000; it shrinks as 1/sqrt(n)."""
    assert noise_half_width(100) == pytest.approx(9.80, abs=0.01)
    assert noise_half_width(500) == pytest.approx(4.38, abs=0.01)
    assert noise_half_width(1000) == pytest.approx(3.10, abs=0.01)
    assert noise_half_width(400) == pytest.approx(noise_half_width(100) / 2)
    assert noise_half_width(100, level=0.99) > noise_half_width(100)
    assert np.isnan(noise_half_width(0))
