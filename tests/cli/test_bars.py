"""The CLI's tqdm bars: one class (`cli.common.ProgressBars`) draws the one progress event
(`runtime.progress.ProgressEvent`) for every command, set up for what the commands differ in: a bar per (stage,
item) labelled "stage item" (compare, embed, needle, measures...), a bar per stage shown only after a delay with
the readout steps' line (probe, variants), one bar per loop over embedders naming the one on (heros, sts, findings),
each command's bars checked by what they print on stderr."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from n2o_core.cli import common
from n2o_core.cli.common import ProgressBars, findings_bars, measure_bars, probe_with_bars, scoring_bars
from n2o_core.cli.main import main
from n2o_core.evaluation.probe.timing import ReadoutStep
from n2o_core.runtime.progress import ProgressEvent

sys.path.insert(0, str(Path(__file__).parents[1]))
from synthetic_text import write_corpus  # noqa: E402


def _lines(err: str) -> list[str]:
    return [s.strip() for s in re.split(r"[\r\n]", err) if s.strip()]


def test_progress_bars_label_each_item_and_stage(capsys):
    bars = ProgressBars(width=5)
    bars(ProgressEvent("embed", "glove-6b-50d", 0, 40))
    bars(ProgressEvent("embed", "glove-6b-50d", 40, 40))
    bars(ProgressEvent("rank", "glove-6b-50d", 10, 40))
    bars.close()
    lines = _lines(capsys.readouterr().err)
    assert any(s.startswith("embed glove-6b-50d: 100%") and "40/40" in s and "sent" in s for s in lines)
    assert any(s.startswith("rank  glove-6b-50d:") and "10/40" in s for s in lines)


def test_a_bar_opens_for_work_not_done_at_once_takes_the_events_total_and_ignores_events_once_closed(capsys):
    bars = ProgressBars()
    bars(ProgressEvent("embed", "A", 5, 5))  # read from the cache: no bar
    bars(ProgressEvent("search", "B", 1, 10))
    bars(ProgressEvent("search", "B", 3, 12))  # the total grew: the bar follows the event
    bars(ProgressEvent("neighbors", "C", 0, 4))
    bars(ProgressEvent("neighbors", "C", 4, 4))
    bars(ProgressEvent("neighbors", "C", 1, 4))  # a late event of a finished stage: ignored
    assert set(bars.bars) == {"search B", "neighbors C"}
    assert (bars.bars["search B"].n, bars.bars["search B"].total) == (3, 12)
    assert bars.bars["neighbors C"].n == 4 and bars.bars["neighbors C"].disable
    bars.close()
    lines = _lines(capsys.readouterr().err)
    assert not any(s.startswith("embed") for s in lines)
    assert lines[-2].startswith("neighbors C: 100%") and "4/4" in lines[-2]
    assert lines[-1].startswith("search    B:") and "3/12" in lines[-1]


def test_measure_bars_name_the_steps_an_event_leaves_unnamed(capsys):
    bars = measure_bars()
    bars(ProgressEvent("search", "", 1, 3))
    bars(ProgressEvent("measures", "", 0, 12))
    bars(ProgressEvent("measures", "", 12, 12))
    bars.close()
    lines = _lines(capsys.readouterr().err)
    assert any(s.startswith("search    embedders:") and "1/3" in s and "embedder/s" in s for s in lines)
    assert any(s.startswith("measures  (measure x pair): 100%") and "12/12" in s and "pair/s" in s for s in lines)


def test_a_delayed_bar_shows_nothing_for_a_stage_that_ends_sooner(capsys):
    bars = ProgressBars(delay=common.BAR_DELAY)
    bars(ProgressEvent("parse", "", 0, 10))
    bars(ProgressEvent("parse", "", 10, 10))
    bars.close()
    assert "parse" in bars.bars and capsys.readouterr().err == ""
    bars = ProgressBars(delay=0)
    bars(ProgressEvent("parse", "", 0, 10))
    bars(ProgressEvent("parse", "", 10, 10))
    assert any(s.startswith("parse    : 100%") and "10/10" in s for s in _lines(capsys.readouterr().err))


def _fake_probe(ws, ids, *, progress, on_step, **kwargs):
    """run_probe's events: tokenize and parse (sentences), tasks, the per-embedder stage, then 2 x 2 readout steps
    (the last one ends without an event saying so)."""
    progress(ProgressEvent("tokenize", "", 10, 10))  # from the cache: no bar
    progress(ProgressEvent("parse", "", 0, 10))
    progress(ProgressEvent("parse", "", 10, 10))
    progress(ProgressEvent("tasks", "", 1, 2))
    progress(ProgressEvent("tasks", "", 2, 2))
    for e, eid in enumerate(ids, 1):
        progress(ProgressEvent("embedder", eid, e - 1, len(ids)))
        for t, name in enumerate(["SentLen", "BShift"], 1):
            on_step(ReadoutStep(t, 2, e, len(ids), eid, name, 0.0, 4.0))
    return {"ran": list(ids), **kwargs}


def test_probe_bars_draw_each_stage_and_the_readout_steps_but_not_the_embedder_stage(capsys, monkeypatch):
    import n2o_core.evaluation.probe.run as probe_run

    monkeypatch.setattr(common, "BAR_DELAY", 0)
    monkeypatch.setattr(probe_run, "run_probe", _fake_probe)
    assert probe_with_bars(None, ["tfidf", "word2vec"], seed=3) == {"ran": ["tfidf", "word2vec"], "seed": 3}
    lines = _lines(capsys.readouterr().err)
    assert not any(s.startswith(("tokenize", "embedder")) for s in lines)
    assert any(s.startswith("parse                   : 100%") and "10/10" in s and "sent" in s for s in lines)
    assert any(s.startswith("tasks                   : 100%") and "2/2" in s and "task" in s for s in lines)
    readouts = [s for s in lines if s.startswith("readouts")]
    assert "1/4" in readouts[0] or "0/4" in readouts[0]
    assert any("task 2 of 2 · embedder 1 of 2 · a few seconds left (tfidf, BShift)" in s for s in readouts)
    assert "4/4" in readouts[-1] and "step" in readouts[-1] and "(word2vec, BShift)" in readouts[-1]


def test_probe_bars_wait_for_the_delay(capsys, monkeypatch):
    import n2o_core.evaluation.probe.run as probe_run

    monkeypatch.setattr(probe_run, "run_probe", _fake_probe)
    probe_with_bars(None, ["tfidf"])
    assert capsys.readouterr().err == ""  # every stage ended within BAR_DELAY


def test_scoring_bars_make_the_pairs_then_name_the_embedder_being_scored(capsys):
    bars = scoring_bars()
    bars(ProgressEvent("pairs", "", 5, 20))
    bars(ProgressEvent("pairs", "", 15, 20))  # a small corpus: the pairs stop short of 20 per subset
    bars(ProgressEvent("embedders", "tfidf", 0, 2))
    pairs = bars.bars["pairs"]
    assert pairs.disable and pairs.n == 15  # the scoring closed it
    bars(ProgressEvent("embedders", "word2vec", 1, 2))
    bars(ProgressEvent("embedders", "", 2, 2))
    assert set(bars.bars) == {"pairs", "embedders"}
    lines = _lines(capsys.readouterr().err)
    assert any(s.startswith("pairs:") and "15/20" in s and "pair/s" in s for s in lines)
    assert any(s.startswith("tfidf:") and "0/2" in s and "embedder/s" in s for s in lines)
    assert any(s.startswith("word2vec:") and "1/2" in s for s in lines)  # said when it starts, not throttled away
    assert lines[-1].startswith("embedders: 100%") and "2/2" in lines[-1]


def test_findings_bars_group_a_loop_over_embedders_and_shorten_the_run(capsys):
    bars = findings_bars()
    run = "run 1/2 (seed 0, 120 sentences): "
    bars(ProgressEvent(run + "embed", "tfidf", 0, 120))
    bars(ProgressEvent(run + "embed", "tfidf", 120, 120))
    embedded = capsys.readouterr().err
    assert "1/2 embed tfidf:" in embedded and "\n" not in embedded  # wiped when done: the report follows
    bars(ProgressEvent(run + "making minimal pairs", "", 20, 20))  # from the cache: no bar
    bars(ProgressEvent(run + "scoring", "glove-6b-50d", 0, 2))
    bars(ProgressEvent(run + "scoring", "minilm-l6-mean", 1, 2))
    bars(ProgressEvent("run 2/2 (seed 1, 120 sentences): scoring", "glove-6b-50d", 0, 2))
    bars(ProgressEvent("training glove-6b-50d with another seed", "", 0, 1))  # one run: no tag
    assert set(bars.bars) == {"1/2 embed tfidf", "1/2 scoring", "2/2 scoring", "training"}
    bars.close()
    lines = _lines(embedded + capsys.readouterr().err)
    assert any(s.startswith("1/2 embed tfidf:") and "0/120" in s and "it/s" in s for s in lines)
    assert any(s.startswith("1/2 scoring glove-6b-50d:") and "0/2" in s for s in lines)
    assert any(s.startswith("1/2 scoring minilm-l6-mean:") and "1/2" in s for s in lines)
    assert any(s.startswith("2/2 scoring glove-6b-50d:") for s in lines)
    assert any(s.startswith("training glove-6b-50d with another seed:") for s in lines)
    assert not any("making minimal pairs" in s for s in lines)
    assert not any("run 1/2" in s for s in lines)


def test_sts_command_draws_the_embedder_being_scored(tmp_path, capsys):
    rc = main(["sts", "--pairs", "builtin:lee", "--embedder", "tfidf", "--cache-dir", str(tmp_path)])
    assert rc == 0
    lines = _lines(capsys.readouterr().err)
    assert any(s.startswith("tfidf:") and "0/1" in s and "embedder" in s for s in lines)  # the embedder on
    assert any(s.startswith("embedders: 100%") and "1/1" in s for s in lines)


def test_heros_command_draws_the_embedder_being_scored(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", 40)
    pairs = tmp_path / "given.csv"  # given pairs: nothing to make
    rows = ["Prices went up.,Prices went down.,antonym", "She likes tea.,She does not like tea.,Negation (main)"]
    pairs.write_text("\n".join(["original,variant,subset", *rows]) + "\n", encoding="utf-8")
    args = ["heros", "--corpus", str(corpus), "--embedder", "tfidf", "--pairs-file", str(pairs)]
    assert main([*args, "--cache-dir", str(tmp_path / "cache")]) == 0
    lines = _lines(capsys.readouterr().err)
    assert not any(s.startswith("pairs") for s in lines)  # a pairs file: nothing is made
    assert any(s.startswith("tfidf:") and "0/1" in s and "embedder/s" in s for s in lines)
    assert lines[-1].startswith("embedders: 100%") and "1/1" in lines[-1]


def test_compare_command_draws_a_bar_per_stage_and_embedder(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", 60)
    args = ["compare", "--corpus", str(corpus), "--embedder", "tfidf", "--embedder", "word2vec", "--k", "5"]
    assert main([*args, "--queries", "10", "--samples", "2", "--cache-dir", str(tmp_path / "cache")]) == 0
    lines = _lines(capsys.readouterr().err)
    # word2vec trains 5 epochs over the 60 sentences; tf-idf's one batch is done at once: no bar
    assert any(s.startswith("train     word2vec: 100%") and "300/300" in s and "sent/s" in s for s in lines), lines
    assert not any("tfidf" in s for s in lines)
