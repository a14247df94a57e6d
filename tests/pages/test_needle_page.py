"""AppTest: the paraphrase needle page (N2O §8, Table 3): synthetic pairs labelled as such, an uploaded STS-B file
with the paper's filters, bad files and links shown as one sentence in place. The page's table must be what
`run_needle` computes directly."""

from __future__ import annotations

import os

import numpy as np
import pytest
from app_checks import HTML_SENTENCE, no_exception, plotly_specs, shown
from sts_fixture import write_stsb

from n2o_core.corpora import load_corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.evaluation.needle import run_needle
from n2o_core.evaluation.pairs import filter_pairs, load_pairs
from n2o_core.settings import DEFAULT_MAX_SENTENCES
from n2o_core.storage.cache import Cache

NAMES = ["tfidf", "glove-6b-50d"]
TABLE = {
    "MRR": "mrr",
    "CI low": "mrr_ci_low",
    "CI high": "mrr_ci_high",
    "pairs kept": "n",
    "# top": "top1",
    "# top-5": "top5",
}


def workspace() -> Workspace:
    """The app's corpus and workspace, built as the sidebar builds them."""
    cache = Cache(os.environ["N2O_CACHE_DIR"])
    corpus = load_corpus(
        os.environ["N2O_DEFAULT_CORPUS"], max_sentences=DEFAULT_MAX_SENTENCES, seed=0, cache_dir=cache.root
    )
    return Workspace(corpus, cache=cache)


def open_needle(app, **params):
    app.query_params.update({"emb": ",".join(NAMES), **params})
    app.run()
    app.switch_page("pages/needle.py").run(timeout=600)
    no_exception(app)
    return app


def assert_table_matches(shown, expected):
    """The page's per-embedder table is run_needle's, row for row (sorted by MRR)."""
    assert shown["embedder"].tolist() == expected["embedder"].tolist()
    for col, key in TABLE.items():
        np.testing.assert_allclose(shown[col].to_numpy(float), expected[key].to_numpy(float), rtol=0, atol=1e-12)


def test_synthetic_pairs_are_labelled_and_ranked_as_run_needle_ranks_them(app):
    open_needle(app, npairs="synthetic:heros-synonym:100")
    assert app.header[0].value == "Paraphrase needle · SYNTHETIC pairs"
    assert any("SYNTHETIC pairs, not human paraphrases" in w.value for w in app.warning)
    assert app.query_params["npairs"] == "synthetic:heros-synonym:100"
    assert app.query_params["min_score"] == "off" and app.query_params["max_overlap"] == "off"

    ws = workspace()
    pairs = load_pairs("synthetic:heros-synonym:100", corpus=ws.corpus, cache=ws.cache, seed=0)
    filtered = filter_pairs(pairs, min_score=None, max_overlap=None)
    expected = run_needle(ws, filtered, NAMES, top=5, n_boot=1000, seed=0).results
    table = app.dataframe[0].value
    assert_table_matches(table, expected)
    # every table names the pairs as synthetic, and so does the figure
    assert set(table["pairs"]) == {"SYNTHETIC (synthetic:heros-synonym:100)"}
    ranks = app.dataframe[1].value
    assert set(ranks["pairs"]) == {"SYNTHETIC (synthetic:heros-synonym:100)"}
    assert len(ranks) == len(filtered.pairs) and ranks["query"].tolist() == filtered.pairs.queries
    fig = plotly_specs(app)["needle"]
    assert "SYNTHETIC pairs" in fig["layout"]["title"]["text"]
    np.testing.assert_allclose(sorted(fig["data"][0]["x"]), sorted(expected["mrr"]))
    assert any(f"{len(filtered.pairs)} pairs loaded (no filter)" in c.value for c in app.caption)

    # the paper's overlap filter drops every one-word edit: a warning in place, never a traceback
    toggle = next(t for t in app.toggle if t.key.startswith("w_novl_on_"))
    toggle.set_value(True).run(timeout=600)
    no_exception(app)
    assert any("No pairs are left after filtering" in w.value for w in app.warning)
    assert app.query_params["max_overlap"] == "0.6"


def test_isolated_jobs_rank_every_embedder_in_one_child_process(app, isolated_jobs):
    """Where jobs run in child processes (a shared server), the page starts one for all its embedders, and shows
    what run_needle computes."""
    from ui import evaluation_runs

    evaluation_runs._memo.clear()  # results other tests left in this process would be shown without a job
    open_needle(app, npairs="synthetic:heros-synonym:100")
    ws = workspace()
    pairs = load_pairs("synthetic:heros-synonym:100", corpus=ws.corpus, cache=ws.cache, seed=0)
    filtered = filter_pairs(pairs, min_score=None, max_overlap=None)
    assert_table_matches(app.dataframe[0].value, run_needle(ws, filtered, NAMES, top=5, n_boot=1000, seed=0).results)
    assert isolated_jobs.count("each_embedder") == 1, isolated_jobs


def test_uploaded_stsb_file_with_the_papers_filters(app, tmp_path):
    ws = workspace()
    sents = list(ws.corpus.texts)
    path = tmp_path / "sts-dev.csv"
    write_stsb(path, sents[:100], n=60)
    with open(path, "a", encoding="utf-8") as f:  # a pair whose query holds HTML: shown escaped
        f.write(f"main-news\tfixture\t2024\t9999\t4.800\t{HTML_SENTENCE}\tThe mighty team took the final.\n")
    open_needle(app)
    app.radio(key="w_npairs_mode").set_value("upload").run(timeout=600)
    no_exception(app)
    assert app.query_params["npairs"] == "upload"
    app.file_uploader(key="w_npairs_upload").set_value(("sts-dev.csv", path.read_bytes(), "text/csv"))
    app.run(timeout=600)
    no_exception(app)
    assert "SYNTHETIC" not in app.header[0].value
    assert app.query_params["min_score"] == "4" and app.query_params["max_overlap"] == "0.6"

    pairs = load_pairs(str(path))
    filtered = filter_pairs(pairs)  # the paper's defaults: score >= 4, word overlap < 0.6
    expected = run_needle(ws, filtered, NAMES, top=5, n_boot=1000, seed=0).results
    assert_table_matches(app.dataframe[0].value, expected)
    drop = next(c.value for c in app.caption if "pairs loaded" in c.value)
    assert f"{filtered.n_loaded} pairs loaded" in drop
    assert f"score filter dropped {filtered.dropped['score']}" in drop
    assert f"word overlap filter dropped {filtered.dropped['overlap']}" in drop
    assert f"{len(filtered.pairs)} kept" in drop

    # the HTML pair: its query is escaped, its paraphrase highlighted word by word
    sel = next(s for s in app.selectbox if s.key and s.key.startswith("w_npair_"))
    rows = filtered.pairs.frame["sentence1"].tolist()
    sel.set_value(rows.index(HTML_SENTENCE)).run(timeout=600)
    no_exception(app)
    html_blocks = [m.value for m in app.markdown if "Query</strong>" in m.value]
    assert html_blocks and "&#60;script&#62;" in html_blocks[0] and "<script>" not in html_blocks[0]
    assert "<mark>team</mark>" in html_blocks[0]


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("noscore.tsv", b"sentence1\tsentence2\nThe team won.\tThe side won.\n", "has no score column"),
        ("scale.tsv", b"sentence1\tsentence2\tscore\nThe team won.\tThe side won.\t7\n", "outside the 0-5 scale"),
        ("latin1.tsv", "sentence1\tsentence2\tscore\nCaf\u00e9 won.\tIt won.\t4\n".encode("latin-1"), "not UTF-8"),
        ("empty.tsv", b"sentence1\tsentence2\tscore\n!!! ...\tThe side won.\t4.5\n", "has no word tokens"),
    ],
    ids=["no-score-column", "score-out-of-scale", "not-utf8", "query-without-words"],
)
def test_bad_pair_files_are_one_sentence_in_place(app, name, content, says):
    open_needle(app, npairs="upload")
    assert app.radio(key="w_npairs_mode").value == "upload"
    app.file_uploader(key="w_npairs_upload").set_value((name, content, "text/plain")).run(timeout=600)
    no_exception(app)
    assert any(says in w.value for w in app.warning), [w.value for w in app.warning]
    assert not app.dataframe


def test_bad_link_values_are_named_and_replaced(app):
    open_needle(app, npairs="/etc/passwd", max_overlap="2")
    notes = [shown([w]) for w in app.warning]
    assert any("'npairs' in the link must be one of" in n for n in notes)
    assert any("'max_overlap' in the link must be a number from 0.05 to 1" in n for n in notes)
    assert app.query_params["npairs"] == "builtin:lee"  # the default: human pairs that ship offline
    assert app.query_params["max_overlap"] == "0.6"  # the paper's filter for human pairs


def test_lee_human_pairs_with_the_papers_filters(app):
    """The human-scored pairs installed offline (gensim's Lee documents), filtered as the paper filters: the page's
    table is run_needle's on the same 18 pairs."""
    open_needle(app, npairs="builtin:lee")
    assert app.radio(key="w_npairs_mode").value == "builtin"
    assert app.query_params["npairs"] == "builtin:lee"
    assert not any("SYNTHETIC" in w.value for w in app.warning)
    ws = workspace()
    filtered = filter_pairs(load_pairs("builtin:lee"), min_score=4.0, max_overlap=0.6)
    assert len(filtered.pairs) == 18 and filtered.n_loaded == 1225
    expected = run_needle(ws, filtered, NAMES, top=5, n_boot=1000, seed=0).results
    assert_table_matches(app.dataframe[0].value, expected)

    # the count beside the intervals, the filter that dropped the most, and one click to a looser setting
    half = (expected["mrr_ci_high"] - expected["mrr_ci_low"]) / 2
    interval = next(m.value for m in app.markdown if "pairs kept**" in m.value)
    assert interval.startswith(f"**18 of 1,225 pairs kept**: MRR intervals ±{half.min():.2f} to ±{half.max():.2f}")
    table = app.dataframe[0].value
    assert list(table.columns[3:6]) == ["CI high", "± (95%)", "pairs kept"]
    np.testing.assert_allclose(table["± (95%)"], half)
    note = next(i.value for i in app.info if "pass the paper's filters" in i.value)
    assert "Only 18 of 1,225 pairs pass the paper's filters" in note
    assert "score filter dropped the most**, 1,207" in note
    assert not any("Deviation from the paper" in w.value for w in app.warning)
    app.button(key="needle_looser").click().run(timeout=600)
    no_exception(app)
    assert app.query_params["min_score"] == "3.1" and app.query_params["max_overlap"] == "0.6"
    loose = filter_pairs(load_pairs("builtin:lee"), min_score=3.1, max_overlap=0.6)
    expected = run_needle(ws, loose, NAMES, top=5, n_boot=1000, seed=0).results
    assert_table_matches(app.dataframe[0].value, expected)
    assert len(loose.pairs) == 77 and set(app.dataframe[0].value["pairs kept"]) == {77}
    warning = next(w.value for w in app.warning if "Deviation from the paper" in w.value)
    assert "score ≥ 3.1 (the paper: ≥ 4)" in warning and "77 pairs kept" in warning
    assert all("deviation: score ≥ 3.1 (the paper: ≥ 4)" in t for t in app.dataframe[0].value["pairs"])
    app.button(key="needle_paper").click().run(timeout=600)
    no_exception(app)
    assert app.query_params["min_score"] == "4" and set(app.dataframe[0].value["pairs kept"]) == {18}
