"""The Pitfalls (Eger et al. 2019) and Heros (Chiang et al.) findings checked here, each bound to its rule, its fixed
setting and its sensitivity rows."""

from __future__ import annotations

from functools import partial

import n2o_core.evaluation.findings.rules_heros as rh
import n2o_core.evaluation.findings.rules_sts as rs
from n2o_core.evaluation.findings.catalog_text import (
    DEFAULT_CUT,
    GLOVE_NOSTOP,
    HEROS_ALL,
    HEROS_GLOVE_REASON,
    HEROS_GLOVE_SCORING,
    HEROS_PAIRS_HERE,
    HEROS_REASON,
    HEROS_SCORING,
    HEROS_SET,
    HEROS_TRANSFORMERS,
    HISTORY,
    LEE_HERE,
    STS_ALL,
    STS_DATA,
    STS_REASON,
    STS_SCORING,
    STS_SET,
)
from n2o_core.evaluation.findings.verdict import HEROS, STS, Evidence, Finding, Verdict, fmt, unchecked

_STS_TESTED = (
    "Averaged GloVe (6B, 50-d here; 300-d in the paper) on gensim's Lee document pairs with human similarity "
    "scores (the STS Benchmark is not offline). No interval: the 1,225 pairs share 50 documents, so they are not "
    "independent."
)
_POINT = "No interval exists here (the pairs share documents), so the point value decides. " + DEFAULT_CUT
_L3 = "paraphrase-minilm-l3-mean"
_ALL_MODEL = "minilm-l6-mean"


def _c_sts_glove(ev: Evidence, scoring: str, eid: str = "glove-6b-50d") -> Verdict:
    return rs.znorm_raises(ev.sts, eid, scoring)


def _c_sts_range(ev: Evidence, positive_only: bool = True, to_share: float | None = None) -> Verdict:
    return rs.znorm_narrows_range(ev.sts, STS_SET, positive_only=positive_only, to_share=to_share)


def _c_heros_glove(ev: Evidence, eid: str = "glove-6b-50d-nostop") -> Verdict:
    return rh.negation_far_above(ev.heros_pairs, eid)


def _c_heros_main(ev: Evidence) -> Verdict:
    return rh.main_below_antonym(ev.heros_pairs, HEROS_SET)


def _c_heros_neg_above(ev: Evidence, eid: str) -> Verdict:
    return rh.negations_above_synonym(ev.heros_pairs, eid)


def _c_heros_neg_means(ev: Evidence, eid: str) -> Verdict:
    return rh.negations_above_synonym_means(ev.heros, eid)


def _c_heros_most(ev: Evidence) -> Verdict:
    return rh.most_negations_above_synonym(ev.heros_pairs, HEROS_TRANSFORMERS)


def _c_heros_antonym_effect(ev: Evidence, others: tuple[str, ...] = (_ALL_MODEL,)) -> Verdict:
    return rh.antonym_effect_apart(ev.heros_pairs, _L3, others)


def _c_heros_antonym_alone(ev: Evidence) -> Verdict:
    """The former rule: the paraphrase model's Antonym below its Synonym (no comparison with other encoders)."""
    d = rh.paired_difference(ev.heros_pairs, (_L3, "synonym"), (_L3, "antonym"))
    if isinstance(d, str):
        return unchecked(d)
    ok = bool(d["ci_low"] > 0)
    return Verdict(
        ok,
        f"{_L3}: Synonym − Antonym {fmt(d['difference'])} [{fmt(d['ci_low'])}, {fmt(d['ci_high'])}] over "
        f"{int(d['originals'])} originals: {'above' if ok else 'not above'} 0",
        {"difference": d["difference"], "ci_low": d["ci_low"]},
    )


def _glove_sts(fid: str, where: str, title: str, statement: str, scoring: str, numbers: str, reading: str) -> Finding:
    """A Pitfalls finding on averaged GloVe's correlation (`scoring`: pearson or spearman) before and after
    z-normalization; GloVe without stop words as the other setting."""
    return Finding(
        fid,
        "Pitfalls",
        where,
        title,
        statement,
        _STS_TESTED,
        STS,
        STS_ALL,
        f"{scoring.capitalize()} correlation of averaged GloVe higher after z-normalization",
        STS_SCORING,
        partial(_c_sts_glove, scoring=scoring),
        STS_REASON,
        ((GLOVE_NOSTOP, partial(_c_sts_glove, scoring=scoring, eid="glove-6b-50d-nostop")),),
        paper_numbers=numbers,
        cutoff_reason=reading + _POINT,
        data=STS_DATA,
        history=HISTORY,
        explanation=f"{LEE_HERE} The paper reports {numbers}.",
    )


_PAPER_SHARE = rs.PAPER_RANGE[1] / rs.PAPER_RANGE[0]

PITFALLS_FINDINGS: tuple[Finding, ...] = (
    _glove_sts(
        "sts-znorm-glove",
        "§3, Table 2",
        "z-normalization raises averaged GloVe's Pearson correlation with human similarity",
        "“Average Glove embeddings improve from 0.41 Pearson to 0.62 Pearson [after z-normalization].”",
        "pearson",
        "Pearson 0.41 → 0.62 (STS-B, GloVe 300-d)",
        "“Improve” is read as higher. ",
    ),
    _glove_sts(
        "sts-znorm-glove-spearman",
        "§3",
        "… and its Spearman correlation too",
        "“When replacing Pearson by Spearman correlation, we observed very similar trends: e.g., Glove-300d had 0.44 "
        "before and 0.58 after normalization.”",
        "spearman",
        "Spearman 0.44 → 0.58 (STS-B, GloVe 300-d)",
        "“Similar trends” is read as higher. ",
    ),
    Finding(
        "sts-znorm-range",
        "Pitfalls",
        "§3, Table 2",
        "z-normalization narrows the gap between encoders",
        "“With normalization, we observe a reduction in the range of the distribution of UCP scores across the nine "
        "systems from 29% to 9% [...] the worst sentence encoders catch up substantially.”",
        "The range of Pearson correlations on the Lee pairs, raw vs z-normalized, across the dense encoders here "
        "whose raw correlation is above 0 (averaged GloVe, word2vec and fastText trained on gensim's Lee background "
        "corpus, two MiniLM transformers); an encoder that does not correlate at all is no worse encoder catching up.",
        STS,
        STS_ALL,
        "max − min of the encoders' Pearson correlations (raw r > 0) smaller after z-normalization",
        STS_SCORING,
        _c_sts_range,
        STS_REASON,
        (
            (
                f"stricter reading: narrowed at least as much as the paper's, to ≤ {_PAPER_SHARE:.2f} of the raw "
                "range (0.29 → 0.09)",
                partial(_c_sts_range, to_share=_PAPER_SHARE),
            ),
            (
                "wider reading: every encoder, raw r ≤ 0 included (the former rule)",
                partial(_c_sts_range, positive_only=False),
            ),
        ),
        paper_numbers="range 29% → 9% over 9 systems (STS-B), a share of 0.31",
        cutoff_reason=(
            "“A reduction in the range” is read as a smaller range, the paper's share (9/29) shown beside it and "
            "tested as the stricter reading. " + _POINT
        ),
        data=STS_DATA,
        history=HISTORY,
        explanation=(
            "5 encoders here against the paper's 9 systems; word2vec and fastText are trained on Lee's small "
            f"background corpus. {LEE_HERE}"
        ),
    ),
)

_PAIRED = "Paired by original, with a 95% bootstrap interval over the originals."

HEROS_FINDINGS: tuple[Finding, ...] = (
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
        HEROS_ALL,
        "for both negation subsets and both swaps: s'(negation) − s'(swap) on the originals with both, its 95% "
        "bootstrap interval above 0",
        HEROS_GLOVE_SCORING,
        _c_heros_glove,
        HEROS_GLOVE_REASON,
        (("averaged GloVe over all tokens (stop words kept)", partial(_c_heros_glove, eid="glove-6b-50d")),),
        cutoff_reason="“Much higher” is read as higher beyond the sampling error. " + _PAIRED + " " + DEFAULT_CUT,
        history=HISTORY,
        explanation=(
            "GloVe is 50-d here (the paper: 300-d). With stop words dropped, as Heros' model does, “not” and the "
            f"auxiliaries vanish from the average; with every token kept they move it. {HEROS_PAIRS_HERE}"
        ),
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
        HEROS_ALL,
        "per encoder, s'(Negation (Antonym)) − s'(Negation (Main)) on the originals with both, its 95% bootstrap "
        "interval above 0; for all of the 5 encoders but at most one",
        HEROS_GLOVE_SCORING,
        _c_heros_main,
        HEROS_GLOVE_REASON,
        cutoff_reason="“Almost all” and “less similar” as the one default reads them. " + _PAIRED + " " + DEFAULT_CUT,
        history=HISTORY,
        explanation=(
            "When the antonym's word is the main verb, Heros' two negations are the same sentence; how often that "
            f"happens depends on the pairs. {HEROS_PAIRS_HERE} Two of the encoders (e5-small, the [CLS] vector) are "
            "not among the paper's models."
        ),
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
        HEROS_ALL,
        "s'(Negation (Main)) − s'(Synonym) and s'(Negation (Antonym)) − s'(Synonym) on the originals with both, "
        "each 95% bootstrap interval above 0",
        HEROS_SCORING,
        partial(_c_heros_neg_above, eid=_L3),
        HEROS_REASON,
        (("looser reading: higher means, no interval (the former rule)", partial(_c_heros_neg_means, eid=_L3)),),
        cutoff_reason="“Even higher” is read as higher beyond the sampling error. " + _PAIRED + " " + DEFAULT_CUT,
        history=HISTORY,
        explanation=(
            "The model is the paper's own (paraphrase-MiniLM-L3-v2), so model substitution does not explain a "
            f"failure here; the pairs do. {HEROS_PAIRS_HERE}"
        ),
    ),
    Finding(
        "heros-all-negation",
        "Heros",
        "§3.1, Fig. 1 (all block)",
        "Models trained on all sentence-pair data rate negations above synonyms",
        "“In the fifth block [fine-tuned on all available sentence-pair data], the similarity between sentence "
        "pairs from the two Negation subsets is very high and is even higher than the similarity of the Synonym "
        "subset for most models.”",
        "“Most models” over every transformer encoder here (all-MiniLM-L6-v2 mean and [CLS], paraphrase-MiniLM-L3-v2, "
        "multilingual-e5-small); only all-MiniLM-L6-v2 is in the paper's fifth block, which the narrower reading "
        "tests alone.",
        HEROS,
        HEROS_ALL,
        "per encoder, both s'(negation) − s'(Synonym) on the originals with both above 0 beyond their 95% bootstrap "
        "intervals; for more than half of the 4 transformer encoders",
        HEROS_SCORING,
        _c_heros_most,
        HEROS_REASON,
        (
            (
                "narrower reading: the one fifth-block model here, all-MiniLM-L6-v2 (mean pooling)",
                partial(_c_heros_neg_above, eid=_ALL_MODEL),
            ),
        ),
        cutoff_reason="“Most” and “even higher” as the one default reads them. " + _PAIRED + " " + DEFAULT_CUT,
        history=HISTORY,
        explanation=(
            "all-MiniLM-L6-v2 and paraphrase-MiniLM-L3-v2 are the paper's own models, so model substitution does not "
            f"explain a failure on them; e5-small is not in the paper. {HEROS_PAIRS_HERE}"
        ),
    ),
    Finding(
        "heros-paraphrase-antonym",
        "Heros",
        "§3.1, Fig. 1 (paraphrase block)",
        "Paraphrase-tuned models are extremely sensitive to antonyms",
        "“SEs fine-tuned on paraphrase datasets are extremely sensitive to negations and antonyms [...] these SEs "
        "are also sensitive to replacing words with antonyms.”",
        "The antonym effect s'(Synonym) − s'(Antonym) (how far below its synonym swap an antonym swap is rated, on "
        "Heros' normalized scale) of paraphrase-MiniLM-L3-v2, the one paraphrase-block model offline, against that "
        "of all-MiniLM-L6-v2, the one model offline from the other supervised blocks of Fig. 1 (fine-tuned on all "
        "sentence-pair data; the paper sets the paraphrase block against the QA and “all” blocks). The negation half "
        "is not tested: the paper names this model the exception.",
        HEROS,
        HEROS_ALL,
        "paraphrase-minilm-l3-mean's antonym effect − minilm-l6-mean's, on the same originals: its 95% bootstrap "
        "interval above 0",
        HEROS_SCORING,
        _c_heros_antonym_effect,
        HEROS_REASON,
        (
            (
                "wider reading: larger than every other transformer here (all-MiniLM-L6-v2 mean and [CLS], "
                "multilingual-e5-small)",
                partial(_c_heros_antonym_effect, others=tuple(e for e in HEROS_TRANSFORMERS if e != _L3)),
            ),
            (
                "looser reading: Antonym below Synonym for the paraphrase model alone (the former rule)",
                _c_heros_antonym_alone,
            ),
        ),
        cutoff_reason=(
            "“Extremely sensitive” is read as an effect larger than a model's of another block. "
            + _PAIRED
            + " "
            + DEFAULT_CUT
        ),
        history=HISTORY,
        explanation=(
            "Both models are the paper's own, so model substitution does not explain a failure here; one "
            f"paraphrase model stands for a block of six in the paper. {HEROS_PAIRS_HERE}"
        ),
    ),
)
