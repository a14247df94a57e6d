"""`hf:<path>@<pooling>`: the four poolings on the local MiniLM, padding independence, pool() unit cases, errors."""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import PARAPHRASES

from n2o_core.embedders import get_embedder, hf
from n2o_core.errors import EmbedderError

POOLINGS = ("cls", "mean", "max", "last")
TEXTS = [p[0] for p in PARAPHRASES] + ["Short.", "A much longer sentence with many more words than the others."]


@pytest.fixture(scope="module")
def encoded(minilm_dir):
    return {p: get_embedder(f"hf:{minilm_dir}@{p}").encode(TEXTS) for p in POOLINGS}


def test_each_pooling_has_the_right_shape_and_differs(encoded, minilm_dir):
    for p, X in encoded.items():
        assert X.shape == (len(TEXTS), 384) and X.dtype == np.float32 and np.isfinite(X).all()
        e = get_embedder(f"hf:{minilm_dir}@{p}")
        assert e.info.dim == 384 and e.info.composition == p and e.info.family == "user"
        assert e.info.family_group == "transformers"
    for i, a in enumerate(POOLINGS):
        for b in POOLINGS[i + 1 :]:
            assert not np.allclose(encoded[a], encoded[b], atol=1e-3), (a, b)
    fps = {get_embedder(f"hf:{minilm_dir}@{p}").fingerprint() for p in POOLINGS}
    assert len(fps) == 4


def test_poolings_agree_with_the_builtin_minilm(encoded):
    """Elementwise against the built-in's fp32 engine (its default may compute in bf16 on CPUs that have it)."""
    from n2o_core.embedders.sbert import MiniLMEmbedder

    np.testing.assert_allclose(encoded["mean"], MiniLMEmbedder("mean", engine="onnx").encode(TEXTS), atol=2e-4)
    np.testing.assert_allclose(encoded["cls"], MiniLMEmbedder("cls", engine="onnx").encode(TEXTS), atol=2e-4)


def test_results_do_not_depend_on_padding(encoded, minilm_dir):
    """A sentence encoded alone equals the same sentence padded inside a batch of longer ones."""
    for p in POOLINGS:
        alone = get_embedder(f"hf:{minilm_dir}@{p}").encode([TEXTS[4]])
        np.testing.assert_allclose(alone[0], encoded[p][4], atol=2e-4, err_msg=p)


def test_pool_masks_padding_left_or_right():
    import torch

    hidden = torch.arange(2 * 4 * 2, dtype=torch.float32).reshape(2, 4, 2)
    right = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]])
    left = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]])
    np.testing.assert_array_equal(hf.pool(hidden, right, "cls")[0].numpy(), [0, 1])
    np.testing.assert_array_equal(hf.pool(hidden, right, "mean")[0].numpy(), [1, 2])
    np.testing.assert_array_equal(hf.pool(hidden, right, "max")[0].numpy(), [2, 3])
    np.testing.assert_array_equal(hf.pool(hidden, right, "last")[0].numpy(), [2, 3])
    np.testing.assert_array_equal(hf.pool(hidden, left, "last")[0].numpy(), [6, 7])
    np.testing.assert_array_equal(hf.pool(hidden, left, "mean")[0].numpy(), [5, 6])
    neg = -hidden - 1  # max over real tokens only, even when all values are negative
    np.testing.assert_array_equal(hf.pool(neg, right, "max")[0].numpy(), [-1, -2])
    with pytest.raises(EmbedderError, match="Unknown pooling"):
        hf.pool(hidden, right, "median")


def test_loading_is_quiet(minilm_dir, capfd):
    """No transformers load report or progress bars on stdout/stderr."""
    hf._LOADED.pop(str(minilm_dir.resolve()), None)
    get_embedder(f"hf:{minilm_dir}@cls").encode(["hello"])  # cached spec: same object
    hf.HFEmbedder(f"hf:{minilm_dir}@mean", str(minilm_dir), "mean")  # loads the model again
    out = capfd.readouterr()
    assert "LOAD REPORT" not in out.out + out.err and "Loading weights" not in out.out + out.err


@pytest.mark.parametrize(
    "spec,match",
    [
        ("hf:somewhere", "needs a pooling"),
        ("hf:@mean", "needs a pooling"),
        ("hf:/no/such/model@mean", "not found"),
        ("hf:/tmp@median", "Unknown pooling 'median'"),
        ("hf:", "names no model"),
    ],
)
def test_bad_specs(spec, match):
    with pytest.raises(EmbedderError, match=match) as info:
        get_embedder(spec)
    assert "\n" not in str(info.value)


def test_folder_that_is_not_a_model(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "nonsense-arch"}', encoding="utf-8")
    with pytest.raises(EmbedderError, match="Could not load the transformers model"):
        get_embedder(f"hf:{tmp_path}@mean")


def test_a_loaded_model_is_given_back_when_released(minilm_dir):
    """The process-wide (tokenizer, model) is registered with runtime.release and loaded anew after a release."""
    from n2o_core.runtime import release

    _, model = hf.load_hf(str(minilm_dir))
    assert hf.load_hf(str(minilm_dir))[1] is model
    holder = f"transformers model {minilm_dir}"
    assert holder in release.registered()
    assert holder in release.release_all()
    assert hf.load_hf(str(minilm_dir))[1] is not model
