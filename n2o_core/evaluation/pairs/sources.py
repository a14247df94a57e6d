"""Pairs from a spec (`load_pairs`): a local file (`files`), a Hugging Face dataset, gensim's Lee documents
(`lee_pairs`) or pairs made from a corpus by one HEROS rule (`synthetic_pairs`); see the package docstring."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from n2o_core.errors import N2OError
from n2o_core.evaluation.pairs.files import heros_file_pairs, pairs_from_frame, read_pair_file
from n2o_core.evaluation.pairs.frame import (
    SYNTHETIC_DEFAULT_N,
    SYNTHETIC_RULES,
    Pairs,
    PairSource,
    normalize_space,
    pairs_from_records,
)
from n2o_core.runtime.progress import Progress


def hf_pairs(rest: str, columns: dict[str, str | None], scale: float | None, cache_dir: str | None) -> Pairs:
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
    return pairs_from_frame(ds.to_pandas(), src, columns, scale)


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
    docs = [normalize_space(ln) for ln in text.split("\n") if ln.strip()]
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


def parse_synthetic_spec(rest: str) -> tuple[str, int]:
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
    progress: Progress | None = None,
) -> Pairs:
    """Up to `n` pairs made from corpus sentences by one HEROS rule (`n2o_core.evaluation.heros.generate`): sentence1 is
    the corpus sentence, sentence2 the same sentence with one verb/adjective replaced by a synonym from the vetted
    HEROS lexicon ("heros-synonym") or misspelled ("heros-typo"). Synthetic, NOT human paraphrases, and unscored.
    Generated pairs are cached per corpus and request (`heros.pair_cache`); stage "pairs" reported to `progress`
    while they are made."""
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


def load_pairs(
    spec: str,
    *,
    columns: dict[str, str | None] | None = None,
    scale: float | None = None,
    corpus: Any = None,
    cache: Any = None,
    seed: int = 0,
    progress: Progress | None = None,
) -> Pairs:
    """Pairs from a spec: a file path, ``heros:PATH``, ``hf:NAME[:CONFIG][@SPLIT]``, ``builtin:lee`` or
    ``synthetic:RULE[:N]`` (made from `corpus`; see the module docstring). `columns` may name the
    sentence1 / sentence2 / score / genre columns; `scale` is the source's maximum score (None: detect).
    `progress` gets stage "pairs" while synthetic pairs are made."""
    spec = str(spec).strip()
    columns = columns or {}
    if spec.startswith("synthetic:") or spec == "synthetic":
        if corpus is None:
            raise N2OError("Synthetic pairs are made from a corpus; give --corpus.")
        rule, n = parse_synthetic_spec(spec.partition(":")[2])
        return synthetic_pairs(corpus, cache, rule, n, seed, progress)
    if spec.startswith("hf:"):
        hf_cache = None if cache is None else str(Path(cache.root) / "hf-datasets")
        return hf_pairs(spec[3:], columns, scale, hf_cache)
    if spec.startswith("heros:"):
        path = spec[len("heros:") :]
        if not Path(path).is_file():
            raise N2OError(f"Pairs file '{path}' does not exist.")
        return heros_file_pairs(path)
    if spec.startswith("builtin:"):
        if spec != "builtin:lee":
            raise N2OError(f"Unknown built-in pair set '{spec}'; the built-in one is builtin:lee.")
        return lee_pairs()
    return read_pair_file(spec, columns=columns, scale=scale)
