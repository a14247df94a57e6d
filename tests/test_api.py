"""The Python API's face (`import n2o_core as n2o`): names that stay what they say after any import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import n2o_core as n2o
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import EmbedderError


def test_workspace_returns_the_workspace_with_the_vectors_registered(tmp_path):
    vectors = np.arange(12, dtype=np.float32).reshape(3, 4)
    ws = n2o.workspace(["one cat", "two dogs", "three birds"], [("mine", vectors)], cache_dir=str(tmp_path))
    assert isinstance(ws, Workspace)
    assert list(ws.corpus.texts) == ["one cat", "two dogs", "three birds"]
    assert ws.is_precomputed("mine") and not ws.is_precomputed("tfidf")
    np.testing.assert_array_equal(np.asarray(ws.embeddings("mine")), vectors)
    # a Workspace given in place of a corpus takes more vectors (its own cache, its own corpus)
    assert n2o.workspace(ws, {"more": vectors[::-1]}) is ws and ws.is_precomputed("more")
    np.testing.assert_array_equal(np.asarray(ws.embeddings("more")), vectors[::-1])
    with pytest.raises(EmbedderError):
        n2o.workspace(["one cat", "two dogs"], ["no-such-embedder"], cache_dir=str(tmp_path))


def test_the_api_function_survives_importing_every_core_module():
    """`n2o.workspace` was hidden by a module of the same name (n2o_core/workspace.py) once anything imported it."""
    modules = sorted(p.stem for p in Path(n2o.__file__).parent.glob("*.py") if p.stem not in {"__init__", "__main__"})
    code = (
        "import importlib, n2o_core as n2o\n"
        f"for m in {modules!r}: importlib.import_module('n2o_core.' + m)\n"
        "print([name for name in n2o.__all__ if name != '__version__' and not callable(getattr(n2o, name))])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
