"""Per-sentence N2O: brute-force reference, equality with compare's N2O, rankings, features, CLI, bad input."""

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from n2o_core.analyses.agreement import (
    RARE_MAX,
    agreement,
    by_value,
    corpus_features,
    decile_table,
    extreme_ties,
    extremes,
    per_sentence_n2o,
    ranking_frame,
    sentence_features,
    summarize,
    token_counts,
)
from n2o_core.analyses.compare import compare
from n2o_core.cli.main import main
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.pipeline import default_approx, every_sentence_neighbors
from n2o_core.storage.cache import Cache

N = 120


def brute_neighbors(X, q, k):
    norms = np.linalg.norm(X, axis=1)
    if norms[q] == 0:
        return []
    Xn = np.divide(X, norms[:, None], out=np.zeros_like(X, dtype=float), where=norms[:, None] > 0)
    s = np.round(Xn @ Xn[q], 9)
    s[norms == 0] = -3.0
    return [j for _, j in sorted((-s[j], j) for j in range(len(X)) if j != q)[:k]]


@pytest.fixture
def setup(tmp_path):
    rng = np.random.default_rng(0)
    texts = [f"sentence number {i} about {'sport' if i % 3 else 'money'}" for i in range(N)]
    corpus = from_texts(texts, name="synthetic", labels=["sport" if i % 3 else "money" for i in range(N)])
    base = rng.standard_normal((N, 12))
    X = {}
    for name, noise in [("a", 0.0), ("b", 0.6), ("c", 2.0)]:
        X[name] = (base + rng.normal(0, noise, base.shape)).astype(np.float32)
    X["c"][7] = 0.0  # a sentence with no vector under c
    ws = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    for name, arr in X.items():
        np.save(tmp_path / f"{name}.npy", arr)
        ws.add_vectors(name, tmp_path / f"{name}.npy")
    return ws, X


def test_per_sentence_matches_brute_force(setup):
    ws, X = setup
    k = 8
    res = agreement(ws, ["a", "b", "c"], k)
    for a, b in [("a", "b"), ("a", "c"), ("b", "c")]:
        got = res.pair(a, b)
        ref = np.array([len(set(brute_neighbors(X[a], q, k)) & set(brute_neighbors(X[b], q, k))) / k for q in range(N)])
        np.testing.assert_allclose(got, ref)
    assert res.pair("a", "c")[7] == 0.0  # zero-vector query: no neighbors, overlaps with nothing
    assert not res.has_neighbors()[7] and res.has_neighbors().sum() == N - 1
    assert res.has_neighbors("a", "b").all() and not res.has_neighbors("c")[7]
    # less noise -> more shared neighbors; both above chance
    assert res.pair("a", "b").mean() > res.pair("a", "c").mean() > res.chance


def test_mean_equals_compare_n2o_with_every_sentence_a_query(setup):
    ws, _ = setup
    k = 10
    res = agreement(ws, ["a", "b", "c"], k)
    cmp = compare(ws, ["a", "b", "c"], k, n_queries=N, n_samples=1)
    assert np.array_equal(cmp.pool, np.arange(N))
    for i, j, a, b in [(0, 1, "a", "b"), (0, 2, "a", "c"), (1, 2, "b", "c")]:
        assert res.pair(a, b).mean() == pytest.approx(cmp.mean[i, j], abs=1e-12)
    # mean pairwise agreement per sentence averages to the mean of the pair N2Os
    iu = np.triu_indices(3, 1)
    assert res.mean_pairwise().mean() == pytest.approx(cmp.mean[iu].mean(), abs=1e-12)
    np.testing.assert_allclose(res.mean_pairwise(), (res.pair("a", "b") + res.pair("a", "c") + res.pair("b", "c")) / 3)
    frame = res.pair_means()
    assert list(zip(frame.a, frame.b)) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert frame.n2o.tolist() == pytest.approx(cmp.mean[iu].tolist(), abs=1e-12)
    least = res.pair_means(least_first=True)  # the page's order: the least agreed pair first
    assert least.n2o.tolist() == sorted(frame.n2o.tolist())
    assert sorted(zip(least.a, least.b)) == [("a", "b"), ("a", "c"), ("b", "c")]


def test_selected_sentences_by_value_lowest_first_ties_as_given():
    values = np.array([0.5, 0.1, 0.3, 0.1, 0.9])
    assert by_value([4, 3, 0, 1], values).tolist() == [3, 1, 0, 4]
    assert by_value(np.array([1, 3]), values).tolist() == [1, 3] and by_value([3, 1], values).tolist() == [3, 1]
    assert by_value([], values).tolist() == []


def test_smaller_k_is_a_slice_of_the_cached_search(setup, monkeypatch):
    ws, _ = setup
    full = agreement(ws, ["a", "b"], 10)
    import n2o_core.corpus_workspace as wsmod

    monkeypatch.setattr(wsmod, "exact_knn", lambda *a, **k: (_ for _ in ()).throw(AssertionError("searched")))
    small = agreement(ws, ["a", "b"], 4, k_max=10)
    np.testing.assert_array_equal(small.neighbors["a"], full.neighbors["a"][:, :4])
    np.testing.assert_allclose(small.pair("a", "b"), per_sentence_n2o(full.neighbors["a"], full.neighbors["b"], 4))


def test_bad_input(setup):
    ws, _ = setup
    with pytest.raises(N2OError, match="at least two embedders"):
        agreement(ws, ["a"], 5)
    with pytest.raises(N2OError, match="given twice"):
        agreement(ws, ["a", "a"], 5)
    with pytest.raises(N2OError, match="smaller than the corpus size"):
        agreement(ws, ["a", "b"], N)
    with pytest.raises(N2OError, match="positive"):
        agreement(ws, ["a", "b"], 0)
    res = agreement(ws, ["a", "b"], 3)
    with pytest.raises(N2OError, match="not part of this agreement"):
        res.pair("a", "c")
    with pytest.raises(N2OError, match="both embedders"):
        res.values("a", None)


def test_to_json(setup):
    ws, _ = setup
    res = agreement(ws, ["a", "b"], 5)
    doc = json.loads(json.dumps(res.to_json()))
    assert doc["k"] == 5 and doc["corpus_size"] == N and doc["pair"] == ["a", "b"] and doc["search"] == "exact"
    assert [r["id"] for r in doc["per_sentence"]] == list(range(N))
    v = res.pair("a", "b")
    assert [r["n2o"] for r in doc["per_sentence"]] == pytest.approx(v.tolist())
    assert doc["mean"] == pytest.approx(v.mean()) and doc["pairs"][0]["n2o"] == pytest.approx(v.mean(), abs=1e-6)
    three = agreement(ws, ["a", "b", "c"], 5).to_json()
    assert three["pair"] is None and len(three["pairs"]) == 3


def test_default_search_switches_to_approx_only_for_large_corpora():
    assert not default_approx(38_019)
    assert default_approx(10**6)


# --------------------------------------------------------------------------- rankings and features


def test_extremes_orders_and_skips_invalid():
    v = np.array([0.5, 0.1, 0.9, 0.1, 0.0, 1.0])
    valid = np.array([True, True, True, True, False, True])
    low, high = extremes(v, 3, valid=valid)
    assert low[0] in (1, 3) and set(low[:2]) == {1, 3} and low[2] == 0
    assert high.tolist() == [5, 2, 0]
    assert 4 not in low and 4 not in high
    again = extremes(v, 3, valid=valid)
    assert np.array_equal(again[0], low)  # ties broken the same way every time


def test_summarize():
    v = np.array([0.0, 0.0, 0.2, 0.5, 0.9, 1.0])
    s = summarize(v, valid=np.array([True, True, True, True, True, False]))
    assert s["sentences"] == 5 and s["mean"] == pytest.approx(0.32) and s["median"] == 0.2
    assert s["share_zero"] == pytest.approx(0.4) and s["share_half_or_more"] == pytest.approx(0.4)
    with pytest.raises(N2OError):
        summarize(v, valid=np.zeros(6, bool))


def test_sentence_features_counts_rare_tokens():
    texts = ["the cat sat", "the dog sat", "the zebra"]
    counts = Counter({"the": 10, "sat": 6, "cat": 5, "dog": 9, "zebra": 1})
    df = sentence_features(texts, counts=counts, labels=["x", "y", "x"], rare_max=5)
    assert df.n_tokens.tolist() == [3, 3, 2]
    assert df.rare_share.tolist() == pytest.approx([1 / 3, 0.0, 0.5])
    assert df.label.tolist() == ["x", "y", "x"]
    assert token_counts(["A a b", "b B c"]) == Counter({"a": 2, "b": 3, "c": 1})
    assert sentence_features(["", "word"]).n_tokens.tolist() == [0, 1]
    with pytest.raises(N2OError):
        sentence_features(texts, labels=["x"])


def test_corpus_features_count_rare_words_in_fit_texts():
    whole = ["alpha beta"] * 6 + ["gamma beta"]
    corpus = from_texts(["alpha beta", "gamma beta"], training_texts=whole)
    df = corpus_features(corpus)
    # alpha occurs 6 times in the fit texts (> RARE_MAX), gamma once
    assert RARE_MAX == 5
    assert df.rare_share.tolist() == pytest.approx([0.0, 0.5])


def test_decile_table_compares_groups():
    n = 20
    values = np.arange(n) / n
    feats = pd.DataFrame(
        {
            "n_tokens": np.arange(n) + 1,
            "rare_share": np.where(np.arange(n) < 10, 0.5, 0.0),
            "label": ["a"] * 5 + ["b"] * 15,
        }
    )
    t = decile_table(values, feats, frac=0.1)
    assert list(t.index) == ["least agreed 10%", "most agreed 10%", "all"]
    assert t.loc["least agreed 10%", "sentences"] == 2 and t.loc["all", "sentences"] == n
    assert t.loc["least agreed 10%", "n2o"] == pytest.approx(0.025)
    assert t.loc["most agreed 10%", "n_tokens"] == pytest.approx(19.5)
    assert t.loc["least agreed 10%", "rare_share"] == 0.5 and t.loc["most agreed 10%", "rare_share"] == 0.0
    assert t.loc["least agreed 10%", "label: a"] == 1.0 and t.loc["most agreed 10%", "label: b"] == 1.0
    assert t.loc["all", "label: a"] == pytest.approx(0.25)
    valid = np.ones(n, bool)
    valid[:2] = False
    assert t.loc["least agreed 10%", "n2o"] < decile_table(values, feats, valid=valid).loc["least agreed 10%", "n2o"]
    with pytest.raises(N2OError):
        decile_table(values, feats, frac=0.9)


def test_ranking_frame_rows(setup):
    ws, _ = setup
    res = agreement(ws, ["a", "c"], 5)
    v = res.pair("a", "c")
    low, _ = extremes(v, 4, valid=res.has_neighbors())
    df = ranking_frame(low, v, ws.corpus.texts, corpus_features(ws.corpus))
    assert df.id.tolist() == low.tolist()
    assert df.n2o.tolist() == pytest.approx(v[low].tolist())
    assert df.text.tolist() == [ws.corpus.texts[i] for i in low]
    assert df.n2o.is_monotonic_increasing and "label" in df


# --------------------------------------------------------------------------- CLI


@pytest.fixture
def cli_files(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(f"sentence {i} about topic {i % 7} and item {i * 13 % 11}" for i in range(60)) + "\n")
    rng = np.random.default_rng(0)
    base = rng.standard_normal((60, 8)).astype(np.float32)
    np.save(tmp_path / "a.npy", base)
    np.save(tmp_path / "b.npy", base + rng.normal(0, 0.5, base.shape).astype(np.float32))
    return tmp_path, corpus


def test_cli_json_mean_equals_compare(cli_files, capsys):
    d, corpus = cli_files
    common = ["--corpus", str(corpus), "--vectors", f"a={d / 'a.npy'}", "--vectors", f"b={d / 'b.npy'}"]
    common += ["--k", "5", "--cache-dir", str(d / "cache")]
    assert main(["agreement", *common, "--json", str(d / "agr.json"), "--top", "2"]) == 0
    printed = capsys.readouterr().out
    assert "least agreed (a vs b)" in printed and "most agreed 10%" in printed
    doc = json.loads((d / "agr.json").read_text())
    assert {"k", "corpus_size", "per_sentence", "mean"} <= set(doc)
    assert doc["k"] == 5 and doc["corpus_size"] == 60 and len(doc["per_sentence"]) == 60
    assert main(["compare", *common, "--queries", "60", "--samples", "1", "--json", str(d / "cmp.json")]) == 0
    cmp = json.loads((d / "cmp.json").read_text())
    assert doc["mean"] == pytest.approx(cmp["mean"][0][1], abs=1e-6)
    assert doc["mean"] == pytest.approx(np.mean([r["n2o"] for r in doc["per_sentence"]]), abs=1e-6)


def test_cli_writes_pca_maps(cli_files):
    d, corpus = cli_files
    args = ["agreement", "--corpus", str(corpus), "--vectors", f"a={d / 'a.npy'}", "--vectors", f"b={d / 'b.npy'}"]
    args += ["--k", "5", "--cache-dir", str(d / "cache"), "--map", "pca", "--top", "0", "--json", str(d / "m.json")]
    assert main(args) == 0
    doc = json.loads((d / "m.json").read_text())
    assert doc["map_method"] == "pca" and set(doc["maps"]) == {"a", "b"}
    xy = np.array(doc["maps"]["a"])
    assert xy.shape == (60, 2) and np.all(np.isfinite(xy))
    # PCA of the normalized rows: the first coordinate carries at least as much variance as the second
    assert xy[:, 0].var() >= xy[:, 1].var()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--vectors", "a=A"], "at least two embedders"),
        (["--vectors", "a=A", "--vectors", "b=B", "--k", "60"], "smaller than the corpus size"),
        (["--vectors", "a=A", "--vectors", "b=B", "--top", "-1"], "--top"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(cli_files, capsys, extra, message):
    d, corpus = cli_files
    extra = [x.replace("=A", f"={d / 'a.npy'}").replace("=B", f"={d / 'b.npy'}") for x in extra]
    rc = main(["agreement", "--corpus", str(corpus), "--cache-dir", str(d / "cache"), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("error:") and message in err[0]


def test_cli_default_k_is_the_papers():
    from n2o_core.analyses.agreement import DEFAULT_K
    from n2o_core.cli.main import build_parser

    args = build_parser().parse_args(["agreement", "--embedder", "tfidf", "--embedder", "glove-6b-50d"])
    assert args.k == DEFAULT_K == 50 and args.approx is None and args.map == "none"


def _text_workspace(tmp_path):
    from tests.synthetic_text import sentences

    corpus = from_texts(sentences(150), name="synthetic-text")
    return Workspace(corpus, cache=Cache(tmp_path / "cache"))


def test_sparse_tfidf_against_dense_vectors(tmp_path):
    """tf-idf (real embedder, sparse search) against dense vectors: per-sentence N2O averages to compare's N2O."""
    ws = _text_workspace(tmp_path)
    np.save(tmp_path / "d.npy", np.random.default_rng(1).standard_normal((150, 6)).astype(np.float32))
    ws.add_vectors("dense", tmp_path / "d.npy")
    res = agreement(ws, ["tfidf", "dense"], 10)
    cmp = compare(ws, ["tfidf", "dense"], 10, n_queries=150, n_samples=1)
    assert res.pair("tfidf", "dense").mean() == pytest.approx(cmp.mean[0, 1], abs=1e-12)


@pytest.mark.slow
def test_real_embedders_on_a_small_text_corpus(tmp_path):
    """tf-idf and word2vec (trained on the corpus): per-sentence N2O averages to compare's N2O, above chance."""
    ws = _text_workspace(tmp_path)
    res = agreement(ws, ["tfidf", "word2vec"], 10)
    cmp = compare(ws, ["tfidf", "word2vec"], 10, n_queries=150, n_samples=1)
    assert res.pair("tfidf", "word2vec").mean() == pytest.approx(cmp.mean[0, 1], abs=1e-12)
    assert res.pair("tfidf", "word2vec").mean() > res.chance


@pytest.mark.slow
def test_approximate_all_pairs_close_to_exact(setup):
    ws, _ = setup
    exact = agreement(ws, ["a", "b"], 5, approx=False)
    approx = agreement(ws, ["a", "b"], 5, approx=True)
    assert approx.approx and approx.to_json()["search"] == "approx"
    assert all(r is not None and r > 0.9 for r in approx.recall.values())
    assert abs(approx.pair("a", "b").mean() - exact.pair("a", "b").mean()) < 0.05


# --------------------------------------------------------------------------- the dashboard's steps


def test_every_sentence_neighbors_and_from_neighbors_equal_agreement(setup):
    from n2o_core.analyses.agreement import Agreement

    ws, _ = setup
    seen = []
    nbs = {
        e: every_sentence_neighbors(ws, e, 12, progress=lambda ev: seen.append((ev.item, ev.stage)))
        for e in ["a", "b", "c"]
    }
    assert all(nb.ids.shape == (N, 12) and nb.seconds >= 0 for nb in nbs.values())
    assert {("a", "neighbors"), ("b", "neighbors"), ("c", "neighbors")} <= set(seen)
    got = Agreement.from_neighbors(nbs, 5, N)
    ref = agreement(ws, ["a", "b", "c"], 5, k_max=12)
    assert got.embedders == ["a", "b", "c"] and got.k == 5
    for a, b in got.pairs():
        np.testing.assert_array_equal(got.pair(a, b), ref.pair(a, b))
    np.testing.assert_array_equal(got.neighbors["b"], nbs["b"].ids[:, :5])
    with pytest.raises(N2OError, match="at least two embedders"):
        Agreement.from_neighbors({"a": nbs["a"]}, 5, N)
    with pytest.raises(N2OError, match="not all"):
        Agreement.from_neighbors({"a": nbs["a"], "b": nbs["b"]}, 5, N + 1)


def test_group_table_of_any_groups():
    from n2o_core.analyses.agreement import group_table

    values = np.array([0.0, 0.2, 0.4, 0.6, 0.8])
    feats = pd.DataFrame({"n_tokens": [1, 2, 3, 4, 5], "rare_share": [1.0, 0.5, 0.0, 0.0, 0.0], "label": list("xxyyy")})
    t = group_table(values, feats, {"picked": np.array([0, 4]), "none": np.array([], int), "all": np.arange(5)})
    assert list(t.index) == ["picked", "none", "all"]
    assert t.loc["picked", "sentences"] == 2 and t.loc["picked", "n2o"] == pytest.approx(0.4)
    assert t.loc["picked", "n_tokens"] == 3.0 and t.loc["picked", "rare_share"] == 0.5
    assert t.loc["picked", "label: x"] == 0.5 and t.loc["all", "label: y"] == pytest.approx(0.6)
    assert t.loc["none", "sentences"] == 0 and np.isnan(t.loc["none", "n2o"])


def test_pair_param_never_raises_and_says_why():
    from n2o_core.analyses.agreement import pair_param

    names = ["tfidf", "glove", "w2v"]
    assert pair_param({}, names) == ("tfidf", "glove", None)
    assert pair_param({"pair": "w2v,tfidf"}, names) == ("w2v", "tfidf", None)
    assert pair_param({"pair": ["glove,w2v"]}, names) == ("glove", "w2v", None)
    a, b, note = pair_param({"pair": "nope,w2v"}, names)
    assert (a, b) == ("tfidf", "w2v") and "two different embedders" in note
    a, b, note = pair_param({"pair": "glove,glove"}, names)
    assert (a, b) == ("glove", "tfidf") and note
    a, b, note = pair_param({"pair": "glove"}, names)
    assert (a, b) == ("glove", "tfidf") and note
    with pytest.raises(N2OError):
        pair_param({}, ["tfidf"])


def test_ties_at_the_extremes_are_counted_and_paged():
    v = np.array([0.0] * 25 + [0.1, 0.2, 0.5] + [1.0] * 12 + [0.0, 0.0])
    valid = np.ones(len(v), bool)
    valid[-2:] = False  # no neighbors: not ranked, not counted
    ties = extreme_ties(v, valid)
    assert (ties.low, ties.n_low, ties.high, ties.n_high, ties.n_valid) == (0.0, 25, 1.0, 12, 40)
    assert ties.sentence("low", 10) == "25 sentences (62% of those ranked) are tied at 0; 10 shown at random"
    assert ties.sentence("high", 10).startswith("12 sentences") and ties.sentence("high", 20) == ""
    pages = [extremes(v, 10, valid=valid, offset=p * 10)[0] for p in range(3)]
    seen = np.concatenate(pages[:2]).tolist() + pages[2][:5].tolist()
    assert sorted(seen) == list(range(25))  # the pages go through every tied sentence once
    assert v[pages[2][5]] == 0.1  # then the next value
    assert np.array_equal(pages[0], extremes(v, 10, valid=valid)[0])
    # means over pairs that are equal up to float rounding still tie
    assert extreme_ties(np.array([0.1 + 0.2, 0.3, 0.5]), None).n_low == 2
