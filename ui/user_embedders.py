"""The user's own embedders in the sidebar: a model spec typed under Advanced (`st:`, `hf:…@pooling`, `wv:`, local
folders, a variant `ID@…`) and vectors uploaded as .npy/.npz/.parquet, which of them a link may name, and their
registry rows for the picker (`embedder_picker` orders and labels it; `hf_dataset` is a dataset as the corpus).

Each is checked before any work and refused with one sentence in place; the other embedders keep working.
What a link may name follows `n2o_core.embedders.user` (model names always; server paths only when they were
typed on this server process or lie under $N2O_MODEL_DIRS; uploaded vectors by their cache id, with the corpus
they were uploaded for). Uploaded vectors are kept in the cache and added to the corpus's shared Workspace under
a content-addressed id (`vec:<label>-<digest>`), so sessions sharing that Workspace can never mix two files up.
"""

from __future__ import annotations

import logging

import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.corpora.uploads import check_upload_size
from n2o_core.embedders import user as ue
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.errors import N2OError
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.server_mode import upload_limit_mb
from n2o_core.text import escape_markup

from . import n2o_runs
from .guard import message

log = logging.getLogger("n2o")

_OWN = "_own"  # session: ids of the user's embedders (specs and vectors), in the order added
_MSG = "_own_msg"  # session: (kind, text) shown under the Advanced controls after an add


#: Specs remembered as typed on this server (the least recently added or linked forgotten first).
MAX_TYPED_SPECS = 1024


@st.cache_resource(show_spinner=False)
def typed_specs() -> LRU[str, bool]:
    """Model specs and dataset specs added in the app on this server process (a link may name them later): the
    keys of a bounded memo (`typed_specs()[spec] = True` adds one)."""
    return LRU(MAX_TYPED_SPECS)


def own_ids() -> list[str]:
    """The user's embedders in this session."""
    return st.session_state.setdefault(_OWN, [])


def _select(eid: str) -> None:
    ids = own_ids()
    if eid not in ids:
        ids.append(eid)
    chosen = list(st.session_state.get("w_emb", []))
    if eid not in chosen:
        st.session_state["w_emb"] = [*chosen, eid]


# --------------------------------------------------------------------------- what a link may name


def link_refusal(eid: str) -> str | None:
    """`settings.from_query`'s check for an embedder a link names (None: allowed)."""
    if eid.startswith(ue.VECTOR_PREFIX):
        if not ue.is_vectors_id(eid):
            return "it is not the id of uploaded vectors"
        if ue.vectors_file(n2o_runs.cache(), eid) is None:
            return "these uploaded vectors are no longer on this server; upload the file again"
        return None
    if eid.startswith("npy:"):
        return "vectors are uploaded under Advanced, never named by a server path"
    return ue.link_refusal(eid, typed_specs())


def adopt(eids: list[str]) -> None:
    """User embedders and variants a link named (already allowed by `link_refusal`) join this session's list."""
    ids = own_ids()
    ids.extend(
        e for e in eids if (e.startswith(("st:", "hf:", "wv:", ue.VECTOR_PREFIX)) or variant_id(e)) and e not in ids
    )


def variant_id(eid: str) -> bool:
    """Whether `eid` is a well-formed variant id (`minilm-l6-mean@binary`, `n2o_core.variants.spec`)."""
    from n2o_core.variants.spec import parse_variant

    try:
        return "@" in eid and parse_variant(eid).is_variant
    except N2OError:
        return False


# --------------------------------------------------------------------------- the picker


def infos(builtin: dict[str, EmbedderInfo], corpus: Corpus | None, scheduler: str) -> tuple[dict, dict[str, str]]:
    """Registry rows of the built-ins and of this session's own embedders usable with `corpus` (vectors are
    attached to the corpus's Workspace here), and why the others are left out (id -> sentence)."""
    from n2o_core.embedders.registry import list_embedders

    out = dict(builtin)
    loaded = {i.id: i for i in list_embedders(include_user=True)}
    left_out: dict[str, str] = {}
    for eid in own_ids():
        if eid.startswith(ue.VECTOR_PREFIX):
            if corpus is None:
                continue
            why = _attach(eid, corpus, scheduler)
            if why:
                left_out[eid] = why
                continue
            ws = n2o_runs.workspace(corpus.fingerprint, corpus, scheduler)
            out[eid] = ws.info(eid)
        elif variant_id(eid) and corpus is not None:
            try:
                out[eid] = n2o_runs.workspace(corpus.fingerprint, corpus, scheduler).info(eid)
            except Exception as e:  # noqa: BLE001 - one sentence in place; the others keep working
                left_out[eid] = message(e, eid)
        else:
            out[eid] = loaded.get(eid) or EmbedderInfo(
                eid, "user", "", None, "not loaded yet", default=False, family_group=ue.family_group_of(eid)
            )
    return out, left_out


def _attach(eid: str, corpus: Corpus, scheduler: str) -> str | None:
    """Add uploaded vectors to the corpus's shared Workspace; why they cannot be used with it, else None."""
    cache = n2o_runs.cache()
    path = ue.vectors_file(cache, eid)
    if path is None:
        return "these uploaded vectors are no longer on this server; upload the file again"
    if ue.vectors_corpus(cache, eid) != corpus.fingerprint:
        return "they were uploaded for another corpus (or another number of sentences)"
    ws = n2o_runs.workspace(corpus.fingerprint, corpus, scheduler)
    if not ws.is_precomputed(eid):
        try:
            ws.add_vectors(eid, path)
        except N2OError as e:
            return str(e)
    return None


# --------------------------------------------------------------------------- Advanced: add a model, upload vectors


def _add_spec() -> None:
    """Callback of 'Add model': check the spec, load the model (nothing is embedded yet), select it."""
    raw = str(st.session_state.get("w_own_spec") or "")
    if variant_id(raw.strip()):
        _add_variant(raw.strip())
        return
    why = ue.typed_refusal(raw)
    if why:
        st.session_state[_MSG] = ("error", why)
        return
    spec = ue.parse_spec(raw)
    from n2o_core.embedders.registry import get_embedder

    try:
        emb = get_embedder(spec, cache_dir=n2o_runs.cache().path("models"))
    except Exception as e:  # noqa: BLE001 - one sentence in place; the others keep working
        st.session_state[_MSG] = ("error", message(e, f"Loading '{spec}'"))
        return
    typed_specs()[spec] = True
    _select(spec)
    dim = f"{emb.info.dim}-d" if emb.info.dim else "dimension unknown"
    st.session_state[_MSG] = ("success", f"Added {spec} ({emb.info.composition or 'pooling n/a'}, {dim}).")
    st.session_state["w_own_spec"] = ""


def _add_variant(eid: str) -> None:
    """'Add model' with a variant id (`minilm-l6-mean@binary`, `st:NAME@layer=3`): its base must be a built-in,
    one of this session's own embedders, or a model spec this server allows; checked on the corpus shown."""
    from n2o_core.embedders.registry import BUILTIN_EMBEDDER_IDS
    from n2o_core.variants.spec import parse_variant

    v = parse_variant(eid)
    corpus: Corpus | None = st.session_state.get("_own_corpus")
    if v.base not in BUILTIN_EMBEDDER_IDS and v.base not in own_ids():
        why = ue.typed_refusal(v.base)
        if why:
            st.session_state[_MSG] = ("error", why)
            return
    if corpus is None:
        st.session_state[_MSG] = ("error", "Choose a usable corpus first: a variant is fitted on its sentences.")
        return
    try:
        info = n2o_runs.workspace(corpus.fingerprint, corpus, st.session_state.get("_own_scheduler", "")).info(v.id)
    except Exception as e:  # noqa: BLE001 - one sentence in place; the others keep working
        st.session_state[_MSG] = ("error", message(e, f"Adding '{eid}'"))
        return
    if v.base.startswith(("st:", "hf:", "wv:")):
        typed_specs()[v.base] = True
    _select(v.id)
    st.session_state[_MSG] = ("success", f"Added {v.id}: {info.data}.")
    st.session_state["w_own_spec"] = ""


def _add_vectors() -> None:
    """Callback of the vectors upload: read and check the file against the corpus shown, keep it, select it."""
    f = st.session_state.get("w_own_vectors")
    if f is None:
        return
    corpus: Corpus | None = st.session_state.get("_own_corpus")
    if corpus is None:
        st.session_state[_MSG] = ("error", "Choose a usable corpus first: the vectors must have one row per sentence.")
        return
    try:
        check_upload_size(f.name, f.size)  # the browser checks too, but a crafted request can skip it
        arr = ue.read_vectors(f.name, f.getvalue())
        eid = ue.save_vectors(n2o_runs.cache(), f.name, arr, corpus.fingerprint, len(corpus))
    except Exception as e:  # noqa: BLE001
        st.session_state[_MSG] = ("error", message(e, f"Reading {f.name}"))
        return
    _select(eid)
    st.session_state[_MSG] = ("success", f"Added {eid}: {arr.shape[0]:,} × {arr.shape[1]} vectors.")


def advanced(corpus: Corpus | None, scheduler: str = "") -> None:
    """The Advanced controls for the user's own embedders (drawn inside the sidebar's Advanced expander);
    `scheduler`: the session's Dask scheduler (the workspace a variant is checked in)."""
    st.session_state["_own_corpus"] = corpus
    st.session_state["_own_scheduler"] = scheduler
    st.text_input(
        "Add a model",
        key="w_own_spec",
        placeholder="st:/path/to/model · hf:NAME@mean · wv:FILE · minilm-l6-mean@binary",
        help="st:NAME_OR_FOLDER (sentence-transformers, its own pooling), hf:NAME_OR_FOLDER@cls|mean|max|last "
        "(any Hugging Face encoder), wv:FILE[@nostop] (word2vec/GloVe/fastText vectors, averaged). "
        "A variant of any embedder: ID@layer=N, @pool=cls|mean|max, @dims=N, @pca=N, @int8, @binary, "
        "@binary@rescore=R, combined (minilm-l6-mean@layer=4@binary). "
        "Checked and loaded now; it joins every view once chosen.",
    )
    st.button("Add model", key="w_own_add", on_click=_add_spec)
    st.file_uploader(
        "Vectors (.npy, .npz, .parquet)",
        type=[e.lstrip(".") for e in ue.VECTOR_EXTENSIONS],
        key="w_own_vectors",
        on_change=_add_vectors,
        max_upload_size=upload_limit_mb(),
        help="One row per corpus sentence, in the corpus's order (download the sentences below); "
        "numbers only, no NaN. Kept in the server's cache for this corpus.",
    )
    msg = st.session_state.get(_MSG)
    if msg:
        (st.success if msg[0] == "success" else st.error)(escape_markup(msg[1]))
    if corpus is not None:
        st.download_button(
            f"The corpus's {len(corpus):,} sentences (.txt)",
            lambda: "\n".join(t.replace("\n", " ") for t in corpus.texts) + "\n",
            file_name=f"{corpus.name}-{len(corpus)}-sentences.txt",
            mime="text/plain",
            key="w_own_sentences",
            on_click="ignore",
            help="One sentence per line, in corpus order: embed these to make vectors for this corpus.",
        )
