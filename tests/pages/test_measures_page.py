"""AppTest: the similarity-measures page. Its matrices and tables must be what `compare_measures` computes for
the same workspace and settings; nothing is computed before the button; an empty choice is one sentence."""

from __future__ import annotations

import numpy as np
from app_checks import EMBEDDERS, no_exception, plotly_specs

from n2o_core.measures.summary import rank_table, value_matrix

MEASURES = ["mutual_knn", "cka_linear", "rsa_spearman", "regression_r2"]


def open_measures(app):
    app.run()
    app.switch_page("pages/measures.py").run(timeout=300)
    no_exception(app)
    return app


def test_nothing_runs_before_the_button_and_the_values_are_the_cores(app):
    from ui import measures_data as md

    open_measures(app)
    assert "measures_matrices" not in plotly_specs(app)
    assert "Compute the measures" in [b.label for b in app.main.button]
    app.multiselect(key="w_measures").set_value(MEASURES).run()
    app.number_input(key="w_measure_perms").set_value(20).run()
    app.button(key="measures_run").click().run(timeout=600)
    no_exception(app)
    specs = plotly_specs(app)
    assert {"measures_matrices", "measures_maps", "measures_agreement"} <= set(specs)

    # the memoized result is the core's, and the drawn matrices are its values
    [(_, setup)] = [key for key in md._memo() if key[1].measures == tuple(MEASURES)]
    res = next(v for (fp, s), v in md._memo().items() if s == setup)
    names = EMBEDDERS.split(",")
    assert sorted(res.embedders) == sorted(names) and res.permutations == 20
    panels = [t for t in specs["measures_matrices"]["data"] if t["type"] == "heatmap"]
    assert len(panels) == len(MEASURES)
    labels = panels[0]["x"]
    order = [res.embedders.index(e) for e in labels]
    for panel, measure in zip(panels, MEASURES):
        M = value_matrix(res, measure)[np.ix_(order, order)]
        z = np.array(panel["z"], float)
        off = ~np.eye(len(order), dtype=bool)
        np.testing.assert_allclose(z[off], M[off], rtol=1e-9)
    ranks = next(d.value for d in app.dataframe if "mutual_knn" in d.value.columns and "a" in d.value.columns)
    expected = rank_table(res)
    assert ranks.reset_index(drop=True).astype(str).equals(expected.astype(str))


def test_no_measure_chosen_is_one_sentence(app):
    open_measures(app)
    app.multiselect(key="w_measures").set_value([]).run()
    no_exception(app)
    assert any("Choose at least one measure" in i.value for i in app.info)
