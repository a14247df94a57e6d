"""Streamlit-side wiring of the dashboard; the pages (pages/) stay thin and nothing here computes.

Runs of the analyses, one module each: a bounded memo per server process, progress bars while it runs, errors as
sentences in place:
  n2o_runs         the corpus, its Workspace, every embedder's neighbors (`Loaded`) and the N2O views on them
  agreement_runs   every sentence's neighbors and the agreement maps
  evaluation_runs  the paraphrase needle and human similarity (STS), per embedder
  heros_runs       HEROS pairs and scores;  measures_runs  similarity measures;  probe_runs  probing tasks
  findings_runs    the evidence behind the papers' findings
The page's frame and controls:
  page             what every analysis page starts with;  nav  the pages, their titles and URL paths
  sidebar          the shared settings;  embedder_picker  the embedder picker;  user_embedders  a user's models
                   and vectors;  hf_dataset  a Hugging Face dataset as the corpus;  pair_source  the pair picker
  downloads, talk  tables, figures and the view as a file | talk mode (`talk=1`)
  seed_reference   the heatmap's same-recipe column
How it runs:
  jobs, progress   the one bar loop (`run_with_bars`; one call: `run_with_bar`) | the core's progress drawn as
                   st.progress
  guard, failures  errors shown in place | failures remembered per visitor session
  preload, release, shell   background preloading | memory given back while idle | runs kept in app.py's navigation
"""

__all__: list[str] = []
