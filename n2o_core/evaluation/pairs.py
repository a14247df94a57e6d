"""Sentence pairs with (optional) human similarity scores, and the paper's filters: shared by `needle` and `sts`.

Sources (`load_pairs(spec)`):

- a scored pair file: ``.tsv``/``.csv``/``.txt`` with a header naming sentence1, sentence2 and score columns (names
  configurable; common aliases accepted), ``.jsonl`` (one object per line) or ``.parquet``;
- the STS Benchmark's own headerless layout (``sts-dev.csv``, ``sts-test.csv``): tab-separated genre, file, year,
  id, score, sentence1, sentence2. The real files contain stray quote characters and, on some lines, extra
  trailing fields, so they are split on tabs with quoting off and only the first 7 fields are used (a file is
  read this way when its first line has >= 7 tab-separated fields and a number in the fifth);
- ``heros:PATH`` or a file whose header has Heros subset columns (see `n2o_core.evaluation.heros.load`): (original,
  variant) pairs, no score, the Heros subset as the genre;
- ``hf:NAME[:CONFIG][@SPLIT]``: a Hugging Face dataset with the same columns (needs the network the first time;
  split defaults to train);
- ``builtin:lee``: gensim's Lee documents, every pair of the 50 rated (see `lee_pairs`);
- ``synthetic:heros-synonym[:N]`` / ``synthetic:heros-typo[:N]``: pairs made from a corpus by one HEROS rule
  (see `synthetic_pairs`). These are NOT human paraphrases and carry no score; `PairSource.synthetic` is True
  and the label says so in every output.

Scores are kept on the 0-5 STS scale: a source whose scale is 0-1 (e.g. sentence-transformers/stsb) is
multiplied by 5. `scale=None` detects it: 1 when no score exceeds 1, else 5. A score outside [0, scale] is an
error. Sentences are whitespace-normalized (as corpus sentences are), so they match corpus rows exactly.

Word-overlap ratio (N2O paper, section 8: pairs "where the sentence pair has word-level overlap ratio < 0.6"; the
paper gives no formula). Default, ``measure="query"``: the share of the query's (sentence1's) distinct word
tokens that also occur in the paraphrase, |T(s1) & T(s2)| / |T(s1)|, with T = distinct lowercased word tokens
(`n2o_core.text.tokenize`, stop words kept). This is the paper's only defined word-overlap quantity (the token
overlap between a query and its neighbors, Fig. 5, `overlap.token_overlap`), applied to the query and its
paraphrase. ``measure="jaccard"``: |T(s1) & T(s2)| / |T(s1) | T(s2)| (symmetric, never larger).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.text import token_set

__all__ = [
    "FRAME_COLUMNS",
    "OVERLAP_MEASURES",
    "PAPER_MAX_OVERLAP",
    "PAPER_MIN_SCORE",
    "STSB_COLUMNS",
    "SYNTHETIC_RULES",
    "FilteredPairs",
    "PairSource",
    "Pairs",
    "filter_pairs",
    "guess_pair_columns",
    "lee_pairs",
    "load_pairs",
    "pair_file_columns",
    "pairs_from_records",
    "paper_defaults",
    "read_pair_file",
    "synthetic_pairs",
    "word_overlap",
]

#: Columns of `Pairs.frame`: `row` is the 0-based position in the loaded source (before any filter).
FRAME_COLUMNS = ["row", "sentence1", "sentence2", "score", "genre"]
#: The STS Benchmark's headerless layout.
STSB_COLUMNS = ["genre", "file", "year", "id", "score", "sentence1", "sentence2"]
#: The paper's filters (N2O section 8): score in the 4-5 range, word-overlap ratio < 0.6.
PAPER_MIN_SCORE = 4.0
PAPER_MAX_OVERLAP = 0.6
OVERLAP_MEASURES = ("query", "jaccard")
#: synthetic:<rule> -> the HEROS subset whose rule makes the second sentence.
SYNTHETIC_RULES = {"heros-synonym": "synonym", "heros-typo": "typo"}
SYNTHETIC_DEFAULT_N = 100

_S1 = ("sentence1", "sentence_1", "sentence_a", "sentencea", "s1", "text1", "text_1", "text_a", "query", "anchor")
_S2 = ("sentence2", "sentence_2", "sentence_b", "sentenceb", "s2", "text2", "text_2", "text_b", "paraphrase")
_SCORE = ("score", "similarity_score", "similarity", "relatedness_score", "gold_score", "gold", "sim")
_GENRE = ("genre", "domain")


@dataclass(frozen=True)
class PairSource:
    """Where pairs come from. `label` is one line for every output; synthetic ones say they are synthetic."""

    spec: str
    kind: str  # "sts-b", "table", "hf", "heros", "lee", "synthetic"
    label: str
    synthetic: bool = False
    scored: bool = True
    score_scale: float | None = 5.0  # the source's own maximum score (5 or 1); frame scores are on 0-5
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "kind": self.kind,
            "label": self.label,
            "synthetic": self.synthetic,
            "scored": self.scored,
            "score_scale": self.score_scale,
            "notes": list(self.notes),
        }


@dataclass
class Pairs:
    """Pairs in a frame with FRAME_COLUMNS (score on 0-5, NaN when the source has none; genre "" if unknown)."""

    frame: pd.DataFrame
    source: PairSource
    extra: dict[str, Any] = field(default_factory=dict)  # source-specific data (Lee: documents, indices)

    def __len__(self) -> int:
        return len(self.frame)

    @property
    def queries(self) -> list[str]:
        return self.frame["sentence1"].tolist()

    @property
    def paraphrases(self) -> list[str]:
        return self.frame["sentence2"].tolist()

    @property
    def scores(self) -> np.ndarray:
        return self.frame["score"].to_numpy(np.float64)


@dataclass
class FilteredPairs:
    """The pairs left after the filters, how many each filter dropped (applied in order), and the settings."""

    pairs: Pairs
    dropped: dict[str, int]
    filters: dict[str, Any]
    n_loaded: int


# --------------------------------------------------------------------------------------------- helpers


def _norm(text: Any) -> str:
    return " ".join(str(text).split())


def _squash(name: Any) -> str:
    return "".join(c for c in str(name).lower() if c.isalnum() or c == "_")


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def word_overlap(query: str, paraphrase: str, measure: str = "query") -> float:
    """Word-overlap ratio of a pair (see the module docstring): "query" = |T(q) & T(p)| / |T(q)|,
    "jaccard" = |T(q) & T(p)| / |T(q) | T(p)|. 0.0 when the denominator is empty."""
    if measure not in OVERLAP_MEASURES:
        raise N2OError(f"Unknown overlap measure '{measure}'; use one of {', '.join(OVERLAP_MEASURES)}.")
    q, p = token_set(query), token_set(paraphrase)
    den = len(q) if measure == "query" else len(q | p)
    return len(q & p) / den if den else 0.0


def paper_defaults(source: PairSource) -> dict[str, Any]:
    """The paper's filter settings where they mean something: min score 4 and max overlap 0.6 for human-scored
    pairs; no thresholds for unscored ones (Heros files, synthetic pairs: one-word edits by construction, word
    overlap about 0.9, so the paper's overlap filter would drop every one of them). For a Heros file only the
    synonym subset is a paraphrase, so its default genre is "synonym"; no genre filter otherwise."""
    genres = ["synonym"] if source.kind == "heros" else None
    if source.scored and not source.synthetic:
        return {"min_score": PAPER_MIN_SCORE, "max_overlap": PAPER_MAX_OVERLAP, "genres": genres}
    return {"min_score": None, "max_overlap": None, "genres": genres}


def _score_scale(values: np.ndarray, scale: float | None) -> float:
    if scale is not None:
        if not (math.isfinite(scale) and scale > 0):
            raise N2OError(f"--scale must be a positive number (got {scale}).")
        return float(scale)
    return 1.0 if values.size and float(np.max(values)) <= 1.0 else 5.0


def pairs_from_records(
    s1: Sequence[Any],
    s2: Sequence[Any],
    scores: Sequence[Any] | None,
    genres: Sequence[Any] | None,
    source: PairSource,
    *,
    scale: float | None = None,
    lines: Sequence[int] | None = None,
) -> Pairs:
    """Validated `Pairs` from columns: non-empty sentences, a query with word tokens, numeric scores in
    [0, scale] (rescaled to 0-5). `lines`: where each record sits in the source, for error messages."""
    where = [f"line {ln}" for ln in lines] if lines is not None else [f"pair {i + 1}" for i in range(len(s1))]
    name = source.spec
    if not len(s1):
        raise N2OError(f"'{name}' has no pairs.")
    q = [_norm(t) if t is not None else "" for t in s1]
    p = [_norm(t) if t is not None else "" for t in s2]
    for i in range(len(q)):
        if not q[i] or q[i] in ("nan", "None"):
            raise N2OError(f"'{name}', {where[i]}: sentence1 is empty.")
        if not p[i] or p[i] in ("nan", "None"):
            raise N2OError(f"'{name}', {where[i]}: sentence2 is empty.")
        if not token_set(q[i]):
            raise N2OError(f"'{name}', {where[i]}: the query (sentence1) {q[i]!r} has no word tokens.")
    if scores is None:
        sc = np.full(len(q), np.nan)
        source = replace(source, scored=False, score_scale=None)
    else:
        vals = []
        for i, v in enumerate(scores):
            try:
                x = float(v)
            except (TypeError, ValueError):
                x = math.nan
            if not math.isfinite(x):
                raise N2OError(f"'{name}', {where[i]}: score {str(v)!r} is not a number.")
            vals.append(x)
        sc = np.asarray(vals, np.float64)
        top = _score_scale(sc, scale)
        bad = np.flatnonzero((sc < 0) | (sc > top))
        if bad.size:
            i = int(bad[0])
            raise N2OError(
                f"'{name}', {where[i]}: score {sc[i]:g} is outside the 0-{top:g} scale"
                + (" (give --scale MAX for another scale)." if scale is None else ".")
            )
        sc = sc * (5.0 / top)
        source = replace(source, scored=True, score_scale=top)
    g = [_norm(x) if x is not None else "" for x in genres] if genres is not None else [""] * len(q)
    frame = pd.DataFrame({"row": np.arange(len(q)), "sentence1": q, "sentence2": p, "score": sc, "genre": g})
    return Pairs(frame[FRAME_COLUMNS], source)


# --------------------------------------------------------------------------------------------- files


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
    sq = [_squash(h) for h in header]
    if given is not None:
        if _squash(given) not in sq:
            raise N2OError(f"'{source}' has no column '{given}' (columns: {', '.join(map(str, header))}).")
        return sq.index(_squash(given))
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

    return any(canonical_subset(h) is not None for h in header) or "subset" in [_squash(h) for h in header]


def _from_heros(path: str) -> Pairs:
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
        return _frame_pairs(df, src, columns, scale)
    text = _decode(p)
    if ext == ".jsonl":
        recs, lines = [], []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise N2OError(f"'{p.name}', line {n} is not JSON ({exc.msg}).") from None
            if not isinstance(obj, dict):
                raise N2OError(f"'{p.name}', line {n} is not a JSON object.")
            recs.append(obj)
            lines.append(n)
        if not recs:
            raise N2OError(f"Pairs file '{p.name}' has no pairs.")
        header = list(dict.fromkeys(k for r in recs for k in r))
        return _from_table(
            header, [[r.get(k) for k in header] for r in recs], src, columns=columns, scale=scale, lines=lines
        )
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
        return _from_heros(str(p))
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


def _frame_pairs(df: pd.DataFrame, src: PairSource, columns: dict[str, str | None], scale: float | None) -> Pairs:
    obj = df.astype(object).where(df.notna(), None)
    return _from_table(list(map(str, df.columns)), obj.to_numpy().tolist(), src, columns=columns, scale=scale)


# --------------------------------------------------------------------------------------------- Hugging Face


def _from_hf(rest: str, columns: dict[str, str | None], scale: float | None, cache_dir: str | None) -> Pairs:
    from n2o_core.corpora import parse_hf_spec

    name, config, split = parse_hf_spec(rest)
    what = f"'{name}'" + (f" (config '{config}')" if config else "") + f", split '{split}'"
    try:
        import datasets
    except ImportError:
        raise N2OError("Loading Hugging Face datasets needs the 'datasets' package (pip install datasets).") from None
    try:
        ds = datasets.load_dataset(name, config, split=split, cache_dir=cache_dir)
    except Exception as exc:  # noqa: BLE001 - offline, unknown name, bad split: one clear sentence
        reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise N2OError(
            f"The Hugging Face dataset {what} cannot be reached or read ({reason}). Offline, download it on a "
            "machine with internet (or copy the STS Benchmark's sts-*.csv) and pass the file to --pairs."
        ) from None
    src = PairSource(f"hf:{rest}", "hf", f"scored pairs from the Hugging Face dataset {what}")
    return _frame_pairs(ds.to_pandas(), src, columns, scale)


# --------------------------------------------------------------------------------------------- Lee


def _gensim_data(name: str) -> Path:
    from n2o_core.corpora.builtin import gensim_test_file

    return gensim_test_file(name)


def lee_pairs() -> Pairs:
    """gensim's Lee documents with human similarity judgments (Lee, Pincombe & Welsh 2005), as pairs.

    Files (gensim test data): ``lee.cor`` holds the 50 documents, one per line, Latin-1 encoded (a pound sign);
    ``similarities0-1.txt`` is a 50 x 50 whitespace-separated matrix whose row i / column j are the documents on
    lines i and j of lee.cor. Only the upper triangle is filled: entry (i, j), i < j, is the pair's mean human
    rating on the 0-1 scale (values 0.2-1.0, i.e. the 1-5 rating divided by 5); the diagonal is 1 and the lower
    triangle 0. The 1,225 pairs i < j are used, in np.triu_indices order (as gensim's own test_lee.py does).
    `Pairs.extra` has the documents ("documents") and each pair's indices ("index1", "index2")."""
    doc_path, sim_path = _gensim_data("lee.cor"), _gensim_data("similarities0-1.txt")
    if not doc_path.is_file() or not sim_path.is_file():
        raise N2OError(f"gensim's Lee test data was not found at {doc_path.parent}; reinstall gensim.")
    raw = doc_path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    docs = [_norm(ln) for ln in text.split("\n") if ln.strip()]
    sim = np.loadtxt(sim_path)
    n = len(docs)
    if sim.shape != (n, n):
        raise N2OError(f"gensim's Lee similarity matrix has shape {sim.shape} for {n} documents.")
    i1, i2 = np.triu_indices(n, 1)
    src = PairSource(
        "builtin:lee",
        "lee",
        f"gensim Lee corpus: {n} news documents, all {len(i1):,} pairs rated by humans (0-1 scale)",
        notes=("each whole document is one text",),
    )
    pairs = pairs_from_records(
        [docs[i] for i in i1], [docs[j] for j in i2], sim[i1, i2].tolist(), ["lee"] * len(i1), src, scale=1.0
    )
    pairs.extra = {"documents": docs, "index1": i1, "index2": i2}
    return pairs


# --------------------------------------------------------------------------------------------- synthetic


def _parse_synthetic(rest: str) -> tuple[str, int]:
    rule, _, num = rest.partition(":")
    rule = rule or "heros-synonym"
    if rule not in SYNTHETIC_RULES:
        raise N2OError(
            f"Unknown synthetic pair rule '{rule}'; use synthetic:{' or synthetic:'.join(SYNTHETIC_RULES)}[:N]."
        )
    if not num:
        return rule, SYNTHETIC_DEFAULT_N
    if not num.isdigit() or int(num) < 1:
        raise N2OError(f"synthetic:{rule}:N needs a positive number of pairs (got {num!r}).")
    return rule, int(num)


def synthetic_pairs(
    corpus: Any,
    cache: Any = None,
    rule: str = "heros-synonym",
    n: int = SYNTHETIC_DEFAULT_N,
    seed: int = 0,
    progress: Any = None,
) -> Pairs:
    """Up to `n` pairs made from corpus sentences by one HEROS rule (`n2o_core.evaluation.heros.generate`): sentence1 is
    the corpus sentence, sentence2 the same sentence with one verb/adjective replaced by a WordNet synonym
    ("heros-synonym") or misspelled ("heros-typo"). Synthetic, NOT human paraphrases, and unscored. Generated
    pairs are cached per corpus and request (`heros.pair_cache`)."""
    from n2o_core.evaluation.heros.pair_cache import cached_generate_pairs

    subset = SYNTHETIC_RULES.get(rule)
    if subset is None:
        raise N2OError(f"Unknown synthetic pair rule '{rule}'; use one of {', '.join(SYNTHETIC_RULES)}.")
    if cache is None:
        from n2o_core.storage.cache import Cache

        cache = Cache()
    ps = cached_generate_pairs(cache, corpus.fingerprint, corpus.texts, n, seed, (subset,), progress=progress)
    df = ps.pairs[ps.pairs["subset"] == subset]
    if df.empty:
        raise N2OError(f"No '{rule}' pairs could be made from '{corpus.name}' (skipped sentences: {ps.skipped}).")
    spec = f"synthetic:{rule}:{n}"
    src = PairSource(
        spec,
        "synthetic",
        f"SYNTHETIC pairs ({spec}): {len(df)} sentences of {corpus.name} and a copy with one word changed by the "
        f"HEROS {subset} rule; not human paraphrases, no similarity scores",
        synthetic=True,
        scored=False,
        score_scale=None,
        notes=(f"seed {seed}",),
    )
    genre = f"synthetic-{subset}"
    return pairs_from_records(df["original"].tolist(), df["variant"].tolist(), None, [genre] * len(df), src)


# --------------------------------------------------------------------------------------------- one entry point


def load_pairs(
    spec: str,
    *,
    columns: dict[str, str | None] | None = None,
    scale: float | None = None,
    corpus: Any = None,
    cache: Any = None,
    seed: int = 0,
    progress: Any = None,
) -> Pairs:
    """Pairs from a spec: a file path, ``heros:PATH``, ``hf:NAME[:CONFIG][@SPLIT]``, ``builtin:lee`` or
    ``synthetic:RULE[:N]`` (made from `corpus`; see the module docstring). `columns` may name the
    sentence1 / sentence2 / score / genre columns; `scale` is the source's maximum score (None: detect)."""
    spec = str(spec).strip()
    columns = columns or {}
    if spec.startswith("synthetic:") or spec == "synthetic":
        if corpus is None:
            raise N2OError("Synthetic pairs are made from a corpus; give --corpus.")
        rule, n = _parse_synthetic(spec.partition(":")[2])
        return synthetic_pairs(corpus, cache, rule, n, seed, progress)
    if spec.startswith("hf:"):
        hf_cache = None if cache is None else str(Path(cache.root) / "hf-datasets")
        return _from_hf(spec[3:], columns, scale, hf_cache)
    if spec.startswith("heros:"):
        path = spec[len("heros:") :]
        if not Path(path).is_file():
            raise N2OError(f"Pairs file '{path}' does not exist.")
        return _from_heros(path)
    if spec.startswith("builtin:"):
        if spec != "builtin:lee":
            raise N2OError(f"Unknown built-in pair set '{spec}'; the built-in one is builtin:lee.")
        return lee_pairs()
    return read_pair_file(spec, columns=columns, scale=scale)


# --------------------------------------------------------------------------------------------- filters


def _genre_match(genre: str, wanted: Sequence[str]) -> bool:
    g = genre.lower()
    return any(g == w or g.endswith("-" + w) or g.endswith("_" + w) for w in wanted)


def filter_pairs(
    pairs: Pairs,
    *,
    min_score: float | None = PAPER_MIN_SCORE,
    max_overlap: float | None = PAPER_MAX_OVERLAP,
    genres: Sequence[str] | None = None,
    measure: str = "query",
) -> FilteredPairs:
    """Keep pairs with genre in `genres`, then score >= `min_score` (0-5 scale), then word-overlap ratio <
    `max_overlap` (strictly less, as in the paper); None skips a filter. `dropped` counts, per filter in that
    order, the pairs it removed from those left by the previous ones. A genre matches case-insensitively, by
    its whole name or its last dash/underscore part ("news" matches the STS-B genre "main-news"). Each kept
    pair's overlap is in the frame's `overlap` column. Raises N2OError when nothing is left."""
    if measure not in OVERLAP_MEASURES:
        raise N2OError(f"Unknown overlap measure '{measure}'; use one of {', '.join(OVERLAP_MEASURES)}.")
    if min_score is not None and not 0 <= min_score <= 5:
        raise N2OError(f"--min-score is on the 0-5 scale (got {min_score:g}).")
    if max_overlap is not None and not 0 < max_overlap <= 1:
        raise N2OError(f"--max-overlap must be in (0, 1] (got {max_overlap:g}).")
    if min_score is not None and not pairs.source.scored:
        raise N2OError(f"The pairs from '{pairs.source.spec}' have no similarity scores; leave out --min-score.")
    df = pairs.frame.copy()
    n_loaded = len(df)
    df["overlap"] = [word_overlap(a, b, measure) for a, b in zip(df["sentence1"], df["sentence2"])]
    dropped: dict[str, int] = {}
    wanted = [g.strip().lower() for g in genres or [] if g.strip()]
    if wanted:
        have = sorted(set(df["genre"]))
        keep = df["genre"].map(lambda g: _genre_match(g, wanted))
        if not keep.any():
            raise N2OError(
                f"No pair has the genre {', '.join(wanted)}; genres in '{pairs.source.spec}': "
                f"{', '.join(g or '(none)' for g in have)}."
            )
        dropped["genre"] = int((~keep).sum())
        df = df[keep]
    if min_score is not None:
        keep = df["score"] >= min_score
        dropped["score"] = int((~keep).sum())
        df = df[keep]
    if max_overlap is not None:
        keep = df["overlap"] < max_overlap
        dropped["overlap"] = int((~keep).sum())
        df = df[keep]
    filters = {"genre": wanted or None, "min_score": min_score, "max_overlap": max_overlap, "overlap_measure": measure}
    if df.empty:
        why = ", ".join(f"{k}: {v}" for k, v in dropped.items())
        raise N2OError(
            f"No pairs are left after filtering the {n_loaded} pairs of '{pairs.source.spec}' (dropped by {why}); "
            "loosen --min-score / --max-overlap / --genre."
        )
    out = Pairs(df.reset_index(drop=True), pairs.source, pairs.extra)
    return FilteredPairs(out, dropped, filters, n_loaded)
