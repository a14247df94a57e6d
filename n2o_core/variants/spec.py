"""The variant grammar: an embedder id followed by `@` parts that say which vectors to take and how to shrink them.

    minilm-l6-mean@layer=4@binary       hidden layer 4 of MiniLM-L6, mean pooled, 1-bit signs, Hamming search
    hf:bert-base-uncased@cls@pool=mean  a user spec keeps its own `@` parts (`@cls`, `@nostop`, paths with `@`)

Parts, in the order of the pipeline they describe (which is also their canonical order):

    model      @layer=N    hidden layer N of a transformer (0 = the embeddings output)
               @pool=P     pooling of that layer's token vectors: cls, mean or max
    reduction  @dims=N     the first N dimensions, each row rescaled to its full vector's norm (Matryoshka)
               @pca=N      PCA to N dimensions, fitted on the compared corpus         (one reduction at most)
    precision  @int8       per-dimension int8 codes, ranges from the compared corpus
               @binary     sign bits, Hamming distance                                (one precision at most)
    search     @rescore=R  binary only: R·k Hamming candidates re-ranked with the float query

Parts may be written in any order; they mean the pipeline above, so `x@binary@dims=64` is `x@dims=64@binary`
(`Variant.id` writes the canonical order). Each part appears at most once.

Where the base id ends, unambiguously: parts are read from the right, and every trailing `@` segment whose key
is one of the seven above is a part; the first segment that is not ends the parts, and everything left of it is
the base id. Built-in ids contain no `@`, so after one any other segment is an error ("unknown variant part").
User specs (`st:`, `hf:`, `wv:`, `npy:`) keep their own `@` segments (`hf:NAME@mean`, `wv:FILE@nostop`, a path
with `@` in it) because those are not variant keys; a trailing `@word=value` whose word is not a key is refused
as a mistyped part rather than taken into the path. (So a model or file whose own name ends in `@binary`,
`@int8` or `@key=value` must be renamed to be named here.)

Whether a layer exists (and whether the embedder has hidden states at all) is the embedder's to check; this
module checks only the form. Pure: no model, no array.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace
from typing import Literal

from n2o_core.errors import N2OError

Precision = Literal["float32", "int8", "binary"]
#: Every key, in canonical (pipeline) order.
KEYS: tuple[str, ...] = ("layer", "pool", "dims", "pca", "int8", "binary", "rescore")
_FLAGS = frozenset({"int8", "binary"})  # keys without a value
POOLINGS: tuple[str, ...] = ("cls", "mean", "max")
#: Bumped whenever a transform's arithmetic changes: part of every derived variant's cache key.
VARIANT_VERSION = "1"
#: The user spec prefixes (= `embedders.registry.USER_SPEC_PREFIXES`, which stands above this module; a test
#: checks they agree): their specs may hold `@` of their own.
USER_PREFIXES = ("st:", "hf:", "wv:", "npy:")
_SEGMENT = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:=\s*(.*?)\s*)?$")
_SYNTAX = "@layer=N, @pool=cls|mean|max, @dims=N, @pca=N, @int8, @binary or @binary@rescore=R"


@dataclass(frozen=True)
class Variant:
    """A parsed embedder id: the base id and its variant parts (None / "float32" where a part is absent)."""

    base: str
    layer: int | None = None
    pool: str | None = None
    dims: int | None = None
    pca: int | None = None
    precision: Precision = "float32"
    rescore: int | None = None

    def parts(self) -> list[str]:
        """The parts in canonical order, without '@': ['layer=4', 'binary', 'rescore=4']."""
        values = {
            "layer": self.layer,
            "pool": self.pool,
            "dims": self.dims,
            "pca": self.pca,
            "int8": self.precision == "int8",
            "binary": self.precision == "binary",
            "rescore": self.rescore,
        }
        out = []
        for key in KEYS:
            value = values[key]
            if value is True:
                out.append(key)
            elif value is not None and value is not False:
                out.append(f"{key}={value}")
        return out

    @property
    def suffix(self) -> str:
        """The canonical parts as written after the base: '@layer=4@binary' ('' for a plain embedder)."""
        return "".join(f"@{p}" for p in self.parts())

    @property
    def id(self) -> str:
        """The canonical id: the base, then the parts in pipeline order."""
        return self.base + self.suffix

    @property
    def is_variant(self) -> bool:
        return bool(self.parts())

    @property
    def model_side(self) -> bool:
        """Whether the vectors come from a forward pass of their own (a layer or pooling), not the base's."""
        return self.layer is not None or self.pool is not None

    @property
    def derived(self) -> bool:
        """Whether a transform of cached vectors (dims, pca, int8, binary) is applied."""
        return self.dims is not None or self.pca is not None or self.precision != "float32"

    @property
    def source(self) -> Variant:
        """The variant whose float vectors the derived transforms start from: the base with its model parts."""
        return Variant(self.base, self.layer, self.pool)

    @property
    def vectors(self) -> Variant:
        """The variant that determines the vectors (without the search's `rescore`)."""
        return replace(self, rescore=None)

    @property
    def parent(self) -> Variant | None:
        """This variant without its last part (None for a plain embedder): the variant it is a variant of."""
        parts = self.parts()
        return parse_variant(self.base + "".join(f"@{p}" for p in parts[:-1])) if parts else None

    def cache_part(self) -> str:
        """This variant's component of a cache key: its canonical parts and the transforms' version ('' for a
        plain embedder, so the base's keys do not change). pca and int8 are fitted on the compared corpus, which
        the cache's corpus fingerprint already names."""
        parts = self.parts()
        return f"variant{VARIANT_VERSION}:" + ",".join(parts) if parts else ""


def split_variant(spec: str) -> tuple[str, list[str]]:
    """(base id, the raw part segments in written order) -- no validation of the parts' values.

    Trailing `@` segments whose key is a variant key are parts; the rest is the base (see the module docstring)."""
    spec = str(spec).strip()
    segments = spec.split("@")
    cut = len(segments)
    while cut > 1:
        m = _SEGMENT.match(segments[cut - 1])
        if not m or m.group(1).lower() not in KEYS:
            break
        cut -= 1
    base = "@".join(segments[:cut]).strip()
    rest = segments[cut:]
    if cut > 1:
        _check_left_over(spec, base, segments[cut - 1])
    return base, rest


def _check_left_over(spec: str, base: str, segment: str) -> None:
    """The segment left of the parts is the base's own (a user spec's pooling, option or path) or a mistyped part."""
    m = _SEGMENT.match(segment)
    if not base.startswith(USER_PREFIXES):
        raise N2OError(_unknown_part(spec, segment))
    if m and m.group(2) is not None and not re.search(r"[/\\]", m.group(2)):
        raise N2OError(_unknown_part(spec, segment))


def _unknown_part(spec: str, segment: str) -> str:
    word = segment.strip().partition("=")[0].strip().lower()
    if not segment.strip():
        return f"'{spec}' has an empty '@' part; variant parts are {_SYNTAX}."
    close = difflib.get_close_matches(word, KEYS, n=1)
    hint = f" (did you mean '@{close[0]}'?)" if close else ""
    return f"Unknown variant part '@{segment.strip()}' in '{spec}'{hint}; variant parts are {_SYNTAX}."


def _count(spec: str, key: str, value: str | None, what: str, least: int) -> int:
    if value is None or not (value.isascii() and value.isdigit()) or int(value) < least:
        raise N2OError(f"'@{key}' in '{spec}' needs {what}, a whole number ≥ {least}, not '{value or ''}'.")
    return int(value)


def _read_part(spec: str, segment: str, fields: dict[str, object]) -> None:
    """One validated part into `fields` (errors name the spec)."""
    m = _SEGMENT.match(segment)
    assert m is not None  # split_variant kept only matching segments
    key, value = m.group(1).lower(), m.group(2)
    if key in fields:
        raise N2OError(f"'@{key}' appears twice in '{spec}'; give each variant part once.")
    if key in _FLAGS:
        if value is not None:
            raise N2OError(f"'@{key}' in '{spec}' takes no value (write '@{key}', not '@{key}={value}').")
        fields[key] = True
    elif key == "pool":
        pool = (value or "").lower()
        if pool not in POOLINGS:
            raise N2OError(f"'@pool' in '{spec}' is cls, mean or max, not '{value or ''}'.")
        fields[key] = pool
    elif key == "layer":
        fields[key] = _count(spec, key, value, "a layer (0 = the embeddings output)", 0)
    elif key == "rescore":
        fields[key] = _count(spec, key, value, "a candidate multiplier r (r·k binary candidates)", 1)
    else:
        fields[key] = _count(spec, key, value, "a number of dimensions", 1)


def parse_variant(spec: str) -> Variant:
    """The `Variant` an id names (a plain embedder id gives a Variant without parts); N2OError with one sentence
    for an unknown or malformed part, a part given twice, two reductions, two precisions or rescore without
    binary."""
    spec = str(spec).strip()
    base, segments = split_variant(spec)
    if not base:
        raise N2OError(f"'{spec}' names no embedder before its variant parts.")
    fields: dict[str, object] = {}
    for segment in segments:
        _read_part(spec, segment, fields)
    if "dims" in fields and "pca" in fields:
        raise N2OError(f"'{spec}' has both @dims and @pca; choose one way to reduce the dimensions.")
    if "int8" in fields and "binary" in fields:
        raise N2OError(f"'{spec}' has both @int8 and @binary; choose one precision.")
    if "rescore" in fields and "binary" not in fields:
        raise N2OError(f"'@rescore' in '{spec}' re-ranks binary candidates: write '@binary@rescore=R'.")
    precision: Precision = "int8" if "int8" in fields else "binary" if "binary" in fields else "float32"
    return Variant(
        base,
        layer=fields.get("layer"),  # type: ignore[arg-type]
        pool=fields.get("pool"),  # type: ignore[arg-type]
        dims=fields.get("dims"),  # type: ignore[arg-type]
        pca=fields.get("pca"),  # type: ignore[arg-type]
        precision=precision,
        rescore=fields.get("rescore"),  # type: ignore[arg-type]
    )


def derive(spec: str | Variant, *parts: str) -> Variant:
    """A variant of a variant: `spec` with more parts ('@binary' or 'binary'), checked as one id
    (`derive('x@dims=64', 'binary')` is `x@dims=64@binary`)."""
    vid = spec.id if isinstance(spec, Variant) else str(spec).strip()
    return parse_variant(vid + "".join("@" + p.strip().removeprefix("@") for p in parts))


def reduced_dim(variant: Variant, dim: int) -> int:
    """The number of dimensions after the variant's reduction, from the source vectors' `dim`."""
    return variant.dims or variant.pca or dim


def bytes_per_vector(variant: Variant, dim: int) -> int:
    """Bytes one vector takes in the variant's index, from the source vectors' `dim`: 4 per float32 dimension,
    1 per int8 code, 1 per 8 sign bits (rounded up to whole bytes, as `numpy.packbits` stores them)."""
    d = reduced_dim(variant, dim)
    if variant.precision == "binary":
        return (d + 7) // 8
    return d if variant.precision == "int8" else 4 * d


_POOL_WORDS = {"cls": "[CLS] pooling", "mean": "mean pooling", "max": "max pooling"}


def describe(variant: Variant | str, base_label: str | None = None) -> str:
    """One line on what the variant is, e.g. 'MiniLM-L6 mean, hidden layer 4, 1-bit sign quantization, Hamming
    search' (`base_label` names the base; its id otherwise)."""
    v = variant if isinstance(variant, Variant) else parse_variant(variant)
    words = [base_label or v.base]
    if v.layer is not None:
        words.append("embeddings output (layer 0)" if v.layer == 0 else f"hidden layer {v.layer}")
    if v.pool is not None:
        words.append(_POOL_WORDS[v.pool])
    if v.dims is not None:
        words.append(f"first {v.dims} dimensions, renormalized")
    if v.pca is not None:
        words.append(f"PCA to {v.pca} dimensions (fitted on the compared corpus)")
    if v.precision == "int8":
        words.append("int8 scalar quantization (per-dimension ranges from the compared corpus), cosine of the codes")
    elif v.precision == "binary":
        words.append("1-bit sign quantization, Hamming search")
        if v.rescore is not None:
            words[-1] += f" of {v.rescore}·k candidates rescored with the float query"
    return ", ".join(words)
