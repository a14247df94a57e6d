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

The paper kept 75 pairs. When the filters keep fewer (gensim's Lee pairs: 18 of 1,225), `biggest_drop` names the
filter that dropped the most and `looser_setting` relaxes it just enough for 75, a deviation said by `deviations`.

The package, by job: `frame` (the types, `pairs_from_records`), `files` (local pair files), `sources`
(`load_pairs`: files, Hugging Face, Lee, synthetic) and `filters` (the paper's filters). This face exports their
public names.
"""

from __future__ import annotations

from n2o_core.evaluation.pairs.files import guess_pair_columns, pair_file_columns, read_pair_file
from n2o_core.evaluation.pairs.filters import (
    NEWS_GENRE,
    OVERLAP_MEASURES,
    PAPER_MAX_OVERLAP,
    PAPER_MIN_SCORE,
    PAPER_N_PAIRS,
    LooserSetting,
    biggest_drop,
    deviations,
    filter_pairs,
    kept_line,
    looser_setting,
    paper_defaults,
    word_overlap,
)
from n2o_core.evaluation.pairs.frame import (
    FRAME_COLUMNS,
    STSB_COLUMNS,
    SYNTHETIC_RULES,
    FilteredPairs,
    Pairs,
    PairSource,
    pairs_from_records,
)
from n2o_core.evaluation.pairs.sources import lee_pairs, load_pairs, synthetic_pairs

__all__ = [
    "FRAME_COLUMNS",
    "NEWS_GENRE",
    "OVERLAP_MEASURES",
    "PAPER_MAX_OVERLAP",
    "PAPER_MIN_SCORE",
    "PAPER_N_PAIRS",
    "STSB_COLUMNS",
    "SYNTHETIC_RULES",
    "FilteredPairs",
    "LooserSetting",
    "PairSource",
    "Pairs",
    "biggest_drop",
    "deviations",
    "filter_pairs",
    "guess_pair_columns",
    "kept_line",
    "lee_pairs",
    "load_pairs",
    "looser_setting",
    "pair_file_columns",
    "pairs_from_records",
    "paper_defaults",
    "read_pair_file",
    "synthetic_pairs",
    "word_overlap",
]
