"""`hf:<name-or-path>@<pooling>`: any Hugging Face encoder or decoder via transformers AutoModel + AutoTokenizer.

Poolings over the last hidden layer (the N2O paper's BERT/GPT compositions):
- cls: first token; mean: average of non-padding tokens; max: per-dimension max over non-padding tokens;
- last: last non-padding token (works for right or left padding; GPT-style models).
Sequences are truncated to min(tokenizer limit, model positions, 512) tokens.

Every hidden layer from one forward pass (`@layer=N` variants): `HFEmbedder.encode_layers` pools each hidden
state the model returns with `output_hidden_states` (0 = the embeddings output, the last = last_hidden_state) by
`pooled_hidden_states`; `layers_in_batches` runs it over length-sorted batches (also for sentence-transformers
models, `n2o_core.embedders.sbert`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import n2o_core.runtime.release as release
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.batches import check_texts, encode_in_batches, finish, length_batches
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.embedders.loading import is_local_path, loading, quiet_libraries
from n2o_core.embedders.threads import set_torch_threads
from n2o_core.errors import EmbedderError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.fileio import file_identity
from n2o_core.variants.spec import POOLINGS as VARIANT_POOLINGS

POOLINGS = ("cls", "mean", "max", "last")
#: The poolings of every hidden layer by default: the `@pool=` values of a variant.
LAYER_POOLINGS: tuple[str, ...] = VARIANT_POOLINGS
BATCH = 32
_LOADED: LRU[str, tuple[Any, Any]] = LRU(4)
_LOCK = threading.Lock()


def pool(hidden: Any, mask: Any, pooling: str) -> Any:
    """Pool token states (b, t, d) with attention mask (b, t) into (b, d) (torch tensors)."""
    with heavy_imports():
        import torch

    m = mask.to(hidden.dtype).unsqueeze(-1)
    if pooling == "cls":
        return hidden[:, 0]
    if pooling == "mean":
        return (hidden * m).sum(1) / m.sum(1).clamp_min(1.0)
    if pooling == "max":
        filled = hidden.masked_fill(m == 0, float("-inf")).max(1).values
        return torch.where(torch.isfinite(filled), filled, torch.zeros_like(filled))
    if pooling == "last":
        positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
        last = (positions * mask.long()).argmax(1)
        return hidden[torch.arange(hidden.shape[0]), last]
    raise EmbedderError(f"Unknown pooling '{pooling}'; use one of {', '.join(POOLINGS)}.")


def pooled_hidden_states(model: Any, inputs: dict[str, Any], poolings: Sequence[str]) -> dict[str, np.ndarray]:
    """{pooling: (layers + 1, b, d) float32} for one tokenized batch: every hidden state of one forward pass with
    `output_hidden_states` (index 0 = the embeddings output), pooled with the batch's attention mask."""
    out = model(**inputs, output_hidden_states=True, return_dict=True)
    states = getattr(out, "hidden_states", None)
    if not states:
        raise EmbedderError(f"{type(model).__name__} returns no hidden states, so its layers cannot be compared.")
    mask = inputs["attention_mask"]
    return {p: np.stack([pool(h.float(), mask, p).numpy() for h in states]).astype(np.float32) for p in poolings}


def layers_in_batches(
    texts: Sequence[str], batch_size: int, run: Callable[[list[str]], dict[str, np.ndarray]], progress: Progress | None
) -> dict[str, np.ndarray]:
    """{pooling: (layers + 1, n, d) float32}, rows in input order, from `run` (one batch's `pooled_hidden_states`)
    on length-sorted batches; progress per batch."""
    out: dict[str, np.ndarray] = {}
    done = 0
    for idx in length_batches(texts, batch_size):
        pooled = run([texts[i] for i in idx])
        for p, arr in pooled.items():
            if p not in out:
                out[p] = np.zeros((arr.shape[0], len(texts), arr.shape[2]), np.float32)
            out[p][:, idx] = arr
        done += len(idx)
        report(progress, "embed", done, len(texts))
    return out


def check_poolings(poolings: Sequence[str]) -> tuple[str, ...]:
    """The poolings asked for, each known (EmbedderError otherwise)."""
    bad = [p for p in poolings if p not in POOLINGS]
    if bad or not poolings:
        raise EmbedderError(f"Unknown pooling {bad[0] if bad else '(none)'!r}; use {', '.join(POOLINGS)}.")
    return tuple(dict.fromkeys(poolings))


def no_layers(model: Any, poolings: Sequence[str], dim: int | None) -> dict[str, np.ndarray]:
    """What `layers_in_batches` gives for no texts: (layers + 1, 0, d) per pooling, from the model's config."""
    layers = int(getattr(getattr(model, "config", None), "num_hidden_layers", 0) or 0)
    return {p: np.zeros((layers + 1, 0, dim or 0), np.float32) for p in poolings}


def _model_name(path: str) -> str:
    """A readable model name: the folder's name, with its parent when the folder is just 'model'."""
    p = Path(path)
    return f"{p.parent.name}/{p.name}" if p.name in ("model", "models") and p.parent.name else p.name


def load_hf(name_or_path: str) -> tuple[Any, Any]:
    """(tokenizer, model) on CPU in eval mode, loaded once per process."""
    with _LOCK:
        return _load_hf(name_or_path)


def _load_hf(name_or_path: str) -> tuple[Any, Any]:
    """(tokenizer, model), loaded once per process (called under _LOCK) and registered with `runtime.release`,
    which drops them when unused for a while (the embedder keeps its own reference while it lives)."""
    holder = f"transformers model {name_or_path}"
    if name_or_path in _LOADED:
        release.used(holder)
    else:
        with loading(f"the transformers model '{name_or_path}'", user_file=is_local_path(name_or_path)):
            with heavy_imports():
                from transformers import AutoModel, AutoTokenizer

            with quiet_libraries():
                tok = AutoTokenizer.from_pretrained(name_or_path)
                model = AutoModel.from_pretrained(name_or_path)
            model.eval()
            if tok.pad_token is None:
                tok.pad_token = tok.eos_token or tok.unk_token
            _LOADED[name_or_path] = (tok, model)
        release.loaded(holder, lambda: _drop(name_or_path))
    return _LOADED[name_or_path]


def _drop(name_or_path: str) -> None:
    with _LOCK:
        _LOADED.pop(name_or_path, None)


def _max_length(tok: Any, model: Any) -> int:
    limits = [512]
    if isinstance(getattr(tok, "model_max_length", None), int) and tok.model_max_length < 100_000:
        limits.append(tok.model_max_length)
    positions = getattr(model.config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        limits.append(positions)
    return min(limits)


class HFEmbedder:
    """A transformers model with an explicit pooling of its last hidden layer."""

    def __init__(self, spec: str, name_or_path: str, pooling: str):
        if pooling not in POOLINGS:
            raise EmbedderError(f"Unknown pooling '{pooling}' in '{spec}'; write hf:<model>@cls, @mean, @max or @last.")
        local = Path(name_or_path).expanduser()
        if local.exists():
            name_or_path = str(local.resolve())
            self._identity = file_identity(local)
        elif name_or_path.startswith((".", "/", "~")):
            raise EmbedderError(f"Model folder not found: {name_or_path}.")
        else:
            self._identity = name_or_path
        self.name_or_path = name_or_path
        self.pooling = pooling
        self.tokenizer, self.model = load_hf(name_or_path)
        dim = getattr(self.model.config, "hidden_size", None) or getattr(self.model.config, "d_model", None)
        self.max_length = _max_length(self.tokenizer, self.model)
        self.info = EmbedderInfo(
            spec,
            "user",
            pooling,
            int(dim) if dim else None,
            f"transformers model {_model_name(name_or_path)}, {pooling} of the last layer",
            default=False,
            family_group="transformers",
        )

    def fingerprint(self) -> str:
        return digest(self.info.id, EMBEDDER_CODE_VERSION, self._identity, self.pooling, self.max_length)

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Pretrained: nothing to fit."""

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        with heavy_imports():
            import torch

        texts = check_texts(texts)
        set_torch_threads()

        def batch(chunk: list[str]) -> np.ndarray:
            enc = self.tokenizer(chunk, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
            hidden = self.model(**enc).last_hidden_state.float()
            return pool(hidden, enc["attention_mask"], self.pooling).numpy()

        with torch.inference_mode():
            out = encode_in_batches(texts, BATCH, batch, self.info.dim, progress)
        return finish(out, self.info.id)

    def encode_layers(
        self, texts: Sequence[str], poolings: Sequence[str] = LAYER_POOLINGS, progress: Progress | None = None
    ) -> dict[str, np.ndarray]:
        """{pooling: (layers + 1, n, d) float32}: every hidden layer (0 = the embeddings output), each pooled, from
        one forward pass per batch. The last layer with this embedder's pooling is what `encode` returns."""
        with heavy_imports():
            import torch

        texts = check_texts(texts)
        poolings = check_poolings(poolings)
        if not texts:
            return no_layers(self.model, poolings, self.info.dim)
        set_torch_threads()

        def run(chunk: list[str]) -> dict[str, np.ndarray]:
            enc = self.tokenizer(chunk, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
            return pooled_hidden_states(self.model, dict(enc), poolings)

        with torch.inference_mode():
            out = layers_in_batches(texts, BATCH, run, progress)
        return {p: finish(a.reshape(-1, a.shape[-1]), self.info.id).reshape(a.shape) for p, a in out.items()}
