"""A process for the fault tests to kill or to count: the CLI, the app's data path or the Streamlit server,
with two instruments switched on by environment variables (nothing else differs from a normal run).

    python tests/reliability/_victim.py cli compare --corpus ... --json OUT
    python tests/reliability/_victim.py app CORPUS CACHE_DIR OUT.json
    python tests/reliability/_victim.py streamlit run app.py --server.headless true ...

- N2O_TEST_KILL_AT_REPLACE="N:before" / "N:after": SIGKILL this process at its N-th os.replace (1-based), just
  before or just after it. Every commit point of the tool is an os.replace: a cache entry's data, its sidecar,
  the manifest, a fitted model's state folder, the CLI's --json file.
- N2O_TEST_ENCODE_LOG=FILE: append "pid embedder-id corpus-fingerprint" to FILE each time a corpus is embedded
  (Workspace._encode), to check that concurrent sessions compute an embedder once.
- N2O_TEST_REPLACE_LOG=FILE: append the target path of every os.replace (to list the commit points).

`app` runs app.py under Streamlit's AppTest on a link to a kept upload of CORPUS (the upload is stored in the
cache first, as the sidebar does), then writes {"exceptions", "errors", "neighbors": {embedder: sha256 of the
ids and cosines}} to OUT.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _instrument() -> None:
    kill = os.environ.get("N2O_TEST_KILL_AT_REPLACE", "")
    replace_log = os.environ.get("N2O_TEST_REPLACE_LOG", "")
    if kill or replace_log:
        n_at, _, when = kill.partition(":")
        target = int(n_at) if n_at else 0
        real = os.replace
        count = [0]
        lock = threading.Lock()

        def replace(src, dst, *a, **kw):
            # The tool commits from several threads (embedders run side by side): each call takes its own number
            # under a lock, so "after" tests this call's number, not a count another thread has moved on since.
            with lock:
                count[0] += 1
                n = count[0]
                if replace_log:
                    with open(replace_log, "a", encoding="utf-8") as f:
                        f.write(f"{n}\t{dst}\n")
            if n == target and when == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            out = real(src, dst, *a, **kw)
            if n == target and when != "before":
                os.kill(os.getpid(), signal.SIGKILL)
            return out

        os.replace = replace  # fileio.atomic_write and storage/manifest_folder.py call os.replace through the module
    log = os.environ.get("N2O_TEST_ENCODE_LOG", "")
    if log:
        from n2o_core.corpus_workspace import Workspace

        real_encode = Workspace._encode

        def _encode(self, eid, progress):
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"{os.getpid()} {eid} {self.corpus.fingerprint}\n")
            return real_encode(self, eid, progress)

        Workspace._encode = _encode


def _digest(*arrays) -> str:
    import numpy as np

    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.shape, a.dtype.str)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _session_failures(at) -> dict:
    """The failures the app remembered for this AppTest session (`ui.failures`, per visitor)."""
    from ui.failures import STATE_KEY

    try:
        return dict(at.session_state[STATE_KEY])
    except KeyError:
        return {}


def run_app(corpus: str, cache_dir: str, out: str) -> int:
    """The dashboard's data path: keep the corpus as an upload, open the app on its link, record the results."""
    os.environ["N2O_CACHE_DIR"] = cache_dir
    os.chdir(ROOT)
    from streamlit.testing.v1 import AppTest

    from n2o_core.corpora import load_file, save_upload
    from n2o_core.storage.cache import Cache

    spec = save_upload(Cache(cache_dir), load_file(corpus))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["corpus"] = spec
    at.run()
    from ui import n2o_runs

    memo = n2o_runs._memo()
    doc = {
        "spec": spec,
        "exceptions": [str(e.value) for e in at.exception],
        "errors": sorted(str(e.value) for e in at.error),
        "failed": sorted(str(v) for v in _session_failures(at).values()),
        "neighbors": {str(key[1]): _digest(nb.ids, nb.sims) for key, nb in sorted(memo["neighbors"].items())},
    }
    from n2o_core.storage.fileio import atomic_write_text

    atomic_write_text(out, json.dumps(doc, indent=1, sort_keys=True))
    return 0 if not doc["exceptions"] else 1


def main(argv: list[str]) -> int:
    _instrument()
    mode, rest = argv[0], argv[1:]
    if mode == "cli":
        from n2o_core.cli.main import main as cli_main

        return cli_main(rest)
    if mode == "app":
        return run_app(*rest)
    if mode == "streamlit":
        from streamlit.web.cli import main as st_main

        sys.argv = ["streamlit", *rest]
        return st_main()
    raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
