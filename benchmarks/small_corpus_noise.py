"""Below how many sentences are the neighbors of a corpus-trained embedder noise? Not a timing: N2O values, the
same on any machine (gensim trains with one worker and a fixed seed: bit-identical vectors), so the machine's load
does not matter.

The rule, fixed before the first run (and not changed after it):

- S_n: n sentences drawn uniformly from the built-in BBC News corpus (38,019 sentences), `REPEATS` draws per n.
- A_n: the embedder's recipe trained on S_n alone (what an uploaded corpus of n sentences gets).
- F: the same recipe trained on the whole BBC corpus (what the app uses for a BBC sample); F': the same again with
  another seed (tf-idf has no seed: F' = F, so its reference is 1).
- On S_n, every sentence a query, at k_n = the k the app allows there (10, capped at 10% of the n - 1 candidates:
  `limits.k_share_cap`), chance c = k_n / (n - 1):
      kept_n = (N2O(A_n, F) - c) / (N2O(F', F) - c),
  the share of the agreement above chance that two seeds of the whole-corpus recipe share, which training on n
  sentences keeps. 1: as good as another seed of the 38k-sentence model; 0: no better than random neighbors.
- Neighbors are called noise at n when kept_n (mean over the draws) is below 1/2. The threshold is the smallest n
  of the grid from which kept_n >= 1/2 at that n and every larger n of the grid; it is reported per embedder, and
  the app flags a corpus-trained embedder trained on fewer sentences than its threshold
  (`n2o_core.analyses.face_value.TRAINED_NOISE_BELOW`).

The first run's grid stopped at 10,000 sentences, where no word-vector recipe met the rule (kept_n 0.07-0.24; tf-idf
met it at every size); 20,000 was then added to the grid, the rule unchanged (results/small_corpus_noise_10k.txt
is that first run). Training on n sentences is the recipe as the app runs it (5 epochs, min_count 2, seed 13).

    python benchmarks/small_corpus_noise.py --cache-dir cache   # ~15 min on 2 cores: results/small_corpus_noise.*
    python benchmarks/small_corpus_noise.py --sizes 50,200 --repeats 1 --embedders tfidf,word2vec   # a quick check
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _common import RESULTS, ROOT, machine

from n2o_core.analyses.overlap import chance_level, n2o
from n2o_core.corpora import load_corpus
from n2o_core.embedders.registry import get_embedder
from n2o_core.embedders.trained_vectors import TrainedVectorsEmbedder
from n2o_core.limits import k_share_cap
from n2o_core.search.exact import exact_knn

SIZES = (50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000)
REPEATS = 3
K = 10
EMBEDDERS = (
    "tfidf",
    "word2vec",
    "word2vec-nostop",
    "fasttext",
    "fasttext-nostop",
    "fasttext-sub",
    "fasttext-sub-nostop",
)
OTHER_SEED = 14  # the built-in recipes use seed 13
KEPT_MIN = 0.5


def encoder(eid: str, fit_texts: list[str], cache: Path, seed: int | None = None):
    """The built-in recipe `eid` fitted on `fit_texts` (another seed when `seed` is given)."""
    emb = get_embedder(eid, cache_dir=cache)
    if seed is not None and isinstance(emb, TrainedVectorsEmbedder):
        emb = TrainedVectorsEmbedder(eid, cache, preset=emb.preset, stop_words=emb.stop_words, seed=seed)
    emb.fit(fit_texts)
    return emb


def neighbors(emb, texts: list[str], k: int) -> np.ndarray:
    X = emb.encode(texts)
    return exact_knn(X, k, query_ids=np.arange(len(texts), dtype=np.int64)).ids


def threshold(sizes: list[int], kept: dict[int, float]) -> int | None:
    """The smallest n from which kept_n >= KEPT_MIN at every larger n of the grid (None: not even at the largest)."""
    ok = None
    for n in sorted(sizes, reverse=True):
        if kept[n] >= KEPT_MIN:
            ok = n
        else:
            break
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache-dir", default=str(ROOT / "cache"), help="where the fitted states are kept")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--repeats", type=int, default=REPEATS)
    ap.add_argument("--embedders", default=",".join(EMBEDDERS))
    ap.add_argument("--out", default="small_corpus_noise", help="result name under benchmarks/results/ ('' = none)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    eids = [e.strip() for e in args.embedders.split(",") if e.strip()]
    models = Path(args.cache_dir) / "models"
    t0 = time.perf_counter()
    bbc = load_corpus("builtin:bbc-news", cache_dir=args.cache_dir)
    full = list(bbc.texts)
    rows = []
    for eid in eids:
        F = encoder(eid, full, models)
        F2 = F if eid == "tfidf" else encoder(eid, full, models, seed=OTHER_SEED)
        for n in sizes:
            k = min(K, k_share_cap(n))
            c = chance_level(k, n)
            for r in range(args.repeats):
                ids = np.sort(np.random.default_rng([n, r]).choice(len(full), size=n, replace=False))
                S = [full[i] for i in ids]
                nb_f = neighbors(F, S, k)
                nb_f2 = nb_f if F2 is F else neighbors(F2, S, k)
                try:
                    nb_a = neighbors(encoder(eid, S, models), S, k)
                    small = n2o(nb_a, nb_f, k)
                except Exception as e:  # noqa: BLE001 - e.g. no word occurs twice: no model at all
                    print(f"{eid} n={n} draw {r}: not trained ({e})")
                    small = c  # no neighbors at all: no better than chance
                seeds = n2o(nb_f2, nb_f, k)
                kept = (small - c) / (seeds - c)
                row = {"embedder": eid, "n": n, "draw": r, "k": k, "chance": c}
                rows.append({**row, "small_vs_full": small, "seed_vs_seed": seeds, "kept": kept})
                print(
                    f"{eid:20s} n={n:6d} draw {r}: k={k:2d} chance {c:.3f}  N2O(A_n, F) {small:.3f}  "
                    f"N2O(F', F) {seeds:.3f}  kept {kept:.3f}",
                    flush=True,
                )
    summary = {}
    lines = []
    for eid in eids:

        def over_draws(key: str, fn=np.mean, eid: str = eid) -> dict[int, float]:
            return {n: float(fn([r[key] for r in rows if r["embedder"] == eid and r["n"] == n])) for n in sizes}

        kept, lo = over_draws("kept"), over_draws("kept", np.min)
        small, seeds = over_draws("small_vs_full"), over_draws("seed_vs_seed")
        th = threshold(sizes, kept)
        summary[eid] = {
            "threshold": th,
            "kept_mean": kept,
            "kept_min": lo,
            "small_vs_full": small,
            "seed_vs_seed": seeds,
        }
        lines.append(f"{eid}: threshold {'> ' + str(max(sizes)) if th is None else th} sentences")
        lines.append("      n   k  chance  N2O(A_n,F)  N2O(F',F)  kept (mean, min over draws)")
        for n in sizes:
            k = min(K, k_share_cap(n))
            lines.append(
                f"  {n:6d}  {k:2d}  {chance_level(k, n):.3f}   {small[n]:.3f}       {seeds[n]:.3f}      "
                f"{kept[n]:.3f}, {lo[n]:.3f}"
            )
    doc = {
        "what": "kept_n = (N2O(trained on n, trained on all 38,019 BBC sentences) - chance) / (N2O(two seeds of the "
        "whole-corpus model) - chance), on the n sentences, every one a query; threshold = smallest n from which "
        f"kept_n >= {KEPT_MIN} at every larger n",
        "sizes": sizes,
        "repeats": args.repeats,
        "k": K,
        "summary": summary,
        "rows": rows,
        "seconds": round(time.perf_counter() - t0, 1),
        "machine": machine(),
    }
    text = "\n".join([doc["what"], f"{args.repeats} draws per n; {doc['seconds']} s", "", *lines])
    print("\n" + text)
    if args.out:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"{args.out}.json").write_text(json.dumps(doc, indent=1) + "\n")
        (RESULTS / f"{args.out}.txt").write_text(text + "\n")


if __name__ == "__main__":
    main()
