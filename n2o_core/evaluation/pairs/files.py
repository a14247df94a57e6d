"""Local pair files: the STS Benchmark's headerless layout, a headered .tsv/.csv/.txt, .jsonl, .parquet, or Heros
pairs (see the package docstring); their columns, for a column picker."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.evaluation.pairs.frame import STSB_COLUMNS, Pairs, PairSource, column_key, pairs_from_records
from n2o_core.storage.fileio import json_objects

_S1 = ("sentence1", "sentence_1", "sentence_a", "sentencea", "s1", "text1", "text_1", "text_a", "query", "anchor")
_S2 = ("sentence2", "sentence_2", "sentence_b", "sentenceb", "s2", "text2", "text_2", "text_b", "paraphrase")
_SCORE = ("score", "similarity_score", "similarity", "relatedness_score", "gold_score", "gold", "sim")
_GENRE = ("genre", "domain")


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _decode(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise N2OError(f"Pairs file '{path}' cannot be read: {exc.strerror or exc}.") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise N2OError(
            f"Pairs file '{path.name}' is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8."
        ) from None


def _pick(header: Sequence[str], given: str | None, aliases: Sequence[str], what: str, source: str) -> int | None:
    sq = [column_key(h) for h in header]
    if given is not None:
        if column_key(given) not in sq:
            raise N2OError(f"'{source}' has no column '{given}' (columns: {', '.join(map(str, header))}).")
        return sq.index(column_key(given))
    for a in aliases:
        if a in sq:
            return sq.index(a)
    return None


def _from_table(
    header: Sequence[Any],
    rows: Sequence[Sequence[Any]],
    source: PairSource,
    *,
    columns: dict[str, str | None],
    scale: float | None,
    lines: Sequence[int] | None = None,
) -> Pairs:
    header = [str(h) for h in header]
    i1 = _pick(header, columns.get("sentence1"), _S1, "sentence1", source.spec)
    i2 = _pick(header, columns.get("sentence2"), _S2, "sentence2", source.spec)
    isc = _pick(header, columns.get("score"), _SCORE, "score", source.spec)
    ig = _pick(header, columns.get("genre"), _GENRE, "genre", source.spec)
    cols = ", ".join(header)
    if i1 is None or i2 is None:
        raise N2OError(
            f"'{source.spec}' has no sentence1/sentence2 columns (columns: {cols}); name them with "
            "--sentence1-column and --sentence2-column."
        )
    if isc is None:
        raise N2OError(
            f"'{source.spec}' has no score column (looked for {', '.join(_SCORE[:4])}; columns: {cols}); "
            "name it with --score-column."
        )
    width = len(header)
    rows = [list(r) + [None] * (width - len(r)) for r in rows]
    return pairs_from_records(
        [r[i1] for r in rows],
        [r[i2] for r in rows],
        [r[isc] for r in rows],
        [r[ig] for r in rows] if ig is not None else None,
        source,
        scale=scale,
        lines=lines,
    )


def _stsb_first_line(text: str) -> bool:
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    f = first.split("\t")
    return len(f) >= 7 and _is_number(f[4])


def _read_stsb(path: Path, text: str, scale: float | None) -> Pairs:
    """The STS Benchmark layout: tab-split with quoting off, first 7 fields of each line."""
    s1, s2, sc, genres, lines = [], [], [], [], []
    extra = 0
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        f = line.rstrip("\r").split("\t")
        if len(f) < 7:
            raise N2OError(
                f"'{path.name}', line {n} has {len(f)} tab-separated fields; the STS Benchmark layout needs 7 "
                f"({', '.join(STSB_COLUMNS)})."
            )
        extra += len(f) > 7
        genres.append(f[0])
        sc.append(f[4])
        s1.append(f[5])
        s2.append(f[6])
        lines.append(n)
    notes: tuple[str, ...] = ("STS Benchmark layout: tab-split with quoting off, first 7 fields per line",)
    if extra:
        notes += (f"{extra} lines had extra trailing fields (ignored)",)
    src = PairSource(str(path), "sts-b", f"STS Benchmark file {path.name}", notes=notes)
    return pairs_from_records(s1, s2, sc, genres, src, scale=scale, lines=lines)


def _heros_header(header: Sequence[str]) -> bool:
    from n2o_core.evaluation.heros.subsets import canonical_subset

    return any(canonical_subset(h) is not None for h in header) or "subset" in [column_key(h) for h in header]


def heros_file_pairs(path: str) -> Pairs:
    """Heros pairs (original, variant): no score, the subset as the genre."""
    from n2o_core.evaluation.heros.load import load_heros

    df = load_heros(path)
    name = Path(path).name
    src = PairSource(
        path,
        "heros",
        f"Heros-format pairs from {name} (original -> variant; no similarity scores)",
        scored=False,
        score_scale=None,
        notes=("genre = the Heros subset (synonym, antonym, typo, ...)",),
    )
    return pairs_from_records(df["original"].tolist(), df["variant"].tolist(), None, df["subset"].tolist(), src)


def _read_jsonl(p: Path, text: str, src: PairSource, columns: dict[str, str | None], scale: float | None) -> Pairs:
    """A .jsonl pair file: one JSON object per line, the union of their keys as the header."""
    try:
        numbered = list(json_objects(text.splitlines()))
    except ValueError as exc:
        raise N2OError(f"'{p.name}', {exc}.") from None
    lines = [n for n, _ in numbered]
    recs = [obj for _, obj in numbered]
    if not recs:
        raise N2OError(f"Pairs file '{p.name}' has no pairs.")
    header = list(dict.fromkeys(k for r in recs for k in r))
    return _from_table(
        header, [[r.get(k) for k in header] for r in recs], src, columns=columns, scale=scale, lines=lines
    )


def read_pair_file(
    path: str | os.PathLike[str], *, columns: dict[str, str | None] | None = None, scale: float | None = None
) -> Pairs:
    """A local pair file: STS-B headerless layout, a headered .tsv/.csv/.txt, .jsonl, .parquet or Heros."""
    p = Path(path)
    if not p.is_file():
        raise N2OError(f"Pairs file '{p}' does not exist.")
    columns = columns or {}
    ext = p.suffix.lower()
    src = PairSource(str(p), "table", f"scored pairs from {p.name}")
    if ext == ".parquet":
        try:
            df = pd.read_parquet(p)
        except Exception as exc:  # noqa: BLE001 - pyarrow errors: one line
            raise N2OError(f"Pairs file '{p.name}' is not a readable Parquet file ({type(exc).__name__}).") from None
        return pairs_from_frame(df, src, columns, scale)
    text = _decode(p)
    if ext == ".jsonl":
        return _read_jsonl(p, text, src, columns, scale)
    if _stsb_first_line(text) and not any(columns.values()):
        return _read_stsb(p, text, scale)
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    delim = "\t" if ext in (".tsv", ".tab") or first.count("\t") > first.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    rows, lines = [], []
    for r in reader:
        if any(c.strip() for c in r):
            rows.append(r)
            lines.append(reader.line_num)
    if not rows:
        raise N2OError(f"Pairs file '{p.name}' is empty.")
    if _heros_header(rows[0]) and not any(columns.values()):
        return heros_file_pairs(str(p))
    if len(rows) < 2:
        raise N2OError(f"Pairs file '{p.name}' has a header but no pairs.")
    return _from_table(rows[0], rows[1:], src, columns=columns, scale=scale, lines=lines[1:])


def pair_file_columns(path: str | os.PathLike[str]) -> list[str]:
    """Column names of a pair file's header, for a column picker: [] for the STS Benchmark's headerless layout
    (read as is). Raises N2OError for an unreadable or non-UTF-8 file."""
    p = Path(path)
    if p.suffix.lower() == ".parquet":
        try:
            import pyarrow.parquet as pq

            return [str(c) for c in pq.read_schema(p).names]
        except Exception as exc:  # noqa: BLE001 - pyarrow errors: one line
            raise N2OError(f"Pairs file '{p.name}' is not a readable Parquet file ({type(exc).__name__}).") from None
    text = _decode(p)
    if p.suffix.lower() == ".jsonl":
        keys: dict[str, None] = {}
        for line in text.splitlines()[:1000]:
            try:
                obj = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                break  # the reader names the bad line
            if isinstance(obj, dict):
                keys.update(dict.fromkeys(map(str, obj)))
        return list(keys)
    if _stsb_first_line(text):
        return []
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    delim = "\t" if p.suffix.lower() in (".tsv", ".tab") or first.count("\t") > first.count(",") else ","
    return next(csv.reader(io.StringIO(first), delimiter=delim), [])


def guess_pair_columns(header: Sequence[str]) -> dict[str, str | None]:
    """The header's sentence1 / sentence2 / score / genre columns by their usual names (None where none fits)."""
    header = [str(h) for h in header]
    out: dict[str, str | None] = {}
    for role, aliases in (("sentence1", _S1), ("sentence2", _S2), ("score", _SCORE), ("genre", _GENRE)):
        i = _pick(header, None, aliases, role, "")
        out[role] = header[i] if i is not None else None
    return out


def pairs_from_frame(df: pd.DataFrame, src: PairSource, columns: dict[str, str | None], scale: float | None) -> Pairs:
    obj = df.astype(object).where(df.notna(), None)
    return _from_table(list(map(str, df.columns)), obj.to_numpy().tolist(), src, columns=columns, scale=scale)
