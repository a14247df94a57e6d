"""Quality beside agreement (n2o_core.analyses.quality): the table's columns from the cores' frames, by hand-checked
numbers, and the dimension of real embedders on a small corpus."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from synthetic_text import sentences

from n2o_core.analyses.quality import (
    QUALITY_COLUMNS,
    column_correlation,
    embedder_dims,
    mean_n2o_with_others,
    negation_sensitivity,
    quality_csv,
    quality_display,
    quality_table,
)
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.storage.cache import Cache

NAMES = ["a", "b", "c"]
M = np.array([[1.0, 0.2, 0.4], [0.2, 1.0, 0.6], [0.4, 0.6, 1.0]])


def heros_rows() -> pd.DataFrame:
    rows = []
    for e, syn, neg in (("a", 0.95, 0.90), ("b", 0.97, 0.70), ("c", 0.99, 1.00)):
        rows += [
            {"embedder": e, "subset": "synonym", "normalized": syn},
            {"embedder": e, "subset": "antonym", "normalized": 0.5},
            {"embedder": e, "subset": "negation_main", "normalized": neg},
        ]
    return pd.DataFrame(rows)


def test_mean_n2o_leaves_out_the_diagonal():
    got = mean_n2o_with_others(M, NAMES)
    np.testing.assert_allclose(got.to_numpy(), [0.3, 0.4, 0.5])
    assert got.index.tolist() == NAMES
    M2 = M.copy()
    M2[0, 2] = np.nan  # a missing pair is skipped, not counted as 0
    np.testing.assert_allclose(mean_n2o_with_others(M2, NAMES)["a"], 0.2)
    assert np.isnan(mean_n2o_with_others(np.ones((1, 1)), ["x"])["x"])
    with pytest.raises(N2OError, match="must be 3 x 3"):
        mean_n2o_with_others(np.ones((2, 2)), NAMES)


def test_negation_sensitivity_is_synonym_minus_negation_main():
    got = negation_sensitivity(heros_rows())
    np.testing.assert_allclose(got.loc[NAMES].to_numpy(), [0.05, 0.27, -0.01], atol=1e-12)
    no_neg = heros_rows().query("subset != 'negation_main'")
    assert negation_sensitivity(no_neg).isna().all()
    with pytest.raises(N2OError, match="lacks column"):
        negation_sensitivity(pd.DataFrame({"embedder": ["a"]}))


def test_quality_table_joins_by_embedder_and_leaves_what_was_not_run_empty():
    needle = pd.DataFrame({"embedder": ["c", "a"], "mrr": [0.8, 0.3]})  # sorted by MRR, b failed
    sts = pd.DataFrame({"embedder": NAMES, "spearman": [0.1, 0.5, 0.7]})
    t = quality_table(NAMES, n2o=M, needle=needle, sts=sts, heros=heros_rows(), dims={"a": 300, "b": 50})
    assert t.columns.tolist() == ["embedder", *QUALITY_COLUMNS]
    assert t["embedder"].tolist() == NAMES
    np.testing.assert_allclose(t["n2o_mean"], [0.3, 0.4, 0.5])
    np.testing.assert_allclose(t["needle_mrr"], [0.3, np.nan, 0.8])
    np.testing.assert_allclose(t["sts_spearman"], [0.1, 0.5, 0.7])
    np.testing.assert_allclose(t["negation_sensitivity"], [0.05, 0.27, -0.01], atol=1e-12)
    np.testing.assert_allclose(t["dim"], [300, 50, np.nan])
    empty = quality_table(NAMES)
    assert empty.drop(columns="embedder").isna().all().all()


def test_column_correlation_and_csv():
    t = quality_table(
        NAMES,
        n2o=M,
        sts=pd.DataFrame({"embedder": NAMES, "spearman": [0.1, 0.5, 0.7]}),
        dims={"a": 300, "b": 50, "c": 100},
    )
    rho, n = column_correlation(t, "n2o_mean", "sts_spearman")
    assert n == 3 and rho == pytest.approx(1.0)
    rho, n = column_correlation(t, "n2o_mean", "dim")  # 0.3/300, 0.4/50, 0.5/100: ranks (1,2,3) vs (3,1,2)
    assert n == 3 and rho == pytest.approx(-0.5)
    rho, n = column_correlation(t, "n2o_mean", "needle_mrr")
    assert n == 0 and np.isnan(rho)
    with pytest.raises(N2OError, match="no column 'nope'"):
        column_correlation(t, "nope", "dim")
    back = pd.read_csv(io.StringIO(quality_csv(t)))
    assert back.columns.tolist() == ["embedder", *QUALITY_COLUMNS]
    assert back["dim"].tolist() == [300, 50, 100]
    assert back["needle_mrr"].isna().all()
    np.testing.assert_allclose(back["n2o_mean"], [0.3, 0.4, 0.5])


def test_embedder_dims_of_real_embedders(tmp_path):
    ws = Workspace(from_texts(sentences(60), name="dims"), cache=Cache(tmp_path / "cache"))
    dims = embedder_dims(ws, ["glove-6b-50d", "tfidf"])
    assert dims["glove-6b-50d"] == 50
    assert dims["tfidf"] == ws.embeddings("tfidf").shape[1] > 10  # the vocabulary of this corpus


def test_display_is_text_with_a_dash_for_what_was_not_run():
    t = quality_table(NAMES, n2o=M, dims={"a": 12345, "b": 50})
    d = quality_display(t)
    assert d.columns.tolist() == ["embedder", *(c.label for c in QUALITY_COLUMNS.values())]
    assert d["Mean N2O with the others"].tolist() == ["0.3000", "0.4000", "0.5000"]
    assert d["Needle MRR"].tolist() == ["—", "—", "—"]
    assert d["Dimension"].tolist() == ["12,345", "50", "—"]
