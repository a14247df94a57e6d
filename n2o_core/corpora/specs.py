"""Corpus specs -> a `Corpus`: built-ins, files, Hugging Face datasets and kept uploads, optionally sampled.

Specs: ``builtin:NAME``, ``hf:NAME[:CONFIG][@SPLIT]``, ``upload:<fingerprint>`` (a corpus uploaded in the
dashboard and kept in the cache) or a path to a .txt/.csv/.tsv/.jsonl/.parquet file. A bare built-in name
("bbc-news") works when no file of that name exists. Only built-ins and kept uploads may come from a link
(`linkable_spec`): a URL must never make the server read one of its files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from n2o_core.corpora.builtin import builtin_names, load_builtin
from n2o_core.corpora.corpus import Corpus, sample_corpus, with_background
from n2o_core.corpora.files import load_file, load_hf_dataset
from n2o_core.corpora.uploads import UPLOAD_PREFIX, is_upload_spec, load_upload
from n2o_core.errors import CorpusError

__all__ = ["DEFAULT_CORPUS", "linkable_spec", "load_corpus", "parse_hf_spec"]

#: The corpus the app and the CLI open by default.
DEFAULT_CORPUS = "builtin:bbc-news"
_BUILTIN = re.compile(r"^builtin:[a-z0-9][a-z0-9_-]{0,40}$")


def linkable_spec(spec: str, extra: Iterable[str] = ()) -> bool:
    """A spec a link may carry: a built-in, a kept upload, or one of `extra` (e.g. the server's own default)."""
    return bool(_BUILTIN.match(spec) or is_upload_spec(spec) or spec in set(extra))


def parse_hf_spec(rest: str) -> tuple[str, str | None, str]:
    """'NAME[:CONFIG][@SPLIT]' -> (name, config or None, split; default 'train')."""
    body, _, split = rest.partition("@")
    name, _, config = body.partition(":")
    if not name:
        raise CorpusError(f"'hf:{rest}' names no dataset; write hf:NAME, hf:NAME:CONFIG or hf:NAME:CONFIG@SPLIT.")
    return name, config or None, split or "train"


def load_corpus(
    spec: str,
    *,
    max_sentences: int | None = None,
    text_column: str | None = None,
    seed: int = 0,
    cache_dir: str | os.PathLike | None = None,
    segment: bool | None = None,
    train_with: str = "",
) -> Corpus:
    """Open a corpus by spec (see the module docstring), optionally capped to a fixed sample of `max_sentences`;
    `train_with` names a built-in corpus the corpus-trained embedders are also trained on (`with_background`)."""
    spec = spec.strip()
    if max_sentences is not None and max_sentences < 1:
        raise CorpusError(f"The number of sentences must be positive (got {max_sentences}).")
    if spec.startswith("builtin:"):
        corpus = load_builtin(spec[len("builtin:") :], cache_dir=cache_dir)
    elif spec.startswith(UPLOAD_PREFIX):
        from n2o_core.storage.cache import Cache

        corpus = load_upload(Cache(cache_dir), spec)
    elif spec.startswith("hf:"):
        name, config, split = parse_hf_spec(spec[len("hf:") :])
        corpus = load_hf_dataset(
            name,
            split=split,
            text_column=text_column or "text",
            config=config,
            segment=segment,
            cache_dir=None if cache_dir is None else os.path.join(cache_dir, "hf-datasets"),
        )
    elif not os.path.exists(spec) and spec in builtin_names():
        corpus = load_builtin(spec, cache_dir=cache_dir)
    elif not os.path.exists(spec) and not os.path.splitext(spec)[1]:
        raise CorpusError(
            f"'{spec}' is neither a file nor a built-in corpus; built-in corpora: {', '.join(builtin_names())}."
        )
    else:
        corpus = load_file(spec, text_column, segment=segment)
    if max_sentences is not None:
        corpus = sample_corpus(corpus, max_sentences, seed)
    if train_with:
        if train_with not in builtin_names():
            names = ", ".join(builtin_names())
            raise CorpusError(f"'{train_with}' is not a built-in corpus to train with; built-in corpora: {names}.")
        corpus = with_background(corpus, load_builtin(train_with, cache_dir=cache_dir))
    return corpus
