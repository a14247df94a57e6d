"""AppTest: the human-similarity page (Pitfalls): gensim's Lee judgments offline, an uploaded scored file, and
sources without scores or out of reach. The four correlations and the ranks must be what `run_sts` computes."""

from __future__ import annotations

import numpy as np
from app_checks import no_exception, plotly_specs
from sts_fixture import write_stsb
from test_needle_page import workspace

from n2o_core.evaluation.pairs import lee_pairs, load_pairs
from n2o_core.evaluation.sts import SCORINGS, run_sts
from n2o_core.figures.evaluation import SCORING_LABELS

NAMES = ["tfidf", "glove-6b-50d", "word2vec"]
LABELS = SCORING_LABELS


def open_similarity(app, **params):
    app.query_params.update({"emb": ",".join(NAMES), **params})
    app.run()
    app.switch_page("pages/sts.py").run(timeout=600)
    no_exception(app)
    return app


def assert_matches(app, expected):
    table = app.dataframe[0].value
    assert table["embedder"].tolist() == NAMES
    assert table["dimension"].tolist() == expected.results["dim"].tolist()
    for s in SCORINGS:
        np.testing.assert_allclose(table[LABELS[s]].to_numpy(float), expected.results[s].to_numpy(float), atol=1e-12)
    ranks = app.dataframe[1].value.set_index("embedder")
    want = expected.ranks.set_index("embedder")
    for e in NAMES:
        assert ranks.loc[e, "Pearson"] == want.loc[e, "rank_pearson"]
        for s in SCORINGS[1:]:
            r, c = int(want.loc[e, f"rank_{s}"]), int(want.loc[e, f"change_{s}"])
            arrow = "=" if c == 0 else (f"▲{c}" if c > 0 else f"▼{-c}")
            assert ranks.loc[e, LABELS[s]] == f"{r} {arrow}"
    bump = plotly_specs(app)["sts_bump"]["data"]
    assert sorted(t["name"] for t in bump) == sorted(NAMES)
    for t in bump:
        assert t["x"] == list(LABELS.values())
        assert t["y"] == [int(want.loc[t["name"], f"rank_{s}"]) for s in SCORINGS]


def test_lee_judgments_give_run_sts_correlations(app):
    open_similarity(app)
    assert app.query_params["hpairs"] == "builtin:lee"
    assert any("1,225" in m.value and "gensim Lee" in m.value for m in app.markdown)
    expected = run_sts(workspace(), lee_pairs(), NAMES)
    assert_matches(app, expected)
    assert any("Pitfalls' first point" in i.value for i in app.info)  # what the dimension column is for


def test_uploaded_scored_file_and_unscored_or_unreachable_sources(app, tmp_path):
    ws = workspace()
    path = tmp_path / "sts-test.csv"
    write_stsb(path, list(ws.corpus.texts)[:100], n=80, seed=3)
    open_similarity(app, hpairs="upload")
    app.file_uploader(key="w_hpairs_upload").set_value(("sts-test.csv", path.read_bytes(), "text/csv"))
    app.run(timeout=600)
    no_exception(app)
    assert app.query_params["hpairs"] == "upload"  # the mode only, never the file
    assert_matches(app, run_sts(ws, load_pairs(str(path)), NAMES))

    # a Heros-format file has no human scores: said in place
    heros = "original\tsynonym\n" + "".join(f"{s}\t{s.replace('the', 'a', 1)}\n" for s in list(ws.corpus.texts)[:5])
    app.file_uploader(key="w_hpairs_upload").set_value(("heros.tsv", heros.encode(), "text/plain")).run(timeout=600)
    no_exception(app)
    assert any("no human scores" in w.value for w in app.warning)

    # offline, a Hugging Face name is one clear sentence
    app.radio(key="w_hpairs_mode").set_value("hf").run(timeout=600)
    app.text_input(key="w_hpairs_hf").input("hf:no-such-user/no-such-pairs").run(timeout=600)
    no_exception(app)
    assert any("cannot be reached or read" in w.value for w in app.warning)
