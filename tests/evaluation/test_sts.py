"""Cosine vs human similarity (n2o_core.evaluation.sts) and the `sts` CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats
from sts_fixture import write_stsb
from synthetic_text import sentences

from n2o_core.cli.main import main
from n2o_core.corpora import load_corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.evaluation.pairs import lee_pairs
from n2o_core.evaluation.sts import (
    SCORING_LABELS,
    SCORINGS,
    combine_sts,
    correlation_table,
    correlations,
    moved_count,
    occurrence_stats,
    pair_cosines,
    rank_display,
    rank_table,
    run_sts,
)
from n2o_core.storage.cache import Cache

SENTS = sentences(120)


def _cos(a, b):
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    return np.where(na * nb > 0, np.einsum("ij,ij->i", a, b) / np.where(na * nb > 0, na * nb, 1), 0.0)


def _pitfalls_reference(V, i1, i2):
    """Pitfalls' z-norm literally: stack the 2n pair rows, standardize columns over them, then cosine."""
    M = np.vstack([V[i1], V[i2]])
    mu, sd = M.mean(0), M.std(0)
    sd[sd == 0] = np.inf  # constant column -> 0 after centring
    Z = (V - mu) / sd
    Z[~np.any(V != 0, axis=1)] = 0  # a zero vector stays zero
    return _cos(Z[i1], Z[i2])


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    V = rng.standard_normal((30, 6)) + np.array([3, 0, 0, 0, 0, 0])  # a large shared offset, as in real embeddings
    V[:, 5] = 1.0  # a constant dimension
    V[7] = 0  # a zero vector
    i1 = rng.integers(0, 30, 80)
    i2 = rng.integers(0, 30, 80)
    return V, i1, i2


def test_raw_cosines(data):
    V, i1, i2 = data
    assert np.allclose(pair_cosines(V, i1, i2), _cos(V[i1], V[i2]))


def test_znorm_is_pitfalls_over_the_2n_rows(data):
    V, i1, i2 = data
    got = pair_cosines(V, i1, i2, znorm=True)
    assert np.allclose(got, _pitfalls_reference(V, i1, i2))
    assert not np.allclose(got, pair_cosines(V, i1, i2))  # it changes the cosines
    counts = np.bincount(np.concatenate([i1, i2]), minlength=30)
    mean, std = occurrence_stats(V, counts)
    M = np.vstack([V[i1], V[i2]])  # each sentence counted once per pair it occurs in
    assert np.allclose(mean, M.mean(0)) and np.allclose(std, M.std(0))


def test_sparse_znorm_equals_dense(data):
    V, i1, i2 = data
    S = np.where(np.abs(V) > 0.8, V, 0.0)
    S[:, 4] = 0  # an empty column
    S[7] = 0
    dense = pair_cosines(S, i1, i2, znorm=True)
    assert np.allclose(pair_cosines(sp.csr_matrix(S), i1, i2, znorm=True), dense)
    assert np.allclose(dense, _pitfalls_reference(S, i1, i2))
    assert np.allclose(pair_cosines(sp.csr_matrix(S), i1, i2), _cos(S[i1], S[i2]))


def test_correlations_and_constant_input():
    x, y = np.array([0.1, 0.5, 0.2, 0.9]), np.array([1.0, 3.0, 4.0, 5.0])
    p, s = correlations(x, y)
    assert p == pytest.approx(stats.pearsonr(x, y)[0]) and s == pytest.approx(0.8)
    assert all(np.isnan(correlations(np.ones(4), y)))


def test_rank_table_changes():
    res = pd.DataFrame(
        {
            "embedder": ["a", "b", "c"],
            "pearson": [0.5, 0.4, 0.3],
            "spearman": [0.3, 0.4, 0.5],
            "pearson_znorm": [0.5, np.nan, 0.6],
            "spearman_znorm": [0.1, 0.1, 0.2],
        }
    )
    t = rank_table(res).set_index("embedder")
    assert t["rank_pearson"].tolist() == [1, 2, 3]
    assert t["rank_spearman"].tolist() == [3, 2, 1] and t["change_spearman"].tolist() == [-2, 0, 2]
    assert t["rank_pearson_znorm"].tolist() == [2, 3, 1]  # NaN ranks last
    assert t["rank_spearman_znorm"].tolist() == [2, 2, 1]  # ties share the better rank


def test_the_tables_as_shown_ranks_with_their_moves_and_how_many_move():
    rows = [  # embedder, dim, n, then the four scorings in SCORINGS order, zero vectors
        ("a", 50, 10, 0.3, 0.3, 0.3, 0.6, 0),
        ("b", 384, 10, 0.5, 0.4, 0.5, 0.1, 1),
        ("c", 1200, 10, 0.4, 0.5, 0.4, 0.2, 0),
    ]
    res = pd.DataFrame(rows, columns=["embedder", "dim", "n", *SCORINGS, "zero_vectors"])
    t = correlation_table(res)
    assert list(t.columns) == ["embedder", "dimension", "n", *SCORING_LABELS.values(), "zero vectors"]
    assert t["Spearman, z-norm"].tolist() == [0.6, 0.1, 0.2] and t["dimension"].tolist() == [50, 384, 1200]
    shown = rank_display(rank_table(res))
    assert shown["embedder"].tolist() == ["b", "c", "a"]  # by raw Pearson rank
    assert shown["Pearson"].tolist() == [1, 2, 3]
    assert shown["Spearman"].tolist() == ["2 ▼1", "1 ▲1", "3 ="]
    assert shown["Pearson, z-norm"].tolist() == ["1 =", "2 =", "3 ="]
    assert shown["Spearman, z-norm"].tolist() == ["3 ▼2", "2 =", "1 ▲2"]
    assert moved_count(rank_table(res)) == 3  # c too: ranks 2, 1, 2, 2
    same = res.assign(spearman=res["pearson"], spearman_znorm=res["pearson"])
    assert moved_count(rank_table(same)) == 0
    assert moved_count(rank_table(same.assign(pearson_znorm=[0.5, 0.3, 0.4]))) == 2  # a and b swap; c stays 2nd


def test_run_sts_on_lee_matches_direct_computation(tmp_path):
    pairs = lee_pairs()
    ws = Workspace(load_corpus("builtin:lee-news", cache_dir=str(tmp_path)), cache=Cache(tmp_path / "c"))
    res = run_sts(ws, pairs, ["glove-6b-50d", "tfidf"])
    docs = pairs.extra["documents"]
    i1, i2 = pairs.extra["index1"], pairs.extra["index2"]
    human = pairs.scores
    for eid in ("glove-6b-50d", "tfidf"):
        V = ws.encode_texts(eid, docs)  # one text per whole document
        V = np.asarray(V.toarray() if sp.issparse(V) else V, np.float64)
        row = res.results.set_index("embedder").loc[eid]
        raw = _cos(V[i1], V[i2])
        assert row["pearson"] == pytest.approx(stats.pearsonr(raw, human)[0])
        assert row["spearman"] == pytest.approx(stats.spearmanr(raw, human)[0])
        zn = _pitfalls_reference(V, i1, i2)
        assert row["pearson_znorm"] == pytest.approx(stats.pearsonr(zn, human)[0])
        assert row["dim"] == V.shape[1] and row["n"] == 1225
    d = res.to_json()
    assert d["fit_corpus"] == "lee-news" and set(d["rankings"]) == set(SCORINGS)
    assert any("256 word pieces" in n for n in d["notes"])


def test_one_embedder_at_a_time_combines_into_one_runs_result(tmp_path):
    """`combine_sts` over single-embedder runs (the dashboard keeps them so) gives what one run over them gives:
    the rows in the given order, ranks over them all (not each part's rank 1), every embedder's cosines."""
    pairs = lee_pairs()
    ws = Workspace(load_corpus("builtin:lee-news", cache_dir=str(tmp_path)), cache=Cache(tmp_path / "c"))
    names = ["tfidf", "glove-6b-50d"]
    whole = run_sts(ws, pairs, names)
    got = combine_sts([run_sts(ws, pairs, [e]) for e in names])
    assert got is not None
    pd.testing.assert_frame_equal(got.results, whole.results)
    pd.testing.assert_frame_equal(got.ranks, whole.ranks)
    assert sorted(got.ranks["rank_pearson"]) == [1, 2]
    assert list(got.cosines) == names and np.array_equal(got.cosines["tfidf"], whole.cosines["tfidf"])
    assert got.to_json() == whole.to_json()
    assert combine_sts([]) is None


def test_cli_sts_on_a_pair_file_fits_on_its_sentences(tmp_path, cache_dir):
    path = tmp_path / "sts.csv"
    write_stsb(path, SENTS, n=80, seed=2)
    out = tmp_path / "s.json"
    assert main(["sts", "--pairs", str(path), "--embedder", "tfidf", "--embedder", "word2vec", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["fit_corpus"] == f"pair sentences of {path}"
    assert [r["embedder"] for r in d["results"]] == ["tfidf", "word2vec"]
    for r in d["results"]:
        assert set(r) >= {"embedder", "dim", "n", *SCORINGS} and r["n"] == 80
        assert all(-1 <= r[s] <= 1 for s in SCORINGS)
    tfidf = d["results"][0]
    assert tfidf["pearson"] > 0.5  # the fixture's rewrites share words with their sentence, the others do not


@pytest.mark.parametrize(
    "spec, match", [("synthetic:heros-synonym", "carry no human scores"), ("heros:{heros}", "no human scores")]
)
def test_cli_sts_refuses_unscored_pairs(tmp_path, cache_dir, capsys, spec, match):
    heros = tmp_path / "h.tsv"
    heros.write_text("Original\tSynonym\nThe shares rose sharply.\tThe shares climbed sharply.\n", encoding="utf-8")
    assert main(["sts", "--pairs", spec.format(heros=heros), "--embedder", "tfidf"]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and match in err[0]


@pytest.mark.slow
def test_cli_sts_lee_every_default_embedder(tmp_path, cache_dir):
    from n2o_core.embedders.registry import PAPER_EMBEDDER_IDS

    out = tmp_path / "lee.json"
    assert main(["sts", "--pairs", "builtin:lee", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert [r["embedder"] for r in d["results"]] == list(PAPER_EMBEDDER_IDS)
    assert all(r["n"] == 1225 and r["pearson"] is not None for r in d["results"])
