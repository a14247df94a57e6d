"""tf-idf fit on the corpus, each sentence its own document (as in the N2O paper).

Statistics are gensim's (`Dictionary` + `TfidfModel`, defaults: raw term counts, idf = log2(N / df),
L2-normalized rows, zero weights dropped), counted here in one pass without importing gensim: term ids in
`Dictionary`'s order (each sentence's new tokens, sorted, get the next ids), document frequencies and the number
of documents exactly as `Dictionary.doc2bow(allow_update=True)` counts them, idf by `TfidfModel`'s formula
(`df2idf`). The tests check the vocabulary, dfs and weights against gensim itself. Above gensim's
`prune_at` (2,000,000 distinct tokens) `Dictionary` starts pruning; such a corpus is fit by gensim itself.
The transform is vectorized with scipy and returns a float32 CSR matrix (n, |V|); no dense |V|-wide matrix is
ever built. A sentence with no known token is an empty (all-zero) row.
Saved state: vocabulary (JSON, in id order), document frequencies (.npy) and the number of documents.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from n2o_core.embedders._trained import CorpusTrained
from n2o_core.embedders.batches import check_texts
from n2o_core.embedders.infos import default_info
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.manifest_folder import load_json, load_npy, save_json, save_npy
from n2o_core.text import tokenize

_CHUNK = 8192


#: gensim's `Dictionary(documents)` prunes its vocabulary once it holds more distinct tokens than this.
GENSIM_PRUNE_AT = 2_000_000


def idf_from_dfs(dfs: np.ndarray, num_docs: int) -> np.ndarray:
    """gensim's default global weight, `tfidfmodel.df2idf(df, num_docs, log_base=2.0, add=0.0)`:
    0.0 + log(num_docs / df) / log(2.0), in float64."""
    return 0.0 + np.log(float(num_docs) / np.asarray(dfs, dtype=np.float64)) / np.log(2.0)


def count_vocabulary(token_lists: Iterable[list[str]]) -> tuple[list[str], np.ndarray, int]:
    """(vocabulary in gensim `Dictionary` id order, document frequency per term, number of documents), or
    ValueError once more than GENSIM_PRUNE_AT distinct tokens are seen (gensim would prune)."""
    token2id: dict[str, int] = {}
    dfs: list[int] = []
    num_docs = 0
    for tokens in token_lists:
        num_docs += 1
        distinct = set(tokens)
        new = [t for t in distinct if t not in token2id]
        if new:
            for t in sorted(new):
                token2id[t] = len(dfs)
                dfs.append(0)
            if len(dfs) > GENSIM_PRUNE_AT:
                raise ValueError("more distinct tokens than gensim's prune_at")
        for t in distinct:
            dfs[token2id[t]] += 1
    return list(token2id), np.asarray(dfs, dtype=np.int64), num_docs


def _gensim_vocabulary(texts: list[str]) -> tuple[list[str], np.ndarray, int]:
    """`count_vocabulary` by gensim's `Dictionary` itself (pruning included)."""
    with heavy_imports():
        from gensim.corpora import Dictionary

    dct = Dictionary(tokenize(t) for t in texts)
    vocab = [""] * len(dct)
    for tok, i in dct.token2id.items():
        vocab[i] = tok
    dfs = np.array([dct.dfs.get(i, 0) for i in range(len(dct))], dtype=np.int64)
    return vocab, dfs, int(dct.num_docs)


class TfidfEmbedder(CorpusTrained):
    """Sparse tf-idf vectors over the fit corpus' vocabulary."""

    def __init__(self, cache_dir: str | os.PathLike | None = None):
        super().__init__(cache_dir)
        self.info = default_info("tfidf")
        self.vocab: list[str] = []
        self._index: dict[str, int] = {}
        self._dfs = np.zeros(0, dtype=np.int64)
        self._num_docs = 0
        self._idf = np.zeros(0, dtype=np.float64)

    def params(self) -> dict[str, Any]:
        return {"tokenizer": "n2o_core.text.tokenize", "smartirs": "gensim-default(log2,l2)"}

    def _train(self, texts: list[str], progress: Progress | None = None) -> None:
        try:
            vocab, dfs, num_docs = count_vocabulary(tokenize(t) for t in texts)
        except ValueError:  # a vocabulary gensim would prune: let gensim do it
            vocab, dfs, num_docs = _gensim_vocabulary(texts)
        self._set(vocab, dfs, num_docs)
        report(progress, "train", len(texts), len(texts))

    def _set(self, vocab: list[str], dfs: np.ndarray, num_docs: int, idf: np.ndarray | None = None) -> None:
        self.vocab = vocab
        self._index = {t: i for i, t in enumerate(vocab)}
        self._dfs = dfs
        self._num_docs = num_docs
        self._idf = idf if idf is not None else idf_from_dfs(dfs, num_docs)

    def _save(self, folder: Path) -> dict[str, Any]:
        save_json(folder / "vocab.json", self.vocab)
        save_npy(folder / "dfs.npy", self._dfs)
        return {"num_docs": self._num_docs, "n_terms": len(self.vocab)}

    def _load(self, folder: Path, meta: dict[str, Any]) -> None:
        vocab = load_json(folder / "vocab.json")
        dfs = load_npy(folder / "dfs.npy")
        if len(vocab) != len(dfs) or len(vocab) != meta["n_terms"]:
            raise ValueError("inconsistent tf-idf state")
        self._set(list(vocab), dfs.astype(np.int64), int(meta["num_docs"]))

    @property
    def dim(self) -> int:
        """|V| of the fit corpus."""
        return len(self.vocab)

    def counts(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Term-count matrix (n, |V|) over the fitted vocabulary (unknown tokens dropped)."""
        index = self._index
        indptr = [0]
        indices: list[int] = []
        for t in texts:
            indices.extend(j for j in (index.get(tok) for tok in tokenize(t)) if j is not None)
            indptr.append(len(indices))
        data = np.ones(len(indices), dtype=np.float64)
        m = sp.csr_matrix(
            (data, np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
            shape=(len(texts), len(self.vocab)),
        )
        m.sum_duplicates()
        return m

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> sp.csr_matrix:
        self._require_fit()
        texts = check_texts(texts)
        blocks = []
        for start in range(0, len(texts), _CHUNK):
            m = self.counts(texts[start : start + _CHUNK])
            m.data *= self._idf[m.indices]
            m.eliminate_zeros()  # terms in every document weigh 0 (gensim drops them)
            norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
            norms[norms == 0] = 1.0
            m.data /= np.repeat(norms, np.diff(m.indptr))
            blocks.append(m.astype(np.float32))
            report(progress, "embed", min(start + _CHUNK, len(texts)), len(texts))
        if not blocks:
            return sp.csr_matrix((0, len(self.vocab)), dtype=np.float32)
        out = sp.vstack(blocks, format="csr")
        out.sort_indices()
        return out.astype(np.float32)
