"""The sidebar with the shared choices, kept in sync with the URL (st.query_params).

On a session's first run the widgets are seeded from the URL; after the widgets are drawn the URL is
rewritten from their values, so a copied link reproduces the view.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from n2o_core.analyses.face_value import TRAIN_WITH, TRAINED_NOISE_BELOW
from n2o_core.analyses.overlap import chance_level
from n2o_core.corpora import (
    SUPPORTED_EXTENSIONS,
    Corpus,
    list_builtin_corpora,
    list_columns,
    load_bytes,
    save_upload,
    text_columns,
    upload_name,
)
from n2o_core.corpora.uploads import check_upload_size
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.user import dataset_link_refusal, model_dirs
from n2o_core.errors import CorpusError
from n2o_core.limits import K_MAX, K_SHARE_MAX, check_corpus_size, k_max_for, k_share_cap
from n2o_core.runtime import server_mode
from n2o_core.settings import MAX_SENTENCES_CHOICES, Settings, env_defaults, from_query, link_int, to_query
from n2o_core.text import escape_markup

from . import embedder_picker, hf_dataset, n2o_runs, talk, user_embedders
from .guard import message

UPLOAD = "__upload__"
_LIVE = "_upload_live"  # the spec of the file in the uploader (drawn while the picker shows it)
_PICK = "_pick_corpus"  # the picker's value for the next run (a widget's value cannot change once drawn)
_SHOWN = "_corpus_shown"  # (picker value, spec, text column) of the last corpus that loaded: kept while one is pending
_W = {  # settings field -> widget key
    "corpus": "w_corpus",
    "max_sentences": "w_cap",
    "embedders": "w_emb",
    "k": "w_k",
    "n_queries": "w_queries",
    "n_samples": "w_samples",
    "seed": "w_seed",
    "approx": "w_approx",
    "znorm": "w_znorm",
    "order": "w_order",
}


def _builtins() -> dict[str, str]:
    return {b["spec"]: f"{b['name']} — {b['size']}" for b in list_builtin_corpora()}


def _seed_from_url(defaults: Settings, known: list[str]) -> None:
    """First run of a session: widget values from the URL (bad values fall back, with a note)."""
    if st.session_state.get("_seeded"):
        return
    params = {k: st.query_params.get(k) for k in st.query_params}
    extra = set(_builtins())
    linked = str(params.get("corpus") or "")
    if linked.startswith("hf:"):
        why = dataset_link_refusal(linked, user_embedders.typed_specs())
        if why is None:
            extra.add(linked)
    s = from_query(
        params, defaults, known_embedders=known, extra_corpora=extra, link_refusal=user_embedders.link_refusal
    )
    notes = list(s.notes)
    corpus = s.corpus
    user_embedders.adopt(list(s.embedders))
    if corpus.startswith("hf:"):  # a Hugging Face dataset: the picker's dataset entry, with its fields filled
        st.session_state["w_hf_spec"] = corpus
        st.session_state["w_hf_col"] = s.text_column or "text"
        corpus = hf_dataset.HF
    if corpus.startswith("upload:"):
        name = upload_name(n2o_runs.cache(), corpus)
        if name is None:
            notes.append("The uploaded corpus in this link is no longer on this server; showing the default corpus.")
            corpus = defaults.corpus
        else:
            st.session_state["_uploads"] = {corpus: name}
    st.session_state.update(
        {
            _W["corpus"]: corpus,
            _W["max_sentences"]: s.max_sentences,
            _W["embedders"]: list(s.embedders),
            _W["k"]: s.k,
            _W["n_queries"]: s.n_queries,
            _W["n_samples"]: s.n_samples,
            _W["seed"]: s.seed,
            _W["approx"]: "approximate" if s.approx else "exact",
            _W["znorm"]: s.znorm,
            _W["order"]: s.order,
        }
    )
    st.session_state["w_train"] = bool(s.train_with)
    # a link's valid k is the user's; the default (also for a bad k) is capped for a small corpus
    st.session_state["_k_chosen"] = link_int(params, "k", 1, K_MAX) is not None
    st.session_state["w_scheduler"] = s.scheduler
    st.session_state["w_talk"] = talk.active()
    st.session_state["_notes"] = notes
    st.session_state["_seeded"] = True


def _duplicates(n: int) -> str:
    """'1 exact duplicate' / 'n exact duplicates'."""
    return f"{n:,} exact duplicate{'' if n == 1 else 's'}"


@st.cache_data(show_spinner=False, max_entries=16)
def _parse_upload(name: str, digest: str, raw: bytes, column: str | None) -> str:
    """Read an uploaded file into a corpus and keep it in the cache; returns its spec."""
    corpus = load_bytes(name, raw, column)
    return save_upload(n2o_runs.cache(), corpus)


def _upload_widget() -> str | None:
    """File upload with a text-column picker; returns the spec of the loaded upload, "" while no file is given, or
    None (with the error shown) when the file cannot be used."""
    exts = [e.lstrip(".") for e in SUPPORTED_EXTENSIONS]
    limit = server_mode.upload_limit_mb()
    f = st.file_uploader(
        "Corpus file",
        type=exts,
        key="w_upload",
        max_upload_size=limit,
        help="One sentence per line (.txt) or one per row of a text column (.csv/.tsv/.jsonl/.parquet). "
        f"Paragraphs are split into sentences; duplicates are dropped. Up to {limit} MB.",
    )
    if f is None:
        kept = st.session_state.get(_W["corpus"])
        if kept in st.session_state.get("_uploads", {}):  # the upload chosen in the picker, kept in the cache
            return str(kept)
        st.info(f"Upload a file (up to {limit} MB) to compare embedders on it.")
        return ""
    column = None
    try:
        check_upload_size(f.name, f.size)  # the browser checks too, but a crafted request can skip it
        raw = f.getvalue()
        if not raw:
            st.error(f"'{escape_markup(f.name)}' is empty.")
            return None
        cols = list_columns(f.name, raw)
        if cols:
            candidates = text_columns(f.name, raw)
            column = st.selectbox(
                "Text column",
                cols,
                index=cols.index(candidates[0]) if candidates else 0,
                key=f"w_col_{hashlib.sha1(f.name.encode()).hexdigest()[:6]}",
            )
        spec = _parse_upload(f.name, hashlib.sha256(raw).hexdigest(), raw, column)
    except Exception as e:  # noqa: BLE001 - shown in place
        st.error(escape_markup(message(e, "Reading the file")))
        return None
    st.session_state.setdefault("_uploads", {})[spec] = upload_name(n2o_runs.cache(), spec) or f.name
    st.session_state[_LIVE] = spec
    if st.session_state.get(_W["corpus"]) != spec:  # the picker names the file (the uploader stays below it)
        st.session_state[_PICK] = spec
        st.rerun()
    return spec


def draw() -> tuple[Settings, Corpus | None]:
    """Draw the sidebar; return the settings and the loaded corpus (None when it cannot be used)."""
    defaults = env_defaults()
    infos = _embedder_infos()
    order = list(infos)  # the registry's display order (Table 1 style); user embedders last
    known = sorted(infos, key=lambda e: (infos[e].family == "user", order.index(e)))
    _seed_from_url(defaults, known)
    for note in st.session_state.get("_notes", []):
        st.sidebar.warning(escape_markup(note))  # notes quote the link's values: text, never markdown
    choice, spec, text_column = _corpus_picker(defaults)
    cap_slot = st.sidebar.container()  # filled once the corpus's size is known
    _keep_cap(defaults)
    corpus = _load_corpus(choice, spec, text_column) if spec is not None else None
    if corpus is not None:
        st.session_state[_SHOWN] = (choice, spec, text_column)
    with cap_slot:
        _cap_picker(corpus)
    train_with = _train_with(corpus, spec)
    if train_with and corpus is not None and spec is not None:
        corpus = _load_corpus(choice, spec, text_column, train_with, caption=False)
    _embedder_picker(infos, corpus)
    _neighbor_controls(defaults, corpus)
    _advanced(corpus)
    if n2o_runs.failures() and st.sidebar.button("Retry failed embedders"):
        n2o_runs.clear_failures()
        st.rerun()
    s = _settings(spec, text_column, train_with)
    _sync_url(s)
    return s, corpus


def _embedder_infos() -> dict[str, EmbedderInfo]:
    """The embedders this server offers (none, with the error shown, when listing them fails)."""
    try:
        return n2o_runs.embedder_infos()
    except Exception as e:  # noqa: BLE001
        st.sidebar.error(escape_markup(message(e, "Listing the embedders")))
        return {}


def _corpus_picker(defaults: Settings) -> tuple[str, str | None, str]:
    """The corpus choice: (the picker's value, the corpus spec or None while none is usable, the text column)."""
    sb = st.sidebar
    builtins = _builtins()
    options = list(builtins)
    if defaults.corpus not in options:
        options.insert(0, defaults.corpus)
    uploads: dict[str, str] = st.session_state.get("_uploads", {})
    options += [u for u in uploads if u not in options]
    if not server_mode.shared() or server_mode.hub_allowed() or model_dirs():  # else no dataset could load
        options.append(hf_dataset.HF)
    options.append(UPLOAD)
    if _PICK in st.session_state:
        st.session_state[_W["corpus"]] = st.session_state.pop(_PICK)
    if st.session_state.get(_W["corpus"]) not in options:
        st.session_state[_W["corpus"]] = defaults.corpus

    def label(spec: str) -> str:
        if spec == UPLOAD:
            return "Upload a file…"
        if spec == hf_dataset.HF:
            return "Hugging Face dataset…"
        if spec in uploads:
            return f"Uploaded: {uploads[spec]}"
        return builtins.get(spec, spec)

    choice = sb.selectbox("Corpus", options, format_func=label, key=_W["corpus"])
    spec: str | None = choice
    text_column = ""
    if choice == UPLOAD or choice == st.session_state.get(_LIVE):
        with sb:
            spec = _upload_widget()
    elif choice == hf_dataset.HF:
        with sb:
            spec, text_column = hf_dataset.hf_inputs()
    pending = spec == "" or (choice == hf_dataset.HF and spec is None)  # no file or dataset name given yet
    if pending and _SHOWN in st.session_state:
        # the pages keep the corpus shown so far (and their controls keep their state) until one is given
        shown_choice, shown_spec, shown_column = st.session_state[_SHOWN]
        sb.caption(f"Until then the pages show **{escape_markup(label(shown_spec))}**.")
        return shown_choice, shown_spec, shown_column
    return choice, spec or None, text_column


def _keep_cap(defaults: Settings) -> None:
    """The sample size survives runs in which its picker is not drawn (a corpus smaller than any sample)."""
    want = st.session_state.get(_W["max_sentences"], st.session_state.get("_want_cap", defaults.max_sentences))
    st.session_state["_want_cap"] = st.session_state[_W["max_sentences"]] = int(want)


def _full_size(corpus: Corpus) -> int:
    """How many sentences the corpus has before any sample is drawn."""
    return len(corpus.training_texts) if corpus.training_texts is not None else len(corpus)


def _cap_picker(corpus: Corpus | None) -> None:
    """The sample size, only when it can matter: a corpus with more sentences than the smallest sample (the URL
    may name a size outside the usual choices: it joins them)."""
    cap = int(st.session_state[_W["max_sentences"]])
    if corpus is not None and _full_size(corpus) <= min(min(MAX_SENTENCES_CHOICES), cap):
        return
    caps = list(MAX_SENTENCES_CHOICES)
    if cap not in caps:
        caps = sorted(set(caps) | {cap})
    st.selectbox(
        "Sentences (fixed sample)",
        caps,
        key=_W["max_sentences"],
        format_func=lambda v: f"{v:,}",
        help="A fixed, topic-stratified sample of the corpus keeps a cold start short. Corpus-trained "
        "embedders (tf-idf, fastText) are still trained on the whole built-in corpus.",
    )


def _load_corpus(choice: str, spec: str, text_column: str, train_with: str = "", caption: bool = True) -> Corpus | None:
    """Load the chosen corpus (its trained embedders also trained on the built-in `train_with`) and say its size
    under the picker; None (with the error shown) when it fails."""
    sb = st.sidebar
    try:
        cap = int(st.session_state[_W["max_sentences"]])
        if choice == hf_dataset.HF:
            refused = dataset_link_refusal(spec, typed=(spec,))  # $N2O_MODEL_DIRS limits local folders
            if refused:
                raise CorpusError(refused[0].upper() + refused[1:] + ".")
            corpus = hf_dataset.hf_corpus(spec, text_column, cap)
            user_embedders.typed_specs()[spec] = True
            if train_with:
                corpus = n2o_runs.trained_with(corpus, train_with)
        else:
            corpus = n2o_runs.corpus(spec, cap, train_with=train_with)
        if caption:
            _size_caption(corpus)
        check_corpus_size(len(corpus))
    except Exception as e:  # noqa: BLE001
        sb.error(escape_markup(message(e, "Loading the corpus")))
        return None
    return corpus


def _size_caption(corpus: Corpus) -> None:
    """The corpus's size under the picker (and the full corpus's, for a sample)."""
    if corpus.training_texts is not None and len(corpus.training_texts) != len(corpus):
        st.sidebar.caption(
            f"{len(corpus):,}-sentence sample of {len(corpus.training_texts):,} "
            f"({_duplicates(corpus.n_duplicates)} removed from the full corpus)"
        )
    else:
        st.sidebar.caption(f"{len(corpus):,} sentences · {_duplicates(corpus.n_duplicates)} removed")


def _embedder_picker(infos: dict[str, EmbedderInfo], corpus: Corpus | None) -> None:
    """The embedders, grouped by family, the user's own ones in their family, with the colour legend."""
    sb = st.sidebar
    all_infos, left_out = user_embedders.infos(infos, corpus, scheduler())
    known = embedder_picker.picker_order(list(all_infos), all_infos)
    chosen = st.session_state.get(_W["embedders"], [])
    for eid in chosen:
        if eid in left_out:
            sb.warning(f"**{escape_markup(eid)}** is left out: {escape_markup(left_out[eid])}.")
    st.session_state[_W["embedders"]] = [e for e in chosen if e in all_infos]
    sb.multiselect(
        "Embedders",
        known,
        key=_W["embedders"],
        format_func=lambda e: embedder_picker.picker_label(e, all_infos.get(e)),
        help="Grouped by family: tf-idf, static averages of word vectors, subword (fastText with character "
        "n-grams), distilled static (model2vec), transformers, then your vectors; the marks match the colours of "
        "every figure. Add your own models or vectors under Advanced.",
    )
    groups = [all_infos[e].family_group for e in st.session_state[_W["embedders"]] if e in all_infos]
    if groups:
        sb.markdown(embedder_picker.legend(groups) + embedder_picker.CHIP_CSS, unsafe_allow_html=True)


def _kept(field: str, hi: int, default: int) -> tuple[int, int]:
    """A number widget whose range depends on the corpus: (the value the user asked for, the value shown).

    The asked value lives outside the widget's key (`_want_<field>`), so a corpus too small for it lowers only
    what is shown, and a larger corpus brings it back; the widget's own state would otherwise be reset to its
    minimum whenever its range changes."""
    want_key = f"_want_{field}"
    if want_key not in st.session_state:
        st.session_state[want_key] = int(st.session_state.get(_W[field], default))
    want = int(st.session_state[want_key])
    shown = max(1, min(want, hi))
    st.session_state[_W[field]] = shown
    return want, shown


def _remember(field: str) -> None:
    """on_change of a range-dependent widget: the user's choice becomes the asked value."""
    st.session_state[f"_want_{field}"] = int(st.session_state[_W[field]])
    if field == "k":
        st.session_state["_k_chosen"] = True


def _k_slider(defaults: Settings, n: int | None) -> None:
    """k, capped by what the corpus allows (a k above the cap is lowered for this corpus, with a note; the
    asked k comes back with a corpus large enough for it). A k nobody chose (the default) is also kept within
    K_SHARE_MAX of the N − 1 candidates, with a note; a chosen one above that share gets a warning."""
    sb = st.sidebar
    k_max = k_max_for(n) if n else k_max_for(10**9)
    share_cap = k_share_cap(n) if n else k_max
    chosen = bool(st.session_state.get("_k_chosen"))
    hi = k_max if chosen else min(k_max, share_cap)
    want, shown = _kept("k", hi, defaults.k)
    if want > shown and shown == k_max:
        sb.warning(f"k = {want} is above what this corpus allows ({k_max} = min({K_MAX}, N − 1)); using k = {k_max}.")
    elif want > shown and n:
        share = chance_level(want, n)  # k's share of the N − 1 candidates is the chance level
        sb.info(
            f"k lowered from {want} to {shown} for this {n:,}-sentence corpus: k = {want} would be "
            f"{share:.0%} of the {n - 1:,} other sentences (chance alone {share:.2f}); the default "
            f"keeps k within {K_SHARE_MAX:.0%}. Choose k to override."
        )
    elif n and shown > share_cap:
        share = chance_level(shown, n)
        sb.warning(
            f"k = {shown} is {share:.0%} of the {n - 1:,} other sentences: random neighbors would share "
            f"{share:.2f} of them (chance). k ≤ {share_cap} keeps it within {K_SHARE_MAX:.0%}."
        )
    if k_max > 1:
        sb.slider(
            "k (neighbors per query)",
            1,
            k_max,
            key=_W["k"],
            on_change=_remember,
            args=("k",),
            help=f"Neighbors are searched once at k = {k_max}; changing k only slices cached results.",
        )


def _neighbor_controls(defaults: Settings, corpus: Corpus | None) -> None:
    """k, queries, samples, seed, the search, z-normalization and the heatmap order."""
    sb = st.sidebar
    n = len(corpus) if corpus is not None else None
    _k_slider(defaults, n)
    q_hi = max(1, n or 100_000)
    want, shown = _kept("n_queries", q_hi, defaults.n_queries)
    c1, c2 = sb.columns(2)
    c1.number_input(
        "Queries",
        1,
        q_hi,
        key=_W["n_queries"],
        step=50,
        on_change=_remember,
        args=("n_queries",),
        help=None if want <= shown else f"{want:,} asked; this corpus has {q_hi:,} sentences.",
    )
    c2.number_input("Samples", 1, 100, key=_W["n_samples"], step=1)
    c1.number_input("Seed", 0, 2**31 - 1, key=_W["seed"], step=1)
    c2.radio(
        "Search",
        ["exact", "approximate"],
        key=_W["approx"],
        help="Approximate search (pynndescent) reports its recall@k against exact search.",
    )
    sb.toggle(
        "z-normalize dimensions",
        key=_W["znorm"],
        help="Standardize each dimension over the corpus before cosine (changes rankings; Eger et al.).",
    )
    sb.radio(
        "Heatmap order",
        ["cluster", "chosen"],
        key=_W["order"],
        horizontal=True,
        format_func=lambda o: "clustered" if o == "cluster" else "as chosen",
    )


def _znorm_on() -> None:
    st.session_state[_W["znorm"]] = True


def znorm_button(key: str) -> None:
    """A button that turns on the sidebar's z-normalization switch (for a page that says what it would change);
    nothing when it is on already."""
    if not st.session_state.get(_W["znorm"]):
        st.button("z-normalize (the sidebar switch)", key=key, on_click=_znorm_on, icon=":material/tune:")


def _advanced(corpus: Corpus | None) -> None:
    """The Advanced expander: the user's own embedders, talk mode and the Dask scheduler."""
    with st.sidebar.expander("Advanced", expanded=bool(st.session_state.get("_own_msg"))):
        user_embedders.advanced(corpus, scheduler())
        st.toggle(
            "Talk mode",
            key="w_talk",
            on_change=_talk_changed,
            help="No sidebar and no widgets, larger text and figures; the link keeps every choice (talk=1), so a "
            "prepared link opens straight onto this view. Remove talk=1 from the link (or use the faint "
            "link at the bottom right) to get the controls back.",
        )
        _dask_control()


def _dask_control() -> None:
    """The Dask scheduler field (a personal server); on a shared server only a switch for the operator's
    scheduler (N2O_DASK_SCHEDULER), and nothing when there is none: a visitor never names a host."""
    if not server_mode.shared():
        st.text_input(
            "Dask scheduler",
            key="w_scheduler",
            placeholder="tcp://host:8786",
            help="Encode corpus shards and search neighbors on a Dask cluster's workers. Same results, "
            "same cache. Empty: this server's process. Not stored in the link.",
        )
    elif server_mode.operator_scheduler():
        st.toggle(
            "Compute on the server's Dask cluster",
            value=True,
            key="w_use_cluster",
            help="Embedding and neighbor search run on the cluster this server's operator set up. Same results.",
        )


def scheduler() -> str:
    """The Dask scheduler this session uses: the typed one on a personal server; on a shared server the
    operator's (when the visitor keeps it on) or none."""
    if not server_mode.shared():
        return str(st.session_state.get("w_scheduler") or "").strip()
    address = server_mode.operator_scheduler()
    return address if address and st.session_state.get("w_use_cluster", True) else ""


def _train_with(corpus: Corpus | None, spec: str | None) -> str:
    """The built-in corpus the corpus-trained embedders are also trained on ("" = the corpus alone): a switch
    offered when they would be fit on fewer sentences than they need (`face_value.TRAINED_NOISE_BELOW`)."""
    if corpus is None or spec is None or spec == f"builtin:{TRAIN_WITH}":
        return ""
    fit = len(corpus.fit_texts)
    need = max((s.sentences for s in TRAINED_NOISE_BELOW.values()), default=0)
    if fit > need:
        return ""
    on = st.sidebar.toggle(
        "Train word2vec / fastText with BBC News",
        key="w_train",
        help=f"word2vec and fastText are trained on the corpus itself ({fit:,} sentences here); below "
        f"{need:,} sentences their neighbors are mostly noise (measured: benchmarks/results/small_corpus_noise.txt). "
        "On: they (and tf-idf) are trained on the built-in BBC News corpus (38,019 sentences) plus these "
        "sentences, and compared on these sentences only. Each model trains once on those ~38,000 sentences "
        "(tens of seconds), then comes from the cache.",
    )
    return TRAIN_WITH if on else ""


def _settings(spec: str | None, text_column: str, train_with: str = "") -> Settings:
    """The settings the widgets now hold."""
    return Settings(
        corpus=spec or "",
        max_sentences=int(st.session_state[_W["max_sentences"]]),
        embedders=tuple(st.session_state[_W["embedders"]]),
        k=int(st.session_state[_W["k"]]),
        n_queries=int(st.session_state[_W["n_queries"]]),
        n_samples=int(st.session_state[_W["n_samples"]]),
        seed=int(st.session_state[_W["seed"]]),
        approx=st.session_state[_W["approx"]] == "approximate",
        znorm=bool(st.session_state[_W["znorm"]]),
        order=st.session_state[_W["order"]],
        text_column=text_column,
        train_with=train_with,
        scheduler=scheduler(),
    )


def _talk_changed() -> None:
    """Callback of the talk-mode toggle: the flag lives in the link (talk=1)."""
    if st.session_state.get("w_talk"):
        st.query_params["talk"] = "1"
    else:
        st.query_params.pop("talk", None)


def _sync_url(s: Settings) -> None:
    """Rewrite the shared part of the URL (page-specific parameters are left alone)."""
    want = to_query(s) if s.corpus else {k: v for k, v in to_query(s).items() if k != "corpus"}
    if "col" not in want and s.corpus:
        st.query_params.pop("col", None)
    if "train" not in want:
        st.query_params.pop("train", None)
    for key, val in want.items():
        if st.query_params.get(key) != val:
            st.query_params[key] = val
