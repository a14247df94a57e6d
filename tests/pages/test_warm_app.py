"""AppTest: after `python -m n2o_core warm`, the app draws its first heatmap for those settings with embedding and
neighbor search forbidden (the cache holds everything it reads)."""

from __future__ import annotations

import re

from app_checks import EMBEDDERS, no_exception, plotly_specs

from n2o_core.cli.main import main


def test_warmed_cache_serves_the_first_heatmap(app, app_env, monkeypatch, capsys):
    # a view no other test prepares: a 133-sentence sample of the default corpus and its own query samples
    view = {"cap": "133", "queries": "17", "samples": "2", "seed": "5"}
    args = ["warm", "--max-sentences", "133", "--queries", "17", "--samples", "2", "--seed", "5", "--no-check"]
    assert main(args) == 0  # corpus, embedders and cache from the app's environment (N2O_DEFAULT_*, N2O_CACHE_DIR)
    # its query samples are new (embeddings, and every sentence's neighbors, may be cached by other tests)
    filled = re.search(r"(\d+) knn \(", capsys.readouterr().out)
    assert filled is not None and int(filled.group(1)) >= 4

    from n2o_core import corpus_workspace as workspace

    def forbidden(*a, **kw):
        raise AssertionError("the app embedded or searched after warm")

    monkeypatch.setattr(workspace.Workspace, "_encode", forbidden)
    monkeypatch.setattr(workspace, "exact_knn", forbidden)
    app.query_params.update(view)
    app.run()
    no_exception(app)
    assert not app.error, [e.value for e in app.error]
    assert sorted(plotly_specs(app)["heatmap"]["data"][0]["x"]) == sorted(EMBEDDERS.split(","))
    assert any("N = 133 sentences" in c.value for c in app.caption)
