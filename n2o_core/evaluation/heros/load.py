"""Load minimal pairs: the real Heros file (wide) or a user CSV/TSV (long), into one long table.

The Heros release (`dcml0714/Heros`, file `heros.tsv`) is wide: one row per original sentence, one
column per subset. Its README names the columns inconsistently ("6 columns: Original, Synonym,
Antonym, Negation, Random, Typo, Negation" lists seven, two of them a bare "Negation"). So headers
are matched leniently (case, spaces and punctuation ignored; aliases such as "Random MLM",
"Negation (Main)"), and two bare "Negation" columns are told apart by content: Negation (antonym)
changes the sentence where the Antonym column does, so the column whose first differing token sits
at the antonym's position more often is negation_antonym. Which rule decided is in `df.attrs`.

User files in long form need the columns original, variant and subset (aliases accepted).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.subsets import ALL_SUBSETS, canonical_subset, squash, subset_label

HEROS_REPO = "dcml0714/Heros"
HEROS_FILE = "heros.tsv"
LOADED_COLUMNS = ["subset", "original", "variant", "target"]

_ORIGINAL = {"original", "originals", "originalsentence", "sentence", "source", "sentence1", "text"}
_VARIANT = {"variant", "modified", "converted", "transformed", "sentence2", "pair", "minimalpair"}
_SUBSET = {"subset", "rule", "type", "category", "perturbation"}
_TARGET = {"target", "targetword", "word"}
_BARE_NEGATION = {"negation", "neg", "negated"}


def load_heros(path_or_name: str | os.PathLike[str] = HEROS_REPO) -> pd.DataFrame:
    """Pairs from a local Heros-style/user file, or from the Hugging Face dataset `owner/name`.

    Returns a DataFrame with columns subset, original, variant, target ("" when unknown).
    """
    p = Path(path_or_name)
    if p.is_file():
        return read_pairs_file(p)
    name = str(path_or_name)
    if name.count("/") == 1 and not p.suffix and not name.startswith((".", "/")):
        return _from_hub(name)
    raise N2OError(f"Pairs file '{name}' does not exist.")


def read_pairs_file(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a CSV/TSV of pairs (wide Heros layout or long original/variant/subset layout)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise N2OError(f"Pairs file '{p.name}' is not UTF-8 text.") from exc
    except OSError as exc:
        raise N2OError(f"Pairs file '{p}' cannot be read: {exc.strerror or exc}.") from exc
    first = text.split("\n", 1)[0]
    delim = "\t" if p.suffix.lower() in (".tsv", ".tab") or first.count("\t") > first.count(",") else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=delim))
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2:
        raise N2OError(f"Pairs file '{p.name}' has no data rows.")
    return pairs_from_table(rows[0], rows[1:], source=p.name)


def _from_hub(name: str) -> pd.DataFrame:
    """Download `heros.tsv` from a Hugging Face dataset repo (falls back to `datasets`)."""
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.utils import EntryNotFoundError

        try:
            local = hf_hub_download(repo_id=name, filename=HEROS_FILE, repo_type="dataset")
            return read_pairs_file(local)
        except EntryNotFoundError:
            from datasets import load_dataset

            ds = load_dataset(name, split="train")
            df = ds.to_pandas()
            return pairs_from_table(list(df.columns), df.astype(str).values.tolist(), source=name)
    except N2OError:
        raise
    except Exception as exc:  # noqa: BLE001 - network/offline/auth failures: one clear message
        raise N2OError(
            f"Cannot fetch the dataset '{name}' from the Hugging Face hub ({type(exc).__name__}); "
            f"download {HEROS_FILE} and pass its path instead."
        ) from exc


def _find(header_sq: Sequence[str], names: set[str]) -> int | None:
    return next((i for i, h in enumerate(header_sq) if h in names), None)


def pairs_from_table(header: Sequence[Any], rows: Sequence[Sequence[Any]], source: str = "table") -> pd.DataFrame:
    """Long pairs table from a header and rows in either layout."""
    hs = [squash(h) for h in header]
    width = len(hs)
    rows = [list(r) + [""] * (width - len(r)) for r in rows]
    io_, iv, isub = _find(hs, _ORIGINAL), _find(hs, _VARIANT), _find(hs, _SUBSET)
    if io_ is None:
        raise N2OError(f"'{source}' has no 'original' column (header: {', '.join(map(str, header))}).")
    if iv is not None and isub is not None:
        it = _find(hs, _TARGET)
        df = pd.DataFrame(
            {
                "subset": [subset_label(r[isub]) for r in rows],
                "original": [str(r[io_]).strip() for r in rows],
                "variant": [str(r[iv]).strip() for r in rows],
                "target": [str(r[it]).strip() if it is not None else "" for r in rows],
            }
        )
        df.attrs["layout"] = "long"
        return _clean(df, source)
    cols: dict[int, str] = {}
    for i, h in enumerate(header):
        canon = canonical_subset(h)
        if canon is not None and i != io_:
            cols[i] = canon
    bare = [i for i, h in enumerate(hs) if h in _BARE_NEGATION and i not in cols]
    how = _assign_bare_negation(bare, cols, rows, io_)
    if not cols:
        raise N2OError(
            f"'{source}' has no subset columns (expected e.g. {', '.join(ALL_SUBSETS)}; "
            f"header: {', '.join(map(str, header))})."
        )
    frames = [
        pd.DataFrame(
            {
                "subset": sub,
                "original": [str(r[io_]).strip() for r in rows],
                "variant": [str(r[i]).strip() for r in rows],
                "target": "",
            }
        )
        for i, sub in cols.items()
    ]
    df = pd.concat(frames, ignore_index=True)
    df.attrs["layout"] = "wide"
    df.attrs["columns"] = {str(header[i]) + f" (#{i})": sub for i, sub in cols.items()}
    if how:
        df.attrs["negation_columns"] = how
    return _clean(df, source)


def _first_diff(a: str, b: str) -> int:
    ta, tb = a.lower().split(), b.lower().split()
    k = 0
    while k < min(len(ta), len(tb)) and ta[k] == tb[k]:
        k += 1
    return k


def _assign_bare_negation(bare: list[int], cols: dict[int, str], rows: Sequence[Sequence[Any]], io_: int) -> str:
    """Map bare "Negation" columns to negation_main / negation_antonym; return how it was decided."""
    if not bare:
        return ""
    missing = [s for s in ("negation_main", "negation_antonym") if s not in cols.values()]
    if len(bare) == 1 or len(missing) < 2:
        for i, sub in zip(bare, missing):
            cols[i] = sub
        return "by elimination" if len(missing) < 2 else "single bare column read as negation_main"
    a, b = bare[0], bare[1]
    ant = next((i for i, s in cols.items() if s == "antonym"), None)
    if ant is None:
        cols[a], cols[b] = "negation_main", "negation_antonym"
        return "by column order (no antonym column to compare with)"
    hits = [0, 0]
    for r in rows:
        p_ant = _first_diff(str(r[io_]), str(r[ant]))
        for k, c in enumerate((a, b)):
            if abs(_first_diff(str(r[io_]), str(r[c])) - p_ant) <= 1:
                hits[k] += 1
    if hits[0] > hits[1]:
        cols[a], cols[b] = "negation_antonym", "negation_main"
    else:
        cols[a], cols[b] = "negation_main", "negation_antonym"
    return f"by content (rows negated at the antonym's position: {hits[0]} vs {hits[1]})"


def _clean(df: pd.DataFrame, source: str) -> pd.DataFrame:
    attrs = dict(df.attrs)
    bad = df["original"].isin(["", "nan", "None"]) | df["variant"].isin(["", "nan", "None"])
    df = df.loc[~bad].reset_index(drop=True)
    if df.empty:
        raise N2OError(f"'{source}' has no complete original/variant pairs.")
    out = df[LOADED_COLUMNS].copy()
    out.attrs.update(attrs)
    out.attrs["source"] = source
    return out
