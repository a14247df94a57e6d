"""The N2O paper's findings (Lin & Smith 2019) checked here, each bound to its rule, its fixed setting and its
sensitivity rows (other settings, stricter or looser readings, and, for the four that judge the N2O matrix between
embedders, the same rule on linear CKA)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import pandas as pd

import n2o_core.evaluation.findings.rules_cka as rc
import n2o_core.evaluation.findings.rules_n2o as rn
import n2o_core.evaluation.findings.rules_tokens as rt
from n2o_core.evaluation.findings.catalog_text import (
    ALL_SCORING,
    CI_SAMPLES,
    CONTENT_SCORING,
    DEFAULT_CUT,
    HISTORY,
    N2O_REASON,
    N2O_SCORING,
    N2O_SET,
    NO_TFIDF_SCORING,
    POPULAR_REASON,
    ROBUST_K_CUT,
    ROBUST_SAMPLES_CUT,
    SMALL_CORPUS,
    STATIC,
    STATIC_HERE,
    TFIDF_FAMILIES,
    TOKENS_CUT,
    TOKENS_HISTORY,
    TOKENS_REASON,
    TRANSFORMERS,
    TRANSFORMERS_HERE,
)
from n2o_core.evaluation.findings.verdict import (
    ALL_WORDS,
    CKA_SCORING,
    CONTENT,
    NEIGHBORS,
    NO_TFIDF,
    Evidence,
    Finding,
    Verdict,
    unchecked,
)

#: The paper's minimum ρ between two values of k, and between two query samples (N2O §6).
PAPER_MIN_RHO_K, PAPER_MIN_RHO_SAMPLES = 0.986, 0.991
#: The tool's earlier bar for both (not from the paper): the looser reading.
LOOSER_RHO = 0.95


def _others(names: Sequence[str], *exclude: str) -> list[str]:
    return [e for e in names if e not in exclude]


def _c_static_agree(ev: Evidence) -> Verdict:
    return rn.group_agreement(ev.n2o, STATIC, TRANSFORMERS) if ev.n2o else unchecked("no N2O")


def _c_subword(ev: Evidence) -> Verdict:
    if not ev.n2o:
        return unchecked("no N2O")
    others = _others(ev.n2o.names, "fasttext-sub", "fasttext")
    return rn.subword_apart(ev.n2o, "fasttext-sub", "fasttext", STATIC, others, ev.seed_reference)


def _c_tfidf_low(ev: Evidence) -> Verdict:
    return rn.low_with_others(ev.n2o, "tfidf", STATIC) if ev.n2o else unchecked("no N2O")


def _c_tfidf_every_family(ev: Evidence) -> Verdict:
    return rn.apart_from_every_family(ev.n2o, "tfidf", TFIDF_FAMILIES) if ev.n2o else unchecked("no N2O")


def _c_cls(ev: Evidence) -> Verdict:
    if not ev.n2o:
        return unchecked("no N2O")
    return rn.further_than_analogue(
        ev.n2o, "minilm-l6-cls", "minilm-l6-mean", _others(ev.n2o.names, "minilm-l6-cls", "minilm-l6-mean")
    )


def _c_chance(ev: Evidence) -> Verdict:
    return rn.above_chance(ev.n2o) if ev.n2o else unchecked("no N2O")


def _c_chance_margin(ev: Evidence) -> Verdict:
    return rn.above_chance_by_margin(ev.n2o) if ev.n2o else unchecked("no N2O")


def _c_robust(ev: Evidence, what: str, threshold: float) -> Verdict:
    rho = None if ev.n2o is None else ev.n2o.rho_k if what == "values of k" else ev.n2o.rho_samples
    return rn.rankings_stable(rho, threshold, what)


def _robust(
    fid: str, where: str, title: str, statement: str, tested: str, what: str, rho: float, numbers: str, cut: str
) -> Finding:
    """A robustness finding of §6: the mean ρ between the pair rankings of every two `what` at least the paper's
    minimum `rho`; the tool's earlier 0.95 as the looser reading."""
    return Finding(
        fid,
        "N2O",
        where,
        title,
        statement,
        tested,
        NEIGHBORS,
        N2O_SET,
        f"mean ρ over every two {what} ≥ {rho}",
        N2O_SCORING,
        partial(_c_robust, what=what, threshold=rho),
        N2O_REASON,
        (
            (
                f"looser reading: mean ρ ≥ {LOOSER_RHO} (the tool's earlier bar)",
                partial(_c_robust, what=what, threshold=LOOSER_RHO),
            ),
        ),
        paper_numbers=numbers,
        cutoff_reason=cut,
        history=HISTORY,
        explanation=(
            f"8 embedders give 28 pairs to rank (the paper: 210), so one pair changing places between two {what} "
            f"moves ρ more. {SMALL_CORPUS}"
        ),
    )


def _tokens(ev: Evidence, words: str) -> pd.DataFrame | None:
    return ev.tokens.get(words)


def _c_tok_tfidf(ev: Evidence, words: str = CONTENT) -> Verdict:
    f = _tokens(ev, words)
    return rt.highest_apart(f, "tfidf") if f is not None else unchecked("no token overlap")


def _c_tok_subword(ev: Evidence, words: str = CONTENT) -> Verdict:
    f = _tokens(ev, words)
    return rt.below_analogue(f, "fasttext-sub", "fasttext") if f is not None else unchecked("no token overlap")


def _c_tok_subword_lowest(ev: Evidence) -> Verdict:
    f = _tokens(ev, CONTENT)
    return rt.lowest_apart(f, "fasttext-sub") if f is not None else unchecked("no token overlap")


def _c_popular(ev: Evidence, words: str = CONTENT) -> Verdict:
    return rt.popular_share_more_words(ev.popular.get(words))


N2O_FINDINGS: tuple[Finding, ...] = (
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
        N2O_SET,
        "mean N2O over the 3 static pairs − mean N2O over the 6 static × transformer pairs, per query sample: its 95% "
        "t-interval above 0",
        N2O_SCORING,
        _c_static_agree,
        N2O_REASON,
        sensitivity=((CKA_SCORING, partial(rc.cka_group_agreement, group=STATIC, others=TRANSFORMERS)),),
        cutoff_reason="“High in comparison to other categories” is read as within > between. " + DEFAULT_CUT,
        history=HISTORY,
        explanation=f"{STATIC_HERE} {TRANSFORMERS_HERE}",
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
        "fasttext's. Beside the numbers (never in the test): the same-recipe reference, N2O between two trainings of "
        "each recipe that differ in the seed alone, the ceiling a corpus-trained pair is read against. (The 0.52 "
        "between two subword models is not testable: one subword model is built in.)",
        NEIGHBORS,
        N2O_SET,
        "N2O(fasttext, fasttext-sub) < the mean N2O among glove-6b-50d, word2vec and fasttext, and fasttext-sub's "
        "mean N2O with the other 6 embedders < fasttext's: each difference's 95% t-interval over the query samples "
        "above 0",
        N2O_SCORING,
        _c_subword,
        N2O_REASON,
        sensitivity=(
            (CKA_SCORING, partial(rc.cka_subword_apart, sub="fasttext-sub", analogue="fasttext", group=STATIC)),
        ),
        paper_numbers="0.52 between the two subword models",
        cutoff_reason="“Much lower” is read as lower beyond the query-sampling error. " + DEFAULT_CUT,
        history=HISTORY,
        explanation=(
            "In the paper each subword model shares its training corpus with its analogue (fasttext-wiki and "
            "fasttext-wiki-sub: Wikipedia + UMBC + statmt.org, 16B tokens; fasttext-cc and fasttext-cc-sub: Common "
            "Crawl, 600B tokens), so a shared corpus is not what differs here. What differs is the size: both "
            "fastText models are trained here on {fit} of the corpus with the same settings, where two trainings "
            "of one recipe with different seeds already disagree (the same-recipe reference beside the numbers), "
            "so N2O(fasttext, fasttext-sub) is read against that ceiling, not against 1."
        ),
    ),
    Finding(
        "n2o-tfidf-apart",
        "N2O",
        "§5, Fig. 4, Fig. 6",
        "tf-idf has low N2O with the others, even the static averages",
        "“Unsurprisingly, tf-idf has low N2O with other embedders (even those based on static word embeddings).”",
        "tf-idf's mean N2O with the other embedders against the median embedder's (Fig. 6 draws each embedder's N2O "
        "with all the others), and tf-idf's N2O with the averaged static embedders against their N2O among "
        "themselves (Fig. 4, left: “generally high”).",
        NEIGHBORS,
        N2O_SET,
        "(a) the median over the other embedders of their mean N2O with the others − tf-idf's, and (b) the mean N2O "
        "among glove-6b-50d, word2vec and fasttext − tf-idf's mean N2O with them, per query sample: both 95% "
        "t-intervals above 0",
        N2O_SCORING,
        _c_tfidf_low,
        N2O_REASON,
        sensitivity=(
            (
                "stricter reading: below every family (averaged static, subword fastText, mean-pooled transformers, "
                "[CLS]): each family agrees more with the rest than with tf-idf (the former rule)",
                _c_tfidf_every_family,
            ),
            (CKA_SCORING, partial(rc.cka_low_with_others, target="tfidf", static=STATIC)),
        ),
        cutoff_reason=(
            "“Low” is read against the paper's own figures: below the median embedder of Fig. 6, and, for “even "
            "those based on static word embeddings”, below what the static averages have among themselves "
            "(Fig. 4, left). " + DEFAULT_CUT
        ),
        history=HISTORY,
        explanation=(
            "The paper's “other embedders” include the BERT and GPT token vectors, themselves outliers with low N2O "
            f"with everyone (§5). {TRANSFORMERS_HERE} {STATIC_HERE}"
        ),
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
        "mean N2O of minilm-l6-mean with the other 6 embedders − that of minilm-l6-cls, per query sample: its 95% "
        "t-interval above 0",
        N2O_SCORING,
        _c_cls,
        N2O_REASON,
        sensitivity=(
            (CKA_SCORING, partial(rc.cka_further_than_analogue, target="minilm-l6-cls", analogue="minilm-l6-mean")),
        ),
        cutoff_reason="“Yields higher N2O” is read as higher beyond the sampling error. " + DEFAULT_CUT,
        history=HISTORY,
        explanation=(
            "all-MiniLM-L6-v2 stands in for BERT: a 6-layer model fine-tuned on a billion sentence pairs with mean "
            "pooling, whose [CLS] vector was never trained as its sentence embedding (the paper's bert-ft-cls was "
            "fine-tuned on MultiNLI through [CLS])."
        ),
    ),
    Finding(
        "n2o-above-chance",
        "N2O",
        "§5",
        "Every pair is above chance",
        "“The values range from 0.04 to 0.62 [...] even an N2O of 0.04 is unlikely from random chance alone.”",
        "Every pair of the embedders here against the chance level c = k/(N − 1) of this corpus, the N2O of two "
        "embedders that draw their k neighbors at random.",
        NEIGHBORS,
        N2O_SET,
        "for every pair: the 95% t-interval of N2O over the query samples lies above c = k/(N − 1)",
        N2O_SCORING,
        _c_chance,
        N2O_REASON,
        sensitivity=(
            (
                f"stricter reading: every pair's chance-corrected N2O (N2O − c)/(1 − c) ≥ {rn.PAPER_LOWEST_KAPPA}, the "
                "paper's lowest value taken as a margin (the former rule)",
                _c_chance_margin,
            ),
        ),
        paper_numbers="0.04–0.62 on ~8M sentences (chance ≈ 6e-6)",
        cutoff_reason=(
            "“Unlikely from random chance alone”: the paper's claim is that even its lowest N2O is not chance, so "
            f"the rule tests each pair against chance, beyond the query-sampling error ({CI_SAMPLES})."
        ),
        history=HISTORY,
        explanation=SMALL_CORPUS,
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
        CONTENT_SCORING,
        _c_tok_tfidf,
        TOKENS_REASON,
        ((ALL_SCORING, partial(_c_tok_tfidf, words=ALL_WORDS)),),
        paper_numbers="tf-idf 0.43",
        cutoff_reason=TOKENS_CUT,
        history=HISTORY + TOKENS_HISTORY,
        explanation=(
            "With every word counted, “the”, “of” and the like make every embedder's neighbors share words with the "
            f"query (the setting's row). {STATIC_HERE}"
        ),
    ),
    Finding(
        "tokens-subword-lowest",
        "N2O",
        "§5, Fig. 5",
        "Subword fastText's neighbors share fewer words with the query than its analogue's",
        "“As we would expect, subword methods find near neighbors with lower token overlap, because they embed "
        "surface-similar strings near to each other.”",
        "Token overlap of fastText with subwords against the same fastText without them (the analogue, trained alike).",
        NEIGHBORS,
        N2O_SET,
        "fasttext-sub's 95% interval of mean token overlap lies below fasttext's",
        CONTENT_SCORING,
        _c_tok_subword,
        TOKENS_REASON,
        (
            (ALL_SCORING, partial(_c_tok_subword, words=ALL_WORDS)),
            ("stricter reading: the lowest of every embedder (the former rule)", _c_tok_subword_lowest),
        ),
        cutoff_reason=TOKENS_CUT,
        history=HISTORY + TOKENS_HISTORY,
        explanation=STATIC_HERE,
    ),
    _robust(
        "n2o-robust-k",
        "§6, Varying k",
        "Pair rankings are stable across k",
        "“The average Spearman's ρ is very high (0.996; min. 0.986) — i.e., the rankings of embedder similarity by "
        "N2O are reasonably stable across different values of k.”",
        "Spearman ρ between the embedder-pair rankings at k ∈ {5, 10, …, 50} (all pooled queries).",
        "values of k",
        PAPER_MIN_RHO_K,
        "mean ρ 0.996, min 0.986",
        ROBUST_K_CUT,
    ),
    _robust(
        "n2o-robust-samples",
        "§6, Query sampling",
        "Pair rankings are stable across query samples",
        "“We compute Spearman's ρ across different N2O samples [...] (k = 50) and find an average ρ of 0.994 "
        "(min. 0.991).”",
        "Spearman ρ between the embedder-pair rankings of every two query samples at k.",
        "query samples",
        PAPER_MIN_RHO_SAMPLES,
        "mean ρ 0.994, min 0.991; std across samples 0.005–0.019",
        ROBUST_SAMPLES_CUT,
    ),
    Finding(
        "popular-lexical",
        "N2O",
        "§7",
        "Popular neighbors share many words with the query",
        "“We also observe that extremely ‘popular’ neighbors tend to have high lexical overlap with the query.”",
        "Token overlap of the neighbors in every embedder's top 5 (popular; tf-idf among the embedders, as in the "
        "paper's Table 2, so part of the overlap is built in: a popular neighbor must be one of tf-idf's nearest) vs "
        "of all the embedders' top-50 neighbors, on the queries that have a popular neighbor (paired by query).",
        NEIGHBORS,
        N2O_SET,
        "the mean over queries of (popular − all neighbors' overlap) has its 95% bootstrap interval above 0, on at "
        "least 10 queries with a popular neighbor",
        CONTENT_SCORING,
        _c_popular,
        POPULAR_REASON,
        ((ALL_SCORING, partial(_c_popular, words=ALL_WORDS)), (NO_TFIDF_SCORING, partial(_c_popular, words=NO_TFIDF))),
        cutoff_reason="“High lexical overlap” is read as more than the other neighbors share. " + DEFAULT_CUT,
        history=HISTORY + TOKENS_HISTORY,
        explanation=(
            "Few queries have a neighbor in every embedder's top 5 on a small corpus, so the interval is wide or the "
            "run is not judged. " + SMALL_CORPUS
        ),
    ),
)
