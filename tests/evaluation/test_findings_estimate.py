"""How long a findings check takes here: the estimate's arithmetic (`findings.estimate`) and the timings kept in the
cache (`findings.store`)."""

from __future__ import annotations

import pytest

from n2o_core.evaluation.findings import (
    HEROS,
    NEIGHBORS,
    PROBE,
    STS,
    AnalysisTiming,
    analysis_size,
    embed_seconds,
    estimate_check,
    load_timings,
    save_timing,
)
from n2o_core.evaluation.findings.estimate import EMBED_SECONDS, PRIOR
from n2o_core.storage.cache import Cache

N2O_EMB = ("tfidf", "word2vec", "minilm-l6-mean", "minilm-l6-cls")


def test_sizes_in_each_analysiss_units():
    assert analysis_size(NEIGHBORS, [1000, 500], 3, 200, 4) == 1500 * 3 * 4
    assert analysis_size(PROBE, [1000], 2, 200, 3) == 1000 * 2 * 3
    assert analysis_size(HEROS, [1000, 500], 3, 50, 6) == 50 * 6 * 6  # pairs x (2 sizes x 3 seeds) x embedders
    assert analysis_size(STS, [1000], 3, 200, 6) == 6  # the Lee pairs: one run, whatever the corpus


def test_embedding_scales_with_sentences_except_corpus_trained_and_shared_passes():
    assert embed_seconds("minilm-l6-mean", 2500) == pytest.approx(EMBED_SECONDS["minilm-l6-mean"] / 2)
    assert embed_seconds("word2vec", 100) == embed_seconds("word2vec", 50_000) == EMBED_SECONDS["word2vec"]
    assert embed_seconds("fasttext", 100) == EMBED_SECONDS["word2vec"]  # costed as word2vec's training
    assert embed_seconds("minilm-l6-cls", 5000) == EMBED_SECONDS["minilm-l6-mean"]
    assert embed_seconds("minilm-l6-cls", 5000, also={"minilm-l6-mean"}) == 0.0  # one forward pass for both
    assert embed_seconds("my-model", 5000) == EMBED_SECONDS["minilm-l6-mean"]  # unknown: as a transformer


def test_before_any_timing_here_the_benchmarks_scaled_and_said():
    est = estimate_check([(PROBE, ("glove-6b-50d", "fasttext", "tfidf"))], [2500], 2, 200, set(), {})
    prior = PRIOR[PROBE]  # 136.6 s for 5,000 sentences x 1 run x 6 embedders
    assert est.seconds == pytest.approx(prior.seconds * (2500 * 2 * 3) / (5000 * 1 * 6))
    assert est.embed == () and est.embed_seconds == 0
    assert "probe_cold_default.txt" in est.basis() and "quiet 2-core" in est.basis()


def test_last_timing_here_less_its_embedding_plus_what_is_missing_now():
    # the last neighbors run here: 1,000 sentences, 3 seeds, 4 embedders, 30 s, tf-idf embedded during it
    last = {NEIGHBORS: AnalysisTiming(30.0, 1000 * 3 * 4, 1000, ("tfidf",))}
    missing = {"word2vec", "minilm-l6-mean", "minilm-l6-cls"}
    est = estimate_check([(NEIGHBORS, N2O_EMB)], [2000], 3, 200, missing, last)
    body = (30.0 - EMBED_SECONDS["tfidf"] * 1000 / 5000) * 2  # twice the sentences
    assert est.parts[0].seconds == pytest.approx(body)
    assert "last run here" in est.parts[0].basis
    embed = EMBED_SECONDS["word2vec"] + EMBED_SECONDS["minilm-l6-mean"] * 2000 / 5000  # [CLS]: the same pass
    assert est.embed_seconds == pytest.approx(embed)
    assert est.seconds == pytest.approx(body + embed)
    assert est.embed == ("word2vec", "minilm-l6-mean", "minilm-l6-cls")


def test_only_the_analyses_asked_and_a_readable_short_form():
    last = {STS: AnalysisTiming(12.0, 6, 0), HEROS: AnalysisTiming(600.0, 200 * 3 * 6, 5000)}
    sts = estimate_check([(STS, ("a",) * 6)], [5000], 3, 200, {"tfidf"}, last)  # tf-idf: no neighbors asked
    assert sts.seconds == pytest.approx(12.0) and sts.short() == "about 12 s here" and sts.embed == ()
    both = estimate_check([(STS, ("a",) * 6), (HEROS, ("b",) * 6)], [5000], 3, 100, set(), last)
    assert both.seconds == pytest.approx(12.0 + 300.0) and both.short() == "about 5 min here"
    assert estimate_check([], [5000], 3, 200, {"tfidf"}, last).short() == "nothing to compute"


def test_timings_kept_per_analysis_and_a_bad_entry_left_out(tmp_path):
    cache = Cache(tmp_path)
    assert load_timings(cache) == {}
    save_timing(cache, NEIGHBORS, AnalysisTiming(30.0, 12000, 1000, ("tfidf",)))
    save_timing(cache, STS, AnalysisTiming(2.5, 6, 0))
    save_timing(cache, NEIGHBORS, AnalysisTiming(20.0, 12000, 1000))  # the last one replaces the one before
    got = load_timings(cache)
    assert got == {NEIGHBORS: AnalysisTiming(20.0, 12000, 1000), STS: AnalysisTiming(2.5, 6, 0)}
    doc = cache.load_json("findings/last-timing.json")
    doc[HEROS] = {"seconds": "soon"}
    cache.save_json("findings/last-timing.json", doc)
    assert set(load_timings(cache)) == {NEIGHBORS, STS}


def test_the_benchmark_numbers_are_the_recorded_ones():
    import re
    from pathlib import Path

    results = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
    cold = (results / "probe_cold_default.txt").read_text(encoding="utf-8")
    recorded = {e: float(s) for e, s in re.findall(r"^  (\S+): embedded, .*?, ([\d.]+) s$", cold, re.M)}
    assert recorded == EMBED_SECONDS
    assert f"ready in {PRIOR[PROBE].seconds} s" in cold
    views = (results / "first_views_findings_after.txt").read_text(encoding="utf-8")
    assert f"findings_personal_s: {PRIOR[NEIGHBORS].seconds}" in views
    assert f"similarity_personal_s: {PRIOR[STS].seconds}" in views
    heros = (results / "bench_heros_cache.txt").read_text(encoding="utf-8")
    assert f"empty_cache_s: {PRIOR[HEROS].seconds}" in heros and "--pairs 100" in heros
