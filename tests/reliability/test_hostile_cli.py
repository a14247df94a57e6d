"""Hostile and broken input on the command line: each case is one `error:` line and exit code 2, no traceback,
and the cache that was there before (embeddings, neighbors, model states) is exactly as it was. Also the
loaders' handling of RTL text, emoji and control characters. The CLI runs in this process (`cli.main`): the
same code as `python -m n2o_core`, without a process start per case."""

from __future__ import annotations

import json
import pickle
import sys

import numpy as np
import pytest
from harness import lost_entries, scan, write_corpus

from n2o_core.cli.main import main


class _Bomb:
    """Unpickling this writes a marker file: proof that a file was unpickled."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A corpus and a cache holding its tf-idf embeddings, neighbors and model state."""
    d = tmp_path_factory.mktemp("hostile")
    corpus = write_corpus(d / "c.txt", 60)
    cache = d / "cache"
    rc = main(
        [
            "compare",
            "--corpus",
            str(corpus),
            "--embedder",
            "tfidf",
            "--embedder",
            "glove-6b-50d",
            "--k",
            "3",
            "--queries",
            "10",
            "--samples",
            "1",
            "--cache-dir",
            str(cache),
        ]
    )
    assert rc == 0
    return d, corpus, cache


def _files(d):
    """Hostile files, written once."""
    out = {}
    n = 60
    obj = np.empty((n, 2), dtype=object)
    obj[:] = _Bomb(str(d / "UNPICKLED"))
    np.save(d / "objects.npy", obj, allow_pickle=True)
    out["objects"] = d / "objects.npy"
    nan = np.random.default_rng(0).standard_normal((n, 8)).astype(np.float32)
    nan[7, 3] = np.nan
    np.save(d / "nan.npy", nan)
    inf = nan.copy()
    inf[7, 3] = np.inf
    np.save(d / "inf.npy", inf)
    (d / "pickle.npy").write_bytes(pickle.dumps(_Bomb(str(d / "UNPICKLED"))))  # a pickle named .npy
    (d / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    (d / "latin1.txt").write_bytes("Caf\xe9 au lait.\nSecond line here.\n".encode("latin-1"))
    long_line = " ".join(["word"] * 200_000) + "s"  # 1,000,000 characters, no sentence end
    (d / "long.csv").write_text("text\n" + "\n".join([f"Row {i} is short." for i in range(30)] + [long_line]) + "\n")
    (d / "empty.txt").write_text("\n\n   \n")
    return out


def _case_argv(name: str, d, corpus, cache) -> list[str]:
    base = ["--cache-dir", str(cache)]
    emb = ["--embedder", "tfidf", "--embedder", "glove-6b-50d"]
    cmp_ = ["compare", "--k", "3", "--queries", "10", "--samples", "1"]
    c = ["--corpus", str(corpus)]
    return {
        "object-dtype .npy (pickled objects)": [*cmp_, *c, *emb, "--vectors", f"v={d}/objects.npy"],
        "pickle named .npy": [*cmp_, "--corpus", str(corpus), *emb, "--vectors", f"v={d}/pickle.npy"],
        "NaN vectors": [*cmp_, "--corpus", str(corpus), *emb, "--vectors", f"v={d}/nan.npy"],
        "inf vectors": [*cmp_, "--corpus", str(corpus), *emb, "--vectors", f"v={d}/inf.npy"],
        "binary file named .txt": [*cmp_, "--corpus", f"{d}/image.txt", *emb],
        "not UTF-8": [*cmp_, "--corpus", f"{d}/latin1.txt", *emb],
        "CSV with a 1M-character line": [*cmp_, "--corpus", f"{d}/long.csv", *emb],
        "blank file": [*cmp_, "--corpus", f"{d}/empty.txt", *emb],
        "builtin:../../etc/passwd": [*cmp_, "--corpus", "builtin:../../etc/passwd", *emb],
        "upload:../../x": [*cmp_, "--corpus", "upload:../../x", *emb],
        "/etc/passwd as a corpus": [*cmp_, "--corpus", "/etc/passwd", *emb],
        "missing word-vector file": [
            *cmp_,
            "--corpus",
            str(corpus),
            "--embedder",
            "tfidf",
            "--embedder",
            f"wv:{d}/no/such/vectors.bin",
        ],
        "missing model folder (st:)": [
            *cmp_,
            "--corpus",
            str(corpus),
            "--embedder",
            "tfidf",
            "--embedder",
            f"st:{d}/no/such/model",
        ],
        "missing model folder (hf:)": [
            *cmp_,
            "--corpus",
            str(corpus),
            "--embedder",
            "tfidf",
            "--embedder",
            f"hf:{d}/no/such/model@mean",
        ],
        "offline hf: dataset": [*cmp_, "--corpus", "hf:nobody/no-such-dataset", *emb],
        "unknown embedder with markup": [
            *cmp_,
            "--corpus",
            str(corpus),
            "--embedder",
            "tfidf",
            "--embedder",
            "<script>alert(1)</script>",
        ],
        "negative k": ["compare", "--k", "-5", "--corpus", str(corpus), *emb],
    }[name] + base


CASES = [
    ("object-dtype .npy (pickled objects)", "objects"),
    ("pickle named .npy", ""),
    ("NaN vectors", "NaN"),
    ("inf vectors", "infinite"),
    ("binary file named .txt", "binary"),
    ("not UTF-8", "not UTF-8"),
    ("CSV with a 1M-character line", "1,000,000 characters"),
    ("blank file", "empty"),
    ("builtin:../../etc/passwd", ""),
    ("upload:../../x", "not an uploaded corpus"),
    ("/etc/passwd as a corpus", "supported file types"),
    ("missing word-vector file", ""),
    ("missing model folder (st:)", ""),
    ("missing model folder (hf:)", ""),
    ("offline hf: dataset", "Hugging Face dataset"),
    ("unknown embedder with markup", "Unknown embedder"),
    ("negative k", "k"),
]


@pytest.mark.parametrize(("case", "expect"), CASES, ids=[c for c, _ in CASES])
def test_hostile_input_is_one_error_line_and_the_cache_is_untouched(filled, case, expect, capsys):
    d, corpus, cache = filled
    if not (d / "objects.npy").exists():
        _files(d)
    before = scan(cache)
    capsys.readouterr()
    rc = main(_case_argv(case, d, corpus, cache))
    captured = capsys.readouterr()
    lines = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert rc == 2, (case, captured.err[-1500:])
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "Traceback" not in captured.err and captured.out == ""
    assert expect.lower() in lines[0].lower(), lines[0]
    print(f"\n{case}: {lines[0]}")
    after = scan(cache)
    assert lost_entries(before, after) == [] and after.torn == [] and after.leftovers == []
    assert set(after.valid) == set(before.valid)  # nothing new either: the input was refused before any write
    assert not (d / "UNPICKLED").exists(), "a file was unpickled"


def test_vectors_name_with_dotdot_stays_inside_the_cache(filled, tmp_path):
    """A --vectors NAME with ../ parts names cache files, but cannot place them outside the cache."""
    _d, corpus, _ = filled
    cache = tmp_path / "cache"
    good = np.random.default_rng(1).standard_normal((60, 8)).astype(np.float32)
    np.save(tmp_path / "good.npy", good)
    rc = main(
        [
            "compare",
            "--corpus",
            str(corpus),
            "--embedder",
            "tfidf",
            "--vectors",
            f"../../../evil={tmp_path}/good.npy",
            "--k",
            "3",
            "--queries",
            "10",
            "--samples",
            "1",
            "--cache-dir",
            str(cache),
        ]
    )
    assert rc == 0
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and cache not in p.parents]
    assert sorted(p.name for p in outside) == ["good.npy"]
    assert any("evil" in str(p) for p in cache.rglob("*"))


def test_rtl_emoji_and_control_characters_in_a_corpus(tmp_path, capsys):
    """RTL text and emoji (with zero-width joiners) are kept exactly; control characters (ESC sequences, BEL,
    DEL, C1) are dropped, so the CLI never prints a terminal escape."""
    from n2o_core.corpora import load_file

    lines = [
        "مرحبا بالعالم، هذه جملة عربية طويلة.",
        "שלום עולם, זה משפט בעברית.",
        "The family 👨‍👩‍👧 went to the 🏖️ beach.",
        "Red \x1b[31malert\x1b[0m and a bell\x07 here\x7f.",
        "Mixed \u202eRTL override\u202c and \u200fmark.",
        "C1 control \x9b31m end.",
    ] + [f"Plain sentence number {i} about the market." for i in range(20)]
    p = tmp_path / "u.txt"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    c = load_file(p)
    assert c.texts[0] == lines[0] and c.texts[1] == lines[1] and c.texts[2] == lines[2]
    assert "\u200d" in c.texts[2]  # the ZWJ of the family emoji
    assert c.texts[3] == "Red [31malert[0m and a bell here."
    assert c.texts[4] == lines[4]  # bidi format characters are text, kept
    assert c.texts[5] == "C1 control 31m end."
    assert not any(ch in t for t in c.texts for ch in "\x1b\x07\x7f\x9b")
    rc = main(
        [
            "neighbors",
            "--corpus",
            str(p),
            "--embedder",
            "tfidf",
            "--query",
            "3",
            "--k",
            "3",
            "--cache-dir",
            str(tmp_path / "cache"),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "\x1b" not in out and "\x07" not in out
    assert "Red [31malert[0m" in out


def test_upload_size_cap():
    from n2o_core.corpora.uploads import MAX_UPLOAD_MB, check_upload_size
    from n2o_core.errors import CorpusError

    check_upload_size("ok.txt", MAX_UPLOAD_MB * 1_000_000)
    with pytest.raises(CorpusError, match=f"limited to {MAX_UPLOAD_MB} MB"):
        check_upload_size("big.txt", MAX_UPLOAD_MB * 1_000_000 + 1)


def test_html_in_sentences_round_trips_through_downloads():
    """Downloads carry text as data: JSON and CSV parse back to the exact strings (no HTML escaping needed or
    added)."""
    import io

    import pandas as pd

    from n2o_core.export import tables as export

    name = '<script>alert("x")</script> & <b>bold</b>, "quoted"'
    doc = json.loads(
        export.neighbors_json(
            {"name": name, "source": "upload:" + name, "fingerprint": "f", "n": 3},
            {"k": 1},
            np.array([0, 1]),
            [np.array([0, 1])],
            {"e": np.array([[1], [0]])},
            {"e": np.array([[0.5], [0.5]], np.float32)},
            1,
        )
    )
    assert doc["corpus"]["name"] == name
    csv = export.matrix_csv(np.eye(2), np.zeros((2, 2)), [name, "tfidf"], k=1, chance=0.1)
    df = pd.read_csv(io.StringIO(csv))
    assert name in set(df.astype(str).to_numpy().ravel()) | set(df.columns)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
