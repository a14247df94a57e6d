"""The variant grammar: canonical ids, round trips, where the base ends, and one clear sentence per bad part."""

from __future__ import annotations

import pytest

from n2o_core.errors import N2OError
from n2o_core.variants.spec import (
    Variant,
    bytes_per_vector,
    derive,
    describe,
    parse_variant,
    reduced_dim,
    split_variant,
)


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("minilm-l6-mean", "minilm-l6-mean"),
        ("minilm-l6-mean@layer=4@binary", "minilm-l6-mean@layer=4@binary"),
        ("minilm-l6-mean@binary@layer=4", "minilm-l6-mean@layer=4@binary"),
        ("x@rescore=4@binary@dims=64@pool=cls@layer=0", "x@layer=0@pool=cls@dims=64@binary@rescore=4"),
        ("x@pca=32@int8", "x@pca=32@int8"),
        (" x @ Binary @ RESCORE = 2 ", "x@binary@rescore=2"),
        ("x@pool=MAX", "x@pool=max"),
        ("x@layer=04", "x@layer=4"),
    ],
)
def test_canonical_form_and_round_trip(spec, canonical):
    v = parse_variant(spec)
    assert v.id == canonical
    assert parse_variant(v.id) == v  # the canonical id parses back to the same variant
    assert parse_variant(canonical).id == canonical


def test_parsed_fields():
    v = parse_variant("minilm-l6-mean@layer=4@pool=cls@dims=128@binary@rescore=4")
    assert v == Variant("minilm-l6-mean", layer=4, pool="cls", dims=128, precision="binary", rescore=4)
    assert v.source == Variant("minilm-l6-mean", layer=4, pool="cls")
    assert v.vectors.id == "minilm-l6-mean@layer=4@pool=cls@dims=128@binary"
    assert v.parent is not None and v.parent.id == "minilm-l6-mean@layer=4@pool=cls@dims=128@binary"
    assert v.model_side and v.derived and v.is_variant
    plain = parse_variant("minilm-l6-mean")
    assert plain == Variant("minilm-l6-mean") and plain.parent is None
    assert not (plain.model_side or plain.derived or plain.is_variant)
    assert not parse_variant("x@layer=2").derived and parse_variant("x@int8").derived


@pytest.mark.parametrize(
    ("spec", "base", "parts"),
    [
        ("hf:bert-base-uncased@cls@pool=mean", "hf:bert-base-uncased@cls", ["pool=mean"]),
        ("hf:org/model@mean", "hf:org/model@mean", []),
        ("wv:/data/my@vectors.txt@nostop@int8", "wv:/data/my@vectors.txt@nostop", ["int8"]),
        ("npy:/runs/a@b/vectors.npy", "npy:/runs/a@b/vectors.npy", []),
        ("npy:/runs/lr=0.1@x/v.npy@binary", "npy:/runs/lr=0.1@x/v.npy", ["binary"]),
        ("st:./models/a@v=2/m@dims=8", "st:./models/a@v=2/m", ["dims=8"]),
        ("glove-6b-50d-nostop@dims=16", "glove-6b-50d-nostop", ["dims=16"]),
    ],
)
def test_where_the_base_ends(spec, base, parts):
    """User specs keep their own '@' segments (pooling, @nostop, paths); trailing variant keys are parts."""
    assert split_variant(spec) == (base, parts)
    assert parse_variant(spec).base == base


def test_a_variant_of_a_variant_is_one_id():
    assert derive("x@dims=64", "binary").id == "x@dims=64@binary"
    assert derive(parse_variant("x@binary"), "@rescore=4", "layer=2").id == "x@layer=2@binary@rescore=4"
    assert derive("hf:m@mean", "layer=3") == parse_variant("hf:m@mean@layer=3")
    with pytest.raises(N2OError, match="both @int8 and @binary"):
        derive("x@int8", "binary")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "minilm-l6-mean@bianry",
            r"Unknown variant part '@bianry' in 'minilm-l6-mean@bianry' \(did you mean '@binary'",
        ),
        ("minilm-l6-mean@foo=3", "Unknown variant part '@foo=3'"),
        ("st:my-model@layr=4", r"Unknown variant part '@layr=4' .*did you mean '@layer'"),
        ("minilm@@binary", "has an empty '@' part"),
        ("minilm@", "has an empty '@' part"),
        ("@binary", "names no embedder before its variant parts"),
        ("x@rescore=4", "re-ranks binary candidates: write '@binary@rescore=R'"),
        ("x@int8@rescore=4", "re-ranks binary candidates"),
        ("x@int8@binary", "both @int8 and @binary; choose one precision"),
        ("x@dims=3@pca=2", "both @dims and @pca"),
        ("x@dims=3@dims=4", "'@dims' appears twice"),
        ("x@binary@binary", "'@binary' appears twice"),
        ("x@binary=1", "takes no value"),
        ("x@layer=-1", r"'@layer' in 'x@layer=-1' needs a layer .*≥ 0, not '-1'"),
        ("x@layer", "needs a layer"),
        ("x@layer=two", "not 'two'"),
        ("x@pool=sum", "'@pool' in 'x@pool=sum' is cls, mean or max, not 'sum'"),
        ("x@dims=0", "needs a number of dimensions, a whole number ≥ 1"),
        ("x@pca=1.5", "not '1.5'"),
        ("x@rescore=0", "needs a candidate multiplier"),
    ],
)
def test_bad_parts_raise_one_clear_sentence(spec, message):
    with pytest.raises(N2OError, match=message):
        parse_variant(spec)


def test_description_names_every_part():
    assert (
        describe("minilm-l6-mean@layer=4@binary", "MiniLM-L6 mean")
        == "MiniLM-L6 mean, hidden layer 4, 1-bit sign quantization, Hamming search"
    )
    assert describe("x@layer=0@pool=cls@dims=64") == (
        "x, embeddings output (layer 0), [CLS] pooling, first 64 dimensions, renormalized"
    )
    assert "PCA to 32 dimensions (fitted on the compared corpus)" in describe("x@pca=32@int8")
    assert "int8 scalar quantization (per-dimension ranges from the compared corpus)" in describe("x@pca=32@int8")
    assert describe("x@binary@rescore=4").endswith("Hamming search of 4·k candidates rescored with the float query")
    assert describe("x") == "x"


def test_cache_part_names_the_variant_and_its_version():
    from n2o_core.variants.spec import VARIANT_VERSION

    assert parse_variant("x").cache_part() == ""  # a plain embedder's keys do not change
    a = parse_variant("x@binary@dims=64").cache_part()
    assert a == f"variant{VARIANT_VERSION}:dims=64,binary"
    assert a == parse_variant("x@dims=64@binary").cache_part()
    assert a != parse_variant("x@dims=64@binary@rescore=2").cache_part()
    assert parse_variant("x@dims=64@binary@rescore=2").vectors.cache_part() == a  # rescoring reuses the bits


def test_bytes_per_vector():
    assert bytes_per_vector(parse_variant("x"), 384) == 1536
    assert bytes_per_vector(parse_variant("x@int8"), 384) == 384
    assert bytes_per_vector(parse_variant("x@binary"), 384) == 48
    assert bytes_per_vector(parse_variant("x@dims=100@binary"), 384) == 13  # 100 bits in 13 bytes
    assert bytes_per_vector(parse_variant("x@pca=64"), 384) == 256
    assert reduced_dim(parse_variant("x@layer=2"), 384) == 384


def test_the_user_prefixes_are_the_registrys():
    from n2o_core.embedders.registry import USER_SPEC_PREFIXES
    from n2o_core.variants.spec import USER_PREFIXES

    assert USER_PREFIXES == USER_SPEC_PREFIXES
