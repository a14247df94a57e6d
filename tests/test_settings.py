"""URL state round trip, tolerant parsing, and escaping in token highlighting."""

from __future__ import annotations

from n2o_core.corpora import DEFAULT_CORPUS
from n2o_core.corpora import linkable_spec as valid_corpus_spec
from n2o_core.limits import K_MAX
from n2o_core.settings import Settings, env_defaults, from_query, to_query
from n2o_core.text import highlight_shared, shared_tokens


def test_round_trip():
    s = Settings(
        corpus="builtin:lee-news",
        max_sentences=2000,
        embedders=("tfidf", "e5-small"),
        k=7,
        n_queries=50,
        n_samples=3,
        seed=4,
        approx=True,
        znorm=True,
        order="chosen",
    )
    back = from_query(to_query(s), Settings(), known_embedders=["tfidf", "e5-small", "glove-6b-50d"])
    assert back == s
    assert back.notes == ()


def test_bad_values_fall_back_with_notes():
    d = Settings()
    s = from_query(
        {"k": "500", "queries": "abc", "emb": "tfidf,nope", "search": "fast", "order": "x", "corpus": "/etc/passwd"},
        d,
        known_embedders=["tfidf"],
    )
    assert s.k == d.k and s.n_queries == d.n_queries
    assert s.embedders == ("tfidf",)
    assert s.approx is False and s.order == "cluster"
    assert s.corpus == DEFAULT_CORPUS
    assert len(s.notes) == 6
    assert any("nope" in n for n in s.notes)


def test_corpus_specs_from_urls():
    assert valid_corpus_spec("builtin:bbc-news")
    assert valid_corpus_spec("upload:0123456789abcdef")
    assert not valid_corpus_spec("upload:../../x")
    assert not valid_corpus_spec("/tmp/x.txt")
    assert valid_corpus_spec("/tmp/x.txt", extra=["/tmp/x.txt"])


def test_env_defaults():
    s = env_defaults(
        {
            "N2O_DEFAULT_CORPUS": "/data/c.txt",
            "N2O_DEFAULT_EMBEDDERS": " tfidf, w2v ,tfidf",
            "N2O_MAX_SENTENCES": "300",
            "N2O_DEFAULT_QUERIES": "20",
            "N2O_DEFAULT_SAMPLES": "x",
        }
    )
    assert s.corpus == "/data/c.txt"
    assert s.embedders == ("tfidf", "w2v")
    assert s.max_sentences == 300 and s.n_queries == 20 and s.n_samples == Settings().n_samples
    assert from_query({}, s).corpus == "/data/c.txt"
    assert K_MAX == 50


def test_highlight_escapes_and_marks():
    q = "The <b>cat</b> & the dog"
    text = "A cat <script>alert('x')</script> & DOG's bone"
    out = highlight_shared(text, shared_tokens(q, text) | {"dog"})
    assert "<script>" not in out and "&#60;script&#62;" in out
    assert "<mark>cat</mark>" in out
    assert "&#38;" in out
    assert "<mark>" + "DOG" not in out  # "DOG's" is one token ("dog's"), not "dog"
    out2 = highlight_shared("Dogs and DOG", {"dog"})
    assert out2 == "Dogs and <mark>DOG</mark>"
    assert shared_tokens("A b c", "c d a") == frozenset({"a", "c"})


def test_threshold_parameters():
    from n2o_core.settings import param_threshold

    assert param_threshold({}, "min_score", 0, 5, 4.0) == (4.0, None)
    assert param_threshold({"min_score": "3.5"}, "min_score", 0, 5, 4.0) == (3.5, None)
    assert param_threshold({"min_score": ["off"]}, "min_score", 0, 5, 4.0) == (None, None)
    for bad in ("7", "nan", "x", "-1"):
        v, note = param_threshold({"max_overlap": bad}, "max_overlap", 0.05, 1.0, None)
        assert v is None and "'max_overlap' in the link must be a number from 0.05 to 1 or 'off'; using off" in note


def test_train_with_round_trips_and_refuses_anything_but_a_builtin():
    s = from_query({"train": "bbc-news"})
    assert s.train_with == "bbc-news" and to_query(s)["train"] == "bbc-news"
    assert "train" not in to_query(from_query({}))
    bad = from_query({"train": "/etc/passwd"})
    assert bad.train_with == "" and any("'train' must name a built-in corpus" in n for n in bad.notes)


def test_links_keep_variants_of_known_or_allowed_embedders():
    s = from_query(
        {"emb": "minilm-l6-mean,minilm-l6-mean@binary,minilm-l6-mean@bianry,nope@int8,st:m@layer=2,st:x@dims=8"},
        known_embedders=["minilm-l6-mean"],
        link_refusal=lambda e: None if e == "st:m" else "not allowed here",
    )
    assert s.embedders == ("minilm-l6-mean", "minilm-l6-mean@binary", "st:m@layer=2")
    assert any("minilm-l6-mean@bianry" in n and "did you mean '@binary'" in n for n in s.notes)
    assert any("'st:x@dims=8' in the link is left out: not allowed here" in n for n in s.notes)
    assert any("ignored: nope@int8" in n for n in s.notes)
