"""One pipeline, two front ends: the CLI's `compare` and the dashboard's data path give the same N2O matrix for
the same settings (corpus, embedders, k, queries, samples, seed, z-normalization)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from app_checks import EMBEDDERS, no_exception, plotly_specs

from n2o_core.cli.main import main

NAMES = EMBEDDERS.split(",")


@pytest.mark.parametrize("znorm", [False, True], ids=["plain", "znorm"])
def test_cli_and_app_give_identical_n2o(app, tmp_path, znorm):
    k, queries, samples, seed = 7, 25, 3, 4
    app.query_params.update(
        {
            "emb": ",".join(NAMES),
            "k": str(k),
            "queries": str(queries),
            "samples": str(samples),
            "seed": str(seed),
            "order": "chosen",
            "z": "1" if znorm else "0",
        }
    )
    app.run()
    no_exception(app)
    pairs, diag = plotly_specs(app)["heatmap"]["data"][:2]
    assert pairs["x"] == NAMES
    z = np.array(pairs["z"], float)  # off-diagonal means; the diagonal (self-overlap) rides on the second trace
    shown = np.where(np.isnan(z), np.array(diag["customdata"], float), z)

    out = tmp_path / "cli.json"
    argv = ["compare", "--corpus", os.environ["N2O_DEFAULT_CORPUS"], "--cache-dir", os.environ["N2O_CACHE_DIR"]]
    for e in NAMES:
        argv += ["--embedder", e]
    argv += ["--k", str(k), "--k-max", "50", "--queries", str(queries), "--samples", str(samples)]
    argv += ["--seed", str(seed), "--json", str(out)] + (["--znorm"] if znorm else [])
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert doc["embedders"] == NAMES and doc["k"] == k
    np.testing.assert_allclose(shown, np.array(doc["mean"]), atol=1e-6)
