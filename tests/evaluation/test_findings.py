"""The papers' findings end to end (evaluation.findings.compute, analyses.seed_reference, the CLI): real cores on a
small synthetic corpus with cheap embedders, each number checked against a computation written out here (from
`compare`'s per-sample matrices, Gram-matrix CKA, exact search); the rules themselves are tested on hand-made
evidence in test_findings_rules.py, the statuses and outputs in test_findings_status.py."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from synthetic_text import write_corpus

from n2o_core.cli.main import main
from n2o_core.evaluation import findings as fd

# ----------------------------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    d = tmp_path_factory.mktemp("findings")
    corpus = load_corpus(str(write_corpus(d / "corpus.txt", 200)))
    return Workspace(corpus, cache=Cache(d / "cache"))


def _t_interval(values):
    """Mean and 95% Student-t interval, computed here with scipy (not the core's mean_ci)."""
    from scipy import stats

    v = np.asarray(values, float)
    half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return v.mean(), v.mean() - half, v.mean() + half


def _tfidf_low_by_hand(ws, seed, size=None):
    """The tf-idf rule recomputed from `compare`'s per-sample N2O matrices: pass, and its two differences."""
    from n2o_core.analyses.compare import compare
    from n2o_core.corpora.corpus import sample_corpus
    from n2o_core.corpus_workspace import Workspace

    space = ws if size is None else Workspace(sample_corpus(ws.corpus, size, 0), cache=ws.cache)
    ref = compare(space, list(fd.N2O_SET), 10, n_queries=30, n_samples=3, seed=seed)
    names = ref.embedders
    d_others, d_static = [], []
    for m in ref.sampled.per_sample:
        M = pd.DataFrame(m, index=names, columns=names)
        with_all = {e: np.mean([M.loc[e, o] for o in names if o != e]) for e in names}
        d_others.append(np.median([with_all[e] for e in names if e != "tfidf"]) - with_all["tfidf"])
        pairs = [("glove-6b-50d", "word2vec"), ("glove-6b-50d", "fasttext"), ("word2vec", "fasttext")]
        within = np.mean([M.loc[a, b] for a, b in pairs])
        d_static.append(within - np.mean([M.loc["tfidf", e] for e in fd.STATIC]))
    (ma, la, _), (mb, lb, _) = _t_interval(d_others), _t_interval(d_static)
    return bool(la > 0 and lb > 0), {"difference (others)": ma, "difference (static)": mb}


def test_end_to_end_on_a_synthetic_corpus(ws):
    """Real cores, every run: the verdict, its numbers and "holds in x of n" are recomputed here from `compare`'s
    per-sample matrices and `run_sts`, outside the findings code."""
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.evaluation.pairs.sources import load_pairs
    from n2o_core.evaluation.sts import run_sts

    params = fd.FindingParams(k=10, n_queries=30, n_samples=3, seed=1, n_seeds=2, sizes=(110, 200))
    ids = ["n2o-tfidf-apart", "n2o-subword-apart", "sts-znorm-glove", "sts-znorm-range"]
    res = fd.check_findings(ws, ids, params, keep=True)
    assert [r.finding.id for r in res] == ids
    tfidf, subword, pearson, spread = res
    timings = fd.load_timings(ws.cache)  # kept for the page's estimate of the next check, CLI and warm alike
    assert set(timings) >= {"neighbors", "sts"}
    assert timings["neighbors"].seconds == round(tfidf.seconds, 2) and timings["neighbors"].sentences == len(ws.corpus)
    assert timings["sts"].seconds == round(pearson.seconds, 2)
    expected = {}
    for size in (200, 110):
        for seed in (1, 2):
            expected[(size, seed)] = _tfidf_low_by_hand(ws, seed, None if size == 200 else size)
    _, numbers = expected[(200, 1)]  # the numbers shown: the first run (first seed, largest size)
    for key, value in numbers.items():
        assert tfidf.verdict.numbers[key] == pytest.approx(value)
    held = [e[0] for e in expected.values()]
    assert (tfidf.runs, tfidf.holds) == (4, sum(held))
    assert tfidf.status == ("holds" if all(held) else "fails" if not any(held) else "unstable")
    assert [(r["sentences"], r["seed"], r["passed"]) for r in tfidf.run_rows] == [
        (size, seed, e[0]) for (size, seed), e in expected.items()
    ]
    assert tfidf.numbers_from == "the first run (seed 1, 200 sentences)"
    assert tfidf.setup["k"] == 10 and tfidf.setup["sentences"] == 200 and tfidf.setup["samples"] == 3
    assert subword.seconds == tfidf.seconds  # one computation shared by the findings on the same embedders
    # the same-recipe reference of the three corpus-trained embedders is beside the subword finding
    assert {k for k in subword.verdict.numbers if k.startswith("same recipe")} == {
        "same recipe, another seed: fasttext", "same recipe, another seed: fasttext-sub"}  # fmt: skip
    assert subword.setup["corpus-trained embedders trained on"] == "200 sentences"

    pairs = load_pairs("builtin:lee", cache=ws.cache)
    fit = Workspace(load_corpus("builtin:lee-news", cache_dir=ws.cache.root), cache=ws.cache)
    sts = run_sts(fit, pairs, list(fd.STS_SET)).results.set_index("embedder")
    g = sts.loc["glove-6b-50d"]
    assert pearson.verdict.numbers["pearson"] == pytest.approx(g["pearson"])
    assert pearson.status == ("holds" if g["pearson_znorm"] > g["pearson"] else "fails")
    assert pearson.runs == 1 and pearson.setup["rated pairs"] == 1225  # the Lee pairs do not change with the seed
    pos = sts[sts["pearson"] > 0]  # the range over the encoders that correlate at all
    assert spread.verdict.numbers["range raw"] == pytest.approx(pos["pearson"].max() - pos["pearson"].min())
    assert spread.verdict.numbers["range znorm"] == pytest.approx(
        pos["pearson_znorm"].max() - pos["pearson_znorm"].min()
    )
    counts = fd.summary_counts(res)
    assert counts["findings"] == 4 and sum(counts[s] for s in fd.STATUSES) == 4
    assert counts["holds"] == sum(r.status == "holds" for r in res)


def test_neighbor_evidence_token_overlap_both_compositions(ws):
    params = fd.FindingParams(k=10, n_queries=20, n_samples=2)
    ev = fd.neighbor_evidence(ws, ["tfidf", "glove-6b-50d", "word2vec"], params)
    assert set(ev.tokens) == {fd.CONTENT, fd.ALL_WORDS}
    content, every = ev.tokens[fd.CONTENT], ev.tokens[fd.ALL_WORDS]
    assert list(content["embedder"]) == ["tfidf", "glove-6b-50d", "word2vec"]
    assert np.all(content["mean"].to_numpy() < every["mean"].to_numpy())  # "the" etc. are shared by every sentence
    assert ev.n2o.rho_k is not None and ev.n2o.rho_samples is not None
    pe = ev.popular[fd.CONTENT]
    assert pe.k == 10 and len(pe.popular) == len(pe.neighbors) == pe.n_queries
    assert set(ev.seed_reference) == {"word2vec"}  # the one embedder here trained with a seed


def test_popular_evidence_on_hand_made_neighbors():
    texts = ["red apple pie", "red apple pie recipe", "blue sky", "apple tart", "green grass"]
    pool = np.array([0])
    neighbors = {"a": np.array([[1, 3, 2]]), "b": np.array([[1, 2, 4]])}
    pe = fd.popular_evidence(texts, pool, neighbors, k=3, m=1)
    # popular (both tops at m=1): sentence 1, overlap 3/3; all slots: 1, 3, 2, 1, 2, 4 -> 1, 1/3, 0, 1, 0, 0
    assert pe.n_queries == 1 and pe.n_popular == 1
    assert pe.popular[0] == pytest.approx(1.0)
    assert pe.neighbors[0] == pytest.approx((1 + 1 / 3 + 0 + 1 + 0 + 0) / 6)


@pytest.mark.slow
def test_heros_evidence_keeps_each_pairs_normalized_score(ws):
    """Minimal pairs need WordNet and spaCy (~30 s). Each pair's normalized score is (s − b)/(1 − b) of its raw
    cosine, and its subset means are the HEROS table's; a rule reads them paired by original."""
    ev = fd.heros_evidence(ws, ["glove-6b-50d-nostop", "glove-6b-50d"], fd.FindingParams(heros_pairs=20))
    p = ev.heros_pairs
    assert set(p["embedder"]) == {"glove-6b-50d-nostop", "glove-6b-50d"} and ev.setup["originals"] > 0
    for (e, sub), g in p.groupby(["embedder", "subset"]):
        row = ev.heros[(ev.heros["embedder"] == e) & (ev.heros["subset"] == sub)].iloc[0]
        assert g["normalized"].mean() == pytest.approx(row["normalized"]) and len(g) == row["n"], (e, sub)
    syn = p[(p["embedder"] == "glove-6b-50d") & (p["subset"] == "synonym")].set_index("original")["normalized"]
    neg = p[(p["embedder"] == "glove-6b-50d") & (p["subset"] == "negation_main")].set_index("original")["normalized"]
    both = syn.index.intersection(neg.index)
    d = fd.paired_difference(p, ("glove-6b-50d", "negation_main"), ("glove-6b-50d", "synonym"))
    if len(both) >= fd.MIN_UNITS:
        assert d["difference"] == pytest.approx((neg.loc[both] - syn.loc[both]).mean())
    else:
        assert isinstance(d, str) and f"only {len(both)} originals" in d


# ----------------------------------------------------------------------------------------------- CLI


def test_cli_writes_json_txt_and_markdown_of_the_same_results(ws, tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", 120)
    out, txt, md = tmp_path / "f.json", tmp_path / "f.txt", tmp_path / "f.md"
    rc = main(["findings", "--corpus", str(corpus), "--cache-dir", str(ws.cache.root), "--finding", "n2o-tfidf-apart",
               "--finding", "tokens-subword-lowest", "--queries", "20", "--samples", "2", "--k", "10",
               "--seeds", "2", "--sizes", "60,120", "--json", str(out), "--txt", str(txt),
               "--markdown", str(md)])  # fmt: skip
    assert rc == 0
    printed = capsys.readouterr().out
    doc = json.loads(out.read_text())
    f, tok = doc["findings"]
    assert f["id"] == "n2o-tfidf-apart" and f["setup"]["k"] == 10 and f["setup"]["samples"] == 2
    # k = 10 is 17% of a 60-sentence run's 59 candidates (over 10%): those runs are not judged, the 120 ones are
    assert f["setup"]["sentences"] == 120 and f["runs"] == 2 and 0 <= f["holds"] <= 2
    assert [(r["sentences"], r["seed"], r["passed"] is None) for r in f["run_verdicts"]] == [
        (120, 0, False), (120, 1, False), (60, 0, True), (60, 1, True)]  # fmt: skip
    assert f["holds"] == sum(r["passed"] is True for r in f["run_verdicts"])
    assert f["status"] == ("holds" if f["holds"] == 2 else "fails" if f["holds"] == 0 else "unstable")
    assert doc["params"]["n_seeds"] == 2 and doc["params"]["sizes"] == [60, 120]
    assert doc["params"]["probe_per_class"] == fd.FindingParams().probe_per_class
    assert tok["scoring"].startswith("content words")
    assert [s["kind"] for s in tok["sensitivity"]] == ["setting", "reading"]
    assert set(doc["summary"]) == {*fd.STATUSES, "findings", "setting_sensitive"}
    assert sum(doc["summary"][s] for s in fd.STATUSES) == 2
    assert doc["summary"]["setting_sensitive"] == sum(x["setting_sensitive"] for x in doc["findings"])
    for x in doc["findings"]:
        assert bool(x["explanation"]) == (x["status"] != "holds"), x["id"]
    # --txt is the printed report; it says what is tested and, where a finding does not hold, what may explain it
    from n2o_core.cli.findings import report_text

    assert txt.read_text() == printed == report_text(doc)
    flat = " ".join(printed.split())
    for x in doc["findings"]:
        assert f"tested: {x['tested']}" in flat and f"{x['holds_text']}" in flat
        if x["explanation"]:
            assert f"what may explain it: {x['explanation']}" in flat
    from n2o_core.export.findings_table import findings_markdown

    assert md.read_text() == findings_markdown(doc)
    # the results are kept for the dashboard: the same corpus and parameters find them
    from n2o_core.corpora import load_corpus
    from n2o_core.storage.cache import Cache

    cache = Cache(ws.cache.root)
    params = fd.FindingParams(10, 20, 2, 0, 200, n_seeds=2, sizes=(60, 120))
    kept = fd.load_results(cache, load_corpus(str(corpus)).fingerprint, params)
    assert set(kept) == {"n2o-tfidf-apart", "tokens-subword-lowest"}
    assert kept["n2o-tfidf-apart"].to_json() | {"computed_at": ""} == f | {"computed_at": ""}


def test_cli_list_and_bad_input(capsys):
    assert main(["findings", "--list"]) == 0
    text = capsys.readouterr().out
    assert all(f.id in text for f in fd.FINDINGS) and "not testable here" in text
    assert "[SentEval §4, Training tasks]" in text and "default rule:" in text
    assert main(["findings", "--finding", "nope"]) == 2
    assert "error: Unknown finding 'nope'" in capsys.readouterr().err
    assert main(["findings", "--k", "0"]) == 2
    assert main(["findings", "--seeds", "0"]) == 2
    assert main(["findings", "--per-class", "0"]) == 2
    assert main(["findings", "--sizes", "20,x"]) == 2
    assert "--sizes takes positive integers" in capsys.readouterr().err


def test_warm_findings_keeps_what_the_page_opens_on(monkeypatch, tmp_path, capsys):
    """`warm --findings` checks every finding with the findings page's parameters and keeps the results (the
    checking itself is replaced here by a recorder: the real one computes transformers)."""
    import n2o_core.evaluation.findings as face
    from n2o_core.settings import env_defaults

    seen = {}

    def fake(ws, ids, params, progress=None, *, keep=False):
        seen.update(ids=ids, params=params, keep=keep, corpus=ws.corpus.name)
        return []

    monkeypatch.setattr(face, "check_findings", fake)
    corpus = write_corpus(tmp_path / "c.txt", 60)
    rc = main(["warm", "--corpus", str(corpus), "--embedder", "tfidf", "--cache-dir", str(tmp_path / "cache"),
               "--findings", "--no-check", "--queries", "20", "--samples", "2"])  # fmt: skip
    assert rc == 0 and seen["keep"] is True and seen["ids"] is None
    d = env_defaults()
    assert seen["params"] == fd.FindingParams(n_queries=20, n_samples=2, seed=d.seed)
    assert "findings: 0 hold, 0 fail" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------- linear CKA rows

#: The findings with a CKA row (the rules on the N2O matrix between embedders that carry over to CKA).
CKA_FINDINGS = ("n2o-static-agree", "n2o-subword-apart", "n2o-tfidf-apart", "n2o-cls-outlier")


def _cka_by_gram(arrays):
    """Linear CKA of every two arrays from the n x n Gram matrices: <HKH, HLH>_F / (||HKH||_F ||HLH||_F), written
    out here (not the core's feature-space route)."""
    names = list(arrays)
    grams = {}
    for e, X in arrays.items():
        X = np.asarray(X, np.float64)
        H = np.eye(len(X)) - 1.0 / len(X)
        grams[e] = H @ (X @ X.T) @ H
    m = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for a in names:
        for b in names:
            if a != b:
                K, L = grams[a], grams[b]
                m.loc[a, b] = np.sum(K * L) / np.sqrt(np.sum(K * K) * np.sum(L * L))
    return m


def _cka_rules_by_hand(C):
    """Each CKA row's verdict and main numbers, recomputed from a CKA matrix C with the rules written out."""
    names = list(C.index)

    def mean_with(e, others):
        return np.mean([C.loc[e, o] for o in others])

    within = np.mean([C.loc[a, b] for a, b in [("glove-6b-50d", "word2vec"), ("glove-6b-50d", "fasttext"),
                                              ("word2vec", "fasttext")]])  # fmt: skip
    between = np.mean([C.loc[s, t] for s in fd.STATIC for t in fd.TRANSFORMERS])
    cls_others = [e for e in names if e not in ("minilm-l6-cls", "minilm-l6-mean")]
    cls_d = mean_with("minilm-l6-mean", cls_others) - mean_with("minilm-l6-cls", cls_others)
    sub_others = [e for e in names if e not in ("fasttext-sub", "fasttext")]
    pair = C.loc["fasttext", "fasttext-sub"]
    sub_d = mean_with("fasttext", sub_others) - mean_with("fasttext-sub", sub_others)
    with_all = {e: mean_with(e, [o for o in names if o != e]) for e in names}
    median = np.median([with_all[e] for e in names if e != "tfidf"])
    tfidf_static = np.mean([C.loc["tfidf", e] for e in fd.STATIC])
    return {
        "n2o-static-agree": (bool(within > between), {"within": within, "between": between}),
        "n2o-cls-outlier": (bool(cls_d > 0), {"difference": cls_d}),
        "n2o-subword-apart": (
            bool(within - pair > 0 and sub_d > 0),
            {"CKA(fasttext, fasttext-sub)": pair, "pair difference": within - pair, "difference": sub_d},
        ),
        "n2o-tfidf-apart": (
            bool(median - with_all["tfidf"] > 0 and within - tfidf_static > 0),
            {"median embedder with the others": median, "tfidf with the static averages": tfidf_static},
        ),
    }


def _cka_row(r):
    (j,) = [j for j, (label, _) in enumerate(r.finding.sensitivity) if label == fd.CKA_SCORING]
    return j, r.sensitivity[j]


def test_cka_rows_are_the_rules_on_a_gram_matrix_cka(ws, monkeypatch):
    """Every run's CKA row equals the rule applied to a CKA matrix computed here from the Gram matrices of the same
    arrays (every sentence of the run's corpus; tf-idf through its truncated SVD); CKA is computed once per corpus
    size and embedder, whatever the number of seeds."""
    import n2o_core.measures.run as run
    from n2o_core.corpora.corpus import sample_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.measures.run import dense_view

    calls = []
    real = run.feature_space
    monkeypatch.setattr(run, "feature_space", lambda X: calls.append(X.shape) or real(X))
    params = fd.FindingParams(k=10, n_queries=30, n_samples=3, seed=1, n_seeds=2, sizes=(110, 200))
    res = fd.check_findings(ws, list(CKA_FINDINGS), params)
    assert len(calls) == 2 * len(fd.N2O_SET)  # one feature space per embedder and size: the seeds reuse the values
    by_size = {}
    for size in (200, 110):
        space = ws if size == 200 else Workspace(sample_corpus(ws.corpus, size, 0), cache=ws.cache)
        arrays = {e: dense_view(space.embeddings(e), 0) for e in fd.N2O_SET}
        by_size[size] = _cka_rules_by_hand(_cka_by_gram(arrays))
    for r in res:
        j, row = _cka_row(r)
        assert (
            "beyond the paper" in r.finding.sensitivity[j][0] and fd.row_kind(r.finding.sensitivity[j][0]) == "measure"
        )
        ok, numbers = by_size[200][r.finding.id]
        assert row.passed is ok, r.finding.id
        for key, value in numbers.items():
            assert row.numbers[key] == pytest.approx(value, abs=1e-9), (r.finding.id, key)
        assert "linear CKA on all 200 sentences" in row.summary
        # every run (2 seeds x 2 sizes) counted; the seeds of one size agree, CKA not depending on the query seed
        expected = [by_size[x["sentences"]][r.finding.id][0] for x in r.run_rows]
        assert [x[f"sensitivity {j + 1}"] for x in r.run_rows] == expected
        assert r.sensitivity_counts()[j] == (sum(expected), 4)
        doc = r.to_json()["sensitivity"][j]
        assert (doc["scoring"], doc["passed"], doc["holds"], doc["runs"]) == (fd.CKA_SCORING, ok, sum(expected), 4)
    by_id = {r.finding.id: r for r in res}
    assert "no interval" in _cka_row(by_id["n2o-cls-outlier"])[1].summary
    assert "truncated SVD" in _cka_row(by_id["n2o-tfidf-apart"])[1].summary
    assert "mean CKA with the others" in _cka_row(by_id["n2o-tfidf-apart"])[1].table.columns


def _same_verdict(a, b):
    assert (a.passed, a.summary, a.numbers) == (b.passed, b.summary, b.numbers)
    assert (a.table is None) == (b.table is None)
    if a.table is not None:
        pd.testing.assert_frame_equal(a.table, b.table)


def test_cka_rows_change_no_verdict_and_no_other_row(ws):
    """Judged with the CKA rows and with them removed: the verdicts, statuses, counts and every other row are the
    same, on every finding (the CKA matrix in the evidence changes nothing the other checks read)."""
    from dataclasses import replace

    ids = [*CKA_FINDINGS, "n2o-above-chance", "tokens-tfidf-highest", "popular-lexical", "n2o-robust-k"]
    params = fd.FindingParams(k=10, n_queries=20, n_samples=2, n_seeds=2)
    ev = fd.evidence(ws, fd.finding(ids[1]), params)
    assert ev.cka is not None and all(r.cka is not None for r in ev.replicates)
    for fid in ids:
        f = fd.finding(fid)
        without = replace(f, sensitivity=tuple(s for s in f.sensitivity if s[0] != fd.CKA_SCORING))
        assert len(without.sensitivity) == len(f.sensitivity) - (fid in CKA_FINDINGS)
        a, b = fd.judge(f, ev), fd.judge(without, ev)
        assert (a.status, a.holds, a.runs) == (b.status, b.holds, b.runs), fid
        keep = [j for j, s in enumerate(f.sensitivity) if s[0] != fd.CKA_SCORING]
        for va, vb in [(a.verdict, b.verdict), *zip([a.sensitivity[j] for j in keep], b.sensitivity, strict=True)]:
            _same_verdict(va, vb)
        assert [a.sensitivity_counts()[j] for j in keep] == b.sensitivity_counts()
        ja, jb = a.to_json(), b.to_json()
        ja["sensitivity"] = [x for x in ja["sensitivity"] if x["scoring"] != fd.CKA_SCORING]
        ja.pop("run_verdicts"), jb.pop("run_verdicts")
        assert ja == jb, fid
        if fid not in CKA_FINDINGS:  # nor does the CKA matrix itself
            no_cka = replace(ev, cka=None, replicates=[replace(r, cka=None) for r in ev.replicates])
            assert fd.judge(f, no_cka).to_json() == fd.judge(f, ev).to_json()


def test_only_the_n2o_matrix_findings_have_a_cka_row():
    with_cka = [f.id for f in fd.FINDINGS if any(label == fd.CKA_SCORING for label, _ in f.sensitivity)]
    assert with_cka == list(CKA_FINDINGS)
    assert fd.CKA_SCORING in fd.OTHER_MEASURES and "beyond the paper" in fd.CKA_SCORING
