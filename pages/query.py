"""Query explorer: one query's top-k neighbors under every embedder, popular neighbors and outliers (Table 2)."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

import numpy as np
import pandas as pd
import streamlit as st

from n2o_core.analyses import overlap
from n2o_core.analyses.anisotropy import Anisotropy, implication
from n2o_core.corpora import Corpus
from n2o_core.export import report
from n2o_core.export import tables as export
from n2o_core.search.result import Neighbors
from n2o_core.settings import MAX_QUERY_CHARS, Settings, param_query
from n2o_core.text import SBERT_STOP_WORDS, content_tokens, escape_markup, highlight_shared
from ui import downloads, n2o_runs, nav, page, sidebar, talk
from ui.shell import through_app

through_app()


_TABLE_CSS = (
    "<style>table.nb{font-size:0.86rem;border-collapse:collapse;width:100%}"
    "table.nb td,table.nb th{border-bottom:1px solid #eee;padding:3px 4px;vertical-align:top;text-align:left}"
    "table.nb mark{background:#ffe58a;padding:0 1px}.nid{color:#999;font-size:0.75rem}"
    "div.nq{font-size:1.05rem;margin:0.3rem 0 0.6rem 0}</style>"
)


#: Talk mode: embedders a row and neighbors per embedder, so that six embedders fit one screen at 24 px.
TALK_PER_ROW, TALK_NEIGHBORS = 3, 1
_TALK_CSS = (
    "<style>table.nb,table.nb .nid{font-size:1rem;line-height:1.35}table.nb td,table.nb th{padding:2px 3px}</style>"
)


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("query"))
    lo = page.loaded(settings, corpus)
    k = lo.k
    qid, query_text = _query(lo)
    if query_text is None:
        st.stop()
    r, show = _rank_controls(k)
    found, in_pool, note = _search(lo, qid, query_text)
    qtok = frozenset(content_tokens(query_text, SBERT_STOP_WORDS))  # shared words as Token overlap counts them
    _query_line(lo, query_text, note)
    names = [e for e in lo.names if e in found]
    aniso = {e: a for e, a in n2o_runs.anisotropy(lo, names).items() if a.high}
    _neighbor_grid(lo.corpus.texts, found, names, show, qtok, aniso)
    if aniso:
        _anisotropy_note(aniso)
    lists = {e: [int(i) for i in found[e].ids[0, :k]] for e in names}
    popular, pop, out = _popular_and_outliers(lo.corpus.texts, lists, k, r, qtok)
    if qid is not None and in_pool:
        page.approximate_note(lo, k, names)
    _downloads(lo, qid, query_text, found, names, (pop, popular.label()), out, r)


def _rank_controls(k: int) -> tuple[int, int]:
    """The outlier rank r and the neighbors shown, both from 1 to k (no slider when k = 1 leaves no choice)."""
    if k < 2:
        return 1, 1
    for key in ("w_r", "w_show"):  # a value from a larger k starts over at the default
        if int(st.session_state.get(key, 1)) > k:
            del st.session_state[key]
    c1, c2 = st.columns(2)
    r = c1.slider(
        "Outlier rank r",
        1,
        k,
        min(3, k),
        key="w_r",
        help="Outliers: neighbors ranked ≤ r by one embedder and outside every other embedder's top k.",
    )
    show = c2.slider("Neighbors shown per embedder", 1, k, min(k, 10), key="w_show")
    return int(r), int(show)


def _query(lo: n2o_runs.Loaded) -> tuple[int | None, str | None]:
    """The query (kept in the URL as qid= or text=; a link's values count once, then the widgets decide):
    (its corpus id or None when typed, its text or None while there is none)."""
    if "w_qmode" not in st.session_state:
        url_qid, url_text, note = param_query(st.query_params, len(lo.corpus.texts))
        if note:
            st.warning(escape_markup(note))
        st.session_state["w_qmode"] = "Type a sentence" if url_text else "Corpus sentence"
        st.session_state["_url_qid"] = url_qid
        st.session_state["w_qtext"] = url_text or ""
    mode = st.radio("Query", ["Corpus sentence", "Type a sentence"], key="w_qmode", horizontal=True)
    if mode == "Corpus sentence":
        return _corpus_query(lo)
    return None, _typed_query()


def _candidates(lo: n2o_runs.Loaded, flt: str) -> list[int]:
    """The sentences to choose from: those containing the search text, else the sampled queries (500 at most)."""
    texts = lo.corpus.texts
    if not flt.strip():
        return [int(i) for i in lo.plan.pool[:500]]
    needle = flt.strip().lower()
    cands = [i for i, t in enumerate(texts) if needle in t.lower()][:500]
    if not cands:
        st.warning(f"No sentence contains “{escape_markup(flt.strip())}”.")
    return cands


def _corpus_query(lo: n2o_runs.Loaded) -> tuple[int | None, str | None]:
    """A corpus sentence as the query, found by a search or among the sampled queries."""
    texts = lo.corpus.texts
    flt = st.text_input(
        "Search the corpus",
        key="w_qfilter",
        placeholder="words the sentence contains",
        help="Without a search, the sampled queries are listed.",
    )
    cands = _candidates(lo, flt)
    url_qid = st.session_state.pop("_url_qid", None)
    if url_qid is not None and url_qid not in cands:
        cands = [url_qid, *cands]
    if not cands:
        return None, None
    default = cands.index(url_qid) if url_qid in cands else 0
    qid = st.selectbox(
        f"Sentence ({len(cands):,} shown of {len(texts):,})",
        cands,
        index=default,
        format_func=lambda i: f"#{i}: {texts[i][:140]}",
        # per corpus and search: a kept box would show the labels of another corpus's sentences
        key=f"w_qid_{zlib.crc32((lo.corpus.fingerprint + flt).encode()) & 0xFFFF}",
    )
    st.query_params["qid"] = str(qid)
    st.query_params.pop("text", None)
    return qid, texts[qid]


def _typed_query() -> str | None:
    """A typed sentence as the query (None, with a hint, while the box is empty)."""
    typed = st.text_input(
        "Any sentence", key="w_qtext", max_chars=MAX_QUERY_CHARS, placeholder="Type a sentence and press Enter"
    )
    if not typed.strip():
        st.info("Type a sentence to see its neighbors in the corpus.")
        return None
    query_text = typed.strip()
    st.query_params["text"] = query_text
    st.query_params.pop("qid", None)
    return query_text


def _search(lo: n2o_runs.Loaded, qid: int | None, query_text: str) -> tuple[dict[str, Neighbors], bool, str]:
    """Every embedder's neighbors of the query (errors shown; the page stops when none has any):
    (neighbors by embedder, whether the query is a sampled one, a note on how they were found)."""
    in_pool = False
    if qid is not None:
        found, errs, in_pool = n2o_runs.single_query(lo, qid)
        note = "" if in_pool else " (exact search; this sentence is not among the sampled queries)"
    else:
        found, errs = n2o_runs.free_text(lo, query_text)
        note = " (embedded on the fly)"
    for e, msg in errs.items():
        st.error(f"**{escape_markup(e)}**: {escape_markup(msg)}", icon="⚠️")
    if not found:
        st.stop()
    return found, in_pool, note


def _query_line(lo: n2o_runs.Loaded, query_text: str, note: str) -> None:
    """The query, as an HTML block (markdown never reinterprets corpus text; escaped, never raw HTML)."""
    st.markdown(
        f"<div class='nq'><strong>Query</strong>{escape_markup(note)}: {escape_markup(query_text)}</div>",
        unsafe_allow_html=True,
    )
    st.caption(
        f"k = {lo.k} · content words shared with the query are highlighted (stop words are not, as on Token "
        "overlap) · cosine similarity"
        f"{' after z-normalization' if lo.settings.znorm else ''}"
    )


def _neighbor_table(texts: Sequence[str], ids: np.ndarray, sims: np.ndarray, show: int, qtok: AbstractSet[str]) -> str:
    """One embedder's first `show` neighbors as an HTML table, the words shared with the query marked."""
    rows = []
    for rank, (i, c) in enumerate(zip(ids[:show], sims[:show]), start=1):
        if i < 0:
            rows.append(f"<tr><td>{rank}</td><td>–</td><td><i>no neighbor</i></td></tr>")
            continue
        rows.append(
            f"<tr><td>{rank}</td><td>{c:.3f}</td><td>{highlight_shared(texts[int(i)], qtok)}"
            f" <span class='nid'>#{int(i)}</span></td></tr>"
        )
    return (
        "<table class='nb'><thead><tr><th>#</th><th>cos</th><th>sentence</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _neighbor_grid(
    texts: Sequence[str],
    found: dict[str, Neighbors],
    names: list[str],
    show: int,
    qtok: AbstractSet[str],
    aniso: Mapping[str, Anisotropy],
) -> None:
    """The neighbor tables, four embedders a row; an anisotropic embedder's header says so (`aniso`)."""
    st.markdown(_TABLE_CSS, unsafe_allow_html=True)
    per_row = 4
    if talk.active():  # every embedder side by side, a few neighbors each: one screen
        per_row, show = TALK_PER_ROW, min(show, TALK_NEIGHBORS)
        st.markdown(_TALK_CSS, unsafe_allow_html=True)
    for start in range(0, len(names), per_row):
        cols = st.columns(per_row)
        for col, e in zip(cols, names[start : start + per_row]):
            nb = found[e]
            with col:
                st.markdown(f"**{escape_markup(e)}**")
                if e in aniso:
                    st.caption(
                        f"⚠ random pairs at cosine {aniso[e].raw:.2f}: neighbors differ by small margins",
                        help=implication(aniso[e]),
                    )
                st.markdown(_neighbor_table(texts, nb.ids[0], nb.sims[0], show, qtok), unsafe_allow_html=True)


def _anisotropy_note(aniso: Mapping[str, Anisotropy]) -> None:
    """Below the grid: what the anisotropic columns' cosines mean, and the z-normalization switch."""
    st.caption(
        f"{', '.join(aniso)}: random sentence pairs already sit at a mean cosine of "
        f"{' / '.join(f'{a.raw:.2f}' for a in aniso.values())} (anisotropy, Ethayarajh 2019), so their neighbors' high "
        "cosines are only a little above any sentence's, and small differences decide the ranking. "
        "z-normalization takes the common direction out (mean cosine "
        f"{' / '.join(f'{a.znorm:.2f}' for a in aniso.values())} after it)."
    )
    sidebar.znorm_button("query_znorm")


def _popular_and_outliers(
    texts: Sequence[str], lists: dict[str, list[int]], k: int, r: int, qtok: AbstractSet[str]
) -> tuple[overlap.Popular, pd.DataFrame, pd.DataFrame]:
    """The tabs of popular neighbors (or the nearest thing, labelled) and outliers (Table 2); returns the popular
    neighbors and the two tables to download."""
    tab_pop, tab_out = st.tabs(["Popular neighbors", "Outliers"])
    with tab_pop:
        popular = overlap.popular_or_nearest(lists, k)
        pop = popular.frame
        if popular.paper and len(pop):
            st.dataframe(overlap.with_sentences(pop.drop(columns=["missing from"]), texts, qtok), hide_index=True)
            st.caption(f"Sentences {popular.label()}, by mean rank.")
        elif len(pop):
            st.info(popular.label()[0].upper() + popular.label()[1:] + " embedders, shown below (not popular as "
                    "the paper defines it).")  # fmt: skip
            pop = overlap.with_sentences(pop, texts, qtok)  # shown and downloaded with its sentences
            st.dataframe(pop, hide_index=True)
            st.caption(
                "Each row: how many embedders have the sentence in their top k, its mean rank among them, and the "
                "embedders that do not. The paper's popular neighbors are in the top k of every embedder (Table 2)."
            )
        else:
            st.info(popular.label()[0].upper() + popular.label()[1:] + ".")
    with tab_out:
        out = overlap.outlier_neighbors(lists, r, k)
        if len(out):
            out = overlap.with_sentences(out, texts, qtok)
            st.dataframe(out, hide_index=True)
        else:
            st.info(f"Every embedder's top {r} is shared with at least one other embedder's top {k}.")
        st.caption(f"Neighbors ranked ≤ {r} by one embedder and outside every other embedder's top {k} (Table 2).")
    return popular, pop, out


def _downloads(
    lo: n2o_runs.Loaded,
    qid: int | None,
    query_text: str,
    found: dict[str, Neighbors],
    names: list[str],
    popular: tuple[pd.DataFrame, str],
    out: pd.DataFrame,
    r: int,
) -> None:
    """The query's neighbors with their sentences, the popular (its table and label) and outlier tables, and the
    view as HTML."""
    k = lo.k
    pop, pop_label = popular
    frame = export.neighbors_frame(
        lo.corpus.texts,
        [qid],
        {e: found[e].ids[:1] for e in names},
        {e: found[e].sims[:1] for e in names},
        k,
        query_texts=[query_text],
    )
    meta = dict(downloads.meta(lo, k, names), query=query_text, **({"query id": qid} if qid is not None else {}))
    name = f"query-{qid if qid is not None else 'text'}-k{k}"
    with st.expander("Downloads"):
        downloads.table(frame, f"{name}-neighbors", "Neighbors with sentences", meta_=meta)
        downloads.table(pop, f"{name}-popular", "Popular neighbors", meta_=meta)
        downloads.table(out, f"{name}-outliers-r{r}", "Outliers", meta_=dict(meta, r=r))

        def blocks() -> list[report.Block]:
            per = [
                report.Table(frame[frame["embedder"] == e][["rank", "id", "sentence", "cosine"]], title=e)
                for e in names
            ]
            return [
                report.Text(query_text, title="Query"),
                *per,
                report.Table(pop, f"Sentences {pop_label}, by mean rank.", title="Popular"),
                report.Table(out, f"Ranked ≤ {r} by one embedder, outside every other's top {k}.", title="Outliers"),
            ]

        downloads.html_report("Query explorer", blocks, name, meta)
