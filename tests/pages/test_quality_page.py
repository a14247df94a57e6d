"""AppTest: quality beside agreement. The N2O column is the heatmap comparison's mean of off-diagonal values;
analyses not yet run show "—" (NaN) and a button; once run (here, or on their own page) their columns hold the
cores' values; the scatter follows the chosen columns and the link."""

from __future__ import annotations

import numpy as np
import pandas as pd
from app_checks import no_exception, plotly_specs
from test_needle_page import workspace

from n2o_core.analyses.compare import compare
from n2o_core.analyses.quality import negation_sensitivity
from n2o_core.embedders.infos import with_stop_words_dropped
from n2o_core.evaluation.heros.run import make_pairs, score_embedder
from n2o_core.evaluation.pairs import lee_pairs
from n2o_core.evaluation.sts import run_sts

NAMES = ["tfidf", "glove-6b-50d", "word2vec"]
COLS = {
    "n2o": "Mean N2O with the others",
    "mrr": "Needle MRR",
    "sts": "Human-similarity Spearman",
    "neg": "HEROS negation sensitivity",
    "dim": "Dimension",
}


def table(app):
    """The table as shown: text with 4 decimals, "—" where an analysis was not run."""
    return app.dataframe[0].value.set_index("embedder")


def shown(values) -> list[str]:
    return [f"{float(v):.4f}" for v in values]


def test_quality_columns_buttons_and_scatter(app):
    from ui import evaluation_runs, heros_runs

    evaluation_runs._memo.clear()  # results other tests left in this process would fill columns
    heros_runs._scores.clear()  # the HEROS page's runs too (one run serves both pages)
    app.query_params.update({"emb": ",".join(NAMES)})
    app.run()
    app.switch_page("pages/quality.py").run(timeout=600)
    no_exception(app)
    ws = workspace()
    t = table(app)
    assert t.index.tolist() == NAMES
    res = compare(ws, NAMES, 10, n_queries=30, n_samples=3, seed=0, k_max=50)
    M = res.mean
    off = ~np.eye(len(NAMES), dtype=bool)
    want = [M[i][off[i]].mean() for i in range(len(NAMES))]
    assert t[COLS["n2o"]].tolist() == shown(want)
    assert t[COLS["dim"]].tolist() == [f"{ws.embeddings('tfidf').shape[1]:,}", "50", "100"]
    for c in ("mrr", "sts", "neg"):  # not run yet
        assert t[COLS[c]].tolist() == ["—"] * len(NAMES)
    assert {b.key for b in app.button} >= {"run_needle", "run_sts", "run_heros"}
    assert app.query_params["qx"] == "n2o_mean" and app.query_params["qy"] == "sts_spearman"
    assert "not shown (no value)" in plotly_specs(app)["quality_scatter"]["layout"]["title"]["text"]

    app.button(key="run_sts").click().run(timeout=600)
    no_exception(app)
    sts = run_sts(ws, lee_pairs(), NAMES).results.set_index("embedder")
    assert table(app)[COLS["sts"]].tolist() == shown(sts.loc[NAMES, "spearman"])
    assert "run_sts" not in {b.key for b in app.button}

    app.button(key="run_heros").click().run(timeout=600)
    no_exception(app)
    pairs = make_pairs(ws, 50, 0).pairs
    rows = [score_embedder(ws, pairs, with_stop_words_dropped(e), seed=0).results.assign(embedder=e) for e in NAMES]
    neg = negation_sensitivity(pd.concat(rows))
    assert table(app)[COLS["neg"]].tolist() == shown(neg.loc[NAMES])

    # the needle page's run shows up here without a button
    app.switch_page("pages/needle.py").run(timeout=600)
    no_exception(app)
    mrr = app.dataframe[0].value.set_index("embedder")["MRR"]
    app.switch_page("pages/quality.py").run(timeout=600)
    no_exception(app)
    assert table(app)[COLS["mrr"]].tolist() == shown(mrr.loc[NAMES])
    assert not any(b.key.startswith("run_") for b in app.button)

    app.selectbox(key="w_qx").set_value("dim").run(timeout=600)
    app.selectbox(key="w_qy").set_value("sts_spearman").run(timeout=600)
    no_exception(app)
    assert app.query_params["qx"] == "dim" and app.query_params["qy"] == "sts_spearman"
    sc = plotly_specs(app)["quality_scatter"]["data"][0]
    assert sc["text"] == NAMES
    np.testing.assert_allclose(sc["x"], [ws.embeddings("tfidf").shape[1], 50, 100])
    np.testing.assert_allclose(sc["y"], sts.loc[NAMES, "spearman"], atol=1e-12)
    assert any("Spearman ρ over the 3 embedders" in c.value for c in app.caption)


def test_bad_axis_in_the_link_is_named(app):
    app.query_params.update({"emb": ",".join(NAMES), "qx": "secret", "qy": "dim"})
    app.run()
    app.switch_page("pages/quality.py").run(timeout=600)
    no_exception(app)
    assert any("'qx' in the link must be one of" in w.value for w in app.warning)
    assert app.selectbox(key="w_qx").value == "n2o_mean" and app.selectbox(key="w_qy").value == "dim"
