"""The user's own embedders: spec checks, the rule for what a link may name, uploaded vectors (read, check, keep),
family groups and the family colours every figure uses, and their URL state in `settings.from_query`."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from n2o_core.embedders import user as ue
from n2o_core.errors import EmbedderError
from n2o_core.figures import n2o as figures
from n2o_core.figures import style as figures_style
from n2o_core.settings import from_query, param_flag, to_query
from n2o_core.storage.cache import Cache


def test_parse_spec_checks_the_form_only():
    assert ue.parse_spec("  st:org/model ") == "st:org/model"
    assert ue.parse_spec("hf:/models/bert@MEAN") == "hf:/models/bert@mean"
    assert ue.parse_spec("wv:/data/glove.txt@nostop") == "wv:/data/glove.txt@nostop"
    for bad, says in (
        ("", "Type a model"),
        ("bert-base-uncased", "does not start with st:, hf: or wv:"),
        ("npy:/x.npy", "does not start with"),
        ("st:", "names no model"),
        ("hf:bert", "needs a pooling"),
        ("hf:bert@sum", "Unknown pooling '@sum'"),
        ("st:a\nb", "one line"),
    ):
        with pytest.raises(EmbedderError, match=says):
            ue.parse_spec(bad)
    assert ue.spec_target("hf:/m/x@cls") == "/m/x" and ue.spec_target("wv:/v.txt@nostop") == "/v.txt"


def test_names_and_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org").mkdir()
    (tmp_path / "org" / "model").mkdir()
    assert not ue.is_local("st:sentence-transformers/all-MiniLM-L6-v2")
    assert ue.is_local("st:org/model")  # exists relative to the server's folder: a path, not a name
    assert ue.is_local("st:./m") and ue.is_local("hf:~/m@cls") and ue.is_local("wv:vectors.txt")


def test_link_rule(tmp_path):
    model = tmp_path / "allowed" / "m"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}")
    other = tmp_path / "other"
    other.mkdir()
    no_env: dict[str, str] = {}
    # model names always
    assert ue.link_refusal("st:org/name", environ=no_env) is None
    # a path only after it was typed on this server ...
    assert "only after it was added on this server" in ue.link_refusal(f"st:{model}", environ=no_env)
    assert ue.link_refusal(f"st:{model}", typed={f"st:{model}"}, environ=no_env) is None
    # ... or under $N2O_MODEL_DIRS (symbolic links and .. resolved first)
    env = {ue.MODEL_DIRS_ENV: str(tmp_path / "allowed")}
    assert ue.link_refusal(f"st:{model}", environ=env) is None
    assert ue.link_refusal(f"st:{tmp_path}/allowed/../other", environ=env) is not None
    (tmp_path / "allowed" / "sneaky").symlink_to(other)
    assert "outside the server's model folders" in ue.link_refusal(f"st:{tmp_path}/allowed/sneaky", environ=env)
    # with $N2O_MODEL_DIRS set, typing a path outside is refused too (typed specs do not widen it)
    assert "outside" in ue.link_refusal(f"st:{other}", typed={f"st:{other}"}, environ=env)
    assert "only from" in ue.typed_refusal(f"st:{other}", environ=env)
    assert ue.typed_refusal(f"st:{model}", environ=env) is None
    assert "not found on the server" in ue.typed_refusal(f"st:{tmp_path}/missing", environ=no_env)
    # Hugging Face datasets follow the same rule
    assert ue.dataset_link_refusal("hf:ag_news@test", environ=no_env) is None
    assert ue.dataset_link_refusal(f"hf:{model}", environ=no_env) is not None
    assert ue.dataset_link_refusal(f"hf:{model}", environ=env) is None


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def test_read_vectors_formats_and_checks():
    a = np.arange(12, dtype=np.float64).reshape(4, 3)
    assert ue.read_vectors("v.npy", _npy(a)).dtype == np.float32
    np.testing.assert_array_equal(ue.read_vectors("v.npy", _npy(a)), a.astype(np.float32))
    buf = io.BytesIO()
    np.savez(buf, ids=np.arange(4), embeddings=a)
    np.testing.assert_array_equal(ue.read_vectors("v.npz", buf.getvalue()), a)
    buf = io.BytesIO()
    pd.DataFrame(a, columns=["d0", "d1", "d2"]).to_parquet(buf)
    np.testing.assert_array_equal(ue.read_vectors("v.parquet", buf.getvalue()), a)
    buf = io.BytesIO()
    pd.DataFrame({"vec": [list(r) for r in a]}).to_parquet(buf)
    np.testing.assert_array_equal(ue.read_vectors("v.parquet", buf.getvalue()), a)

    nan = a.copy()
    nan[2, 1] = np.nan
    cases = [
        ("v.npy", _npy(nan), r"NaN or infinite values in 1 row\(s\) \(first: row 2\)"),
        ("v.npy", _npy(np.ones(4)), "2-D array"),
        ("v.npy", _npy(np.array([True, False]).reshape(1, 2)), "real numbers.*booleans"),
        ("v.npy", _npy(np.array([["a"]])), "real numbers"),
        ("v.npy", _npy(np.array([[1j]])), "real numbers"),
        ("v.npy", b"not an array", "not a readable .npy"),
        ("v.npy", _npy(np.array([[{}]], dtype=object)), "not a readable .npy"),  # pickles are never read
        ("v.csv", b"1,2", ".npy, .npz or .parquet"),
        ("v.npy", b"", "empty"),
    ]
    for name, raw, says in cases:
        with pytest.raises(EmbedderError, match=says):
            ue.read_vectors(name, raw)
    buf = io.BytesIO()
    np.savez(buf, a=a, b=a)
    with pytest.raises(EmbedderError, match="several arrays"):
        ue.read_vectors("v.npz", buf.getvalue())
    buf = io.BytesIO()
    pd.DataFrame({"text": ["x"] * 4, "d0": a[:, 0]}).to_parquet(buf)
    with pytest.raises(EmbedderError, match="non-numeric column"):
        ue.read_vectors("v.parquet", buf.getvalue())


def test_saved_vectors_are_content_addressed_per_corpus(tmp_path):
    cache = Cache(tmp_path)
    a = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    eid = ue.save_vectors(cache, "my vectors!.npy", a, "corpusA", 5)
    assert ue.is_vectors_id(eid) and eid.startswith("vec:my-vectors-")
    assert ue.vectors_label(eid) == "my-vectors"
    np.testing.assert_array_equal(np.load(ue.vectors_file(cache, eid)), a)
    assert ue.vectors_corpus(cache, eid) == "corpusA"
    assert ue.save_vectors(cache, "my vectors!.npy", a, "corpusA", 5) == eid  # same file, same id
    assert ue.save_vectors(cache, "my vectors!.npy", a, "corpusB", 5) != eid  # another corpus, another id
    assert ue.save_vectors(cache, "my vectors!.npy", a + 1, "corpusA", 5) != eid
    with pytest.raises(EmbedderError, match="has 5 rows but the corpus has 6 sentences"):
        ue.save_vectors(cache, "v.npy", a, "corpusA", 6)
    assert ue.vectors_file(cache, "vec:x-0123456789") is None and not ue.is_vectors_id("vec:../x-0123456789")


def test_uploaded_vectors_work_in_a_workspace(tmp_path):
    """The path the app takes: saved in the cache, added to the corpus's Workspace under the id, compared."""
    from synthetic_text import sentences  # tests/ is on sys.path (its conftest)

    from n2o_core.analyses.compare import compare
    from n2o_core.corpora import from_texts
    from n2o_core.corpus_workspace import Workspace

    corpus = from_texts(sentences(60), "synthetic")
    cache = Cache(tmp_path)
    vecs = np.random.default_rng(1).standard_normal((len(corpus), 6)).astype(np.float32)
    eid = ue.save_vectors(cache, "mine.npy", vecs, corpus.fingerprint, len(corpus))
    ws = Workspace(corpus, cache=cache)
    ws.add_vectors(eid, ue.vectors_file(cache, eid))
    res = compare(ws, ["tfidf", eid], 5, n_queries=10, n_samples=2)
    assert res.embedders == ["tfidf", eid]
    from n2o_core.search.exact import exact_knn

    want = exact_knn(vecs, 5, query_ids=res.pool).ids
    np.testing.assert_array_equal(res.neighbors[eid], want)


def test_family_groups_and_colours():
    assert ue.family_group_of("tfidf") == "tf-idf"
    assert ue.family_group_of("fasttext-sub") == "subword"
    assert ue.family_group_of("model2vec") == "distilled"
    assert ue.family_group_of("st:org/m") == "transformers" and ue.family_group_of("hf:x@cls") == "transformers"
    assert ue.family_group_of("wv:/v.txt") == "static averages"
    assert ue.family_group_of("vec:mine-0123456789") == "precomputed" and ue.family_group_of("mine") == "precomputed"

    names = ["tfidf", "glove-6b-50d", "word2vec", "fasttext-sub", "minilm-l6-mean", "e5-small", "st:org/m", "mine"]
    col = figures_style.embedder_colors(names)
    assert col["tfidf"] == figures_style.FAMILY_COLORS["tf-idf"][0]
    assert col["glove-6b-50d"] in figures_style.FAMILY_COLORS["static averages"]
    assert col["word2vec"] in figures_style.FAMILY_COLORS["static averages"] and col["word2vec"] != col["glove-6b-50d"]
    assert col["st:org/m"] in figures_style.FAMILY_COLORS["transformers"]
    assert len({col["minilm-l6-mean"], col["e5-small"], col["st:org/m"]}) == 3
    assert col["mine"] == figures_style.FAMILY_COLORS["precomputed"][0]
    # an embedder keeps its colour whichever others are shown, in whatever order
    assert figures_style.embedder_colors(["e5-small", "word2vec"]) == {k: col[k] for k in ("e5-small", "word2vec")}
    # and the figures use them
    df = pd.DataFrame({"embedder": ["tfidf", "st:org/m"], "mean": [0.3, 0.2], "ci_low": [0.2, 0.1]})
    bars = figures.token_overlap_bars(df.assign(ci_high=[0.4, 0.3], n=[10, 10]))
    assert list(bars.data[0].marker.color) == [col["tfidf"], col["st:org/m"]]


def test_url_state_of_user_embedders_and_talk():
    known = ["tfidf", "word2vec"]
    allowed = {"st:org/m": None, "st:/srv/m": "a link may name it only after it was added on this server"}
    s = from_query(
        {"emb": "tfidf,st:org/m,st:/srv/m,nonsense"},
        known_embedders=known,
        link_refusal=lambda e: allowed.get(e, "unknown"),
    )
    assert s.embedders == ("tfidf", "st:org/m")
    assert any("st:/srv/m" in n and "only after it was added" in n for n in s.notes)
    assert any("nonsense" in n and "Unknown" in n for n in s.notes)
    # without a link rule, user specs are unknown embedders (as before)
    assert from_query({"emb": "tfidf,st:org/m"}, known_embedders=known).embedders == ("tfidf",)
    # the text column of a dataset corpus round-trips as col=, and is absent otherwise
    s = from_query({"corpus": "builtin:bbc-news", "col": "sentence"}, known_embedders=known)
    assert s.text_column == "sentence" and to_query(s)["col"] == "sentence"
    assert "col" not in to_query(from_query({}, known_embedders=known))
    assert param_flag({"talk": "1"}, "talk") and param_flag({"talk": ["true"]}, "talk")
    assert not param_flag({"talk": "0"}, "talk") and not param_flag({}, "talk")
