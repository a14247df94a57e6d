"""AppTest: shared-server mode (no Dask field, no visitor paths), failures remembered per visitor session (one
visitor's failure is never another's "Retry failed embedders"), and the log line behind every "details in the
server log"."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from app_checks import EMBEDDERS, no_exception, shown
from streamlit.testing.v1 import AppTest

from n2o_core.embedders.user import MODEL_DIRS_ENV

SECRET = "root:x:0:0:List-of-secrets"
RETRY = "Retry failed embedders"


def _buttons(at) -> list[str]:
    return [b.label for b in at.sidebar.button]


def _everything(at) -> str:
    return shown([*at.sidebar.error, *at.error, *at.sidebar.warning, *at.warning, *at.markdown, *at.sidebar.markdown])


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def new_app(app_env, monkeypatch):
    """A factory of fresh AppTest sessions of app.py (each one a visitor); forgets the bare-run failures after."""

    monkeypatch.chdir(ROOT)
    yield lambda: AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    from ui import n2o_runs

    n2o_runs.clear_failures()


def test_a_failed_embedder_is_one_visitors_state_and_is_logged(new_app, tmp_path, monkeypatch, caplog):
    bad = tmp_path / "vectors.txt"
    bad.write_text(f"{SECRET} List\n{SECRET} 0.5 x\n")
    monkeypatch.setenv(MODEL_DIRS_ENV, str(tmp_path))  # a link may name files under it
    first = new_app()
    first.query_params["emb"] = f"{EMBEDDERS},wv:{bad}"
    with caplog.at_level(logging.WARNING, logger="n2o"):
        first.run()
    no_exception(first)
    said = _everything(first)
    assert "vectors.txt" in said and "root:x" not in said and "List-of" not in said, said
    first.run()  # the sidebar offers the retry from the next run on (it is drawn before the page loads)
    assert RETRY in _buttons(first)
    assert any(r.name == "n2o" and r.exc_info and "vectors.txt" in r.getMessage() for r in caplog.records)

    second = new_app()  # another visitor, same server process
    second.run()
    no_exception(second)
    assert RETRY not in _buttons(second)
    assert not second.sidebar.error and not second.error


def test_a_failed_dask_connection_is_one_visitors_state_and_is_logged(new_app, monkeypatch, caplog):
    import n2o_core.distributed as dd

    def refuse(address):
        raise RuntimeError(f"cannot decode what {address} sent")

    monkeypatch.setattr(dd, "connect", refuse)
    first = new_app()
    first.run()
    with caplog.at_level(logging.ERROR, logger="n2o"):
        first.sidebar.text_input(key="w_scheduler").set_value("tcp://127.0.0.1:9").run()
    no_exception(first)
    said = shown(first.error)
    assert "Connecting to the Dask scheduler failed unexpectedly" in said and "server log" in said
    logged = [r for r in caplog.records if r.name == "n2o" and "Dask scheduler" in r.getMessage()]
    assert logged and logged[0].exc_info and "cannot decode" in str(logged[0].exc_info[1])
    first.run()
    assert RETRY in _buttons(first)

    second = new_app()
    second.run()
    no_exception(second)
    assert RETRY not in _buttons(second) and not second.error


def test_shared_mode_has_no_dask_field_and_reads_no_visitor_paths(new_app, monkeypatch, tmp_path):
    monkeypatch.setenv("N2O_SHARED", "1")
    monkeypatch.delenv(MODEL_DIRS_ENV, raising=False)
    for var in ("N2O_DASK_SCHEDULER", "N2O_SCHEDULER"):
        monkeypatch.delenv(var, raising=False)
    at = new_app()
    at.query_params["emb"] = f"{EMBEDDERS},wv:/etc/passwd"
    at.run()
    no_exception(at)
    assert not [t for t in at.sidebar.text_input if t.key == "w_scheduler"]
    assert not [t for t in at.sidebar.toggle if t.key == "w_use_cluster"]
    assert "wv:/etc/passwd" not in at.sidebar.multiselect(key="w_emb").value
    at.sidebar.text_input(key="w_own_spec").set_value("wv:/etc/passwd")
    at.sidebar.button(key="w_own_add").click().run()
    no_exception(at)
    said = shown(at.sidebar.error)
    assert "reads no files or folders" in said and "root" not in said
    # the operator's scheduler: a switch, never a field
    monkeypatch.setenv("N2O_DASK_SCHEDULER", "tcp://127.0.0.1:9")
    at2 = new_app()
    at2.session_state["w_use_cluster"] = False  # the switch is drawn; off, the run does not wait 20 s on port 9
    at2.run()
    assert [t.label for t in at2.sidebar.toggle if t.key == "w_use_cluster"] == ["Compute on the server's Dask cluster"]
    assert not [t for t in at2.sidebar.text_input if t.key == "w_scheduler"]
