"""The paraphrase needle in a haystack (n2o_core.evaluation.needle) and the `needle` CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sts_fixture import write_stsb
from synthetic_text import sentences

from n2o_core.cli.main import main
from n2o_core.corpora import from_texts, load_corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.evaluation.needle import (
    TIE_TOL,
    by_mrr,
    combine_needle,
    display_table,
    exclusions,
    interval_line,
    paraphrase_ranks,
    reciprocal_ranks,
    run_needle,
    summarize,
)
from n2o_core.evaluation.pairs import filter_pairs, load_pairs
from n2o_core.search.rows import Standardizer
from n2o_core.storage.cache import Cache

SENTS = sentences(150)


def reference(X, Q, P, excl, std=None):
    """Brute force: every cosine in float64, one query at a time."""

    def unit(A):
        A = np.asarray(A.toarray() if sp.issparse(A) else A, np.float64).copy()
        zero = ~np.any(A != 0, axis=1)
        if std is not None:
            A = (A - std.mean) * std.scale
            A[zero] = 0
        n = np.linalg.norm(A, axis=1)
        A[n > 0] /= n[n > 0, None]
        return A, n == 0

    Xn, xz = unit(X)
    Qn, qz = unit(Q)
    Pn, pz = unit(P)
    ranks, ties = [], []
    for i in range(len(Qn)):
        s = Xn @ Qn[i]
        p = Qn[i] @ Pn[i]
        ok = ~xz
        ok[[j for j in excl[i] if j >= 0]] = False
        if qz[i] or pz[i]:
            ranks.append(0)
            ties.append(0)
            continue
        ranks.append(1 + int(np.sum(ok & (s > p + TIE_TOL))))
        ties.append(int(np.sum(ok & (np.abs(s - p) <= TIE_TOL))))
    return np.array(ranks), np.array(ties)


# ------------------------------------------------------------------------------------------- pure core


def test_hand_example_tie_and_exclusion():
    X = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [2, 1]], np.float32)
    Q = np.array([[1, 0.1]], np.float32)
    P = np.array([[1, 0.5]], np.float32)  # same direction as X[5]: a tie
    r = paraphrase_ranks(X, Q, P, np.array([[-1, -1]]))
    # cos(q, x0) = cos(q, x4) = 0.995 > cos(q, p) = 0.934 > cos(q, x2) = 0.774; x3 is a zero vector
    assert r.rank.tolist() == [3] and r.ties.tolist() == [1]
    assert r.sims[0] == pytest.approx(1.05 / (np.hypot(1, 0.1) * np.hypot(1, 0.5)))
    assert r.outrankers(0) == [(0, pytest.approx(1 / np.hypot(1, 0.1))), (4, pytest.approx(1 / np.hypot(1, 0.1)))]
    assert paraphrase_ranks(X, Q, P, np.array([[0, -1]])).rank.tolist() == [2]  # X[0] excluded
    assert paraphrase_ranks(X, Q, P, np.array([[0, 4]])).rank.tolist() == [1]


@pytest.mark.parametrize("znorm", [False, True])
def test_matches_brute_force_in_any_blocking(tie_vectors, znorm):
    rng = np.random.default_rng(1)
    X = tie_vectors  # duplicates, zero rows and many exact ties
    Q = X[rng.choice(len(X), 40)] + rng.integers(-1, 2, size=(40, 4)).astype(np.float32)
    Q[3] = 0  # a zero query: unrankable
    P = X[rng.choice(len(X), 40)].copy()
    excl = np.stack([rng.integers(-1, len(X), 40), rng.integers(-1, len(X), 40)], axis=1)
    std = Standardizer.fit(X) if znorm else None
    want_r, want_t = reference(X, Q, P, excl, std)
    assert want_t.sum() > 0  # the data does have ties
    for block in (7, 64, None):
        got = paraphrase_ranks(X, Q, P, excl, standardizer=std, block=block, top=4)
        assert got.rank.tolist() == want_r.tolist()
        assert got.ties.tolist() == want_t.tolist()
        assert got.rank[3] == 0
        for i in range(40):  # outrankers: the best corpus rows above the paraphrase, none excluded
            ids = [j for j, _ in got.outrankers(i)]
            assert len(ids) == min(4, max(int(got.rank[i]) - 1, 0))
            assert not set(ids) & set(excl[i].tolist())


def test_sparse_equals_dense():
    rng = np.random.default_rng(2)
    X = sp.random(500, 60, density=0.05, random_state=3, format="csr", dtype=np.float64)
    Q = sp.random(20, 60, density=0.2, random_state=4, format="csr")
    P = sp.random(20, 60, density=0.2, random_state=5, format="csr")
    excl = np.stack([rng.integers(-1, 500, 20), np.full(20, -1)], axis=1)
    a = paraphrase_ranks(X, Q, P, excl, block=33)
    b = paraphrase_ranks(X.toarray(), Q.toarray(), P.toarray(), excl)
    assert a.rank.tolist() == b.rank.tolist() == reference(X, Q, P, excl)[0].tolist()


def test_summary_values():
    rank = np.array([1, 2, 0, 5, 6])
    s = summarize(rank, np.array([0, 1, 0, 0, 2]), n_boot=500)
    assert s["mrr"] == pytest.approx((1 + 1 / 2 + 0 + 1 / 5 + 1 / 6) / 5)
    assert (s["top1"], s["top5"], s["n"], s["unrankable"], s["tied_pairs"]) == (1, 3, 5, 1, 2)
    assert s["mrr_ci_low"] <= s["mrr"] <= s["mrr_ci_high"]
    assert reciprocal_ranks(rank).tolist() == [1, 0.5, 0, 0.2, pytest.approx(1 / 6)]


def test_the_kept_pair_count_stands_beside_the_intervals():
    import pandas as pd

    res = pd.DataFrame(
        {
            "embedder": ["a", "b"],
            "mrr": [0.5, 0.3],
            "mrr_ci_low": [0.33, 0.14],
            "mrr_ci_high": [0.67, 0.5],
            "top1": [7, 4],
            "top5": [10, 8],
            "n": [18, 18],
            "unrankable": [0, 0],
            "tied_pairs": [0, 1],
            "znorm": [False, False],
        }
    )
    t = display_table(res, "gensim Lee")
    cols = list(t.columns)
    assert cols[:6] == ["embedder", "MRR", "CI low", "CI high", "± (95%)", "pairs kept"]
    assert t["± (95%)"].tolist() == [pytest.approx(0.17), pytest.approx(0.18)] and t["pairs kept"].tolist() == [18, 18]
    assert set(t["pairs"]) == {"gensim Lee"}
    line = interval_line(res, 1225)
    assert line.startswith("**18 of 1,225 pairs kept**: MRR intervals ±0.17 to ±0.18 (95%")
    assert "±0.17 (95%" in interval_line(res.iloc[:1], 1225)


def test_exclusions_match_whitespace_normalized_text():
    texts = ["Alpha beta.", "Gamma delta.", "Eps."]
    got = exclusions(texts, ["Gamma  delta.", "New one."], ["Alpha beta.", "gamma delta."])
    assert got.tolist() == [[1, 0], [-1, -1]]  # case-sensitive


# ------------------------------------------------------------------------------------------- with a Workspace


@pytest.fixture
def ws(tmp_path):
    return Workspace(from_texts(SENTS, name="toy"), cache=Cache(tmp_path / "cache"))


@pytest.fixture
def pairs(tmp_path):
    path = tmp_path / "sts.csv"
    write_stsb(path, SENTS, n=60, seed=0)
    return filter_pairs(load_pairs(str(path)))


def test_run_needle_reuses_corpus_vectors_and_matches_reference(ws, pairs, monkeypatch):
    encoded = []
    orig = ws.encode_texts
    monkeypatch.setattr(ws, "encode_texts", lambda eid, texts: encoded.append(list(texts)) or orig(eid, texts))
    res = run_needle(ws, pairs, ["tfidf", "glove-6b-50d"], top=2, n_boot=200)
    df = pairs.pairs.frame
    assert all(set(t) == set(df["sentence1"]) | set(df["sentence2"]) for t in encoded)  # only the pairs
    excl = exclusions(ws.corpus.texts, df["sentence1"].tolist(), df["sentence2"].tolist())
    assert (excl[:, 0] >= 0).all()  # every fixture query is a corpus sentence: excluded from its own candidates
    assert res.excluded == {"query_in_corpus": len(df), "paraphrase_in_corpus": 0}
    for eid in ("tfidf", "glove-6b-50d"):
        X = ws.embeddings(eid)
        V = orig(eid, df["sentence1"].tolist() + df["sentence2"].tolist())
        want, _ = reference(X, V[: len(df)], V[len(df) :], excl)
        assert res.ranks[eid].rank.tolist() == want.tolist()
        row = res.results.set_index("embedder").loc[eid]
        assert row["mrr"] == pytest.approx(np.mean(1 / want))
        assert row["top1"] == int(np.sum(want == 1)) and row["top5"] == int(np.sum(want <= 5))
    assert res.results["mrr"].is_monotonic_decreasing
    rec = res.pair_records()[0]
    assert rec["query"] == df["sentence1"][0] and set(rec["ranks"]) == {"tfidf", "glove-6b-50d"}
    for e, outs in rec["outranked_by"].items():
        assert len(outs) == min(2, rec["ranks"][e] - 1)
        assert all(o["text"] == ws.corpus.texts[o["id"]] and o["cosine"] > rec["paraphrase_cosine"][e] for o in outs)


def test_znorm_uses_the_corpus_standardizer(ws, pairs):
    res = run_needle(ws, pairs, ["glove-6b-50d", "tfidf"], znorm=True, n_boot=100)
    df = pairs.pairs.frame
    V = ws.encode_texts("glove-6b-50d", df["sentence1"].tolist() + df["sentence2"].tolist())
    excl = exclusions(ws.corpus.texts, df["sentence1"].tolist(), df["sentence2"].tolist())
    std = ws.standardizer("glove-6b-50d")
    want, _ = reference(ws.embeddings("glove-6b-50d"), V[: len(df)], V[len(df) :], excl, std)
    assert res.ranks["glove-6b-50d"].rank.tolist() == want.tolist()
    znorm = dict(zip(res.results["embedder"], res.results["znorm"]))
    assert znorm == {"glove-6b-50d": True, "tfidf": True}
    # sparse tf-idf z-normalized without densifying = the dense reference on the densified vectors
    T = ws.encode_texts("tfidf", df["sentence1"].tolist() + df["sentence2"].tolist()).toarray()
    X = ws.embeddings("tfidf").toarray()
    want_t, _ = reference(X, T[: len(df)], T[len(df) :], excl, ws.standardizer("tfidf"))
    assert res.ranks["tfidf"].rank.tolist() == want_t.tolist()


def test_precomputed_vectors_need_pair_vectors(ws, pairs, tmp_path):
    np.save(tmp_path / "g.npy", np.asarray(ws.embeddings("glove-6b-50d")))
    ws.add_vectors("mine", tmp_path / "g.npy")
    with pytest.raises(N2OError, match=r"give --pair-vectors mine=FILE\.npy"):
        run_needle(ws, pairs, ["mine"])
    loaded = load_pairs(pairs.pairs.source.spec)
    pv = ws.encode_texts("glove-6b-50d", loaded.queries + loaded.paraphrases)
    res = run_needle(ws, pairs, ["mine", "glove-6b-50d"], pair_vectors={"mine": pv}, n_boot=50)
    assert res.ranks["mine"].rank.tolist() == res.ranks["glove-6b-50d"].rank.tolist()


# ------------------------------------------------------------------------------------------- CLI


def _corpus_file(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(SENTS) + "\n", encoding="utf-8")
    return path


def _kept_by_hand(rows, genre="news"):
    """The paper's filters applied here to the rows as written: news genre, score >= 4, query-word overlap < 0.6."""
    from n2o_core.text import token_set

    kept = []
    for g, _f, _y, _i, score, s1, s2 in rows:
        q, p = token_set(s1), token_set(s2)
        if (genre is None or g.endswith(genre)) and float(score) >= 4 and len(q & p) / len(q) < 0.6:
            kept.append((s1, s2))
    return kept


def test_cli_needle_json(tmp_path, cache_dir):
    """Every pair checked: the kept pairs are the ones the paper's filters keep (news genre by default, as the paper
    did), and each pair's rank is the brute-force rank computed here from the embeddings."""
    pairs_file = tmp_path / "sts-test.csv"
    rows = write_stsb(pairs_file, SENTS, n=60, seed=1)
    out = tmp_path / "n.json"
    corpus_file = _corpus_file(tmp_path)
    argv = ["needle", "--corpus", str(corpus_file), "--pairs", str(pairs_file)]
    rc = main([*argv, "--embedder", "tfidf", "--embedder", "glove-6b-50d", "--n-boot", "100", "--json", str(out)])
    assert rc == 0
    d = json.loads(out.read_text())
    kept = _kept_by_hand(rows)
    n_news = sum(r[0] == "main-news" for r in rows)
    assert 0 < len(kept) < n_news < 60
    assert d["embedders"] == ["tfidf", "glove-6b-50d"] and d["corpus_size"] == 150 and d["n_loaded"] == 60
    assert d["n_pairs"] == len(kept) and d["dropped"]["genre"] == 60 - n_news
    assert d["filters"]["genre"] == ["news"] and d["filters"]["min_score"] == 4.0 and d["filters"]["max_overlap"] == 0.6
    assert not d["synthetic"] and d["pairs_source"]["kind"] == "sts-b"
    assert [p["query"] for p in d["pairs"]] == [q for q, _ in kept]
    assert all(p["score"] >= 4 and p["overlap"] < 0.6 for p in d["pairs"])
    ws = Workspace(load_corpus(str(corpus_file)), cache=Cache(cache_dir))
    queries = [p["query"] for p in d["pairs"]]
    paras = [p["paraphrase"] for p in d["pairs"]]
    excl = exclusions(ws.corpus.texts, queries, paras)
    for r in d["results"]:
        e = r["embedder"]
        V = ws.encode_texts(e, queries + paras)
        want, _ = reference(ws.embeddings(e), V[: len(queries)], V[len(queries) :], excl)
        assert [p["ranks"][e] for p in d["pairs"]] == want.tolist(), e
        assert r["mrr"] == pytest.approx(np.mean(1 / want), abs=1e-6) and r["n"] == len(kept)
        assert r["top1"] == int(np.sum(want == 1)) and r["top5"] == int(np.sum(want <= 5))
    mrrs = [r["mrr"] for r in d["results"]]
    assert mrrs == sorted(mrrs, reverse=True)
    # --genre all keeps every genre: the same filters otherwise
    assert main([*argv, "--embedder", "tfidf", "--genre", "all", "--n-boot", "10", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["n_pairs"] == len(_kept_by_hand(rows, None)) and "genre" not in d["dropped"]


def test_cli_lee_says_how_few_pairs_are_kept_and_the_looser_setting(tmp_path, cache_dir, capsys):
    argv = ["needle", "--corpus", str(_corpus_file(tmp_path)), "--pairs", "builtin:lee", "--embedder", "tfidf"]
    assert main([*argv, "--cache-dir", str(cache_dir), "--n-boot", "50"]) == 0
    out = capsys.readouterr().out
    assert "only 18 pairs kept (the paper: 75); the score filter dropped the most (1207)" in out
    assert "looser: score ≥ 3.1 (the paper: ≥ 4) keeps 77 pairs (--min-score 3.1; a deviation from the paper)" in out
    assert main([*argv, "--cache-dir", str(cache_dir), "--n-boot", "50", "--min-score", "3.1"]) == 0
    out = capsys.readouterr().out
    assert "77 kept" in out and "only" not in out


def test_cli_needle_heros_file_keeps_the_synonym_subset(tmp_path, cache_dir):
    heros = tmp_path / "heros.tsv"
    rows = [(s, s.replace("The ", "A ", 1), s.replace(" the ", " no ", 1)) for s in SENTS[:5]]
    heros.write_text("Original\tSynonym\tAntonym\n" + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "h.json"
    argv = ["needle", "--corpus", str(_corpus_file(tmp_path)), "--pairs", f"heros:{heros}", "--embedder", "tfidf"]
    assert main([*argv, "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["filters"]["genre"] == ["synonym"] and d["dropped"] == {"genre": 5}
    assert [p["paraphrase"] for p in d["pairs"]] == [r[1] for r in rows]
    assert all(p["score"] is None for p in d["pairs"])


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    err = [ln for ln in err if ln.strip()]
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


@pytest.mark.parametrize(
    "content, match",
    [
        ("sentence1\tsentence2\nThe bank cut rates.\tRates were cut.\n", "no score column"),
        ("sentence1\tsentence2\tscore\nThe bank cut rates.\tRates were cut.\t7\n", "outside the 0-5 scale"),
        ("sentence1\tsentence2\tscore\nThe bank cut rates.\tRates were cut.\t1.5\n", "No pairs are left"),
        ("sentence1\tsentence2\tscore\n-- !!\tRates were cut.\t4.5\n", "has no word tokens"),
        (b"sentence1\tsentence2\tscore\nThe caf\xe9 cut rates.\tRates were cut.\t4.5\n", "not UTF-8"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path, cache_dir, capsys, content, match):
    path = tmp_path / "bad.tsv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    rc = main(["needle", "--corpus", str(_corpus_file(tmp_path)), "--pairs", str(path), "--embedder", "tfidf"])
    assert rc == 2
    assert match in _one_error_line(capsys)


def test_cli_precomputed_without_pair_vectors_exits_2(tmp_path, cache_dir, capsys):
    pairs_file = tmp_path / "sts.csv"
    write_stsb(pairs_file, SENTS, n=60)
    np.save(tmp_path / "v.npy", np.random.default_rng(0).standard_normal((150, 8)).astype(np.float32))
    argv = ["needle", "--corpus", str(_corpus_file(tmp_path)), "--pairs", str(pairs_file)]
    assert main([*argv, "--vectors", f"mine={tmp_path / 'v.npy'}"]) == 2
    assert "--pair-vectors mine=FILE.npy" in _one_error_line(capsys)


# ------------------------------------------------------------------------------------------- slow


@pytest.mark.slow
def test_bbc_5000_four_embedders(tmp_path, cache_dir):
    """The done-when run: 200 STS-B-layout pairs (fixture, made from BBC sentences; the news-genre ones kept, as the
    paper did) against 5,000 BBC sentences with four default embedders, offline. Each pair's rank is checked against
    the brute-force rank."""
    bbc = load_corpus("builtin:bbc-news", max_sentences=5000, cache_dir=str(cache_dir))
    pool = [t for t in bbc.texts if 10 <= len(t.split()) <= 25]
    pairs_file = tmp_path / "sts-bbc.csv"
    rows = write_stsb(pairs_file, pool, n=200, seed=0)
    out = tmp_path / "bbc.json"
    ids = ["tfidf", "glove-6b-50d", "word2vec", "fasttext"]
    argv = ["needle", "--corpus", "builtin:bbc-news", "--max-sentences", "5000", "--pairs", str(pairs_file)]
    assert main([*argv, *(a for e in ids for a in ("--embedder", e)), "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["corpus_size"] == 5000 and d["n_pairs"] == len(_kept_by_hand(rows)) >= 20
    assert {r["embedder"] for r in d["results"]} == set(ids)
    ws = Workspace(bbc, cache=Cache(cache_dir))
    queries = [p["query"] for p in d["pairs"]]
    paras = [p["paraphrase"] for p in d["pairs"]]
    excl = exclusions(ws.corpus.texts, queries, paras)
    for r in d["results"]:
        e = r["embedder"]
        V = ws.encode_texts(e, queries + paras)
        want, _ = reference(ws.embeddings(e), V[: len(queries)], V[len(queries) :], excl)
        assert [p["ranks"][e] for p in d["pairs"]] == want.tolist(), e
        assert r["mrr"] == pytest.approx(np.mean(1 / want), abs=1e-6)


@pytest.mark.slow
def test_cli_synthetic_pairs_are_labelled(tmp_path, cache_dir, capsys):
    out = tmp_path / "syn.json"
    argv = ["needle", "--corpus", str(_corpus_file(tmp_path)), "--pairs", "synthetic:heros-synonym:8"]
    assert main([*argv, "--embedder", "tfidf", "--json", str(out)]) == 0
    assert "NOTE: synthetic pairs" in capsys.readouterr().out
    d = json.loads(out.read_text())
    assert d["synthetic"] and d["pairs_source"]["label"].startswith("SYNTHETIC")
    assert d["filters"]["max_overlap"] is None and d["filters"]["min_score"] is None
    assert all(p["synthetic"] and p["source"] == "synthetic:heros-synonym:8" for p in d["pairs"])
    assert all(p["query"] in SENTS and p["paraphrase"] not in SENTS for p in d["pairs"])


def test_an_embedders_ci_does_not_depend_on_the_others_in_the_run(ws, pairs):
    """The bootstrap resamples the same pairs for every embedder: glove's CI is the same alone or after tf-idf."""
    alone = run_needle(ws, pairs, ["glove-6b-50d"], n_boot=200).results.set_index("embedder")
    both = run_needle(ws, pairs, ["tfidf", "glove-6b-50d"], n_boot=200).results.set_index("embedder")
    cols = ["mrr", "mrr_ci_low", "mrr_ci_high"]
    assert alone.loc["glove-6b-50d", cols].tolist() == both.loc["glove-6b-50d", cols].tolist()
    assert alone.loc["glove-6b-50d", "mrr_ci_low"] < alone.loc["glove-6b-50d", "mrr_ci_high"]


def test_one_embedder_at_a_time_combines_into_one_runs_result(ws, pairs):
    """`combine_needle` over single-embedder runs (the dashboard keeps them so) gives what one run over every
    embedder gives: the same rows, sorted best MRR first, the same ranks, pairs, corpus and exclusions."""
    names = ["tfidf", "glove-6b-50d", "minilm-l6-mean"]
    whole = run_needle(ws, pairs, names, n_boot=100, top=2)
    parts = [run_needle(ws, pairs, [e], n_boot=100, top=2) for e in names]
    got = combine_needle(parts)
    assert got is not None
    pd.testing.assert_frame_equal(got.results, whole.results)
    assert got.results["mrr"].is_monotonic_decreasing and set(got.results["embedder"]) == set(names)
    assert list(got.ranks) == names and got.excluded == whole.excluded and got.corpus_name == "toy"
    for e in names:
        assert got.ranks[e].rank.tolist() == whole.ranks[e].rank.tolist()
    assert got.to_json(top=2) == whole.to_json(top=2)
    assert combine_needle([]) is None


def test_every_pairs_rank_as_listed_unrankable_empty(ws, pairs):
    res = run_needle(ws, pairs, ["tfidf", "glove-6b-50d"], n_boot=50)
    res.ranks["tfidf"].rank[1] = 0  # as an unrankable pair (nothing to embed) is recorded
    t = res.rank_table(["glove-6b-50d", "tfidf"])
    df = pairs.pairs.frame
    assert list(t.columns) == ["row", "query", "paraphrase", "score", "overlap", "glove-6b-50d", "tfidf"]
    assert t["query"].tolist() == df["sentence1"].tolist() and t["overlap"].tolist() == df["overlap"].round(3).tolist()
    assert t["glove-6b-50d"].tolist() == res.ranks["glove-6b-50d"].rank.tolist()
    assert pd.isna(t["tfidf"][1]) and t["tfidf"][0] == res.ranks["tfidf"].rank[0]
    assert list(res.rank_table().columns[-2:]) == ["tfidf", "glove-6b-50d"]  # every embedder by default


def test_by_mrr_keeps_the_given_order_among_equal_mrrs():
    t = pd.DataFrame({"embedder": ["a", "b", "c", "d"], "mrr": [0.2, 0.5, 0.2, np.nan]})
    assert by_mrr(t)["embedder"].tolist() == ["b", "a", "c", "d"]
    assert by_mrr(t).index.tolist() == [0, 1, 2, 3]
