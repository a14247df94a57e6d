"""Threads of the heavy libraries: torch uses every core."""

from __future__ import annotations

import os

from n2o_core.runtime.import_lock import heavy_imports

__all__ = ["set_torch_threads"]


def set_torch_threads() -> None:
    """Use every core for torch matmuls (called lazily, after torch is imported)."""
    with heavy_imports():
        import torch

    n = os.cpu_count() or 1
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
