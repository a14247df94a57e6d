"""Compiled kernels of the exact search (numba). Each runs on the calling thread with the GIL released, so the
search's worker threads run them side by side (no numba thread pool is started).

- `prep_f32`, `prep_f16`, `prep_std`: one pass over a block of corpus rows: the inverse L2 norm of every row
  (and, for float16 or z-normalized rows, the float32 rows themselves), never a normalized copy. Sums of squares
  are taken in float32 (vectorized); rows whose sum is not comfortably inside float32's range are summed again in
  float64, so a zero row is found exactly (inverse norm 0, flagged in the status) and NaN or infinite values
  are reported.
- `select_block`: merge one (queries x rows) block of raw scores, scaled by each row's inverse norm, into the
  running top-kk of every query.
- `rescore`: float64 cosines of the kept candidates (the exact re-scoring that orders the final neighbors).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

ZERO_SCORE = -3.0  # must equal scan.ZERO_SCORE: below any cosine, zero rows rank last
_LOW, _HIGH = 1e-30, 1e30  # float32 sums of squares inside this range are trusted
# status of a prep kernel: bit flags, or NOT_FINITE
OK, RESCALE, HAS_ZERO, NOT_FINITE = 0, 1, 2, -1
_SUM = {"reassoc", "contract"}  # lets LLVM vectorize the sums; no NaN/inf assumptions (those are checked)


def half_native() -> bool:
    """Whether float16 -> float32 compiles to native instructions on this CPU (x86 F16C, or ARM64). Elsewhere the
    search converts float16 with numpy instead of `prep_f16` and gathers float16 candidates for `rescore`."""
    import platform

    if platform.machine().lower() in ("aarch64", "arm64"):
        return True
    try:
        from llvmlite import binding

        return bool(binding.get_host_cpu_features().get("f16c", False))
    except Exception:  # noqa: BLE001 - no way to tell: take the portable path
        return False


@intrinsic
def _half_to_float(typingctx: Any, bits: Any) -> tuple[Any, Callable[..., Any]]:  # pragma: no cover - compiled
    """float16 bits (uint16) -> float32: LLVM's fpext, one F16C instruction per 8 values where the CPU has it."""
    sig = types.float32(types.uint16)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType())

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def _scale_row(ss32: np.float32, row: np.ndarray, r: int, inv: np.ndarray) -> int:  # pragma: no cover - compiled
    """Inverse norm of row r from its float32 sum of squares (re-summed in float64 when needed); the status."""
    if ss32 > _LOW and ss32 < _HIGH:
        inv[r] = np.float32(1.0 / np.sqrt(np.float64(ss32)))
        return OK
    ss = 0.0
    for j in range(row.shape[0]):
        v = np.float64(row[j])
        ss += v * v
    if not np.isfinite(ss):
        return NOT_FINITE
    inv[r] = np.float32(0.0)
    if ss == 0.0:
        return HAS_ZERO
    return RESCALE  # norm far from 1: the caller normalizes this block in float64 before the product


@numba.njit(cache=True, nogil=True, fastmath=_SUM)
def _sumsq(row: np.ndarray) -> np.float32:  # pragma: no cover - compiled
    s = np.float32(0.0)
    for j in range(row.shape[0]):
        s += row[j] * row[j]
    return s


@numba.njit(cache=True, nogil=True)
def prep_f32(X: np.ndarray, inv: np.ndarray) -> int:  # pragma: no cover - compiled
    """Inverse norms of float32 rows X (0 for a zero row); returns NOT_FINITE or the flags RESCALE | HAS_ZERO."""
    status = OK
    for r in range(X.shape[0]):
        st = _scale_row(_sumsq(X[r]), X[r], r, inv)
        if st == NOT_FINITE:
            return NOT_FINITE
        status |= st
    return status


@numba.njit(cache=True, nogil=True, fastmath=_SUM)
def _half_row(h: np.ndarray, out: np.ndarray) -> np.float32:  # pragma: no cover - compiled
    s = np.float32(0.0)
    for j in range(h.shape[0]):
        v = _half_to_float(h[j])  # type: ignore[call-arg,var-annotated]  # numba intrinsic: typed at compile time
        out[j] = v
        s += v * v
    return s


@numba.njit(cache=True, nogil=True)
def prep_f16(H: np.ndarray, out: np.ndarray, inv: np.ndarray) -> int:  # pragma: no cover - compiled
    """float16 rows (given as their uint16 bits) to float32 `out` (exact), then as `prep_f32`."""
    status = OK
    for r in range(H.shape[0]):
        st = _scale_row(_half_row(H[r], out[r]), out[r], r, inv)
        if st == NOT_FINITE:
            return NOT_FINITE
        status |= st
    return status


@numba.njit(cache=True, nogil=True, fastmath=_SUM)
def _std_row(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.float32:  # pragma: no cover - compiled
    nz = False
    for j in range(x.shape[0]):
        nz |= x[j] != 0
    if not nz:  # a raw all-zero row stays zero (it has no direction)
        return np.float32(0.0)
    s = np.float32(0.0)
    for j in range(x.shape[0]):
        v = (x[j] - mean[j]) * scale[j]
        x[j] = v
        s += v * v
    return s


@numba.njit(cache=True, nogil=True)
def prep_std(X: np.ndarray, mean: np.ndarray, scale: np.ndarray, inv: np.ndarray) -> int:  # pragma: no cover - compiled
    """z-normalize float32 rows X in place ((x - mean) * scale; raw zero rows stay zero), then as `prep_f32`."""
    status = OK
    for r in range(X.shape[0]):
        st = _scale_row(_std_row(X[r], mean, scale), X[r], r, inv)
        if st == NOT_FINITE:
            return NOT_FINITE
        status |= st
    return status


@numba.njit(cache=True, nogil=True, inline="always")
def _insert(top_s: np.ndarray, top_i: np.ndarray, s: float, idx: int) -> None:  # pragma: no cover - compiled
    """Put (s, idx) into the sorted arrays, after existing equal scores; the last entry drops out."""
    j = top_s.shape[0] - 1
    while j > 0 and top_s[j - 1] < s:
        top_s[j] = top_s[j - 1]
        top_i[j] = top_i[j - 1]
        j -= 1
    top_s[j] = s
    top_i[j] = idx


_CHUNK = 64


@numba.njit(cache=True, nogil=True)
def select_block(
    S: np.ndarray, inv: np.ndarray, q_ids: np.ndarray, first: int, top_s: np.ndarray, top_i: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Merge raw scores S (q, B) into sorted per-query top-kk arrays (q, kk) in place.

    Column c is corpus row `first + c`; its score is S[r, c] * inv[c] (the caller has put ZERO_SCORE with inv 1
    in the columns of zero rows). Rows arrive in increasing id order, so a candidate enters only if strictly better
    than the current kk-th score and goes after equal scores: ties keep the lower id. The column of query r itself
    (q_ids[r] - first, when inside the block) is skipped. A chunk of 64 columns is first tested as a whole
    against the threshold (vectorized); only chunks holding a better score are walked one by one.
    """
    q, B = S.shape
    kk = top_s.shape[1]
    full = B - B % _CHUNK
    for r in range(q):
        ts = top_s[r]
        ti = top_i[r]
        thr = ts[kk - 1]
        ex = q_ids[r] - first
        row = S[r]
        for c0 in range(0, B, _CHUNK):
            c1 = min(c0 + _CHUNK, B)
            hit = False
            if c0 < full:
                # a constant trip count over slices indexed from 0: LLVM vectorizes the test with plain loads.
                # Indexing row[c0 + j] instead compiles to gathers (numba's negative-index wraparound on an index
                # LLVM cannot prove >= 0) and made the selection much slower
                # (measured: benchmarks/README.md, 'Measurements behind the code's choices')
                seg = row[c0 : c0 + _CHUNK]
                iseg = inv[c0 : c0 + _CHUNK]
                for j in range(_CHUNK):
                    hit |= seg[j] * iseg[j] > thr
            else:
                for c in range(c0, c1):
                    hit |= row[c] * inv[c] > thr
            if hit:
                for c in range(c0, c1):
                    s = row[c] * inv[c]
                    if s > thr and c != ex:
                        _insert(ts, ti, s, first + c)
                        thr = ts[kk - 1]


def _as_f64(x: Any) -> float:  # pragma: no cover - replaced by the overload below inside compiled code
    return float(x)


@overload(_as_f64)
def _as_f64_overload(x: Any) -> Callable[[Any], float]:  # pragma: no cover - compiled
    """A stored value as float64; uint16 stands for float16 bits (widened exactly). (numba requires the
    implementations' parameters to match this function's, annotations included.)"""
    if x == types.uint16:

        def widen_half(x: Any) -> float:
            return np.float64(_half_to_float(x))  # type: ignore[call-arg]  # numba intrinsic

        return widen_half

    def widen(x: Any) -> float:
        return np.float64(x)

    return widen


@numba.njit(cache=True, nogil=True, fastmath=_SUM)
def _cosine(
    x: np.ndarray, qr: np.ndarray, mean: np.ndarray, scale: np.ndarray, standardize: bool
) -> float:  # pragma: no cover - compiled
    """float64 cosine of stored row x with unit query row qr (ZERO_SCORE when x has no direction)."""
    nz = False
    dot = 0.0
    ss = 0.0
    for j in range(x.shape[0]):
        v = _as_f64(x[j])
        nz |= v != 0.0
        if standardize:
            v = (v - mean[j]) * scale[j]
        dot += v * qr[j]
        ss += v * v
    if not nz or ss == 0.0:
        return ZERO_SCORE
    return dot / np.sqrt(ss)


@numba.njit(cache=True, nogil=True)
def rescore(
    X: np.ndarray, ids: np.ndarray, Q: np.ndarray, mean: np.ndarray, scale: np.ndarray, standardize: bool
) -> np.ndarray:  # pragma: no cover - compiled
    """float64 cosines (q, kk) of query rows Q (float64, standardized and L2-normalized) with corpus rows
    X[ids[r, t]] (float32/float64 rows, or float16 rows given as their uint16 bits; ids < 0 mark empty slots,
    scored -inf). The rows are read in place, standardized with `standardize` ((x - mean) * scale; a raw
    all-zero row stays zero) and normalized on the fly. A zero row scores ZERO_SCORE.
    """
    q, kk = ids.shape
    out = np.empty((q, kk))
    for r in range(q):
        for t in range(kk):
            i = ids[r, t]
            out[r, t] = -np.inf if i < 0 else _cosine(X[i], Q[r], mean, scale, standardize)
    return out
