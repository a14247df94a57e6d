"""About: what N2O is, how to read each view, and the embedders' table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from n2o_core.corpora import Corpus, list_builtin_corpora
from n2o_core.settings import Settings
from ui import n2o_runs, nav
from ui.guard import shown
from ui.shell import through_app

through_app()


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page (it does not depend on the settings)."""
    st.header(nav.heading("about"))
    st.markdown(
        """
**Nearest neighbor overlap (N2O)** compares two sentence embedders by the company they keep
(Lin & Smith, 2019). For each query sentence of a corpus, each embedder retrieves its *k* nearest
neighbors by cosine similarity (the query itself excluded); N2O is the share of those neighbors the two
embedders agree on:

  N2O(A, B) = Σ_q |NN_A(q) ∩ NN_B(q)| / (k · n)

It needs no labels and no task: only a corpus. Two embedders that pick neighbors at random agree on
**k / (N − 1)** of them on average (the *chance level*, shown on every view) — an N2O is only meaningful
next to it.

### How to read each view
*How the embedders differ*
- **N2O heatmap** — one cell per embedder pair: mean N2O over the query samples (hover: ± std across samples,
  chance level). Colours span the pairs (the diagonal, each embedder with itself, is left blank) and the colour
  bar marks chance. Rows are clustered so that embedders that agree sit together. *Per embedder* shows each
  embedder's N2O with all the others (Fig. 6 of the paper): a low box marks an embedder whose neighbors
  nobody else finds. *Robustness* gives the Spearman correlation between the rankings of the pairs at two values
  of k and between two query samples, and how the ranking moves with fewer queries per sample (paper §6).
- **Query explorer** — one query's neighbors under every embedder, side by side, with the words they share
  with the query highlighted. *Popular neighbors* are in every embedder's top k; *outliers* are ranked high
  by one embedder and by no other (Table 2 of the paper). Type any sentence to search the corpus with it.
- **Token overlap** — how many of a query's words its neighbors contain, per embedder, with a 95% CI
  (Fig. 5), counted over content words by default (stop words dropped; every word one click away). Tf-idf and
  averaged static vectors lean on shared words; transformers less so. The dotted line is the same measure for
  random sentences.
- **HEROS subsets** — minimal pairs made from the corpus (synonym, antonym, typo, random word, negation):
  each embedder's similarity of a sentence with its variant, normalized by the similarity of random
  sentence pairs, b: (s − b) / (1 − b) (Heros, Fig. 1 as a heatmap). Raw cosine is one click away. Averaged word
  vectors drop stop words here by default, as the GloVe model Heros evaluated does.
- **Where embedders disagree** — every sentence a query: its N2O between two embedders (and averaged over all
  pairs), its distribution (the mean is the pair's N2O over all N queries), two maps of the embedders' spaces
  coloured by it with linked selection, and the sentences they agree on least and most.

*Which differences matter*
- **Paraphrase needle** — is a query's known paraphrase its nearest corpus neighbor? MRR, # top, # top-5 per
  embedder (N2O §8, Table 3). Offline the pairs are human-rated: gensim's Lee news documents, every pair of its
  50 rated documents, which ship with gensim. The paper's filters (score ≥ 4 of 5, word overlap < 0.6) keep few
  of them, so the count stands beside the intervals, with one click to a looser setting labelled as a deviation
  from the paper. Pairs made from the corpus by a HEROS rule are an option, labelled *synthetic* wherever they
  are shown; a pair file (STS Benchmark) can be uploaded.
- **Human similarity (STS)** — correlation of cosine with human similarity scores, by Pearson and Spearman, raw and
  with z-normalized dimensions (Pitfalls): four scorings, and how the ranking of embedders changes between them.
- **Quality vs agreement** — per embedder: mean N2O with the others beside needle MRR, human-similarity
  Spearman, HEROS negation sensitivity and dimension.
- **Papers' findings** — the seeds' qualitative findings (N2O, Pitfalls, Heros, SentEval), each quoted and
  computed on this corpus over several runs: ✓ holds in every run, ✗ in none, ◐ in some, with its numbers and,
  where it does not hold, what may explain it; a finding that does not reproduce is shown, never hidden.
- **Probing tasks** — SentEval's ten probing tasks (Conneau et al. 2018) built from the corpus: test accuracy
  of logistic regression and an MLP on each embedder's vectors, beside the majority-class and length-only
  baselines, and how the embedders' ranking moves between the two classifiers (Pitfalls). Every class keeps at
  least 100 training items, the paper's floor; classes and tasks the corpus cannot fill to it are dropped and
  named.

### Settings worth knowing
- **k** goes up to 50: neighbors are searched once at k = min(50, N − 1), so changing k only re-slices
  cached results. **Queries × samples**: the paper uses 5 samples of 100 queries.
- **z-normalization** standardizes each dimension over the corpus before cosine; a few dominant dimensions
  can otherwise decide the neighbors (Eger et al.). Check whether conclusions survive it.
- **Approximate search** (pynndescent) is for large corpora; its recall@k against exact search is shown.
- **Sentences**: built-in corpora are a fixed, topic-stratified sample so that a first visit is quick;
  corpus-trained embedders (tf-idf, fastText) are still trained on the whole built-in corpus.
- Every choice is in the page address: copy the link to share the exact view.
"""
    )

    st.subheader("Embedders")
    with shown("Listing the embedders"):
        infos = n2o_runs.embedder_infos()
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "id": i.id,
                        "family": i.family,
                        "composition": i.composition,
                        "dimension": str(i.dim) if i.dim else "|V| (vocabulary)",
                        "trained on": i.data,
                        "fit on this corpus": "yes" if i.corpus_trained else "",
                        "default": "yes" if i.default else "",
                    }
                    for i in infos.values()
                ]
            ),
            hide_index=True,
        )

    st.subheader("Built-in corpora")
    st.dataframe(pd.DataFrame(list_builtin_corpora())[["name", "spec", "size", "description"]], hide_index=True)
    st.caption(
        "Everything runs offline: the models and corpora ship inside Python packages. "
        "Results are cached under cache/ (or $N2O_CACHE_DIR)."
    )
