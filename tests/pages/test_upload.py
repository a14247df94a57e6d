"""AppTest: corpus uploads in the sidebar, good and bad (messages in place, never a traceback)."""

from __future__ import annotations

from app_checks import no_exception, plotly_specs
from synthetic_text import sentences


def _choose_upload(app):
    app.run()
    app.sidebar.selectbox(key="w_corpus").set_value("__upload__").run()
    no_exception(app)
    return app.sidebar.file_uploader[0]


def test_upload_csv_with_column_picker(app):
    up = _choose_upload(app)
    rows = "id,text,topic\n" + "\n".join(f'{i},"{s}",x' for i, s in enumerate(sentences(80, seed=3)))
    up.set_value(("my.csv", rows.encode(), "text/csv")).run()
    no_exception(app)
    assert (
        app.sidebar.selectbox(key=next(s.key for s in app.sidebar.selectbox if s.key.startswith("w_col_"))).value
        == "text"
    )
    assert app.query_params["corpus"].startswith("upload:")
    picker = app.sidebar.selectbox(key="w_corpus")
    assert picker.value == app.query_params["corpus"]  # the picker names the uploaded file, not "Upload a file…"
    assert picker.options[picker.index] == "Uploaded: my (80 sentences)"
    assert app.sidebar.file_uploader  # the file and its column stay below the picker
    assert any("80 sentences" in c.value for c in app.sidebar.caption)
    assert len(plotly_specs(app)["heatmap"]["data"][0]["x"]) == 4


def test_bad_uploads_show_messages(app):
    up = _choose_upload(app)
    up.set_value(("empty.txt", b"", "text/plain")).run()
    no_exception(app)
    assert any("empty" in e.value for e in app.sidebar.error)

    app.sidebar.file_uploader[0].set_value(("blob.txt", b"\x00\x01\x02binary", "text/plain")).run()
    no_exception(app)
    assert any("not UTF-8" in e.value for e in app.sidebar.error)

    table = "id,text\n" + "\n".join(f'{i},"{s}"' for i, s in enumerate(sentences(30, seed=4)))
    app.sidebar.file_uploader[0].set_value(("t.csv", table.encode(), "text/csv")).run()
    col = next(s for s in app.sidebar.selectbox if s.key.startswith("w_col_"))
    col.set_value("id").run()
    no_exception(app)
    assert any("does not hold text" in e.value for e in app.sidebar.error)
    assert any("Choose a usable corpus" in i.value for i in app.info)


def test_the_pages_keep_the_corpus_shown_until_a_file_is_given(app):
    """Choosing "Upload a file…" changes nothing until a file comes: the heatmap stays on the corpus shown so far
    (the sidebar says so), and the link keeps it; the page's controls therefore stay drawn and keep their values."""
    app.run()
    shown = app.query_params["corpus"]
    app.sidebar.slider(key="w_k").set_value(7).run()
    up = _choose_upload(app)
    assert up is not None and app.sidebar.selectbox(key="w_corpus").value == "__upload__"
    assert any(c.value.startswith("Until then the pages show **") for c in app.sidebar.caption)
    assert app.query_params["corpus"] == shown and len(plotly_specs(app)["heatmap"]["data"][0]["x"]) == 4
    assert not any("Choose a usable corpus" in i.value for i in app.info)
    up.set_value(("later.txt", "\n".join(sentences(90, seed=8)).encode(), "text/plain")).run()
    no_exception(app)
    assert app.query_params["corpus"].startswith("upload:") and app.query_params["k"] == "7"
    assert any("N = 90 sentences" in c.value for c in app.caption)
