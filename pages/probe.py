"""Probing (Conneau et al. 2018): SentEval's ten probing tasks built from the sidebar's corpus, every chosen
embedder read out by logistic regression and an MLP, beside the majority-class and length-only baselines; how the
embedders' ranking moves between the two classifiers (Pitfalls); a few items of every task; what deviates from
the paper. The page opens on the last result of its settings when the cache holds one (an earlier run, or
`python -m n2o_core warm --probe`); otherwise its button says how long the run will take here. The tables come
from `evaluation.probe.report`: this page only draws them."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd
import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.evaluation.probe import TASK_NAMES, TASKS
from n2o_core.evaluation.probe.readout import CLASSIFIERS, MLP_SPARSE_DIMS
from n2o_core.evaluation.probe.report import (
    CLASSIFIER_LABELS,
    accuracy_matrix,
    done_tasks,
    dropped_tasks,
    judged_shares,
    moved_count,
    n_test_range,
    ranking_display,
    results_table,
    task_notes,
    task_table,
)
from n2o_core.evaluation.probe.run import ProbeResult
from n2o_core.evaluation.probe.split import (
    MIN_TRAIN_PER_CLASS,
    min_items_per_class,
    no_task_fits,
    split_sizes,
    test_half_width,
    training_items,
)
from n2o_core.figures import probe as figures_probe
from n2o_core.settings import (
    PROBE_DEFAULT_MIN_TRAIN,
    PROBE_DEFAULT_PER_CLASS,
    PROBE_MIN_TRAIN_CHOICES,
    PROBE_NOISE_POINTS,
    PROBE_PER_CLASS_CHOICES,
    Settings,
    param_int_choice,
    param_multi_choice,
)
from n2o_core.text import escape_markup
from ui import downloads, n2o_runs, nav, page, probe_runs, talk
from ui.shell import through_app

through_app()

TITLE = nav.heading("probe")
LABELS = CLASSIFIER_LABELS
SAMPLE_DOC = Path(__file__).resolve().parents[1] / "docs" / "probe_sample.md"
#: Items shown per class of a task, and classes shown at most (WC has hundreds).
EXAMPLES_PER_CLASS = 2
EXAMPLE_CLASSES = 12
PAPER_SIZE = "100k train + 10k dev + 10k test sentences per task, balanced over its classes"


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(TITLE)
    st.caption(
        "Conneau et al. (2018): ten classification tasks that ask what a sentence vector encodes — surface "
        "(sentence length, which word it contains), syntax (tree depth, top constituents, word order) and "
        "semantics (tense, subject and object number, a swapped noun or verb, inverted clauses). Each task is "
        "built here from the sidebar's corpus; a classifier trained on an embedder's vectors of the train split "
        "is tested on the test split, its setting chosen on the dev split. Pitfalls (Eger et al.) asks for the "
        "results of at least logistic regression and an MLP, because rankings need not agree."
    )
    if corpus is None:
        st.info("Choose a usable corpus in the sidebar.")
        st.stop()
    if not settings.embedders:
        st.info("Choose at least one embedder in the sidebar.")
        st.stop()
    setup = _controls(settings)
    _deviations(setup.per_class, setup.min_train)
    if not setup.tasks:
        st.info("Choose at least one probing task.")
        st.stop()
    if not setup.classifiers:
        st.info("Choose at least one classifier.")
        st.stop()

    res = probe_runs.cached(corpus, setup, settings.scheduler)
    why = no_task_fits(len(corpus), setup.per_class, setup.min_train) if res is None else None
    if why:  # known before parsing: no run that would drop every task
        st.warning(f"Corpus **{escape_markup(corpus.name)}**: {why}")
        st.stop()
    if res is None:
        if not st.session_state.pop("probe_asked", False):  # set by the button's callback before this run
            st.caption(
                f"Corpus **{escape_markup(corpus.name)}** ({len(corpus):,} sentences) · "
                f"{len(setup.embedders)} embedder(s) from the sidebar · {len(setup.tasks)} task(s) · "
                f"{setup.per_class:,} items per class at most, {training_items(setup.min_train)} per class at "
                f"least · seed {setup.seed} (the sidebar's). The corpus is parsed once (spaCy), then every task, "
                "sentence vector and readout is cached: a second run reads them back."
            )
            st.caption(_noise_line(setup.per_class, setup.min_train))
            est = probe_runs.how_long(corpus, setup, settings.scheduler)
            label = "Run probing" + (f" · {est.short()}" if est is not None else "")
            st.button(label, type="primary", key="probe_run", on_click=_ask)
            if est is not None:
                st.caption(f"Time: {est.line()}. `python -m n2o_core warm --probe` prepares the page's default.")
            st.stop()
        try:
            res = probe_runs.run(corpus, setup, settings.scheduler)
        except Exception as e:  # noqa: BLE001 - one sentence in place, never a traceback
            st.warning(escape_markup(probe_runs.describe_error(e)), icon="⚠️")
            st.stop()
    _results(res, corpus, setup)


def _noise_line(per_class: int, min_train: int) -> str:
    """What the chosen size buys (the test split's 95% interval on a binary task) and what the minimum asks."""
    least = min_items_per_class(2, min_train)
    hw = test_half_width(per_class)
    line = (
        f"At {per_class:,} items per class a two-class task is tested on {2 * split_sizes(per_class)[2]:,} items: "
        f"accuracies are known to ±{hw:.1f} points (95%) where the corpus fills the classes."
    )
    if per_class >= PROBE_DEFAULT_PER_CLASS:
        line += f" The page opens at the smallest size within ±{PROBE_NOISE_POINTS:g} points."
    if per_class < least:
        line += (
            f" **{per_class:,} items per class cannot give a two-class task {training_items(min_train)} per "
            f"class** (the minimum): only a task of many classes (WC) can be kept; {least:,} or more per class do."
        )
    return line


def _ask() -> None:
    """Button callback: run on this script run (a flag survives the reruns a click may go through)."""
    st.session_state["probe_asked"] = True


def _controls(settings: Settings) -> probe_runs.ProbeSetup:
    """Tasks, classifiers and items per class, each in the URL (`tasks=`, `clf=`, `per_class=`); the seed and the
    embedders are the sidebar's."""
    if "w_ptasks" not in st.session_state:  # the link's values count once; then the controls decide
        tasks, note1 = param_multi_choice(st.query_params, "tasks", TASKS, TASKS)
        clfs, note2 = param_multi_choice(st.query_params, "clf", CLASSIFIERS, CLASSIFIERS)
        n, note3 = param_int_choice(st.query_params, "per_class", PROBE_PER_CLASS_CHOICES, PROBE_DEFAULT_PER_CLASS)
        m, note4 = param_int_choice(st.query_params, "min_train", PROBE_MIN_TRAIN_CHOICES, PROBE_DEFAULT_MIN_TRAIN)
        for note in (note1, note2, note3, note4):
            if note:
                st.warning(escape_markup(note))
        st.session_state["w_ptasks"] = tasks
        st.session_state["w_pclf"] = clfs
        st.session_state["w_pper"] = n
        st.session_state["w_pmin"] = m
    c1, c2, c3, c4 = st.columns([4, 3, 3, 3])
    tasks = c1.multiselect("Tasks", list(TASKS), format_func=page.option_labels(TASK_NAMES), key="w_ptasks")
    clfs = c2.multiselect("Classifiers", list(CLASSIFIERS), format_func=page.option_labels(LABELS), key="w_pclf")
    per_class = c3.select_slider(
        "Items per class, at most",
        PROBE_PER_CLASS_CHOICES,
        key="w_pper",
        help=f"The paper: {PAPER_SIZE}. A corpus that cannot fill a class gets fewer (the task table says "
        "how many). More items take longer: the MLP's time grows with them.",
    )
    min_train = c4.select_slider(
        "Training items per class, at least",
        PROBE_MIN_TRAIN_CHOICES,
        key="w_pmin",
        format_func=lambda v: f"{v} (the paper's)" if v == MIN_TRAIN_PER_CLASS else str(v),
        help=f"A class with fewer training items is dropped, and a task left with fewer than two classes is "
        f"skipped (both said below the results). {MIN_TRAIN_PER_CLASS} is the paper's own floor: its sparsest "
        "task, WC, trains on 100k sentences over 1,000 words. A smaller minimum is a deviation from the paper for "
        "small corpora: accuracies on a few training items per class say little.",
    )
    if min_train < MIN_TRAIN_PER_CLASS:
        c4.caption(f"**Deviation from the paper** (its minimum: {MIN_TRAIN_PER_CLASS}).")
    tasks = [t for t in TASKS if t in tasks]
    clfs = [c for c in CLASSIFIERS if c in clfs]
    st.query_params["tasks"] = "all" if len(tasks) == len(TASKS) else ",".join(tasks)
    st.query_params["clf"] = ",".join(clfs)
    st.query_params["per_class"] = str(per_class)
    st.query_params["min_train"] = str(min_train)
    return probe_runs.ProbeSetup(
        tuple(settings.embedders), tuple(tasks), tuple(clfs), int(per_class), settings.seed, int(min_train)
    )


def _floor(min_train: int) -> str:
    """Whether a minimum of training items per class is the paper's floor or a deviation from it."""
    why = "its sparsest task, WC, trains on 100k sentences over 1,000 words"
    if min_train >= MIN_TRAIN_PER_CLASS:
        return f"the paper's own floor: {why}"
    return f"a deviation: the paper's floor is {MIN_TRAIN_PER_CLASS}, as {why}"


def _deviations(per_class: int, min_train: int) -> None:
    """What differs from the paper, with the hand-read share of a sample of every task."""
    with st.expander("What differs from the paper (Conneau et al. 2018)"):
        st.markdown(
            f"""
- **Corpus**: the tasks are built from the sidebar's corpus (news by default), not the Toronto Book Corpus
  (novels); sentences of 5–28 words, as in the paper.
- **Size**: at most **{per_class:,} items per class** (the paper: {PAPER_SIZE}); a class the corpus cannot fill
  gets fewer. The split is 8:1:1 per class (the paper's is 10:1:1); on a small corpus dev and test grow towards
  1,000 test items (up to 2:1:1). Every class keeps at least **{training_items(min_train)}** ({_floor(min_train)});
  a class with fewer is dropped and a task left with fewer than two classes is skipped, each said under the
  results.
- **Parser**: spaCy's small English dependency parser, not the Stanford PCFG constituency parser. **TreeDepth**
  counts the words on the longest root-to-leaf path of the dependency tree (the paper counts constituency nodes,
  so its depths, 5–12, are larger), its classes the widest range of depths the corpus fills, in tuples of equal
  length. **TopConst**'s sequence of constituents below the clause is derived from the root's dependents.
- **WC**: the words of frequency ranks 2,000–2,999 of the corpus (the middle third of the ranks for a smaller
  vocabulary); words with too few sentences are dropped, so there are fewer than the paper's 1,000 classes.
- **SubjNum / ObjNum**: common nouns only (NN / NNS); proper nouns and pronouns are left out. **SOMO**: bigram
  frequencies come from the corpus itself. **Tense, SubjNum, ObjNum, SOMO**: a target word never occurs in two
  splits, as in the paper.
- **Classifiers** (scikit-learn): logistic regression with C in {{0.01, 0.1, 1, 10}}; an MLP with one sigmoid
  hidden layer of 50 or 200 units (the paper also tries 100), no dropout, at most 100 passes; the setting with
  the best dev accuracy is tested. Tf-idf reaches the MLP through a {MLP_SPARSE_DIMS}-dimensional truncated SVD.
  The length-only baseline is logistic regression on the length in words, as in the paper.
"""
        )
        if SAMPLE_DOC.is_file():
            text = SAMPLE_DOC.read_text(encoding="utf-8")
            shares = judged_shares(text)
            if not shares.empty:
                st.markdown(
                    "**How often the generated labels are right**, read by hand: 30 random items per task built "
                    "from `builtin:bbc-news` (5,000 items per class, seed 0), from `docs/probe_sample.md`, beside the "
                    "paper's human-validated bounds (Table 2, 'Hum. Eval.')."
                )
                st.dataframe(shares, hide_index=True)
            st.download_button(
                "The hand-read sample, every item with its judgement (Markdown)",
                text,
                file_name="probe_sample.md",
                mime="text/markdown",
                key="dl_probe_sample",
            )


def _task_section(res: ProbeResult) -> None:
    """The tasks' table, the noise note and the skipped tasks."""
    st.subheader("The tasks")
    st.dataframe(
        task_table(res),
        hide_index=True,
        column_config={
            "majority %": st.column_config.NumberColumn(),
            "skipped": st.column_config.TextColumn(width="medium"),
            "note": st.column_config.TextColumn(width="large"),
        },
    )
    min_train = int(res.meta.get("min_train", MIN_TRAIN_PER_CLASS))
    st.caption(
        "±95%: an accuracy measured on a task's test split is uncertain by up to this many points (a binomial 95% "
        "interval at 50%); differences smaller than that may be sampling noise. More items per class narrow it. "
        f"Every class keeps at least {training_items(min_train)}"
        + (
            " (the paper's floor)"
            if min_train >= MIN_TRAIN_PER_CLASS
            else f" (a deviation: the paper's floor is {MIN_TRAIN_PER_CLASS})"
        )
        + "; the note column names the classes dropped under it."
    )
    skipped = dropped_tasks(res)
    for name, why in skipped:
        st.info(f"Skipped: {escape_markup(name)}: {escape_markup(why)}", icon="ℹ️")
    if skipped:
        st.caption("A larger corpus (the sidebar's sentence cap) gives these tasks their items.")
    for task, note in task_notes(res).items():
        st.caption(f"**{TASK_NAMES[task]}**: {escape_markup(note.rstrip('.'))}.")


def _computed_line(res: ProbeResult) -> str:
    """When the shown result was computed, and how long it took (a result read from the cache says so)."""
    meta = res.meta
    when = str(meta.get("computed_at") or "")
    if meta.get("seconds"):
        took = f"computed in {meta.get('seconds', 0):.0f} s (tasks {meta.get('tasks_seconds', 0):.0f} s)"
        return took + (f", finished {when.replace('T', ' ')}" if when else "")
    if when:
        return (
            f"**the last result of these settings, computed {when.replace('T', ' ')}**, read from the cache "
            "(nothing recomputed)"
        )
    return "read from the cache"


def _results(res: ProbeResult, corpus: Corpus, setup: probe_runs.ProbeSetup) -> None:
    for key, msg in res.errors.items():
        st.error(f"**{escape_markup(key)}** is left out: {escape_markup(msg)}", icon="⚠️")
    meta = res.meta
    st.caption(
        f"Corpus **{escape_markup(corpus.name)}** ({len(corpus):,} sentences) · {setup.per_class:,} items per "
        f"class at most · {training_items(int(meta.get('min_train', setup.min_train)))} per class at least · "
        f"seed {setup.seed} · {_computed_line(res)}."
    )

    if not talk.active():  # on a projector the results come first, alone
        _task_section(res)
    names = res.embedders
    for clf in setup.classifiers:
        st.subheader(f"Accuracy, {LABELS[clf]}")
        table = res.table(clf)
        st.plotly_chart(
            n2o_runs.figure(
                "probe_acc",
                (corpus.fingerprint, clf, tuple(table.columns), tuple(table.index), table.to_numpy().tobytes()),
                partial(figures_probe.accuracy_heatmap, table, classifier=clf),
            ),
            key=f"probe_heatmap_{clf}",
        )
        st.dataframe(
            accuracy_matrix(table), column_config={t: st.column_config.NumberColumn(format="%.1f") for t in table.index}
        )
        st.caption(
            f"Test accuracy in percent ({LABELS[clf]} on each embedder's vectors; setting chosen on dev). "
            "Baselines: *majority class* always answers the most frequent train class (the tasks are balanced, so "
            "it is chance); *length only* is logistic regression on the sentence's length in words, whatever the "
            "classifier above."
        )

    if len(setup.classifiers) > 1 and len(names) > 1 and not talk.active():  # a projector shows the accuracies
        _ranking(res, setup, names)
    _examples(res)
    _downloads(res, corpus, setup)


def _ranking(res: ProbeResult, setup: probe_runs.ProbeSetup, names: list[str]) -> None:
    st.subheader("Ranking of the embedders under each classifier")
    ranking = res.ranking()
    clfs = list(setup.classifiers)
    st.plotly_chart(
        n2o_runs.figure(
            "probe_rank",
            (tuple(ranking.itertuples(index=False)), tuple(clfs)),
            lambda: figures_probe.ranking_bump(ranking, clfs, color_order=names),
        ),
        key="probe_rank",
    )
    shown = ranking_display(ranking, clfs)
    moved = moved_count(ranking, clfs)
    means = [c for c in shown.columns if c.startswith("mean ")]
    st.dataframe(
        shown.style.map(_arrow_colour).apply(_moved_rows, axis=1).format("{:.1f}", subset=means), hide_index=True
    )
    tasks = ", ".join(TASK_NAMES[t] for t in done_tasks(res))
    lo, hi = n_test_range(res)
    n_test = f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
    st.caption(
        f"Rank 1 = the highest mean test accuracy over the tasks every embedder has ({tasks}); ties share the "
        f"better rank. Arrows: the move from {LABELS[clfs[0]]} to {LABELS[clfs[-1]]} (▲ up, ▼ down)."
    )
    if moved:
        st.warning(
            f"**{moved} of {len(shown)} embedders change rank** between {LABELS[clfs[0]]} and {LABELS[clfs[-1]]}: "
            "a ranking under logistic regression alone would not hold (Pitfalls: report at least logistic "
            f"regression and an MLP). With {n_test} test items per task, a difference of a point or two in mean "
            "accuracy is within the noise: a larger number of items per class makes the comparison firmer.",
            icon=":material/swap_vert:",
        )
    else:
        st.success(f"The ranking is the same under {' and '.join(LABELS[c] for c in clfs)} here.")


def _examples(res: ProbeResult) -> None:
    st.subheader("What the tasks ask")
    ex = res.examples(EXAMPLES_PER_CLASS, max_classes=EXAMPLE_CLASSES)
    done = done_tasks(res)
    if ex.empty or not done:
        st.caption("No task has items.")
        return
    st.caption(
        f"{EXAMPLES_PER_CLASS} random test items per class (the first {EXAMPLE_CLASSES} classes of a task with "
        "more), as the classifiers see them; the note says what the label was read from."
    )
    tabs = st.tabs([TASK_NAMES[t] for t in done])
    for tab, t in zip(tabs, done):
        with tab:
            info = res.meta.get("task_info", {}).get(t, {})
            gen = " Items marked *generated* were changed from a corpus sentence." if info.get("generated") else ""
            st.caption(f"{TASK_NAMES[t]}: {_TASK_QUESTION[t]}{gen}")
            rows = ex[ex["task"] == t][["label", "text", "note"]]
            st.dataframe(
                rows,
                hide_index=True,
                height=min(38 + 35 * len(rows), 640),
                column_config={
                    "text": st.column_config.TextColumn(width="large"),
                    "note": st.column_config.TextColumn(width="small"),
                },
            )


#: What each task asks, in one line (the paper, §2).
_TASK_QUESTION = {
    "sentlen": "how long is the sentence (6 bins of words)?",
    "wc": "which of ~1,000 mid-frequency words does the sentence contain?",
    "treedepth": "how deep is its (dependency) tree?",
    "topconst": "which sequence of constituents sits right below the clause?",
    "bshift": "have two adjacent words been swapped?",
    "tense": "is the main clause's verb in the past or the present?",
    "subjnum": "is the main clause's subject singular or plural?",
    "objnum": "is the main clause's direct object singular or plural?",
    "somo": "has a noun or verb been replaced by another word of the same kind?",
    "coordinv": "have the two coordinate clauses been swapped?",
}


def _downloads(res: ProbeResult, corpus: Corpus, setup: probe_runs.ProbeSetup) -> None:
    meta = {
        "corpus": corpus.name,
        "sentences": len(corpus),
        "items per class": setup.per_class,
        "seed": setup.seed,
        "classifiers": ", ".join(setup.classifiers),
        "embedders": ", ".join(setup.embedders),
    }
    name = f"probe-{setup.per_class}-seed{setup.seed}"
    with st.expander("Downloads"):
        downloads.table(results_table(res), f"{name}-results", "Every accuracy", meta_=meta)
        downloads.table(task_table(res), f"{name}-tasks", "The tasks", meta_=meta)


def _arrow_colour(v: object) -> str:
    if isinstance(v, str) and "▲" in v:
        return "color: #1a7f37; font-weight: 600"
    if isinstance(v, str) and "▼" in v:
        return "color: #c0392b; font-weight: 600"
    return ""


def _moved_rows(row: pd.Series) -> list[str]:
    style = "background-color: #fff4d6" if row.get("rank changes") else ""
    return [style] * len(row)
