"""Variants of one embedder (issue 36): its layers (layer x layer N2O and linear CKA, within the model and against
a second embedder), its compressed forms (dims, PCA, int8, binary, binary + rescoring: N2O with the full-precision
neighbors against bytes per vector, with the needle and human-similarity quality beside it) and its approximate
index (recall@k against query time). One section at a time; each opens on the result kept in the cache for the
same settings, otherwise a button says how long it takes here. The numbers come from `evaluation.variants`, the
same as `python -m n2o_core variants` and `n2o.variant_analysis`; this page only draws them."""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np
import pandas as pd
import streamlit as st

from n2o_core.analyses.overlap import chance_level
from n2o_core.corpora import Corpus
from n2o_core.evaluation.variants.compression import Compression
from n2o_core.evaluation.variants.index import IndexSweep
from n2o_core.evaluation.variants.layers import LayerComparison, layers_refusal
from n2o_core.evaluation.variants.stored import (
    BASIS,
    PARTS,
    Setup,
    Stored,
    combined,
    default_choice,
    estimate_seconds,
    last_timing,
    part_of,
)
from n2o_core.figures import variants as figures_variants
from n2o_core.runtime.progress import how_long
from n2o_core.settings import Settings, param_choice
from n2o_core.text import escape_markup
from ui import n2o_runs, nav, page, talk
from ui import variants_runs as vd
from ui.guard import message
from ui.shell import through_app

through_app()

TITLE = nav.heading("variants")
SECTIONS = {"layers": "Layers", "compression": "Compression", "index": "Index"}
NONE = ""
#: Below this many sentences the PCA and int8 ranges are fitted on few rows and N2O's chance level is high: said
#: next to the numbers.
SMALL_CORPUS = 1000


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(TITLE)
    on_talk = talk.active()
    if not on_talk:
        st.caption(
            "One embedder used in different ways: which layer, how much compression, which index. Each variant's "
            "nearest neighbors are compared with the original's by N2O (Lin & Smith 2019), on your corpus; the "
            "variants are ids every page accepts (`minilm-l6-mean@layer=4`, `@dims=128`, `@int8`, `@binary`, "
            "`@binary@rescore=4`)."
        )
    lo = page.loaded(settings, corpus, min_embedders=1)
    embedder, other, part = _controls(lo)
    setup = Setup(embedder, other, lo.k, settings.n_queries, settings.n_samples, settings.seed)
    n = len(lo.corpus)
    if n < SMALL_CORPUS:
        page.note(
            f"Only {n:,} sentences: N2O's chance level at k = {lo.k} is {chance_level(lo.k, n):.4f}, and PCA and "
            "the int8 ranges are fitted on these few rows; read the curves as this corpus's, not the embedder's.",
            short=f"Only {n:,} sentences: chance {chance_level(lo.k, n):.4f}; fitted on few rows.",
            level="warning",
        )
    if part == "layers" and (why := layers_refusal(lo.ws, embedder)) is not None:
        st.info(
            f"**{escape_markup(embedder)} has no layers to compare.** {escape_markup(why)} The Compression and "
            "Index sections work for it.",
            icon=":material/layers_clear:",
        )
    else:
        got = _result(lo, setup, part)
        if got is not None:
            _section(lo, got, part)
    if not on_talk:
        _download(lo, setup)


# --------------------------------------------------------------------------- choices (in the URL)


def _controls(lo: n2o_runs.Loaded) -> tuple[str, str | None, str]:
    """The embedder to take apart, the other embedder its layers meet and the section: from the link on a
    session's first visit (`of=`, `other=`, `part=`; by default the first embedder with layers, the first other
    dense one, and Layers, or Compression for an embedder without layers), then from the controls."""
    names = list(lo.names)
    if st.session_state.get("w_var_of") not in names:
        first, other0 = default_choice(lo.ws, names)
        of, note1 = param_choice(st.query_params, "of", names, first)
        others = [e for e in names if e != of]
        other, note2 = param_choice(st.query_params, "other", [NONE, *others], other0 if other0 in others else NONE)
        first_part = "layers" if layers_refusal(lo.ws, of) is None else "compression"  # a view that shows something
        part, note3 = param_choice(st.query_params, "part", list(SECTIONS), first_part)
        for note in (note1, note2, note3):
            if note:
                st.warning(escape_markup(note))
        st.session_state.update(w_var_of=of, w_var_other=other, w_var_part=part)
    c1, c2, c3 = st.columns([2, 2, 3])
    of = c1.selectbox("Embedder", names, key="w_var_of", help="The embedder whose variants are compared.")
    others = [NONE, *(e for e in names if e != of)]
    if st.session_state.get("w_var_other") not in others:
        st.session_state["w_var_other"] = next((e for e in others if e), NONE)
    other = c2.selectbox(
        "Its layers against",
        others,
        key="w_var_other",
        format_func=lambda e: e or "(none: the model against itself only)",
        help="A second embedder (its layers, or its vectors for one without layers) for the Layers section.",
    )
    part = (
        c3.segmented_control("Section", list(SECTIONS), format_func=page.option_labels(SECTIONS), key="w_var_part")
        or "layers"
    )
    st.query_params.update(of=of, other=other, part=part)
    return of, other or None, part


# --------------------------------------------------------------------------- results (kept, or behind a button)


def _estimate(lo: n2o_runs.Loaded, setup: Setup, part: str) -> tuple[float, str]:
    """Seconds `part` should take here and what the estimate rests on."""
    last = last_timing(lo.ws, part)
    n = len(lo.corpus)
    seconds = estimate_seconds(part, n, last)
    t = last or BASIS[part]
    basis = f"scaled from {t.sentences:,} sentences in {t.seconds:.0f} s, {t.where}"
    if last is not None:
        basis = f"scaled from the last run with this server's cache: {t.sentences:,} sentences in {t.seconds:.0f} s"
    if part == "layers" and not lo.ws.variants.is_cached(_layer0(setup.embedder)):
        basis += f"; plus one forward pass of {setup.embedder} over the {n:,} sentences (its layers are not cached)"
    return seconds, basis


def _layer0(eid: str):  # type: ignore[no-untyped-def]
    from n2o_core.variants.spec import parse_variant

    return parse_variant(f"{eid}@layer=0")


def _ask(part: str) -> None:
    """A button's callback: remembered across the rerun the app may make before the page is drawn."""
    st.session_state[f"variants_asked_{part}"] = True


def _result(lo: n2o_runs.Loaded, setup: Setup, part: str) -> Stored | None:
    """The part kept for these settings, else (talk mode) the last one computed here, else the button; None while
    nothing is computed or when the run failed (said in place)."""
    got = vd.known(lo.ws, setup, part)
    if got is None and talk.active():  # no button on a projector
        got = vd.latest(lo.ws, part)
    if got is None:
        note = st.empty()
        seconds, basis = _estimate(lo, setup, part)
        note.info(
            f"Nothing is computed yet for the {SECTIONS[part]} of {escape_markup(setup.embedder)} with these "
            f"settings. It should take {how_long(seconds)} ({escape_markup(basis)}; longer on a busy "
            "machine). The result is kept in the cache: the next visit with these settings opens on it "
            "(`python -m n2o_core warm --variants` fills it ahead of a talk)."
        )
        if not st.session_state.pop(f"variants_asked_{part}", False):
            st.button(
                f"Compute the {SECTIONS[part]} ({how_long(seconds)})",
                type="primary",
                key=f"variants_run_{part}",
                on_click=_ask,
                args=(part,),
            )
            return None
        try:
            got = vd.run(lo.ws, setup, part)
        except Exception as e:  # noqa: BLE001 - one sentence in place
            st.warning(escape_markup(message(e, f"Computing the {SECTIONS[part]}")), icon="⚠️")
            return None
        note.empty()
    if not talk.active():
        when = datetime.fromtimestamp(got.computed_at).strftime("%Y-%m-%d %H:%M")
        st.caption(f"Computed {when} (server time) in {got.seconds:.1f} s; kept in the cache for these settings.")
    for what, why in got.result.errors.items():
        st.warning(f"**{SECTIONS.get(what, what)} not computed.** {escape_markup(why)}", icon="⚠️")
    return got


def _section(lo: n2o_runs.Loaded, got: Stored, part: str) -> None:
    res = got.result
    if part_of(res, part) is None:
        return
    if part == "layers":
        _layers(res.layers, res.between)
    elif part == "compression":
        _compression(res.compression)
    else:
        _index(lo, res.index)


# --------------------------------------------------------------------------- layers


def _best_pair(lc: LayerComparison, M: np.ndarray) -> tuple[int, int]:
    """The row and column of the largest value (the diagonal left out within one model)."""
    M = np.array(M, float)
    if lc.within:
        np.fill_diagonal(M, -np.inf)
    i, j = np.unravel_index(int(np.argmax(M)), M.shape)
    return int(i), int(j)


def _layers(within: LayerComparison | None, between: LayerComparison | None) -> None:
    if within is None:
        return
    label = figures_variants.layer_label
    st.caption(
        f"N = {within.corpus_size:,} sentences · k = {within.k} · chance level k/(N−1) = {within.chance:.4f} · "
        f"{len(within.rows)} layers of {escape_markup(within.a)} (layer 0 = the embeddings output), each pooled as "
        "the embedder pools its last layer · every layer from one cached forward pass."
    )
    st.plotly_chart(figures_variants.layer_matrices(within), key="variants")
    if talk.active():
        return
    st.caption(
        "Left: N2O of every two layers (the share of k nearest neighbors they share, averaged over the query "
        "samples); right: linear CKA on every sentence (a global measure). The ringed cell in each row is that "
        "layer's closest other layer. Neighbors usually drift layer by layer: a bright band along the diagonal."
    )
    if between is not None:
        b = escape_markup(str(between.b))
        st.subheader(f"{escape_markup(between.a)}'s layers against {b}")
        st.plotly_chart(figures_variants.layer_matrices(between), key="variants_between")
        i, j = _best_pair(between, between.n2o)
        ci, cj = _best_pair(between, between.cka)
        st.markdown(
            f"**{escape_markup(label(between.rows[i], between.a))}** of {escape_markup(between.a)} agrees most "
            f"with {escape_markup(label(between.cols[j], between.a))}: N2O **{between.n2o[i, j]:.3f}** (chance "
            f"{between.chance:.4f}). By linear CKA the closest pair is "
            f"{escape_markup(label(between.rows[ci], between.a))} · {escape_markup(label(between.cols[cj], between.a))}"
            f" ({between.cka[ci, cj]:.3f})."
        )
    with st.expander("How to read this"):
        st.markdown(
            "- Each cell compares the neighbors of the corpus sentences under two layers: **N2O** counts shared "
            "nearest neighbors at k (Lin & Smith 2019), **linear CKA** (Kornblith et al. 2019) compares the whole "
            "geometry. They can disagree: CKA is dominated by a few large directions, N2O by local order.\n"
            "- N2O at the chance level (in the title) means the two layers' neighbors are unrelated.\n"
            "- The ring marks, for each row, the column it matches best (within one model, its best *other* layer).\n"
            "- Against another embedder, the row with the highest value is the layer whose neighbors that embedder "
            "shares most: a bag-of-words embedder often meets a middle layer rather than the last."
        )


# --------------------------------------------------------------------------- compression


def _compression(comp: Compression | None) -> None:
    if comp is None:
        return
    st.plotly_chart(figures_variants.compression_curves(comp), key="variants")
    if talk.active():
        return
    full = next((p for p in comp.points if p.variant == comp.embedder), None)
    knee = next((p for p in comp.points if p.variant == comp.knee), None)
    if knee is not None and full is not None:
        st.markdown(
            f"**The knee: {escape_markup(knee.variant)}**, {knee.bytes_per_vector:,} bytes per vector "
            f"({full.bytes_per_vector / knee.bytes_per_vector:.0f}× less than {full.bytes_per_vector:,}) keeps "
            f"N2O **{knee.n2o_with_original:.3f}** with the full-precision neighbors (Kneedle on the best N2O "
            "reached at each size)."
        )
    elif comp.knee is None:
        st.markdown("No knee: the best N2O reached at each size falls evenly (or there are too few sizes).")
    for line in comp.notes:
        st.caption(escape_markup(line))
    quality = []
    if comp.needle_pairs:
        quality.append(f"needle MRR: paraphrase needle on {escape_markup(comp.needle_pairs)} (N2O §8)")
    if comp.sts_pairs:
        quality.append(f"STS Spearman: cosine against human scores of {escape_markup(comp.sts_pairs)} (Pitfalls)")
    if quality:
        st.caption(
            "Right panel: " + "; ".join(quality) + ". Rescoring re-orders the binary candidates only: its "
            "quality is the binary variant's."
        )
    frame = pd.DataFrame([p.to_json() for p in comp.points])
    st.dataframe(frame, hide_index=True)
    with st.expander("How to read this"):
        st.markdown(
            "- Left: how many of the embedder's k nearest neighbors (exact, float32) each variant keeps, against "
            "the bytes one vector takes (float32: 4 per dimension; int8: 1; binary: 1 bit). 1 = the same "
            "neighbors; the dotted line is chance.\n"
            "- One curve per family: **dims** keeps the first dimensions (Matryoshka-style; a model not trained "
            "for it loses fast), **PCA** the top principal components (fitted on this corpus), **int8** scalar "
            "quantization with this corpus's ranges, **binary** the sign bits searched by Hamming distance, and "
            "**binary + rescore** the binary candidates (4 × k) re-ranked with the float query.\n"
            "- Right: does the quality follow the neighbors? A variant can move many neighbors and keep its needle "
            "MRR or human-similarity correlation, or the other way round.\n"
            "- The star marks the knee: past it, each halving of the bytes costs more neighbors than the one before."
        )


# --------------------------------------------------------------------------- index


def _ms(seconds: float) -> float | None:
    return round(1000 * seconds, 4) if np.isfinite(seconds) else None


def _index(lo: n2o_runs.Loaded, sweep: IndexSweep | None) -> None:
    if sweep is None:
        return
    st.plotly_chart(figures_variants.index_tradeoff(sweep), key="variants")
    if talk.active():
        return
    default = next((p for p in sweep.points if p.default), None)
    if default is not None:
        st.markdown(
            f"The sidebar's approximate search uses pynndescent with n_neighbors = {default.n_neighbors} for k = "
            f"{sweep.k} on {sweep.corpus_size:,} sentences: recall@{sweep.k} **{default.recall:.3f}** here"
            + (
                " (it fell back to exact search: the corpus is too small for an index)"
                if default.fell_back_to_exact
                else ""
            )
            + "."
        )
    for line in sweep.notes:
        st.caption(escape_markup(line))
    rows = [
        {
            "setting": p.setting,
            f"recall@{sweep.k}": round(p.recall, 4),
            "ms per query": round(1000 * p.query_seconds_per_query, 4)
            if np.isfinite(p.query_seconds_per_query)
            else None,
            "build (s)": round(p.build_seconds, 3),
            "default": p.default,
            "fell back to exact": p.fell_back_to_exact,
        }
        for p in sweep.points
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    with st.expander("How to read this"):
        st.markdown(
            "- An approximate index returns a different neighbor set than exact search; its N2O with exact search "
            "is its recall@k: the share of the exact k nearest neighbors it finds.\n"
            "- Up and to the left is better: a larger graph degree (n_neighbors) finds more of them and costs more "
            "to build and to query. Times are this machine's, measured once.\n"
            "- Every other page's numbers use exact search unless the sidebar's switch says otherwise."
        )


# --------------------------------------------------------------------------- download


def _download(lo: n2o_runs.Loaded, setup: Setup) -> None:
    """The parts at hand as one document: with all three, what `variants --json` writes for these settings."""
    parts = {p: got for p in PARTS if (got := vd.known(lo.ws, setup, p)) is not None}
    if not parts:
        return
    res = combined(lo.ws, setup, parts)
    missing = [SECTIONS[p] for p in PARTS if p not in parts]
    st.download_button(
        "Download the analysis (JSON, as `variants --json`)"
        + (f"; without {', '.join(missing)}: not computed yet" if missing else ""),
        json.dumps(res.to_json(), allow_nan=True),
        file_name=f"variants-{setup.embedder.replace('@', '_')}-k{setup.k}.json",
        mime="application/json",
        key="variants_json",
    )
