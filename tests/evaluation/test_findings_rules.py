"""The findings' rules (evaluation.findings.rules_*), pure, on hand-made evidence with known verdicts: each rule fed
numbers just above and just below its cut-off, so a wrong reading of the paper's words fails here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from n2o_core.evaluation import findings as fd
from n2o_core.evaluation.sts import RESULT_COLUMNS as STS_COLUMNS

T2 = stats.t.ppf(0.975, 2)  # the t quantile of a 95% interval over 3 query samples


def _matrix(names, pairs, diag=1.0):
    """Symmetric N2O frame from {(a, b): value}; pairs not given are 0."""
    m = pd.DataFrame(np.eye(len(names)) * diag, index=names, columns=names)
    for (a, b), v in pairs.items():
        m.loc[a, b] = m.loc[b, a] = v
    return m


def _ev(samples, k=10, n=101):
    """N2OEvidence from per-sample matrices (mean and std as the core computes them)."""
    stack = np.stack([m.to_numpy() for m in samples])
    names = list(samples[0].index)
    mean = pd.DataFrame(stack.mean(0), index=names, columns=names)
    std = pd.DataFrame(stack.std(0, ddof=1) if len(samples) > 1 else np.zeros_like(stack[0]), index=names,
                       columns=names)  # fmt: skip
    return fd.N2OEvidence(mean, std, k, n, 20, len(samples), per_sample=tuple(samples))


# ----------------------------------------------------------------------------------------------- N2O matrix


def _group(within_minus_between):
    """Samples where mean N2O within (g1, g2, g3) minus between (g_i, o) is each given value."""
    names = ["g1", "g2", "g3", "o"]
    out = []
    for d in within_minus_between:
        out.append(_matrix(names, {("g1", "g2"): 0.2 + d, ("g1", "g3"): 0.2 + d, ("g2", "g3"): 0.2 + d,
                                   ("g1", "o"): 0.2, ("g2", "o"): 0.2, ("g3", "o"): 0.2}))  # fmt: skip
    return _ev(out)


def test_group_agreement_needs_the_difference_beyond_the_sampling_error():
    # d = 0.03, 0.04, 0.05: mean 0.04, sd 0.01 -> interval [0.04 - T2 * 0.01 / sqrt 3, ...] = [0.0152, ...] above 0
    v = fd.group_agreement(_group([0.03, 0.04, 0.05]), ["g1", "g2", "g3"], ["o"])
    assert v.passed is True
    assert v.numbers["difference"] == pytest.approx(0.04)
    assert v.numbers["difference ci_low"] == pytest.approx(0.04 - T2 * 0.01 / np.sqrt(3))
    # d = 0.01, 0.02, 0.03: higher within on average, but the interval [-0.0048, ...] reaches below 0 -> ✗
    v = fd.group_agreement(_group([0.01, 0.02, 0.03]), ["g1", "g2", "g3"], ["o"])
    assert v.passed is False and v.numbers["difference ci_low"] < 0 < v.numbers["difference"]
    assert fd.group_agreement(_group([0.1]), ["g1", "nope"], ["o"]).passed is None


def _pairs_at(values, k=10, n=101):
    """Three embedders whose lowest pair (a, c) has these per-sample values; chance k/(n - 1) = 0.1."""
    names = ["a", "b", "c"]
    return _ev([_matrix(names, {("a", "b"): 0.5, ("b", "c"): 0.4, ("a", "c"): v}) for v in values], k, n)


def test_above_chance_is_the_interval_above_chance_not_the_papers_lowest_value():
    # lowest pair 0.12 ± sd 0.005 over 3 samples: interval [0.1076, 0.1324] above chance 0.1 -> ✓, although its
    # chance-corrected value (0.12 - 0.1)/0.9 = 0.022 is below the paper's 0.04 (the stricter reading: ✗)
    ev = _pairs_at([0.115, 0.12, 0.125])
    v = fd.above_chance(ev)
    assert v.passed is True and v.numbers["pairs above chance"] == 3
    assert v.numbers["lowest pair ci_low"] == pytest.approx(0.12 - T2 * 0.005 / np.sqrt(3))
    strict = fd.above_chance_by_margin(ev)
    assert strict.passed is False and strict.numbers["lowest pair kappa"] == pytest.approx(0.02 / 0.9)
    # the same mean with more spread: the interval reaches chance -> ✗
    v = fd.above_chance(_pairs_at([0.105, 0.12, 0.135]))
    assert v.passed is False and v.numbers["pairs above chance"] == 2
    # just above / below the stricter margin: kappa 0.0401 vs 0.0399
    assert fd.above_chance_by_margin(_pairs_at([0.1 + 0.9 * 0.0401] * 3)).passed is True
    assert fd.above_chance_by_margin(_pairs_at([0.1 + 0.9 * 0.0399] * 3)).passed is False


def _tfidf_case(tfidf_with_static, tfidf_with_rest):
    names = ["tfidf", "s1", "s2", "t1", "t2"]
    base = {("s1", "s2"): 0.40, ("s1", "t1"): 0.20, ("s1", "t2"): 0.20, ("s2", "t1"): 0.20, ("s2", "t2"): 0.20,
            ("t1", "t2"): 0.30}  # fmt: skip
    return [
        _matrix(names, {**base, ("tfidf", "s1"): s, ("tfidf", "s2"): s, ("tfidf", "t1"): r, ("tfidf", "t2"): r})
        for s, r in zip(tfidf_with_static, tfidf_with_rest, strict=True)
    ]


def test_tfidf_low_with_others_and_the_stricter_every_family_reading():
    # tf-idf 0.1 with the static averages (their own N2O 0.4) and 0.25 with the transformers (who agree 0.3
    # among themselves and 0.2 with the static ones): low by both tests of the paper's words, yet the transformers
    # agree with tf-idf more than with the rest, so "below every family" (the stricter reading) fails
    ev = _ev(_tfidf_case([0.09, 0.10, 0.11], [0.24, 0.25, 0.26]))
    v = fd.low_with_others(ev, "tfidf", ["s1", "s2"])
    assert v.passed is True
    assert v.numbers["static averages among themselves"] == pytest.approx(0.4)
    assert v.numbers["tfidf with the static averages"] == pytest.approx(0.1)
    # every embedder's mean N2O with the 4 others: s1 (0.4+0.2+0.2+0.1)/4 = 0.225, t1 (0.2+0.2+0.3+0.25)/4 = 0.2375;
    # the median of the four others' is 0.23125, tf-idf's (0.1+0.1+0.25+0.25)/4 = 0.175
    assert v.numbers["median embedder with the others"] == pytest.approx(0.23125)
    assert v.numbers["tfidf with the others"] == pytest.approx(0.175)
    fams = {"static": ("s1", "s2"), "transformers": ("t1", "t2")}
    strict = fd.apart_from_every_family(ev, "tfidf", fams)
    assert strict.passed is False and strict.numbers["families apart"] == 1
    # tf-idf as close to the static averages as they are to each other: not low "even" there -> ✗
    v = fd.low_with_others(_ev(_tfidf_case([0.39, 0.40, 0.41], [0.10, 0.11, 0.12])), "tfidf", ["s1", "s2"])
    assert v.passed is False and v.numbers["difference (static)"] == pytest.approx(0.0, abs=1e-12)


def test_further_than_analogue_is_a_test_over_query_samples():
    names = ["sub", "nosub", "x", "y"]

    def m(sub, nosub):
        return _matrix(names, {("sub", "x"): sub, ("sub", "y"): sub, ("nosub", "x"): nosub, ("nosub", "y"): nosub})

    ev = _ev([m(0.10, 0.20), m(0.10, 0.22), m(0.12, 0.20)])  # differences 0.10, 0.12, 0.08
    v = fd.further_than_analogue(ev, "sub", "nosub", ["x", "y"])
    assert v.passed is True and v.numbers["difference ci_low"] == pytest.approx(0.1 - T2 * 0.02 / np.sqrt(3))
    ev = _ev([m(0.10, 0.30), m(0.25, 0.20), m(0.10, 0.25)])  # lower on average, not in every sample
    assert fd.further_than_analogue(ev, "sub", "nosub", ["x", "y"]).passed is False


def test_subword_apart_shows_the_same_recipe_reference_without_deciding():
    names = ["glove-6b-50d", "word2vec", "fasttext", "fasttext-sub", "minilm"]
    static = {("glove-6b-50d", "word2vec"): 0.30, ("glove-6b-50d", "fasttext"): 0.28, ("word2vec", "fasttext"): 0.32}
    others = {("fasttext-sub", "glove-6b-50d"): 0.10, ("fasttext-sub", "word2vec"): 0.11,
              ("fasttext-sub", "minilm"): 0.05, ("fasttext", "minilm"): 0.12}  # fmt: skip
    high = _ev([_matrix(names, {**static, **others, ("fasttext", "fasttext-sub"): v}) for v in (0.40, 0.41, 0.396)])
    args = (high, "fasttext-sub", "fasttext", fd.STATIC, ["glove-6b-50d", "word2vec", "minilm"])
    bare = fd.subword_apart(*args)
    ref = {"fasttext": (0.77, 0.01), "fasttext-sub": (0.74, 0.02)}
    shown = fd.subword_apart(*args, reference=ref)
    assert bare.passed is False and shown.passed is False  # the analogue pair agrees most of all: ✗ either way
    assert shown.numbers["same recipe, another seed: fasttext"] == 0.77
    assert "agree at fasttext 0.770, fasttext-sub 0.740" in shown.summary and "agree at" not in bare.summary
    kinds = list(shown.table["kind"])
    assert kinds.count("same recipe, another seed") == 2 and "same recipe, another seed" not in list(bare.table["kind"])
    low = _ev([_matrix(names, {**static, **others, ("fasttext", "fasttext-sub"): v}) for v in (0.12, 0.10, 0.11)])
    assert fd.subword_apart(low, *args[1:], reference=ref).passed is True


def test_rankings_stable_at_the_papers_minimum():
    def rho(off):
        return pd.DataFrame([[1, off, off], [off, 1, off], [off, off, 1]], index=[5, 10, 15], columns=[5, 10, 15])

    assert fd.rankings_stable(rho(0.9861), 0.986, "values of k").passed is True
    assert fd.rankings_stable(rho(0.9859), 0.986, "values of k").passed is False
    assert fd.rankings_stable(None, 0.986, "query samples").passed is None


# ----------------------------------------------------------------------------------------------- token overlap


def _tokens(values, half=0.01):
    return pd.DataFrame(
        [{"embedder": e, "mean": v, "ci_low": v - half, "ci_high": v + half, "n": 50} for e, v in values.items()]
    )


def test_token_overlap_rules_read_the_intervals():
    t = _tokens({"tfidf": 0.101, "word2vec": 0.080, "fasttext": 0.050, "fasttext-sub": 0.0299, "minilm": 0.02})
    assert fd.highest_apart(t, "tfidf").passed is True  # 0.091 > 0.090
    assert fd.highest_apart(_tokens({"tfidf": 0.0999, "word2vec": 0.080}), "tfidf").passed is False  # 0.0899 < 0.09
    # fasttext-sub below its analogue (0.0399 < 0.040), though not the lowest of all (minilm): the paper's words hold
    v = fd.below_analogue(t, "fasttext-sub", "fasttext")
    assert v.passed is True and v.numbers["rank"] == 4
    assert fd.lowest_apart(t, "fasttext-sub").passed is False
    touching = _tokens({"fasttext-sub": 0.030, "fasttext": 0.050})  # 0.040 is not below 0.040
    assert fd.below_analogue(touching, "fasttext-sub", "fasttext").passed is False
    assert fd.below_analogue(_tokens({"fasttext": 0.05}), "fasttext-sub", "fasttext").passed is None


def test_popular_neighbors_need_enough_queries_and_a_paired_difference():
    rng = np.random.default_rng(0)
    pop = np.clip(0.95 + rng.normal(0, 0.05, 10), 0, 1)  # near 1: a t-interval would run past 1
    nb = pop - 0.3
    assert fd.popular_share_more_words(fd.PopularEvidence(5, 50, 9, pop[:9], nb[:9])).passed is None  # 9 < 10
    v = fd.popular_share_more_words(fd.PopularEvidence(5, 50, 12, pop, nb))
    assert v.passed is True and v.numbers["queries"] == 10
    assert v.numbers["difference"] == pytest.approx(0.3)
    assert (v.table[["ci_low", "ci_high"]] <= 1).all().all() and (v.table["ci_low"] >= -1).all()
    assert v.table.loc[0, "ci_high"] <= pop.max()  # a bootstrap interval stays inside the values
    # popular higher on average, but by a difference that changes sign from query to query -> ✗
    mixed = nb + np.array([0.3, -0.3] * 5) + 0.01
    assert fd.popular_share_more_words(fd.PopularEvidence(5, 50, 10, mixed, nb)).passed is False


# ----------------------------------------------------------------------------------------------- HEROS


def _pairs(scores, n=12, noise=0.002, seed=0):
    """Per-pair frame: for each embedder and subset, n originals o0..o{n-1} scored around the given value."""
    rng = np.random.default_rng(seed)
    rows = []
    for e, subs in scores.items():
        for s, v in subs.items():
            for i in range(n):
                rows.append({"embedder": e, "subset": s, "original": f"o{i}", "normalized": v + rng.normal(0, noise)})
    return pd.DataFrame(rows)


def _subs(syn, ant, main, neg_ant):
    return {"synonym": syn, "antonym": ant, "negation_main": main, "negation_antonym": neg_ant}


def test_negation_far_above_is_paired_by_original():
    v = fd.negation_far_above(_pairs({"g": _subs(0.95, 0.94, 0.99, 0.995)}), "g")
    assert v.passed is True and v.numbers["comparisons above"] == 4
    # negation (main) level with the synonym swap: one comparison of four not above 0 -> ✗
    v = fd.negation_far_above(_pairs({"g": _subs(0.95, 0.94, 0.95, 0.995)}), "g")
    assert v.passed is False and v.numbers["comparisons above"] == 3
    assert fd.negation_far_above(_pairs({"g": _subs(0.95, 0.94, 0.99, 0.995)}, n=9), "g").passed is None  # 9 < 10


def test_main_below_antonym_all_but_at_most_one():
    below, level = _subs(0.9, 0.9, 0.8, 0.9), _subs(0.9, 0.9, 0.9, 0.9)
    four = _pairs({"a": below, "b": below, "c": below, "d": below, "e": level})
    v = fd.main_below_antonym(four, ["a", "b", "c", "d", "e"])
    assert v.passed is True and (v.numbers["encoders below"], v.numbers["encoders"]) == (4, 5)
    three = _pairs({"a": below, "b": below, "c": below, "d": level, "e": level})
    assert fd.main_below_antonym(three, ["a", "b", "c", "d", "e"]).passed is False


def test_negations_above_synonym_beyond_the_interval_and_the_looser_means():
    above = _pairs({"l3": _subs(0.90, 0.85, 0.95, 0.96)})
    assert fd.negations_above_synonym(above, "l3").passed is True
    # negation (main) a hair above synonym in mean, within the noise: ✗ by the interval, ✓ by the looser means
    close = _pairs({"l3": _subs(0.90, 0.85, 0.9001, 0.96)}, noise=0.02)
    assert fd.negations_above_synonym(close, "l3").passed is False
    res = pd.DataFrame([{"embedder": "l3", "subset": s, "normalized": v}
                        for s, v in _subs(0.90, 0.85, 0.9001, 0.96).items()])  # fmt: skip
    assert fd.negations_above_synonym_means(res, "l3").passed is True


def test_most_negations_above_synonym_is_more_than_half():
    up, down = _subs(0.90, 0.85, 0.95, 0.96), _subs(0.95, 0.85, 0.90, 0.90)
    half = _pairs({"a": up, "b": up, "c": down, "d": down})
    v = fd.most_negations_above_synonym(half, ["a", "b", "c", "d"])
    assert v.passed is False and (v.numbers["encoders above"], v.numbers["encoders"]) == (2, 4)
    three = _pairs({"a": up, "b": up, "c": up, "d": down})
    assert fd.most_negations_above_synonym(three, ["a", "b", "c", "d"]).passed is True


def test_antonym_effect_tells_the_paraphrase_model_from_the_others():
    # effects s'(Synonym) - s'(Antonym): l3 0.10, all-model 0.04, e5 0.09
    p = _pairs(
        {"l3": _subs(0.95, 0.85, 0.9, 0.9), "all": _subs(0.95, 0.91, 0.9, 0.9), "e5": _subs(0.95, 0.86, 0.9, 0.9)}
    )
    v = fd.antonym_effect_apart(p, "l3", ["all"])
    assert v.passed is True
    assert v.numbers["l3 effect"] == pytest.approx(0.10, abs=0.003) and v.numbers["all effect"] == pytest.approx(
        0.04, abs=0.003
    )
    assert fd.antonym_effect_apart(p, "l3", ["all", "e5"]).passed is True  # 0.10 vs 0.09, noise 0.002
    level = _pairs({"l3": _subs(0.95, 0.85, 0.9, 0.9), "e5": _subs(0.95, 0.85, 0.9, 0.9)})
    assert fd.antonym_effect_apart(level, "l3", ["e5"]).passed is False  # the same effect: not larger


# ----------------------------------------------------------------------------------------------- Pitfalls


def _sts(rows):
    return pd.DataFrame(
        [{"embedder": e, "dim": 50, "n": 100, "pearson": p, "spearman": s, "pearson_znorm": pz,
          "spearman_znorm": sz, "zero_vectors": 0} for e, (p, s, pz, sz) in rows.items()],
        columns=STS_COLUMNS,
    )  # fmt: skip


def test_znorm_raises_and_the_range_over_encoders_that_correlate():
    res = _sts({"glove": (0.41, 0.44, 0.62, 0.58), "w2v": (0.56, 0.5, 0.65, 0.4)})
    assert fd.znorm_raises(res, "glove", "pearson").passed is True
    assert fd.znorm_raises(res, "w2v", "spearman").passed is False
    # a: 0.6 -> 0.65, b: 0.5 -> 0.5 (the range of the two that correlate widens, 0.10 -> 0.15), c: r = -0.05 -> 0.3
    # (with it, the former reading, the range narrows 0.65 -> 0.35)
    res = _sts({"a": (0.6, 0.6, 0.65, 0.6), "b": (0.5, 0.5, 0.5, 0.5), "c": (-0.05, 0, 0.3, 0.3)})
    v = fd.znorm_narrows_range(res, ["a", "b", "c"])
    assert v.passed is False and v.numbers["range raw"] == pytest.approx(0.1) and "left out (raw r ≤ 0): c" in v.summary
    assert fd.znorm_narrows_range(res, ["a", "b", "c"], positive_only=False).passed is True
    # the stricter reading: to at most 9/29 of the raw range (0.3103...)
    share = fd.PAPER_RANGE[1] / fd.PAPER_RANGE[0]
    at = _sts({"a": (0.7, 0.7, 0.7, 0.7), "b": (0.4, 0.4, 0.7 - 0.3 * (share - 0.001), 0.4)})
    over = _sts({"a": (0.7, 0.7, 0.7, 0.7), "b": (0.4, 0.4, 0.7 - 0.3 * (share + 0.001), 0.4)})
    assert fd.znorm_narrows_range(at, ["a", "b"], to_share=share).passed is True
    assert fd.znorm_narrows_range(over, ["a", "b"], to_share=share).passed is False


# ----------------------------------------------------------------------------------------------- SentEval


def test_wilson_interval():
    lo, hi = fd.wilson(0.5, 100)
    assert (lo, hi) == (pytest.approx(0.403832, abs=1e-6), pytest.approx(0.596168, abs=1e-6))
    lo, hi = fd.wilson(1.0, 20)
    assert hi == pytest.approx(1.0) and 0.8 < lo < 0.85  # inside [0, 1], never past it
    lo, hi = fd.wilson(0.0, 170)
    assert lo == 0.0 and 0.02 < hi < 0.023  # not -0.000 from rounding


def _probe(acc, n_test=1000, majority=0.5, tasks=("bshift",), skipped=None):
    rows = [
        {"embedder": e, "task": t, "classifier": c, "accuracy": a, "n_test": n_test}
        for (e, c), a in acc.items()
        for t in tasks
    ]
    results = pd.DataFrame(rows)
    t = pd.DataFrame([{"task": t, "majority": majority, "skipped": skipped} for t in tasks])
    return results, t


def test_probe_at_chance_above_chance_and_beats():
    # 0.530 of 1000: Wilson [0.499, 0.561] contains 0.5 -> at chance; 0.532: [0.501, 0.563] -> not
    r, t = _probe({("bov", "mlp"): 0.530})
    assert fd.at_chance(r, t, "bov", "mlp", ["bshift"]).passed is True
    r, t = _probe({("bov", "mlp"): 0.532})
    v = fd.at_chance(r, t, "bov", "mlp", ["bshift"])
    assert v.passed is False and v.numbers["tasks at chance"] == 0
    assert fd.probe_above_chance(r, t, "bov", "mlp", ["bshift"]).passed is True
    r, t = _probe({("bov", "mlp"): 0.530})
    assert fd.probe_above_chance(r, t, "bov", "mlp", ["bshift"]).passed is False
    # BoV (MLP) against tf-idf (LR): intervals apart or not
    r, t = _probe({("bov", "mlp"): 0.80, ("tfidf", "lr"): 0.70}, tasks=("tense", "subjnum"))
    v = fd.beats(r, t, "bov", "tfidf", "mlp", ["tense", "subjnum"], "lr")
    assert v.passed is True and v.numbers["tasks better"] == 2
    r, t = _probe({("bov", "mlp"): 0.72, ("tfidf", "lr"): 0.70}, tasks=("tense",))
    assert fd.beats(r, t, "bov", "tfidf", "mlp", ["tense"], "lr").passed is False
    r, t = _probe({("bov", "mlp"): 0.5}, skipped="only 12 items per class")
    v = fd.at_chance(r, t, "bov", "mlp", ["bshift"])
    assert v.passed is None and "BShift skipped on this corpus: only 12 items per class" in v.summary
