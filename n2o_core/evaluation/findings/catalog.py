"""The catalogue: every finding of the papers checked here (`FINDINGS`, each with its rule bound to the embedders it
names, the setting its verdict uses and why, the other settings shown as sensitivity rows, and where each cut-off
comes from), and `finding(id)`. The findings that judge the N2O matrix between embedders carry one more sensitivity
row beyond the paper, the same rule on linear CKA (`rules_cka`); the others' rules do not carry over to CKA (a
chance level, k, query samples or token overlap), so they get none. The findings that cannot be checked offline
are in `untestable`."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.evaluation.findings.rules_cka import (
    cka_apart_from_every_family,
    cka_further_than_analogue,
    cka_group_agreement,
    cka_subword_apart,
)
from n2o_core.evaluation.findings.rules_heros import (
    antonym_clearly_below_synonym,
    main_below_antonym,
    negation_far_above,
    negations_above_synonym,
)
from n2o_core.evaluation.findings.rules_n2o import (
    PAPER_LOWEST_KAPPA,
    above_chance,
    apart_from_every_family,
    further_than_analogue,
    group_agreement,
    highest_apart,
    lowest_apart,
    popular_share_more_words,
    rankings_stable,
    subword_apart,
)
from n2o_core.evaluation.findings.rules_sts import znorm_narrows_range, znorm_raises
from n2o_core.evaluation.findings.verdict import (
    ALL_NO_TFIDF,
    ALL_WORDS,
    CKA_SCORING,
    CONTENT,
    DEFAULT_SETTING,
    HEROS,
    NEIGHBORS,
    STS,
    Evidence,
    Finding,
    Verdict,
    unchecked,
)
from n2o_core.text import SBERT_STOP_WORDS_NAME

#: Averaged static word vectors (all tokens, as the N2O paper averages), without subword information.
STATIC = ("glove-6b-50d", "word2vec", "fasttext")
#: Mean-pooled sentence transformers (their trained pooling).
TRANSFORMERS = ("minilm-l6-mean", "paraphrase-minilm-l3-mean")
#: Every embedder the neighbor-based findings compare (Table 1's families, as far as they load offline).
N2O_SET = ("tfidf", *STATIC, "fasttext-sub", "minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean")
#: Sentence encoders scored on HEROS pairs: Heros' averaged GloVe (stop words dropped, as sentence-transformers
#: does) and the offline transformer encoders.
HEROS_SET = ("glove-6b-50d-nostop", "minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean", "e5-small")
#: Dense encoders correlated with human similarity (Pitfalls compares dense sentence encoders).
STS_SET = ("glove-6b-50d", "word2vec", "fasttext", "minilm-l6-mean", "paraphrase-minilm-l3-mean")

_N2O_SCORING = "cosine on raw vectors (no z-normalization), exact search; averaged word vectors over all tokens"
_CONTENT_SCORING = f"content words: stop words ({SBERT_STOP_WORDS_NAME}) not counted"
_ALL_SCORING = "every word counted, stop words too"
_NO_TFIDF_SCORING = "every word counted; popular = in the top 5 of every embedder but tf-idf"
_HEROS_SCORING = "Heros' (s − b)/(1 − b) on minimal pairs made from the corpus, raw cosine"
_HEROS_GLOVE_SCORING = (
    f"{_HEROS_SCORING}; averaged GloVe drops the stop words of {SBERT_STOP_WORDS_NAME}, as sentence-transformers' "
    "average_word_embeddings_glove models (evaluated by Heros) do"
)
_STS_SCORING = (
    "gensim's Lee pairs (50 news documents, 1,225 rated pairs); z-normalization per Pitfalls over the 2n pair "
    "rows; averaged GloVe over all tokens (SentEval's average)"
)

# Why each setting (fixed before any result was seen: the paper's own setup, else the one default).
_N2O_REASON = (
    "The paper's setup (N2O §4, App. A and C): cosine similarity, k = 50, five samples of 100 queries, exact "
    "search; Table 1 composes word vectors by averaging over the sentence's tokens and names no stop-word list."
)
_TOKENS_REASON = (
    "N2O §5 / Fig. 5 measure the “average token overlap between a query and its nearest neighbors” and name no "
    f"stop-word list, so {DEFAULT_SETTING}."
)
_POPULAR_REASON = (
    "N2O §7 / Table 2: a popular neighbor is “in the 5-nearest neighborhood for all sentence embedders”, tf-idf "
    f"among them; “lexical overlap” is not defined further, so {DEFAULT_SETTING}."
)
_STS_REASON = (
    "Pitfalls §2 compares the encoders “with SentEval, using its default settings”: SentEval's bag-of-vectors "
    "averages every word that has a vector (no stop-word list); z-normalization as its footnote 1."
)
_HEROS_GLOVE_REASON = (
    "Heros App. C evaluates “Word embedding GloVe” from the SentenceTransformers toolkit, whose averaged GloVe "
    "model drops its stop-word list; similarities normalized as App. D."
)
_HEROS_REASON = (
    "Heros §3 / App. D: cosine of each minimal pair normalized by the mean cosine b of random sentence pairs, "
    "(s − b)/(1 − b); each encoder pools as it was trained."
)
_STS_DATA = (
    "gensim's Lee document pairs (50 news documents, 1,225 rated pairs; corpus-trained embedders fit on gensim's "
    "Lee background corpus): the current corpus is not used"
)

# Where each number of a rule comes from (or the test and its null).
_CI_SAMPLES = "95% t-interval over the query samples (null: no difference); with one sample the point value decides"
_ROBUST_CUT = (
    "0.95 is the tool's bar for a “very high” mean ρ, fixed before any run and set below the paper's minima (0.986, "
    "0.991) because 28 embedder pairs give a noisier ρ than the paper's 210; it is a threshold, not a test."
)
_TOKENS_CUT = (
    "No ratio: Fig. 5 draws 95% confidence intervals over queries, and the rule reads the paper's words off those "
    "intervals (t-intervals over queries; null: equal mean overlap)."
)


def _c_static_agree(ev: Evidence) -> Verdict:
    return group_agreement(ev.n2o.mean, STATIC, TRANSFORMERS, ev.n2o.std) if ev.n2o else unchecked("no N2O")


#: The families tf-idf is set against (N2O §5: "low N2O with other embedders"), as far as they load offline.
TFIDF_FAMILIES = {
    "averaged static": STATIC,
    "subword fastText": ("fasttext-sub",),
    "mean-pooled transformers": TRANSFORMERS,
    "[CLS]": ("minilm-l6-cls",),
}


def _c_tfidf_apart(ev: Evidence) -> Verdict:
    return apart_from_every_family(ev.n2o, "tfidf", TFIDF_FAMILIES) if ev.n2o else unchecked("no N2O")


_STS_TESTED = (
    "Averaged GloVe (6B, 50-d here; 300-d in the paper) on gensim's Lee document pairs with human similarity "
    "scores (the STS Benchmark is not offline). No CI: the 1,225 pairs share 50 documents, so they are not "
    "independent."
)
_GLOVE_NOSTOP = f"averaged GloVe without stop words ({SBERT_STOP_WORDS_NAME})"


def _others(names: Sequence[str], *exclude: str) -> list[str]:
    return [e for e in names if e not in exclude]


def _c_subword(ev: Evidence) -> Verdict:
    if not ev.n2o:
        return unchecked("no N2O")
    return subword_apart(ev.n2o, "fasttext-sub", "fasttext", STATIC, _others(ev.n2o.names, "fasttext-sub", "fasttext"))


def _c_cls(ev: Evidence) -> Verdict:
    if not ev.n2o:
        return unchecked("no N2O")
    return further_than_analogue(
        ev.n2o, "minilm-l6-cls", "minilm-l6-mean", _others(ev.n2o.names, "minilm-l6-cls", "minilm-l6-mean")
    )


def _c_chance(ev: Evidence) -> Verdict:
    return above_chance(ev.n2o) if ev.n2o else unchecked("no N2O")


def _c_robust_k(ev: Evidence) -> Verdict:
    return rankings_stable(ev.n2o.rho_k if ev.n2o else None, 0.95, "values of k")


def _c_robust_samples(ev: Evidence) -> Verdict:
    return rankings_stable(ev.n2o.rho_samples if ev.n2o else None, 0.95, "query samples")


def _tokens(ev: Evidence, words: str) -> pd.DataFrame | None:
    return ev.tokens.get(words)


def _c_tok_tfidf(ev: Evidence, words: str = ALL_WORDS) -> Verdict:
    f = _tokens(ev, words)
    return highest_apart(f, "tfidf") if f is not None else unchecked("no token overlap")


def _c_tok_subword(ev: Evidence, words: str = ALL_WORDS) -> Verdict:
    f = _tokens(ev, words)
    return lowest_apart(f, "fasttext-sub") if f is not None else unchecked("no token overlap")


def _c_popular(ev: Evidence, words: str = ALL_WORDS) -> Verdict:
    return popular_share_more_words(ev.popular.get(words))


def _c_heros_glove(ev: Evidence, eid: str = "glove-6b-50d-nostop") -> Verdict:
    return negation_far_above(ev.heros, eid)


def _c_heros_main(ev: Evidence) -> Verdict:
    return main_below_antonym(ev.heros, HEROS_SET, 0.8)


def _c_heros_neg_above(ev: Evidence, eid: str) -> Verdict:
    return negations_above_synonym(ev.heros, eid)


def _c_heros_para_antonym(ev: Evidence) -> Verdict:
    return antonym_clearly_below_synonym(ev.heros, "paraphrase-minilm-l3-mean")


def _c_sts_glove(ev: Evidence, scoring: str, eid: str = "glove-6b-50d") -> Verdict:
    return znorm_raises(ev.sts, eid, scoring)


def _c_sts_range(ev: Evidence) -> Verdict:
    return znorm_narrows_range(ev.sts, STS_SET)


FINDINGS: tuple[Finding, ...] = (
    # ------------------------------------------------------------------ N2O (Lin & Smith 2019)
    Finding(
        "n2o-static-agree",
        "N2O",
        "§5, Fig. 4 (left)",
        "Averaged static word embeddings agree with each other",
        "“We first observe that there is generally high N2O among this set of embedders [averages of static word "
        "embeddings] in comparison to other categories.”",
        "N2O among averaged GloVe, word2vec and fastText (no subwords) vs their N2O with the mean-pooled sentence "
        "transformers (all-MiniLM-L6-v2, paraphrase-MiniLM-L3-v2), the offline stand-ins for the other categories.",
        NEIGHBORS,
        (*STATIC, *TRANSFORMERS),
        "mean N2O over the 3 static pairs > mean N2O over the 6 static × transformer pairs",
        _N2O_SCORING,
        _c_static_agree,
        _N2O_REASON,
        sensitivity=((CKA_SCORING, partial(cka_group_agreement, group=STATIC, others=TRANSFORMERS)),),
        cutoff_reason="No cut-off: “high in comparison to other categories” is read as within > between.",
    ),
    Finding(
        "n2o-subword-apart",
        "N2O",
        "§5",
        "Subword information sets fastText apart, from its analogue too",
        "“The use of subword information [...] has a large effect on N2O; there is a high (0.52) N2O value between "
        "these two and much lower N2O with other embedders, including their analogues without subword information.”",
        "fastText with subwords vs the same fastText without them: N2O(fasttext, fasttext-sub) against the N2O the "
        "averaged static embedders have with each other, and fasttext-sub's N2O with the other embedders against "
        "fasttext's. Both fastText models are trained here on the corpus itself with the same settings, so they "
        "share their training far more than the paper's pretrained pairs (Wikipedia/news vs Common Crawl, separately "
        "trained): their neighbors may agree more than the paper's did. (The 0.52 between two subword models is not "
        "testable: one subword model is built in.)",
        NEIGHBORS,
        N2O_SET,
        "N2O(fasttext, fasttext-sub) < the mean N2O among glove-6b-50d, word2vec and fasttext, and fasttext-sub's "
        "mean N2O with the other 6 embedders < fasttext's: each difference's 95% t-interval over the query samples "
        "above 0",
        _N2O_SCORING,
        _c_subword,
        _N2O_REASON,
        sensitivity=((CKA_SCORING, partial(cka_subword_apart, sub="fasttext-sub", analogue="fasttext", group=STATIC)),),
        cutoff_reason=f"No ratio: “much lower” is read as lower beyond the query-sampling error; {_CI_SAMPLES}.",
    ),
    Finding(
        "n2o-tfidf-apart",
        "N2O",
        "§5",
        "tf-idf has low N2O with every family, even the static averages",
        "“Unsurprisingly, tf-idf has low N2O with other embedders (even those based on static word embeddings).”",
        "For each family here (averaged static, subword fastText, mean-pooled transformers, [CLS]): tf-idf's N2O with "
        "its members against the N2O its members have with every other embedder but tf-idf.",
        NEIGHBORS,
        N2O_SET,
        "for every family: mean N2O of tf-idf with the family < mean N2O of the family with the other embedders "
        "(tf-idf left out), the difference's 95% t-interval over the query samples above 0",
        _N2O_SCORING,
        _c_tfidf_apart,
        _N2O_REASON,
        sensitivity=((CKA_SCORING, partial(cka_apart_from_every_family, target="tfidf", families=TFIDF_FAMILIES)),),
        cutoff_reason=f"No cut-off: “low” is read as below the family's own agreement with the rest; {_CI_SAMPLES}.",
    ),
    Finding(
        "n2o-cls-outlier",
        "N2O",
        "§5, Fig. 6",
        "A [CLS] vector is an outlier next to mean pooling of the same model",
        "“Specific-token representations for BERT or GPT (bert-base-cls, gpt-last) are outliers compared to other "
        "embedders (i.e., low N2O) [...] this effect seems to hold even for the MultiNLI-finetuned version of BERT "
        "[...] taking averaged BERT and GPT embeddings yields higher N2O with other embedders.”",
        "Offline analogue: all-MiniLM-L6-v2's [CLS] vector vs its mean pooling (the same forward pass; a "
        "fine-tuned encoder, as bert-ft-cls). BERT and GPT themselves are not available offline.",
        NEIGHBORS,
        N2O_SET,
        "mean N2O of minilm-l6-cls with the other 6 embedders < that of minilm-l6-mean, the difference's 95% "
        "t-interval over the query samples above 0",
        _N2O_SCORING,
        _c_cls,
        _N2O_REASON,
        sensitivity=(
            (CKA_SCORING, partial(cka_further_than_analogue, target="minilm-l6-cls", analogue="minilm-l6-mean")),
        ),
        cutoff_reason=f"No ratio: “yields higher N2O” is read as higher beyond the sampling error; {_CI_SAMPLES}.",
    ),
    Finding(
        "n2o-above-chance",
        "N2O",
        "§5",
        "Every pair is far above chance",
        "“The values range from 0.04 to 0.62 [...] even an N2O of 0.04 is unlikely from random chance alone.”",
        "Every pair of the embedders here against the chance level c = k/(N − 1) of this corpus, as the "
        "chance-corrected N2O (N2O − c)/(1 − c).",
        NEIGHBORS,
        N2O_SET,
        f"for every pair: (N2O − c)/(1 − c) ≥ {PAPER_LOWEST_KAPPA}",
        _N2O_SCORING,
        _c_chance,
        _N2O_REASON,
        paper_numbers="0.04–0.62 on ~8M sentences",
        cutoff_reason=(
            f"{PAPER_LOWEST_KAPPA} is the paper's lowest N2O, whose chance level there (50 of ~8M sentences, ≈ 6e-6) "
            "is nil: the same excess over chance, corrected for this corpus's much higher chance level."
        ),
    ),
    Finding(
        "tokens-tfidf-highest",
        "N2O",
        "§5, Fig. 5",
        "tf-idf's neighbors share by far the most words with the query",
        "“Its [tf-idf's] nearest neighbors have by far the largest token overlap with the query (0.43).”",
        "Token overlap (share of the query's distinct words found in each neighbor, k = 50) per embedder.",
        NEIGHBORS,
        N2O_SET,
        "tf-idf's 95% interval of mean token overlap lies above every other embedder's",
        _ALL_SCORING,
        _c_tok_tfidf,
        _TOKENS_REASON,
        ((_CONTENT_SCORING, partial(_c_tok_tfidf, words=CONTENT)),),
        paper_numbers="tf-idf 0.43",
        cutoff_reason=_TOKENS_CUT,
    ),
    Finding(
        "tokens-subword-lowest",
        "N2O",
        "§5, Fig. 5",
        "Subword fastText's neighbors share the fewest words with the query",
        "“As we would expect, subword methods find near neighbors with lower token overlap, because they embed "
        "surface-similar strings near to each other.”",
        "Token overlap per embedder; fastText with subwords should be the lowest.",
        NEIGHBORS,
        N2O_SET,
        "fasttext-sub's 95% interval of mean token overlap lies below every other embedder's",
        _ALL_SCORING,
        _c_tok_subword,
        _TOKENS_REASON,
        ((_CONTENT_SCORING, partial(_c_tok_subword, words=CONTENT)),),
        cutoff_reason=_TOKENS_CUT,
    ),
    Finding(
        "n2o-robust-k",
        "N2O",
        "§6, Varying k",
        "Pair rankings are stable across k",
        "“The average Spearman's ρ is very high (0.996; min. 0.986) — i.e., the rankings of embedder similarity by "
        "N2O are reasonably stable across different values of k.”",
        "Spearman ρ between the embedder-pair rankings at k ∈ {5, 10, …, 50} (all pooled queries).",
        NEIGHBORS,
        N2O_SET,
        "mean ρ over every two values of k ≥ 0.95",
        _N2O_SCORING,
        _c_robust_k,
        _N2O_REASON,
        paper_numbers="mean ρ 0.996, min 0.986",
        cutoff_reason=_ROBUST_CUT,
    ),
    Finding(
        "n2o-robust-samples",
        "N2O",
        "§6, Query sampling",
        "Pair rankings are stable across query samples",
        "“We compute Spearman's ρ across different N2O samples [...] (k = 50) and find an average ρ of 0.994 "
        "(min. 0.991).”",
        "Spearman ρ between the embedder-pair rankings of every two query samples at k.",
        NEIGHBORS,
        N2O_SET,
        "mean ρ over every two query samples ≥ 0.95",
        _N2O_SCORING,
        _c_robust_samples,
        _N2O_REASON,
        paper_numbers="mean ρ 0.994, min 0.991; std across samples 0.005–0.019",
        cutoff_reason=_ROBUST_CUT,
    ),
    Finding(
        "popular-lexical",
        "N2O",
        "§7",
        "Popular neighbors share many words with the query",
        "“We also observe that extremely ‘popular’ neighbors tend to have high lexical overlap with the query.”",
        "Token overlap of the neighbors in every embedder's top 5 (popular; tf-idf among the embedders, as in the "
        "paper's Table 2, so part of the overlap is built in: a popular neighbor must be one of tf-idf's nearest) vs "
        "of all the embedders' top-50 neighbors, on the queries that have a popular neighbor.",
        NEIGHBORS,
        N2O_SET,
        "the popular neighbors' 95% CI (t-interval over queries) lies entirely above that of all neighbors",
        _ALL_SCORING,
        _c_popular,
        _POPULAR_REASON,
        (
            (_CONTENT_SCORING, partial(_c_popular, words=CONTENT)),
            (_NO_TFIDF_SCORING, partial(_c_popular, words=ALL_NO_TFIDF)),
        ),
        cutoff_reason="No cut-off: t-intervals over queries (null: popular and all neighbors share as many words).",
    ),
    # ------------------------------------------------------------------ Pitfalls (Eger et al. 2019)
    Finding(
        "sts-znorm-glove",
        "Pitfalls",
        "§3, Table 2",
        "z-normalization raises averaged GloVe's Pearson correlation with human similarity",
        "“Average Glove embeddings improve from 0.41 Pearson to 0.62 Pearson [after z-normalization].”",
        _STS_TESTED,
        STS,
        ("glove-6b-50d", "glove-6b-50d-nostop"),
        "Pearson correlation higher after z-normalization",
        _STS_SCORING,
        partial(_c_sts_glove, scoring="pearson"),
        _STS_REASON,
        ((_GLOVE_NOSTOP, partial(_c_sts_glove, scoring="pearson", eid="glove-6b-50d-nostop")),),
        paper_numbers="Pearson 0.41 → 0.62 (STS-B, GloVe 300-d)",
        cutoff_reason="No cut-off: “improve” is read as higher (no interval: the pairs are not independent).",
        data=_STS_DATA,
    ),
    Finding(
        "sts-znorm-glove-spearman",
        "Pitfalls",
        "§3",
        "… and its Spearman correlation too",
        "“When replacing Pearson by Spearman correlation, we observed very similar trends: e.g., Glove-300d had 0.44 "
        "before and 0.58 after normalization.”",
        _STS_TESTED,
        STS,
        ("glove-6b-50d", "glove-6b-50d-nostop"),
        "Spearman correlation higher after z-normalization",
        _STS_SCORING,
        partial(_c_sts_glove, scoring="spearman"),
        _STS_REASON,
        ((_GLOVE_NOSTOP, partial(_c_sts_glove, scoring="spearman", eid="glove-6b-50d-nostop")),),
        paper_numbers="Spearman 0.44 → 0.58 (STS-B, GloVe 300-d)",
        cutoff_reason="No cut-off: “similar trends” is read as higher (no interval: the pairs are not independent).",
        data=_STS_DATA,
    ),
    Finding(
        "sts-znorm-range",
        "Pitfalls",
        "§3, Table 2",
        "z-normalization narrows the gap between encoders",
        "“With normalization, we observe a reduction in the range of the distribution of UCP scores across the nine "
        "systems from 29% to 9% [...] the worst sentence encoders catch up substantially.”",
        "The range of Pearson correlations across the dense encoders here (averaged GloVe, word2vec and fastText "
        "trained on gensim's Lee background corpus, two MiniLM transformers) on the Lee pairs, raw vs z-normalized.",
        STS,
        STS_SET,
        "max − min of the encoders' Pearson correlations is smaller after z-normalization",
        _STS_SCORING,
        _c_sts_range,
        _STS_REASON,
        paper_numbers="range 29% → 9% over 9 systems (STS-B)",
        cutoff_reason="No cut-off: “a reduction in the range” is read as a smaller range.",
        data=_STS_DATA,
    ),
    # ------------------------------------------------------------------ Heros (Chiang et al.)
    Finding(
        "heros-glove-negation",
        "Heros",
        "§3.2, Fig. 2 (first row)",
        "Averaged GloVe barely notices a negation",
        "“We observe that the sentence before and after negation have very high similarity, and the similarity is "
        "much higher than replacing one word with its synonym or antonym. This shows that negation words have a "
        "very small contribution to the sentence embedding obtained from averaging the GLoVe embeddings.”",
        "Averaged GloVe (6B, 50-d here; Heros used the 300-d sentence-transformers model, which drops stop words) "
        "on minimal pairs made from this corpus.",
        HEROS,
        ("glove-6b-50d-nostop", "glove-6b-50d"),
        "both negation subsets' 95% bootstrap intervals of normalized similarity lie above both the Synonym's and "
        "the Antonym's",
        _HEROS_GLOVE_SCORING,
        _c_heros_glove,
        _HEROS_GLOVE_REASON,
        (("averaged GloVe over all tokens (stop words kept)", partial(_c_heros_glove, eid="glove-6b-50d")),),
        cutoff_reason="No ratio: “much higher” is read as higher beyond the bootstrap intervals (null: equal means).",
    ),
    Finding(
        "heros-main-below-antonym",
        "Heros",
        "§3.2",
        "Negating the main verb moves a sentence more than negating another word",
        "“Almost all SEs rate Negation (Main) to be less similar compared with Negation (Antonym).”",
        "Negation (Main) vs Negation (Antonym) for every offline sentence encoder: averaged GloVe (as Heros), "
        "all-MiniLM-L6-v2 (mean and [CLS]), paraphrase-MiniLM-L3-v2, multilingual-e5-small.",
        HEROS,
        HEROS_SET,
        "normalized Negation (Main) < Negation (Antonym) for ≥ 80% of these encoders (a tie is not below)",
        _HEROS_GLOVE_SCORING,
        _c_heros_main,
        _HEROS_GLOVE_REASON,
        cutoff_reason="80%: “almost all” read as at least 4 of the 5 encoders here, fixed before any run; not a test.",
    ),
    Finding(
        "heros-l3-negation",
        "Heros",
        "§3.1, Fig. 1 (paraphrase block)",
        "paraphrase-MiniLM-L3 rates negations above synonyms",
        "“The only exception is the MiniLM L3 (para) model, which has very high similarity on the Negation subsets "
        "and is even higher than the Synonym subset.”",
        "The same model (paraphrase-MiniLM-L3-v2, run as its packaged ONNX graph) on minimal pairs made from this "
        "corpus.",
        HEROS,
        ("paraphrase-minilm-l3-mean",),
        "normalized Negation (Main) > Synonym and Negation (Antonym) > Synonym",
        _HEROS_SCORING,
        partial(_c_heros_neg_above, eid="paraphrase-minilm-l3-mean"),
        _HEROS_REASON,
        cutoff_reason="No cut-off: “even higher” is read as a higher mean.",
    ),
    Finding(
        "heros-all-negation",
        "Heros",
        "§3.1, Fig. 1 (all block)",
        "Models trained on all sentence-pair data rate negations above synonyms",
        "“In the fifth block [fine-tuned on all available sentence-pair data], the similarity between sentence "
        "pairs from the two Negation subsets is very high and is even higher than the similarity of the Synonym "
        "subset for most models.”",
        "all-MiniLM-L6-v2, the one offline member of that block (the paper says “most models”, so one model "
        "failing is not a contradiction).",
        HEROS,
        ("minilm-l6-mean",),
        "normalized Negation (Main) > Synonym and Negation (Antonym) > Synonym",
        _HEROS_SCORING,
        partial(_c_heros_neg_above, eid="minilm-l6-mean"),
        _HEROS_REASON,
        cutoff_reason="No cut-off: “even higher” is read as a higher mean.",
    ),
    Finding(
        "heros-paraphrase-antonym",
        "Heros",
        "§3.1, Fig. 1 (paraphrase block)",
        "Paraphrase-tuned models are sensitive to antonyms",
        "“SEs fine-tuned on paraphrase datasets are extremely sensitive to negations and antonyms [...] these SEs "
        "are also sensitive to replacing words with antonyms.”",
        "paraphrase-MiniLM-L3-v2, the one offline member of that block (the paper names it an exception for "
        "negation only). The rule does not set it against models that are not paraphrase-tuned, which may be "
        "sensitive to antonyms too.",
        HEROS,
        ("paraphrase-minilm-l3-mean",),
        "the 95% bootstrap CI of normalized Antonym lies entirely below Synonym's",
        _HEROS_SCORING,
        _c_heros_para_antonym,
        _HEROS_REASON,
        cutoff_reason="No cut-off: bootstrap intervals (null: equal means).",
    ),
)

_BY_ID = {f.id: f for f in FINDINGS}


def finding(fid: str) -> Finding:
    """The finding with this id (N2OError when unknown)."""
    try:
        return _BY_ID[fid]
    except KeyError:
        raise N2OError(f"Unknown finding '{fid}'; known: {', '.join(_BY_ID)}.") from None
