"""A variant's vectors and neighbors on one corpus, from what the workspace has cached: `VariantStore`.

`Workspace` hands every id with variant parts (`minilm-l6-mean@layer=4@binary`) to its `VariantStore`:

- model parts (`@layer=N`, `@pool=P`): every hidden layer of the base model, each pooled, from ONE forward pass
  over the corpus (the embedder's `encode_layers`), stored in the disk cache one (layer, pooling) at a time, so any
  other layer or pooling of the same model reads its file and never runs the model again. `@layer=N` alone takes
  the base's own pooling; `@pool=P` alone the last layer. Embedders whose engine gives the last layer only (the
  ONNX / 4-bit engines of paraphrase-MiniLM-L3 and E5, averaged word vectors, tf-idf) get a one-sentence
  EmbedderError. MiniLM-L6's layers come from its torch engine (sentence-transformers fp32) whatever engine embeds
  its base: the description says so, since its last layer then differs from the base's vectors by the engines'
  rounding (cosine >= 0.9999 per sentence, tests/embedders/test_embedders_sbert.py).
- derived parts (`@dims`, `@pca`, `@int8`, `@binary`, `@rescore`): the transforms of `variants.transforms`
  applied to the source's cached float vectors (the base's embeddings, or the model variant's), fitted on this
  corpus; the embedder is never called. Kept in memory (they take milliseconds to seconds to derive).
- `embeddings(v)`: float32 vectors whose cosine is the variant's similarity (what HEROS, STS, probing and the
  measures read): the reduced floats; the int8 codes as floats; the ±1 sign vectors of the bits (cosine =
  1 - 2h/dim). Rows with no direction stay all zero. `@rescore` changes the search only: its vectors are the
  binary variant's.
- `knn(v, ...)`: the search each precision calls for (`variants.knn.variant_knn`): Hamming on the packed bits for
  `@binary` (its own exact search, also when approximate search is asked for), the int8 codes for `@int8`.
  z-normalization applies to float vectors only: asked for a quantized variant, it is refused with one sentence.

The workspace is reached through the small `Host` protocol (this folder stands below the workspace).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from n2o_core.errors import EmbedderError, N2OError
from n2o_core.runtime.progress import Progress, report
from n2o_core.search.exact import exact_knn
from n2o_core.search.result import Neighbors
from n2o_core.search.rows import Standardizer
from n2o_core.storage.cache import Cache
from n2o_core.variants.knn import variant_knn
from n2o_core.variants.spec import POOLINGS, Variant, describe, parse_variant, reduced_dim
from n2o_core.variants.transforms import Derived, derive_vectors, unpack_signs

#: Corpora up to this size get all three poolings of every layer from the one forward pass (3 x layers x n x d
#: floats: 160 MB for MiniLM-L6 on 5,000 sentences); larger ones only the pooling asked for.
ALL_POOLINGS_UP_TO = 50_000
#: The poolings an `@layer` variant may take from its base's composition (hf: models may also pool 'last').
_BASE_POOLINGS = (*POOLINGS, "last")


class Host(Protocol):
    """What the store needs of a workspace."""

    cache: Cache
    corpus: Any

    def embeddings(self, eid: str, progress: Progress | None = None) -> Any: ...

    def embedder(self, eid: str, fitted: bool = True, progress: Progress | None = None) -> Any: ...

    def embedder_key(self, eid: str) -> str: ...

    def is_cached(self, eid: str) -> bool: ...

    def info(self, eid: str) -> Any: ...

    def encode_texts(self, eid: str, texts: list[str]) -> Any: ...

    def standardizer(self, eid: str) -> Standardizer: ...


def variant_of(eid: str) -> Variant | None:
    """The parsed variant of an id with variant parts, None for a plain id (N2OError for a malformed part)."""
    if "@" not in eid:
        return None
    v = parse_variant(eid)
    return v if v.is_variant else None


class VariantStore:
    """Vectors and neighbors of the variants of one workspace's embedders (see the module docstring)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._derived: dict[str, Derived] = {}
        self._lock = threading.RLock()
        self._computing: dict[str, threading.Lock] = {}

    # ------------------------------------------------------------------ what a variant is

    def info(self, v: Variant) -> Any:
        """The base's registry row with the variant's id, dimension and one line on what it is."""
        base = self.host.info(v.base)
        if v.model_side:
            self.layers_of(v)
        model = self.model_variant(v) if v.model_side else v.source
        dim = base.dim
        if v.derived and dim is None:
            raise N2OError(f"'{v.id}': {v.base} has sparse vectors; variants are derived from dense vectors only.")
        data = describe(v) + self.engine_note(v)
        return replace(
            base,
            id=v.id,
            composition=model.pool or base.composition,
            dim=reduced_dim(v, dim) if dim else dim,
            data=data,
            default=False,
        )

    def engine_note(self, v: Variant) -> str:
        """Where a model variant's layers come from, when that is not the base's engine ('' otherwise)."""
        if not v.model_side:
            return ""
        engine = getattr(self.host.embedder(v.base, fitted=False), "engine", None)
        if engine is None or engine == "torch":
            return ""
        return (
            f"; layers from the torch engine (sentence-transformers fp32), while {v.base} itself is embedded by "
            f"{engine}: their last layers agree to cosine >= 0.9999 per sentence, not bit for bit"
        )

    def base_pooling(self, base: str) -> str:
        """The pooling the base embedder applies to its last layer (what `@layer=N` takes without `@pool`)."""
        emb = self.host.embedder(base, fitted=False)
        pooling = str(getattr(emb, "pooling", None) or getattr(emb.info, "composition", ""))
        pooling = {"mean_tokens": "mean", "cls_token": "cls", "max_tokens": "max", "lasttoken": "last"}.get(
            pooling, pooling
        )
        if pooling not in _BASE_POOLINGS:
            raise EmbedderError(
                f"{base} pools its tokens as '{pooling}', which has no per-layer equivalent here; add "
                f"@pool=cls, @pool=mean or @pool=max to name one."
            )
        return str(pooling)

    def model_variant(self, v: Variant) -> Variant:
        """The model parts with the pooling made explicit: the vectors' identity in the cache."""
        return Variant(v.base, v.layer, v.pool or self.base_pooling(v.base))

    # ------------------------------------------------------------------ float vectors

    def is_cached(self, v: Variant) -> bool:
        """Whether the variant's source vectors are cached (nothing is computed; derived parts cost no model)."""
        if v.model_side:
            return self.host.cache.has(self._layer_rel(self.model_variant(v)))
        return self.host.is_cached(v.base)

    def source_vectors(self, v: Variant, progress: Progress | None = None) -> Any:
        """The float vectors the derived parts start from: the base's embeddings, or the model variant's."""
        if v.model_side:
            return self.model_vectors(v, progress)
        return self.host.embeddings(v.base, progress=progress)

    def _layer_rel(self, m: Variant) -> str:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in m.base)[:60]
        key = self.host.embedder_key(m.id)
        return f"layers/{self.host.corpus.sentences_fingerprint}/{safe}-{key}-float32.npy"

    def model_vectors(self, v: Variant, progress: Progress | None = None) -> np.ndarray:
        """(n, d) float32 of a layer / pooling of the base model on the corpus: from the cache, else from one
        forward pass that stores every layer (and, up to ALL_POOLINGS_UP_TO sentences, every pooling)."""
        m = self.model_variant(v)
        rel = self._layer_rel(m)
        with self._lock:
            lock = self._computing.setdefault(m.base, threading.Lock())
        with lock:
            got = self.host.cache.load_dense(rel)
            n = len(self.host.corpus)
            if got is not None and got.shape[0] == n:
                report(progress, "embed", n, n)
                return got
            texts = list(self.host.corpus.texts)
            pool = str(m.pool)
            poolings = [pool] if n > ALL_POOLINGS_UP_TO else list(dict.fromkeys([pool, *POOLINGS]))
            layers = self._encode_layers(m, texts, poolings, progress)
            for p, arr in layers.items():
                for i in range(arr.shape[0]):
                    self._save(Variant(m.base, i, p), arr[i])
                self._save(Variant(m.base, None, p), arr[-1])
            asked = self._pick(m, layers)  # after saving: a layer the model lacks still leaves the others cached
            got = self.host.cache.load_dense(rel)
            return asked if got is None else got

    def layer_ids(self, base: str, progress: Progress | None = None) -> list[str]:
        """`base@layer=0` ... `base@layer=L`: every layer of the base model (0 = the embeddings output), computed
        (one forward pass, cached) when they are not cached yet; EmbedderError for a model without layers."""
        v = parse_variant(base + "@layer=0")
        self.layers_of(v)
        self.model_vectors(v, progress)
        m = self.model_variant(v)
        count = 1
        while self.host.cache.has(self._layer_rel(Variant(base, count, m.pool))):
            count += 1
        return [f"{base}@layer={i}" for i in range(count)]

    def _save(self, m: Variant, arr: np.ndarray) -> None:
        self.host.cache.save_dense(
            self._layer_rel(m), np.ascontiguousarray(arr, np.float32), description=f"{describe(m)} on the corpus"
        )

    def layers_of(self, v: Variant, fitted: bool = False) -> Callable[..., dict[str, np.ndarray]]:
        """The base embedder's `encode_layers`; EmbedderError with one sentence when it has none."""
        encode_layers = getattr(self.host.embedder(v.base, fitted=fitted), "encode_layers", None)
        if encode_layers is None:
            raise EmbedderError(
                f"'{v.id}': {v.base} has no hidden layers this tool can reach (its engine gives the sentence vectors "
                "only); @layer and @pool work on MiniLM-L6 (minilm-l6-mean, minilm-l6-cls, through its torch "
                "engine) and on hf: and st: transformer models."
            )
        return encode_layers  # type: ignore[no-any-return]

    def _encode_layers(
        self, m: Variant, texts: list[str], poolings: Sequence[str], progress: Progress | None
    ) -> dict[str, np.ndarray]:
        encode_layers = self.layers_of(m, fitted=True)
        try:
            return dict(encode_layers(texts, tuple(poolings), progress=progress))
        except N2OError:
            raise
        except Exception as e:  # noqa: BLE001 - a model failing mid-way is reported, not crashed on
            raise EmbedderError(f"'{m.id}': computing the layers of {m.base} failed: {e}") from e

    @staticmethod
    def _pick(m: Variant, layers: dict[str, np.ndarray]) -> np.ndarray:
        """The (n, d) rows of one layer and pooling; EmbedderError for a layer the model does not have."""
        arr = layers[str(m.pool)]
        if m.layer is None:
            return arr[-1]
        if m.layer >= arr.shape[0]:
            raise EmbedderError(
                f"'{m.id}': {m.base} has layers 0 to {arr.shape[0] - 1} (0 = the embeddings output), not {m.layer}."
            )
        return arr[m.layer]

    # ------------------------------------------------------------------ derived vectors

    def derived(self, v: Variant, progress: Progress | None = None) -> Derived:
        """The variant's vectors as its search reads them, derived from the cached source floats (once)."""
        with self._lock:
            got = self._derived.get(v.id)
        if got is not None:
            report(progress, "embed", got.vectors.shape[0], got.vectors.shape[0])
            return got
        X = self.source_vectors(v, progress)
        d = derive_vectors(np.asarray(X, np.float32), v)
        with self._lock:
            self._derived[v.id] = d
        return d

    def embeddings(self, v: Variant, progress: Progress | None = None) -> np.ndarray:
        """(n, d) float32 whose cosine is the variant's similarity (see the module docstring)."""
        if not v.derived:
            return self.model_vectors(v, progress)
        d = self.derived(v.vectors, progress)
        return decoded(d)

    def forget(self, base: str) -> None:
        """Drop the derived vectors of `base`'s variants (its vectors changed)."""
        with self._lock:
            for vid in [vid for vid, d in self._derived.items() if d.variant.base == base]:
                del self._derived[vid]

    # ------------------------------------------------------------------ search

    def knn(
        self, v: Variant, k: int, query_ids: np.ndarray, *, znorm: bool = False, progress: Progress | None = None
    ) -> Neighbors:
        """k nearest neighbors of corpus rows `query_ids` in a quantized variant, by its own exact search."""
        refuse_znorm(v, znorm)
        return variant_knn(self.derived(v), k, query_ids=query_ids, progress=progress)

    def source_texts(self, v: Variant, texts: list[str]) -> np.ndarray:
        """Float vectors of the variant's source for sentences outside the corpus (the base's, or a layer's)."""
        if not v.model_side:
            return np.asarray(self.host.encode_texts(v.base, texts), np.float32)
        m = self.model_variant(v)
        if not texts:
            return np.zeros((0, int(self.host.info(v.base).dim or 0)), np.float32)
        return np.asarray(self._pick(m, self._encode_layers(m, texts, [str(m.pool)], None)), np.float32)

    def encode_texts(self, v: Variant, texts: list[str]) -> np.ndarray:
        """The variant's float vectors (as `embeddings`) of sentences outside the corpus, through the transform
        fitted on the corpus."""
        S = self.source_texts(v, texts)
        if not v.derived:
            return S
        d = self.derived(v.vectors)
        return decoded_rows(d, d.transform.reduce(S), d.transform.apply(S))

    def search_text(self, v: Variant, text: str, k: int, *, znorm: bool = False) -> Neighbors:
        """k nearest corpus sentences of one sentence from outside the corpus, in the variant."""
        S = self.source_texts(v, [text])
        if v.precision == "float32":
            q = self.derived(v).transform.apply(S) if v.derived else S
            std = self.host.standardizer(v.id) if znorm else None
            return exact_knn(self.host.embeddings(v.id), k, queries=q, standardizer=std)
        refuse_znorm(v, znorm)
        return variant_knn(self.derived(v), k, queries=S)


def refuse_znorm(v: Variant, znorm: bool) -> None:
    """N2OError for z-normalization of a quantized variant (its search reads codes or bits, not floats)."""
    if znorm and v.precision != "float32":
        how = "the Hamming distance of its bits" if v.precision == "binary" else "its int8 codes"
        raise N2OError(
            f"'{v.id}' is searched as deployed ({how}); "
            "z-normalization applies to float vectors: turn it off to compare this variant."
        )


def decoded(d: Derived) -> np.ndarray:
    """float32 vectors whose cosine is the derived variant's similarity (zero rows stay zero)."""
    if d.precision == "float32":
        return d.vectors
    return decoded_rows(d, None, d.vectors, d.zero)


def decoded_rows(
    d: Derived, reduced: np.ndarray | None, coded: np.ndarray, zero: np.ndarray | None = None
) -> np.ndarray:
    """Coded rows (floats, int8 codes or packed bits) as float32 vectors; `zero` (or the all-zero rows of
    `reduced`) marks rows with no direction, which stay zero."""
    if d.precision == "float32":
        return np.asarray(coded, np.float32)
    if zero is None:
        assert reduced is not None
        zero = np.asarray(~np.asarray(reduced).any(axis=1))
    out = unpack_signs(coded, d.dim) if d.precision == "binary" else np.asarray(coded, np.float32)
    out[zero] = 0.0
    return out
