"""The papers' findings, checked live: each qualitative finding of the seeds this tool can test, computed on the
current corpus with the embedders it names, with the paper's sentence, the rule and its status over every run
("holds in x of n"); a finding that does not hold shows its numbers and what may explain it, and the findings that
cannot be tested offline are listed with the reason. The last results for the same settings open from the cache."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from n2o_core.analyses.overlap import chance_level
from n2o_core.corpora import Corpus
from n2o_core.evaluation.findings import (
    DEFAULT_RULE,
    DEFAULT_SETTING,
    FINDINGS,
    NOT_TESTABLE,
    PAPERS,
    STATUS_LABELS,
    CheckEstimate,
    Finding,
    FindingParams,
    FindingResult,
    computed_range,
    findings_document,
    overview_table,
    row_title,
    summary_counts,
)
from n2o_core.export.findings_table import findings_markdown
from n2o_core.limits import K_SHARE_MAX, effective_k, k_max_for, k_share_cap, sentences_for_k
from n2o_core.settings import HEROS_PAIR_CHOICES, Settings, param_int_choice
from n2o_core.text import escape_markup
from ui import findings_runs, nav, talk
from ui.shell import through_app

through_app()

DEFAULT_PAIRS = FindingParams().heros_pairs
_COLOURS = {"✓": "green", "✗": "red", "◐": "orange", "–": "gray"}


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("findings"))
    st.caption(
        "Each finding of the papers that this tool can test, computed on the current corpus: the paper's sentence, "
        "what is computed here, the rule and the one setting it is judged on, over several runs (seeds × corpus "
        "sizes): ✓ holds in every run, ✗ in none, ◐ in some. Other settings and stricter or looser readings are "
        "shown beside it and never decide it; a finding that does not hold says what may explain it."
    )
    if corpus is None:
        st.info("Choose a usable corpus in the sidebar.")
        st.stop()
    if "w_fpairs" not in st.session_state:  # the link's fpairs= counts once; then the slider decides
        n, note = param_int_choice(st.query_params, "fpairs", HEROS_PAIR_CHOICES, DEFAULT_PAIRS)
        if note:
            st.warning(escape_markup(note))
        st.session_state["w_fpairs"] = n
    c1, c2 = st.columns([3, 2])
    n_pairs = c1.select_slider("Minimal pairs per HEROS subset", HEROS_PAIR_CHOICES, key="w_fpairs")
    st.query_params["fpairs"] = str(n_pairs)
    p = findings_runs.params(settings, n_pairs)
    st.caption(_setup_line(settings, corpus, p))
    n, k = len(corpus), _run_k(p, corpus)
    if k > k_share_cap(n):
        paper = "the paper's" if k == p.k else f"the paper's {p.k}, capped at every other sentence"
        st.warning(
            f"On {n:,} sentences the N2O findings (neighbors, token overlap, popular neighbors) are not judged: "
            f"k = {k} ({paper}) is more than {K_SHARE_MAX:.0%} of the {n - 1:,} other sentences, so random "
            f"neighbors would already share {chance_level(k, n):.2f} of them. They need {sentences_for_k(p.k):,} "
            "sentences or more; the HEROS, probing and human-similarity findings are judged as usual.",
            icon="⚠️",
        )

    asked = st.session_state.pop("findings_asked", [])
    todo = list(FINDINGS) if "*" in asked else [f for f in FINDINGS if f.id in asked]
    est = findings_runs.estimate(settings, corpus, list(FINDINGS), p)  # before the check this run may start
    c2.button(
        _with_time("Check all", est),
        type="primary",
        key="check_all",
        help=_check_all_help() + "\n\nHow long: " + est.basis() + ".",
        on_click=_ask,
        args=("*",),
    )
    if not talk.active():  # the button is hidden on a projector: its time would stand alone
        c2.caption(_estimate_line(est))
    errors = findings_runs.compute(settings, corpus, todo, p) if todo else {}
    times = {f.id: findings_runs.estimate(settings, corpus, [f], p).short() for f in FINDINGS}

    results = {f.id: findings_runs.result(corpus, f, p) for f in FINDINGS}
    _summary(results)
    for paper, full in PAPERS.items():
        st.subheader(f"{paper}: {full}")
        for f in FINDINGS:
            if f.paper == paper:
                _finding(f, results[f.id], errors.get(f.id), times[f.id])
    _untestable()
    checked = [r for r in results.values() if r is not None]
    if checked:
        doc = findings_document(corpus.name, len(corpus), p, checked)
        c1, c2 = st.columns(2)
        c1.download_button(
            "Download the checked findings (JSON, as `findings --json`)",
            json.dumps(doc, indent=1, allow_nan=True),
            file_name="findings.json",
            mime="application/json",
            key="findings_json",
        )
        c2.download_button(
            "Download them as a Markdown table (as `findings --markdown`)",
            findings_markdown(doc),
            file_name="findings.md",
            mime="text/markdown",
            key="findings_md",
        )


def _ask(fid: str) -> None:
    """Button callback: remember which finding (or "*": all) to compute on this run."""
    st.session_state.setdefault("findings_asked", []).append(fid)


def _run_k(p: FindingParams, corpus: Corpus) -> int:
    """The k the neighbor findings use on this corpus (the paper's, capped as `neighbor_evidence` caps it)."""
    return effective_k(p.k, k_max_for(len(corpus)))


def _setup_line(settings: Settings, corpus: Corpus, p: FindingParams) -> str:
    off = [w for w, on in (("z-normalization", settings.znorm), ("approximate search", settings.approx)) if on]
    return (
        f"Corpus **{escape_markup(corpus.name)}** ({len(corpus):,} sentences) · "
        f"k = {_run_k(p, corpus)} as in the N2O paper "
        f"(the sidebar's k = {settings.k} is not used) · {p.n_samples} sample(s) of {p.n_queries} queries, seed "
        f"{p.seed}, from the sidebar · exact search on raw cosine"
        + (f" (the sidebar's {' and '.join(off)} is not used here)" if off else "")
        + " · **each finding computes the embedders it names**, whatever the sidebar selects."
    )


def _with_time(label: str, est: CheckEstimate) -> str:
    """'Check all · about 6 min here' ('Check all' alone when every analysis is computed in this process)."""
    return label if not est.parts else f"{label} · {est.short()}"


def _estimate_line(est: CheckEstimate) -> str:
    """What the time is scaled from, in a few words (the button's help has each part)."""
    if not est.parts:
        return "Every analysis is computed in this server process: checking again judges it in seconds."
    here = all(pt.basis.startswith("scaled from its last run here") for pt in est.parts)
    source = (
        "scaled from the last checks here"
        if here
        else "scaled from the last checks here where there were any, else from benchmarks recorded on a quiet "
        "2-core machine"
    )
    embed = f"; embeds the corpus with {len(est.embed)} embedder(s) not cached yet" if est.embed else ""
    return (
        f"{len(est.parts)} analysis(es) to compute{embed}: about {est.seconds:,.0f} s, {source} "
        "(hover the button for each part); longer on a busy machine."
    )


def _check_all_help() -> str:
    ids = sorted({e for f in FINDINGS for e in f.embedders})
    return (
        f"Computes {len(ids)} embedders ({', '.join(ids)}) on the corpus, minimal pairs (WordNet and spaCy load "
        "first), gensim's Lee pairs and the probing tasks (spaCy parses the corpus), on 3 seeds; word2vec and "
        "fastText are trained a second time with another seed (the same-recipe reference). Transformers take minutes "
        "on a cold cache; results are kept, and the page opens on them next time."
    )


def _summary(results: dict[str, FindingResult | None]) -> None:
    df = overview_table(FINDINGS, results)
    checked = [r for r in results.values() if r is not None]
    counts = summary_counts(checked)
    st.markdown(
        f"**{counts['holds']} hold · {counts['fails']} fail · {counts['unstable']} unstable across runs · "
        f"{counts['not_checked']} could not be checked** — {len(checked)} of {len(FINDINGS)} findings computed, "
        "each from its one fixed setting over every run (the paper's, else the tool's one default); apart from "
        f"that, **{counts['setting_sensitive']} setting-sensitive** (another setting or reading judges some run "
        f"differently). {len(NOT_TESTABLE)} more are not testable here (listed at the end)."
    )
    when = computed_range(checked)
    if when:
        st.caption(
            "Results for these settings as last computed "
            + (f"on {when[0]}" if when[0] == when[1] else f"between {when[0]} and {when[1]}")
            + " (kept in the cache; **Check** computes again)."
        )
    with st.expander("The one default setting and the one default rule"):
        st.markdown(f"**Setting** where a paper is silent: {DEFAULT_SETTING}.  \n**Rule** where it gives no number: ")
        st.markdown(DEFAULT_RULE)
    st.table(df, hide_index=True)  # a static table: the numbers wrap, whole, instead of being cut at a width


def _finding(f: Finding, r: FindingResult | None, error: str | None, time: str) -> None:
    with st.container(border=True, key=f"finding_{f.id}"):
        m = r.mark if r else ""
        colour = _COLOURS.get(m, "gray")
        st.markdown(f"#### :{colour}[{m}] {f.title}" if m else f"#### {f.title}")
        st.caption(f"{f.paper} {f.where} · `{f.id}`")
        st.markdown(f"> {f.statement}")
        st.markdown(
            f"**Tested here:** {f.tested}  \n"
            f"**Embedders:** {', '.join(f'`{e}`' for e in f.embedders)}  \n"
            f"**Rule:** {f.rule}  \n"
            f"**Setting:** {f.scoring} — {f.setting_reason}"
            + (f"  \n**Cut-off:** {f.cutoff_reason}" if f.cutoff_reason else "")
            + (f"  \n**Data:** {f.data}" if f.data else "")
            + (f"  \n**Paper:** {f.paper_numbers}" if f.paper_numbers else "")
        )
        if f.history:
            st.caption(f"History: {f.history}")
        if error:
            st.error(escape_markup(error), icon="⚠️")
        if r is None:
            st.button(f"Check · {time}", key=f"check_{f.id}", on_click=_ask, args=(f.id,))
            return
        v = r.verdict
        st.markdown(
            f"**:{colour}[{STATUS_LABELS[r.status].capitalize()}]**: {r.holds_text} (seeds × corpus sizes), from the "
            f"fixed setting alone  \n**Numbers** ({r.numbers_from}, **:{_COLOURS[v.mark]}[{v.mark}]**): {v.summary}"
        )
        if r.explanation:
            st.info(f"**What may explain it** (`{f.id}`): {r.explanation}", icon=":material/lightbulb:")
        if v.table is not None and len(v.table):
            st.dataframe(_rounded(v.table), hide_index=True, key=f"table_{f.id}")
        _sensitivity(f, r)
        for e, msg in r.errors.items():
            st.warning(f"**{escape_markup(e)}** is left out: {escape_markup(msg)}")
        st.caption(
            " · ".join(f"{k}: {escape_markup(_plain(v))}" for k, v in r.setup.items())
            + f" · computed in {r.seconds:.1f} s (from the cache when it was there)"
            + (f" · computed on {r.computed_at}" if r.computed_at else "")
        )
        if r.computed_at:
            label = "Check again" if time == "nothing to compute" else f"Check again · {time}"
            st.button(label, key=f"check_{f.id}", on_click=_ask, args=(f.id,))


def _sensitivity(f: Finding, r: FindingResult) -> None:
    """The other settings, stricter or looser readings and, beyond the paper, the rule on linear CKA, each with its
    own verdict: shown beside the status, never deciding it; whether a setting or reading judges a run otherwise."""
    if not r.sensitivity:
        return
    lines = [
        f"- {row_title(label)}: **:{_COLOURS[a.mark]}[{a.mark}]** {a.summary} ({h} of {n} runs)"
        for (label, _), a, (h, n) in zip(f.sensitivity, r.sensitivity, r.sensitivity_counts(), strict=True)
    ]
    flag = (
        "**Setting-sensitive:** "
        + "; ".join(f"“{d['scoring']}” judges differently in {', '.join(d['runs'])}" for d in r.sensitive_to)
        if r.sensitive_to
        else "**Not setting-sensitive:** no other setting or reading judges any run differently."
    )
    st.markdown(
        "**Sensitivity** (first run's numbers; other settings, readings and, beyond the paper, other measures; none "
        "decides the status):\n" + "\n".join(lines) + "\n\n" + flag
    )


def _plain(v: object) -> str:
    """A setup value for a caption: {a: 1, b: 2} as 'a 1, b 2'."""
    return ", ".join(f"{k} {x}" for k, x in v.items()) if isinstance(v, dict) else str(v)


def _rounded(t: pd.DataFrame) -> pd.DataFrame:
    return t.round(4) if isinstance(t, pd.DataFrame) else t


def _untestable() -> None:
    with st.expander(f"Not testable here ({len(NOT_TESTABLE)})"):
        st.dataframe(
            pd.DataFrame(
                [{"paper": f"{u.paper} {u.where}", "finding": u.statement, "why not": u.reason} for u in NOT_TESTABLE]
            ),
            hide_index=True,
            key="untestable",
        )
