"""The papers' findings (evaluation.findings): every check on hand-made inputs with a known verdict (✓ and ✗), the
catalogue's consistency, an end-to-end run on a small synthetic corpus with cheap embedders, and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from synthetic_text import write_corpus

from n2o_core.cli.main import main
from n2o_core.embedders.registry import BUILTIN_EMBEDDER_IDS
from n2o_core.errors import N2OError
from n2o_core.evaluation import findings as fd
from n2o_core.evaluation.heros.score import RESULT_COLUMNS as HEROS_COLUMNS
from n2o_core.evaluation.sts import RESULT_COLUMNS as STS_COLUMNS

# ----------------------------------------------------------------------------------------------- hand-made inputs


def _matrix(names, pairs, diag=1.0):
    """Symmetric N2O frame from {(a, b): value}; pairs not given are 0."""
    m = pd.DataFrame(np.eye(len(names)) * diag, index=names, columns=names)
    for (a, b), v in pairs.items():
        m.loc[a, b] = m.loc[b, a] = v
    return m


def test_group_agreement_within_vs_between():
    names = ["g1", "g2", "g3", "o"]
    high = _matrix(names, {("g1", "g2"): 0.4, ("g1", "g3"): 0.3, ("g2", "g3"): 0.2, ("g1", "o"): 0.1})
    v = fd.group_agreement(high, ["g1", "g2", "g3"], ["o"])
    assert v.passed is True
    assert v.numbers["within"] == pytest.approx(0.3) and v.numbers["between"] == pytest.approx(0.1 / 3)
    assert list(v.table["kind"]) == ["within"] * 3 + ["between"] * 3
    low = _matrix(names, {("g1", "g2"): 0.1, ("g1", "o"): 0.5, ("g2", "o"): 0.5, ("g3", "o"): 0.5})
    v = fd.group_agreement(low, ["g1", "g2", "g3"], ["o"])
    assert v.passed is False and "≤" in v.summary
    assert fd.group_agreement(low, ["g1", "missing"], ["o"]).passed is None
    std = _matrix(names, {("g1", "g2"): 0.01}, diag=0)
    assert list(fd.group_agreement(low, ["g1", "g2"], ["o"], std).table["std"]) == [0.01, 0, 0]


def test_further_than_analogue_uses_the_stated_ratio():
    names = ["sub", "nosub", "x", "y"]
    m = _matrix(names, {("sub", "x"): 0.1, ("sub", "y"): 0.1, ("nosub", "x"): 0.2, ("nosub", "y"): 0.2})
    v = fd.further_than_analogue(m, "sub", "nosub", ["x", "y"], 0.8)
    assert v.passed is True and v.numbers["ratio"] == pytest.approx(0.5) and v.numbers["lower for"] == 2
    m2 = _matrix(names, {("sub", "x"): 0.18, ("sub", "y"): 0.18, ("nosub", "x"): 0.2, ("nosub", "y"): 0.2})
    v2 = fd.further_than_analogue(m2, "sub", "nosub", ["x", "y"], 0.8)
    assert v2.passed is False and v2.numbers["ratio"] == pytest.approx(0.9)  # lower, but not by 20%
    assert fd.further_than_analogue(m, "sub", "nosub", [], 0.8).passed is None


def _n2o(mean, std, k=10, n=101):
    return fd.N2OEvidence(mean, std, k, n, 20, 3)


def test_above_chance_needs_the_lower_edge_above_k_over_n_minus_1():
    names = ["a", "b", "c"]
    mean = _matrix(names, {("a", "b"): 0.5, ("a", "c"): 0.3, ("b", "c"): 0.2})
    std = _matrix(names, {("a", "b"): 0.01, ("a", "c"): 0.01, ("b", "c"): 0.02}, diag=0)
    v = fd.above_chance(_n2o(mean, std))  # chance 10/100 = 0.1; lowest edge 0.2 - 0.04 = 0.16
    assert v.passed is True
    assert v.numbers["chance"] == pytest.approx(0.1) and v.numbers["its lower edge"] == pytest.approx(0.16)
    std2 = _matrix(names, {("b", "c"): 0.06}, diag=0)  # 0.2 - 0.12 = 0.08 < 0.1
    v2 = fd.above_chance(_n2o(mean, std2))
    assert v2.passed is False and v2.numbers["lowest pair N2O"] == pytest.approx(0.2)


def test_rankings_stable_threshold_and_too_few():
    good = pd.DataFrame([[1, 0.99, 0.97], [0.99, 1, 0.98], [0.97, 0.98, 1]], index=[5, 10, 15], columns=[5, 10, 15])
    v = fd.rankings_stable(good, 0.95, "values of k")
    assert v.passed is True and v.numbers["mean rho"] == pytest.approx(0.98) and v.numbers["min rho"] == 0.97
    bad = good.replace({0.99: 0.5, 0.97: 0.9, 0.98: 0.95})
    assert fd.rankings_stable(bad, 0.95, "values of k").passed is False
    assert fd.rankings_stable(None, 0.95, "query samples").passed is None
    nan = pd.DataFrame(np.full((2, 2), np.nan), index=[1, 2], columns=[1, 2])
    assert fd.rankings_stable(nan, 0.95, "query samples").passed is None


def _tokens(values):
    return pd.DataFrame(
        [{"embedder": e, "mean": v, "ci_low": v - 0.01, "ci_high": v + 0.01, "n": 50} for e, v in values.items()]
    )


def test_token_overlap_highest_by_factor_and_lowest():
    paper = _tokens({"tfidf": 0.101, "word2vec": 0.040, "fasttext-sub": 0.020, "minilm": 0.03})
    v = fd.highest_by_factor(paper, "tfidf", 1.5)
    assert v.passed is True and v.numbers["ratio"] == pytest.approx(0.101 / 0.040)
    assert fd.lowest(paper, "fasttext-sub").passed is True
    # every word counted (the numbers): word2vec about as high as tf-idf, fasttext-sub not the lowest
    every = _tokens({"tfidf": 0.187, "word2vec": 0.188, "fasttext-sub": 0.15, "minilm": 0.14})
    v = fd.highest_by_factor(every, "tfidf", 1.5)
    assert v.passed is False and "next word2vec 0.188" in v.summary
    v = fd.lowest(every, "fasttext-sub")
    assert v.passed is False and "ranks 3 of 4" in v.summary
    assert fd.lowest(_tokens({"tfidf": 0.1}), "fasttext-sub").passed is None


def test_popular_neighbors_ci_rule():
    apart = fd.PopularEvidence(5, 50, 30, 40, (0.6, 0.55, 0.65), (0.2, 0.18, 0.22))
    assert fd.popular_share_more_words(apart).passed is True
    overlap = fd.PopularEvidence(5, 50, 30, 40, (0.3, 0.2, 0.4), (0.25, 0.22, 0.28))
    assert fd.popular_share_more_words(overlap).passed is False
    assert fd.popular_share_more_words(fd.PopularEvidence(5, 50, 1, 1, (1, 1, 1), (0.2, 0.2, 0.2))).passed is None
    assert fd.popular_share_more_words(None).passed is None


def test_popular_evidence_on_hand_made_neighbors():
    texts = ["red apple pie", "red apple pie recipe", "blue sky", "apple tart", "green grass"]
    pool = np.array([0])
    neighbors = {"a": np.array([[1, 3, 2]]), "b": np.array([[1, 2, 4]])}
    pe = fd.popular_evidence(texts, pool, neighbors, k=3, m=1)
    # popular (both tops at m=1): sentence 1, overlap 3/3; all slots: 1, 3, 2, 1, 2, 4 -> 1, 1/3, 0, 1, 0, 0
    assert pe.n_queries == 1 and pe.n_popular == 1
    assert pe.popular[0] == pytest.approx(1.0)
    assert pe.neighbors[0] == pytest.approx((1 + 1 / 3 + 0 + 1 + 0 + 0) / 6)


def _heros(rows):
    out = []
    for e, subs in rows.items():
        for s, (v, half) in subs.items():
            out.append({"embedder": e, "subset": s, "n": 100, "raw": v, "normalized": v, "ci_low": v - half,
                        "ci_high": v + half})  # fmt: skip
    return pd.DataFrame(out, columns=HEROS_COLUMNS)


def _subs(syn, ant, main, neg_ant, half=0.005):
    return {"synonym": (syn, half), "antonym": (ant, half), "negation_main": (main, half),
            "negation_antonym": (neg_ant, half)}  # fmt: skip


def test_negation_far_above_with_stop_words_dropped_and_kept():
    # stop words dropped: "not"/"did" vanish, a negation is (nearly) the same vector
    nostop = _heros({"g": _subs(0.95, 0.94, 0.999, 1.0)})
    v = fd.negation_far_above(nostop, "g", 0.5)
    assert v.passed is True and v.numbers["largest ratio"] == pytest.approx(0.001 / 0.05)
    # all tokens, the numbers: negation (main) 0.976 below synonym 0.980
    kept = _heros({"g": _subs(0.980, 0.981, 0.976, 0.987)})
    v = fd.negation_far_above(kept, "g", 0.5)
    assert v.passed is False and v.numbers["largest ratio"] == pytest.approx(0.024 / 0.019)
    assert fd.negation_far_above(kept, "other", 0.5).passed is None
    partial = kept[kept["subset"] != "negation_main"]
    assert "negation_main" in fd.negation_far_above(partial, "g").summary


def test_main_below_antonym_share():
    res = _heros(
        {
            "a": _subs(0.9, 0.9, 0.8, 0.9),
            "b": _subs(0.9, 0.9, 0.85, 0.95),
            "c": _subs(0.9, 0.9, 0.7, 0.75),
            "d": _subs(0.9, 0.9, 1.0, 1.0),  # a tie is not below
            "e": _subs(0.9, 0.9, 0.6, 0.7),
        }
    )
    v = fd.main_below_antonym(res, ["a", "b", "c", "d", "e"], 0.8)
    assert v.passed is True and v.numbers["embedders below"] == 4 and v.numbers["share"] == 0.8
    v = fd.main_below_antonym(res, ["a", "d"], 0.8)
    assert v.passed is False and v.numbers["share"] == 0.5
    assert fd.main_below_antonym(res, ["zzz"], 0.8).passed is None


def test_negations_above_synonym_and_antonym_below_synonym():
    l3_paper = _heros({"l3": _subs(0.90, 0.85, 0.95, 0.96)})
    assert fd.negations_above_synonym(l3_paper, "l3").passed is True
    l3_bbc = _heros({"l3": _subs(0.957, 0.934, 0.905, 0.942)})
    v = fd.negations_above_synonym(l3_bbc, "l3")
    assert v.passed is False and v.numbers["negation_main"] == 0.905
    assert fd.antonym_clearly_below_synonym(l3_bbc, "l3").passed is True  # CIs ±0.005 apart
    close = _heros({"l3": _subs(0.95, 0.945, 0.9, 0.9, half=0.01)})
    assert fd.antonym_clearly_below_synonym(close, "l3").passed is False


def _sts(rows):
    return pd.DataFrame(
        [{"embedder": e, "dim": 50, "n": 100, "pearson": p, "spearman": s, "pearson_znorm": pz,
          "spearman_znorm": sz, "zero_vectors": 0} for e, (p, s, pz, sz) in rows.items()],
        columns=STS_COLUMNS,
    )  # fmt: skip


def test_znorm_raises_and_range():
    res = _sts({"glove": (0.41, 0.44, 0.62, 0.58), "use": (0.70, 0.69, 0.70, 0.70), "w2v": (0.56, 0.5, 0.65, 0.4)})
    v = fd.znorm_raises(res, "glove", "pearson")
    assert v.passed is True and v.numbers["change"] == pytest.approx(0.21)
    assert fd.znorm_raises(res, "w2v", "spearman").passed is False
    assert fd.znorm_raises(res, "none").passed is None
    v = fd.znorm_narrows_range(res, ["glove", "use", "w2v"])
    assert v.passed is True
    assert v.numbers["range raw"] == pytest.approx(0.29) and v.numbers["range znorm"] == pytest.approx(0.08)
    widen = _sts({"a": (0.5, 0.5, 0.3, 0.3), "b": (0.6, 0.6, 0.7, 0.7)})
    assert fd.znorm_narrows_range(widen, ["a", "b"]).passed is False


# ----------------------------------------------------------------------------------------------- the catalogue


def test_catalogue_is_consistent():
    ids = [f.id for f in fd.FINDINGS]
    assert len(ids) == len(set(ids))
    for f in fd.FINDINGS:
        assert f.paper in fd.PAPERS and f.analysis in (fd.NEIGHBORS, fd.HEROS, fd.STS)
        assert set(f.embedders) <= set(BUILTIN_EMBEDDER_IDS), f.id
        assert f.statement and f.rule and f.scoring and f.tested
        assert fd.finding(f.id) is f
    for u in fd.NOT_TESTABLE:
        assert u.paper in fd.PAPERS and u.reason
    with pytest.raises(N2OError, match="Unknown finding"):
        fd.finding("no-such-finding")


def test_every_check_says_why_without_evidence():
    """A check given empty evidence says why it cannot judge (never raises, never passes)."""
    for f in fd.FINDINGS:
        r = fd.judge(f, fd.Evidence())
        assert r.verdict.passed is None and r.verdict.summary.startswith("not checked"), f.id
        assert r.mark == "–"


# ----------------------------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    from n2o_core.corpora import load_corpus
    from n2o_core.storage.cache import Cache
    from n2o_core.workspace import Workspace

    d = tmp_path_factory.mktemp("findings")
    corpus = load_corpus(str(write_corpus(d / "corpus.txt", 200)))
    return Workspace(corpus, cache=Cache(d / "cache"))


def test_end_to_end_on_a_synthetic_corpus(ws):
    """Cheap findings, real cores: the numbers are the cores' own (N2O via compare, correlations via sts)."""
    from n2o_core.analyses.compare import compare

    params = fd.FindingParams(k=20, n_queries=30, n_samples=3, seed=1)
    res = fd.check_findings(ws, ["n2o-tfidf-apart", "sts-znorm-glove", "sts-znorm-glove-spearman"], params)
    assert [r.finding.id for r in res] == ["n2o-tfidf-apart", "sts-znorm-glove", "sts-znorm-glove-spearman"]
    tfidf = res[0]
    assert tfidf.verdict.passed in (True, False)
    ref = compare(ws, ["tfidf", *fd.STATIC], 20, n_queries=30, n_samples=3, seed=1)
    M = pd.DataFrame(ref.mean, index=ref.embedders, columns=ref.embedders)
    within = np.mean(
        [M.loc[a, b] for a, b in (("glove-6b-50d", "word2vec"), ("glove-6b-50d", "fasttext"), ("word2vec", "fasttext"))]
    )
    between = np.mean([M.loc[e, "tfidf"] for e in fd.STATIC])
    assert tfidf.verdict.numbers["within"] == pytest.approx(within)
    assert tfidf.verdict.numbers["between"] == pytest.approx(between)
    assert tfidf.verdict.passed is bool(within > between)
    assert tfidf.setup["k"] == 20 and tfidf.setup["sentences"] == 200 and tfidf.setup["samples"] == 3

    pearson, spearman = res[1], res[2]
    assert pearson.seconds == spearman.seconds  # one computation shared by the two findings
    n = pearson.verdict.numbers
    assert pearson.verdict.passed is bool(n["pearson_znorm"] > n["pearson"])
    assert spearman.verdict.numbers["spearman"] == pytest.approx(float(pearson.verdict.table["spearman"].iloc[0]))
    assert pearson.alternative is not None and "glove-6b-50d-nostop" in pearson.alternative.summary
    assert pearson.setup["rated pairs"] == 1225
    doc = pearson.to_json()
    assert doc["passed"] == pearson.verdict.passed and doc["alternative"]["scoring"].startswith("averaged GloVe")
    json.dumps(doc)


def test_neighbor_evidence_token_overlap_both_compositions(ws):
    params = fd.FindingParams(k=10, n_queries=20, n_samples=2)
    ev = fd.neighbor_evidence(ws, ["tfidf", "glove-6b-50d", "word2vec"], params)
    assert set(ev.tokens) == {fd.CONTENT, fd.ALL_WORDS}
    content, every = ev.tokens[fd.CONTENT], ev.tokens[fd.ALL_WORDS]
    assert list(content["embedder"]) == ["tfidf", "glove-6b-50d", "word2vec"]
    assert np.all(content["mean"].to_numpy() < every["mean"].to_numpy())  # "the" etc. are shared by every sentence
    assert ev.n2o.rho_k is not None and ev.n2o.rho_samples is not None
    assert ev.popular[fd.CONTENT].k == 10


@pytest.mark.slow
def test_heros_findings_on_a_synthetic_corpus(ws):
    """Minimal pairs need WordNet and spaCy (~30 s)."""
    res = fd.check_findings(ws, ["heros-glove-negation"], fd.FindingParams(heros_pairs=20))[0]
    assert res.setup["originals"] > 0
    n = res.verdict.numbers
    assert set(n) >= {"synonym", "antonym", "negation_main", "negation_antonym"}
    assert res.alternative is not None and "glove-6b-50d:" in res.alternative.summary


# ----------------------------------------------------------------------------------------------- CLI


def test_cli_prints_each_finding_with_its_mark(ws, tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", 120)
    out = tmp_path / "f.json"
    rc = main(["findings", "--corpus", str(corpus), "--cache-dir", str(ws.cache.root), "--finding", "n2o-tfidf-apart",
               "--queries", "20", "--samples", "2", "--k", "10", "--json", str(out)])  # fmt: skip
    assert rc == 0
    text = capsys.readouterr().out
    doc = json.loads(out.read_text())
    (f,) = doc["findings"]
    assert f["id"] == "n2o-tfidf-apart" and f["setup"]["k"] == 10 and f["setup"]["samples"] == 2
    assert f"{fd.mark(f['passed'])} n2o-tfidf-apart" in text and f["summary"] in text.replace("\n    ", " ")
    assert "rule: mean N2O among the 3 static pairs" in text


def test_cli_list_and_bad_input(capsys):
    assert main(["findings", "--list"]) == 0
    text = capsys.readouterr().out
    assert all(f.id in text for f in fd.FINDINGS) and "not testable here" in text
    assert main(["findings", "--finding", "nope"]) == 2
    assert "error: Unknown finding 'nope'" in capsys.readouterr().err
    assert main(["findings", "--k", "0"]) == 2
