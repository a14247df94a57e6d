"""Shared-server mode (`n2o_core.runtime.server_mode`) and what it changes in the rule for visitors' paths and
hub names (`n2o_core.embedders.user`), and loader errors that never quote a file's content."""

from __future__ import annotations

import logging

import pytest

from n2o_core.corpora.uploads import check_upload_size
from n2o_core.embedders import user as ue
from n2o_core.embedders.registry import get_embedder
from n2o_core.errors import CorpusError, EmbedderError
from n2o_core.runtime import server_mode as sm
from n2o_core.settings import env_defaults

SECRET = "root:x:0:0:List-of-secrets"


def test_switches_default_to_a_personal_server():
    env: dict[str, str] = {}
    assert not sm.shared(env) and sm.hub_allowed(env)
    assert sm.operator_scheduler(env) == "" and sm.upload_limit_mb(env) == sm.DEFAULT_MAX_UPLOAD_MB


def test_shared_mode_switches():
    env = {"N2O_SHARED": "1"}
    assert sm.shared(env) and not sm.hub_allowed(env)
    assert sm.hub_allowed({**env, "N2O_HUB": "1"})
    assert not sm.hub_allowed({"N2O_HUB": "off"})
    assert sm.operator_scheduler({"N2O_DASK_SCHEDULER": " tcp://h:8786 "}) == "tcp://h:8786"
    assert sm.operator_scheduler({"N2O_SCHEDULER": "tcp://old:1"}) == "tcp://old:1"  # the older name still works
    assert env_defaults({"N2O_DASK_SCHEDULER": "tcp://h:8786"}).scheduler == "tcp://h:8786"
    assert sm.upload_limit_mb({"N2O_MAX_UPLOAD_MB": "5"}) == 5
    assert sm.upload_limit_mb({"N2O_MAX_UPLOAD_MB": "lots"}) == sm.DEFAULT_MAX_UPLOAD_MB


def test_config_file_below_the_environment(tmp_path):
    cfg = tmp_path / "n2o.toml"
    cfg.write_text(f'N2O_SHARED = true\nN2O_MODEL_DIRS = ["{tmp_path}"]\nN2O_MAX_UPLOAD_MB = 7\nOTHER = 1\n')
    env = {sm.CONFIG_ENV: str(cfg)}
    assert sm.shared(env) and sm.upload_limit_mb(env) == 7
    assert ue.model_dirs(env) == (tmp_path.resolve(),)
    assert not sm.shared({**env, "N2O_SHARED": "0"})  # a variable that is set wins over the file
    with pytest.raises(RuntimeError, match="not a file"):
        sm.shared({sm.CONFIG_ENV: str(tmp_path / "missing.toml")})
    bad = tmp_path / "bad.toml"
    bad.write_text("N2O_SHARED = = 1\n")
    with pytest.raises(RuntimeError, match="not valid TOML"):
        sm.shared({sm.CONFIG_ENV: str(bad)})


def test_default_config_file_in_the_server_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("N2O_SHARED", raising=False)
    assert not sm.shared()
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "n2o.toml").write_text("N2O_SHARED = 1\n")
    assert sm.shared()


def test_shared_server_reads_no_visitor_paths_without_model_dirs(tmp_path):
    vectors = tmp_path / "v.txt"
    vectors.write_text("the 0.1 0.2\n")
    shared = {"N2O_SHARED": "1"}
    for spec in (f"wv:{vectors}", f"st:{tmp_path}", f"hf:{tmp_path}@mean"):
        assert "reads no files or folders" in ue.typed_refusal(spec, environ=shared)
        # typing it before does not open it on a shared server
        assert "reads no files or folders" in ue.link_refusal(spec, typed={spec}, environ=shared)
    assert "reads no files" in ue.dataset_link_refusal(f"hf:{tmp_path}", typed={f"hf:{tmp_path}"}, environ=shared)
    allowed = {**shared, ue.MODEL_DIRS_ENV: str(tmp_path)}
    assert ue.typed_refusal(f"wv:{vectors}", environ=allowed) is None
    assert ue.link_refusal(f"wv:{vectors}", environ=allowed) is None
    assert "outside" in ue.typed_refusal("wv:/etc/passwd", environ=allowed)
    # a personal server keeps today's convenience: typed paths work
    assert ue.typed_refusal(f"wv:{vectors}", environ={}) is None


def test_shared_server_hub_switch():
    shared = {"N2O_SHARED": "1"}
    for refusal in (
        ue.typed_refusal("st:org/some-model", environ=shared),
        ue.link_refusal("hf:org/some-model@mean", environ=shared),
        ue.dataset_link_refusal("hf:ag_news@test", environ=shared),
    ):
        assert refusal is not None and "N2O_HUB=1" in refusal
    hub = {**shared, "N2O_HUB": "1"}
    assert ue.typed_refusal("st:org/some-model", environ=hub) is None
    assert ue.dataset_link_refusal("hf:ag_news@test", environ=hub) is None


def test_upload_cap_follows_the_server(monkeypatch):
    monkeypatch.setenv("N2O_MAX_UPLOAD_MB", "1")
    check_upload_size("a.txt", 1_000_000)
    with pytest.raises(CorpusError, match="limited to 1 MB"):
        check_upload_size("a.txt", 1_000_001)


# --------------------------------------------------------------------------- loader errors never quote a file


def test_not_a_regular_file_and_not_a_folder(tmp_path):
    assert "is not a regular file" in ue.typed_refusal("wv:/dev/zero", environ={})
    assert "is not a regular file" in ue.typed_refusal(f"wv:{tmp_path}", environ={})
    f = tmp_path / "f.txt"
    f.write_text("x")
    assert "is not a folder" in ue.typed_refusal(f"st:{f}", environ={})
    why = ue.typed_refusal(f"st:{tmp_path}", environ={})
    assert "holds no config.json" in why and not why.endswith("..")
    with pytest.raises(EmbedderError, match="is not a regular file"):
        get_embedder("wv:/dev/zero")
    with pytest.raises(EmbedderError, match="is not a regular file"):
        get_embedder(f"npy:{tmp_path}").embed(["a"])


@pytest.mark.parametrize("suffix", [".txt", ".bin"])
def test_word_vector_errors_never_quote_the_file(tmp_path, caplog, suffix):
    p = tmp_path / f"secret{suffix}"
    p.write_text(f"{SECRET} List more\n{SECRET} 0.1 x\n")
    with caplog.at_level(logging.WARNING, logger="n2o"), pytest.raises(EmbedderError) as err:
        get_embedder(f"wv:{p}")
    said = str(err.value)
    assert "secret" not in said.replace(p.name, "") and "List" not in said and "root" not in said
    assert p.name in said and "details are in the log" in said and not said.endswith("..")
    assert any(r.name == "n2o" and r.exc_info for r in caplog.records)  # the details: in the log


def test_npy_errors_never_quote_the_file(tmp_path):
    p = tmp_path / "v.npy"
    p.write_text(SECRET)
    with pytest.raises(EmbedderError) as err:
        get_embedder(f"npy:{p}").embed(["a"])
    assert "root" not in str(err.value) and "v.npy" in str(err.value)


def test_model_folder_errors_never_quote_the_file(tmp_path):
    (tmp_path / "config.json").write_text(f'{{"model_type": "{SECRET}"}}')
    for spec in (f"st:{tmp_path}", f"hf:{tmp_path}@mean"):
        with pytest.raises(EmbedderError) as err:
            get_embedder(spec).embed(["a sentence"])
        said = str(err.value)
        assert "root:x" not in said and "List-of" not in said, said
        assert not said.endswith(".."), said
