"""Figures of the Variants analysis: the layer matrices show the values with each row's best match ringed, the
compression curves one line per family at its bytes with the knee and chance marked, the index plot recall
against milliseconds per query."""

from __future__ import annotations

import numpy as np

from n2o_core.evaluation.variants.compression import Compression, CompressionPoint
from n2o_core.evaluation.variants.index import IndexPoint, IndexSweep
from n2o_core.evaluation.variants.layers import LayerComparison
from n2o_core.figures.variants import compression_curves, index_tradeoff, layer_label, layer_matrices


def _layers(b: str | None, cols: list[str], n2o: np.ndarray) -> LayerComparison:
    rows = [f"m@layer={i}" for i in range(n2o.shape[0])]
    return LayerComparison("m", b, rows, cols, n2o, 0 * n2o, n2o / 2, 10, 500, 10 / 499)


def test_layer_matrices_ring_each_rows_best_column():
    M = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.6], [0.2, 0.6, 1.0]])
    fig = layer_matrices(_layers(None, [f"m@layer={i}" for i in range(3)], M))
    heat = [t for t in fig.data if t.type == "heatmap"]
    rings = [t for t in fig.data if t.type == "scatter"]
    assert heat[0].x == ("layer 0", "layer 1", "layer 2") and np.isnan(heat[0].z[1][1])  # the diagonal left out
    assert heat[0].z[0][1] == 0.5 and heat[1].z[0][1] == 0.25  # N2O, then CKA
    assert list(rings[0].x) == ["layer 1", "layer 2", "layer 1"]  # each row's best other layer
    assert "chance 0.0200" in fig.layout.annotations[0].text


def test_one_column_rings_the_best_row():
    fig = layer_matrices(_layers("glove", ["glove"], np.array([[0.1], [0.3], [0.2]])))
    ring = next(t for t in fig.data if t.type == "scatter")
    assert list(ring.y) == ["layer 1"] and list(ring.x) == ["glove"]
    assert layer_label("m@layer=4", "m") == "layer 4" and layer_label("glove") == "glove"


def test_compression_curves_one_line_per_family_and_the_knee():
    pts = [
        CompressionPoint("dims", "e", 8, 32, 1.0, 0.0, 0.5, 0.4),
        CompressionPoint("dims", "e@dims=4", 4, 16, 0.6, 0.01, 0.4, 0.3),
        CompressionPoint("binary", "e@binary", 8, 1, 0.3, 0.02, 0.2, 0.1),
        CompressionPoint("binary+rescore", "e@binary@rescore=4", 8, 1, 0.4, 0.02),
    ]
    comp = Compression("e", 10, 100, 10 / 99, pts, "e@dims=4", {}, "p", "p")
    fig = compression_curves(comp)
    dims = next(t for t in fig.data if t.name == "dims")
    assert list(dims.x) == [16, 32] and list(dims.y) == [0.6, 1.0]
    knee = next(t for t in fig.data if (t.name or "").startswith("knee"))
    assert list(knee.x) == [16] and list(knee.y) == [0.6]
    quality = [t for t in fig.data if (t.name or "") == "binary+rescore: needle MRR"]
    assert not quality  # rescoring has no quality of its own
    assert any(s.y0 == comp.chance for s in fig.layout.shapes)


def test_index_tradeoff_in_milliseconds():
    sweep = IndexSweep(
        "e",
        10,
        1000,
        100,
        [
            IndexPoint("exact", None, 1.0, 0.002, 0.0),
            IndexPoint("pynndescent n_neighbors=30", 30, 0.9, 1e-4, 0.5, True),
        ],
    )
    tr = index_tradeoff(sweep).data[0]
    np.testing.assert_allclose(tr.x, [2.0, 0.1])
    assert list(tr.y) == [1.0, 0.9] and list(tr.text) == ["exact", "n_neighbors=30 (default)"]
