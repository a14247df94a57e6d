"""The heatmap's same-recipe column: for word2vec and fastText (trained on the corpus), N2O with the same recipe
trained with another seed (`n2o_core.analyses.seed_reference`), the ceiling their N2O with anything is read against.
Shown when the second training is in the cache (then only a search is left); otherwise a button trains it (seconds
per embedder), in a child process where jobs are isolated."""

from __future__ import annotations

import streamlit as st

from n2o_core.analyses.seed_reference import has_seed_reference, same_recipe_n2o, second_training_cached
from n2o_core.errors import N2OError
from n2o_core.runtime import child

from .n2o_runs import Loaded

#: The embedder table's column, and what it says before the second training.
COLUMN = "N2O with itself, another seed"
NOT_YET = "not trained yet (button below)"
_ASKED = "seed_reference_asked"


@st.cache_data(show_spinner=False, max_entries=256)
def _value(key: str, eid: str, k: int, _lo: Loaded) -> str:
    """'0.856 ± 0.012' (mean ± std over the query samples), exact search on raw cosine at k."""
    ref = child.call(same_recipe_n2o, _lo.ws, eid, list(_lo.plan.samples), k)
    return f"{ref.mean:.3f} ± {ref.std:.3f}"


def column(lo: Loaded, names: list[str], k: int) -> list[str]:
    """The column for the embedder table: the value where the second training is cached (computing it then is a
    search), "–" where the embedder has no seed (pretrained, transformers), `NOT_YET` where it is still to be
    trained; below the table, a button trains those (`offer`)."""
    out: list[str] = []
    for e in names:
        if not has_seed_reference(lo.ws, e):
            out.append("–")
        elif second_training_cached(lo.ws, e) or st.session_state.get(_ASKED):
            try:
                out.append(_value(lo.key, e, k, lo))
            except N2OError as exc:
                out.append(f"failed: {exc}")
        else:
            out.append(NOT_YET)
    return out


def offer(names: list[str], values: list[str]) -> None:
    """A caption on what the column means and, when some value is still to be trained, the button that trains it."""
    todo = [e for e, v in zip(names, values, strict=True) if v == NOT_YET]
    st.caption(
        f"“{COLUMN}”: N2O at this k between an embedder trained on the corpus and the same recipe trained with another "
        "seed (exact search, raw cosine): the ceiling its N2O with any other embedder is read against, not 1."
    )
    if todo:
        st.button(
            f"Train {', '.join(todo)} again with another seed (seconds each) to fill the column",
            key="train_seed_reference",
            on_click=_ask,
        )


def _ask() -> None:
    """Button callback: train the second trainings on this and the next runs."""
    st.session_state[_ASKED] = True
