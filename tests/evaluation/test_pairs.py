"""Scored-pair loading and the paper's filters (n2o_core.evaluation.pairs)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sts_fixture import write_stsb
from synthetic_text import sentences

from n2o_core.errors import N2OError
from n2o_core.evaluation.pairs import (
    PAPER_N_PAIRS,
    PairSource,
    biggest_drop,
    deviations,
    filter_pairs,
    kept_line,
    lee_pairs,
    load_pairs,
    looser_setting,
    pairs_from_records,
    paper_defaults,
    synthetic_pairs,
    word_overlap,
)

SENTS = sentences(120)


@pytest.fixture
def stsb(tmp_path):
    path = tmp_path / "sts-dev.csv"
    rows = write_stsb(path, SENTS, n=60, seed=0)
    return path, rows


# ------------------------------------------------------------------------------------------- STS-B layout


def test_stsb_layout_loads_as_it_is(stsb):
    path, rows = stsb
    p = load_pairs(str(path))
    assert p.source.kind == "sts-b" and p.source.scored and p.source.score_scale == 5.0
    assert p.frame["sentence1"].tolist() == [r[5] for r in rows]
    # stray quotes are kept as text (quoting off), extra trailing fields are ignored
    assert p.frame["sentence2"].tolist() == [" ".join(r[6].split()) for r in rows]
    assert any('"' in s for s in p.frame["sentence2"])
    assert np.allclose(p.scores, [float(r[4]) for r in rows])
    assert p.frame["genre"].tolist() == [r[0] for r in rows]
    assert p.frame["row"].tolist() == list(range(60))
    assert "12 lines had extra trailing fields (ignored)" in p.source.notes


def test_stsb_line_with_too_few_fields(tmp_path):
    path = tmp_path / "sts.csv"
    lines = ["main-news\tf\t2012\t1\t4.2\tA cat sat.\tA cat was sitting.", "main-news\tf\t2012\t2\t3.0\tOnly six"]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(N2OError, match="line 2 has 6 tab-separated fields"):
        load_pairs(str(path))


# ------------------------------------------------------------------------------------------- other files


def test_headered_csv_with_quotes_and_aliases(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(
        'sentence_a,sentence_b,similarity_score,genre\n"Prices rose, analysts said.",Analysts said prices went up.,'
        "4.5,news\nA man plays a guitar.,A woman slices a tomato.,0.5,captions\n",
        encoding="utf-8",
    )
    p = load_pairs(str(path))
    assert p.queries == ["Prices rose, analysts said.", "A man plays a guitar."]
    assert p.paraphrases == ["Analysts said prices went up.", "A woman slices a tomato."]
    assert p.scores.tolist() == [4.5, 0.5] and p.frame["genre"].tolist() == ["news", "captions"]


def test_named_columns_jsonl_and_01_scale(tmp_path):
    path = tmp_path / "p.jsonl"
    recs = [{"a": "The bank cut rates.", "b": "Rates were lowered by the bank.", "sim": 0.9}, {}]
    recs[1] = {"a": "A dog runs.", "b": "Stocks fell.", "sim": 0.1}
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n", encoding="utf-8")
    cols = {"sentence1": "a", "sentence2": "b", "score": "sim"}
    p = load_pairs(str(path), columns=cols)
    assert p.source.score_scale == 1.0  # detected: no score above 1
    assert np.allclose(p.scores, [4.5, 0.5])  # kept on the 0-5 scale
    p5 = load_pairs(str(path), columns=cols, scale=5)
    assert np.allclose(p5.scores, [0.9, 0.1])


def test_parquet_file(tmp_path):
    path = tmp_path / "p.parquet"
    pd.DataFrame({"sentence1": ["One two three."], "sentence2": ["Three two one."], "score": [5.0]}).to_parquet(path)
    p = load_pairs(str(path))
    assert p.queries == ["One two three."] and p.scores.tolist() == [5.0]


def test_hf_spec_reads_a_local_dataset_folder(tmp_path):
    pytest.importorskip("datasets")
    folder = tmp_path / "stsb01"
    folder.mkdir()
    rows = [{"sentence1": "A plane takes off.", "sentence2": "An air plane is taking off.", "score": 1.0}]
    rows.append({"sentence1": "A man plays a flute.", "sentence2": "A man plays the piano.", "score": 0.3})
    (folder / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    p = load_pairs(f"hf:{folder}@test")
    assert p.source.kind == "hf" and p.source.score_scale == 1.0
    assert p.queries == ["A plane takes off.", "A man plays a flute."] and np.allclose(p.scores, [5.0, 1.5])


def test_hf_offline_is_one_clear_error(monkeypatch):
    datasets = pytest.importorskip("datasets")

    def offline(*a, **k):
        raise ConnectionError("Couldn't reach 'mteb/stsbenchmark-sts' on the Hub (OfflineModeIsEnabled)")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(N2OError, match=r"cannot be reached.*pass the file to --pairs"):
        load_pairs("hf:mteb/stsbenchmark-sts@test")


def test_heros_file_is_unscored_with_subset_genre(tmp_path):
    path = tmp_path / "heros.tsv"
    path.write_text(
        "Original\tSynonym\tAntonym\nThe shares rose sharply.\tThe shares climbed sharply.\tThe shares fell sharply.\n",
        encoding="utf-8",
    )
    p = load_pairs(str(path))
    assert p.source.kind == "heros" and not p.source.scored
    got = sorted(zip(p.frame["genre"], p.paraphrases))
    assert got == [("antonym", "The shares fell sharply."), ("synonym", "The shares climbed sharply.")]
    assert np.isnan(p.scores).all()
    assert paper_defaults(p.source) == {"min_score": None, "max_overlap": None, "genres": ["synonym"]}
    assert load_pairs(f"heros:{path}").queries == p.queries


def test_paper_defaults_keep_news_where_the_pairs_have_genres(tmp_path):
    """N2O §8 kept the newstext parts of STS only: news is the default genre where the file has one."""
    path = tmp_path / "sts-dev.csv"
    rows = write_stsb(path, sentences(90), n=60)
    p = load_pairs(str(path))
    genres = p.genres
    assert genres == sorted({r[0] for r in rows}) and "main-news" in genres  # every genre the file names, once
    assert paper_defaults(p.source, genres)["genres"] == ["news"]
    assert paper_defaults(p.source)["genres"] is None  # genres unknown: no filter
    assert paper_defaults(p.source, ["main-captions", "main-forums"])["genres"] is None  # no news genre in the file
    kept = filter_pairs(p, min_score=None, max_overlap=None, genres=["news"])
    assert len(kept.pairs) == sum(r[0] == "main-news" for r in rows) == 60 - kept.dropped["genre"]
    assert set(kept.pairs.frame["genre"]) == {"main-news"}
    lee = load_pairs("builtin:lee")
    assert lee.genres == ["lee"] and paper_defaults(lee.source, lee.genres)["genres"] is None  # no news genre


# ------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "content, match",
    [
        ("sentence1\tsentence2\nA b c.\tC b a.\n", "has no score column"),
        ("sentence1\tsentence2\tscore\nA b c.\tC b a.\t5.5\n", r"score 5.5 is outside the 0-5 scale"),
        ("sentence1\tsentence2\tscore\nA b c.\tC b a.\t-1\n", r"score -1 is outside"),
        ("sentence1\tsentence2\tscore\nA b c.\tC b a.\thigh\n", "score 'high' is not a number"),
        ("sentence1\tsentence2\tscore\n!!! ...\tC b a.\t4\n", "line 2: the query .* has no word tokens"),
        ("sentence1\tsentence2\tscore\nA b c.\t\t4\n", "line 2: sentence2 is empty"),
    ],
)
def test_bad_files(tmp_path, content, match):
    path = tmp_path / "bad.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(N2OError, match=match):
        load_pairs(str(path))


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin.tsv"
    path.write_bytes("sentence1\tsentence2\tscore\nCaf\xe9 prices rose.\tPrices rose.\t4\n".encode("latin-1"))
    with pytest.raises(N2OError, match=r"not UTF-8 text \(byte 0xe9"):
        load_pairs(str(path))


def test_explicit_scale_bounds(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("sentence1\tsentence2\tscore\nA b c.\tC b a.\t0.8\n", encoding="utf-8")
    with pytest.raises(N2OError, match=r"outside the 0-0\.5 scale"):
        load_pairs(str(path), scale=0.5)


# ------------------------------------------------------------------------------------------- overlap + filters


def test_word_overlap_on_the_papers_example():
    a = "Arkansas Supreme Court strikes down execution law"
    b = "Arkansas justices strike down death penalty"
    assert word_overlap(a, b) == pytest.approx(2 / 7)  # {arkansas, down} of the query's 7 words
    assert word_overlap(a, b, "jaccard") == pytest.approx(2 / 11)
    assert word_overlap("The cat, the hat.", "the CAT") == pytest.approx(2 / 3)  # distinct, lowercased


def _pairs(rows):
    src = PairSource("mem", "table", "test pairs")
    s1, s2, sc, g = zip(*rows)
    return pairs_from_records(s1, s2, sc, g, src)


def test_filters_in_order_with_counts():
    p = _pairs(
        [
            ("a b c d e", "a b c x y", 4.5, "main-news"),  # overlap 0.6: not < 0.6 -> dropped by overlap
            ("a b c d e", "a b x y z", 4.0, "main-news"),  # 0.4, score 4.0 kept (>=)
            ("a b c d e", "x y z w v", 3.9, "main-news"),  # score
            ("a b c d e", "x y z w v", 5.0, "main-captions"),  # genre
        ]
    )
    filtered = filter_pairs(p, genres=["news"])
    assert filtered.dropped == {"genre": 1, "score": 1, "overlap": 1}
    assert filtered.pairs.frame["row"].tolist() == [1]
    assert filtered.pairs.frame["overlap"].tolist() == [pytest.approx(0.4)]
    assert filtered.n_loaded == 4
    assert filter_pairs(p, min_score=None, max_overlap=None).dropped == {}
    with pytest.raises(N2OError, match=r"No pairs are left .*genre: 1, score: 2, overlap: 1"):
        filter_pairs(p, min_score=4.5, max_overlap=0.5, genres=["NEWS"])
    with pytest.raises(N2OError, match="No pair has the genre forums"):
        filter_pairs(p, genres=["forums"])


def test_min_score_on_unscored_pairs_is_refused():
    src = PairSource("mem", "heros", "x", scored=False, score_scale=None)
    p = pairs_from_records(["a b"], ["a c"], None, None, src)
    with pytest.raises(N2OError, match="have no similarity scores"):
        filter_pairs(p, min_score=4)


# ------------------------------------------------------------------------------------------- Lee, synthetic


def test_lee_pairs_layout():
    p = lee_pairs()
    docs = p.extra["documents"]
    assert len(docs) == 50 and len(p) == 1225
    sim = np.loadtxt(__import__("gensim.test.utils", fromlist=["datapath"]).datapath("similarities0-1.txt"))
    k = int(np.flatnonzero((p.extra["index1"] == 3) & (p.extra["index2"] == 17))[0])
    assert p.scores[k] == pytest.approx(sim[3, 17] * 5)
    assert p.queries[k] == docs[3] and p.paraphrases[k] == docs[17]
    assert any("£" in d for d in docs)  # the Latin-1 pound sign is decoded
    assert p.source.score_scale == 1.0


def test_lee_at_the_papers_filters_keeps_18_pairs_and_a_looser_score_keeps_the_papers_75():
    """The score filter drops 1,207 of gensim's 1,225 Lee pairs; the looser setting is the highest score floor on the
    slider's 0.1 steps that keeps 75 pairs (the paper's count), labelled against the paper's 4."""
    p = lee_pairs()
    filtered = filter_pairs(p)
    assert len(filtered.pairs) == 18 and biggest_drop(filtered) == ("score", 1207)
    assert (
        kept_line(filtered)
        == "1,225 pairs loaded → score filter dropped 1,207 → word overlap filter dropped 0 → 18 kept"
    )
    loose = looser_setting(p, filtered)
    assert loose is not None and loose.changed == "score" and loose.max_overlap == 0.6
    kept = len(filter_pairs(p, min_score=loose.min_score).pairs)
    assert loose.kept == kept >= PAPER_N_PAIRS > len(filter_pairs(p, min_score=loose.min_score + 0.1).pairs)
    assert (loose.min_score, loose.kept) == (3.1, 77)
    assert loose.label() == "score ≥ 3.1 (the paper: ≥ 4)"
    paper = paper_defaults(p.source)
    assert deviations(filtered.filters, paper) == []
    looser = filter_pairs(p, min_score=loose.min_score, max_overlap=loose.max_overlap)
    assert deviations(looser.filters, paper) == ["score ≥ 3.1 (the paper: ≥ 4)"]
    assert looser_setting(p, looser) is None  # 77 >= 75: nothing to loosen


def test_the_looser_setting_relaxes_the_filter_that_dropped_the_most():
    rows = [(f"a b c d e{i}", f"a b c d z{i}", 4.5, "news") for i in range(6)]  # overlap 0.8
    rows += [(f"a b c d e{i}", f"a b c x z{i}", 4.5, "news") for i in range(3)]  # overlap 0.6
    rows += [(f"a b c d e{i}", f"a x y z w{i}", 4.5, "news") for i in range(2)]  # overlap 0.2: kept
    rows += [(f"a b c d e{i}", f"a x y z w{i}", 2.0, "news") for i in range(1)]  # score
    p = _pairs(rows)
    filtered = filter_pairs(p)
    assert filtered.dropped == {"score": 1, "overlap": 9} and biggest_drop(filtered) == ("overlap", 9)
    loose = looser_setting(p, filtered, want=5)
    assert (loose.changed, loose.max_overlap, loose.kept, loose.min_score) == ("overlap", 0.65, 5, 4.0)
    assert loose.label() == "word overlap < 0.65 (the paper: < 0.6)"
    assert len(filter_pairs(p, max_overlap=0.65).pairs) == 5
    off = looser_setting(p, filtered, want=100)  # even no limit keeps fewer: the filter off
    assert (off.max_overlap, off.kept) == (None, 11) and off.label().startswith("no overlap limit")
    assert deviations(filter_pairs(p, max_overlap=None).filters, paper_defaults(p.source)) == [
        "no overlap limit (the paper: < 0.6)"
    ]
    assert deviations({"min_score": None, "max_overlap": None}, {"min_score": None, "max_overlap": None}) == []


def test_synthetic_label_travels(monkeypatch, tmp_path):
    """The generator is replaced by a fixed PairSet here (the real one runs in test_needle's slow test)."""
    from n2o_core.corpora import from_texts
    from n2o_core.evaluation.heros import pair_cache
    from n2o_core.evaluation.heros.generate import PAIR_COLUMNS, PairSet
    from n2o_core.storage.cache import Cache

    rows = [dict.fromkeys(PAIR_COLUMNS, "") | {"subset": "synonym", "original": SENTS[0], "variant": "x " + SENTS[0]}]
    seen = {}

    def fake(cache, fp, texts, n, seed, subsets, progress=None):
        seen.update(n=n, seed=seed, subsets=subsets)
        return PairSet(pd.DataFrame(rows, columns=PAIR_COLUMNS))

    monkeypatch.setattr(pair_cache, "cached_generate_pairs", fake)
    corpus = from_texts(SENTS, name="toy")
    p = load_pairs("synthetic:heros-synonym:7", corpus=corpus, cache=Cache(tmp_path), seed=3)
    assert seen == {"n": 7, "seed": 3, "subsets": ("synonym",)}
    assert p.source.synthetic and not p.source.scored
    assert p.source.label.startswith("SYNTHETIC pairs (synthetic:heros-synonym:7)")
    assert "not human paraphrases" in p.source.label
    assert p.queries == [SENTS[0]] and p.frame["genre"].tolist() == ["synthetic-synonym"]
    with pytest.raises(N2OError, match="Unknown synthetic pair rule 'shuffle'"):
        load_pairs("synthetic:shuffle", corpus=corpus)
    with pytest.raises(N2OError, match="made from a corpus"):
        load_pairs("synthetic:heros-typo")
    assert synthetic_pairs is not None


# ------------------------------------------------------------------------------------------- column pickers


def test_pair_file_columns_and_guesses(tmp_path, stsb):
    from n2o_core.evaluation.pairs import guess_pair_columns, pair_file_columns

    path, _ = stsb
    assert pair_file_columns(path) == []  # the STS-B layout has no header: read as is
    tsv = tmp_path / "p.tsv"
    tsv.write_text("Text A\ttext_b\tgold\tdomain\nA b c.\tC b a.\t4\tnews\n", encoding="utf-8")
    cols = pair_file_columns(tsv)
    assert cols == ["Text A", "text_b", "gold", "domain"]
    assert guess_pair_columns(cols) == {"sentence1": None, "sentence2": "text_b", "score": "gold", "genre": "domain"}
    js = tmp_path / "p.jsonl"
    js.write_text('{"s1": "A b.", "s2": "B a.", "sim": 3}\n{"s1": "C.", "s2": "D.", "sim": 1, "extra": 1}\n')
    assert pair_file_columns(js) == ["s1", "s2", "sim", "extra"]
    bad = tmp_path / "latin.csv"
    bad.write_bytes("sentence1,sentence2,score\nCaf\xe9,x,1\n".encode("latin-1"))
    with pytest.raises(N2OError, match="not UTF-8"):
        pair_file_columns(bad)
