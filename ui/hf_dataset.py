"""A Hugging Face dataset as the corpus: the dataset and text-column fields under the corpus picker, the dataset
loaded once per process, and what to do when this server cannot download it."""

from __future__ import annotations

import os

import streamlit as st

from n2o_core.corpora import Corpus, load_corpus
from n2o_core.errors import CorpusError

from . import n2o_runs

#: The corpus picker's entry for a Hugging Face dataset.
HF = "__hf__"


def hf_inputs(default_spec: str = "", default_column: str = "") -> tuple[str | None, str]:
    """The dataset and text-column fields (below the corpus picker); (spec or None, column)."""
    st.session_state.setdefault("w_hf_spec", default_spec)
    st.session_state.setdefault("w_hf_col", default_column or "text")
    spec = st.text_input(
        "Hugging Face dataset",
        key="w_hf_spec",
        placeholder="hf:NAME[:CONFIG][@SPLIT]",
        help="A dataset on the Hugging Face hub (or in its local cache), e.g. hf:ag_news@test.",
    ).strip()
    column = st.text_input("Text column", key="w_hf_col").strip() or "text"
    if not spec:
        st.info("Type a dataset name, e.g. hf:ag_news@test.")
        return None, column
    if not spec.startswith("hf:"):
        spec = "hf:" + spec
    return spec, column


@st.cache_resource(show_spinner="Loading the dataset…", max_entries=4)
def hf_corpus(spec: str, column: str, max_sentences: int) -> Corpus:
    """A Hugging Face dataset as a corpus (cached per process; `datasets` keeps its own files in the cache)."""
    try:
        return load_corpus(spec, max_sentences=max_sentences, text_column=column, cache_dir=n2o_runs.cache().root)
    except CorpusError as e:
        raise CorpusError(hf_hint(str(e), spec)) from None


def hf_hint(error: str, spec: str) -> str:
    """The loader's sentence, plus what to do when the dataset could not be downloaded (no internet)."""
    lowered = error.lower()
    if not any(w in lowered for w in ("offline", "reach", "connect", "internet", "network")):
        return error
    offline = any(os.environ.get(v, "") not in ("", "0") for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))
    name = spec[3:].partition("@")[0].partition(":")[0]
    return (
        f"{error.rstrip('.')}. This server cannot download datasets"
        + (" (it runs with HF_HUB_OFFLINE=1)" if offline else "")
        + ": on a machine with internet save the text column, e.g. "
        f"datasets.load_dataset('{name}', split='train').to_csv('{name.split('/')[-1]}.csv'), then choose "
        "'Upload a file…' in the corpus picker; or start the app online with HF_HUB_OFFLINE=0."
    )
