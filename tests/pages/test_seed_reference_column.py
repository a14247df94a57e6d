"""AppTest: the heatmap's embedder table has the same-recipe column (ui/seed_reference.py): empty for word2vec and
fastText until their second training is asked for, then the core's N2O between two seeds; "–" for the others."""

from __future__ import annotations

import shutil
from pathlib import Path

from app_checks import no_exception

from n2o_core.analyses.seed_reference import same_recipe_n2o
from ui.seed_reference import COLUMN, NOT_YET


def _table(app):
    (t,) = [d.value for d in app.dataframe if COLUMN in d.value.columns]
    return t.set_index("embedder")[COLUMN]


def test_same_recipe_column_trains_on_request_and_shows_the_cores_value(app, app_env):
    # no second training kept by an earlier test of the session (the findings page trains them too)
    shutil.rmtree(Path(app_env["N2O_CACHE_DIR"]) / "same-recipe", ignore_errors=True)
    app.run()
    no_exception(app)
    col = _table(app)
    assert col["tfidf"] == "–" and col["glove-6b-50d"] == "–"  # no seed to vary
    assert col["word2vec"] == NOT_YET and col["fasttext"] == NOT_YET  # not trained twice yet
    app.button(key="train_seed_reference").click().run()
    no_exception(app)
    col = _table(app)

    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.pipeline import plan_queries
    from n2o_core.settings import DEFAULT_MAX_SENTENCES
    from n2o_core.storage.cache import Cache

    cache = Cache(app_env["N2O_CACHE_DIR"])
    corpus = load_corpus(app_env["N2O_DEFAULT_CORPUS"], max_sentences=DEFAULT_MAX_SENTENCES, cache_dir=cache.root)
    plan = plan_queries(len(corpus), 30, 3, 0)
    for e in ("word2vec", "fasttext"):
        ref = same_recipe_n2o(Workspace(corpus, cache=cache), e, plan.samples, 10)
        assert col[e] == f"{ref.mean:.3f} ± {ref.std:.3f}", e
    # once trained, a new visit shows the values without a click, and no button is offered
    app.run()
    assert _table(app)["word2vec"] == col["word2vec"]
    assert not [b for b in app.button if b.key == "train_seed_reference"]
