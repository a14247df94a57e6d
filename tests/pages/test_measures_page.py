"""AppTest: the similarity-measures page. Its matrices and tables must be what `compare_measures` computes for
the same workspace and settings; nothing is computed before the button (which says how long it takes here) unless
the cache holds the result for the same settings (then the page opens on it, saying when it was computed); every
measure is chosen at first and named by its display name; an empty choice is one sentence."""

from __future__ import annotations

import re

import numpy as np
from app_checks import EMBEDDERS, HOW_LONG, no_exception, plotly_specs

from n2o_core.cli.main import main
from n2o_core.measures import DISPLAY_NAMES, MEASURE_IDS, display_name
from n2o_core.measures.summary import rank_table, value_matrix

MEASURES = ["mutual_knn", "cka_linear", "rsa_spearman", "regression_r2", "pwcca", "pwcca_released"]


def open_measures(app):
    app.run()
    app.switch_page("pages/measures.py").run(timeout=300)
    no_exception(app)
    return app


def test_nothing_runs_before_the_button_and_the_values_are_the_cores(app):
    from ui import measures_runs as md

    open_measures(app)
    assert "measures_matrices" not in plotly_specs(app)
    picker = app.multiselect(key="w_measures")
    assert picker.value == list(MEASURE_IDS)  # every measure unless the user narrows the choice
    assert [display_name(m) for m in picker.options] == [DISPLAY_NAMES[m] for m in MEASURE_IDS]
    assert [b for b in app.main.button if re.fullmatch(rf"Compute the measures \({HOW_LONG}\)", b.label)]
    assert any(re.search(rf"should take {HOW_LONG} \(scaled from the benchmark ", i.value) for i in app.info)
    picker.set_value(MEASURES).run()
    app.number_input(key="w_measure_perms").set_value(20).run()
    app.button(key="measures_run").click().run(timeout=600)
    no_exception(app)
    specs = plotly_specs(app)
    assert {"measures_matrices", "measures_maps", "measures_agreement"} <= set(specs)

    # the memoized result is the core's, and the drawn matrices are its values
    [(_, setup)] = [key for key in md._memo() if key[1].measures == tuple(MEASURES)]
    res = next(v for (fp, s), v in md._memo().items() if s == setup).result
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
    ranks = next(d.value for d in app.dataframe if "mutual k-NN (N2O)" in d.value.columns and "a" in d.value.columns)
    expected = rank_table(res).rename(columns=DISPLAY_NAMES)
    assert ranks.reset_index(drop=True).astype(str).equals(expected.astype(str))
    assert "measures_matrices" in specs and any(c.value.startswith("Computed ") for c in app.caption)
    # which PWCCA is which, and how far apart they are here (the core's numbers)
    f = res.to_frame()
    diff = f[f.measure == "pwcca_released"].value.to_numpy() - f[f.measure == "pwcca"].value.to_numpy()
    note = next(c.value for c in app.caption if c.value.startswith("**Two PWCCAs.**"))
    assert f"ranges from {diff.min():+.3f} to {diff.max():+.3f} over the {len(diff)} ordered pairs" in note


def test_opens_on_the_result_warm_kept_for_the_same_settings(app, capsys):
    """After `warm --measures` (here for seed 3, a view no other test opens), the page shows its result at once,
    with when it was computed, and offers no button."""
    assert main(["warm", "--seed", "3", "--no-check", "--measures"]) == 0
    assert "measures: " in capsys.readouterr().out
    app.query_params.update({"seed": "3"})
    open_measures(app)
    assert "measures_matrices" in plotly_specs(app)
    assert not [b for b in app.main.button if b.label.startswith("Compute the measures")]
    assert any(
        c.value.startswith("Computed ") and "kept in the cache for these settings" in c.value for c in app.caption
    )


def test_no_measure_chosen_is_one_sentence(app):
    open_measures(app)
    app.multiselect(key="w_measures").set_value([]).run()
    no_exception(app)
    assert any("Choose at least one measure" in i.value for i in app.info)
