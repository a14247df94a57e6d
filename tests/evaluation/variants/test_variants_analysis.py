"""The Variants analysis (`evaluation.variants`): layer x layer N2O and CKA, the compression curve and its knee,
the index sweep, and one document for the CLI and the API."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import n2o_core as n2o
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.registry import register_embedder
from n2o_core.evaluation.variants.compression import compression_curve, family_variants, knee
from n2o_core.evaluation.variants.layers import compare_layers
from n2o_core.evaluation.variants.run import run_variants
from n2o_core.measures.run import feature_matrix
from n2o_core.storage.cache import Cache

DIM = 32


def _vectors(texts: list[str], seed: int) -> np.ndarray:
    rows = [np.random.default_rng([seed, sum(map(ord, t)), len(t)]).standard_normal(DIM) for t in texts]
    return np.array(rows, np.float32).reshape(len(texts), DIM)


class Layered:
    """A fake 4-layer model: each layer is the one below plus new noise (a chain: neighbors drift layer by layer)."""

    def __init__(self, name: str) -> None:
        self.info = EmbedderInfo(name, "user", "mean", DIM, "fake layered model (tests)", default=False)
        self.pooling = "mean"

    def fingerprint(self) -> str:
        return self.info.id

    def fit(self, texts) -> None:
        pass

    def layers(self, texts: list[str]) -> np.ndarray:
        out = [_vectors(texts, 0)]
        for i in range(1, 4):
            out.append(out[-1] + 0.8 * _vectors(texts, i))
        return np.stack(out)

    def encode(self, texts, progress=None) -> np.ndarray:
        return self.layers(list(texts))[-1].astype(np.float32)

    def encode_layers(self, texts, poolings, progress=None):
        L = self.layers(list(texts)).astype(np.float32)
        return {p: L + (0.0 if p == "mean" else 0.1) for p in poolings}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    emb = Layered("test-variants-layered")
    register_embedder(emb)
    corpus = from_texts([f"sentence {i} on topic {i % 9} with {i % 4} words" for i in range(400)], name="layered")
    return Workspace(corpus, cache=Cache(tmp_path_factory.mktemp("cache")))


def test_layer_matrix_within_a_model(ws):
    res = compare_layers(ws, "test-variants-layered", k=5, n_queries=50, n_samples=2)
    assert res.rows == res.cols == [f"test-variants-layered@layer={i}" for i in range(4)]
    assert np.allclose(np.diag(res.n2o), 1.0) and np.allclose(res.n2o, res.n2o.T)
    assert res.chance == pytest.approx(5 / 399)
    off = res.n2o + np.diag(np.full(4, -np.inf))
    assert res.best_n2o == [int(np.argmax(r)) for r in off]  # the diagonal is left out
    assert res.best_n2o[3] == 2 and res.best_n2o[0] == 1  # neighbors mix gradually from layer to layer
    cka = feature_matrix(ws.embeddings, res.rows, "cka_linear")  # the measures engine's linear CKA
    np.testing.assert_allclose(res.cka, cka)
    doc = res.to_json()
    assert doc["best_n2o"]["test-variants-layered@layer=3"] == "test-variants-layered@layer=2"


def test_layers_against_an_embedder_without_layers(ws):
    from n2o_core.embedders.registry import get_embedder

    other = "test-variants-plain"
    if other not in {i.id for i in n2o.list_embedders()}:
        emb = Layered(other)
        emb.info = EmbedderInfo(other, "user", "mean", DIM, "plain", default=False)
        del_layers = type("Plain", (), {k: getattr(Layered, k) for k in ("fingerprint", "fit", "layers", "encode")})
        plain = del_layers()
        plain.info = emb.info
        register_embedder(plain)
    assert get_embedder(other) is not None
    res = compare_layers(ws, "test-variants-layered", other, k=5, n_queries=50, n_samples=2)
    assert res.cols == [other] and res.n2o.shape == (4, 1)
    np.testing.assert_allclose(res.n2o[3, 0], 1.0)  # the plain embedder's vectors are the last layer's


def test_knee_is_kneedle_on_the_frontier():
    concave = [(1, 0.1), (2, 0.6), (4, 0.8), (8, 0.85), (16, 0.9), (4, 0.2)]  # (4, 0.2) is not on the frontier
    assert knee(concave) == 1
    assert knee([(1, 0.1), (2, 0.15), (4, 0.3), (8, 1.0)]) is None  # convex: no knee
    assert knee([(1, 0.5), (2, 0.5)]) is None


def test_compression_curve_points(ws, tmp_path):
    eid = "test-variants-layered"
    pairs = pd.DataFrame(
        {
            "sentence1": [f"pair {i} left side words" for i in range(12)],
            "sentence2": [f"pair {i} right {i % 3} words" for i in range(12)],
            "score": [i % 5 for i in range(12)],
        }
    )
    path = tmp_path / "pairs.tsv"
    pairs.to_csv(path, sep="\t", index=False)
    res = compression_curve(
        ws, eid, k=5, sizes=[32, 8], needle_pairs=None, sts_pairs=str(path), n_queries=50, n_samples=2
    )
    by = {p.variant: p for p in res.points}
    assert set(by) == {v for _, v in family_variants(eid, DIM, [32, 8])}
    assert by[eid].n2o_with_original == 1.0 and by[eid].bytes_per_vector == 4 * DIM
    assert by[f"{eid}@binary"].bytes_per_vector == 4 and by[f"{eid}@dims=8@int8"].bytes_per_vector == 8
    assert by[f"{eid}@binary@rescore=4"].sts_spearman is None  # rescoring changes the order, not the vectors
    from n2o_core.evaluation.pairs import load_pairs
    from n2o_core.evaluation.sts import run_sts

    want = run_sts(ws, load_pairs(str(path)), [eid, f"{eid}@binary"]).results.set_index("embedder")["spearman"]
    assert by[eid].sts_spearman == pytest.approx(want[eid])
    assert by[f"{eid}@binary"].sts_spearman == pytest.approx(want[f"{eid}@binary"])
    assert res.needle_pairs is None and by[eid].needle_mrr is None
    assert res.knee is None or res.knee in by
    assert any("PCA centres" in n for n in res.notes)


def test_pca_larger_than_the_corpus_is_left_out_and_said(ws, tmp_path):
    eid = "test-variants-layered"  # registered by the `ws` fixture
    small = Workspace(
        from_texts([f"short sentence {i} of {i % 3}" for i in range(20)], name="tiny"), cache=Cache(tmp_path)
    )
    res = compression_curve(small, eid, k=3, sizes=[32, 16], needle_pairs=None, sts_pairs=None, n_queries=10)
    families = {(p.family, p.dims) for p in res.points}
    assert ("pca", 16) in families and ("pca", 32) not in families and ("dims", 32) in families
    assert any("PCA at 32 dimensions is left out: the corpus has 20 sentences" in n for n in res.notes)


def test_cli_and_api_give_the_same_document(ws, tmp_path):
    from n2o_core.cli.main import main

    corpus_file = tmp_path / "corpus.txt"
    corpus_file.write_text("\n".join(ws.corpus.texts) + "\n")
    out = tmp_path / "v.json"
    argv = ["variants", "--corpus", str(corpus_file), "--cache-dir", str(ws.cache.root)]
    argv += ["--embedder", "test-variants-layered", "--k", "5", "--queries", "50", "--samples", "2"]
    argv += ["--sizes", "16", "--needle-pairs", "none", "--sts-pairs", "none", "--no-index", "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    api = n2o.variant_analysis(
        str(corpus_file),
        "test-variants-layered",
        k=5,
        queries=50,
        samples=2,
        sizes=[16],
        needle_pairs=None,
        sts_pairs=None,
        index=False,
        cache_dir=str(ws.cache.root),
    ).to_json()
    assert json.loads(json.dumps(api)) == doc
    assert doc["layers"]["rows"][-1] == "test-variants-layered@layer=3" and doc["index"] is None
    assert [p["variant"] for p in doc["compression"]["points"]][:2] == [
        "test-variants-layered@dims=16",
        "test-variants-layered@pca=16",
    ]


def test_parts_that_cannot_be_computed_are_named(ws):
    res = run_variants(ws, "tfidf", k=5, index=False, needle_pairs=None, sts_pairs=None, n_queries=50, n_samples=2)
    assert "no hidden layers" in res.errors["layers"] and "sparse" in res.errors["compression"]
    assert res.layers is None and res.compression is None


@pytest.mark.slow
def test_index_sweep_recall_is_n2o_with_exact(ws):
    from n2o_core.evaluation.variants.index import index_sweep

    res = index_sweep(ws, "test-variants-layered", k=5, degrees=(6, 30), n_queries=100)
    assert res.points[0].setting == "exact" and res.points[0].recall == 1.0
    assert [p.n_neighbors for p in res.points[1:]] == sorted(p.n_neighbors for p in res.points[1:])
    assert all(0.0 <= p.recall <= 1.0 for p in res.points) and any(p.default for p in res.points)
