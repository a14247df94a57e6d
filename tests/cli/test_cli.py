"""`python -m n2o_core`: JSON contract and exit code 2 with one clear line on bad input."""

import json
import subprocess
import sys

import numpy as np
import pytest

from n2o_core.cli.main import main


def write_corpus(path, n=60):
    path.write_text("\n".join(f"sentence {i} about topic {i % 7} and item {i * 13 % 11}" for i in range(n)) + "\n")
    return path


@pytest.fixture
def corpus_and_vectors(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt")
    rng = np.random.default_rng(0)
    base = rng.standard_normal((60, 8)).astype(np.float32)
    np.save(tmp_path / "a.npy", base)
    np.save(tmp_path / "b.npy", base + rng.normal(0, 0.5, base.shape).astype(np.float32))
    return tmp_path, corpus


def run(args, cache):
    return main([*args, "--cache-dir", str(cache)] if args[0] != "embedders" else args)


def test_compare_json_with_vectors(corpus_and_vectors, capsys):
    d, corpus = corpus_and_vectors
    out = d / "out.json"
    rc = run(
        [
            "compare",
            "--corpus",
            str(corpus),
            "--vectors",
            f"a={d / 'a.npy'}",
            "--vectors",
            f"b={d / 'b.npy'}",
            "--k",
            "5",
            "--queries",
            "10",
            "--samples",
            "3",
            "--json",
            str(out),
        ],
        d / "cache",
    )
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["embedders"] == ["a", "b"] and doc["corpus_size"] == 60 and doc["k"] == 5
    assert doc["chance"] == pytest.approx(5 / 59)
    assert len(doc["samples"]) == 3 and len(doc["samples"][0]["queries"]) == 10
    q = str(doc["samples"][0]["queries"][0])
    assert len(doc["neighbors"]["b"][q]) == 5 and int(q) not in doc["neighbors"]["b"][q]
    # token overlap at the run's k over content words, recomputed here from the neighbor lists in the JSON
    from n2o_core.corpora import load_corpus
    from n2o_core.text import SBERT_STOP_WORDS, token_set

    texts = load_corpus(str(corpus)).texts
    for e in ("a", "b"):
        per_query = []
        for qid, nbs in doc["neighbors"][e].items():
            qt = token_set(texts[int(qid)]) - SBERT_STOP_WORDS
            per_query.append(np.mean([len(qt & token_set(texts[j])) / len(qt) for j in nbs]))
        got = doc["token_overlap"][e]
        assert got["n"] == len(per_query) and got["mean"] == pytest.approx(np.mean(per_query))
        assert got["ci_low"] < got["mean"] < got["ci_high"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--k", "0"], "k must be a positive"),
        (["--k", "60"], "fewer than k + 1"),
        (["--vectors", "short={short}"], "one row each"),
        (["--vectors", "nan={nan}"], "NaN"),
        (["--embedder", "no-such-embedder"], "no-such-embedder"),
    ],
)
def test_bad_input_exits_2_with_one_line(corpus_and_vectors, capsys, extra, message):
    d, corpus = corpus_and_vectors
    np.save(d / "short.npy", np.ones((10, 8), np.float32))
    arr = np.ones((60, 8), np.float32)
    arr[3, 3] = np.nan
    np.save(d / "nan.npy", arr)
    extra = [x.format(short=d / "short.npy", nan=d / "nan.npy") for x in extra]
    rc = run(
        [
            "compare",
            "--corpus",
            str(corpus),
            "--vectors",
            f"a={d / 'a.npy'}",
            "--vectors",
            f"b={d / 'b.npy'}",
            *extra,
            "--k",
            extra[extra.index("--k") + 1] if "--k" in extra else "5",
        ],
        d / "cache",
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and message in err[0] and err[0].startswith("error: ")


@pytest.mark.parametrize(
    "content, message", [(b"", "empty"), (b"\xff\xfe\x00\x81abc\x00\x00", "UTF-8"), (b"caf\xe9 au lait\n", "UTF-8")]
)
def test_bad_corpus_files(tmp_path, capsys, content, message):
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    rc = run(["compare", "--corpus", str(p), "--vectors", "a=x.npy", "--vectors", "b=y.npy"], tmp_path / "cache")
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and message in err[0]


def test_missing_corpus_file(tmp_path, capsys):
    rc = run(["embed", "--corpus", str(tmp_path / "nope.txt"), "--embedder", "tfidf"], tmp_path / "cache")
    assert rc == 2 and "nope.txt" in capsys.readouterr().err


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "n2o_core", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "compare" in out.stdout


def test_embedders_json_lists_the_table(capsys):
    assert main(["embedders", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    by_id = {r["id"]: r for r in rows}
    assert [r["id"] for r in rows][:3] == ["tfidf", "glove-6b-50d", "glove-6b-50d-nostop"]
    assert set(rows[0]) == {"id", "family", "family_group", "composition", "dim", "default"}
    assert by_id["tfidf"] == {
        "id": "tfidf",
        "family": "tf-idf",
        "family_group": "tf-idf",
        "composition": "n/a",
        "dim": None,
        "default": True,
    }
    assert by_id["glove-6b-50d"]["dim"] == 50 and by_id["glove-6b-50d"]["family"] == "GloVe"
    assert by_id["glove-6b-50d"]["composition"] == "average, all tokens" and by_id["glove-6b-50d"]["default"]
    nostop = by_id["glove-6b-50d-nostop"]
    assert not nostop["default"] and nostop["dim"] == 50 and nostop["family_group"] == "static averages"
    assert nostop["composition"].startswith("average, stop words dropped")
    assert (by_id["fasttext-sub"]["family_group"], by_id["model2vec"]["family_group"]) == ("subword", "distilled")
    assert (by_id["model2vec"]["dim"], by_id["e5-small"]["dim"], by_id["e5-small"]["family"]) == (256, 384, "E5")
    assert by_id["minilm-l6-cls"] == {
        "id": "minilm-l6-cls",
        "family": "MiniLM",
        "family_group": "transformers",
        "composition": "cls",
        "dim": 384,
        "default": True,
    }
    assert [r["id"] for r in rows if r["default"]] == [
        "tfidf",
        "glove-6b-50d",
        "word2vec",
        "fasttext",
        "fasttext-sub",
        "model2vec",
        "minilm-l6-mean",
        "minilm-l6-cls",
        "paraphrase-minilm-l3-mean",
        "e5-small",
    ]
    assert [r["id"] for r in rows if not r["default"]] == [
        "glove-6b-50d-nostop",
        "word2vec-nostop",
        "fasttext-nostop",
        "fasttext-sub-nostop",
    ]


def test_embedders_table_text(capsys):
    assert main(["embedders"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line and not line.startswith(("id ", "User"))}
    assert "average, stop words dropped" in lines["word2vec-nostop"] and "@nostop" in out
    assert lines["e5-small"].split()[1:4] == ["E5", "mean", "384"]


def test_embed_out_writes_float32_rows_in_corpus_order(corpus_and_vectors, capsys):
    d, corpus = corpus_and_vectors
    rc = run(["embed", "--corpus", str(corpus), "--vectors", f"a={d / 'a.npy'}", "--out", str(d / "a_out")], d / "c")
    assert rc == 0 and "wrote" in capsys.readouterr().out
    out = np.load(d / "a_out.npy")  # ".npy" appended
    assert out.dtype == np.float32 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, np.load(d / "a.npy"))


def test_embed_out_densifies_tfidf_or_refuses_when_too_large(corpus_and_vectors, capsys, monkeypatch):
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.export import vectors as vectors_out
    from n2o_core.storage.cache import Cache

    d, corpus = corpus_and_vectors
    assert run(["embed", "--corpus", str(corpus), "--embedder", "tfidf", "--out", str(d / "t.npy")], d / "c") == 0
    ws = Workspace(load_corpus(str(corpus)), cache=Cache(d / "c"))
    np.testing.assert_allclose(np.load(d / "t.npy"), ws.embeddings("tfidf").toarray(), rtol=1e-6)
    capsys.readouterr()
    monkeypatch.setattr(vectors_out, "MAX_DENSE_BYTES", 1000)
    rc = run(["embed", "--corpus", str(corpus), "--embedder", "tfidf", "--out", str(d / "big.npy")], d / "c")
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--max-sentences" in err[0] and not (d / "big.npy").exists()


def test_embed_out_takes_one_embedder(corpus_and_vectors, capsys):
    d, corpus = corpus_and_vectors
    rc = run(
        ["embed", "--corpus", str(corpus), "--embedder", "tfidf", "--embedder", "word2vec", "--out", str(d / "x.npy")],
        d / "c",
    )
    assert rc == 2 and "one embedder" in capsys.readouterr().err


def test_progress_bars_redraw_throttled_and_end_at_the_total(capsys):
    """A search reports every tile (~1,000 per 1M rows): the bar is redrawn at most every 0.1 s, not each time."""
    from n2o_core.cli.common import ProgressBars
    from n2o_core.runtime.progress import ProgressEvent

    bars = ProgressBars()
    for done in range(1, 1001):
        bars(ProgressEvent("neighbors", "A", done, 1000))
    bars(ProgressEvent("neighbors", "B", 5, 5))  # finished at once (from the cache): no bar
    err = capsys.readouterr().err
    assert "1000/1000" in err and "neighbors A" in err and " B" not in err
    assert err.count("\r") < 20, err.count("\r")


def test_compare_on_vectors_files_never_imports_pandas(corpus_and_vectors):
    """`compare --vectors` builds no table: pandas (0.12 s of its start) stays unimported, token overlap included."""
    d, corpus = corpus_and_vectors
    code = (
        "import sys; from n2o_core.cli.main import main; "
        f"rc = main(['compare', '--corpus', {str(corpus)!r}, '--vectors', 'A={d / 'a.npy'}', "
        f"'--vectors', 'B={d / 'b.npy'}', '--k', '5', '--queries', '20', '--samples', '2', "
        f"'--cache-dir', {str(d / 'cache')!r}, '--json', {str(d / 'o.json')!r}]); "
        "print(rc, 'pandas' in sys.modules)"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.stdout.split()[-2:] == ["0", "False"], p.stdout + p.stderr
    assert set(json.loads((d / "o.json").read_text())["token_overlap"]) == {"A", "B"}


def test_compare_table_shows_every_id_in_full(corpus_and_vectors, capsys):
    d, corpus = corpus_and_vectors
    long_a, long_b = "glove-6b-50d-mine", "another-long-embedder"
    vectors = ["--vectors", f"{long_a}={d / 'a.npy'}", "--vectors", f"{long_b}={d / 'b.npy'}"]
    rc = run(
        ["compare", "--corpus", str(corpus), *vectors, "--k", "5", "--queries", "10", "--samples", "2"], d / "cache"
    )
    assert rc == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if long_a in line and long_b in line)
    assert header.split() == [long_a, long_b]  # never cut to 'glove-6b-5'
    row = next(line for line in lines if line.startswith(long_a + " ") and line != header)
    assert len(row) == len(header)  # the numbers sit under their ids


def test_compare_prints_and_writes_the_notes_the_dashboard_shows(corpus_and_vectors, capsys):
    """On 60 sentences the default k, samples and a corpus-trained embedder all need a word: the notes the
    heatmap shows (`ComparisonResult.face_value`) are printed after the matrix and written under "notes"."""
    d, corpus = corpus_and_vectors
    out = d / "notes.json"
    args = ["compare", "--corpus", str(corpus), "--embedder", "word2vec", "--vectors", f"b={d / 'b.npy'}"]
    rc = run([*args, "--k", "10", "--queries", "100", "--samples", "5", "--json", str(out)], d / "cache")
    assert rc == 0
    notes = json.loads(out.read_text())["notes"]
    assert [(n["id"], n["level"]) for n in notes] == [
        ("chance", "info"),
        ("k", "info"),
        ("samples", "info"),
        ("trained", "warning"),
    ]
    text = {n["id"]: n["text"] for n in notes}
    assert text["chance"].startswith("Chance k/(N−1) = 10/59 = 0.169 is ")
    assert text["k"].startswith("k = 10 is 17% of the 59 other sentences (more than 10%)")
    assert text["samples"].startswith("100 queries per sample cover all 60 sentences of the corpus")
    assert text["trained"].startswith("word2vec is trained on only 60 sentences here, so its neighbors are mostly")
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note: ")]
    assert printed == [f"note: {n['text']}" for n in notes]

    # k within 10% of the candidates and samples smaller than the corpus: those two notes go
    rc = run([*args, "--k", "3", "--queries", "20", "--samples", "2", "--json", str(out)], d / "cache")
    ids = [n["id"] for n in json.loads(out.read_text())["notes"]]
    assert rc == 0 and ids[-1] == "trained" and "k" not in ids and "samples" not in ids


def test_compare_train_with_names_a_builtin_corpus(corpus_and_vectors, capsys):
    d, corpus = corpus_and_vectors
    rc = run(["compare", "--corpus", str(corpus), "--embedder", "tfidf", "--train-with", "/etc/passwd"], d / "cache")
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "not a built-in corpus to train with" in err[0]


def test_similarity_measures_is_the_command_and_measures_its_old_alias():
    from n2o_core.cli import measures as measures_cli
    from n2o_core.cli.main import build_parser

    parser = build_parser()
    new = parser.parse_args(["similarity-measures", "--corpus", "x.txt", "--embedder", "tfidf", "--k", "7"])
    old = parser.parse_args(["measures", "--corpus", "x.txt", "--embedder", "tfidf", "--k", "7"])
    assert new.func is old.func is measures_cli.run
    assert (new.k, new.embedder) == (old.k, old.embedder) == (7, ["tfidf"])
