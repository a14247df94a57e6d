"""The corpus type: deduplicated, fingerprinted sentences, and a fixed sample of them."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from n2o_core.errors import CorpusError

__all__ = ["Corpus", "dedup", "fingerprint_texts", "from_texts", "normalized_lines", "sample_corpus", "with_background"]


@dataclass(frozen=True)
class Corpus:
    """Deduplicated sentences; ids are 0-based positions in `texts`.

    `training_texts` is the text that corpus-trained embedders (tf-idf, word2vec, fastText) are fit on.
    It is `texts` itself unless the corpus is a sample of a larger built-in corpus, in which case it is
    the whole corpus (static vectors trained on a few thousand sentences are weak).
    """

    name: str
    texts: tuple[str, ...]
    fingerprint: str
    n_duplicates: int = 0
    source: str = ""
    labels: tuple[str, ...] | None = None
    training_texts: tuple[str, ...] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def fit_texts(self) -> tuple[str, ...]:
        """Texts that corpus-trained embedders are fit on."""
        return self.training_texts if self.training_texts is not None else self.texts

    @cached_property
    def fit_fingerprint(self) -> str:
        """Fingerprint of `fit_texts` (keys corpus-trained embedders); hashed once per Corpus (a sample's fit texts
        are the whole built-in corpus: 38k sentences, read on every cache lookup of a corpus-trained embedder)."""
        if self.training_texts is None:
            return self.fingerprint
        return fingerprint_texts(self.training_texts)

    @cached_property
    def sentences_fingerprint(self) -> str:
        """Fingerprint of the compared sentences alone, whatever the corpus-trained embedders learned from: it keys
        what only the sentences decide (the embeddings and neighbors of every embedder that is not trained on the
        corpus), so training those embedders with a background corpus (`with_background`) re-embeds nothing else.
        It is `fingerprint` except for a corpus with a background."""
        return self.fingerprint if self.training_texts is None else fingerprint_texts(self.texts)


def fingerprint_texts(texts: Sequence[str]) -> str:
    """Content hash of an ordered list of texts (order matters: ids are positions)."""
    h = hashlib.sha256()
    for t in texts:
        b = t.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()[:20]


#: ASCII whitespace other than the space and the line break (what `str.split()` also splits on in ASCII text)
_OTHER_ASCII_SPACE = b"\t\x0b\x0c\r\x1c\x1d\x1e\x1f"
_ALL_BUT_OTHER_SPACE = bytes(sorted(set(range(256)) - set(_OTHER_ASCII_SPACE)))


def already_normalized(texts: Sequence[str], *, allow_empty: bool = False) -> bool:
    """Whether whitespace normalization (`" ".join(t.split())`) would leave every text as it is (and, unless
    `allow_empty`, none is empty): ASCII texts, single spaces between words, none at either end, no other whitespace.
    Checked in a few vectorized passes over the joined texts (`normalized_lines`, faster than normalizing line by line;
    measured: benchmarks/README.md, 'Measurements behind the code's choices'); False when unsure (non-ASCII or non-str
    texts), which only means the texts are normalized one by one."""
    try:
        joined = "\n".join(texts)
    except TypeError:
        return False
    if not joined.isascii() or joined.count("\n") != len(texts) - 1:  # a line break inside a text
        return False
    return normalized_lines(joined.encode("ascii"), allow_empty=allow_empty)


def normalized_lines(data: bytes, *, allow_empty: bool = True) -> bool:
    """Whether every line of `data` (split at b"\\n") is ASCII and already whitespace-normalized, or empty when
    `allow_empty` (else no line is empty; no data at all is one empty line). A plain-text corpus file is checked as
    read, without joining its lines again."""
    import numpy as np  # noqa: PLC0415

    if not data:
        return allow_empty
    if not data.isascii() or data.translate(None, _ALL_BUT_OTHER_SPACE):  # a tab, carriage return, form feed, ...
        return False
    b = np.frombuffer(data, np.uint8)
    brk = b == 10
    space = b == 32
    gap = brk | space
    side_by_side = gap[1:] & gap[:-1]  # two spaces, or a space beside a break: at a line's end or start
    if allow_empty:  # two breaks side by side (an empty line) are fine, and a break at either end
        side_by_side &= ~(brk[1:] & brk[:-1])
        return not (space[0] or space[-1] or np.any(side_by_side))
    return not (gap[0] or gap[-1] or np.any(side_by_side))


def dedup(
    texts: Sequence[str], labels: Sequence[str] | None = None, *, normalized: bool = False
) -> tuple[list[str], list[str] | None, int]:
    """Strip whitespace, drop empty lines and exact duplicates (first occurrence kept, order kept).

    `normalized`: the caller has checked that every text is already normalized or empty (`normalized_lines` on
    the file they were read from); otherwise that is checked here."""
    if not isinstance(texts, (list, tuple)):
        texts = list(texts)
    if labels is None and (normalized or already_normalized(texts, allow_empty=True)):  # the common case, faster
        n_empty = texts.count("")  # empty lines (of a text file)
        # a set is built faster than an ordered dict: no duplicates is the common case
        # (this and the fast path above measured: benchmarks/README.md, 'Measurements behind the code's choices')
        distinct = set(texts)
        if len(distinct) - ("" in distinct) == len(texts) - n_empty:
            if not n_empty:
                return list(texts), None, 0
            if all(t == "" for t in texts[len(texts) - n_empty :]):  # only at the end (the file's last line break)
                return list(texts[: len(texts) - n_empty]), None, 0
            return [t for t in texts if t], None, 0
        kept = dict.fromkeys(texts)  # first occurrences, in order
        kept.pop("", None)
        return list(kept), None, len(texts) - n_empty - len(kept)
    if labels is not None and already_normalized(texts) and len(set(texts)) == len(texts):
        return list(texts), [str(v) for v in labels], 0
    seen: set[str] = set()
    out: list[str] = []
    out_labels: list[str] | None = [] if labels is not None else None
    dropped = 0
    for i, t in enumerate(texts):
        t = " ".join(str(t).split())
        if not t:
            continue
        if t in seen:
            dropped += 1
            continue
        seen.add(t)
        out.append(t)
        if out_labels is not None:
            out_labels.append(str(labels[i]))  # type: ignore[index]
    return out, out_labels, dropped


def from_texts(
    texts: Sequence[str],
    name: str = "custom",
    *,
    source: str = "",
    labels: Sequence[str] | None = None,
    training_texts: Sequence[str] | None = None,
    normalized: bool = False,
) -> Corpus:
    """Build a `Corpus` from raw sentences: whitespace-normalize, drop empties and exact duplicates (`normalized`:
    see `dedup`)."""
    kept, kept_labels, dropped = dedup(texts, labels, normalized=normalized)
    if not kept:
        raise CorpusError(f"Corpus '{name}' is empty: no non-blank sentences were found.")
    return Corpus(
        name=name,
        texts=tuple(kept),
        fingerprint=fingerprint_texts(kept),
        n_duplicates=dropped,
        source=source,
        labels=tuple(kept_labels) if kept_labels is not None else None,
        training_texts=tuple(training_texts) if training_texts is not None else None,
    )


# ---------------------------------------------------------------------------------------------- sampling
def sample_corpus(corpus: Corpus, max_sentences: int, seed: int = 0) -> Corpus:
    """A fixed random sample of at most `max_sentences`, in corpus order.

    Stratified by label when the corpus has labels (largest-remainder proportional quotas per label),
    uniform otherwise. `training_texts` of the sample is the whole corpus. A corpus no larger than
    `max_sentences` is returned unchanged.
    """
    import numpy as np  # noqa: PLC0415

    if max_sentences < 1:
        raise CorpusError("max_sentences must be at least 1.")
    n = len(corpus)
    if max_sentences >= n:
        return corpus
    rng = np.random.default_rng(seed)
    if corpus.labels is None:
        picked = rng.choice(n, size=max_sentences, replace=False)
    else:
        groups: dict[str, list[int]] = {}
        for i, lab in enumerate(corpus.labels):
            groups.setdefault(lab, []).append(i)
        names = sorted(groups)
        exact = [max_sentences * len(groups[g]) / n for g in names]
        quota = [int(q) for q in exact]
        short = max_sentences - sum(quota)
        by_remainder = sorted(range(len(names)), key=lambda j: (-(exact[j] - quota[j]), names[j]))
        for j in by_remainder[:short]:
            quota[j] += 1
        parts = [
            rng.choice(np.asarray(groups[g], dtype=np.int64), size=q, replace=False) for g, q in zip(names, quota) if q
        ]
        picked = np.concatenate(parts)
    ids = np.sort(picked).tolist()
    texts = tuple(corpus.texts[i] for i in ids)
    suffix = f"[{max_sentences}]" if seed == 0 else f"[{max_sentences}, seed {seed}]"
    return Corpus(
        name=f"{corpus.name}{suffix}",
        texts=texts,
        fingerprint=fingerprint_texts(texts),
        n_duplicates=corpus.n_duplicates,
        source=corpus.source,
        labels=tuple(corpus.labels[i] for i in ids) if corpus.labels is not None else None,
        training_texts=corpus.fit_texts,
    )


def with_background(corpus: Corpus, background: Corpus) -> Corpus:
    """`corpus` with its corpus-trained embedders (tf-idf, word2vec, fastText) fit on `background`'s training
    text followed by the corpus's own sentences that it lacks: vectors learned from a large corpus, compared on
    these sentences (whose words they then know). The sentences, their ids and labels are unchanged; the
    fingerprint is new (it identifies what the trained embedders learned from, so no cache mixes the two)."""
    base = background.fit_texts
    known = set(base)
    own = corpus.fit_texts
    fit = tuple(base) + tuple(t for t in own if t not in known)
    return Corpus(
        name=f"{corpus.name} (word vectors trained with {background.name})",
        texts=corpus.texts,
        fingerprint=fingerprint_texts([corpus.fingerprint, "trained with", fingerprint_texts(fit)]),
        n_duplicates=corpus.n_duplicates,
        source=corpus.source,
        labels=corpus.labels,
        training_texts=fit,
    )
