"""Query explorer: one query's top-k neighbors under every embedder, popular neighbors and outliers (Table 2)."""

from __future__ import annotations

import html
import zlib

import numpy as np
import streamlit as st

from n2o_core.analyses import overlap
from n2o_core.corpora import Corpus
from n2o_core.export import report
from n2o_core.export import tables as export
from n2o_core.settings import MAX_QUERY_CHARS, Settings, param_query
from n2o_core.text import highlight_shared, token_set
from ui import data, downloads, page
from ui.shell import through_app

through_app()


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header("Query explorer")
    lo = page.loaded(settings, corpus)
    s = lo.settings
    k = lo.k
    texts = lo.corpus.texts
    N = len(texts)

    # ---- the query (kept in the URL as qid= or text=; a link's values count once, then the widgets decide)
    if "w_qmode" not in st.session_state:
        url_qid, url_text, note = param_query(st.query_params, N)
        if note:
            st.warning(note)
        st.session_state["w_qmode"] = "Type a sentence" if url_text else "Corpus sentence"
        st.session_state["_url_qid"] = url_qid
        st.session_state["w_qtext"] = url_text or ""
    mode = st.radio("Query", ["Corpus sentence", "Type a sentence"], key="w_qmode", horizontal=True)

    query_text: str | None = None
    qid: int | None = None
    if mode == "Corpus sentence":
        flt = st.text_input(
            "Search the corpus",
            key="w_qfilter",
            placeholder="words the sentence contains",
            help="Without a search, the sampled queries are listed.",
        )
        if flt.strip():
            needle = flt.strip().lower()
            cands = [i for i, t in enumerate(texts) if needle in t.lower()][:500]
            if not cands:
                st.warning(f"No sentence contains “{flt.strip()}”.")
        else:
            cands = [int(i) for i in lo.plan.pool[:500]]
        url_qid = st.session_state.pop("_url_qid", None)
        if url_qid is not None and url_qid not in cands:
            cands = [url_qid] + cands
        if cands:
            default = cands.index(url_qid) if url_qid in cands else 0
            qid = st.selectbox(
                f"Sentence ({len(cands):,} shown of {N:,})",
                cands,
                index=default,
                format_func=lambda i: f"#{i}: {texts[i][:140]}",
                key=f"w_qid_{zlib.crc32(flt.encode()) & 0xFFFF}",
            )
            query_text = texts[qid]
            st.query_params["qid"] = str(qid)
            st.query_params.pop("text", None)
    else:
        typed = st.text_input(
            "Any sentence", key="w_qtext", max_chars=MAX_QUERY_CHARS, placeholder="Type a sentence and press Enter"
        )
        if typed.strip():
            query_text = typed.strip()
            st.query_params["text"] = query_text
            st.query_params.pop("qid", None)
        else:
            st.info("Type a sentence to see its neighbors in the corpus.")

    if query_text is None:
        st.stop()

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

    if qid is not None:
        found, errs, in_pool = data.single_query(lo, qid)
        note = "" if in_pool else " (exact search; this sentence is not among the sampled queries)"
    else:
        found, errs = data.free_text(lo, query_text)
        note = " (embedded on the fly)"
    for e, msg in errs.items():
        st.error(f"**{e}**: {msg}", icon="⚠️")
    if not found:
        st.stop()

    qtok = token_set(query_text)
    # an HTML block, so markdown never reinterprets corpus text; escaped, never raw HTML
    st.markdown(
        f"<div class='nq'><strong>Query</strong>{html.escape(note)}: {html.escape(query_text)}</div>",
        unsafe_allow_html=True,
    )
    st.caption(
        f"k = {k} · words shared with the query are highlighted · cosine similarity"
        f"{' after z-normalization' if s.znorm else ''}"
    )

    def neighbor_table(ids: np.ndarray, sims: np.ndarray) -> str:
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

    st.markdown(
        "<style>table.nb{font-size:0.86rem;border-collapse:collapse;width:100%}"
        "table.nb td,table.nb th{border-bottom:1px solid #eee;padding:3px 4px;vertical-align:top;text-align:left}"
        "table.nb mark{background:#ffe58a;padding:0 1px}.nid{color:#999;font-size:0.75rem}"
        "div.nq{font-size:1.05rem;margin:0.3rem 0 0.6rem 0}</style>",
        unsafe_allow_html=True,
    )
    names = [e for e in lo.names if e in found]
    per_row = 4
    for start in range(0, len(names), per_row):
        cols = st.columns(per_row)
        for col, e in zip(cols, names[start : start + per_row]):
            nb = found[e]
            with col:
                st.markdown(f"**{html.escape(e)}**")
                st.markdown(neighbor_table(nb.ids[0], nb.sims[0]), unsafe_allow_html=True)

    lists = {e: [int(i) for i in found[e].ids[0, :k]] for e in names}
    tab_pop, tab_out = st.tabs(["Popular neighbors", "Outliers"])
    with tab_pop:
        pop = overlap.popular_frame(lists, k)
        if len(pop):
            pop["sentence"] = [texts[i] for i in pop["id"]]
            pop["shared words"] = [", ".join(sorted(qtok & token_set(texts[i]))) for i in pop["id"]]
            st.dataframe(pop, hide_index=True)
        else:
            st.info(f"No sentence is in the top {k} of every embedder.")
        st.caption(f"Sentences in the top {k} of all {len(names)} embedders, by mean rank (Table 2, first row).")
    with tab_out:
        out = overlap.outlier_neighbors(lists, r, k)
        if len(out):
            out["sentence"] = [texts[i] for i in out["id"]]
            out["shared words"] = [", ".join(sorted(qtok & token_set(texts[i]))) for i in out["id"]]
            st.dataframe(out, hide_index=True)
        else:
            st.info(f"Every embedder's top {r} is shared with at least one other embedder's top {k}.")
        st.caption(f"Neighbors ranked ≤ {r} by one embedder and outside every other embedder's top {k} (Table 2).")
    if qid is not None and in_pool:
        page.approximate_note(lo, k, names)
    _downloads(lo, qid, query_text, found, names, pop, out, r)


def _downloads(lo, qid: int | None, query_text: str, found: dict, names: list[str], pop, out, r: int) -> None:
    """The query's neighbors with their sentences, the popular and outlier tables, and the view as HTML."""
    k = lo.k
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

        def blocks():
            per = [
                report.Table(frame[frame["embedder"] == e][["rank", "id", "sentence", "cosine"]], title=e)
                for e in names
            ]
            return [
                report.Text(query_text, title="Query"),
                *per,
                report.Table(pop, f"In the top {k} of all {len(names)} embedders, by mean rank.", title="Popular"),
                report.Table(out, f"Ranked ≤ {r} by one embedder, outside every other's top {k}.", title="Outliers"),
            ]

        downloads.html_report("Query explorer", blocks, name, meta)
