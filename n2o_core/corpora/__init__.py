"""Corpora: built-in and user-supplied text collections -> a deduplicated, fingerprinted `Corpus`.

- `corpus`   the Corpus type, dedup, fingerprint, sampling, a background corpus for the trained embedders
- `specs`    spec parsing (builtin:, hf:, upload:, files) -> load_corpus
- `builtin`  corpora shipped inside installed packages (BBC News, Lee, Wikipedia sample)
- `files`    text / table files, uploaded bytes, Hugging Face datasets
- `uploads`  dashboard uploads kept in the cache
- `segment`  sentence segmentation
"""

from n2o_core.corpora.builtin import builtin_names, list_builtin_corpora, load_builtin
from n2o_core.corpora.corpus import Corpus, dedup, fingerprint_texts, from_texts, sample_corpus, with_background
from n2o_core.corpora.files import (
    SUPPORTED_EXTENSIONS,
    list_columns,
    load_bytes,
    load_file,
    load_hf_dataset,
    text_columns,
)
from n2o_core.corpora.specs import DEFAULT_CORPUS, linkable_spec, load_corpus, parse_hf_spec
from n2o_core.corpora.uploads import is_upload_spec, load_upload, save_upload, upload_name

__all__ = [
    "DEFAULT_CORPUS",
    "SUPPORTED_EXTENSIONS",
    "Corpus",
    "builtin_names",
    "dedup",
    "fingerprint_texts",
    "from_texts",
    "is_upload_spec",
    "linkable_spec",
    "list_builtin_corpora",
    "list_columns",
    "load_builtin",
    "load_bytes",
    "load_corpus",
    "load_file",
    "load_hf_dataset",
    "load_upload",
    "parse_hf_spec",
    "sample_corpus",
    "save_upload",
    "text_columns",
    "upload_name",
    "with_background",
]
