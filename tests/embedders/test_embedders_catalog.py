"""The one table of built-in embedders: rows, factories, family groups, defaults and -nostop variants."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from n2o_core.embedders import PAPER_EMBEDDER_IDS, get_embedder, list_embedders
from n2o_core.embedders.base import AVERAGE_ALL_TOKENS, AVERAGE_NO_STOP_WORDS, FAMILY_GROUPS
from n2o_core.embedders.catalog import BUILTINS, builtin
from n2o_core.embedders.infos import BUILTIN_EMBEDDER_IDS, default_info
from n2o_core.embedders.registry import register_embedder
from n2o_core.errors import EmbedderError

GROUPS = {
    "tfidf": "tf-idf",
    "glove-6b-50d": "static averages",
    "glove-6b-50d-nostop": "static averages",
    "word2vec": "static averages",
    "word2vec-nostop": "static averages",
    "fasttext": "static averages",
    "fasttext-nostop": "static averages",
    "fasttext-sub": "subword",
    "fasttext-sub-nostop": "subword",
    "model2vec": "distilled",
    "minilm-l6-mean": "transformers",
    "minilm-l6-cls": "transformers",
    "paraphrase-minilm-l3-mean": "transformers",
    "e5-small": "transformers",
}
AVERAGED = ("glove-6b-50d", "word2vec", "fasttext", "fasttext-sub")
#: Rows whose factories load in well under a second (no torch): made for real below.
CHEAP = ("tfidf", *AVERAGED, *(f"{i}-nostop" for i in AVERAGED))


def test_every_builtin_row_and_its_family_group():
    assert [r.id for r in list_embedders()] == list(GROUPS) == list(BUILTIN_EMBEDDER_IDS)
    assert {r.id: r.family_group for r in list_embedders()} == GROUPS
    assert set(GROUPS.values()) <= set(FAMILY_GROUPS)


def test_defaults_are_the_default_rows_and_variants_sit_beside_their_base():
    ids = [r.id for r in list_embedders()]
    assert [r.id for r in list_embedders() if r.default] == list(PAPER_EMBEDDER_IDS)
    assert [i for i in ids if i not in PAPER_EMBEDDER_IDS] == [f"{i}-nostop" for i in AVERAGED]
    for base in AVERAGED:
        a, b = default_info(base), default_info(f"{base}-nostop")
        assert ids.index(b.id) == ids.index(a.id) + 1
        assert a.composition == AVERAGE_ALL_TOKENS and a.default
        assert b.composition == AVERAGE_NO_STOP_WORDS and not b.default
        assert "stop words dropped" in b.composition and "sentence-transformers" in b.composition
        # everything else is the base row's: same vectors, only the composition differs
        assert replace(b, id=a.id, composition=a.composition, default=True) == a


@pytest.mark.parametrize("embedder_id", CHEAP)
def test_factories_make_the_row_they_stand_in(embedder_id, tmp_path):
    row = builtin(embedder_id)
    made = row.make(tmp_path)
    assert made.info == row.info == get_embedder(embedder_id, tmp_path).info


def test_rows_are_unique_and_a_default_info_is_its_row():
    assert len({r.info.id for r in BUILTINS}) == len(BUILTINS)
    for r in BUILTINS:
        assert default_info(r.info.id) is r.info
    with pytest.raises(KeyError):
        default_info("glove")


def test_unknown_ids_and_taken_names():
    with pytest.raises(EmbedderError) as info:
        get_embedder("glove-nostop")
    assert "glove-6b-50d-nostop" in str(info.value) and "@nostop" in str(info.value)

    class Fake:
        info = default_info("word2vec-nostop")

    with pytest.raises(EmbedderError, match="built-in"):
        register_embedder(Fake())


def test_importing_the_registry_stays_cheap():
    """The table's factories import their backends lazily: listing embedders loads no model library."""
    heavy = ("torch", "transformers", "gensim", "onnxruntime", "sentence_transformers", "model2vec", "pynndescent")
    code = (
        "import sys\n"
        "from n2o_core.embedders.registry import list_embedders, get_embedder\n"
        "list_embedders()\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_models_derived_from_installed_packages_live_in_the_user_model_cache(tmp_path, monkeypatch):
    """The MiniLM ONNX export and model2vec's distilled model depend on installed packages only: the built-in rows
    keep them in the per-user model cache ($N2O_MODEL_CACHE), not in the workspace cache they are given."""
    from n2o_core.embedders import _onnx

    monkeypatch.setenv("N2O_MODEL_CACHE", str(tmp_path / "machine"))
    for eid in ("minilm-l6-mean", "minilm-l6-cls"):
        assert get_embedder(eid, cache_dir=tmp_path / "workspace").cache_dir is None  # -> _onnx.user_model_cache()
    m2v = get_embedder("model2vec", cache_dir=tmp_path / "workspace")
    assert m2v.model_dir is not None and m2v.model_dir.is_relative_to(_onnx.user_model_cache())
    assert _onnx.user_model_cache() == tmp_path / "machine"
