"""A finding judged over every run (evaluation.findings.result, store, export.findings_table, cli report): the status
from the fixed setting alone (mixed runs: unstable, whatever the sensitivity rows say), setting-sensitivity as a
separate flag with its rows and runs, explanations wherever a finding does not hold, the JSON round trip, the kept
results, and the catalogue's provenance -- on hand-made evidence with known verdicts."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from n2o_core.cli.findings import report_text
from n2o_core.errors import N2OError
from n2o_core.evaluation import findings as fd
from n2o_core.evaluation.findings.catalog_text import HISTORY
from n2o_core.export.findings_table import findings_markdown
from n2o_core.storage.cache import Cache


def _tokens(values, half=0.01):
    return pd.DataFrame(
        [{"embedder": e, "mean": v, "ci_low": v - half, "ci_high": v + half, "n": 50} for e, v in values.items()]
    )


def _run(content, every, seed, sentences=100):
    """Token-overlap evidence of one run: tf-idf's overlap with content words and with every word counted."""
    e = fd.Evidence(setup={"seed": seed, "sentences": sentences, "corpus-trained embedders trained on": "61 sentences"})
    e.tokens = {fd.CONTENT: _tokens({"tfidf": content, "word2vec": 0.2}),
                fd.ALL_WORDS: _tokens({"tfidf": every, "word2vec": 0.2})}  # fmt: skip
    return e


def _runs(*pairs):
    first, *rest = [_run(c, a, seed) for seed, (c, a) in enumerate(pairs)]
    first.replicates = rest
    return first


F = fd.finding("tokens-tfidf-highest")  # fixed: content words; row: every word counted


def test_mixed_runs_are_unstable_whatever_the_sensitivity_rows_say():
    # the fixed setting holds in 2 of 3 runs; every word counted holds in all three
    r = fd.judge(F, _runs((0.5, 0.5), (0.2, 0.5), (0.5, 0.5)))
    assert (r.status, r.holds, r.runs, r.mark) == ("unstable", 2, 3, "◐")
    assert r.holds_text == "holds in 2 of 3 runs"
    assert [x["passed"] for x in r.run_rows] == [True, False, True]
    assert r.sensitivity_counts() == [(3, 3)]
    assert r.sensitive_to == [{"scoring": F.sensitivity[0][0], "runs": ["seed 1, 100 sentences"]}]
    assert r.setting_sensitive


def test_fails_everywhere_is_fails_and_holds_everywhere_is_holds():
    fails = fd.judge(F, _runs((0.2, 0.5), (0.2, 0.5)))
    assert (fails.status, fails.mark, fails.holds, fails.runs) == ("fails", "✗", 0, 2)
    assert fails.setting_sensitive  # every word counted holds in both runs: flagged, not a verdict
    assert fails.explanation.startswith("With every word counted")
    holds = fd.judge(F, _runs((0.5, 0.5), (0.5, 0.5)))
    assert (holds.status, holds.mark, holds.explanation, holds.setting_sensitive) == ("holds", "✓", "", False)


def test_not_checked_and_runs_that_could_not_be_judged():
    r = fd.judge(F, fd.Evidence(setup={"seed": 0, "sentences": 10}))
    assert (r.status, r.runs, r.total_runs, r.mark) == ("not_checked", 0, 1, "–")
    assert r.explanation == "Could not be judged: no token overlap."
    part = _runs((0.5, 0.5), (0.5, 0.5))
    part.replicates.append(fd.Evidence(setup={"seed": 2, "sentences": 100}))
    r = fd.judge(F, part)
    assert (r.status, r.holds, r.runs, r.total_runs) == ("holds", 2, 2, 3)
    assert r.holds_text == "holds in 2 of 2 runs (1 more could not be judged)"


def test_another_measure_never_flags_a_finding():
    """The CKA row (another measure) disagreeing with the fixed setting is counted, never setting-sensitivity."""
    f = fd.finding("n2o-cls-outlier")
    names = ["minilm-l6-cls", "minilm-l6-mean", "x", "y"]

    def m(cls, mean):
        df = pd.DataFrame(0.0, index=names, columns=names)
        for o in ("x", "y"):
            df.loc["minilm-l6-cls", o] = df.loc[o, "minilm-l6-cls"] = cls
            df.loc["minilm-l6-mean", o] = df.loc[o, "minilm-l6-mean"] = mean
        return df

    samples = (m(0.1, 0.3), m(0.11, 0.31), m(0.09, 0.29))
    n2o = fd.N2OEvidence(samples[0], samples[0] * 0, 10, 101, 20, 3, per_sample=samples)
    ev = fd.Evidence(n2o=n2o, cka=m(0.6, 0.4), setup={"seed": 0, "sentences": 101})
    r = fd.judge(f, ev)
    assert r.status == "holds" and r.sensitivity[0].passed is False
    assert not r.setting_sensitive and fd.summary_counts([r])["setting_sensitive"] == 0
    assert r.to_json()["sensitivity"][0]["kind"] == "measure"
    assert fd.row_title(fd.CKA_SCORING) == f"measure: {fd.CKA_SCORING}"
    reading = fd.finding("n2o-above-chance").sensitivity[0][0]
    assert fd.row_kind(reading) == "reading" and fd.row_title(reading) == reading


def test_summary_counts_sum_to_the_findings():
    results = [
        fd.judge(F, _runs((0.5, 0.5), (0.5, 0.5))),  # holds, not sensitive
        fd.judge(F, _runs((0.2, 0.5), (0.2, 0.2))),  # fails, sensitive (run 0)
        fd.judge(F, _runs((0.5, 0.2), (0.2, 0.2))),  # unstable, sensitive (run 0)
        fd.judge(F, fd.Evidence()),  # not checked
    ]
    counts = fd.summary_counts(results)
    assert counts == {"holds": 1, "fails": 1, "unstable": 1, "not_checked": 1, "findings": 4, "setting_sensitive": 2}
    assert sum(counts[s] for s in fd.STATUSES) == counts["findings"]
    assert fd.summary_line(counts).startswith("1 hold, 1 fail, 1 unstable across runs, 1 not checked, of 4 findings")


def test_the_overview_one_row_per_finding_and_when_they_were_computed():
    other = fd.finding("n2o-above-chance")
    unstable = fd.judge(F, _runs((0.5, 0.5), (0.2, 0.5), (0.5, 0.5)))
    t = fd.overview_table([F, other], {F.id: unstable, other.id: None})
    assert list(t.columns) == ["", "paper", "finding", "status", "holds", "setting-sensitive", "numbers (first run)"]
    first = t.iloc[0].to_dict()
    assert first == {
        "": "◐",
        "paper": f"{F.paper} {F.where}",
        "finding": F.title,
        "status": fd.STATUS_LABELS["unstable"],
        "holds": "2 of 3",
        "setting-sensitive": "yes",
        "numbers (first run)": unstable.verdict.summary,
    }
    second = t.iloc[1]
    assert (second["status"], second["holds"], second["finding"]) == ("not computed yet", "", other.title)
    assert fd.computed_range([unstable]) is None  # never computed_at: not said
    a, b = replace(unstable, computed_at="2025-01-02 10:00"), replace(unstable, computed_at="2025-01-01 09:00")
    assert fd.computed_range([a, b, unstable]) == ("2025-01-01 09:00", "2025-01-02 10:00")
    assert fd.computed_range([a]) == ("2025-01-02 10:00", "2025-01-02 10:00")


def test_runs_not_judged_for_one_reason_are_said_once():
    f = fd.finding("popular-lexical")
    first, *rest = [
        fd.Evidence(
            setup={"seed": i, "sentences": 100}, popular={fd.CONTENT: fd.PopularEvidence(5, 50, n, *[np.ones(n)] * 2)}
        )
        for i, n in enumerate((3, 4, 4))
    ]
    first.replicates = rest
    r = fd.judge(f, first)
    assert r.status == "not_checked"
    assert r.explanation == (
        "Could not be judged: 3 queries have a neighbor in every embedder's top m; the rule needs at least 10 (in 3 "
        "runs, the counts differing)."
    )


def test_explanations_fill_the_runs_setup():
    f = fd.finding("tokens-subword-lowest")
    ev = fd.Evidence(setup={"seed": 0, "sentences": 100, "corpus-trained embedders trained on": "38,019 sentences"})
    ev.tokens = {k: _tokens({"fasttext-sub": 0.05, "fasttext": 0.05}) for k in (fd.CONTENT, fd.ALL_WORDS)}
    r = fd.judge(f, ev)
    assert r.status == "fails"
    assert "trained here on 38,019 sentences of the corpus" in r.explanation and "{fit}" not in r.explanation


def test_json_round_trip_and_every_output_says_the_explanation(tmp_path):
    r = fd.judge(F, _runs((0.5, 0.5), (0.2, 0.5), (0.5, 0.5)))
    doc = r.to_json()
    json.dumps(doc)
    assert (doc["status"], doc["holds"], doc["runs"], doc["setting_sensitive"]) == ("unstable", 2, 3, True)
    assert doc["explanation"] == r.explanation and doc["explanation"]
    assert doc["statement"] == F.statement and doc["tested"] == F.tested and "passed" not in doc
    assert doc["numbers_from"] == "the first run (seed 0, 100 sentences)"
    assert doc["sensitivity"][0]["differs_in"] == ["seed 1, 100 sentences"]
    back = fd.result_from_json(F, doc)
    assert back.to_json() == doc
    pd.testing.assert_frame_equal(back.verdict.table, r.verdict.table, check_dtype=False)
    with pytest.raises(ValueError):
        fd.result_from_json(fd.finding("tokens-subword-lowest"), doc)

    full = fd.findings_document("c", 100, {"k": 10}, [r])
    md = findings_markdown(full)
    row = md.splitlines()[2]
    assert row.startswith(
        f"| {F.title} | N2O §5, Fig. 5 | ◐ unstable across runs | 2 of 3 | yes: every word counted, stop words too |"
    )
    assert f"- **{F.title}** ({F.id}): {F.tested} *What may explain it:* {r.explanation}" in md
    assert "0 hold, 0 fail, 1 unstable across runs, 0 not checked, of 1 findings; 1 setting-sensitive" in md
    text = report_text(full)
    flat = " ".join(text.split())
    assert f"tested: {F.tested}" in flat and f"what may explain it: {r.explanation}" in flat
    assert "unstable across runs: holds in 2 of 3 runs" in flat
    assert "setting-sensitive: “every word counted, stop words too” judges differently in seed 1, 100 sentences" in flat


def test_kept_results_are_found_for_the_same_corpus_parameters_and_rule(tmp_path):
    cache = Cache(tmp_path / "cache")
    params = fd.FindingParams(k=10, n_queries=20)
    r = fd.judge(F, _runs((0.5, 0.5), (0.2, 0.5)))
    fd.save_results(cache, "fp1", params, [r])
    got = fd.load_results(cache, "fp1", params)
    assert list(got) == [F.id] and got[F.id].computed_at == r.computed_at != ""
    assert got[F.id].to_json() == r.to_json()
    assert fd.load_results(cache, "fp2", params) == {}
    assert fd.load_results(cache, "fp1", replace(params, seed=1)) == {}
    changed = replace(F, rule=F.rule + " (changed)")
    assert fd.load_results(cache, "fp1", params, [changed]) == {}  # an older rule's result is never shown


def test_the_catalogue_quotes_the_papers_and_states_its_provenance():
    from n2o_core.embedders.registry import BUILTIN_EMBEDDER_IDS
    from n2o_core.settings import PROBE_DEFAULT_PER_CLASS
    from n2o_core.text import TOKEN_WORDS_DEFAULT

    ids = [f.id for f in fd.FINDINGS]
    assert len(ids) == len(set(ids))
    for f in fd.FINDINGS:
        assert f.paper in fd.PAPERS and set(f.embedders) <= set(BUILTIN_EMBEDDER_IDS), f.id
        assert f.statement.startswith("“") and f.statement.endswith("”"), f.id
        assert f.setting_reason and f.cutoff_reason and f.explanation and f.history, f.id
        assert f.history.startswith(HISTORY) or (f.paper == "SentEval" and "2026-11-26" in f.history), f.id
        labels = [label for label, _ in f.sensitivity]
        assert len(labels) == len(set(labels)) and f.scoring not in labels, f.id
        for text in (f.setting_reason, f.cutoff_reason, f.history, f.tested):
            assert "fixed before any result" not in text, f.id
    explanations = [f.explanation for f in fd.FINDINGS]  # each says something of its own finding
    assert len(set(explanations)) == len(explanations)
    # "the tool's default" for token overlap is the token page's: content words
    assert TOKEN_WORDS_DEFAULT == fd.CONTENT
    for fid in ("tokens-tfidf-highest", "tokens-subword-lowest", "popular-lexical"):
        f = fd.finding(fid)
        assert f.scoring.startswith("content words") and fd.DEFAULT_SETTING in f.setting_reason
        assert "4d5ef12" in f.history and "after the published run" in f.history
    assert {f.paper for f in fd.FINDINGS} == set(fd.PAPERS)
    assert {u.paper for u in fd.NOT_TESTABLE} == set(fd.PAPERS)
    assert fd.FindingParams().probe_per_class == PROBE_DEFAULT_PER_CLASS
    # the subword explanation states that the paper's pairs share their corpus
    assert "shares its training corpus with its analogue" in fd.finding("n2o-subword-apart").explanation
    with pytest.raises(N2OError, match="Unknown finding"):
        fd.finding("no-such-finding")


def test_every_check_says_why_without_evidence():
    for f in fd.FINDINGS:
        r = fd.judge(f, fd.Evidence())
        assert r.status == "not_checked" and r.verdict.summary.startswith("not checked"), f.id
        assert all(v.passed is None for v in r.sensitivity), f.id


def test_a_result_of_older_heros_rules_is_never_shown(tmp_path, monkeypatch):
    """A HEROS finding's kept result belongs to the generator that made its pairs: other rules (another digest of
    the rule files and lexicon), no result; a finding of another analysis is kept."""
    from n2o_core.evaluation.findings import store
    from n2o_core.evaluation.heros import pair_cache

    cache = Cache(tmp_path / "cache")
    params = fd.FindingParams(k=10, n_queries=20)
    heros = next(f for f in fd.FINDINGS if f.analysis == "heros")
    r = fd.judge(replace(F, id=heros.id, analysis="heros"), _runs((0.5, 0.5), (0.2, 0.5)))
    other = fd.judge(F, _runs((0.5, 0.5), (0.2, 0.5)))
    fd.save_results(cache, "fp1", params, [r, other])
    kept = [replace(F, id=heros.id, analysis="heros"), F]
    assert set(fd.load_results(cache, "fp1", params, kept)) == {heros.id, F.id}
    monkeypatch.setattr(pair_cache, "rules_digest", lambda: "another-rulebook")
    assert store.code_identity("heros")[-1] == "another-rulebook"
    assert set(fd.load_results(cache, "fp1", params, kept)) == {F.id}


def test_a_neighbor_run_whose_k_is_over_a_tenth_of_its_corpus_is_not_judged():
    """k = 10 on 101 sentences is 10% of the 100 candidates: judged. On 100 sentences (99 candidates) it is over
    10%: not judged, with the reason; its measure row (CKA, no k) is still judged beside it."""
    from n2o_core.limits import sentences_for_k

    f = fd.finding("n2o-cls-outlier")
    names = ["minilm-l6-cls", "minilm-l6-mean", "x", "y"]
    df = pd.DataFrame(0.0, index=names, columns=names)
    for o in ("x", "y"):
        df.loc["minilm-l6-cls", o] = df.loc[o, "minilm-l6-cls"] = 0.1
        df.loc["minilm-l6-mean", o] = df.loc[o, "minilm-l6-mean"] = 0.3
    samples = (df, df + 0.01, df - 0.01)

    def run(n: int) -> fd.Evidence:
        n2o = fd.N2OEvidence(samples[0], samples[0] * 0, 10, n, 20, 3, per_sample=samples)
        return fd.Evidence(n2o=n2o, cka=df, setup={"seed": 0, "sentences": n})

    assert fd.judge(f, run(101)).verdict.passed is True
    small = fd.judge(f, run(100))
    assert small.verdict.passed is None and small.status == "not_checked"
    assert small.verdict.summary == (
        "not checked: k = 10 (the paper's) is 10.1% of the 99 other sentences of this 100-sentence run: random "
        "neighbors would already share 0.10 of them, so N2O cannot set embedders apart here. A neighbor finding is "
        "judged where k is within 10% of the candidates, as every view's default k: 101 sentences or more"
    )
    assert small.sensitivity[0].passed is not None
    assert [sentences_for_k(k) for k in (1, 5, 10, 50)] == [3, 51, 101, 501]
