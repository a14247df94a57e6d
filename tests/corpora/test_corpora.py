"""Corpora: dedup, user files and uploads, Hugging Face (local), built-in corpora and samples."""

from __future__ import annotations

import collections
import json
import os
import time

import pandas as pd
import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from n2o_core.corpora import (
    DEFAULT_CORPUS,
    Corpus,
    dedup,
    fingerprint_texts,
    from_texts,
    list_builtin_corpora,
    list_columns,
    load_builtin,
    load_bytes,
    load_corpus,
    load_file,
    load_hf_dataset,
    parse_hf_spec,
    sample_corpus,
    text_columns,
)
from n2o_core.corpora import builtin as corpora_builtin  # noqa: E402
from n2o_core.errors import CorpusError  # noqa: E402

CLEAN_LINES = [f"Sentence {i} says something about topic {i % 7}." for i in range(120)] + [
    "Mr. Smith paid $3.6m for the U.S. firm.",  # one line with abbreviations, still one sentence
    'He said "no" twice.',
]


# ---------------------------------------------------------------------------------------------- dedup, .txt
def test_dedup_counts_and_keeps_first():
    kept, labels, dropped = dedup(["a  b", " a b", "", "c", "a b", "  "], ["x", "y", "z", "w", "v", "u"])
    assert kept == ["a b", "c"]
    assert labels == ["x", "w"]
    assert dropped == 2


def _dedup_reference(texts, labels=None):
    """dedup's contract stated directly (what its fast path must equal): each text whitespace-normalized, the
    first occurrence of every non-empty one kept, the later ones counted."""
    norm = [" ".join(str(t).split()) for t in texts]
    first = {}
    for i, t in enumerate(norm):
        first.setdefault(t, i)
    keep = [i for i, t in enumerate(norm) if t and first[t] == i]
    dropped = sum(1 for t in norm if t) - len(keep)
    return [norm[i] for i in keep], None if labels is None else [str(labels[i]) for i in keep], dropped


def test_dedup_fast_path_equals_line_by_line():
    import random

    rng = random.Random(0)
    pieces = ["a", "b", "c d", " ", "  ", "\t", "", "\u00e9", "\n", "\u00a0", "\x1c", "\r", "'"]
    for _ in range(3000):
        texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 6))]
        if rng.random() < 0.5:  # already normalized (the fast path), empty lines and duplicates kept
            texts = [t for t in texts if t == "" or (t.isascii() and " ".join(t.split()) == t)]
        labels = [f"L{i}" for i in range(len(texts))] if rng.random() < 0.5 else None
        assert dedup(texts, labels) == _dedup_reference(texts, labels), (texts, labels)
    assert dedup(["a", 0, None, "a", ""]) == (["a", "0", "None"], None, 1)  # non-str values: line by line


@pytest.mark.parametrize(
    "texts, normalized",
    [
        (["a b", "c"], True),
        (["a  b"], False),
        ([" a"], False),
        (["a "], False),
        (["a", ""], False),
        (["a\nb"], False),
        (["a\tb"], False),
        (["a\x1fb"], False),
        (["a\u00a0b"], False),  # not ASCII: never claimed
        (["caf\u00e9"], False),
        ([], False),
        ([1], False),
    ],
)
def test_already_normalized(texts, normalized):
    from n2o_core.corpora.corpus import already_normalized

    assert already_normalized(texts) is normalized
    if normalized:
        assert all(" ".join(t.split()) == t and t for t in texts)


def test_normalized_lines_states_the_rule_on_random_bytes():
    """normalized_lines(data) is True exactly when every line of data is ASCII and normalized (or empty, when
    allowed); already_normalized(texts) is the same rule for texts, checked on their join."""
    import random

    from n2o_core.corpora.corpus import already_normalized, normalized_lines

    rng = random.Random(1)
    pieces = ["a", "b c", " ", "\n", "\n\n", "\t", "\r", "\x0c", "\x1c", "\u00e9", "\x01"]
    seen = set()
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))
        lines = text.split("\n")
        for allow_empty in (True, False):
            rule = text.isascii() and all(" ".join(ln.split()) == ln and (ln or allow_empty) for ln in lines)
            got = normalized_lines(text.encode("utf-8"), allow_empty=allow_empty)
            assert got is rule, (text, allow_empty)
            assert already_normalized(lines, allow_empty=allow_empty) is rule, (lines, allow_empty)
            seen.add(rule)
    assert seen == {True, False}


def test_dedup_told_the_texts_are_normalized_skips_only_the_check():
    texts = ["b a", "", "c", "b a", ""]
    assert dedup(texts, normalized=True) == dedup(texts) == (["b a", "c"], None, 1)
    assert dedup(tuple(texts)) == dedup(iter(texts)) == (["b a", "c"], None, 1)  # any sequence, or an iterable


def test_txt_files_equal_the_line_by_line_rule():
    """A .txt read one sentence per line (its bytes checked for normalization as read) gives the texts and the
    duplicate count of dedup's rule applied line by line, control characters removed first: one between two
    spaces leaves two spaces side by side, which normalization must still collapse."""
    import random

    rng = random.Random(2)
    pieces = ["alpha", "beta gamma", " ", "  ", "\x07", " \x07 ", "\t", "delta", "delta", ""]
    for _ in range(300):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(1, 8))]
        lines.append("zeta")  # never blank: a corpus
        c = load_bytes("r.txt", "\n".join(lines).encode("ascii"), segment=False)
        kept, _, dropped = _dedup_reference([ln.replace("\x07", "") for ln in lines])
        assert (list(c.texts), c.n_duplicates) == (kept, dropped), lines
    assert load_bytes("c.txt", b"a \x07 b\na b\n", segment=False).texts == ("a b",)


@pytest.mark.parametrize("prefix", ["", "caf\u00e9 "])  # ASCII (bytes.translate) and non-ASCII (regex) checks
def test_txt_control_characters_are_removed(prefix):
    data = f"{prefix}a\x07b\n{prefix}c\x1bd\x7f\n{prefix}tab\there\n".encode()
    c = load_bytes("ctl.txt", data)
    assert c.texts == (f"{prefix}ab", f"{prefix}cd", f"{prefix}tab here")


def test_from_texts_empty_raises():
    with pytest.raises(CorpusError, match="empty"):
        from_texts(["", "   "], "blank")


def test_txt_clean_ids_are_line_minus_one(tmp_path):
    p = tmp_path / "clean.txt"
    p.write_text("\n".join(CLEAN_LINES) + "\n", encoding="utf-8")
    c = load_file(p)
    assert c.n_duplicates == 0
    assert len(c) == len(CLEAN_LINES)
    for line_no, line in enumerate(p.read_text(encoding="utf-8").split("\n")[:-1], start=1):
        assert c.texts[line_no - 1] == line
    assert c.name == "clean"
    assert c.fingerprint == fingerprint_texts(CLEAN_LINES)
    assert c.labels is None and c.training_texts is None


def test_txt_duplicates_blank_lines_and_crlf(tmp_path):
    p = tmp_path / "dups.txt"
    p.write_bytes(b"One fine day.\r\nTwo  fine days.\r\n\r\nOne fine day.\r\n  Two fine days. \r\nThree.")
    c = load_file(p, segment=False)
    assert c.texts == ("One fine day.", "Two fine days.", "Three.")
    assert c.n_duplicates == 2


def test_txt_paragraphs_are_segmented(tmp_path):
    paras = [
        "Mr. Smith went to the U.S. in May. He paid $3.6m for a house. It was big.",
        'The market fell 2.5 points. Analysts said "it is over." Nobody agreed.',
        "Short one. Another short one.",
    ]
    p = tmp_path / "paras.txt"
    p.write_text("\n".join(paras), encoding="utf-8")
    c = load_file(p)
    assert c.texts == (
        "Mr. Smith went to the U.S. in May.",
        "He paid $3.6m for a house.",
        "It was big.",
        "The market fell 2.5 points.",
        'Analysts said "it is over."',
        "Nobody agreed.",
        "Short one.",
        "Another short one.",
    )
    # forcing line mode keeps one entry per line
    assert len(load_file(p, segment=False)) == 3
    # forcing segmentation on a sentence-per-line file changes nothing
    clean = tmp_path / "clean.txt"
    clean.write_text("\n".join(CLEAN_LINES), encoding="utf-8")
    assert load_file(clean, segment=True).texts == load_file(clean).texts


def test_txt_hard_wrapped_prose(tmp_path):
    text = (
        "The first paragraph starts here and goes on for a\nwhile. It has a second sentence that is\n"
        "wrapped too.\n\nThe second paragraph is also wrapped. It\nends here.\n"
    )
    p = tmp_path / "wrapped.txt"
    p.write_text(text, encoding="utf-8")
    assert load_file(p).texts == (
        "The first paragraph starts here and goes on for a while.",
        "It has a second sentence that is wrapped too.",
        "The second paragraph is also wrapped.",
        "It ends here.",
    )


# ---------------------------------------------------------------------------------------------- tables
@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "id": [1, 2, 3, 4],
            "sentence": ["The cat sat.", "A dog ran far.", "The cat sat.", "Birds fly south."],
            "topic": ["pets", "pets", "pets", "birds"],
        }
    )


def _write(frame: pd.DataFrame, path) -> None:
    ext = path.suffix
    if ext == ".csv":
        frame.to_csv(path, index=False)
    elif ext == ".tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif ext == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    elif ext == ".parquet":
        frame.to_parquet(path)


@pytest.mark.parametrize("ext", [".csv", ".tsv", ".jsonl", ".parquet"])
def test_table_column_choice(tmp_path, frame, ext):
    p = tmp_path / f"data{ext}"
    _write(frame, p)
    c = load_file(p, "sentence")
    assert c.texts == ("The cat sat.", "A dog ran far.", "Birds fly south.")
    assert c.n_duplicates == 1
    with_labels = load_file(p, "sentence", label_column="topic")
    assert with_labels.labels == ("pets", "pets", "birds")
    # two text columns and no choice: an error that lists the columns
    with pytest.raises(CorpusError, match=r"2 text columns.*id, sentence, topic"):
        load_file(p)
    with pytest.raises(CorpusError, match=r"'nope' is not in .*available columns: id, sentence, topic"):
        load_file(p, "nope")
    with pytest.raises(CorpusError, match="does not hold text"):
        load_file(p, "id")
    assert list_columns(p.name, p.read_bytes()) == ["id", "sentence", "topic"]
    assert text_columns(p.name, p.read_bytes()) == ["sentence", "topic"]
    # one text column: picked without being named
    single = tmp_path / f"single{ext}"
    _write(frame[["id", "sentence"]], single)
    assert load_file(single).texts == c.texts


def test_table_rows_of_paragraphs_are_segmented(tmp_path):
    df = pd.DataFrame({"body": ["It rained. We stayed in.", "The sun came out. We went for a walk."], "n": [1, 2]})
    p = tmp_path / "paras.csv"
    df.to_csv(p, index=False)
    c = load_file(p, label_column="n")
    assert c.texts == ("It rained.", "We stayed in.", "The sun came out.", "We went for a walk.")
    assert c.labels == ("1", "1", "2", "2")
    assert len(load_file(p, segment=False)) == 2


def test_csv_keeps_literal_na_text(tmp_path):
    p = tmp_path / "na.csv"
    p.write_text("text\nNA\nnull\nNone\n\nA real sentence.\n", encoding="utf-8")
    assert load_file(p).texts == ("NA", "null", "None", "A real sentence.")


def test_kept_upload_reopens_with_its_duplicate_count(tmp_path):
    from n2o_core.corpora import load_upload, save_upload
    from n2o_core.storage.cache import Cache

    cache = Cache(tmp_path / "cache")
    uploaded = load_bytes("dups.txt", b"one line here\ntwo lines here\none line here\n\none  line here\n")
    assert (len(uploaded), uploaded.n_duplicates) == (2, 2)
    back = load_upload(cache, save_upload(cache, uploaded))  # what a link to the upload opens
    assert back.texts == uploaded.texts and back.fingerprint == uploaded.fingerprint
    assert back.n_duplicates == 2  # the sidebar says how many were removed from the file, not 0


def test_upload_bytes_match_file(tmp_path, frame):
    p = tmp_path / "up.csv"
    _write(frame, p)
    from_disk = load_file(p, "sentence")
    uploaded = load_bytes("up.csv", p.read_bytes(), "sentence")
    assert uploaded.texts == from_disk.texts
    assert uploaded.fingerprint == from_disk.fingerprint
    assert uploaded.source == "upload:up.csv" and uploaded.name == "up"
    txt = load_bytes("notes.txt", "\n".join(CLEAN_LINES).encode("utf-8"))
    assert len(txt) == len(CLEAN_LINES)
    assert list_columns("notes.txt", b"a\nb") == []
    bom = load_bytes("bom.txt", "\ufeffFirst line here.\nSecond line here.".encode("utf-8"))
    assert bom.texts == ("First line here.", "Second line here.")


# ---------------------------------------------------------------------------------------------- errors
def test_binary_file(tmp_path):
    p = tmp_path / "blob.txt"
    p.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(CorpusError, match="is not UTF-8 text"):
        load_file(p)


def test_latin1_file(tmp_path):
    p = tmp_path / "latin.txt"
    p.write_bytes("Café au lait.\nNaïve question.\n".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"'latin.txt' is not UTF-8 text \(byte 0xe9 at offset 3"):
        load_file(p)
    with pytest.raises(CorpusError, match="is not UTF-8 text"):
        load_bytes("latin.csv", "text\nCafé au lait.\n".encode("latin-1"))


@pytest.mark.parametrize(
    "filename,data,match",
    [
        ("empty.txt", b"", "is empty"),
        ("blank.txt", b"\n   \n\t\n", "is empty"),
        ("empty.csv", b"", "is empty"),
        ("header.csv", b"text\n", "no rows"),
        ("blank.csv", b"text,n\n ,1\n,2\n", "no non-blank text"),
        ("notes.docx", b"PK\x03\x04", "supported file types are .txt, .csv"),
        ("noext", b"hello", "no extension"),
        ("bad.csv", b"a,b\n1,2\n3,4,5,6\n", "is not a well-formed CSV file"),
        ("bad.jsonl", b'{"text": "a"}\n{"text": \n', "line 2 is not JSON"),
        ("list.jsonl", b'{"text": "a"}\n["x"]\n', "line 2 is not a JSON object"),
        ("junk.parquet", b"not parquet at all", "is not a readable Parquet file"),
    ],
)
def test_bad_uploads(filename, data, match):
    with pytest.raises(CorpusError, match=match):
        load_bytes(filename, data)


def test_missing_directory_and_txt_column(tmp_path):
    with pytest.raises(CorpusError, match="does not exist"):
        load_file(tmp_path / "missing.txt")
    with pytest.raises(CorpusError, match="is a directory"):
        load_file(tmp_path)
    p = tmp_path / "a.txt"
    p.write_text("Hello there.\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="no columns"):
        load_file(p, "text")


def test_unknown_builtin_lists_valid_names():
    with pytest.raises(CorpusError, match="bbc-news, lee-news, wiki"):
        load_corpus("builtin:nope")
    with pytest.raises(CorpusError, match="neither a file nor a built-in corpus"):
        load_corpus("nope")


# ---------------------------------------------------------------------------------------------- Hugging Face
@pytest.fixture
def hf_dir(tmp_path):
    d = tmp_path / "my_dataset"
    d.mkdir()
    rows = [{"sentence": f"Row number {i} is a sentence.", "label": i % 3} for i in range(30)]
    rows.append({"sentence": "Row number 0 is a sentence.", "label": 0})  # a duplicate
    with open(d / "train.jsonl", "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    pd.DataFrame({"sentence": ["A test sentence.", "Another test sentence."], "label": [0, 1]}).to_json(
        d / "test.jsonl", orient="records", lines=True
    )
    return d


def test_hf_local_dataset(hf_dir, tmp_path):
    cache = tmp_path / "hf-cache"
    c = load_hf_dataset(str(hf_dir), text_column="sentence", cache_dir=cache)
    assert len(c) == 30 and c.n_duplicates == 1
    assert c.texts[7] == "Row number 7 is a sentence."
    assert c.source == f"hf:{hf_dir}@train"
    few = load_hf_dataset(str(hf_dir), text_column="sentence", max_rows=5, label_column="label", cache_dir=cache)
    assert few.texts == tuple(f"Row number {i} is a sentence." for i in range(5))
    assert few.labels == ("0", "1", "2", "0", "1")
    with pytest.raises(CorpusError, match=r"Column 'text' is not in .*available columns: sentence, label"):
        load_hf_dataset(str(hf_dir), cache_dir=cache)


def test_hf_spec_and_errors(tmp_path):
    assert parse_hf_spec("glue:sst2@validation") == ("glue", "sst2", "validation")
    assert parse_hf_spec("user/ds") == ("user/ds", None, "train")
    assert parse_hf_spec("user/ds@test") == ("user/ds", None, "test")
    with pytest.raises(CorpusError, match="names no dataset"):
        parse_hf_spec("@train")
    with pytest.raises(CorpusError, match="Could not load the Hugging Face dataset"):
        load_hf_dataset(str(tmp_path / "no-such-dataset"), cache_dir=tmp_path / "hf")


def test_load_corpus_hf_split(hf_dir, tmp_path):
    c = load_corpus(f"hf:{hf_dir}@test", text_column="sentence", cache_dir=tmp_path / "c")
    assert c.texts == ("A test sentence.", "Another test sentence.")


def test_load_corpus_file_and_sample(tmp_path):
    p = tmp_path / "clean.txt"
    p.write_text("\n".join(CLEAN_LINES), encoding="utf-8")
    full = load_corpus(str(p))
    assert full.texts == tuple(CLEAN_LINES)
    s = load_corpus(str(p), max_sentences=10, seed=3)
    assert len(s) == 10 and s.name == "clean[10, seed 3]"
    positions = [full.texts.index(t) for t in s.texts]
    assert positions == sorted(positions)
    assert s.fit_texts == full.texts


# ---------------------------------------------------------------------------------------------- sampling
def _labelled(n_per: dict[str, int]) -> Corpus:
    texts, labels = [], []
    for lab, n in n_per.items():
        for i in range(n):
            texts.append(f"{lab} sentence number {i}.")
            labels.append(lab)
    # interleave so order checks mean something
    order = sorted(range(len(texts)), key=lambda i: (i * 7919) % len(texts))
    return from_texts([texts[i] for i in order], "toy", labels=[labels[i] for i in order])


def test_sample_is_stratified_deterministic_and_ordered():
    sizes = {"a": 500, "b": 300, "c": 150, "d": 50}
    corpus = _labelled(sizes)
    s = sample_corpus(corpus, 101)
    assert len(s) == 101
    counts = collections.Counter(s.labels)
    for lab, n in sizes.items():
        assert abs(counts[lab] - 101 * n / 1000) < 1
    pos = {t: i for i, t in enumerate(corpus.texts)}
    ids = [pos[t] for t in s.texts]
    assert ids == sorted(ids) and len(set(ids)) == 101
    assert all(corpus.labels[i] == lab for i, lab in zip(ids, s.labels))
    again = sample_corpus(corpus, 101)
    assert again.texts == s.texts and again.fingerprint == s.fingerprint
    assert sample_corpus(corpus, 101, seed=1).texts != s.texts
    assert s.fingerprint == fingerprint_texts(s.texts) != corpus.fingerprint
    assert s.training_texts == corpus.texts and s.fit_fingerprint == corpus.fingerprint
    assert "fit_fingerprint" in vars(s)  # hashed once per Corpus, then kept
    assert s.name == "toy[101]"
    assert sample_corpus(corpus, 5000) is corpus
    with pytest.raises(CorpusError):
        sample_corpus(corpus, 0)


def test_sample_unlabelled():
    corpus = from_texts([f"Sentence {i}." for i in range(200)], "plain")
    s = sample_corpus(corpus, 20, seed=0)
    assert len(s) == 20 and s.labels is None
    assert list(s.texts) == sorted(s.texts, key=corpus.texts.index)


# ---------------------------------------------------------------------------------------------- built-in
@pytest.fixture(scope="module")
def builtin_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("n2o-cache")


@pytest.fixture(scope="module")
def bbc(builtin_cache):
    return load_corpus(DEFAULT_CORPUS, cache_dir=builtin_cache)


def test_list_builtin_corpora():
    items = list_builtin_corpora()
    assert [i["name"] for i in items] == ["bbc-news", "lee-news", "wiki"]
    assert all(i["description"] and i["size"] and i["spec"] == f"builtin:{i['name']}" for i in items)


def test_bbc_news(bbc, builtin_cache):
    assert bbc.name == "bbc-news" and bbc.source == "builtin:bbc-news"
    assert len(bbc) > 35_000
    assert len(set(bbc.texts)) == len(bbc)
    assert bbc.n_duplicates > 0
    assert set(bbc.labels) == {"business", "entertainment", "politics", "sports", "tech"}
    assert bbc.fingerprint == fingerprint_texts(bbc.texts)
    # segmented: no multi-sentence entries made of whole paragraphs, abbreviations kept together
    assert max(len(t) for t in bbc.texts) < 2000
    assert not any(t.endswith((" Mr.", " Dr.", " U.S.")) for t in bbc.texts)
    cached = list((builtin_cache / "corpora").glob(f"bbc-news-v{corpora_builtin.BUILD_VERSION}-*.jsonl"))
    assert len(cached) == 1
    t0 = time.perf_counter()
    again = load_corpus("builtin:bbc-news", cache_dir=builtin_cache)
    assert time.perf_counter() - t0 < 2.0  # read from the cache (about 0.2 s)
    assert again.texts == bbc.texts and again.labels == bbc.labels
    assert again.fingerprint == bbc.fingerprint and again.n_duplicates == bbc.n_duplicates


def test_bbc_news_sample(bbc, builtin_cache):
    s = load_corpus("builtin:bbc-news", max_sentences=5000, cache_dir=builtin_cache)
    assert s.name == "bbc-news[5000]" and len(s) == 5000
    assert s.training_texts == bbc.texts and s.fit_fingerprint == bbc.fingerprint
    full_counts = collections.Counter(bbc.labels)
    counts = collections.Counter(s.labels)
    for topic, n in full_counts.items():
        assert abs(counts[topic] - 5000 * n / len(bbc)) < 1
    pos = {t: i for i, t in enumerate(bbc.texts)}
    ids = [pos[t] for t in s.texts]
    assert ids == sorted(ids)
    again = load_corpus("builtin:bbc-news", max_sentences=5000, cache_dir=builtin_cache)
    assert again.fingerprint == s.fingerprint


@pytest.mark.slow
def test_bbc_news_rebuild_is_deterministic(bbc, tmp_path):
    rebuilt, _seconds = corpora_builtin.build_builtin("bbc-news")
    assert rebuilt.fingerprint == bbc.fingerprint
    assert rebuilt.n_duplicates == bbc.n_duplicates


def test_lee_news_and_corrupt_cache(builtin_cache):
    lee = load_builtin("lee-news", cache_dir=builtin_cache)
    assert 2000 < len(lee) < 5000 and lee.labels is None
    assert len(set(lee.texts)) == len(lee)
    path = next((builtin_cache / "corpora").glob("lee-news-*.jsonl"))
    path.write_text('{"format": "n2o-corpus", "name": "lee-news", "n": 3}\n["trunc', encoding="utf-8")
    rebuilt = load_builtin("lee-news", cache_dir=builtin_cache)
    assert rebuilt.texts == lee.texts and rebuilt.fingerprint == lee.fingerprint
    assert corpora_builtin._read_cache(path, "lee-news") is not None  # rewritten


def test_default_cache_dir_from_env(tmp_path, monkeypatch):
    monkeypatch.setenv("N2O_CACHE_DIR", str(tmp_path / "envcache"))
    lee = load_corpus("lee-news")  # bare built-in name
    assert lee.name == "lee-news"
    assert list((tmp_path / "envcache" / "corpora").glob("lee-news-*.jsonl"))


@pytest.mark.slow
def test_wiki(builtin_cache):
    wiki = load_builtin("wiki", cache_dir=builtin_cache)
    assert len(wiki) > 10_000
    assert 95 <= len(set(wiki.labels)) <= 106
    assert "Anarchism" in set(wiki.labels)
    for junk in ("'''", "[[", "]]", "{{", "}}", "|alt=", "File:"):
        assert not any(junk in t for t in wiki.texts), junk
    assert all(len(t.split()) >= 3 for t in wiki.texts)


def test_wiki_markup_to_prose():
    from gensim.corpora.wikicorpus import filter_wiki

    markup = """{{Infobox person|name=Ada}}
'''Ada Lovelace''' ({{IPAc-en|ˈ|æ|d|ə}}; 10 December 1815 – 27 November 1852) was an English [[mathematician]] and writer.<ref>Some ref</ref> She worked on the [[Analytical Engine|engine]] of Babbage.

[[File:Ada_Lovelace.jpg|thumb|alt=Portrait of Ada|Ada in 1840]]

== Early life ==
Ada was born in London. Her father was Lord Byron.
* a list item that is not prose
{| class="wikitable"
| cell || cell
|}

== References ==
Some reference text that should be dropped entirely.

== Legacy ==
Ada Lovelace Day is held every October.
"""
    plain = corpora_builtin._wiki_plain(filter_wiki(markup))
    paras = plain.split("\n\n")
    assert paras[0].startswith("Ada Lovelace (10 December 1815 – 27 November 1852) was an English mathematician")
    assert "She worked on the engine of Babbage." in paras[0]
    assert "Ada was born in London. Her father was Lord Byron." in paras
    assert paras[-1] == "Ada Lovelace Day is held every October."
    for junk in ("'''", "[[", "{{", "ref", "list item", "cell", "Some reference", "Portrait"):
        assert junk not in plain, junk


def test_merge_broken_paragraphs():
    merged = corpora_builtin._merge_broken_paragraphs(
        ["He beat fellow American", "runner Smith in the final.", "A new paragraph.", "lowercase after a stop."]
    )
    assert merged == [
        "He beat fellow American runner Smith in the final.",
        "A new paragraph.",
        "lowercase after a stop.",
    ]


def test_training_with_a_background_corpus(bbc, builtin_cache, tmp_path):
    from n2o_core.corpora import with_background

    mine = from_texts(["My own first sentence.", bbc.texts[3], "My own second sentence."], "mine.txt")
    both = with_background(mine, bbc)
    assert both.texts == mine.texts and both.labels == mine.labels  # the compared sentences do not change
    assert both.fit_texts == (*bbc.fit_texts, "My own first sentence.", "My own second sentence.")
    assert both.fingerprint != mine.fingerprint and both.fit_fingerprint != mine.fit_fingerprint
    assert both.sentences_fingerprint == mine.fingerprint == mine.sentences_fingerprint  # keys the other embedders
    path = tmp_path / "mine.txt"
    path.write_text("\n".join(mine.texts), encoding="utf-8")
    loaded = load_corpus(str(path), cache_dir=builtin_cache, train_with="bbc-news")
    assert loaded.texts == mine.texts and loaded.fit_texts == both.fit_texts
    with pytest.raises(CorpusError, match="not a built-in corpus"):
        load_corpus(str(path), train_with="/etc/passwd")
