"""heavy_imports(): a library that looks at another one mid-import (scipy reading torch.Tensor while torch imports in
another thread) sees it whole when both imports go through the lock; without it, it sees a partial module."""

from __future__ import annotations

import sys
import threading
import uuid

import pytest

from n2o_core.runtime.import_lock import heavy_imports


def _modules(tmp_path):
    """A slow module that defines `Tensor` last, and one that reads it at import time (like scipy's helpers)."""
    tag = uuid.uuid4().hex[:8]
    slow, reader = f"slowlib_{tag}", f"readerlib_{tag}"
    (tmp_path / f"{slow}.py").write_text("import time\ntime.sleep(0.6)\nTensor = object\n")
    reads = f"import sys\nif '{slow}' in sys.modules:\n    sys.modules['{slow}'].Tensor\n"
    (tmp_path / f"{reader}.py").write_text(reads)
    return slow, reader


def _race(tmp_path, locked: bool) -> BaseException | None:
    slow, reader = _modules(tmp_path)
    started = threading.Event()
    errors: list[BaseException] = []

    def first() -> None:
        with heavy_imports():
            started.set()
            __import__(slow)

    def second() -> None:
        started.wait(5)
        try:
            if locked:
                with heavy_imports():
                    __import__(reader)
            else:
                __import__(reader)
        except BaseException as exc:  # noqa: BLE001 - the error is the result
            errors.append(exc)

    sys.path.insert(0, str(tmp_path))
    try:
        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    finally:
        sys.path.remove(str(tmp_path))
        for name in (slow, reader):
            sys.modules.pop(name, None)
    return errors[0] if errors else None


def test_without_the_lock_a_reader_sees_a_partial_module(tmp_path):
    """The hazard itself (so the next test can fail): no lock, the reader meets the half-imported module."""
    error = _race(tmp_path, locked=False)
    assert isinstance(error, AttributeError) and "Tensor" in str(error)


def test_with_the_lock_the_reader_waits_for_the_whole_module(tmp_path):
    assert _race(tmp_path, locked=True) is None


@pytest.mark.parametrize(
    "module",
    [
        "n2o_core.embedders.trained_vectors",
        "n2o_core.embedders._onnx",
        "n2o_core.embedders.sbert",
        "n2o_core.analyses.overlap",
    ],
)
def test_the_packages_heavy_imports_go_through_the_lock(module):
    """The modules whose imports ran side by side on a cold start import torch, gensim or scipy.stats under it."""
    import importlib
    import inspect

    source = inspect.getsource(importlib.import_module(module))
    assert "with heavy_imports():" in source


def test_openvino_imports_without_its_telemetry():
    """`import openvino` sends a telemetry event from a forked process (which can hang in a threaded server and
    holds ~400 MB); openvino_import hides the telemetry package, so OpenVINO uses its stub and forks nothing."""
    import subprocess
    import sys

    import pytest

    pytest.importorskip("openvino")
    code = (
        "import multiprocessing, sys\n"
        "from n2o_core.runtime.import_lock import openvino_import\n"
        "ov = openvino_import()\n"
        "ov.Core()\n"
        "print('openvino_telemetry' in sys.modules, len(multiprocessing.active_children()))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["False", "0"]


def test_a_hidden_library_is_refused_in_its_thread_and_absent_for_the_others(tmp_path):
    """`hidden` refuses the import in its block, in its own thread; another thread that only asks `sys.modules`
    whether the library is there (as scipy's array-API helpers ask about torch, at import and on every call) finds
    it absent (the None entry `hidden` once put there failed a page's `import scipy.stats`: "'NoneType' object has
    no attribute 'Tensor'", while another visitor's page loaded spaCy), and can import it."""
    from n2o_core.runtime.import_lock import hidden

    slow, reader = _modules(tmp_path)  # `reader` reads sys.modules[slow].Tensor when the key is there
    inside, leave = threading.Event(), threading.Event()
    refused: list[BaseException] = []
    errors: list[BaseException] = []

    def holder() -> None:
        with hidden(slow):
            try:
                __import__(slow)
            except ImportError as exc:
                refused.append(exc)
            inside.set()
            leave.wait(10)

    sys.path.insert(0, str(tmp_path))
    t = threading.Thread(target=holder)
    try:
        t.start()
        assert inside.wait(10)
        assert len(refused) == 1 and slow not in sys.modules
        try:
            __import__(reader)
            assert __import__(slow).Tensor is object  # this thread hides nothing
        except BaseException as exc:  # noqa: BLE001 - the error is the result
            errors.append(exc)
    finally:
        leave.set()
        t.join(10)
        sys.path.remove(str(tmp_path))
        for name in (slow, reader):
            sys.modules.pop(name, None)
    assert errors == []


def test_hidden_leaves_the_finder_list_as_it_is():
    """importlib walks the live `sys.meta_path` list: taking a finder out while another thread's import walks it
    skips the next finder (PathFinder, for the last one before it), so `hidden` never adds or removes one."""
    from n2o_core.runtime.import_lock import hidden

    before = list(sys.meta_path)
    with hidden("a_library_nobody_imports"):
        assert sys.meta_path == before
        with pytest.raises(ImportError):
            __import__("a_library_nobody_imports")
    assert sys.meta_path == before
