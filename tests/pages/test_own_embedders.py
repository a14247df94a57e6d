"""AppTest: the user's own embedders (a local sentence-transformers folder, uploaded vectors), the picker's family
grouping, the link rule for user specs, a Hugging Face dataset that cannot be downloaded, and talk mode. Bad input
is one sentence in place and the other embedders keep working."""

from __future__ import annotations

import html
import io

import numpy as np
import pytest
from app_checks import EMBEDDERS, no_exception, plotly_specs, shown
from tiny_models import tiny_sentence_transformer

NAMES = EMBEDDERS.split(",")


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    return tiny_sentence_transformer(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="session")
def corpus(app_env):
    """The app's default corpus, loaded as the sidebar loads it."""
    from n2o_core.corpora import load_corpus

    return load_corpus(app_env["N2O_DEFAULT_CORPUS"], max_sentences=5000, seed=0)


def heat_names(at) -> list[str]:
    """The heatmap's embedders as a reader sees them (plotly decodes `escape_markup`'s character references)."""
    return [html.unescape(x) for x in plotly_specs(at)["heatmap"]["data"][0]["x"]]


def errors(at) -> str:
    return shown([*at.sidebar.error, *at.error, *at.sidebar.warning, *at.warning])


def npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def add_model(at, spec: str) -> None:
    at.sidebar.text_input(key="w_own_spec").set_value(spec)
    at.sidebar.button(key="w_own_add").click().run()


def test_local_sentence_transformer_joins_the_heatmap_and_the_link(app, tiny_model):
    app.run()
    no_exception(app)
    spec = f"st:{tiny_model}"
    add_model(app, spec)
    no_exception(app)
    assert any(spec in s.value for s in app.sidebar.success), errors(app)
    assert spec in app.sidebar.multiselect(key="w_emb").value
    assert heat_names(app)[-1] == spec or spec in heat_names(app)
    assert set(heat_names(app)) == set(NAMES) | {spec}
    assert spec in app.query_params["emb"].split(",")
    # grouped by family: the transformer after every built-in static embedder, in plain text
    options = app.sidebar.multiselect(key="w_emb").options
    assert options.index(next(o for o in options if spec in o)) > options.index(
        next(o for o in options if "glove-6b-50d" in o)
    )
    assert next(o for o in options if spec in o).startswith(spec)  # plain text: no emoji mark (empty boxes)
    assert any(o.startswith("tfidf · ") for o in options)
    # the heatmap's embedder table describes it like a built-in: its family group and dimension
    (table,) = [
        d.value for d in app.dataframe if "composition" in d.value.columns and "zero vectors" in d.value.columns
    ]
    row = table.set_index("embedder").loc[spec]
    assert row["family"] == "yours (transformers)" and row["dimension"].endswith("-d") and row["zero vectors"] == 0
    assert table.set_index("embedder").loc["tfidf", "family"] == "tf-idf"
    assert row["engine"] == "" and table.set_index("embedder").loc["tfidf", "engine"] == ""


def test_bad_specs_are_refused_in_place(app):
    app.run()
    add_model(app, "st:/no/such/model-folder")
    no_exception(app)
    assert "Model folder not found on the server" in errors(app)
    add_model(app, "bert-base-uncased")
    assert "does not start with st:, hf: or wv:" in errors(app)
    add_model(app, "hf:some-model")
    assert "needs a pooling" in errors(app)
    assert sorted(heat_names(app)) == sorted(NAMES)  # the others keep working
    assert app.sidebar.multiselect(key="w_emb").value == NAMES


def test_uploaded_vectors_join_and_bad_files_warn(app, corpus):
    app.run()
    up = app.sidebar.file_uploader(key="w_own_vectors")
    rng = np.random.default_rng(0)
    up.set_value(("short.npy", npy(rng.standard_normal((len(corpus) - 3, 8))), "application/octet-stream")).run()
    no_exception(app)
    assert f"has {len(corpus) - 3:,} rows but the corpus has {len(corpus):,} sentences" in errors(app)
    bad = rng.standard_normal((len(corpus), 8))
    bad[5, 2] = np.nan
    app.sidebar.file_uploader(key="w_own_vectors").set_value(("nan.npy", npy(bad), "application/octet-stream")).run()
    assert "NaN or infinite values in 1 row(s) (first: row 5)" in errors(app)
    app.sidebar.file_uploader(key="w_own_vectors").set_value(
        ("words.npy", npy(np.array([["a", "b"]] * len(corpus))), "application/octet-stream")
    ).run()
    assert "must hold real numbers" in errors(app)
    assert sorted(heat_names(app)) == sorted(NAMES)

    good = rng.standard_normal((len(corpus), 8)).astype(np.float64)
    app.sidebar.file_uploader(key="w_own_vectors").set_value(("mine.npy", npy(good), "application/octet-stream"))
    app.run()
    no_exception(app)
    vec = next(e for e in app.sidebar.multiselect(key="w_emb").value if e.startswith("vec:mine-"))
    assert vec in heat_names(app)
    assert vec in app.query_params["emb"].split(",")
    label = next(o for o in app.sidebar.multiselect(key="w_emb").options if vec in o)
    assert label.startswith("vec:") and "your vectors, 8-d" in label  # plain text, no emoji

    # the same link in a new session keeps the vectors (they stay in the server's cache)
    from streamlit.testing.v1 import AppTest

    again = AppTest.from_file(str(app._script_path), default_timeout=180)
    again.query_params.update({"emb": f"tfidf,word2vec,{vec}"})
    again.run()
    no_exception(again)
    assert heat_names(again) == ["tfidf", "word2vec", vec] or sorted(heat_names(again)) == sorted(
        ["tfidf", "word2vec", vec]
    )


def test_link_rule_for_user_specs(app, tiny_model, tmp_path, monkeypatch):
    import shutil

    never_typed = tmp_path / "copy-of-tiny"
    shutil.copytree(tiny_model, never_typed)
    app.query_params.update({"emb": f"tfidf,word2vec,st:{never_typed},st:no-such-org/no-such-model"})
    app.run()
    no_exception(app)
    notes = shown(app.sidebar.warning)
    assert f"st:{never_typed}" in notes and "a link may name it only after it was added on this server" in notes
    # a model *name* is kept; offline it cannot load, which is said in place and leaves the others
    assert heat_names(app) == ["tfidf", "word2vec"] or sorted(heat_names(app)) == ["tfidf", "word2vec"]
    assert "st:no-such-org/no-such-model" in shown(app.error) and "left out" in shown(app.error)

    # under $N2O_MODEL_DIRS a link may name a local folder
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("N2O_MODEL_DIRS", str(tmp_path))
    at = AppTest.from_file(str(app._script_path), default_timeout=180)
    at.query_params.update({"emb": f"tfidf,word2vec,st:{never_typed}"})
    at.run()
    no_exception(at)
    assert f"st:{never_typed}" in heat_names(at)


def test_hf_dataset_offline_says_what_to_do(app):
    app.run()
    app.sidebar.selectbox(key="w_corpus").set_value("__hf__").run()
    no_exception(app)
    app.sidebar.text_input(key="w_hf_spec").set_value("hf:no-such-user/no-such-dataset@test").run()
    no_exception(app)
    err = shown(app.sidebar.error)
    assert "no-such-user/no-such-dataset" in err and "Upload a file" in err and "HF_HUB_OFFLINE" in err
    assert any("Choose a usable corpus" in i.value for i in app.info)
    assert app.query_params["corpus"] == "hf:no-such-user/no-such-dataset@test"
    assert app.query_params["col"] == "text"

    # the same from a link (a dataset *name* may come from a link), with its text column
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(app._script_path), default_timeout=180)
    at.query_params.update({"corpus": "hf:no-such-user/other@validation", "col": "sentence"})
    at.run()
    no_exception(at)
    assert at.sidebar.selectbox(key="w_corpus").value == "__hf__"
    assert at.sidebar.text_input(key="w_hf_col").value == "sentence"
    assert "no-such-user/other" in shown(at.sidebar.error) and "Upload a file" in shown(at.sidebar.error)
    # a link naming a local folder as a dataset falls back to the default corpus, with a note
    at = AppTest.from_file(str(app._script_path), default_timeout=180)
    at.query_params.update({"corpus": "hf:/etc"})
    at.run()
    assert "Unknown corpus 'hf:/etc'" in shown(at.sidebar.warning)
    assert at.sidebar.selectbox(key="w_corpus").value != "__hf__"


def test_talk_mode_hides_controls_and_enlarges_figures(app):
    app.run()
    normal = plotly_specs(app)["heatmap"]["layout"]
    app.query_params["talk"] = "1"
    app.query_params["k"] = "5"
    from streamlit.testing.v1 import AppTest

    from ui import talk as ui_talk

    at = AppTest.from_file(str(app._script_path), default_timeout=180)
    at.query_params.update({"talk": "1", "k": "5"})
    at.run()
    no_exception(at)
    css = "\n".join(m.value for m in at.markdown)
    assert '[data-testid="stSidebar"]' in css and "display:none" in css and "leave talk mode" in css
    talk = plotly_specs(at)["heatmap"]["layout"]
    assert talk["font"]["size"] == pytest.approx(normal["font"]["size"] * 2, abs=0.1)  # figures.style.for_talk
    # ui.talk.MAIN_FIGURES, less the room of the one-line notes drawn above it (word2vec on 151 sentences)
    notes = at.session_state[ui_talk.NOTE_COUNT]
    assert notes >= 1 and not any("trained on only" in w.value for w in at.warning)  # a one-line note instead
    assert any(m.value.endswith("sentences: their neighbors are mostly noise.") for m in at.markdown)
    assert talk["xaxis"]["tickfont"]["size"] >= 24
    assert talk["height"] == ui_talk.MAIN_FIGURES["heatmap"] - notes * (ui_talk.NOTE_PX + ui_talk.GAP_PX)
    assert at.query_params["talk"] == "1" and at.query_params["k"] == "5"  # the link's state is kept
    assert at.sidebar.slider(key="w_k").value == 5

    # the toggle under Advanced puts the flag into the link
    app.run()
    app.sidebar.toggle(key="w_talk").set_value(True).run()
    assert app.query_params["talk"] == "1"
    assert any('[data-testid="stSidebar"]' in m.value for m in app.markdown)


def test_download_buttons_on_every_page(app):
    app.query_params.update({"view": "downloads"})
    app.run()
    labels = {b.label for b in app.get("download_button")}
    assert {"Neighbors with sentences (CSV)", "Neighbors (JSON)", "Heatmap (PNG)", "Heatmap (SVG)"} <= labels
    assert {"Pairs (CSV)", "Pairs (JSON)", "Whole view: HTML report"} <= labels
    n = next(int(c.value.split()[0].replace(",", "")) for c in app.sidebar.caption if "sentences ·" in c.value)
    assert f"The corpus's {n:,} sentences (.txt)" in {b.label for b in app.sidebar.get("download_button")}
    for path, want in (
        ("pages/query.py", {"Neighbors with sentences (CSV)", "Popular neighbors (JSON)", "Outliers (CSV)"}),
        ("pages/tokens.py", {"Bars (PNG)", "Bars (SVG)", "Table (CSV)", "Whole view: HTML report"}),
        ("pages/heros.py", {"Figure (SVG)", "Normalized (CSV)", "Raw cosine (JSON)", "Every pair (CSV)"}),
    ):
        app.switch_page(path).run()
        no_exception(app)
        labels = {b.label for b in app.get("download_button")}
        assert want <= labels, (path, labels)


def test_every_download_makes_its_file(app, monkeypatch):
    """Each page's deferred downloads run (PNG left to test_export): non-empty, and the texts are in them."""
    from streamlit.delta_generator import DeltaGenerator

    made: dict[str, bytes | str] = {}
    original = DeltaGenerator.download_button

    def recording(self, label, data, *args, **kwargs):
        name = kwargs.get("file_name") or label
        if callable(data) and not str(name).endswith(".png"):
            made[str(name)] = data()
        return original(self, label, data, *args, **kwargs)

    import streamlit as st

    monkeypatch.setattr(DeltaGenerator, "download_button", recording)
    monkeypatch.setattr(st, "download_button", lambda *a, **kw: recording(st._main, *a, **kw))
    app.query_params.update({"view": "downloads"})
    app.run()
    for path in ("pages/query.py", "pages/tokens.py", "pages/heros.py"):
        app.switch_page(path).run()
        no_exception(app)
    assert all(len(v) > 0 for v in made.values()), [k for k, v in made.items() if not v]
    bad = [k for k, v in made.items() if isinstance(v, str) and "could not be made" in v[:200]]
    assert not bad, {k: made[k][:200] for k in bad}
    kinds = {k.rsplit(".", 1)[-1] for k in made}
    assert {"csv", "json", "svg", "html", "txt"} <= kinds
    html = next(v for k, v in made.items() if k.startswith("query-") and k.endswith(".html"))
    query_csv = next(v for k, v in made.items() if k.startswith("query-") and k.endswith("-neighbors.csv"))
    first_sentence = query_csv.splitlines()[1].split(",")[1]
    assert first_sentence.strip('"')[:20] in html and "data:image/svg+xml;base64," not in html  # tables only
    assert sum(k.endswith(".html") for k in made) == 4  # one report per page
    assert made["n2o-heatmap-k10.html"].count("data:image/svg+xml;base64,") == 2
