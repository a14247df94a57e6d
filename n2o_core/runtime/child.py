"""Run one job in a child process that exits when the job is done, so the memory it took (embedding models,
WordNet, spaCy, a measure's arrays, numba's compiled code) goes back to the system. A long-running server keeps
what it once allocated (the heap does not shrink back, and modules stay imported); a child gives back all of it.

`run(fn, *args, callbacks={"progress": cb}, **kwargs)` calls `fn(*args, progress=<relay>, **kwargs)` in a fresh
`python -m n2o_core.runtime.child` and returns its result. The job and its arguments travel pickled over the
child's stdin (a `Workspace` pickles as its corpus, cache folder and registered vectors: the child opens the same
disk cache, so what it computes is there for the parent too); each callback call in the child (a progress bar's
step) and each `notices.notify` sentence is sent back and replayed in the calling thread, in order; the result,
or the job's exception, comes back last. The child writes its log to the server's stderr.

Jobs run at most `MAX_CHILDREN` at a time per server (a further one waits for a slot). A child that dies (killed
for memory, a crash) raises `N2OError` saying so, with the exit status in the server log; leaving the call
early (the visitor moved on: Streamlit stops the script) kills the child, and on Linux a child ends with the
server that started it.

Whether the dashboard isolates its jobs: `isolating()` ($N2O_ISOLATE; default: on for a shared server, where
memory is shared by every visitor; off for a personal one, where models stay loaded between clicks).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

from n2o_core.errors import N2OError
from n2o_core.runtime.notices import listen, notify
from n2o_core.runtime.server_mode import isolate_jobs

__all__ = ["MAX_CHILDREN", "call", "isolating", "run"]

log = logging.getLogger("n2o_core")
T = TypeVar("T")

#: Jobs running in children at once (one server); a further job waits for a slot.
MAX_CHILDREN = 2
_SLOTS = threading.BoundedSemaphore(MAX_CHILDREN)
_HEADER = struct.Struct("!Q")
_PR_SET_PDEATHSIG = 1


def isolating() -> bool:
    """Whether the dashboard runs its heavy jobs in child processes ($N2O_ISOLATE, default: on when shared)."""
    return isolate_jobs()


def _send(stream: IO[bytes], message: object) -> None:
    blob = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(blob)) + blob)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    size = _HEADER.unpack(head)[0]
    blob = stream.read(size)
    if len(blob) < size:
        raise EOFError
    return pickle.loads(blob)  # noqa: S301 - our own child's messages, over its own pipe


def _child_env() -> dict[str, str]:
    """The server's environment, with the folder holding n2o_core first on the child's import path."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    return env


def run(
    fn: Callable[..., T], *args: Any, callbacks: Mapping[str, Callable[..., Any]] | None = None, **kwargs: Any
) -> T:
    """`fn(*args, **callbacks, **kwargs)` in a child process (see the module docstring); `fn` must be a
    module-level function, the arguments and the result picklable."""
    callbacks = dict(callbacks or {})
    request = pickle.dumps((fn, args, kwargs, sorted(callbacks)), protocol=pickle.HIGHEST_PROTOCOL)
    name = getattr(fn, "__qualname__", repr(fn))
    with _SLOTS:
        proc = subprocess.Popen(  # noqa: S603 - this interpreter, our own module
            [sys.executable, "-m", "n2o_core.runtime.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=_child_env(),
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(request)
            proc.stdin.close()
            while True:
                try:
                    kind, *body = _receive(proc.stdout)
                except EOFError:
                    code = proc.wait()
                    log.error("the child process running %s stopped with exit status %s", name, code)
                    raise N2OError(
                        "The background process doing this work stopped unexpectedly (out of memory, or it "
                        "crashed); the server log has its exit status."
                    ) from None
                if kind == "callback":
                    key, a, kw = body
                    callbacks[key](*a, **kw)
                elif kind == "notice":
                    notify(body[0])
                elif kind == "result":
                    return body[0]  # type: ignore[no-any-return]
                elif kind == "error":
                    raise body[0]
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()


def call(
    fn: Callable[..., T],
    *args: Any,
    callbacks: Mapping[str, Callable[..., Any]] | None = None,
    isolate: bool | None = None,
    **kwargs: Any,
) -> T:
    """`fn(*args, **callbacks, **kwargs)`: in a child process (`run`) when isolating (default: `isolating()`),
    else in this process. The dashboard calls its heavy jobs through here."""
    if isolate if isolate is not None else isolating():
        return run(fn, *args, callbacks=callbacks, **kwargs)
    return fn(*args, **dict(callbacks or {}), **kwargs)


def _portable(e: BaseException) -> BaseException:
    """The exception itself when it survives pickling, else an N2OError with its sentence (same message)."""
    try:
        pickle.loads(pickle.dumps(e))  # noqa: S301 - round trip of our own object
        return e
    except Exception:  # noqa: BLE001 - any exception must come back
        return N2OError(str(e) or type(e).__name__)


def _die_with_parent() -> None:
    """Linux: have the kernel end this process when the server that started it ends (a stopped server leaves
    no job running); elsewhere a child notices when its next message finds the pipe closed."""
    with contextlib.suppress(Exception):  # best effort: not Linux, or no libc to ask
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() == 1:  # the server ended before the request above
            os._exit(1)


def _main() -> None:
    """The child: read the job, run it with relaying callbacks, send the result or the exception."""
    _die_with_parent()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints go to the log, never into the message stream
    sys.stdout = sys.stderr
    lock = threading.Lock()

    def send(message: object) -> None:
        with lock:
            _send(out, message)

    fn, args, kwargs, keys = pickle.load(sys.stdin.buffer)  # noqa: S301 - from the parent that started us

    def relay(key: str) -> Callable[..., None]:
        def cb(*a: Any, **kw: Any) -> None:  # an exception passed on (a failure event) must survive the trip too
            send(("callback", key, tuple(_portable(x) if isinstance(x, BaseException) else x for x in a), kw))

        return cb

    try:
        with listen(lambda sentence: send(("notice", sentence))):
            result = fn(*args, **{k: relay(k) for k in keys}, **kwargs)
    except BaseException as e:  # noqa: BLE001 - every failure goes back to the parent, which raises it
        what = getattr(fn, "__qualname__", fn)
        if isinstance(e, N2OError):  # a sentence for the user, shown by the page
            log.info("job %s stopped in a child process: %s", what, e)
        else:
            log.exception("job %s failed in a child process", what)
        send(("error", _portable(e)))
    else:
        send(("result", result))
    out.close()


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s child %(process)d %(name)s: %(message)s")
    logging.getLogger("n2o_core").setLevel(logging.INFO)  # our own lines; libraries' chatter only from warnings
    _main()
