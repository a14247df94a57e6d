"""Paraphrase needle in a haystack (Lin & Smith 2019, §8 and Table 3): for each (query, paraphrase) pair, the rank of
the paraphrase among the corpus sentences under every embedder; MRR with a bootstrap 95% CI, # top, # top-5. The
number of pairs kept stands beside the intervals; when the paper's filters keep fewer than its 75 pairs, the page
names the filter that dropped the most and offers one click to a looser setting, labelled as a deviation."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.evaluation.needle import NeedleResult, display_table, interval_line
from n2o_core.evaluation.pairs import (
    PAPER_MAX_OVERLAP,
    PAPER_MIN_SCORE,
    PAPER_N_PAIRS,
    FilteredPairs,
    LooserSetting,
    Pairs,
    biggest_drop,
    deviations,
    kept_line,
    looser_setting,
    paper_defaults,
)
from n2o_core.evaluation.pairs.filters import FILTER_NAMES
from n2o_core.figures import evaluation as figures_eval
from n2o_core.settings import NEEDLE_DEFAULT_SOURCE, NEEDLE_SOURCES, Settings, param_threshold
from n2o_core.text import escape_markup, highlight_shared, token_set
from ui import evaluation_runs as ev
from ui import n2o_runs, nav, page, pair_source, talk
from ui.guard import message
from ui.shell import through_app

through_app()

TITLE = nav.heading("needle")
ZNORM_NOTE = " after z-normalizing every dimension with the corpus statistics"
CSS = (
    "<style>table.nb{font-size:0.86rem;border-collapse:collapse;width:100%}"
    "table.nb td,table.nb th{border-bottom:1px solid #eee;padding:3px 4px;vertical-align:top;text-align:left}"
    "table.nb mark{background:#ffe58a;padding:0 1px}.nid{color:#999;font-size:0.75rem}"
    "div.nq{font-size:1.0rem;margin:0.2rem 0 0.3rem 0}</style>"
)


def source_tag(pairs: Pairs) -> str:
    """How every table names the pairs: SYNTHETIC first when they are."""
    src = pairs.source
    return f"SYNTHETIC ({src.spec})" if src.synthetic else src.label


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    title = st.empty()
    title.header(TITLE)
    intro = st.empty()
    intro.caption(
        "Each pair's first sentence is a query and its second a paraphrase of it, added to the corpus for that "
        "query alone. A good embedder ranks the paraphrase above every corpus sentence (rank 1). N2O §8, Table 3."
    )
    lo = page.loaded(settings, corpus, min_embedders=1)
    s = lo.settings

    choice = pair_source.choose("npairs", "npairs", NEEDLE_SOURCES, NEEDLE_DEFAULT_SOURCE)
    if choice.spec is None:
        st.stop()
    pkey = ev.pair_key(choice.spec, choice.columns, lo.corpus, s.seed)
    try:
        pairs = ev.pairs(pkey, lo.corpus)
    except Exception as e:  # noqa: BLE001 - one sentence in place
        st.warning(escape_markup(message(e, "Loading the pairs")), icon="⚠️")
        st.stop()
    src = pairs.source
    if src.synthetic:
        title.header(f"{TITLE} · SYNTHETIC pairs")
        intro.warning(
            f"**SYNTHETIC pairs, not human paraphrases.** {escape_markup(src.label)}. "
            "Ranks here say how an embedder treats a "
            "one-word edit of a sentence; they are not comparable with the paper's Table 3 (human paraphrases).",
            icon="🧪",
        )

    fkey, keys = _filters(pairs, pkey)
    try:
        fpairs = ev.filtered(pkey, fkey, pairs)
    except Exception as e:  # noqa: BLE001 - e.g. nothing left after filtering
        st.warning(escape_markup(message(e, "Filtering the pairs")), icon="⚠️")
        st.stop()
    st.caption(kept_line(fpairs))
    deviated = _looser(pairs, fpairs, pkey, keys)

    res, errors = ev.needle(lo, fpairs, pkey, fkey)
    for eid, msg in errors.items():
        st.error(f"**{escape_markup(eid)}** is left out: {escape_markup(msg)}", icon="⚠️")
    if res is None:
        st.stop()
    tag = source_tag(pairs) + (f" · deviation: {'; '.join(deviated)}" if deviated else "")
    ev.remember("needle", lo.corpus.fingerprint, pkey=pkey, fkey=fkey, label=tag)

    st.subheader("Per embedder")
    st.plotly_chart(
        n2o_runs.figure(
            "needle",
            (lo.corpus.fingerprint, pkey, fkey, tuple(lo.names), s.znorm, s.seed),
            lambda: figures_eval.needle_mrr(res.results, synthetic=src.synthetic, color_order=lo.names),
        ),
        key="needle",
    )
    st.markdown(interval_line(res.results, fpairs.n_loaded) + ".")
    table = display_table(res.results, tag)
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "MRR": st.column_config.NumberColumn(format="%.4f"),
            "CI low": st.column_config.NumberColumn(format="%.4f"),
            "CI high": st.column_config.NumberColumn(format="%.4f"),
            "± (95%)": st.column_config.NumberColumn(format="%.3f"),
        },
    )
    st.caption(
        f"Pairs: **{escape_markup(tag)}** · corpus **{escape_markup(lo.corpus.name)}**, "
        f"N = {len(lo.corpus):,} sentences · "
        f"{len(fpairs.pairs):,} pairs · rank = 1 + the number of corpus sentences strictly more similar to the "
        "query than its paraphrase (a tie counts for the paraphrase) · MRR = mean of 1/rank, 95% CI by a "
        f"percentile bootstrap over pairs ({ev.NEEDLE_BOOT} resamples, seed {s.seed}) · # top: rank 1; "
        "# top-5: rank ≤ 5 · corpus sentences equal to the query or the paraphrase are not candidates "
        f"({res.excluded['query_in_corpus']} queries and {res.excluded['paraphrase_in_corpus']} paraphrases are "
        f"corpus sentences) · cosine{ZNORM_NOTE if s.znorm else ''}."
        " Only the queries and paraphrases are embedded here; the corpus vectors come from the cache."
    )
    c1, c2 = st.columns(2)
    c1.download_button(
        "Table (CSV)", table.to_csv(index=False), file_name="needle_mrr.csv", mime="text/csv", key="dl_needle_csv"
    )
    c2.download_button(
        "Every pair's ranks (JSON)",
        json.dumps(res.to_json(top=ev.NEEDLE_TOP), ensure_ascii=False, default=str),
        file_name="needle.json",
        mime="application/json",
        key="dl_needle_json",
    )

    st.subheader("Per pair")
    _pairs_view(lo, res, tag)


def _filters(pairs: Pairs, pkey: tuple) -> tuple[tuple, dict[str, str]]:
    """The paper's filters as controls (its defaults for this kind of pairs); returns `ev.filter_key` and the
    widgets' keys (for the looser setting's button)."""
    src = pairs.source
    paper = paper_defaults(src, pairs.genres)  # news only, as the paper
    tag = hashlib.sha1(repr(pkey).encode()).hexdigest()[:8]
    kmin_on, kmin, kov_on, kov, kg = (f"w_n{x}_{tag}" for x in ("min_on", "min", "ovl_on", "ovl", "genre"))
    kept = st.session_state.setdefault("_needle_thresholds", {})  # per source, kept past a page switch
    if kmin_on not in st.session_state:
        mins, ovl = paper["min_score"], paper["max_overlap"]
        if tag in kept:
            mins, ovl = kept[tag]
        elif not st.session_state.get("_needle_url_done"):  # the link's thresholds count once per session
            st.session_state["_needle_url_done"] = True
            mins, note1 = param_threshold(st.query_params, "min_score", 0.0, 5.0, mins)
            ovl, note2 = param_threshold(st.query_params, "max_overlap", 0.05, 1.0, ovl)
            for note in (note1, note2):
                if note:
                    st.warning(escape_markup(note))
        st.session_state[kmin_on] = src.scored and mins is not None
        st.session_state[kmin] = float(mins if mins is not None else PAPER_MIN_SCORE)
        st.session_state[kov_on] = ovl is not None
        st.session_state[kov] = float(ovl if ovl is not None else PAPER_MAX_OVERLAP)
    with st.expander("Filters (N2O §8: score ≥ 4 on 0–5, word-overlap ratio < 0.6)", expanded=True):
        c1, c2, c3 = st.columns([2, 2, 3])
        on_min = c1.toggle(
            "Minimum human score",
            key=kmin_on,
            disabled=not src.scored,
            help="Keep pairs scored at least this on the 0–5 scale (the paper: 4–5)."
            + ("" if src.scored else " These pairs have no scores."),
        )
        v_min = c1.slider("score ≥", 0.0, 5.0, step=0.1, key=kmin, disabled=not (on_min and src.scored))
        on_ov = c2.toggle(
            "Maximum word overlap",
            key=kov_on,
            help="Keep pairs whose query shares less than this share of its distinct words with the paraphrase "
            "(|T(q) ∩ T(p)| / |T(q)|; the paper: < 0.6, no formula given). Synthetic one-word edits overlap "
            "about 0.9, so it is off for them by default.",
        )
        v_ov = c2.slider("overlap <", 0.05, 1.0, step=0.05, key=kov, disabled=not on_ov)
        genres = pairs.genres
        chosen: list[str] = []
        if len(genres) > 1:
            if kg not in st.session_state:
                st.session_state[kg] = [g for g in (paper["genres"] or []) if g in genres]
            chosen = c3.multiselect("Genres (none = all)", genres, key=kg)
        else:
            c3.caption(f"Genre: {escape_markup(genres[0]) if genres else 'none given'}.")
    min_score = float(v_min) if (on_min and src.scored) else None
    max_overlap = float(v_ov) if on_ov else None
    kept[tag] = (min_score, max_overlap)
    st.query_params["min_score"] = "off" if min_score is None else f"{min_score:g}"
    st.query_params["max_overlap"] = "off" if max_overlap is None else f"{max_overlap:g}"
    keys = {"min_on": kmin_on, "min": kmin, "ovl_on": kov_on, "ovl": kov, "genre": kg, "tag": tag}
    return ev.filter_key(min_score, max_overlap, chosen), keys


def _looser(pairs: Pairs, filtered: FilteredPairs, pkey: tuple, keys: dict[str, str]) -> list[str]:
    """Beside the kept count: the filter that dropped the most and, when fewer than the paper's 75 pairs are kept,
    one click to the looser setting (`pairs.looser_setting`); while the filters differ from the paper's, a
    warning that says so with one click back. Returns the deviations (phrases; [] at the paper's setting)."""
    genres = pairs.genres
    paper = paper_defaults(pairs.source, genres)
    dev = deviations(filtered.filters, paper)
    if dev:
        c1, c2 = st.columns([5, 2])
        c1.warning(
            f"**Deviation from the paper**: {'; '.join(dev)}. {len(filtered.pairs):,} pairs kept (the paper: "
            f"{PAPER_N_PAIRS}); results here are not the paper's setting.",
            icon=":material/tune:",
        )
        c2.button(
            "Back to the paper's filters",
            key="needle_paper",
            on_click=_set_filters,
            args=(keys, paper["min_score"], paper["max_overlap"], tuple(paper["genres"] or ()), genres),
        )
        return dev
    top = biggest_drop(filtered)
    loose = looser_setting(pairs, filtered) if len(filtered.pairs) < PAPER_N_PAIRS else None
    if top is None or loose is None:
        return dev
    name, n = top
    text = (
        f"**Only {len(filtered.pairs):,} of {filtered.n_loaded:,} pairs pass the paper's filters** "
        f"(it used {PAPER_N_PAIRS}): the "
        f"**{FILTER_NAMES.get(name, name)} filter dropped the most**, {n:,}. The intervals below are wide "
        f"accordingly. {_loose_text(loose)} keeps {loose.kept:,}, a deviation from the paper."
    )
    if talk.active():  # one line above the figure, no button on a projector
        short = f"Only {len(filtered.pairs):,} of {filtered.n_loaded:,} pairs pass the paper's filters: wide intervals"
        page.note(text, short=short)
        return dev
    c1, c2 = st.columns([5, 2])
    c1.info(text, icon=":material/filter_alt:")
    c2.button(
        f"Loosen: {_loose_text(loose)} ({loose.kept:,} pairs) · deviation",
        key="needle_looser",
        on_click=_set_filters,
        args=(keys, loose.min_score, loose.max_overlap, loose.genres, genres),
        help="A deviation from the paper's setting, labelled as such on the page; one click brings the paper's "
        "filters back.",
    )
    return dev


def _loose_text(loose: LooserSetting) -> str:
    return loose.label().split(" (the paper")[0]


def _set_filters(
    keys: dict[str, str], min_score: float | None, max_overlap: float | None, genres: tuple[str, ...], have: list[str]
) -> None:
    """Button callback: the filter widgets set to these values (before the rerun draws them)."""
    st.session_state[keys["min_on"]] = min_score is not None
    if min_score is not None:
        st.session_state[keys["min"]] = float(min_score)
    st.session_state[keys["ovl_on"]] = max_overlap is not None
    if max_overlap is not None:
        st.session_state[keys["ovl"]] = float(max_overlap)
    if len(have) > 1:
        st.session_state[keys["genre"]] = [g for g in have if g.lower() in {x.lower() for x in genres}]


def _pairs_view(lo: n2o_runs.Loaded, res: NeedleResult, tag: str) -> None:
    df = res.pairs.pairs.frame
    names = [e for e in lo.names if e in res.ranks]
    ranks = res.rank_table(names).assign(pairs=tag)
    with st.expander(
        f"Every pair's rank ({len(df):,} pairs; empty = unrankable: a query or paraphrase with nothing to embed)"
    ):
        st.dataframe(ranks, hide_index=True)

    texts = lo.corpus.texts
    i = st.selectbox(
        f"Pair ({escape_markup(tag)})",
        list(range(len(df))),
        format_func=lambda j: f"#{int(df['row'].iloc[j])}: {df['sentence1'].iloc[j][:120]}",
        # a new list of pairs (another corpus, source or filter) is a new box: a kept box shows its old labels
        key=f"w_npair_{hashlib.sha1(chr(10).join(df['sentence1']).encode()).hexdigest()[:8]}",
    )
    if i is None:
        return
    q, p = df["sentence1"].iloc[i], df["sentence2"].iloc[i]
    qtok = token_set(q)
    score = df["score"].iloc[i]
    st.markdown(CSS, unsafe_allow_html=True)
    st.markdown(
        f"<div class='nq'><strong>Query</strong>: {escape_markup(q)}</div>"
        f"<div class='nq'><strong>Paraphrase</strong>: {highlight_shared(p, qtok)}</div>",
        unsafe_allow_html=True,
    )
    st.caption(
        (f"human score {score:.2f} / 5 · " if np.isfinite(score) else "no human score · ")
        + f"word overlap {df['overlap'].iloc[i]:.2f} · words shared with the query are highlighted · "
        + escape_markup(tag)
    )
    per_row = 3
    for start in range(0, len(names), per_row):
        cols = st.columns(per_row)
        for col, e in zip(cols, names[start : start + per_row]):
            r = res.ranks[e]
            rank, ties, cos = int(r.rank[i]), int(r.ties[i]), float(r.sims[i])
            with col:
                if rank == 0:
                    st.markdown(f"**{escape_markup(e)}**: unrankable (nothing to embed)")
                    continue
                st.markdown(
                    f"**{escape_markup(e)}**: rank **{rank:,}** · cos {cos:.3f}" + (f" · {ties} tie(s)" if ties else "")
                )
                out = r.outrankers(i)
                if not out:
                    st.caption("No corpus sentence is more similar: the paraphrase is first.")
                    continue
                rows = "".join(
                    f"<tr><td>{k}</td><td>{c:.3f}</td><td>{highlight_shared(texts[j], qtok)}"
                    f" <span class='nid'>#{j}</span></td></tr>"
                    for k, (j, c) in enumerate(out, start=1)
                )
                more = rank - 1 - len(out)
                st.markdown(
                    "<table class='nb'><thead><tr><th>#</th><th>cos</th><th>corpus sentence ranked above the "
                    f"paraphrase</th></tr></thead><tbody>{rows}</tbody></table>"
                    + (f"<div class='nid'>… and {more:,} more</div>" if more > 0 else ""),
                    unsafe_allow_html=True,
                )
