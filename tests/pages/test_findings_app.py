"""AppTest: the papers' findings page (cheap findings only: the others need transformers): every finding listed,
a check showing the core's numbers and status, and the page opening on the results kept for its settings."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from app_checks import HOW_LONG, app_environment, no_exception

from n2o_core.evaluation.findings import (
    CKA_SCORING,
    FINDINGS,
    NOT_TESTABLE,
    STATUS_LABELS,
    FindingParams,
    check_finding,
    check_findings,
)


@pytest.fixture(scope="module")
def app_env(tmp_path_factory):
    """The app on 520 sentences: the N2O paper's k = 50 stays within 10% of the 519 candidates, so the neighbor
    findings are judged (on the other pages' 151 sentences they are not: k = 50 would be a third of them)."""
    from ui import n2o_runs

    n2o_runs.cache.clear()  # the app's Cache (st.cache_resource) read $N2O_CACHE_DIR when another module ran first
    yield from app_environment(tmp_path_factory.mktemp("findings-app"), sentences=520)
    n2o_runs.cache.clear()


def _open(app):
    app.run()
    app.switch_page("pages/findings.py").run()
    no_exception(app)
    return app


def _frames(app, columns):
    """The dataframes and static tables (the summary) on the page with exactly these columns (st.dataframe has no
    key in AppTest)."""
    return [d.value for d in [*app.dataframe, *app.table] if list(d.value.columns) == list(columns)]


def _frame(app, columns):
    got = _frames(app, columns)
    assert len(got) == 1, [list(d.value.columns) for d in [*app.dataframe, *app.table]]
    return got[0]


SUMMARY = ["", "paper", "finding", "status", "holds", "setting-sensitive", "numbers (first run)"]
STS_TITLE = "z-normalization raises averaged GloVe's Pearson correlation with human similarity"


def _forget(app_env):
    """No result of an earlier test: the process memo and the results kept in the cache emptied."""
    from ui import findings_runs

    findings_runs._memo().clear()
    shutil.rmtree(Path(app_env["N2O_CACHE_DIR"]) / "findings", ignore_errors=True)


def test_lists_every_finding_unchecked(app, app_env):
    _forget(app_env)
    _open(app)
    summary = _frame(app, SUMMARY)
    assert list(summary["finding"]) == [f.title for f in FINDINGS]
    assert set(summary["status"]) == {"not computed yet"} and set(summary["numbers (first run)"]) == {""}
    md = " ".join(m.value for m in app.markdown)
    for f in FINDINGS:
        assert f.rule in md and f.statement in md
    assert list(_frame(app, ["paper", "finding", "why not"])["why not"]) == [u.reason for u in NOT_TESTABLE]
    assert app.query_params["fpairs"] == "200"


def _core(app_env, fid, keep=False):
    """The core's result for the page's corpus and settings (the app's test defaults: 3 samples of 30 queries),
    kept in the app's cache with `keep` (as `findings` and `warm --findings` keep theirs)."""
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.settings import DEFAULT_MAX_SENTENCES
    from n2o_core.storage.cache import Cache

    cache = Cache(app_env["N2O_CACHE_DIR"])
    corpus = load_corpus(app_env["N2O_DEFAULT_CORPUS"], max_sentences=DEFAULT_MAX_SENTENCES, cache_dir=cache.root)
    params = FindingParams(k=50, n_queries=30, n_samples=3, seed=0, heros_pairs=200)
    ws = Workspace(corpus, cache=cache)
    return check_findings(ws, [fid], params, keep=True)[0] if keep else check_finding(ws, fid, params)


def _check_shows_the_core(app, app_env, fid: str):
    """Open the page, click the finding's Check, and compare its table with the core's; returns the core's check."""
    _open(app)
    app.button(key=f"check_{fid}").click().run()
    no_exception(app)
    core = _core(app_env, fid)
    shown = _frame(app, list(core.verdict.table.columns))
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), core.verdict.table.round(4), check_dtype=False)
    return core


def test_check_one_finding_shows_the_cores_numbers(app, app_env):
    _forget(app_env)
    core = _check_shows_the_core(app, app_env, "n2o-tfidf-apart")
    summary = _frame(app, SUMMARY).set_index("finding")
    row = summary.loc[core.finding.title]
    assert row[""] == core.mark and row["numbers (first run)"] == core.verdict.summary
    assert row["status"] == STATUS_LABELS[core.status] and row["setting-sensitive"] == (
        "yes" if core.setting_sensitive else "no"
    )
    assert row["holds"] == f"{core.holds} of {core.runs}" and core.runs == 3  # three seeds, as the CLI's default
    md = " ".join(m.value for m in app.markdown)
    assert core.verdict.summary in md and core.holds_text in md
    assert core.finding.setting_reason in md
    j = [label for label, _ in core.finding.sensitivity].index(CKA_SCORING)
    h, n = core.sensitivity_counts()[j]  # the rule on linear CKA, beyond the paper: its own mark and runs
    assert f"measure: {CKA_SCORING}: **" in md and f"{core.sensitivity[j].summary} ({h} of {n} runs)" in md and n == 3
    if core.explanation:  # what may explain it, wherever the finding does not hold
        assert any(core.explanation in i.value for i in app.info)
    # the findings on the same analysis are judged from the same computation; another analysis is not computed
    assert summary.loc["Averaged static word embeddings agree with each other", "status"] != "not computed yet"
    assert summary.loc[STS_TITLE, "status"] == "not computed yet"


def test_opens_on_the_results_kept_for_its_settings(app, app_env):
    """After `findings` or `warm --findings` kept a result for the page's corpus and settings, a new visit (another
    process: the memo is empty) opens with it and says when it was computed; nothing is computed."""
    _forget(app_env)
    core = _core(app_env, "sts-znorm-glove", keep=True)
    from ui import findings_runs

    findings_runs._memo().clear()
    _open(app)
    summary = _frame(app, SUMMARY).set_index("finding")
    row = summary.loc[core.finding.title]
    assert row["numbers (first run)"] == core.verdict.summary and row["status"] == STATUS_LABELS[core.status]
    assert summary.loc["Averaged static word embeddings agree with each other", "status"] == "not computed yet"
    captions = " ".join(c.value for c in app.caption)
    assert "as last computed on" in captions and core.computed_at in captions
    assert re.fullmatch(rf"Check again · {HOW_LONG} here", app.button(key="check_sts-znorm-glove").label)  # not here


def test_human_similarity_findings_share_one_computation(app, app_env):
    _open(app)
    app.button(key="check_sts-znorm-glove").click().run()
    no_exception(app)
    summary = _frame(app, SUMMARY).set_index("finding")
    for fid in ("sts-znorm-glove", "sts-znorm-glove-spearman"):
        core = _core(app_env, fid)
        assert summary.loc[core.finding.title, "numbers (first run)"] == core.verdict.summary
        assert summary.loc[core.finding.title, ""] == core.mark
        md = " ".join(m.value for m in app.markdown)
        assert core.sensitivity[0].summary in md  # the other composition (stop words dropped) is shown beside it
    shown = _frames(app, ["embedder", "n", "pearson", "pearson_znorm", "spearman", "spearman_znorm"])
    assert len(shown) == 2
    assert np.allclose(shown[0].iloc[0, 2:].astype(float), core.verdict.table.iloc[0, 2:].astype(float).round(4))


def test_isolated_checks_run_in_one_child_process_with_the_same_numbers(app, app_env, isolated_jobs):
    """Where jobs run in child processes (a shared server), a check's analyses are one job (`each_call`) in one
    child, and the page shows what the core computes."""
    from ui import findings_runs

    findings_runs._memo().clear()  # evidence other tests left in this process would be shown without a job
    _check_shows_the_core(app, app_env, "n2o-tfidf-apart")
    assert isolated_jobs.count("each_call") == 1, isolated_jobs


def test_buttons_say_how_long_from_the_timings_kept_here(app, app_env):
    """Before any check here, the time comes from the recorded benchmarks (said); after one, from its timing: the
    Check all label, each finding's Check and the caption beside the button carry the core's estimate."""
    from n2o_core.evaluation.findings import STS, AnalysisTiming, estimate_check, load_timings
    from n2o_core.storage.cache import Cache

    _forget(app_env)
    cache = Cache(app_env["N2O_CACHE_DIR"])
    cache.save_json("findings/last-timing.json", {})
    _open(app)
    label = app.button(key="check_all").label
    assert re.fullmatch(rf"Check all · {HOW_LONG} here", label)
    assert "benchmarks recorded on a quiet 2-core machine" in " ".join(c.value for c in app.caption)
    assert "probe_cold_default.txt" in app.button(key="check_all").help
    # a timing kept here for the Lee pairs: their finding's button scales it (one run, whatever the corpus)
    sts = next(f for f in FINDINGS if f.id == "sts-znorm-glove")
    save = {STS: AnalysisTiming(61.0, float(len(sts.embedders)), 0)}
    cache.save_json("findings/last-timing.json", {STS: {"seconds": 61.0, "size": len(sts.embedders), "sentences": 0}})
    assert load_timings(cache) == save
    want = estimate_check([(STS, sts.embedders)], [150], 3, 200, set(), save)
    assert want.short() == "about 61 s here"
    _open(app)
    assert app.button(key="check_sts-znorm-glove").label == "Check · about 61 s here"
    # checking it keeps its real timing, and the same finding needs nothing more in this process
    app.button(key="check_sts-znorm-glove").click().run()
    no_exception(app)
    kept = load_timings(cache)[STS]
    assert kept.seconds != 61.0 and kept.size == len(sts.embedders) and kept.embedded == ()
    assert app.button(key="check_sts-znorm-glove").label == "Check again"


def test_talk_mode_leaves_out_the_time_of_its_hidden_button(app, app_env):
    """The caption beside 'Check all' says how long the check takes; in talk mode the button is hidden, so the
    caption goes too (it stood alone under the heading)."""
    from streamlit.testing.v1 import AppTest

    def estimate_captions(at) -> list[str]:
        return [c.value for c in at.caption if "scaled from" in c.value or "Every analysis is computed" in c.value]

    _open(app)
    assert estimate_captions(app)
    at = AppTest.from_file(str(app._script_path), default_timeout=180)
    at.query_params["talk"] = "1"
    at.run()
    at.switch_page("pages/findings.py").run()
    no_exception(at)
    assert at.header[0].value == app.header[0].value and at.button(key="check_all").label  # the same page
    assert estimate_captions(at) == []
