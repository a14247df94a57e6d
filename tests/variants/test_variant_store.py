"""Variant ids through the workspace (`variants.store.VariantStore`): derived variants come from the cached base
embeddings without calling the embedder, every layer from one cached forward pass, the search each precision
calls for, and one clear sentence for what cannot be done."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.registry import register_embedder
from n2o_core.errors import N2OError
from n2o_core.search.exact import exact_knn
from n2o_core.search.hamming import hamming_knn
from n2o_core.storage.cache import Cache
from n2o_core.variants.transforms import derive_vectors, pack_signs, truncate_dims

DIM = 48


class CountingEmbedder:
    """Random but fixed vectors per sentence (its hash), counting every call of `encode`."""

    def __init__(self, name: str) -> None:
        self.info = EmbedderInfo(name, "user", "mean", DIM, "counting (tests)", default=False)
        self.calls = 0

    def fingerprint(self) -> str:
        return self.info.id

    def fit(self, texts) -> None:
        pass

    def encode(self, texts, progress=None) -> np.ndarray:
        self.calls += 1
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(DIM) for t in texts]
        return np.array(rows, np.float32).reshape(len(texts), DIM)


@pytest.fixture(scope="module")
def spy():
    emb = CountingEmbedder("test-variant-spy")
    register_embedder(emb)
    return emb


@pytest.fixture()
def corpus():
    return from_texts([f"sentence number {i} about topic {i % 7}" for i in range(300)], name="variants")


def test_derived_variants_never_call_the_embedder(tmp_path, spy, corpus):
    ws = Workspace(corpus, cache=Cache(tmp_path))
    base = ws.embeddings(spy.info.id)
    calls = spy.calls
    for spec in ("@binary", "@int8", "@dims=16", "@pca=8", "@dims=24@binary@rescore=4"):
        eid = spy.info.id + spec
        ws.embeddings(eid)
        ws.neighbors(eid, np.arange(40), 10)
        assert ws.is_cached(eid)
    assert spy.calls == calls
    ws2 = Workspace(corpus, cache=Cache(tmp_path))  # another process: the base read from disk, nothing embedded
    ws2.neighbors(spy.info.id + "@binary", np.arange(40), 10)
    assert spy.calls == calls
    np.testing.assert_array_equal(ws2.embeddings(spy.info.id), base)


def test_binary_variant_is_hamming_search_of_the_base_signs(tmp_path, spy, corpus):
    ws = Workspace(corpus, cache=Cache(tmp_path))
    X = np.asarray(ws.embeddings(spy.info.id))
    q = np.arange(0, 300, 3)
    got = ws.neighbors(spy.info.id + "@binary", q, 12)
    want = hamming_knn(pack_signs(X), DIM, 12, q)
    np.testing.assert_array_equal(got.ids, want.ids)
    np.testing.assert_array_equal(got.sims, want.sims)
    signs = ws.embeddings(spy.info.id + "@binary")  # the ±1 vectors: cosine = 1 - 2h / dim
    np.testing.assert_array_equal(signs, np.where(X > 0, 1.0, -1.0))
    assert ws.info(spy.info.id + "@binary").dim == DIM
    assert "1-bit sign quantization, Hamming search" in ws.info(spy.info.id + "@binary").data


def test_all_dims_is_the_base_and_fewer_are_the_truncation(tmp_path, spy, corpus):
    ws = Workspace(corpus, cache=Cache(tmp_path))
    q = np.arange(50)
    base = ws.neighbors(spy.info.id, q, 10)
    full = ws.neighbors(spy.info.id + f"@dims={DIM}", q, 10)
    np.testing.assert_array_equal(full.ids, base.ids)
    X = np.asarray(ws.embeddings(spy.info.id))
    np.testing.assert_allclose(ws.embeddings(spy.info.id + "@dims=16"), truncate_dims(X, 16), rtol=1e-6)
    assert ws.info(spy.info.id + "@dims=16").dim == 16


def test_variant_of_a_variant_through_the_workspace_is_the_composed_transform(tmp_path, spy, corpus):
    ws = Workspace(corpus, cache=Cache(tmp_path))
    X = np.asarray(ws.embeddings(spy.info.id))
    two = derive_vectors(derive_vectors(X, "x@pca=12").vectors, "x@int8")
    np.testing.assert_array_equal(ws.embeddings(spy.info.id + "@pca=12@int8"), two.vectors.astype(np.float32))
    q = np.arange(30)
    want = exact_knn(two.vectors, 8, q)
    np.testing.assert_array_equal(ws.neighbors(spy.info.id + "@int8@pca=12", q, 8).ids, want.ids)


def test_cache_keys_and_descriptions_name_the_variant(tmp_path, spy, corpus):
    ws = Workspace(corpus, cache=Cache(tmp_path))
    eid = spy.info.id
    keys = {ws.embedder_key(e) for e in (eid, eid + "@binary", eid + "@int8", eid + "@dims=16", eid + "@dims=8")}
    assert len(keys) == 5
    assert ws.embedder_key(eid + "@binary@dims=16") == ws.embedder_key(eid + "@dims=16@binary")  # one canonical id
    ws.neighbors(eid + "@dims=16@binary", np.arange(5), 3)
    described = [p.read_text() for p in (tmp_path / "knn").rglob("*.json")]
    assert any("first 16 dimensions, renormalized, 1-bit sign quantization, Hamming search" in d for d in described)


def test_texts_outside_the_corpus_go_through_the_corpus_fitted_transform(tmp_path, spy, corpus):
    ws = Workspace(corpus, cache=Cache(tmp_path))
    X = np.asarray(ws.embeddings(spy.info.id))
    texts = ["a sentence outside", "another one"]
    S = ws.encode_texts(spy.info.id, texts)
    d = derive_vectors(X, "x@pca=6")
    np.testing.assert_allclose(ws.encode_texts(spy.info.id + "@pca=6", texts), d.transform.apply(S), rtol=1e-5)
    nb = ws.search_text(spy.info.id + "@binary", "a sentence outside", 5)
    want = hamming_knn(pack_signs(X), DIM, 5, queries=pack_signs(S[:1]))
    np.testing.assert_array_equal(nb.ids, want.ids)


def test_what_cannot_be_done_gets_one_sentence(tmp_path, spy, corpus):
    ws = Workspace(corpus, cache=Cache(tmp_path))
    with pytest.raises(N2OError, match="z-normalization applies to float vectors"):
        ws.neighbors(spy.info.id + "@binary", np.arange(5), 3, znorm=True)
    with pytest.raises(N2OError, match="no hidden layers this tool can reach"):
        ws.info(spy.info.id + "@layer=2")
    with pytest.raises(N2OError, match="sparse vectors"):
        ws.info("tfidf@binary")
    with pytest.raises(N2OError, match="Unknown variant part '@bianry'"):
        ws.info(spy.info.id + "@bianry")
    with pytest.raises(N2OError, match="more dimensions than the vectors have"):
        ws.embeddings(spy.info.id + "@dims=999")
    z = ws.neighbors(spy.info.id + "@dims=16", np.arange(5), 3, znorm=True)  # float variants z-normalize
    assert z.ids.shape == (5, 3)


class LayeredEmbedder(CountingEmbedder):
    """A fake 3-layer model: layer i of a sentence is its vector times (i + 1), pooled 'mean' by default; the
    other poolings add an offset. Counts its forward passes."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.pooling = "mean"
        self.passes: list[tuple[int, tuple[str, ...]]] = []

    def encode_layers(self, texts, poolings, progress=None):
        self.passes.append((len(texts), tuple(poolings)))
        X = CountingEmbedder.encode(self, texts)
        offset = {"mean": 0.0, "cls": 1.0, "max": 2.0}
        return {p: np.stack([X * (i + 1) + offset[p] for i in range(4)]).astype(np.float32) for p in poolings}


def test_layers_come_from_one_cached_forward_pass(tmp_path, corpus):
    emb = LayeredEmbedder("test-variant-layers")
    register_embedder(emb)
    ws = Workspace(corpus, cache=Cache(tmp_path))
    X = CountingEmbedder.encode(emb, list(corpus.texts))
    np.testing.assert_allclose(ws.embeddings(emb.info.id + "@layer=2"), 3 * X, rtol=1e-6)  # its own pooling
    np.testing.assert_allclose(ws.embeddings(emb.info.id + "@pool=cls"), 4 * X + 1, rtol=1e-6)  # the last layer
    np.testing.assert_array_equal(ws.embeddings(emb.info.id + "@layer=0@pool=max@binary"), np.where(X + 2 > 0, 1, -1))
    assert emb.passes == [(len(corpus), ("mean", "cls", "max"))]  # one pass gave every layer and pooling
    ws2 = Workspace(corpus, cache=Cache(tmp_path))
    np.testing.assert_allclose(ws2.embeddings(emb.info.id + "@layer=1@pool=mean"), 2 * X, rtol=1e-6)
    assert len(emb.passes) == 1 and ws2.is_cached(emb.info.id + "@layer=3")
    assert not ws2.is_cached(emb.info.id + "@layer=9")
    with pytest.raises(N2OError, match="has layers 0 to 3"):
        ws2.embeddings(emb.info.id + "@layer=9")
    texts = ["one outside sentence"]
    np.testing.assert_allclose(
        ws2.encode_texts(emb.info.id + "@layer=1", texts), 2 * CountingEmbedder.encode(emb, texts), rtol=1e-6
    )


@pytest.fixture(scope="module")
def tiny_st(tmp_path_factory):
    from tiny_models import tiny_sentence_transformer

    return "st:" + str(tiny_sentence_transformer(tmp_path_factory.mktemp("models")))


@pytest.mark.slow
def test_st_model_layers_from_one_cached_forward_pass_and_the_last_is_the_model(tmp_path, tiny_st, corpus, monkeypatch):
    from n2o_core.embedders.sbert import SentenceTransformerEmbedder

    passes = []
    real = SentenceTransformerEmbedder.encode_layers

    def counted(self, texts, poolings, progress=None):
        passes.append(len(texts))
        return real(self, texts, poolings, progress)

    monkeypatch.setattr(SentenceTransformerEmbedder, "encode_layers", counted)
    ws = Workspace(corpus, cache=Cache(tmp_path))
    last = ws.embeddings(tiny_st + "@layer=1")  # its one transformer layer, with its own (mean) pooling
    np.testing.assert_allclose(last, ws.embeddings(tiny_st), atol=1e-5)
    first = ws.embeddings(tiny_st + "@layer=0@pool=max")
    assert first.shape == last.shape and not np.allclose(first, last, atol=1e-3)
    ws.embeddings(tiny_st + "@pool=cls@binary")
    assert passes == [len(corpus)]  # every layer and pooling from that one pass
    ws2 = Workspace(corpus, cache=Cache(tmp_path))  # read back from the cache
    np.testing.assert_array_equal(ws2.embeddings(tiny_st + "@layer=1@pool=mean"), last)
    assert passes == [len(corpus)]
    assert ws.info(tiny_st + "@layer=1").data.endswith("hidden layer 1")
    with pytest.raises(N2OError, match="has layers 0 to 1"):
        ws.embeddings(tiny_st + "@layer=5")


@pytest.mark.slow
def test_minilm_last_layer_through_the_workspace_is_the_base_on_the_torch_engine(tmp_path, monkeypatch):
    monkeypatch.setenv("N2O_REFERENCE_ENGINES", "1")  # the torch engine: the layers' own
    corpus = from_texts([f"The match ended {i} to {i % 3} after extra time." for i in range(40)], name="minilm")
    ws = Workspace(corpus, cache=Cache(tmp_path))
    np.testing.assert_allclose(ws.embeddings("minilm-l6-mean@layer=6"), ws.embeddings("minilm-l6-mean"), atol=1e-5)
    np.testing.assert_allclose(ws.embeddings("minilm-l6-cls@layer=6"), ws.embeddings("minilm-l6-cls"), atol=1e-5)
    assert ws.info("minilm-l6-mean@layer=6").data.endswith("hidden layer 6")  # no engine note on torch
