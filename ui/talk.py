"""Talk mode (`talk=1` in the link): a prepared link opens straight onto one view for a projector — no sidebar,
no widgets, larger text and figures — and the rest of the link (corpus, embedders, k, the page's own `view=`,
`qid=`, ...) still decides what is shown.

The sidebar and the pages still run as usual (their values come from the link); talk mode only hides the
controls with CSS and enlarges every plotly figure as it is sent. The figures are enlarged by wrapping
`st.plotly_chart` once per process; the wrapper checks the *current session's* link, so other sessions are
untouched, and it copies the figure (the cached figures are shared and never changed).
"""

from __future__ import annotations

import copy
import functools
import html
import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from n2o_core.settings import TALK_PARAM, param_flag

log = logging.getLogger("n2o")

#: Fonts in figures are this much larger in talk mode, figure heights `HEIGHT_SCALE` taller.
FONT_SCALE = 1.6
HEIGHT_SCALE = 1.3
#: Root font size of the page (Streamlit sizes its text in rem; 16px is its default).
ROOT_FONT_PX = 22

_WIDGETS = (
    "stSelectbox",
    "stMultiSelect",
    "stSlider",
    "stRadio",
    "stTextInput",
    "stTextArea",
    "stNumberInput",
    "stButton",
    "stDownloadButton",
    "stCheckbox",
    "stButtonGroup",
    "stFileUploader",
    "stLinkButton",
    "stToggle",
    "stSegmentedControl",
)
#: Blocks hidden whole in talk mode: expanders ("Downloads", "Embedders and pairs", ...) and tabs (secondary
#: tables such as the query explorer's Popular neighbors / Outliers). In Streamlit 1.67 an expander sits in an
#: `stLayoutWrapper` of its own and tabs are an `stTabs` block, neither inside an `stElementContainer`.
_BLOCKS = ('[data-testid="stLayoutWrapper"]:has(> [data-testid="stExpander"])', '[data-testid="stTabs"]')
FILL_HEIGHT_PX = 600
#: Each page's main figure (by its key) and its height in px in talk mode (a figure with a fixed width, the N2O
#: heatmap, keeps its proportions), so that it fills a 1920×1080 screen without scrolling.
MAIN_FIGURES: dict[str, int] = {
    "heatmap": FILL_HEIGHT_PX,
    "box": FILL_HEIGHT_PX,
    "tokens": FILL_HEIGHT_PX,
    "heros": FILL_HEIGHT_PX,
    "agree_hist": FILL_HEIGHT_PX,
    "needle": FILL_HEIGHT_PX,
    "sts_bars": FILL_HEIGHT_PX,
    "quality_scatter": 560,
    "probe_heatmap_lr": FILL_HEIGHT_PX,
    "probe_heatmap_mlp": FILL_HEIGHT_PX,
    "measures_matrices": 880,
}
CSS = (
    "<style>"
    '[data-testid="stSidebar"],[data-testid="stSidebarCollapsedControl"],[data-testid="stExpandSidebarButton"],'
    '[data-testid="stHeader"],[data-testid="stToolbar"],[data-testid="stDecoration"],'
    '[data-testid="stSidebarNav"],.modebar-container{display:none !important}'
    + ",".join(f'[data-testid="stElementContainer"]:has([data-testid="{w}"])' for w in _WIDGETS)
    + ","
    + ",".join(_BLOCKS)
    + "{display:none !important}"
    f"html{{font-size:{ROOT_FONT_PX}px}}"
    '[data-testid="stMainBlockContainer"]{padding-top:1.2rem;padding-bottom:1rem;max-width:none}'
    "a.n2o-talk-exit{position:fixed;right:.6rem;bottom:.4rem;font-size:.55rem;color:#bbb;z-index:1000}"
    "</style>"
)


def active(params: Mapping[str, object] | None = None) -> bool:
    """Whether this session's link asks for talk mode."""
    try:
        return param_flag(st.query_params if params is None else params, TALK_PARAM)
    except Exception:  # noqa: BLE001 - outside a script run (no session): never in talk mode
        return False


def _scale_fonts(node: Any, scale: float) -> None:
    """Multiply every `size` inside a font-like dict (font, tickfont, textfont, title.font, ...) in place."""
    if isinstance(node, dict):
        for key, val in node.items():
            if isinstance(val, dict) and key.endswith("font") and isinstance(val.get("size"), (int, float)):
                val["size"] = round(val["size"] * scale, 1)
            _scale_fonts(val, scale)
    elif isinstance(node, list):
        for v in node:
            _scale_fonts(v, scale)


def enlarge(
    figure: Any, font_scale: float = FONT_SCALE, height_scale: float = HEIGHT_SCALE, fill: int | None = None
) -> dict:
    """A copy of a plotly figure (go.Figure or dict) with larger fonts, margins and height, as a dict; `fill`:
    this height in px instead (a fixed width is scaled with the height)."""
    d = figure.to_dict() if hasattr(figure, "to_dict") else copy.deepcopy(dict(figure))
    layout = d.setdefault("layout", {})
    _scale_fonts(d, font_scale)  # every explicit size, the layout's base font included
    base = layout.get("font") or {}
    if not isinstance(base.get("size"), (int, float)):
        layout["font"] = dict(base, size=round(12 * font_scale, 1))  # plotly's default base size
    old_h = float(layout.get("height") or 450)
    layout["height"] = round(fill if fill else old_h * height_scale)
    if isinstance(layout.get("width"), (int, float)):
        layout["width"] = round(layout["width"] * layout["height"] / old_h)
    margin = layout.get("margin")
    if isinstance(margin, dict):
        layout["margin"] = {k: round(v * font_scale) if isinstance(v, (int, float)) else v for k, v in margin.items()}
    return d


def _install() -> None:
    """Wrap DeltaGenerator.plotly_chart (and st.plotly_chart) once per process."""
    from streamlit.delta_generator import DeltaGenerator

    original = DeltaGenerator.plotly_chart
    if getattr(original, "_n2o_talk", False):
        return

    @functools.wraps(original)
    def plotly_chart(self, figure_or_data, *args, **kwargs):  # type: ignore[no-untyped-def]
        if active():
            try:
                fill = MAIN_FIGURES.get(str(kwargs.get("key")))
                figure_or_data = enlarge(figure_or_data, fill=fill)
            except Exception:  # noqa: BLE001 - a figure that cannot be enlarged is shown as it is
                log.exception("talk mode: could not enlarge a figure")
        return original(self, figure_or_data, *args, **kwargs)

    plotly_chart._n2o_talk = True  # type: ignore[attr-defined]
    DeltaGenerator.plotly_chart = plotly_chart  # type: ignore[method-assign]
    st.plotly_chart = st._main.plotly_chart  # type: ignore[attr-defined]  # rebind the module-level shortcut


def exit_link(params: Mapping[str, object]) -> str:
    """The same link without `talk=` (relative: this page, every other parameter kept)."""
    kept = {k: v for k, v in params.items() if k != TALK_PARAM}
    return "?" + urlencode({k: v[0] if isinstance(v, list) and v else v for k, v in kept.items()})


def apply() -> bool:
    """In talk mode: hide the controls, enlarge text and figures, add a faint way back. Returns whether it is on."""
    if not active():
        return False
    _install()
    st.markdown(CSS, unsafe_allow_html=True)
    params = {k: st.query_params.get(k) for k in st.query_params}
    st.markdown(
        f'<a class="n2o-talk-exit" href="{html.escape(exit_link(params), quote=True)}" target="_self">'
        "leave talk mode</a>",
        unsafe_allow_html=True,
    )
    return True
