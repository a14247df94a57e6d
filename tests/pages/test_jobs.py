"""ui.jobs.run_with_bars: each call kept as it ends, a failing call said in a sentence while the others go on,
and a job whose process dies gives every call left its sentence (Streamlit calls run bare here)."""

from __future__ import annotations

import math
import os

from n2o_core.runtime.each import each_call
from ui.jobs import run_with_bars


def test_each_result_is_kept_and_a_failure_is_a_sentence(monkeypatch):
    monkeypatch.setenv("N2O_ISOLATE", "0")
    kept: dict[str, float] = {}
    errors = run_with_bars(
        each_call,
        math.sqrt,
        [("four", (4.0,)), ("text", ("x",)), ("nine", (9.0,))],
        names=["four", "text", "nine"],
        what=lambda name: f"Root of {name}",
        keep=lambda name, value: kept.__setitem__(name, value),
    )
    assert kept == {"four": 2.0, "nine": 3.0}
    assert list(errors) == ["text"] and errors["text"].startswith("Root of text")


def test_a_dead_job_process_gives_every_call_left_its_sentence(monkeypatch):
    monkeypatch.setenv("N2O_ISOLATE", "1")
    kept: list[str] = []
    errors = run_with_bars(
        each_call,
        os.abort,
        [("a", ()), ("b", ())],
        names=["a", "b"],
        what=lambda name: f"Call {name}",
        keep=lambda name, _value: kept.append(name),
    )
    assert kept == [] and sorted(errors) == ["a", "b"]
    assert all("stopped unexpectedly" in sentence for sentence in errors.values())
