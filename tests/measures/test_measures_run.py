"""compare_arrays / compare_measures: the document, where each value is computed, and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
import reference_formulas as ref
import scipy.sparse as sp

from n2o_core.analyses.agreement import agreement
from n2o_core.cli.main import main
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.measures import MEASURE_IDS, get_measure
from n2o_core.measures.run import compare_arrays, compare_measures, dense_view
from n2o_core.storage.cache import Cache

N = 70


def arrays(n=N, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n, 6))
    return {
        "a": (base @ rng.standard_normal((6, 10))).astype(np.float32),
        "b": (base @ rng.standard_normal((6, 7)) + 0.7 * rng.standard_normal((n, 7))).astype(np.float32),
        "c": rng.standard_normal((n, 5)).astype(np.float32),
    }


@pytest.fixture(scope="module")
def result():
    return compare_arrays(arrays(), k=5, permutations_=20, bootstrap=10, subsample=50, null_subsample=30, seed=1)


def test_document_shape(result):
    doc = result.to_json()
    assert list(doc) == ["embedders", "corpus_size", "subsample", "k", "measures", "results", "measure_agreement"]
    assert doc["embedders"] == ["a", "b", "c"] and doc["corpus_size"] == N and doc["subsample"] == 50
    assert doc["k"] == 5 and doc["measures"] == list(MEASURE_IDS)
    for r in doc["results"]:
        assert list(r) == ["a", "b", "measure", "value", "ci", "null_mean", "p"] and len(r["ci"]) == 2
    # 3 pairs; asymmetric measures in both orders
    per = {m: sum(r["measure"] == m for r in doc["results"]) for m in MEASURE_IDS}
    assert per == {m: 3 if get_measure(m).symmetric else 6 for m in MEASURE_IDS}
    assert len(doc["measure_agreement"]) == len(MEASURE_IDS) * (len(MEASURE_IDS) - 1) // 2
    assert set(doc["measure_agreement"][0]) == {"m1", "m2", "spearman"}
    json.dumps(doc, allow_nan=False)


def test_rows_and_values(result):
    f = result.to_frame()
    assert set(f.measure) == set(MEASURE_IDS)
    assert (f[f.measure == "cka_rbf"].n == 50).all() and (f[f.measure == "cka_linear"].n == N).all()
    assert (f[f.measure == "cka_linear"].null_n == 30).all() and (f[f.measure == "mutual_knn"].null_n == N).all()
    X = arrays()
    assert result.value("a", "b", "cka_linear") == pytest.approx(ref.cka_linear(X["a"], X["b"]), rel=1e-6)
    assert result.value("b", "a", "mutual_knn") == pytest.approx(ref.mutual_knn(X["a"], X["b"], k=5))
    related, unrelated = f[(f.a == "a") & (f.b == "b")], f[(f.a == "a") & (f.b == "c")]
    drawn = related[related.measure != "pwcca_released"]
    assert (drawn.p <= 1 / 21 + 1e-9).all()
    released = f[f.measure == "pwcca_released"]  # value only
    assert released.value.notna().all() and released.p.isna().all() and (released.null_n == 0).all()
    assert unrelated[unrelated.measure == "cka_linear_unbiased"].p.iloc[0] > 0.05
    ok = f.dropna(subset=["ci_lo"])
    assert (ok.ci_lo <= ok.value + 1e-9).all() and (ok.value <= ok.ci_hi + 1e-9).all()


def test_no_nulls_and_a_subset_of_measures():
    res = compare_arrays(arrays(), k=5, measures=["pwcca", "mutual_knn"], permutations_=0, bootstrap=0)
    f = res.to_frame()
    assert res.measures == ["mutual_knn", "pwcca"] and f.p.isna().all() and f.ci_lo.isna().all()
    assert (f.null_n == 0).all()


def test_sparse_vectors_enter_through_their_svd():
    X = arrays()
    X["s"] = sp.csr_matrix(np.abs(X["a"]) * (np.abs(X["a"]) > 0.8))
    res = compare_arrays(X, k=5, measures=["cka_linear", "mutual_knn"], permutations_=0, bootstrap=0)
    assert np.isfinite(res.value("a", "s", "cka_linear"))
    assert dense_view(X["s"]).shape == (N, 9)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"measures": ["cka", "svcca"]}, "Unknown measure 'cka'"),
        ({"k": 0}, "k must be between"),
        ({"permutations_": -1}, "permutations must be 0 or more"),
        ({"subsample": 20_000}, None),
    ],
)
def test_bad_input(kwargs, message):
    if message is None:  # a subsample larger than the corpus is the corpus
        assert compare_arrays(arrays(), measures=["cka_rbf"], permutations_=0, bootstrap=0, **kwargs).subsample == N
        return
    with pytest.raises(N2OError, match=message):
        compare_arrays(arrays(), **kwargs)
    with pytest.raises(N2OError, match="at least two embedders"):
        compare_arrays({"a": arrays()["a"]})


@pytest.fixture
def workspace(tmp_path):
    corpus = from_texts([f"sentence number {i} on topic {i % 5}" for i in range(N)], name="synthetic")
    ws = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    for name, X in arrays().items():
        np.save(tmp_path / f"{name}.npy", X)
        ws.add_vectors(name, tmp_path / f"{name}.npy")
    return ws


def test_mutual_knn_is_the_projects_n2o_with_every_sentence_a_query(workspace):
    res = compare_measures(workspace, ["a", "b", "c"], 5, ["mutual_knn", "cknna"], permutations_=0, bootstrap=0)
    means = agreement(workspace, ["a", "b", "c"], 5).pair_means()
    for r in means.itertuples():
        assert res.value(r.a, r.b, "mutual_knn") == pytest.approx(r.n2o, abs=1e-12)


def test_feature_matrix_is_the_engines_values_kept_in_its_memo(workspace, monkeypatch):
    """The matrix findings and others draw (linear CKA by default) equals the comparison's values and the plain
    formula; a second call on other embedders of the same sentences prepares only the new one."""
    import n2o_core.measures.run as run

    names = ["a", "b", "c"]
    memo = run.FeatureMemo()
    made: list[tuple[int, ...]] = []
    real = run.feature_space
    monkeypatch.setattr(run, "feature_space", lambda X: made.append(X.shape) or real(X))
    cka = run.feature_matrix(workspace.embeddings, names[:2], memo=memo, scope="fp")
    res = compare_measures(workspace, names, 5, ["cka_linear", "regression_r2"], permutations_=0, bootstrap=0)
    assert cka[0, 0] == cka[1, 1] == 1.0 and cka[0, 1] == cka[1, 0] == res.value("a", "b", "cka_linear")
    assert cka[0, 1] == pytest.approx(ref.cka_linear(*(workspace.embeddings(e) for e in "ab")), abs=1e-12)
    assert len(made) == 2
    again = run.feature_matrix(workspace.embeddings, ["c", "a", "b"], memo=memo, scope="fp")
    assert len(made) == 3 and again[1, 2] == cka[0, 1]  # only c's space is new; a and b's value is kept
    r2 = run.feature_matrix(workspace.embeddings, names, "regression_r2", memo=memo, scope="fp")
    assert len(made) == 3 and r2[1, 0] == res.value("b", "a", "regression_r2") != r2[0, 1]  # row b predicts a
    angle = run.feature_matrix(workspace.embeddings, names, "procrustes")
    assert np.diag(angle).tolist() == [0.0, 0.0, 0.0] and len(made) == 6  # no memo: every space again
    with pytest.raises(N2OError, match="not a feature-space measure"):
        run.feature_matrix(workspace.embeddings, names, "cka_rbf")


@pytest.fixture
def cli_files(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(f"sentence {i} about topic {i % 7} and item {i * 13 % 11}" for i in range(N)) + "\n")
    for name, X in arrays().items():
        np.save(tmp_path / f"{name}.npy", X)
    return tmp_path, corpus


def test_cli_json(cli_files, capsys):
    d, corpus = cli_files
    args = ["measures", "--corpus", str(corpus), "--cache-dir", str(d / "cache"), "--k", "5"]
    args += [f"--vectors={n}={d / f'{n}.npy'}" for n in "abc"]
    args += ["--measure", "cka_linear", "--measure", "rsa_spearman", "--permutations", "10", "--bootstrap", "5"]
    assert main([*args, "--json", str(d / "m.json")]) == 0
    out = capsys.readouterr().out
    assert "== linear CKA [cka_linear] (higher = more similar;" in out and "== RSA (Spearman) [rsa_spearman]" in out
    assert "measure agreement (Spearman over pairs): linear CKA ~ RSA (Spearman)" in out
    doc = json.loads((d / "m.json").read_text())
    assert doc["measures"] == ["cka_linear", "rsa_spearman"] and len(doc["results"]) == 6
    assert doc["measure_agreement"][0]["m1"] == "cka_linear"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--vectors", "a=A"], "at least two embedders"),
        (["--vectors", "a=A", "--vectors", "b=B", "--measure", "cka"], "Unknown measure 'cka'"),
        (["--vectors", "a=A", "--vectors", "b=B", "--k", "70"], "smaller than the corpus size"),
        (["--vectors", "a=A", "--vectors", "b=B", "--permutations", "-1"], "--permutations"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(cli_files, capsys, extra, message):
    d, corpus = cli_files
    extra = [x.replace("=A", f"={d / 'a.npy'}").replace("=B", f"={d / 'b.npy'}") for x in extra]
    rc = main(["measures", "--corpus", str(corpus), "--cache-dir", str(d / "cache"), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    err = [e for e in err if e.startswith("error:")]
    assert rc == 2 and len(err) == 1 and message in err[0]


@pytest.mark.slow
def test_every_measure_on_a_larger_synthetic_set():
    res = compare_arrays(arrays(n=1500), k=10, permutations_=100, bootstrap=50)
    assert len(res.rows) == 3 * 9 + 6 * 4  # 9 symmetric measures, 4 asymmetric ones in both orders
