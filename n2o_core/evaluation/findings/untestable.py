"""The papers' findings this tool cannot check offline (`NOT_TESTABLE`), each with the reason."""

from __future__ import annotations

from n2o_core.evaluation.findings.verdict import Untestable

NOT_TESTABLE: tuple[Untestable, ...] = (
    Untestable(
        "N2O",
        "§5",
        "The two subword fastText models agree with each other (N2O 0.52).",
        "one subword model is built in (fastText with subwords trained on the corpus); the part of the claim about "
        "the analogue without subwords is checked (n2o-subword-apart)",
    ),
    Untestable(
        "N2O",
        "§5",
        "Variants of one embedder agree: glove-6b-100d vs 300d, fasttext-cc vs fasttext-wiki.",
        "one pretrained GloVe (6B, 50-d) is offline, and the fastText models are trained on the one corpus",
    ),
    Untestable(
        "N2O",
        "§5",
        "ELMo models of different capacity / data agree (0.42, 0.55; 0.38 for the mismatched pair).",
        "no ELMo model is available offline",
    ),
    Untestable(
        "N2O",
        "§5",
        "GPT's last-token vector is an outlier; averaged GPT agrees more with the others.",
        "no GPT (causal language model) is available offline; the [CLS] half is checked with MiniLM (n2o-cls-outlier)",
    ),
    Untestable(
        "N2O",
        "§5",
        "InferSent has its highest N2O (~0.2–0.3) with the averaged embeddings; the two USE variants agree most "
        "with each other (0.24).",
        "InferSent and the Universal Sentence Encoder are not available offline",
    ),
    Untestable(
        "N2O",
        "§8, Table 3",
        "Query paraphrasing: large ELMo finds paraphrases best; averaged BERT/GPT beat [CLS]/last token.",
        "needs near-paraphrase pairs with human scores (STS Benchmark), which are not offline; the synthetic "
        "HEROS pairs are not paraphrases. With a local STS-B file: `python -m n2o_core needle --pairs FILE`",
    ),
    Untestable(
        "Pitfalls",
        "§3, Size matters",
        "Transfer-task accuracy grows (concavely) with embedding size under a linear classifier.",
        "needs labelled transfer tasks (SentEval) and classifiers, and averaged word2vec trained at many sizes",
    ),
    Untestable(
        "Pitfalls",
        "§3, Normalization / classifiers / probing",
        "Normalization helps learned similarity and transfer tasks; rankings differ between logistic regression "
        "and an MLP; transfer and probing tasks correlate weakly (WC 0.04, SentLen 0.83).",
        "needs labelled downstream and probing tasks with trained classifiers",
    ),
    Untestable(
        "Heros",
        "§3.1",
        "Models fine-tuned only on QA data are insensitive to negation, and rate a typo below a synonym.",
        "no QA-only model (multi-qa-*) is available offline",
    ),
    Untestable(
        "Heros",
        "§3.1",
        "T5-based encoders (GTR, ST5) become less sensitive to typos as they grow.",
        "no T5-based encoder is available offline",
    ),
    Untestable(
        "Heros",
        "§3.2",
        "Unsupervised SEs (SimCSE, DiffCSE, ...) are insensitive to negation; NLI fine-tuning lowers Negation and "
        "Antonym similarity and raises Synonym and Typo.",
        "no unsupervised contrastive encoder, nor its NLI-tuned version, is available offline",
    ),
    Untestable(
        "Heros",
        "§3.2",
        "Encoders with close STS-benchmark scores can behave very differently on Heros.",
        "needs the encoders' STS-benchmark scores (STS 12–17, STS-B, SICK-R), which are not offline",
    ),
    Untestable(
        "SentEval",
        "§4, Encoding architectures",
        "Different encoder architectures trained with the same objective lead to linguistically different "
        "embeddings; BiLSTM-max outperforms BiLSTM-last; Gated ConvNet is on a par with the best LSTM.",
        "no BiLSTM or Gated ConvNet encoders trained on the paper's tasks are available offline",
    ),
    Untestable(
        "SentEval",
        "§4, Training tasks",
        "NMT training gives more linguistically aware encoders than NLI; untrained BiLSTM-max already does well; "
        "AutoEncoder training excels at SentLen and fails WC; Seq2Tree mimics the parser.",
        "needs the paper's encoders trained on each task (NMT, NLI, SkipThought, AutoEncoder, Seq2Tree) or untrained",
    ),
    Untestable(
        "SentEval",
        "§4, Baselines",
        "The bigram baseline NB-bi-tfidf detects BShift from unlikely bigrams and is below chance on SOMO.",
        "the built-in tf-idf has unigrams only; no bigram Naive Bayes baseline here",
    ),
    Untestable(
        "SentEval",
        "§2, Table 2 (Hum. Eval.)",
        "Human upper bounds of every task (100 on the surface tasks, 81–98 elsewhere).",
        "needs human judgments of the generated items",
    ),
    Untestable(
        "SentEval",
        "§4, Probing vs. downstream tasks",
        "WC correlates positively with every downstream task, SentLen negatively with most; SOMO and CoordInv "
        "correlate with the most downstream tasks after WC.",
        "needs SentEval's downstream tasks and the 40+ encoders the correlations were computed over",
    ),
)
