"""User corpora: text / table files, uploaded bytes and Hugging Face datasets -> `Corpus`.

Rules (the same for a path, an upload and a dataset):
- Files must be UTF-8 (a BOM is allowed); a file with NUL bytes or invalid UTF-8 is refused.
- `.txt`: one sentence per line. Blank lines are dropped, so for a file with no blank and no duplicate
  lines, corpus id = line number - 1. Lines are whitespace-normalized.
- `.csv`, `.tsv`, `.jsonl` / `.ndjson` (one JSON object per line), `.parquet`: one sentence per row of
  the text column. With `text_column=None` the file must have exactly one text column.
- Segmentation (`segment=None`, the default, decides by itself): when at least 20% of the first
  2,000 non-blank lines / rows hold two or more sentences, entries are paragraphs and are split into
  sentences (`n2o_core.corpora.segment`); `segment=True` / `False` forces it. In a `.txt` paragraph file each line
  is a paragraph, unless the text is hard-wrapped (blank-line separated blocks of several lines each),
  in which case each block is a paragraph and its line breaks are spaces.
- Exact duplicates (after whitespace normalization) are dropped, first occurrence kept, and counted.
- Hostile content: control characters (Unicode category Cc: ESC, BEL, DEL, C1 codes; tab and line breaks are
  whitespace) are removed from every sentence, so no sentence can drive a terminal or break a table; format
  characters that text needs (zero-width joiners of emoji, right-to-left marks) are kept. A sentence longer
  than `MAX_SENTENCE_CHARS` after segmentation is refused with its position, rather than embedded and shown.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import re
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import n2o_core.corpora.segment as seg
from n2o_core.corpora.corpus import Corpus, from_texts, normalized_lines
from n2o_core.errors import CorpusError
from n2o_core.runtime.gcpause import paused_gc
from n2o_core.storage.fileio import json_objects

__all__ = ["MAX_SENTENCE_CHARS", "SUPPORTED_EXTENSIONS", "list_columns", "load_bytes", "load_file", "load_hf_dataset"]

#: The longest sentence accepted (characters, after segmentation): ~3,000 words, far beyond what any embedder
#: reads (transformers stop at 256-512 tokens) and what a neighbor table can show.
MAX_SENTENCE_CHARS = 20_000
# Cc characters that are not whitespace (tab, LF, VT, FF, CR, FS..US and NEL are; normalization turns them into
# spaces): NUL..BS, SO..ESC, DEL and the C1 codes except NEL
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")
#: every byte but _CONTROL's ASCII characters (deleted by bytes.translate, what is left is control characters)
_ALL_BUT_ASCII_CONTROL = bytes(sorted(set(range(256)) - {*range(0x00, 0x09), *range(0x0E, 0x1C), 0x7F}))

_TABLE_EXTENSIONS = (".csv", ".tsv", ".jsonl", ".ndjson", ".parquet")
SUPPORTED_EXTENSIONS: tuple[str, ...] = (".txt", *_TABLE_EXTENSIONS)


# ---------------------------------------------------------------------------------------------- helpers
def _extension(filename: str) -> str:
    ext = Path(filename).suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        shown = f"'{ext}'" if ext else "no extension"
        raise CorpusError(
            f"'{Path(filename).name}' has {shown}; supported file types are {', '.join(SUPPORTED_EXTENSIONS)}."
        )
    return ext


def _decode(label: str, data: bytes) -> str:
    """Strict UTF-8 (BOM allowed); binary data and other encodings raise CorpusError."""
    if b"\x00" in data:
        raise CorpusError(f"'{label}' is not UTF-8 text (it contains NUL bytes, so it looks like a binary file).")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CorpusError(
            f"'{label}' is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start} is invalid); "
            "save it as UTF-8 and try again."
        ) from None


def _lines(text: str) -> list[str]:
    """Physical lines (\\n, \\r\\n or \\r); unlike str.splitlines, form feeds etc. do not end a line."""
    return (text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text).split("\n")


def _is_hard_wrapped(lines: list[str]) -> bool:
    """Blank-line separated blocks that mostly span several lines (wrapped prose)."""
    sizes: list[int] = []
    run = 0
    for ln in lines:
        if ln.strip():
            run += 1
        elif run:
            sizes.append(run)
            run = 0
    if run:
        sizes.append(run)
    return len(sizes) > 1 and statistics.median(sizes) >= 2


def _sentences(
    entries: Sequence[str], labels: Sequence[str] | None, segment: bool | None
) -> tuple[list[str], list[str] | None]:
    """Entries as sentences, split into sentences when they are paragraphs (labels follow)."""
    if segment is None:
        segment = seg.looks_like_paragraphs(entries)
    if not segment:
        return list(entries), list(labels) if labels is not None else None
    texts: list[str] = []
    out_labels: list[str] | None = [] if labels is not None else None
    for i, sents in enumerate(seg.split_many(entries)):
        texts.extend(sents)
        if out_labels is not None:
            out_labels.extend([labels[i]] * len(sents))  # type: ignore[index]
    return texts, out_labels


def _has_control(text: str | bytes) -> bool:
    """Whether `text` (or ASCII bytes) holds a character of `_CONTROL` (ASCII: one bytes.translate, faster than
    the regex; measured: benchmarks/README.md, 'Measurements behind the code's choices')."""
    if isinstance(text, bytes):
        return bool(text.translate(None, _ALL_BUT_ASCII_CONTROL))
    if text.isascii():
        return _has_control(text.encode("ascii"))
    return _CONTROL.search(text) is not None


def _finish(
    texts: list[str],
    labels: list[str] | None,
    name: str,
    source: str,
    *,
    control: bool | None = None,
    normalized: bool = False,
) -> Corpus:
    """The corpus of `texts`: control characters removed (`control`: whether the texts hold any, when the caller
    already knows), too-long sentences refused, then `from_texts` (`normalized`: see `dedup`)."""
    if control is None:
        control = _has_control("\n".join(texts))  # one pass over the joined texts: most corpora have none
    if control:
        texts = [_CONTROL.sub("", t) for t in texts]
    if texts and max(map(len, texts)) <= MAX_SENTENCE_CHARS:  # nothing too long, even before normalization
        return from_texts(texts, name, source=source, labels=labels, normalized=normalized and not control)
    for i, t in enumerate(texts):
        if len(t) > MAX_SENTENCE_CHARS and len(t := " ".join(t.split())) > MAX_SENTENCE_CHARS:
            raise CorpusError(
                f"'{name}' holds a sentence of {len(t):,} characters (sentence {i + 1:,}, starting "
                f"\u201c{' '.join(t[:40].split())}\u2026\u201d); sentences are limited to {MAX_SENTENCE_CHARS:,} "
                "characters. Split the text into sentences or lines."
            )
    return from_texts(texts, name, source=source, labels=labels)


# ---------------------------------------------------------------------------------------------- .txt
def _from_txt(label: str, data: bytes, segment: bool | None, name: str, source: str) -> Corpus:
    text = _decode(label, data)
    control = _has_control(data if data.isascii() else text)  # the file's bytes, when ASCII: no second copy
    lines = _lines(text)
    # the first non-blank lines decide (looks_like_paragraphs reads at most 2 x its sample); the rest are only
    # gathered when the lines are paragraphs
    head = list(itertools.islice((ln for ln in lines if ln.strip()), 2 * seg.PARAGRAPH_SAMPLE))
    if not head:
        raise CorpusError(f"'{label}' is empty: it has no non-blank lines.")
    if segment is None:
        segment = seg.looks_like_paragraphs(head)
    if segment and _is_hard_wrapped(lines):
        texts = seg.split_sentences(text.replace("\r\n", "\n").replace("\r", "\n"))
        return _finish(texts, None, name, source, control=control)
    if not segment:  # one sentence per line: the lines as read (the file's bytes show whether they are normalized)
        return _finish(lines, None, name, source, control=control, normalized=normalized_lines(data))
    texts, _ = _sentences([ln for ln in lines if ln.strip()], None, segment)
    return _finish(texts, None, name, source, control=control)


# ---------------------------------------------------------------------------------------------- tables
def _read_table(label: str, ext: str, data: bytes):  # type: ignore[no-untyped-def]
    """A pandas DataFrame of the file; CorpusError on malformed content."""
    import pandas as pd  # noqa: PLC0415

    if ext == ".parquet":
        if not data:
            raise CorpusError(f"'{label}' is empty.")
        try:
            return pd.read_parquet(io.BytesIO(data))
        except Exception as e:  # pyarrow raises several types for corrupt files
            raise CorpusError(f"'{label}' is not a readable Parquet file ({_first_line(e)}).") from None

    text = _decode(label, data)
    if not text.strip():
        raise CorpusError(f"'{label}' is empty.")
    if ext in (".jsonl", ".ndjson"):
        try:
            rows = [row for _, row in json_objects(_lines(text))]
        except ValueError as e:
            raise CorpusError(f"'{label}' is not valid JSON Lines: {e}.") from None
        return pd.DataFrame(rows)

    sep = "\t" if ext == ".tsv" else ","
    kind = "TSV" if ext == ".tsv" else "CSV"
    read = dict(sep=sep, keep_default_na=False, na_values=[""])
    try:
        return pd.read_csv(io.StringIO(text), **read)
    except pd.errors.EmptyDataError:
        raise CorpusError(f"'{label}' is empty.") from None
    except (pd.errors.ParserError, ValueError, csv.Error) as e:
        if ext == ".tsv":  # TSV text often holds unbalanced quotes: retry without quote handling
            try:
                return pd.read_csv(io.StringIO(text), quoting=csv.QUOTE_NONE, **read)
            except (pd.errors.ParserError, ValueError, csv.Error):
                pass
        raise CorpusError(f"'{label}' is not a well-formed {kind} file ({_first_line(e)}).") from None


def _first_line(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return msg[0].rstrip(".") if msg else type(e).__name__


def _is_text(values: Sequence[Any]) -> bool:
    """True when every non-missing value is a string and at least one is."""
    seen = False
    for v in values:
        if v is None or (isinstance(v, float) and v != v):
            continue
        if not isinstance(v, str):
            try:
                import pandas as pd  # noqa: PLC0415

                if pd.isna(v):
                    continue
            except (TypeError, ValueError):
                pass
            return False
        seen = True
    return seen


def _text_columns(df) -> list[str]:  # type: ignore[no-untyped-def]
    import pandas as pd  # noqa: PLC0415

    out = []
    for c in df.columns:
        s = df[c]
        textual = pd.api.types.is_string_dtype(s.dtype) or pd.api.types.is_object_dtype(s.dtype)
        if textual and _is_text(s.tolist()):
            out.append(str(c))
    return out


def _pick_column(label: str, df, text_column: str | None) -> str:  # type: ignore[no-untyped-def]
    columns = [str(c) for c in df.columns]
    listed = ", ".join(columns) if columns else "(none)"
    if text_column is not None:
        if text_column not in columns:
            raise CorpusError(f"Column '{text_column}' is not in '{label}'; available columns: {listed}.")
        if text_column not in _text_columns(df):
            raise CorpusError(f"Column '{text_column}' in '{label}' does not hold text; available columns: {listed}.")
        return text_column
    text_cols = _text_columns(df)
    if len(text_cols) == 1:
        return text_cols[0]
    if not text_cols:
        raise CorpusError(f"'{label}' has no text column; available columns: {listed}.")
    raise CorpusError(
        f"'{label}' has {len(text_cols)} text columns ({', '.join(text_cols)}); choose one with text_column "
        f"(available columns: {listed})."
    )


def _column_values(df, column: str) -> list[str]:  # type: ignore[no-untyped-def]
    return ["" if not isinstance(v, str) else v for v in df[column].tolist()]


def _from_table(
    label: str,
    ext: str,
    data: bytes,
    text_column: str | None,
    label_column: str | None,
    segment: bool | None,
    name: str,
    source: str,
) -> Corpus:
    df = _read_table(label, ext, data)
    if len(df) == 0:
        raise CorpusError(f"'{label}' is empty: it has no rows.")
    col = _pick_column(label, df, text_column)
    texts = _column_values(df, col)
    labels: list[str] | None = None
    if label_column is not None:
        if label_column not in [str(c) for c in df.columns]:
            raise CorpusError(
                f"Label column '{label_column}' is not in '{label}'; available columns: "
                f"{', '.join(str(c) for c in df.columns)}."
            )
        labels = ["" if v is None else str(v) for v in df[label_column].tolist()]
    keep = [i for i, t in enumerate(texts) if t.strip()]
    texts = [texts[i] for i in keep]
    if labels is not None:
        labels = [labels[i] for i in keep]
    if not texts:
        raise CorpusError(f"Column '{col}' of '{label}' has no non-blank text.")
    texts, labels = _sentences(texts, labels, segment)
    return _finish(texts, labels, name, source)


# ---------------------------------------------------------------------------------------------- public API
def load_bytes(
    filename: str,
    data: bytes,
    text_column: str | None = None,
    *,
    segment: bool | None = None,
    name: str | None = None,
    label_column: str | None = None,
    source: str | None = None,
) -> Corpus:
    """A corpus from file content (an upload); the file type comes from `filename`'s extension."""
    label = Path(filename).name or filename
    ext = _extension(filename)
    name = name or Path(filename).stem or label
    source = source or f"upload:{label}"
    if ext == ".txt" and text_column is not None:
        raise CorpusError(f"'{label}' is a plain-text file; it has no columns to choose from.")
    with paused_gc():  # lists of a million strings, no cycles: the collector would only walk them again and again
        if ext == ".txt":
            return _from_txt(label, data, segment, name, source)
        return _from_table(label, ext, data, text_column, label_column, segment, name, source)


def load_file(
    path: str | os.PathLike,
    text_column: str | None = None,
    *,
    segment: bool | None = None,
    name: str | None = None,
    label_column: str | None = None,
) -> Corpus:
    """A corpus from a `.txt`, `.csv`, `.tsv`, `.jsonl` or `.parquet` file (rules in the module doc)."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise CorpusError(f"'{p}' is a directory, not a corpus file.")
    if not p.exists():
        raise CorpusError(f"Corpus file '{p}' does not exist.")
    _extension(p.name)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise CorpusError(f"Corpus file '{p}' cannot be read ({e.strerror or e}).") from None
    return load_bytes(
        p.name,
        data,
        text_column,
        segment=segment,
        name=name or p.stem,
        label_column=label_column,
        source=f"file:{p.resolve()}",
    )


def list_columns(filename: str, data: bytes) -> list[str]:
    """All column names of a table file (empty list for `.txt`), for a column picker."""
    label = Path(filename).name or filename
    ext = _extension(filename)
    if ext == ".txt":
        return []
    if ext == ".parquet":
        try:
            import pyarrow.parquet as pq  # noqa: PLC0415

            return list(pq.read_schema(io.BytesIO(data)).names)
        except Exception as e:
            raise CorpusError(f"'{label}' is not a readable Parquet file ({_first_line(e)}).") from None
    return [str(c) for c in _read_table(label, ext, data).columns]


def text_columns(filename: str, data: bytes) -> list[str]:
    """Column names whose values are all text (the candidates for `text_column`)."""
    ext = _extension(filename)
    if ext == ".txt":
        return []
    return _text_columns(_read_table(Path(filename).name or filename, ext, data))


def load_hf_dataset(
    name: str,
    split: str = "train",
    text_column: str = "text",
    config: str | None = None,
    max_rows: int | None = None,
    *,
    segment: bool | None = None,
    label_column: str | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> Corpus:
    """A corpus from a Hugging Face dataset (hub name, or a local folder / script) via `datasets.load_dataset`.

    `max_rows` keeps the first rows of the split. `cache_dir` is handed to `datasets` (its own cache).
    """
    try:
        import datasets  # noqa: PLC0415
    except ImportError:
        raise CorpusError(
            "Loading Hugging Face datasets needs the 'datasets' package (pip install datasets)."
        ) from None
    if max_rows is not None and max_rows < 1:
        raise CorpusError("max_rows must be at least 1.")
    split_arg = split if max_rows is None else f"{split}[:{int(max_rows)}]"
    what = f"'{name}'" + (f" (config '{config}')" if config else "")
    try:
        ds = datasets.load_dataset(
            name, config, split=split_arg, cache_dir=str(cache_dir) if cache_dir is not None else None
        )
    except Exception as e:  # DatasetNotFoundError, FileNotFoundError, ConnectionError, ValueError (bad split)
        raise CorpusError(
            f"Could not load the Hugging Face dataset {what}, split '{split}': {_first_line(e)}."
        ) from None
    columns = list(ds.column_names)
    if text_column not in columns:
        raise CorpusError(
            f"Column '{text_column}' is not in the Hugging Face dataset {what}; "
            f"available columns: {', '.join(columns)}."
        )
    raw = ds[text_column]
    raw = list(raw)
    if not _is_text(raw):
        raise CorpusError(f"Column '{text_column}' of the Hugging Face dataset {what} does not hold text.")
    texts = [t if isinstance(t, str) else "" for t in raw]
    labels = None
    if label_column is not None:
        if label_column not in columns:
            raise CorpusError(
                f"Label column '{label_column}' is not in the Hugging Face dataset {what}; "
                f"available columns: {', '.join(columns)}."
            )
        labels = [str(v) for v in ds[label_column]]
    keep = [i for i, t in enumerate(texts) if t.strip()]
    texts = [texts[i] for i in keep]
    labels = [labels[i] for i in keep] if labels is not None else None
    if not texts:
        raise CorpusError(f"Column '{text_column}' of the Hugging Face dataset {what} has no non-blank text.")
    texts, labels = _sentences(texts, labels, segment)
    corpus_name = name.rstrip("/").split("/")[-1] if os.path.isdir(name) else name
    if config:
        corpus_name += f":{config}"
    return _finish(texts, labels, corpus_name, f"hf:{name}" + (f":{config}" if config else "") + f"@{split}")
