"""How the dashboard's server is run: a personal server (the default) or a shared server (`N2O_SHARED=1`), and
the operator's switches that go with it. No Streamlit; the dashboard and `embedders.user` ask here.

Every switch is an environment variable; the same keys may also be written in a TOML file (`$N2O_CONFIG`, else
`.streamlit/n2o.toml` in the folder the server starts in), e.g. `N2O_SHARED = true`, `N2O_MODEL_DIRS =
["/srv/models"]`. An environment variable wins over the file. See docs/deploy.md.

- `N2O_SHARED=1`: a shared server. Server paths (wv: files, st:/hf: model folders, hf: dataset folders) only
  under `$N2O_MODEL_DIRS` (none when it is unset); hub models and datasets off unless `N2O_HUB=1`; no Dask
  field in the sidebar (only the operator's `N2O_DASK_SCHEDULER`, if set, is used); uploads capped by
  `N2O_MAX_UPLOAD_MB` and the sentence caps of `n2o_core.limits`; heavy jobs run in child processes that exit
  when done (`N2O_ISOLATE`, `runtime.child`), so the server's memory does not keep what they loaded.
- Not set (a personal server): local paths may be typed; the hub is on; the sidebar has a Dask scheduler field.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "CONFIG_ENV",
    "DEFAULT_CONFIG",
    "DEFAULT_MAX_UPLOAD_MB",
    "HUB_ENV",
    "ISOLATE_ENV",
    "MAX_UPLOAD_ENV",
    "SCHEDULER_ENVS",
    "SHARED_ENV",
    "config_values",
    "hub_allowed",
    "isolate_jobs",
    "operator_scheduler",
    "server_environ",
    "shared",
    "upload_limit_mb",
]

SHARED_ENV = "N2O_SHARED"
HUB_ENV = "N2O_HUB"
#: The operator's Dask scheduler (the first set wins; N2O_SCHEDULER is the older name).
SCHEDULER_ENVS = ("N2O_DASK_SCHEDULER", "N2O_SCHEDULER")
MAX_UPLOAD_ENV = "N2O_MAX_UPLOAD_MB"
ISOLATE_ENV = "N2O_ISOLATE"
CONFIG_ENV = "N2O_CONFIG"
DEFAULT_CONFIG = Path(".streamlit") / "n2o.toml"
#: The largest upload (corpus file or vectors) when N2O_MAX_UPLOAD_MB is not set, in MB (10^6 bytes).
DEFAULT_MAX_UPLOAD_MB = 50
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@functools.lru_cache(maxsize=8)
def _read_config(path: str, mtime_ns: int) -> dict[str, str]:
    """The N2O_* keys of a TOML file, as environment-variable strings (lists joined with os.pathsep)."""
    try:
        tomllib = importlib.import_module("tomllib")
    except ModuleNotFoundError:  # Python 3.10
        raise RuntimeError(
            f"The server's config file {path} needs Python 3.11 or later; set environment variables instead."
        ) from None
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    out: dict[str, str] = {}
    for key, value in doc.items():
        if not key.startswith("N2O_"):
            continue
        if isinstance(value, bool):
            out[key] = "1" if value else "0"
        elif isinstance(value, list):
            out[key] = os.pathsep.join(str(v) for v in value)
        else:
            out[key] = str(value)
    return out


def config_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The N2O_* keys of the config file ($N2O_CONFIG, else .streamlit/n2o.toml when it exists); {} without one.
    A file that cannot be read is an error (an operator's typo must not silently open the server)."""
    env = os.environ if environ is None else environ
    path = Path(env.get(CONFIG_ENV, "").strip() or DEFAULT_CONFIG).expanduser()
    if not path.is_file():
        if env.get(CONFIG_ENV, "").strip():
            raise RuntimeError(f"${CONFIG_ENV} names {path}, which is not a file.")
        return {}
    try:
        return dict(_read_config(str(path.resolve()), path.stat().st_mtime_ns))
    except ValueError as e:  # tomllib.TOMLDecodeError
        raise RuntimeError(f"The server's config file {path} is not valid TOML ({e}).") from None
    except OSError as e:
        raise RuntimeError(f"The server's config file {path} is not valid TOML ({type(e).__name__}).") from None


def server_environ(environ: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """The environment with the config file's keys below it (a variable that is set wins). With an explicit
    `environ` (tests) only `environ` counts, plus the file it names in N2O_CONFIG."""
    env = os.environ if environ is None else environ
    if environ is not None and not env.get(CONFIG_ENV, "").strip():
        return env
    return {**config_values(env), **env}


def _flag(value: str | None, default: bool) -> bool:
    v = (value or "").strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    return default


def shared(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this is a shared server (N2O_SHARED=1)."""
    return _flag(server_environ(environ).get(SHARED_ENV), False)


def hub_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether visitors may name hub models and datasets (N2O_HUB; default: on, off on a shared server)."""
    env = server_environ(environ)
    return _flag(env.get(HUB_ENV), not _flag(env.get(SHARED_ENV), False))


def isolate_jobs(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the dashboard runs its heavy jobs (embedding a corpus, HEROS pairs, probing, the measures, ...) in
    child processes that exit when done (N2O_ISOLATE; default: on for a shared server, off for a personal one)."""
    env = server_environ(environ)
    return _flag(env.get(ISOLATE_ENV), _flag(env.get(SHARED_ENV), False))


def operator_scheduler(environ: Mapping[str, str] | None = None) -> str:
    """The Dask scheduler the operator configured ('' when none)."""
    env = server_environ(environ)
    return next((env[k].strip() for k in SCHEDULER_ENVS if env.get(k, "").strip()), "")


def upload_limit_mb(environ: Mapping[str, str] | None = None) -> int:
    """The largest upload in MB (N2O_MAX_UPLOAD_MB, default 50; at least 1)."""
    raw = server_environ(environ).get(MAX_UPLOAD_ENV, "").strip()
    try:
        return max(1, int(float(raw))) if raw else DEFAULT_MAX_UPLOAD_MB
    except ValueError:
        return DEFAULT_MAX_UPLOAD_MB
