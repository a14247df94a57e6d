"""What every analysis page starts with: the prepared comparison for the sidebar's settings, per-embedder errors
shown in place, and the captions every page shares (chance level, approximate-search quality)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from n2o_core.analyses.overlap import chance_level
from n2o_core.corpora import Corpus
from n2o_core.limits import MIN_EMBEDDERS
from n2o_core.settings import Settings
from n2o_core.text import escape_markup

from . import n2o_runs, talk
from .guard import message


def option_labels(labels: Mapping[Any, str]) -> Callable[[Any], str]:
    """A widget's `format_func` for options that are the keys of `labels`: each option shown by its label."""

    def label(option: Any) -> str:
        return labels.get(option, str(option))

    return label


def loaded(
    settings: Settings,
    corpus: Corpus | None,
    min_embedders: int = MIN_EMBEDDERS,
    on_ready: Callable[[n2o_runs.Loaded], None] | None = None,
) -> n2o_runs.Loaded:
    """Prepare (or fetch) the comparison; stops the page with a clear message when it is unusable."""
    if corpus is None:
        st.info("Choose a usable corpus in the sidebar.")
        st.stop()
    if len(settings.embedders) < min_embedders:
        st.info(f"Choose at least {min_embedders} embedder{'s' if min_embedders != 1 else ''} in the sidebar.")
        st.stop()
    try:
        out = n2o_runs.load(settings, corpus, on_ready=on_ready)
    except Exception as e:  # noqa: BLE001
        st.error(escape_markup(message(e, "Loading the comparison")), icon="⚠️")
        st.stop()
    for eid, msg in out.prepared.errors.items():
        name = escape_markup(eid)
        note(f"**{name}** is left out: {escape_markup(msg)}", short=f"**{name}** is left out.", level="error")
    if len(out.names) < min_embedders:
        st.warning(f"Fewer than {min_embedders} embedders are usable; choose others in the sidebar.")
        st.stop()
    return out


def note(text: str, *, short: str = "", level: str = "info") -> None:
    """A note the numbers after it must be read with, drawn before the page's main figure: st.info, st.warning or
    st.error (`level`); in talk mode one line, `short` with `text` on hover, that stays above the fold with the
    main figure (`talk.note`)."""
    if talk.active():
        talk.note(text, short or text, level)
        return
    draw = {"warning": st.warning, "error": st.error}.get(level, st.info)
    draw(text, icon=talk.NOTE_LEVELS.get(level, talk.NOTE_LEVELS["info"])[0])


def chance_caption(lo: n2o_runs.Loaded, k: int, markdown: bool = True) -> str:
    """Corpus size, k, chance level k/(N−1), samples and search mode, in one line: Markdown for the page, or plain
    text (`markdown=False`: no bold, no escapes) for a report or a file."""
    n = len(lo.corpus)
    samples = lo.plan.samples
    bold = "**" if markdown else ""
    name = escape_markup(lo.corpus.name) if markdown else lo.corpus.name
    return (
        f"Corpus {bold}{name}{bold}: N = {n:,} sentences · k = {k} · chance level k/(N−1) = "
        f"{bold}{chance_level(k, n):.4f}{bold} · {len(samples)} sample(s) of {len(samples[0])} queries · "
        f"{'approximate' if lo.settings.approx else 'exact'} search"
        f"{' · z-normalized' if lo.settings.znorm else ''}"
    )


def approximate_note(lo: n2o_runs.Loaded, k: int, names: list[str] | None = None) -> None:
    """Wherever approximate neighbors are shown: their recall@k against exact search and the N2O error they cause,
    both measured on held-out queries."""
    if not lo.settings.approx:
        return
    names = names or lo.names
    res = n2o_runs.comparison(lo.key, tuple(names), k, lo)
    recall = ", ".join(f"{escape_markup(e)} {r:.3f}" for e, r in res.recall.items() if r is not None)
    worst = res.worst_n2o_error
    st.caption(
        f"Approximate search (pynndescent), checked against exact search on held-out queries: recall@{k} "
        f"{recall or 'not measured'}; largest N2O error of a pair "
        f"{'not measured' if worst is None else f'{worst:.4f}'}."
    )
