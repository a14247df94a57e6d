"""One averaging setting for HEROS in the core: the CLI and the dashboard's data path give the same numbers."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from heros_sentences import SENTENCES

from n2o_core.cli.main import main
from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.averaging import AVERAGING_DEFAULT, scored_id
from n2o_core.settings import HEROS_AVERAGING, HEROS_AVERAGING_DEFAULT

CORPUS = [
    *SENTENCES,
    *(f"The bank said its profits rose again in the {m} quarter after strong sales." for m in ("first", "second")),
    *(f"The government said the new rules on {w} were illegal under European law." for w in ("banks", "phones")),
]


def test_one_setting_for_cli_api_and_page():
    assert HEROS_AVERAGING_DEFAULT == AVERAGING_DEFAULT == "nostop" and set(HEROS_AVERAGING) == {"nostop", "all"}
    assert scored_id("word2vec") == "word2vec-nostop" and scored_id("word2vec", "all") == "word2vec"
    assert scored_id("tfidf") == "tfidf"
    with pytest.raises(N2OError, match="averaging"):
        scored_id("word2vec", "some")


@pytest.mark.parametrize("averaging", ["nostop", "all"])
def test_cli_and_page_data_path_agree(tmp_path, averaging):
    import ui.heros_runs as heros_runs
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    path = tmp_path / "c.txt"
    path.write_text("\n".join(CORPUS) + "\n")
    out = tmp_path / "out.json"
    args = ["heros", "--corpus", str(path), "--embedder", "word2vec", "--pairs", "4", "--n-boot", "50"]
    rc = main([*args, "--averaging", averaging, "--json", str(out), "--cache-dir", str(tmp_path / "cli")])
    assert rc == 0
    cli = {(r["embedder"], r["subset"]): r["normalized"] for r in json.loads(out.read_text())["results"]}
    assert {e for e, _ in cli} == {scored_id("word2vec", averaging)}

    corpus = load_corpus(str(path))
    ws = Workspace(corpus, cache=Cache(tmp_path / "page"))
    lo = SimpleNamespace(names=["word2vec"], corpus=corpus, ws=ws, settings=SimpleNamespace(znorm=False, seed=0))
    heros_runs.choose(4, averaging)
    n_per, avg, scored = heros_runs.composition(lo)
    assert (n_per, avg, scored) == (4, averaging, {"word2vec": scored_id("word2vec", averaging)})
    pairset = heros_runs.pairs(lo, n_per, 0)
    results, _, _, errors = heros_runs.scores(lo, pairset, n_per, 0, list(scored.values()))
    assert not errors
    page = {(r.embedder, r.subset): r.normalized for r in results.itertuples()}
    assert page.keys() == cli.keys()
    for key, value in page.items():
        assert value == pytest.approx(cli[key], abs=1e-9), key
