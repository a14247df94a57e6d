"""Talk mode (`talk=1` in the link): a prepared link opens straight onto one view for a projector — no sidebar,
no widgets, larger text and figures — and the rest of the link (corpus, embedders, k, the page's own `view=`,
`qid=`, ...) still decides what is shown.

The sidebar and the pages still run as usual (their values come from the link); talk mode only changes how they
look, in one place for every page: CSS hides the controls, sets text and captions at 24 px in the figures' dark
grey, and puts each page's main figure (`MAIN_FIGURES`, by its key) right under the heading and its first
caption, centred, sized to fill a 1920×1080 screen above the fold; every plotly figure is enlarged as it is
sent (`figures.style.for_talk`: no text under 24 px). The figures are enlarged by wrapping `st.plotly_chart` once
per process; the wrapper checks the *current session's* link, so other sessions are untouched, and it copies
the figure (the cached figures are shared and never changed).
"""

from __future__ import annotations

import functools
import html
import logging
from collections.abc import Mapping
from urllib.parse import urlencode

import streamlit as st

from n2o_core.figures import style
from n2o_core.settings import TALK_PARAM, param_flag

log = logging.getLogger("n2o")

#: Root font size of the page in talk mode (Streamlit sizes its text in rem; 16px is its default): body text and
#: captions at 24 px, readable from the back of a lecture hall.
ROOT_FONT_PX = 24
#: The screen talk mode is laid out for: a 1080p projector. Each main figure fills what the page's heading and
#: its first caption leave of its height (CSS puts the figure right under them, see `CSS`).
SCREEN_PX = (1920, 1080)

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
#: Each page's main figure (its `key=`) and its height in px in talk mode: the N2O heatmap (square, its width
#: follows) and the side-by-side agreement histograms fill >= 80% of the screen's height, the others its width
#: (they stretch to the page) and whatever height is left under the heading, all of it above the fold.
MAIN_FIGURES: dict[str, int] = {
    "heatmap": 880,
    "box": 800,
    "tokens": 800,
    "heros": 780,
    "agree_hist": 880,
    "agree_hist_all": 880,
    "needle": 800,
    "sts_bars": 780,
    "quality_scatter": 800,
    "probe_heatmap_lr": 760,
    "probe_heatmap_mlp": 760,
    "measures_matrices": 980,
    "variants": 800,
}
#: A note the page's numbers must be read with (`note`), in talk mode: one line of text at the root font size,
#: `NOTE_LINE` root sizes high, padded by NOTE_PAD_PX above and below (its full wording on hover), so that it takes
#: exactly NOTE_PX and the gap before the next element; the main figure drawn after it is that much shorter, and
#: the notes and the figure stay above the fold together.
NOTE_LINE = 1.5
NOTE_PAD_PX = 6
NOTE_PX = round(NOTE_LINE * ROOT_FONT_PX) + 2 * NOTE_PAD_PX
#: The gap between a page's elements in talk mode (1rem: Streamlit's, set again in `CSS`).
GAP_PX = ROOT_FONT_PX
#: Session state: the notes drawn so far in this script run (`apply` starts each run at 0).
NOTE_COUNT = "n2o_talk_notes"
#: The key prefix of a note's container (its class `st-key-<key>`: CSS places and styles it by that).
NOTE_KEY = "n2o_talk_note"
#: A note's icon and background by its level (Streamlit's alert colours).
NOTE_LEVELS = {
    "info": (":material/info:", "rgba(28, 131, 225, 0.1)"),
    "warning": (":material/warning:", "rgba(255, 189, 69, 0.2)"),
    "error": (":material/error:", "rgba(255, 43, 43, 0.09)"),
}
#: The page's own block: its heading first, then the caption right under it and the warnings and errors the page
#: shows before its main figure (what its numbers need to be read at face value), then the main figure
#: (whichever of MAIN_FIGURES the page draws, or the row of columns it sits in), then the rest in the page's order.
_PAGE = '[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] > '
_MAIN = [sel for key in MAIN_FIGURES for sel in (f".st-key-{key}", f":has(.st-key-{key})")]
_ALERT = (
    '[data-testid="stElementContainer"]:has([data-testid="stAlertContentWarning"],[data-testid="stAlertContentError"])'
)
#: (one rule each: a selector a browser does not know would drop the whole rule; :has() cannot nest)
_FIRST = (
    f'{_PAGE}[data-testid="stElementContainer"]:has([data-testid="stHeading"] h2){{order:-3}}'
    f'{_PAGE}[data-testid="stElementContainer"]:has([data-testid="stHeading"] h2)'
    ' + [data-testid="stElementContainer"]:has([data-testid="stCaptionContainer"]){order:-2}'
    + ",".join(f"{_PAGE}{_ALERT}:has(~ .st-key-{k}, ~ * .st-key-{k})" for k in MAIN_FIGURES)
    + "{order:-2}"
    + ",".join(f'{_PAGE}:has([class*="st-key-{NOTE_KEY}"]):has(~ .st-key-{k}, ~ * .st-key-{k})' for k in MAIN_FIGURES)
    + "{order:-2}"
    + ",".join(_PAGE + sel for sel in _MAIN)
    + "{order:-1}"
)
#: A note in one line of fixed height (`NOTE_PX`), coloured by its level, its text cut with an ellipsis.
_NOTES = (
    f'[class*="st-key-{NOTE_KEY}"]{{height:{NOTE_PX}px !important;box-sizing:border-box;'
    f"padding:{NOTE_PAD_PX}px .75rem;border-radius:.5rem;overflow:hidden;justify-content:center}}"
    f'[class*="st-key-{NOTE_KEY}"] [data-testid="stMarkdown"] *{{line-height:{NOTE_LINE} !important;margin:0}}'
    + "".join(f'[class*="st-key-{NOTE_KEY}_{level}"]{{background:{bg}}}' for level, (_, bg) in NOTE_LEVELS.items())
)
CSS = (
    "<style>"
    '[data-testid="stSidebar"],[data-testid="stSidebarCollapsedControl"],[data-testid="stExpandSidebarButton"],'
    '[data-testid="stHeader"],[data-testid="stToolbar"],[data-testid="stDecoration"],'
    '[data-testid="stSidebarNav"],[data-testid="stHeaderActionElements"],.modebar-container{display:none !important}'
    + ",".join(f'[data-testid="stElementContainer"]:has([data-testid="{w}"])' for w in _WIDGETS)
    + ","
    + ",".join(_BLOCKS)
    + "{display:none !important}"
    f"html{{font-size:{ROOT_FONT_PX}px}}"
    '[data-testid="stMainBlockContainer"]{padding-top:1rem;padding-bottom:1rem;max-width:none}'
    f'[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]{{gap:{GAP_PX}px}}'
    '[data-testid="stHeading"] h2{font-size:1.6rem;padding:0;line-height:1.25}'
    # captions as dark as the figures' text, not Streamlit's grey
    f'[data-testid="stCaptionContainer"]{{font-size:1rem !important;color:{style.TEXT} !important;'
    "opacity:1 !important}"
    '[data-testid="stTable"] th,[data-testid="stTable"] td{font-size:1rem}'
    # a figure narrower than the page (the N2O heatmap) in the middle of it
    '[data-testid="stElementContainer"]:has([data-testid="stPlotlyChart"]){align-self:center}'
    # this style and the exit link take no room (and no gap) in the page's column
    '[data-testid="stElementContainer"]:has(.n2o-talk-exit){position:absolute}'
    "a.n2o-talk-exit{position:fixed;right:.6rem;bottom:.4rem;font-size:.55rem;color:#bbb;z-index:1000}"
    + _FIRST
    + _NOTES
    + "</style>"
)


def active(params: Mapping[str, object] | None = None) -> bool:
    """Whether this session's link asks for talk mode."""
    try:
        return param_flag(st.query_params if params is None else params, TALK_PARAM)
    except Exception:  # noqa: BLE001 - outside a script run (no session): never in talk mode
        return False


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
                figure_or_data = style.for_talk(figure_or_data, height=main_height(str(kwargs.get("key"))))
            except Exception:  # noqa: BLE001 - a figure that cannot be enlarged is shown as it is
                log.exception("talk mode: could not enlarge a figure")
        return original(self, figure_or_data, *args, **kwargs)

    plotly_chart._n2o_talk = True  # type: ignore[attr-defined]
    DeltaGenerator.plotly_chart = plotly_chart  # type: ignore[method-assign]
    st.plotly_chart = st._main.plotly_chart  # type: ignore[attr-defined]  # rebind the module-level shortcut


def main_height(key: str) -> int | None:
    """The talk-mode height of the figure drawn with `key`: a main figure's (MAIN_FIGURES) less the room the notes
    drawn before it in this run take (`note`); None for any other figure."""
    height = MAIN_FIGURES.get(key)
    if height is None:
        return None
    return max(height // 2, height - _notes_drawn() * (NOTE_PX + GAP_PX))


def _notes_drawn() -> int:
    """The notes drawn so far in this script run."""
    try:
        return int(st.session_state.get(NOTE_COUNT, 0))
    except Exception:  # noqa: BLE001 - outside a script run
        return 0


def note(text: str, short: str, level: str = "info") -> None:
    """In talk mode, a note before the page's main figure in one line: `short` (Markdown) with `text` on hover,
    placed right above the main figure (under the heading and its caption), which `main_height` makes shorter by
    the room the note takes."""
    i = _notes_drawn()
    st.session_state[NOTE_COUNT] = i + 1
    icon = NOTE_LEVELS.get(level, NOTE_LEVELS["info"])[0]
    with st.container(key=f"{NOTE_KEY}_{level if level in NOTE_LEVELS else 'info'}_{i}"):
        st.markdown(f"{icon} {short}", help=text, wrap=False)


def exit_link(params: Mapping[str, object]) -> str:
    """The same link without `talk=` (relative: this page, every other parameter kept)."""
    kept = {k: v for k, v in params.items() if k != TALK_PARAM}
    return "?" + urlencode({k: v[0] if isinstance(v, list) and v else v for k, v in kept.items()})


def apply() -> bool:
    """In talk mode: hide the controls, enlarge text and figures, add a faint way back. Returns whether it is on."""
    if not active():
        return False
    st.session_state[NOTE_COUNT] = 0
    _install()
    params = {k: st.query_params.get(k) for k in st.query_params}
    st.markdown(
        CSS + f'<a class="n2o-talk-exit" href="{html.escape(exit_link(params), quote=True)}" target="_self">'
        "leave talk mode</a>",
        unsafe_allow_html=True,
    )
    return True
