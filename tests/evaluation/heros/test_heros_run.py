"""run_heros (the dashboard's entry point) and the `heros` CLI on a small hand-written corpus with tf-idf."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from heros_sentences import SENTENCES

from n2o_core.cli.main import main
from n2o_core.evaluation.heros.report import sample_markdown
from n2o_core.evaluation.heros.run import (
    BASELINE_COLUMN,
    HerosResult,
    combine_scores,
    embedder_table,
    run_heros,
    score_embedder,
)
from n2o_core.evaluation.heros.score import RESULT_COLUMNS
from n2o_core.evaluation.heros.subsets import ALL_SUBSETS

CORPUS = SENTENCES
ROOT_DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> HerosResult:
    cache = tmp_path_factory.mktemp("cache")
    return run_heros(CORPUS, ["tfidf"], n_pairs=4, seed=0, cache_dir=str(cache), n_boot=200)


def test_run_heros_result_shape(result):
    assert list(result.results.columns) == RESULT_COLUMNS
    assert result.results["subset"].tolist() == list(ALL_SUBSETS)
    assert (result.results["n"] == 4).all()
    assert set(result.baseline) == {"tfidf"}
    assert set(result.dropped) == set(ALL_SUBSETS)
    assert result.meta["pair_counts"] == {s: 4 for s in ALL_SUBSETS}


def test_normalized_follows_from_raw_and_baseline(result, tmp_path):
    """Heros' numbers recomputed here from tf-idf vectors, one cosine at a time: each pair's raw cosine, the baseline
    b (App. D: the mean cosine between the first and the second half of the distinct originals) and the subset means
    of (s - b) / (1 - b)."""
    from n2o_core.corpora import from_texts
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    ws = Workspace(from_texts(list(CORPUS), name="texts"), cache=Cache(tmp_path / "cache"))
    pairs = result.pairs
    originals = list(dict.fromkeys(pairs["original"]))
    vec = {}
    for t in originals + pairs["variant"].tolist():
        v = ws.encode_texts("tfidf", [t])
        vec[t] = np.asarray(v.toarray() if hasattr(v, "toarray") else v, np.float64).ravel()

    def cos(x, y):
        return float(vec[x] @ vec[y] / (np.linalg.norm(vec[x]) * np.linalg.norm(vec[y])))

    h = len(originals) // 2
    b = float(np.mean([cos(x, y) for x in originals[:h] for y in originals[h:]]))
    assert result.baseline["tfidf"] == pytest.approx(b, abs=1e-9)
    r = result.results.set_index("subset")
    for sub in ALL_SUBSETS:
        rows = pairs[pairs["subset"] == sub]
        raw = [cos(o, v) for o, v in zip(rows["original"], rows["variant"], strict=True)]
        assert r.loc[sub, "raw"] == pytest.approx(np.mean(raw), abs=1e-9), sub
        assert r.loc[sub, "normalized"] == pytest.approx(np.mean([(s - b) / (1 - b) for s in raw]), abs=1e-9), sub
        assert r.loc[sub, "ci_low"] <= r.loc[sub, "normalized"] <= r.loc[sub, "ci_high"]
    assert (r["raw"] < 1).all() and (r["raw"] > 0).all()


def test_to_json_and_table(result):
    out = result.to_json(max_pairs=2)
    json.dumps(out)  # serializable
    assert set(out) >= {"baseline", "results", "pairs", "dropped"}
    assert len(out["pairs"]) == 12 and set(out["pairs"][0]) == {"subset", "original", "variant", "target"}
    assert result.table().shape == (6, 1)


def test_one_embedder_at_a_time_combines_into_one_runs_result(tmp_path):
    """`combine_scores` over one `score_embedder` per embedder (as the dashboard keeps them) gives what
    `run_heros` reports for them together: the results rows in the given order, the baselines, every pair with
    each embedder's raw cosine."""
    from n2o_core.corpora import from_texts
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    ws = Workspace(from_texts(list(CORPUS), name="texts"), cache=Cache(tmp_path / "cache"))
    names = ["tfidf", "glove-6b-50d-nostop"]
    whole = run_heros(ws, names, n_pairs=4, seed=0, n_boot=100, averaging="all")
    got = combine_scores(whole.pairs, [score_embedder(ws, whole.pairs, e, seed=0, n_boot=100) for e in names])
    pd.testing.assert_frame_equal(got.results, whole.results)
    assert got.baseline == whole.baseline and list(got.baseline) == names
    pd.testing.assert_frame_equal(got.cosines, whole.cosines)
    assert list(got.cosines.columns[-2:]) == names
    none = combine_scores(whole.pairs, [])
    assert none.results.empty and list(none.results.columns) == RESULT_COLUMNS and none.baseline == {}


def test_embedder_table_is_one_row_per_embedder_with_its_baseline():
    results = pd.DataFrame(
        {
            "embedder": ["a", "a", "b", "b"],
            "subset": ["typo", "synonym", "typo", "synonym"],
            "normalized": [0.9, 0.5, 0.7, 0.1],
            "raw": [0.95, 0.6, 0.8, 0.3],
        }
    )
    t = embedder_table(results, {"b": 0.2, "a": 0.4})
    assert list(t.columns) == ["typo", "synonym", BASELINE_COLUMN]  # subsets in the results' order
    assert t.loc["a"].tolist() == [0.9, 0.5, 0.4] and t.loc["b"].tolist() == [0.7, 0.1, 0.2]
    assert embedder_table(results, {"a": 0.4, "b": 0.2}, "raw").loc["b"].tolist() == [0.8, 0.3, 0.2]


def test_sample_markdown_lists_every_subset(result):
    md = sample_markdown(result.pairs, n=2, seed=0)
    for s in ALL_SUBSETS:
        assert f"## {s} (2)" in md
    assert md.count("\n| ") >= 6 * 3  # header + 2 rows per subset
    assert md.count("| valid? |") == 6 and md.count("valid: _ / 2") == 6  # an empty column for the judge
    rows = [line for line in md.splitlines() if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert len(rows) == 12 and all(line.endswith("|  |") for line in rows)


def test_cli_heros_writes_json(tmp_path, cache_dir):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    out, md = tmp_path / "h.json", tmp_path / "s.md"
    rc = main(
        [
            "heros",
            "--corpus",
            str(corpus),
            "--embedder",
            "tfidf",
            "--pairs",
            "3",
            "--n-boot",
            "100",
            "--json",
            str(out),
            "--sample-md",
            str(md),
            "--sample-n",
            "2",
            "--sample-seed",
            "7",
        ]
    )
    assert rc == 0
    data = json.loads(out.read_text())
    assert set(data["baseline"]) == {"tfidf"}
    assert {r["subset"] for r in data["results"]} == set(ALL_SUBSETS)
    assert set(data["results"][0]) >= {"embedder", "subset", "n", "raw", "normalized", "ci_low", "ci_high"}
    assert len(data["pairs"]) == 18 and set(data["dropped"]) == set(ALL_SUBSETS)
    assert md.read_text().count("## ") == 6 and "(seed 7)" in md.read_text()


def test_cli_heros_says_how_many_pairs_it_made_of_those_asked(tmp_path, cache_dir, capsys):
    """50 asked per subset from 10 sentences: the output and the JSON say how many were made, from how many
    sentences, the yield, and that the corpus is too small."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    out = tmp_path / "h.json"
    args = ["heros", "--corpus", str(corpus), "--embedder", "tfidf", "--pairs", "50", "--n-boot", "50"]
    assert main([*args, "--json", str(out)]) == 0
    cov = json.loads(out.read_text())["meta"]["coverage"]
    made = len({r["original"] for r in json.loads(out.read_text())["pairs"]})
    assert cov["asked"] == 50 and cov["made"] == {s: made for s in ALL_SUBSETS} and 0 < made < 50
    assert cov["sentences"] == cov["tried"] == len(CORPUS) and cov["small_corpus"] is True
    assert cov["yield"] == {s: round(made / len(CORPUS), 4) for s in ALL_SUBSETS}
    printed = capsys.readouterr()
    assert f"HEROS made {made} of 50 asked per subset from all {len(CORPUS)} sentences of the corpus" in printed.out
    assert "too small for 50 per subset" in printed.err and "yield per subset" in printed.out


def test_cli_heros_sample_draws_across_corpora_for_a_judge(tmp_path, cache_dir, capsys):
    """The blind reading's command on two small corpora: each corpus's yield printed, about an equal share of the
    originals from each, every subset of a corpus on the same originals, Markdown and CSV with an empty verdict."""
    import pandas as pd

    from n2o_core.evaluation.heros.report import SAMPLE_CSV_COLUMNS

    everyday = (ROOT_DATA / "everyday_sentences.txt").read_text(encoding="utf-8").splitlines()[:80]
    a, b = tmp_path / "news.txt", tmp_path / "everyday.txt"
    a.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    b.write_text("\n".join(everyday) + "\n", encoding="utf-8")
    md, csv = tmp_path / "s.md", tmp_path / "s.csv"
    args = ["heros-sample", "--corpus", str(a), "--corpus", str(b), "--pairs", "20", "--sample-n", "7"]
    assert main([*args, "--sample-seed", "3", "--md", str(md), "--csv", str(csv)]) == 0
    out = capsys.readouterr().out
    assert out.count("Yield per subset (pairs made / sentences tried)") == 2 and "drew 7 originals" in out
    table = pd.read_csv(csv, keep_default_na=False)
    assert list(table.columns) == SAMPLE_CSV_COLUMNS and (table["valid"] == "").all()
    assert len(table) == 7 * len(ALL_SUBSETS)
    per = table.groupby(["corpus", "subset"])["original"].apply(frozenset).unstack()
    assert sorted(per.index) == ["everyday", "news"] and all(len(set(row)) == 1 for _, row in per.iterrows())
    assert sorted(table.drop_duplicates("original")["corpus"].value_counts().tolist()) == [3, 4]
    text = md.read_text(encoding="utf-8")
    assert text.count("| # | corpus | target → changed |") == 6 and "--sample-seed 3" in text
    assert main([*args, "--sample-seed", "3", "--md", str(tmp_path / "t.md")]) == 0
    assert (tmp_path / "t.md").read_text(encoding="utf-8") == text  # the same seed draws the same sample


def test_cli_heros_scores_a_pairs_file(tmp_path, cache_dir, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    pairs = tmp_path / "mine.tsv"
    pairs.write_text(
        "original\tvariant\tsubset\n"
        "The shares rose sharply today.\tThe shares fell sharply today.\tantonym\n"
        "The team won the game easily.\tThe team did not win the game easily.\tNegation (main)\n",
        encoding="utf-8",
    )
    out = tmp_path / "h.json"
    rc = main(["heros", "--corpus", str(corpus), "--embedder", "tfidf", "--pairs-file", str(pairs), "--json", str(out)])
    assert rc == 0
    data = json.loads(out.read_text())
    assert [r["subset"] for r in data["results"]] == ["antonym", "negation_main"]
    assert all(r["n"] == 1 for r in data["results"])


def test_cli_heros_bad_input_exits_2(tmp_path, cache_dir, capsys):
    assert main(["heros", "--corpus", str(tmp_path / "missing.txt"), "--embedder", "tfidf"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    assert main(["heros", "--corpus", str(corpus), "--embedder", "no-such-embedder"]) == 2
    assert main(["heros", "--corpus", str(corpus), "--pairs", "0"]) == 2
