"""The pair-source picker shared by the evaluation pages: built-in or synthetic pairs, an uploaded scored pair file
(with its columns chosen here), or a Hugging Face dataset name. Only built-in and synthetic specs (or the bare
mode) go into the link: never a file or a dataset name."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import streamlit as st

from n2o_core.evaluation.pairs import SYNTHETIC_RULES, guess_pair_columns
from n2o_core.settings import NEEDLE_SYNTHETIC_SIZES, param_choice
from n2o_core.text import escape_markup

from . import evaluation_runs as ev
from .guard import message

MODES = {
    "synthetic": "Synthetic, made from the corpus",
    "builtin": "gensim's Lee judgments (built in)",
    "upload": "Upload a scored pair file",
    "hf": "Hugging Face dataset (online)",
}
RULES = {"heros-synonym": "one word → a synonym (vetted HEROS lexicon)", "heros-typo": "one word misspelled"}
AUTO = "(auto)"
_ROLES = ("sentence1", "sentence2", "score", "genre")
EXTENSIONS = ["tsv", "csv", "txt", "jsonl", "parquet"]


@dataclass
class PairChoice:
    """What the picker chose: a spec for `load_pairs` (None while nothing is chosen yet) and column names."""

    mode: str
    spec: str | None = None
    columns: dict[str, str | None] = field(default_factory=dict)


def _mode_of(value: str) -> str:
    if value.startswith("synthetic:"):
        return "synthetic"
    if value.startswith("builtin:"):
        return "builtin"
    return value


def choose(prefix: str, param: str, sources: tuple[str, ...], default: str) -> PairChoice:
    """Draw the picker (widget keys start with `prefix`), seeded once from the link's `param`, and keep the link
    in sync. `sources`: the values a link may hold (built-in / synthetic specs, "upload", "hf")."""
    mkey, rkey, nkey = f"w_{prefix}_mode", f"w_{prefix}_rule", f"w_{prefix}_size"
    modes = list(dict.fromkeys(_mode_of(s) for s in sources))
    kept = f"_{prefix}_kept"  # the choice, kept past a page switch (which drops widget state and the link's part)
    if mkey not in st.session_state:  # the link's value counts once; then the widgets decide
        if kept in st.session_state:
            value = st.session_state[kept]
        else:
            value, note = param_choice(st.query_params, param, list(sources), default)
            if note:
                st.warning(escape_markup(note))
        st.session_state[mkey] = _mode_of(value)
        if value.startswith("synthetic:"):
            _, rule, n = value.split(":")
            st.session_state[rkey], st.session_state[nkey] = rule, int(n)
    mode = st.radio("Pairs", modes, format_func=MODES.get, key=mkey, horizontal=True) or modes[0]
    st.session_state[kept] = mode
    if mode == "synthetic":
        c1, c2 = st.columns([3, 2])
        rule = c1.selectbox(
            "Rule",
            list(SYNTHETIC_RULES),
            format_func=lambda r: f"{r}: {RULES.get(r, r)}",
            key=rkey,
            help="HEROS' rules applied to corpus sentences (the sentence is the query, its edited copy the "
            "'paraphrase'). Offline stand-in for human paraphrases: NOT human paraphrases, and without scores.",
        )
        st.session_state.setdefault(nkey, 100)
        n = c2.select_slider("Pairs (at most)", list(NEEDLE_SYNTHETIC_SIZES), key=nkey)
        spec = f"synthetic:{rule}:{n}"
        st.query_params[param] = st.session_state[kept] = spec
        return PairChoice(mode, spec)
    if mode == "builtin":
        spec = next(s for s in sources if s.startswith("builtin:"))
        st.query_params[param] = st.session_state[kept] = spec
        return PairChoice(mode, spec)
    st.query_params[param] = mode  # the mode only: never a file or a dataset name
    if mode == "hf":
        name = st.text_input(
            "Dataset",
            key=f"w_{prefix}_hf",
            placeholder="hf:sentence-transformers/stsb@test",
            help="hf:NAME[:CONFIG][@SPLIT] with sentence1 / sentence2 / score columns (0–1 scores are rescaled to "
            "0–5). Needs the internet the first time; offline, download the data elsewhere and upload the file.",
        ).strip()
        if not name:
            st.info("Type a Hugging Face dataset name (needs the internet), or upload a pair file.")
            return PairChoice(mode)
        spec = name if name.startswith("hf:") else f"hf:{name}"
        with st.expander("Columns"):
            hf_cols = {
                r: (st.text_input(r, key=f"w_{prefix}_hfcol_{r}", placeholder=AUTO).strip() or None) for r in _ROLES
            }
        return PairChoice(mode, spec, hf_cols)
    up = st.file_uploader(
        "Scored pair file",
        type=EXTENSIONS,
        key=f"w_{prefix}_upload",
        help="Columns sentence1, sentence2 and score (TSV/CSV with a header, JSONL, Parquet; chosen below when "
        "named otherwise), the STS Benchmark's own headerless sts-*.csv (loads as is), or a Heros-format file "
        "(original + variant columns, no scores).",
    )
    if up is None:
        st.info("Upload a pair file: sentence1, sentence2 and a 0–5 (or 0–1) similarity score per line.")
        return PairChoice(mode)
    raw = up.getvalue()
    if not raw:
        st.warning(f"'{escape_markup(up.name)}' is empty.")
        return PairChoice(mode)
    path = ev.save_pair_upload(up.name, raw)
    try:
        header = ev.upload_columns(path)
    except Exception as e:  # noqa: BLE001 - shown in place
        st.warning(escape_markup(message(e, "Reading the pair file")))
        return PairChoice(mode)
    cols: dict[str, str | None] = {}
    if header:
        tag = hashlib.sha1(path.encode()).hexdigest()[:8]
        with st.expander("Columns", expanded=False):
            guess = guess_pair_columns(header)
            st.caption(
                escape_markup(f"Columns in {up.name}: {', '.join(header)}. (auto) picks them by their usual names: ")
                + escape_markup(", ".join(f"{r} → {guess[r] or 'none found'}" for r in _ROLES))
                + "."
            )
            cs = st.columns(len(_ROLES))
            for c, r in zip(cs, _ROLES):
                v = c.selectbox(r, [AUTO, *header], key=f"w_{prefix}_col_{r}_{tag}")
                cols[r] = None if v == AUTO else v
    else:
        st.caption(
            f"{escape_markup(up.name)}: the STS Benchmark layout (genre, file, year, id, score, sentence1, sentence2)."
        )
    return PairChoice(mode, path, cols)
