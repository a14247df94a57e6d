"""Per-sentence agreement and 2-D maps on real BBC News sentences: cold (empty cache) vs warm (filled cache).

    python benchmarks/bench_agreement.py [--n 5000] [--embedder tfidf --embedder glove-6b-50d] [--k 50]
                                         [--tfidf-variants] [--figure-n 38019] [--no-save]

Per embedder, timed in this process: embedding (cold includes loading / training), all-pairs exact k-NN at k
(every sentence a query), PCA and UMAP maps (UMAP on the workspace's k-NN graph), each once on an empty cache
and again through a new Workspace on the filled cache; then the per-sentence N2O of the pair. UMAP's import and
numba compilation are timed separately on a tiny input first (`umap_jit_s`: paid once per process).

--tfidf-variants compares three ways to map sparse tf-idf with UMAP on the same sentences: the precomputed
exact cosine graph (what projection.py does), umap-learn's own search with metric="cosine" on the CSR matrix
(pynndescent), and TruncatedSVD(100) then UMAP; time and neighbor preservation at 10 (share of each sentence's
10 exact cosine neighbors among its 10 nearest map points).

--threshold 10000,20000 times exact vs approximate (pynndescent, index build + all queries) all-pairs search on
synthetic clustered 384-d vectors of those sizes, in this process (where pipeline.APPROX_ABOVE comes from).

--figure-n builds the two-panel map figure for that many real corpus sentences (random coordinates; the JSON
size depends on the texts, not the layout) with and without the default point cap, and reports the JSON size.

Writes results/agreement.{json,txt} unless --no-save. Every row carries the load average (2 shared cores).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder  # noqa: E402


def _tfidf_variants(rec: Recorder, ws, cold_s: float, k_check: int = 10, seed: int = 0) -> None:
    """cold_s: this run's cold time of the projection.py route (all-pairs search + UMAP layout)."""
    import umap
    from sklearn.decomposition import TruncatedSVD

    from n2o_core.analyses.projection import neighbor_preservation, normalized, projection
    from n2o_core.pipeline import every_sentence_neighbors

    X = ws.embeddings("tfidf")
    exact = every_sentence_neighbors(ws, "tfidf", max(k_check, 14), approx=False).ids
    Xn, keep = normalized(X)
    pr = projection(ws, "tfidf", "umap")
    rec.add(
        variant="precomputed exact cosine graph (projection.py)",
        seconds=cold_s,
        note="cold: exact all-pairs search (shared with the agreement) + UMAP layout",
        preservation_at_10=neighbor_preservation(pr.coords, exact, k_check),
    )
    for name in ("umap cosine on CSR (pynndescent)", "TruncatedSVD(100) + umap cosine"):
        out = np.full((X.shape[0], 2), np.nan, np.float32)
        t0 = time.perf_counter()
        data = Xn[keep]
        if name.startswith("TruncatedSVD"):
            data = TruncatedSVD(100, random_state=seed).fit_transform(data)
        out[keep] = umap.UMAP(metric="cosine", random_state=seed).fit_transform(data)
        rec.add(
            variant=name,
            seconds=time.perf_counter() - t0,
            note="includes pynndescent's numba compilation for this metric in this process",
            preservation_at_10=neighbor_preservation(out, exact, k_check),
        )


def _figure_size(rec: Recorder, corpus, n: int) -> None:
    from n2o_core.figures.maps import MAX_POINTS, agreement_maps, hover_labels

    n = min(n, len(corpus))
    texts = corpus.texts[:n]
    t0 = time.perf_counter()
    labels = hover_labels(texts)
    rec.add(figure_sentences=n, step="hover_labels (once per corpus)", seconds=time.perf_counter() - t0)
    rng = np.random.default_rng(0)
    coords = [rng.standard_normal((n, 2)).astype(np.float32) for _ in range(2)]
    values = rng.integers(0, 51, n) / 50
    for cap in (None, MAX_POINTS, 10_000):  # MAX_POINTS is the default cap
        t0 = time.perf_counter()
        fig = agreement_maps(
            coords, values, texts, ["A", "B"], labels=labels, k=50, max_points=cap, selected_ids=range(0, n, 97)
        )
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        js = fig.to_json()
        rec.add(
            figure_sentences=n,
            max_points=cap,
            drawn_per_panel=len(fig.data[0].x),
            build_s=build,
            to_json_s=time.perf_counter() - t0,
            json_mb=len(js.encode()) / 1e6,
            text_mb=sum(len(t.encode()) for tr in fig.data for t in tr.text) / 1e6,
        )


def _threshold(rec: Recorder, sizes: list[int], d: int, k: int) -> None:
    """Exact vs approximate all-pairs search on synthetic clustered d-dim vectors, same process, alternating."""
    from _common import clustered_vectors

    from n2o_core.search.approx import approx_knn
    from n2o_core.search.exact import exact_knn

    approx_knn(clustered_vectors(3000, d, seed=1), 5, np.arange(10))  # pynndescent compiles outside the timing
    for n in sizes:
        X = clustered_vectors(n, d, seed=2)
        q = np.arange(n)
        t0 = time.perf_counter()
        ex = exact_knn(X, k, query_ids=q)
        t_exact = time.perf_counter() - t0
        t0 = time.perf_counter()
        ap, _ = approx_knn(X, k, q)
        t_approx = time.perf_counter() - t0
        hits = np.mean([len(set(a) & set(e)) / k for a, e in zip(ap.ids, ex.ids)])
        rec.add(
            threshold_n=n,
            dim=d,
            k=k,
            exact_allpairs_s=t_exact,
            approx_allpairs_s=t_approx,
            approx_recall_all=float(hits),
            exact_over_approx=t_exact / t_approx,
        )


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="builtin:bbc-news")
    ap.add_argument("--n", type=int, default=5000, help="--max-sentences of the corpus")
    ap.add_argument("--embedder", action="append", default=[])
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--maps", default="pca,umap", help="comma-separated map methods to time ('' for none)")
    ap.add_argument("--tfidf-variants", action="store_true")
    ap.add_argument("--figure-n", type=int, default=0)
    ap.add_argument(
        "--threshold", default="", help="comma-separated corpus sizes: exact vs approx all-pairs on synthetic vectors"
    )
    ap.add_argument("--threshold-dim", type=int, default=384)
    ap.add_argument("--no-save", action="store_true", help="print only; leave results/ alone")
    ap.add_argument("--name", default="agreement")
    return ap.parse_args()


def main() -> None:
    a = parse_args()
    embedders = a.embedder or ["tfidf", "glove-6b-50d"]
    methods = [m for m in a.maps.split(",") if m]

    from n2o_core.analyses.agreement import agreement
    from n2o_core.analyses.projection import projection
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.pipeline import every_sentence_neighbors
    from n2o_core.search.exact import exact_knn
    from n2o_core.storage.cache import Cache

    rec = Recorder(a.name)
    if a.threshold:
        _threshold(rec, [int(x) for x in a.threshold.split(",")], a.threshold_dim, a.k)
        if not a.no_save:
            rec.save()
        return
    exact_knn(np.random.default_rng(0).standard_normal((3000, 8)).astype(np.float32), 5, query_ids=np.arange(3))
    if "umap" in methods:
        from n2o_core.analyses.projection import warm_up_umap

        rec.add(step="umap import + numba compile (projection.warm_up_umap)", umap_jit_s=warm_up_umap())
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp) / "cache")
        corpus = load_corpus(a.corpus, max_sentences=a.n, cache_dir=Cache().root)
        n = len(corpus)
        rec.log(f"corpus {corpus.name}: {n} sentences, embedders {embedders}, k={a.k}")
        cold_route: dict[str, float] = {}
        for state in ("cold", "warm"):
            ws = Workspace(corpus, cache=cache)  # a new workspace: warm reads everything from the disk cache
            for eid in embedders:
                t0 = time.perf_counter()
                ws.embeddings(eid)
                t_embed = time.perf_counter() - t0
                t0 = time.perf_counter()
                every_sentence_neighbors(ws, eid, a.k, approx=False)
                t_knn = time.perf_counter() - t0
                row = dict(state=state, embedder=eid, n=n, k=a.k, embed_s=t_embed, allpairs_knn_s=t_knn)
                for m in methods:
                    t0 = time.perf_counter()
                    pr = projection(ws, eid, m, approx=False)
                    row[f"{m}_s"] = time.perf_counter() - t0
                    row[f"{m}_used"] = pr.method
                rec.add(**row)
                if state == "cold" and "umap" in methods:
                    cold_route[eid] = t_knn + row["umap_s"]
            t0 = time.perf_counter()
            res = agreement(ws, embedders, a.k, approx=False)
            v = res.values()
            rec.add(
                state=state,
                step="agreement (cached neighbors -> per-sentence N2O)",
                seconds=time.perf_counter() - t0,
                mean=float(v.mean()),
                chance=res.chance,
            )
        if a.tfidf_variants:
            if "tfidf" not in cold_route:
                raise SystemExit("--tfidf-variants needs --embedder tfidf and the umap map method")
            _tfidf_variants(rec, Workspace(corpus, cache=cache), cold_route["tfidf"])
    if a.figure_n:
        _figure_size(rec, load_corpus(a.corpus, cache_dir=Cache().root), a.figure_n)
    if not a.no_save:
        rec.save()
    else:
        rec.log("(not saved: --no-save)")


if __name__ == "__main__":
    main()
