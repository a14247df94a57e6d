"""`python -m n2o_core`: JSON contract and exit code 2 with one clear line on bad input."""

import json
import subprocess
import sys

import numpy as np
import pytest

from n2o_core.cli import main


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


def test_embed_out_writes_float32_rows_in_corpus_order(corpus_and_vectors, capsys):
    d, corpus = corpus_and_vectors
    rc = run(["embed", "--corpus", str(corpus), "--vectors", f"a={d / 'a.npy'}", "--out", str(d / "a_out")], d / "c")
    assert rc == 0 and "wrote" in capsys.readouterr().out
    out = np.load(d / "a_out.npy")  # ".npy" appended
    assert out.dtype == np.float32 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, np.load(d / "a.npy"))


def test_embed_out_densifies_tfidf_or_refuses_when_too_large(corpus_and_vectors, capsys, monkeypatch):
    from n2o_core import vectors_out
    from n2o_core.cache import Cache
    from n2o_core.corpora import load_corpus
    from n2o_core.workspace import Workspace

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
