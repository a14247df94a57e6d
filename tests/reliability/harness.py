"""Shared parts of the fault tests: workloads run in a subprocess (or a fork), killed on purpose, and a scan of
the cache that says which entries are valid, torn (data without a matching sidecar: discarded on the next read)
or left over (temporary files of a killed writer).

"Data lost" = an entry that was valid before a kill and is missing or different after it. "Identical" = the
rerun's output equals the clean run's and every entry of the clean run's cache holds the same values.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
VICTIM = Path(__file__).with_name("_victim.py")
sys.path.insert(0, str(ROOT / "tests"))

from synthetic_text import write_corpus  # noqa: E402

__all__ = ["ROOT", "VICTIM", "Scan", "Workload", "fork_server", "lost_entries", "run_process", "scan", "write_corpus"]

#: What the fork server imports once, so that its children start in a fraction of a second. (A plain fork of
#: the test process is refused by GNU OpenMP once gensim has used it: "fork() called from a process already
#: using GNU OpenMP, this is unsafe".)
_PRELOAD = [
    "n2o_core.storage.cache",
    "n2o_core.cli.main",
    "n2o_core.analyses.compare",
    "n2o_core.corpus_workspace",
    "n2o_core.embedders.registry",
    "n2o_core.embedders.tfidf",
    "n2o_core.embedders.trained_vectors",
    "gensim.models",
]


def fork_server():
    """The multiprocessing context whose children are forked from a server that has imported the tool."""
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


_MAIN = sys.modules["__main__"]  # pytest's, taken before any AppTest ran


def start(proc) -> None:
    """`proc.start()` with pytest's __main__ in place: Streamlit's script runner (AppTest) leaves app.py's module
    in sys.modules["__main__"], and a multiprocessing child would run app.py again to rebuild its __main__."""
    current = sys.modules.get("__main__")
    sys.modules["__main__"] = _MAIN
    try:
        proc.start()
    finally:
        if current is not None:
            sys.modules["__main__"] = current


_DATA_SUFFIXES = (".npy", ".npz", ".json")
# timings in the outputs: the only values allowed to differ between a clean run and a rerun
_TIMING_KEYS = {"pairs_seconds", "embedder_seconds", "seconds"}


# ------------------------------------------------------------------------------------------------ cache scan


@dataclass
class Scan:
    """What a cache folder holds."""

    valid: dict[str, str] = field(default_factory=dict)  # entry -> digest of its values
    torn: list[str] = field(default_factory=list)  # data without a matching sidecar (never served)
    leftovers: list[str] = field(default_factory=list)  # temporary files / folders of killed writers
    manifest_ok: bool = True


def _value_digest(p: Path) -> str:
    h = hashlib.sha256()
    if p.suffix == ".npy":
        a = np.load(p, allow_pickle=False)
        h.update(str((a.shape, a.dtype.str)).encode() + np.ascontiguousarray(a).tobytes())
    elif p.suffix == ".npz":  # zip members carry timestamps: compare the arrays
        with np.load(p, allow_pickle=False) as z:
            for k in sorted(z.files):
                a = z[k]
                h.update(k.encode() + str((a.shape, a.dtype.str)).encode() + np.ascontiguousarray(a).tobytes())
    else:
        h.update(json.dumps(json.loads(p.read_text(encoding="utf-8")), sort_keys=True).encode())
    return h.hexdigest()


def scan(cache_dir: str | os.PathLike) -> Scan:
    """Classify every file of a cache folder (read-only: nothing is repaired or removed)."""
    from n2o_core.storage.cache import Cache
    from n2o_core.storage.manifest_folder import read_manifest

    root = Path(cache_dir)
    out = Scan()
    if not root.exists():
        return out
    c = Cache(root)
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        parts = p.relative_to(root).parts
        if p.name.startswith(".") and (p.name.endswith(".tmp") or p.name.startswith(".tmp-")):
            out.leftovers.append(rel)
            continue
        if parts[0] == "locks" or any(q.startswith(".tmp-") for q in parts[:-1]):
            continue
        if parts[0] == "models":
            if p.is_dir() and len(parts) == 3 and parts[1].startswith("state-"):
                if read_manifest(p) is not None:
                    files = json.loads((p / "manifest.json").read_text())["files"]
                    out.valid[rel] = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
                else:
                    out.torn.append(rel)
            continue
        if not p.is_file() or rel == "manifest.json" or p.name.startswith(".write-test-"):
            continue
        stem = p.with_name(p.name[: -len(".json")]) if p.name.endswith(".json") else None
        if stem is not None and stem.suffix in _DATA_SUFFIXES:  # a sidecar: judged with its data file
            if not stem.exists():
                out.torn.append(rel)  # a sidecar without data (never served)
            continue
        if p.suffix not in _DATA_SUFFIXES:
            continue
        if c.has(rel):
            out.valid[rel] = _value_digest(p)
        else:
            out.torn.append(rel)
    m = root / "manifest.json"
    if m.exists():
        try:
            out.manifest_ok = isinstance(json.loads(m.read_text()), dict)
        except ValueError:
            out.manifest_ok = False
    return out


def lost_entries(before: Scan, after: Scan) -> list[str]:
    """Entries valid before that are missing or changed after."""
    return [rel for rel, d in before.valid.items() if after.valid.get(rel) != d]


# ------------------------------------------------------------------------------------------------ processes


@dataclass
class Run:
    rc: int | None
    killed: bool
    seconds: float
    stderr: str


def run_process(cmd: list[str], env: dict[str, str], *, kill_after: float | None = None, timeout: float = 900) -> Run:
    """Run `cmd` in its own process group; SIGKILL the group after `kill_after` seconds when it still runs."""
    t0 = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=null, stderr=subprocess.PIPE, start_new_session=True, text=True
        )
        killed = False
        try:
            if kill_after is not None:
                try:
                    proc.wait(timeout=kill_after)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    killed = True
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
            raise
    rc = proc.returncode
    return Run(rc, killed or rc == -signal.SIGKILL, time.monotonic() - t0, err or "")


def strip_timings(obj):
    """A JSON document without its timing fields."""
    if isinstance(obj, dict):
        return {k: strip_timings(v) for k, v in obj.items() if k not in _TIMING_KEYS}
    if isinstance(obj, list):
        return [strip_timings(v) for v in obj]
    return obj


@dataclass
class Workload:
    """One command of the tool, run against a cache folder, whose output must not depend on interruptions."""

    name: str
    corpus: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    def command(self, cache_dir: Path, out: Path) -> list[str]:
        py, v, c = sys.executable, str(VICTIM), str(self.corpus)
        if self.name == "compare":
            emb = ["--embedder", "tfidf", "--embedder", "glove-6b-50d", "--embedder", "word2vec"]
            emb += ["--embedder", "fasttext"]
            return [
                py,
                v,
                "cli",
                "compare",
                "--corpus",
                c,
                *emb,
                "--k",
                "10",
                "--queries",
                "30",
                "--samples",
                "2",
                "--cache-dir",
                str(cache_dir),
                "--json",
                str(out),
            ]
        if self.name == "heros":
            return [
                py,
                v,
                "cli",
                "heros",
                "--corpus",
                c,
                "--embedder",
                "tfidf",
                "--embedder",
                "word2vec",
                "--pairs",
                "20",
                "--n-boot",
                "100",
                "--cache-dir",
                str(cache_dir),
                "--json",
                str(out),
            ]
        if self.name == "app":
            return [py, v, "app", c, str(cache_dir), str(out)]
        raise ValueError(self.name)

    def env(self, **more: str) -> dict[str, str]:
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        env.pop("N2O_TEST_KILL_AT_REPLACE", None)
        if self.name == "app":
            env.update(
                N2O_DEFAULT_EMBEDDERS="tfidf,glove-6b-50d,word2vec,fasttext",
                N2O_DEFAULT_QUERIES="30",
                N2O_DEFAULT_SAMPLES="2",
                # the background preload (ui/preload.py) may or may not reach the every-sentence search before the
                # process ends, so a rerun's cache could hold one entry more than the clean run's: off, as in the
                # other app tests, so that both runs do the same work
                N2O_PRELOAD="0",
            )
        env.update(self.extra_env)
        env.update(more)
        return env

    def result(self, out: Path):
        """The run's output without timings (None when it wrote none)."""
        if not out.exists():
            return None
        return strip_timings(json.loads(out.read_text(encoding="utf-8")))
