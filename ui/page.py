"""What every analysis page starts with: the current settings, loaded data, and per-embedder errors."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from . import data, sidebar
from .guard import message


def loaded(min_embedders: int = 2, on_ready: Callable[[data.Loaded], None] | None = None) -> data.Loaded:
    """Load (or fetch from cache) the current comparison; stops the page with a clear message when unusable."""
    s, corpus = sidebar.current()
    if corpus is None:
        st.info("Choose a usable corpus in the sidebar.")
        st.stop()
    if len(s.embedders) < min_embedders:
        st.info(f"Choose at least {min_embedders} embedder(s) in the sidebar.")
        st.stop()
    try:
        out = data.load(s, on_ready=on_ready)
    except Exception as e:  # noqa: BLE001
        st.error(message(e, "Loading the comparison"), icon="⚠️")
        st.stop()
    for eid, msg in out.errors.items():
        st.error(f"**{eid}** is left out: {msg}", icon="⚠️")
    if len(out.names) < min_embedders:
        st.warning(f"Fewer than {min_embedders} embedders are usable; choose others in the sidebar.")
        st.stop()
    return out


def chance_caption(lo: data.Loaded, k: int) -> str:
    n = len(lo.corpus)
    from n2o_core.overlap import chance_level  # noqa: PLC0415

    return (
        f"Corpus **{lo.corpus.name}**: N = {n:,} sentences · k = {k} · chance level k/(N−1) = "
        f"**{chance_level(k, n):.4f}** · {len(lo.samples)} sample(s) of {len(lo.samples[0])} queries · "
        f"{'approximate' if lo.settings.approx else 'exact'} search"
        f"{' · z-normalized' if lo.settings.znorm else ''}"
    )
