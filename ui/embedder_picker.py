"""The embedder picker of the sidebar: embedders grouped by family (tf-idf, static averages, subword, distilled,
transformers, your vectors), each labelled with its method and dimension, and the legend of the family colours."""

from __future__ import annotations

from n2o_core.embedders import user as ue
from n2o_core.embedders.base import FAMILY_GROUPS, EmbedderInfo
from n2o_core.figures.style import FAMILY_COLORS
from n2o_core.text import escape_markup

from . import n2o_runs

#: The family name shown for a user's embedder whose group is not a method (vectors uploaded as a file).
FAMILY_NAME = {"precomputed": "your vectors"}


def picker_order(ids: list[str], infos_: dict[str, EmbedderInfo]) -> list[str]:
    """Embedders grouped by family (tf-idf, static averages, subword, distilled, transformers, your vectors),
    built-ins first within a group, in registry order."""

    def key(e: str) -> tuple[int, bool, int]:
        inf = infos_.get(e)
        group = inf.family_group if inf else ue.family_group_of(e)
        rank = FAMILY_GROUPS.index(group) if group in FAMILY_GROUPS else len(FAMILY_GROUPS)
        return rank, bool(inf is None or inf.family == "user"), ids.index(e)

    return sorted(ids, key=key)


def picker_label(eid: str, inf: EmbedderInfo | None) -> str:
    """'glove-6b-50d · GloVe, 50-d': the id, the method and the dimension, in plain text (an emoji mark shows as
    an empty box without an emoji font; the family colours are in the legend under the picker)."""
    if inf is None:
        return eid
    group = inf.family_group
    method = FAMILY_NAME.get(group, inf.family) if inf.family == "user" else inf.family
    return f"{eid} · {method}, {n2o_runs.dim_label(inf)}"


#: Chips of the embedder picker show their whole label (the id first), wrapping rather than cut.
CHIP_CSS = (
    "<style>[data-testid='stSidebar'] [data-baseweb='tag']{max-width:100% !important;height:auto}"
    "[data-testid='stSidebar'] [data-baseweb='tag'] span{max-width:none !important;white-space:normal;"
    "overflow:visible;text-overflow:clip}</style>"
)


def legend(groups: list[str]) -> str:
    """The family colours of the figures, as one HTML line for the sidebar."""
    items = [
        f'<span style="color:{FAMILY_COLORS.get(g, FAMILY_COLORS["other"])[0]}">■</span> '
        f"{escape_markup(FAMILY_NAME.get(g, g))}"
        for g in FAMILY_GROUPS
        if g in groups
    ]
    return "<div style='font-size:0.8rem;color:#666;line-height:1.5'>" + " · ".join(items) + "</div>"
