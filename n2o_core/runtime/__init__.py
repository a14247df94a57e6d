"""How the engine runs inside a process: heavy imports one at a time, messages to the front end, progress, memos,
memory given back, the server's mode and heavy jobs in child processes. Standard library only; no Streamlit.

with heavy_imports(): import torch                # first imports of heavy libraries, one thread at a time
with listen(show): ...; notify("waiting for ...") # one sentence to the front end while it happens
release_idle(release_after_s())                   # an idle server drops models and lexicons it can load again
shared(), isolate_jobs(), upload_limit_mb()       # N2O_SHARED and the operator's switches (docs/deploy.md)
report(progress, "embed", done, total)            # a long job's progress: one ProgressEvent(stage, item, done, total)
memo = LRU(64)                                    # a bounded process-wide memo
from n2o_core.runtime import child; child.run(fn, *args, callbacks={"progress": cb})   # a job in a child

Modules (server_mode is imported by child, progress by serial_calls; the others import none of their neighbors):
  gcpause      `paused_gc`: the cyclic garbage collector paused around work that builds many containers
  import_lock  `heavy_imports`, `hidden` (a module hidden from a library's optional import), `openvino_import`,
               TELEMETRY_MODULES
  notices      `notify`, `listen`: messages about something slow or degraded, per thread and task
  progress     `ProgressEvent`, `Progress` (the one progress callback: `progress=` everywhere), `report`, `scoped`,
               `prefixed`, `counter`
  memo         `LRU`: the one bounded process-wide memo (docs/architecture.md, "Cache map")
  release      `loaded`, `used`, `registered`, `release_idle`, `release_all`, `release_after_s`, `collect`,
               `trim_heap`, RELEASE_ENV, DEFAULT_RELEASE_AFTER_S
  server_mode  `shared`, `hub_allowed`, `isolate_jobs`, `operator_scheduler`, `upload_limit_mb`, `server_environ`,
               `config_values`, and the environment keys (SHARED_ENV, HUB_ENV, ISOLATE_ENV, ...)
  child        `run`, `call` (a job in a child process that exits when done), `isolating`, MAX_CHILDREN
  serial_calls `each_call`, `each_embedder`, `CallEvent`: one job for several calls, each reported as it ends
  lanes        `Lanes`: embedders prepared on threads that keep every core busy (cheap, training and load lanes)

`child.run` and `child.call` keep their module's name in front (`child.run(...)`): alone, "run" would say too
little, so the face leaves them out. The names below are resolved on first use, so importing one module
(`import n2o_core.runtime.notices`) does not import the others. Inside n2o_core, import from the modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "LRU",
    "MAX_CHILDREN",
    "CallEvent",
    "Progress",
    "ProgressEvent",
    "each_call",
    "each_embedder",
    "heavy_imports",
    "hidden",
    "hub_allowed",
    "isolate_jobs",
    "isolating",
    "listen",
    "loaded",
    "notify",
    "operator_scheduler",
    "paused_gc",
    "release_after_s",
    "release_all",
    "release_idle",
    "server_environ",
    "shared",
    "upload_limit_mb",
    "used",
]

if TYPE_CHECKING:
    from n2o_core.runtime.child import MAX_CHILDREN, isolating
    from n2o_core.runtime.gcpause import paused_gc
    from n2o_core.runtime.import_lock import heavy_imports, hidden
    from n2o_core.runtime.memo import LRU
    from n2o_core.runtime.notices import listen, notify
    from n2o_core.runtime.progress import Progress, ProgressEvent
    from n2o_core.runtime.release import loaded, release_after_s, release_all, release_idle, used
    from n2o_core.runtime.serial_calls import CallEvent, each_call, each_embedder
    from n2o_core.runtime.server_mode import (
        hub_allowed,
        isolate_jobs,
        operator_scheduler,
        server_environ,
        shared,
        upload_limit_mb,
    )

_LAZY = {
    "paused_gc": "gcpause",
    "heavy_imports": "import_lock",
    "hidden": "import_lock",
    "LRU": "memo",
    "Progress": "progress",
    "ProgressEvent": "progress",
    "listen": "notices",
    "notify": "notices",
    "loaded": "release",
    "release_after_s": "release",
    "release_all": "release",
    "release_idle": "release",
    "used": "release",
    "hub_allowed": "server_mode",
    "isolate_jobs": "server_mode",
    "operator_scheduler": "server_mode",
    "server_environ": "server_mode",
    "shared": "server_mode",
    "upload_limit_mb": "server_mode",
    "MAX_CHILDREN": "child",
    "isolating": "child",
    "CallEvent": "serial_calls",
    "each_call": "serial_calls",
    "each_embedder": "serial_calls",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use (keeps `import n2o_core.runtime.notices` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
