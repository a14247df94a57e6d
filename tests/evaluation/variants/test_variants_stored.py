"""Variants parts kept in the cache (`evaluation.variants.stored`): what is read back equals what was computed,
the parts at hand combine into the CLI's document, a part that cannot be computed is kept with its sentence, the
estimate scales with the corpus, and the page's first choice prefers an embedder with layers."""

from __future__ import annotations

import json

import pytest
from test_variants_analysis import Layered

from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.embedders.registry import register_embedder
from n2o_core.evaluation.variants.run import VariantsResult, run_variants
from n2o_core.evaluation.variants.stored import (
    BASIS,
    Setup,
    combined,
    compute_and_store,
    default_choice,
    estimate_seconds,
    last_timing,
    load,
)
from n2o_core.storage.cache import Cache

EID = "test-stored-layered"
SETUP = Setup(EID, "glove-6b-50d", k=5, n_queries=40, n_samples=2, needle_pairs=None, sts_pairs=None)


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    register_embedder(Layered(EID))
    corpus = from_texts([f"the {i % 7} cats sat on mat {i} near {i % 5} dogs" for i in range(300)], name="stored")
    return Workspace(corpus, cache=Cache(tmp_path_factory.mktemp("cache")))


def _doc(res: VariantsResult) -> dict:
    return json.loads(json.dumps(res.to_json()))


def test_parts_read_back_and_combine_into_the_clis_document(ws):
    assert load(ws, SETUP, "layers") is None
    parts = {p: compute_and_store(ws, SETUP, p) for p in ("layers", "compression")}
    for part, got in parts.items():
        back = load(ws, SETUP, part)
        assert back is not None and _doc(back.result) == _doc(got.result) and back.seconds == got.seconds
    assert last_timing(ws, "layers").sentences == 300
    whole = run_variants(
        ws, EID, other="glove-6b-50d", k=5, index=False, needle_pairs=None, sts_pairs=None, n_queries=40, n_samples=2
    )
    assert _doc(combined(ws, SETUP, parts)) == _doc(whole)
    assert _doc(VariantsResult.from_json(whole.to_json())) == _doc(whole)


def test_the_other_embedder_keys_the_layers_alone(ws):
    other = Setup(EID, None, k=5, n_queries=40, n_samples=2, needle_pairs=None, sts_pairs=None)
    compute_and_store(ws, SETUP, "compression")
    assert load(ws, other, "compression") is not None  # the compression does not depend on the other embedder
    assert load(ws, other, "layers") is None


def test_a_part_that_cannot_be_computed_is_kept_with_its_sentence(ws):
    setup = Setup("glove-6b-50d", None, k=5, n_queries=40, n_samples=2)
    got = compute_and_store(ws, setup, "layers")
    assert "no hidden layers" in got.result.errors["layers"] and got.result.layers is None
    assert load(ws, setup, "layers").result.errors == got.result.errors


def test_estimate_scales_with_the_corpus():
    assert estimate_seconds("index", 2 * BASIS["index"].sentences) == pytest.approx(2 * BASIS["index"].seconds)
    from n2o_core.evaluation.variants.stored import Timing

    assert estimate_seconds("layers", 1000, Timing(10.0, 500)) == pytest.approx(20.0)


def test_first_choice_prefers_layers_and_a_dense_other(ws):
    assert default_choice(ws, ["tfidf", "glove-6b-50d", EID]) == (EID, "glove-6b-50d")
    assert default_choice(ws, ["tfidf", "glove-6b-50d"]) == ("glove-6b-50d", "tfidf")
