"""paused_gc: the collector is off inside the block and back as it was after it, exceptions included."""

from __future__ import annotations

import gc

import pytest

from n2o_core.runtime.gcpause import paused_gc


def test_paused_gc_restores_the_previous_state():
    was = gc.isenabled()
    try:
        gc.enable()
        with paused_gc():
            assert not gc.isenabled()
        assert gc.isenabled()
        with pytest.raises(ValueError), paused_gc():
            raise ValueError("inside")
        assert gc.isenabled()
        gc.disable()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        (gc.enable if was else gc.disable)()
