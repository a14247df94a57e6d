"""What the catalogue's findings share: the embedder sets, how each setting is named and why it was chosen, where a
rule's numbers come from, the settings' history, and the caveats that may explain a failure here.

A finding's text may hold `{fit}` (how many sentences the corpus-trained embedders were trained on) and
`{chance}` (k/(N − 1) of the run): `result.explain` fills them from the run's setup."""

from __future__ import annotations

from n2o_core.evaluation.findings.verdict import DEFAULT_SETTING
from n2o_core.text import SBERT_STOP_WORDS_NAME

# ----------------------------------------------------------------------------------------------- embedder sets

#: Averaged static word embeddings (all tokens, as the N2O paper averages), without subword information.
STATIC = ("glove-6b-50d", "word2vec", "fasttext")
#: Mean-pooled sentence transformers (their trained pooling).
TRANSFORMERS = ("minilm-l6-mean", "paraphrase-minilm-l3-mean")
#: Every embedder the neighbor-based findings compare (Table 1's families, as far as they load offline).
N2O_SET = ("tfidf", *STATIC, "fasttext-sub", "minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean")
#: The offline transformer sentence encoders scored on HEROS pairs (each in its trained pooling, [CLS] too).
HEROS_TRANSFORMERS = ("minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean", "e5-small")
#: Sentence encoders scored on HEROS pairs: Heros' averaged GloVe (stop words dropped, as sentence-transformers
#: does) and the offline transformer encoders.
HEROS_SET = ("glove-6b-50d-nostop", *HEROS_TRANSFORMERS)
#: What the HEROS findings compute, once per run for all of them: HEROS_SET and averaged GloVe over every token.
HEROS_ALL = (*HEROS_SET, "glove-6b-50d")
#: Dense encoders correlated with human similarity (Pitfalls compares dense sentence encoders).
STS_SET = ("glove-6b-50d", "word2vec", "fasttext", "minilm-l6-mean", "paraphrase-minilm-l3-mean")
#: What the Pitfalls findings compute, once for all of them: STS_SET and averaged GloVe without stop words.
STS_ALL = (*STS_SET, "glove-6b-50d-nostop")
#: Bag-of-vectors (SentEval's BoV: averaged word vectors), its corpus-trained fastText variant and the word-based
#: baseline, probed once per run for every SentEval finding.
BOV, BOV_FASTTEXT, WORD_BASELINE = "glove-6b-50d", "fasttext", "tfidf"
PROBE_SET = (BOV, BOV_FASTTEXT, WORD_BASELINE)
#: The families tf-idf is set against in the stricter reading ("below every family"), as far as they load offline.
TFIDF_FAMILIES = {
    "averaged static": STATIC,
    "subword fastText": ("fasttext-sub",),
    "mean-pooled transformers": TRANSFORMERS,
    "[CLS]": ("minilm-l6-cls",),
}

# ----------------------------------------------------------------------------------------------- settings

N2O_SCORING = "cosine on raw vectors (no z-normalization), exact search; averaged word vectors over all tokens"
CONTENT_SCORING = f"content words: stop words ({SBERT_STOP_WORDS_NAME}) not counted"
ALL_SCORING = "every word counted, stop words too"
NO_TFIDF_SCORING = "content words; popular = in the top 5 of every embedder but tf-idf"
HEROS_SCORING = "Heros' (s − b)/(1 − b) on minimal pairs made from the corpus, raw cosine"
HEROS_GLOVE_SCORING = (
    f"{HEROS_SCORING}; averaged GloVe drops the stop words of {SBERT_STOP_WORDS_NAME}, as sentence-transformers' "
    "average_word_embeddings_glove models (evaluated by Heros) do"
)
STS_SCORING = (
    "gensim's Lee pairs (50 news documents, 1,225 rated pairs); z-normalization per Pitfalls over the 2n pair "
    "rows; averaged GloVe over all tokens (SentEval's average)"
)
PROBE_SCORING = (
    "SentEval's tasks built from the corpus (probe.tasks); bag-of-vectors = averaged pretrained GloVe over every "
    "token; read out by the MLP (sigmoid hidden layer, dev-selected), as Table 2"
)
GLOVE_NOSTOP = f"averaged GloVe without stop words ({SBERT_STOP_WORDS_NAME})"

N2O_REASON = (
    "The paper's setup (N2O §4, App. A and C): cosine similarity, k = 50, five samples of 100 queries, exact "
    "search; Table 1 composes word vectors by averaging over the sentence's tokens and names no stop-word list."
)
TOKENS_REASON = (
    "N2O §5 / Fig. 5 measure the “average token overlap between a query and its nearest neighbors” and name no "
    f"stop-word list, so {DEFAULT_SETTING}."
)
POPULAR_REASON = (
    "N2O §7 / Table 2: a popular neighbor is “in the 5-nearest neighborhood for all sentence embedders”, tf-idf "
    f"among them; “lexical overlap” is not defined further, so {DEFAULT_SETTING}."
)
STS_REASON = (
    "Pitfalls §2 compares the encoders “with SentEval, using its default settings”: SentEval's bag-of-vectors "
    "averages every word that has a vector (no stop-word list); z-normalization as its footnote 1."
)
HEROS_GLOVE_REASON = (
    "Heros App. C evaluates “Word embedding GloVe” from the SentenceTransformers toolkit, whose averaged GloVe "
    "model drops its stop-word list; similarities normalized as App. D."
)
HEROS_REASON = (
    "Heros §3 / App. D: cosine of each minimal pair normalized by the mean cosine b of random sentence pairs, "
    "(s − b)/(1 − b); each encoder pools as it was trained."
)
PROBE_REASON = (
    "SentEval §4: the sentences quoted are about Table 2, read out by “a MLP with sigmoid nonlinearity”; BoV "
    "“derives sentence representations by averaging the fastText embeddings of the words they contain”, and "
    "footnote 3 says “similar results are obtained [...] using GloVe embeddings”: the pretrained word vectors here "
    "are GloVe's (fastText is trained on the corpus itself here, a sensitivity row)."
)
STS_DATA = (
    "gensim's Lee document pairs (50 news documents, 1,225 rated pairs; corpus-trained embedders fit on gensim's "
    "Lee background corpus): the current corpus is not used"
)

# ----------------------------------------------------------------------------------------------- cut-offs

CI_SAMPLES = "95% t-interval over the query samples (null: no difference); with one sample the point value decides"
#: A cut-off the paper gives no number for: the one default rule (`DEFAULT_RULE`, stated once in every output).
DEFAULT_CUT = "The paper gives no number here: the tool's one default rule applies."
ROBUST_K_CUT = (
    "0.986 is the paper's minimum ρ between two values of k (mean 0.996): the mean ρ here must reach the lowest "
    "value the paper reports as “very high”. 8 embedders give 28 pairs to rank (the paper: 21 embedders, 210), so "
    "ρ is noisier here; 0.95, the tool's earlier bar (not from the paper), is the looser reading."
)
ROBUST_SAMPLES_CUT = (
    "0.991 is the paper's minimum ρ between two query samples (mean 0.994): the mean ρ here must reach it. 28 pairs "
    "here against the paper's 210 make ρ noisier; 0.95, the tool's earlier bar (not from the paper), is the looser "
    "reading."
)
TOKENS_CUT = (
    "No number in the paper: Fig. 5 draws 95% confidence intervals over queries, and the rule reads the paper's "
    "words off those intervals (t-intervals over queries; apart = not overlapping), by the tool's one default rule."
)

# ----------------------------------------------------------------------------------------------- history

#: Every finding's history: when its rules and settings were written, and what was known then.
HISTORY = (
    "Catalogue first written on 2026-11-23 (commit 1ba48d9), with ratio and threshold cut-offs; rules rewritten as "
    "interval tests on 2026-11-25 (4d5ef12) and re-read from the papers' sentences on 2026-11-26 (issue 33). Both "
    "rewrites were made with the earlier rules' results on BBC News known (docs/findings_bbc*.txt): none of these "
    "rules was written blind to results; each setting follows the stated rule (the paper's, else the one default)."
)
TOKENS_HISTORY = (
    " Setting: content words from 2026-11-23 (1ba48d9; the token page's default since 729c23f, the same day); every "
    "token counted from 2026-11-25 (4d5ef12), a change made after the published run of 2026-11-23 "
    "(docs/findings_bbc2000.txt) had shown both settings; content words again from 2026-11-26 (issue 33), so that "
    "“the tool's default” means what the token-overlap page opens on."
)
PROBE_HISTORY = (
    "Added on 2026-11-26 (issue 33), the setting and rule written from SentEval's sentences before any of these "
    "findings was computed; the probing page's results on BBC News (README) were known."
)

# ----------------------------------------------------------------------------------------------- explanations

STATIC_HERE = (
    "The static vectors are not the paper's: GloVe 6B 50-d here (the paper: 100-d and 300-d, and 840B Common "
    "Crawl), and word2vec and fastText trained here on {fit} of the corpus (the paper: pretrained on 3B–600B "
    "tokens), whose neighbors carry the noise of one small training (see the same-recipe reference on the heatmap)."
)
TRANSFORMERS_HERE = (
    "The paper's BERT and GPT (base, 2019) are not offline: MiniLM sentence transformers fine-tuned on sentence "
    "pairs stand in for them (all-MiniLM-L6-v2 mean and [CLS]; paraphrase-MiniLM-L3-v2), so every contextual "
    "embedder here is trained for similarity, which the paper's (but fine-tuned BERT) were not."
)
SMALL_CORPUS = (
    "The corpus is far smaller than the paper's 8 million Gigaword sentences: chance here is k/(N − 1) = {chance} "
    "(≈ 6e-6 there), and fewer true neighbors exist for each query."
)
HEROS_PAIRS_HERE = (
    "The minimal pairs are generated here by rule (WordNet, spaCy) from the corpus's sentences, not hand-made by "
    "the authors from Reddit comments (GoEmotions); a blind reading finds a few percent of each subset invalid "
    "(docs/heros_sample.md), and which word is changed, and where the negation goes, differ from Heros'."
)
LEE_HERE = (
    "gensim's Lee pairs (whole news documents, 1,225 pairs over 50 documents, not independent) stand in for the "
    "STS Benchmark's sentence pairs, which are not offline; GloVe is 50-d here (300-d in the paper)."
)
PROBE_HERE = (
    "The tasks are built here from the corpus with spaCy's dependency parses (the paper: the Stanford PCFG parser on "
    "the Toronto Book Corpus), with at most the run's items per class (the paper: 100k training sentences per "
    "task), so accuracies are noisier and some tasks have fewer classes; BoV is averaged GloVe 50-d here (the "
    "paper: fastText 300-d; its footnote 3 says GloVe gives similar results), and scikit-learn's MLP has no "
    "dropout."
)
