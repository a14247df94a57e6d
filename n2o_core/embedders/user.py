"""Embedders a dashboard user brings: model specs typed in the app (`st:`, `hf:…@pooling`, `wv:`), vectors
uploaded as a file (`vec:` ids, kept in the cache), which family group each embedder belongs to, and the rule
that decides which of them a shared link may name.

**Which specs a link may carry** (a URL must never make a server read one of its files):

- a model *name* (`st:` / `hf:` followed by something that is not a local path, e.g. `st:org/model`) always: it
  is looked up in the Hugging Face cache (or on the hub when online), never as a file of the server's choosing;
- a *local path* (absolute, `~`, `./`, `../`, or anything that exists relative to the server's folder; `wv:` is
  always a path): when `$N2O_MODEL_DIRS` is set (folders separated by `os.pathsep`), only paths that resolve,
  symbolic links followed, inside one of those folders, whether typed in the app or named by a link; when it is
  not set (a personal server), a path may be typed in the app, and a link may name it only after that same spec
  was added on this server process (the server remembers the specs typed into it until it restarts);
- uploaded vectors by their id `vec:<label>-<digest>`: the file itself stays in the server's cache, a link only
  names it, and it is used only with the corpus it was uploaded for.

On a **shared server** (`N2O_SHARED=1`, `n2o_core.runtime.server_mode`) a local path is used only under
`$N2O_MODEL_DIRS` (none when it is unset: typing a path is no exception), and model or dataset *names* only when
the operator turned the hub on (`N2O_HUB=1`).

Everything here is checked before any model is loaded or anything is embedded; refusals are one sentence.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np

from n2o_core.errors import EmbedderError, N2OError
from n2o_core.runtime import server_mode
from n2o_core.storage.cache import Cache

__all__ = [
    "MODEL_DIRS_ENV",
    "SPEC_PREFIXES",
    "VECTOR_EXTENSIONS",
    "VECTOR_PREFIX",
    "dataset_link_refusal",
    "family_group_of",
    "family_slots",
    "is_local",
    "is_vectors_id",
    "link_refusal",
    "model_dirs",
    "parse_spec",
    "read_vectors",
    "save_vectors",
    "spec_target",
    "typed_refusal",
    "vectors_corpus",
    "vectors_file",
    "vectors_label",
]

#: Prefixes of model specs a user may type (see `n2o_core.embedders.registry`).
SPEC_PREFIXES = ("st:", "hf:", "wv:")
#: Environment variable: folders (os.pathsep-separated) whose models and word-vector files may be used.
MODEL_DIRS_ENV = "N2O_MODEL_DIRS"
#: Id prefix of vectors uploaded in the dashboard.
VECTOR_PREFIX = "vec:"
#: File types accepted for uploaded vectors.
VECTOR_EXTENSIONS = (".npy", ".npz", ".parquet")
#: Array names tried, in order, in an .npz holding several arrays.
NPZ_KEYS = ("embeddings", "vectors", "X", "arr_0")
_MAX_SPEC = 500
_VEC_ID = re.compile(r"^vec:([A-Za-z0-9_.-]{1,40})-([0-9a-f]{10})$")
_POOLINGS = ("cls", "mean", "max", "last")


# --------------------------------------------------------------------------- model specs


def parse_spec(text: str) -> str:
    """A typed model spec, checked for its form only (nothing is read): `st:NAME_OR_PATH`,
    `hf:NAME_OR_PATH@cls|mean|max|last` or `wv:FILE[@nostop]`. Returns it trimmed; EmbedderError otherwise."""
    spec = str(text or "").strip()
    if not spec:
        raise EmbedderError(
            "Type a model: st:NAME_OR_FOLDER, hf:NAME_OR_FOLDER@mean (or @cls, @max, @last) or wv:FILE."
        )
    if len(spec) > _MAX_SPEC or any(ord(c) < 32 for c in spec):
        raise EmbedderError("A model spec is one line of at most 500 characters.")
    prefix, colon, rest = spec.partition(":")
    if not colon or f"{prefix}:" not in SPEC_PREFIXES:
        raise EmbedderError(
            f"'{spec[:80]}' does not start with st:, hf: or wv: (st:NAME_OR_FOLDER for a sentence-transformers "
            "model, hf:NAME_OR_FOLDER@mean for any Hugging Face encoder, wv:FILE for word vectors)."
        )
    rest = rest.strip()
    if not rest:
        raise EmbedderError(f"'{spec}' names no model or file after '{prefix}:'.")
    if prefix == "hf":
        name, at, pooling = rest.rpartition("@")
        if not at or not name.strip():
            raise EmbedderError(f"'{spec[:80]}' needs a pooling: hf:NAME_OR_FOLDER@cls, @mean, @max or @last.")
        if pooling.strip().lower() not in _POOLINGS:
            raise EmbedderError(f"Unknown pooling '@{pooling}' in '{spec[:80]}'; use @cls, @mean, @max or @last.")
        rest = f"{name.strip()}@{pooling.strip().lower()}"
    return f"{prefix}:{rest}"


def spec_target(spec: str) -> str:
    """The model name or path of a spec (without `@pooling` / `@nostop`)."""
    prefix, _, rest = spec.partition(":")
    rest = rest.strip()
    if prefix == "hf":
        return rest.rpartition("@")[0].strip() or rest
    if prefix == "wv":
        path, at, option = rest.rpartition("@")
        return path.strip() if at and option.strip().lower() == "nostop" and path.strip() else rest
    return rest


def is_local(spec: str) -> bool:
    """Whether a spec names a file or folder on the server (always for wv:; for st:/hf: a path-like target or one
    that exists relative to the current folder) rather than a model name."""
    if spec.startswith("wv:"):
        return True
    target = spec_target(spec)
    if target.startswith(("/", "~", ".", "\\")):
        return True
    try:
        return Path(target).expanduser().exists()
    except OSError:
        return True


def model_dirs(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The folders of $N2O_MODEL_DIRS (or the server's config file), resolved (empty when it is not set)."""
    raw = server_mode.server_environ(environ).get(MODEL_DIRS_ENV, "")
    return tuple(Path(p).expanduser().resolve() for p in raw.split(os.pathsep) if p.strip())


def _inside(target_path: str, dirs: Sequence[Path]) -> bool:
    try:
        target = Path(target_path).expanduser().resolve()
    except (OSError, RuntimeError):
        return False
    return any(target == d or d in target.parents for d in dirs)


def typed_refusal(spec: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Why a spec typed in the app cannot be used (one sentence), or None. Only the form and the path rule are
    checked here; loading the model tells the rest."""
    try:
        spec = parse_spec(spec)
    except EmbedderError as e:
        return str(e)
    if not is_local(spec):
        return _hub_refusal(spec_target(spec), "models", environ)
    dirs = model_dirs(environ)
    if dirs and not _inside(spec_target(spec), dirs):
        return (
            f"This server uses local models only from {', '.join(str(d) for d in dirs)} "
            f"(${MODEL_DIRS_ENV}); '{spec_target(spec)[:80]}' is outside."
        )
    if not dirs and server_mode.shared(environ):
        return _NO_PATHS
    return _file_refusal(spec, Path(spec_target(spec)).expanduser())


_NO_PATHS = (
    f"This shared server reads no files or folders named by a visitor (the operator may list model folders in "
    f"${MODEL_DIRS_ENV}); upload your vectors under Advanced instead."
)


def _hub_refusal(name: str, what: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Why a hub name may not be used on this server (shared, hub off), or None."""
    if server_mode.hub_allowed(environ):
        return None
    return (
        f"This shared server does not fetch {what} from the Hugging Face hub ('{name[:80]}'); "
        f"the operator may allow it with {server_mode.HUB_ENV}=1."
    )


def _file_refusal(spec: str, target: Path) -> str | None:
    """Not found, or not the kind of file system entry the spec needs (a regular file for wv:, a folder else)."""
    shown = str(target)[:120]
    want_file = spec.startswith("wv:")
    kind = "Word-vector file" if want_file else "Model folder"
    if not target.exists():
        return f"{kind} not found on the server: {shown}."
    if want_file and not target.is_file():
        return f"{shown} is not a regular file: a word-vector file is a .txt, .vec or .bin file."
    if not want_file and not target.is_dir():
        return f"{shown} is not a folder: a local model is the folder that holds its config.json."
    if not want_file and not any((target / f).is_file() for f in ("config.json", "modules.json")):
        return f"{shown} holds no config.json: it is not a Hugging Face or sentence-transformers model folder."
    return None


def link_refusal(spec: str, typed: Collection[str] = (), environ: Mapping[str, str] | None = None) -> str | None:
    """Why a link may not name this model spec (one sentence), or None when it may (see the module docstring).
    `typed`: the specs added in the app on this server process."""
    try:
        spec = parse_spec(spec)
    except EmbedderError as e:
        return str(e)
    if not is_local(spec):
        return _hub_refusal(spec_target(spec), "models", environ)
    return _path_rule(spec, spec_target(spec), typed, environ)


def dataset_link_refusal(
    spec: str, typed: Collection[str] = (), environ: Mapping[str, str] | None = None
) -> str | None:
    """The same rule for a Hugging Face dataset corpus `hf:NAME[:CONFIG][@SPLIT]`: a hub name always, a local
    folder or script only under $N2O_MODEL_DIRS or after it was typed on this server (`typed`)."""
    from n2o_core.corpora.specs import parse_hf_spec

    if not spec.startswith("hf:"):
        return f"'{spec[:60]}' is not a Hugging Face dataset (hf:NAME[:CONFIG][@SPLIT])"
    try:
        name = parse_hf_spec(spec[3:])[0]
    except N2OError as e:
        return str(e)
    if not is_local(f"st:{name}"):
        return _hub_refusal(name, "datasets", environ)
    return _path_rule(spec, name, typed, environ)


def _path_rule(key: str, target: str, typed: Collection[str], environ: Mapping[str, str] | None) -> str | None:
    dirs = model_dirs(environ)
    if dirs:
        if _inside(target, dirs):
            return None
        return f"'{target[:200]}' is outside the server's model folders (${MODEL_DIRS_ENV})"
    if server_mode.shared(environ):
        return f"this shared server reads no files or folders named by a visitor (only those under ${MODEL_DIRS_ENV})"
    if key in typed:
        return None
    return (
        f"'{target[:200]}' is a file or folder on the server; a link may name it only after it was added on this "
        f"server, or when it lies under ${MODEL_DIRS_ENV}"
    )


# --------------------------------------------------------------------------- family groups


def family_group_of(eid: str) -> str:
    """The family group (`embedders.base.FAMILY_GROUPS`) of a built-in id, a loaded user spec or a user id by its
    prefix (st:/hf: transformers, wv: static averages, npy:/vec: and other names precomputed)."""
    from n2o_core.embedders.registry import list_embedders

    for info in list_embedders(include_user=True):
        if info.id == eid:
            return info.family_group
    if eid.startswith(("st:", "hf:")):
        return "transformers"
    if eid.startswith("wv:"):
        return "static averages"
    return "precomputed"


def family_slots(names: Sequence[str]) -> dict[str, tuple[str, int]]:
    """(family group, slot) per embedder: built-ins keep the slot of their place in the built-in table (defaults
    first), so an embedder gets the same shade in every figure whichever others are shown; user embedders take
    the next slots of their group in the order given."""
    from n2o_core.embedders.registry import list_embedders

    builtin_slot: dict[str, tuple[str, int]] = {}
    per_group: dict[str, int] = {}
    for info in sorted(list_embedders(), key=lambda i: not i.default):  # defaults first (stable sort)
        builtin_slot[info.id] = (info.family_group, per_group.get(info.family_group, 0))
        per_group[info.family_group] = per_group.get(info.family_group, 0) + 1
    out: dict[str, tuple[str, int]] = {}
    extra: dict[str, int] = {}
    for name in names:
        if name in builtin_slot:
            out[name] = builtin_slot[name]
            continue
        group = family_group_of(name)
        slot = per_group.get(group, 0) + extra.get(group, 0)
        extra[group] = extra.get(group, 0) + 1
        out[name] = (group, slot)
    return out


# --------------------------------------------------------------------------- uploaded vectors


def is_vectors_id(eid: str) -> bool:
    """`vec:<label>-<10 hex digits>`: vectors uploaded in the dashboard."""
    return bool(_VEC_ID.match(eid))


def vectors_label(eid: str) -> str:
    """The label part of a vectors id (the id itself for anything else)."""
    m = _VEC_ID.match(eid)
    return m.group(1) if m else eid


def _label(filename: str) -> str:
    stem = Path(filename).stem if filename else ""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-.")[:40] or "vectors"


def read_vectors(filename: str, raw: bytes) -> np.ndarray:
    """A finite float32 (n, d) matrix from the bytes of an uploaded .npy, .npz (one array, or one named
    embeddings / vectors / X) or .parquet (numeric columns, or one column of equal-length lists); EmbedderError
    with one sentence for anything else (pickles are never read)."""
    name = Path(filename).name or "the file"
    ext = Path(filename).suffix.lower()
    if ext not in VECTOR_EXTENSIONS:
        raise EmbedderError(f"{name}: vectors must be a .npy, .npz or .parquet file.")
    if not raw:
        raise EmbedderError(f"{name} is empty.")
    try:
        if ext == ".npy":
            arr = np.load(io.BytesIO(raw), allow_pickle=False)
        elif ext == ".npz":
            arr = _npz_array(name, raw)
        else:
            arr = _parquet_array(name, raw)
    except EmbedderError:
        raise
    except Exception as e:  # noqa: BLE001 - numpy / pyarrow raise many kinds for a bad file
        first = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        raise EmbedderError(f"{name} is not a readable {ext} array of numbers ({first}).") from None
    return _checked(name, np.asarray(arr))


def _npz_array(name: str, raw: bytes) -> np.ndarray:
    with np.load(io.BytesIO(raw), allow_pickle=False) as z:
        keys = list(z.files)
        if not keys:
            raise EmbedderError(f"{name} holds no array.")
        key = keys[0] if len(keys) == 1 else next((k for k in NPZ_KEYS if k in keys), None)
        if key is None:
            raise EmbedderError(
                f"{name} holds several arrays ({', '.join(keys[:8])}); name the vectors 'embeddings' or keep one."
            )
        return z[key]


def _parquet_array(name: str, raw: bytes) -> np.ndarray:
    import pandas as pd

    df = pd.read_parquet(io.BytesIO(raw))
    if df.shape[1] == 0:
        raise EmbedderError(f"{name} has no columns.")
    if df.shape[1] == 1 and pd.api.types.is_object_dtype(df.dtypes.iloc[0]):
        rows = df.iloc[:, 0].tolist()
        lengths = {len(r) if hasattr(r, "__len__") else -1 for r in rows}
        if len(lengths) != 1 or -1 in lengths:
            raise EmbedderError(
                f"{name}: column '{df.columns[0]}' must hold one list of numbers per row, all of one length."
            )
        return np.array([np.asarray(r) for r in rows])
    types = pd.api.types
    bad = [str(c) for c, t in df.dtypes.items() if not types.is_numeric_dtype(t) or types.is_bool_dtype(t)]
    if bad:
        raise EmbedderError(
            f"{name} has non-numeric column(s) {', '.join(bad[:5])}; keep only the vector's columns "
            "(one per dimension), or one column of lists."
        )
    return df.to_numpy()


def _checked(name: str, arr: np.ndarray) -> np.ndarray:
    """dtype, shape and finiteness checks; float32 out."""
    if arr.dtype.names or arr.dtype == object or arr.dtype.kind not in "fiu":
        kind = "booleans" if arr.dtype.kind == "b" else f"dtype {arr.dtype}"
        raise EmbedderError(f"{name} must hold real numbers (float or int); it holds {kind}.")
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise EmbedderError(f"{name} must be a 2-D array with one row per sentence; its shape is {arr.shape}.")
    out = np.ascontiguousarray(arr, dtype=np.float32)
    bad = np.flatnonzero(~np.isfinite(out).all(axis=1))
    if bad.size:
        raise EmbedderError(
            f"{name} has NaN or infinite values in {bad.size:,} row(s) (first: row {int(bad[0])}); nothing was kept."
        )
    return out


def _rel(digest: str, suffix: str) -> str:
    return f"uploads/vectors/{digest}{suffix}"


def save_vectors(cache: Cache, filename: str, vectors: np.ndarray, corpus_fingerprint: str, n_sentences: int) -> str:
    """Keep checked vectors (`read_vectors`) for one corpus in the cache; returns their id `vec:<label>-<digest>`.
    EmbedderError when the row count is not the corpus's sentence count."""
    name = Path(filename).name or "the file"
    if vectors.shape[0] != n_sentences:
        raise EmbedderError(
            f"{name} has {vectors.shape[0]:,} rows but the corpus has {n_sentences:,} sentences: one row per sentence, "
            "in the corpus's order (Advanced → the corpus's sentences as .txt)."
        )
    h = hashlib.sha256(corpus_fingerprint.encode())
    h.update(str(vectors.shape).encode())
    h.update(np.ascontiguousarray(vectors, np.float32).tobytes())
    digest = h.hexdigest()[:10]
    label = _label(filename)
    if not cache.has(_rel(digest, ".npy")):
        cache.save_dense(_rel(digest, ".npy"), vectors.astype(np.float32), description=f"uploaded vectors {name}")
    cache.save_json(
        _rel(digest, ".meta.json"),
        {
            "label": label,
            "file": name,
            "rows": int(vectors.shape[0]),
            "dim": int(vectors.shape[1]),
            "corpus": corpus_fingerprint,
        },
        description=f"uploaded vectors {name}",
    )
    return f"{VECTOR_PREFIX}{label}-{digest}"


def vectors_file(cache: Cache, eid: str) -> Path | None:
    """The cached .npy of an uploaded-vectors id, or None when it is not (or no longer) in this cache."""
    m = _VEC_ID.match(eid)
    if not m or not cache.has(_rel(m.group(2), ".npy")):
        return None
    return cache.path(_rel(m.group(2), ".npy"))


def vectors_corpus(cache: Cache, eid: str) -> str | None:
    """Fingerprint of the corpus an uploaded-vectors id was uploaded for (None when unknown)."""
    m = _VEC_ID.match(eid)
    if not m:
        return None
    doc = cache.load_json(_rel(m.group(2), ".meta.json"))
    return str(doc.get("corpus")) if isinstance(doc, dict) and doc.get("corpus") else None
