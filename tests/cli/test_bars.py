"""The CLI's tqdm bars draw the one progress event (`runtime.progress.ProgressEvent`) with the texts they always
had: a bar per (item, stage) labelled "stage item", a bar per stage label for the probing and findings runs, and
the commands' own bars fed by the core's events."""

from __future__ import annotations

import re

from n2o_core.cli import common
from n2o_core.cli.common import ProgressBars, StageBars, measure_bars
from n2o_core.cli.main import main
from n2o_core.runtime.progress import ProgressEvent


def _lines(err: str) -> list[str]:
    return [s.strip() for s in re.split(r"[\r\n]", err) if s.strip()]


def test_progress_bars_label_each_item_and_stage(capsys):
    bars = ProgressBars(width=5)
    bars(ProgressEvent("embed", "glove-6b-50d", 0, 40))
    bars(ProgressEvent("embed", "glove-6b-50d", 40, 40))
    bars(ProgressEvent("rank", "glove-6b-50d", 10, 40))
    bars.close()
    lines = _lines(capsys.readouterr().err)
    assert any(s.startswith("embed glove-6b-50d: 100%") and "40/40" in s for s in lines)
    assert any(s.startswith("rank  glove-6b-50d:") and "10/40" in s for s in lines)


def test_measure_bars_name_the_steps_an_event_leaves_unnamed(capsys):
    bars = measure_bars()
    bars(ProgressEvent("search", "", 1, 3))
    bars(ProgressEvent("measures", "", 0, 12))
    bars(ProgressEvent("measures", "", 12, 12))
    bars.close()
    lines = _lines(capsys.readouterr().err)
    assert any(s.startswith("search    embedders:") and "1/3" in s and "embedder/s" in s for s in lines)
    assert any(s.startswith("measures  (measure x pair): 100%") and "12/12" in s for s in lines)


def test_stage_bars_key_on_the_label_and_leave_out_the_probes_embedder_stage(capsys, monkeypatch):
    monkeypatch.setattr(common, "BAR_DELAY", 0)
    bars = StageBars(common.PROBE_UNITS)
    bars.stages(ProgressEvent("parse", "", 5, 10))
    bars.stages(ProgressEvent("embedder", "tfidf", 1, 10))  # the readouts' own bar covers it
    bars(ProgressEvent("scoring", "glove-6b-50d", 1, 2))  # findings: "scoring glove-6b-50d"
    bars(ProgressEvent("scoring", "minilm-l6-mean", 1, 2))
    bars.close()
    assert set(bars.bars) == {"parse", "scoring glove-6b-50d", "scoring minilm-l6-mean"}
    lines = _lines(capsys.readouterr().err)
    assert any(s.startswith("parse") and "5/10" in s and "sent" in s for s in lines)
    assert not any("embedder" in s for s in lines)


def test_sts_command_draws_the_embedder_being_scored(tmp_path, capsys):
    rc = main(["sts", "--pairs", "builtin:lee", "--embedder", "tfidf", "--cache-dir", str(tmp_path)])
    assert rc == 0
    lines = _lines(capsys.readouterr().err)
    assert any(s.startswith("tfidf:") and "0/1" in s for s in lines)  # the event's item names the embedder
    assert any(s.startswith("embedders: 100%") and "1/1" in s for s in lines)
