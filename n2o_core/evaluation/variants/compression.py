"""How much compression an embedder's neighbors survive: for one embedder, each variant family at a few sizes --
truncated dimensions (`@dims`), PCA (`@pca`), int8 scalar quantization (`@int8`), 1-bit signs with Hamming search
(`@binary`) and binary candidates rescored with the float query (`@binary@rescore=R`) -- with its bytes per
vector, its N2O with the full-precision exact neighbors (the same query samples, `compare`), and whether quality
follows the neighbors: the paraphrase needle's MRR (N2O §8, `evaluation.needle`) and the Spearman correlation of
cosine with human similarity (Pitfalls, `evaluation.sts`) of each variant, both on the compared corpus's fitted
transforms. The knee of the curve (Kneedle, Satopaa et al. 2011, on the best N2O reached at each size) is marked.

Rescoring changes only the order of the Hamming candidates, not the vectors: its needle and STS columns are empty
(the binary variant's are the vectors' own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from n2o_core.analyses.compare import compare
from n2o_core.errors import N2OError
from n2o_core.evaluation.variants.layers import searched
from n2o_core.runtime.progress import Progress, report
from n2o_core.variants.spec import bytes_per_vector, parse_variant, reduced_dim

FAMILIES: tuple[str, ...] = ("dims", "pca", "int8", "binary", "binary+rescore")
#: The rescoring multiplier of the binary + rescoring family (sentence-transformers' default `rescore_multiplier`).
RESCORE = 4


def default_sizes(dim: int) -> list[int]:
    """The dimensions each family is tried at: the full dimension, then halves down to 16 (at least the full)."""
    sizes = [dim]
    while sizes[-1] // 2 >= 16 and len(sizes) < 5:
        sizes.append(sizes[-1] // 2)
    return sizes


def family_variants(eid: str, dim: int, sizes: Sequence[int], rescore: int = RESCORE) -> list[tuple[str, str]]:
    """(family, variant id) for every family at every size (the full dimension of `dims` is the embedder
    itself; every id canonical)."""
    out: list[tuple[str, str]] = []
    for d in sizes:
        cut = "" if d == dim else f"@dims={d}"
        out.append(("dims", eid + cut))
        out.append(("pca", f"{eid}@pca={d}"))
        out.append(("int8", f"{eid}{cut}@int8"))
        out.append(("binary", f"{eid}{cut}@binary"))
        out.append(("binary+rescore", f"{eid}{cut}@binary@rescore={rescore}"))
    return [(f, parse_variant(v).id if "@" in v else v) for f, v in out]


@dataclass
class CompressionPoint:
    """One variant on the curve."""

    family: str
    variant: str
    dims: int
    bytes_per_vector: int
    n2o_with_original: float
    n2o_std: float
    needle_mrr: float | None = None
    sts_spearman: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "variant": self.variant,
            "dims": self.dims,
            "bytes_per_vector": self.bytes_per_vector,
            "n2o_with_original": round(self.n2o_with_original, 6),
            "n2o_std": round(self.n2o_std, 6),
            "needle_mrr": None if self.needle_mrr is None else round(self.needle_mrr, 6),
            "sts_spearman": None if self.sts_spearman is None else round(self.sts_spearman, 6),
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> CompressionPoint:
        """The point `to_json` wrote."""
        return cls(**{f: doc[f] for f in cls.__dataclass_fields__})


@dataclass
class Compression:
    """The compression curve of one embedder: points (one per variant), the knee (a variant id), the chance level
    of N2O at k, and the sources of the quality columns (None where one could not be computed: `notes` says why)."""

    embedder: str
    k: int
    corpus_size: int
    chance: float
    points: list[CompressionPoint]
    knee: str | None
    family_knees: dict[str, str | None]
    needle_pairs: str | None
    sts_pairs: str | None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "embedder": self.embedder,
            "k": self.k,
            "corpus_size": self.corpus_size,
            "chance": self.chance,
            "knee": self.knee,
            "family_knees": self.family_knees,
            "needle_pairs": self.needle_pairs,
            "sts_pairs": self.sts_pairs,
            "notes": self.notes,
            "points": [p.to_json() for p in self.points],
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Compression:
        """The curve `to_json` wrote."""
        fields = {f: doc[f] for f in cls.__dataclass_fields__ if f != "points"}
        return cls(**fields, points=[CompressionPoint.from_json(p) for p in doc["points"]])


def knee(points: Sequence[tuple[float, float]]) -> int | None:
    """Index of the knee of (bytes, value) points: Kneedle on the frontier (the best value reached at each size
    or less), log2 of the bytes and the values scaled to [0, 1]; the frontier point farthest above the straight
    line from its smallest to its largest point. None with fewer than 3 frontier points or a flat frontier."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    frontier: list[int] = []
    for i in order:
        if not frontier or points[i][1] > points[frontier[-1]][1]:
            frontier.append(i)
    if len(frontier) < 3:
        return None
    x = np.log2([points[i][0] for i in frontier])
    y = np.array([points[i][1] for i in frontier], float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    xs, ys = (x - x.min()) / np.ptp(x), (y - y.min()) / np.ptp(y)
    gap = ys - xs
    best = int(np.argmax(gap))
    return frontier[best] if gap[best] > 0 else None


def _needle_mrr(ws: Any, ids: list[str], pairs: str, seed: int) -> dict[str, float]:
    from n2o_core.evaluation.needle import run_needle
    from n2o_core.evaluation.pairs import filter_pairs, load_pairs, paper_defaults

    loaded = load_pairs(pairs, corpus=ws.corpus, cache=ws.cache, seed=seed)
    paper = paper_defaults(loaded.source, loaded.genres)
    fp = filter_pairs(loaded, min_score=paper["min_score"], max_overlap=paper["max_overlap"], genres=paper["genres"])
    res = run_needle(ws, fp, ids, top=0, n_boot=1, seed=seed)
    return {str(r["embedder"]): float(r["mrr"]) for _, r in res.results.iterrows()}


def _sts_spearman(ws: Any, ids: list[str], pairs: str) -> dict[str, float]:
    from n2o_core.evaluation.pairs import load_pairs
    from n2o_core.evaluation.sts import run_sts

    res = run_sts(ws, load_pairs(pairs, cache=ws.cache), ids)
    return {str(r["embedder"]): float(r["spearman"]) for _, r in res.results.iterrows()}


def compression_curve(
    ws: Any,
    eid: str,
    *,
    k: int = 10,
    sizes: Sequence[int] | None = None,
    rescore: int = RESCORE,
    needle_pairs: str | None = "builtin:lee",
    sts_pairs: str | None = "builtin:lee",
    n_queries: int = 100,
    n_samples: int = 5,
    seed: int = 0,
    progress: Progress | None = None,
) -> Compression:
    """The compression curve of `eid` on the workspace's corpus (see the module docstring). Every variant is
    derived from `eid`'s cached vectors (the embedder runs at most once, for the base and the pair sentences).
    `sizes`: the dimensions tried (default: the full one, then halves down to 16); `needle_pairs` / `sts_pairs`:
    pair specs for the quality columns (None: left out)."""
    info = ws.info(eid)
    if info.dim is None:
        raise N2OError(f"{eid} has sparse vectors; compression variants are derived from dense vectors only.")
    dim = int(ws.cached_dimension(eid) or info.dim)
    sizes = sorted({int(s) for s in (sizes or default_sizes(dim)) if 1 <= int(s) <= dim}, reverse=True)
    if not sizes:
        raise N2OError(f"No size between 1 and {dim} dimensions to compress {eid} to.")
    n = len(ws.corpus)
    pairs = family_variants(eid, dim, sizes, rescore)
    too_many = sorted({d for d in sizes if d > n})  # PCA finds at most one component per sentence
    pairs = [(f, v) for f, v in pairs if not (f == "pca" and (parse_variant(v).pca or 0) > n)]
    names = list(dict.fromkeys([eid, *(v for _, v in pairs)]))
    res = compare(ws, names, k, n_queries=n_queries, n_samples=n_samples, seed=seed, progress=searched(names, progress))
    col = res.embedders.index(eid)
    notes: list[str] = []
    if too_many:
        notes.append(
            f"PCA at {', '.join(map(str, too_many))} dimensions is left out: the corpus has {n:,} sentences, and "
            "PCA finds at most one component per sentence."
        )
    quality_ids = [v for v in names if parse_variant(v).rescore is None]
    mrr: dict[str, float] = {}
    spearman: dict[str, float] = {}
    for stage, spec, fn in (
        ("needle", needle_pairs, lambda s: _needle_mrr(ws, quality_ids, s, seed)),
        ("sts", sts_pairs, lambda s: _sts_spearman(ws, quality_ids, s)),
    ):
        if spec is None:
            continue
        report(progress, stage, 0, 1)
        try:
            (mrr if stage == "needle" else spearman).update(fn(spec))
        except N2OError as e:
            notes.append(f"{'Needle MRR' if stage == 'needle' else 'STS Spearman'} left out: {e}")
        report(progress, stage, 1, 1)
    points = []
    for family, v in pairs:
        i = res.embedders.index(v)
        var = parse_variant(v)
        points.append(
            CompressionPoint(
                family,
                v,
                reduced_dim(var, dim),
                bytes_per_vector(var, dim),
                float(res.mean[i, col]),
                float(res.std[i, col]),
                mrr.get(v),
                spearman.get(v),
            )
        )
    xy = [(p.bytes_per_vector, p.n2o_with_original) for p in points]
    at = knee(xy)
    fam_knees: dict[str, str | None] = {}
    for f in FAMILIES:
        fp = [p for p in points if p.family == f]
        j = knee([(p.bytes_per_vector, p.n2o_with_original) for p in fp])
        fam_knees[f] = None if j is None else fp[j].variant
    full_pca = next((p for p in points if p.family == "pca" and p.dims == dim), None)
    if full_pca is not None:
        notes.append(
            f"PCA centres the vectors before it rotates them (as scikit-learn and faiss do), and centring alone "
            f"moves cosine neighbors: @pca={dim} keeps every dimension yet has N2O {full_pca.n2o_with_original:.3f} "
            "with the original."
        )
    int8 = next((p for p in points if p.variant == f"{eid}@int8"), None)
    if int8 is not None:
        notes.append(
            "int8 codes are (x - min) / step - 128 per dimension, with the corpus's ranges (sentence-transformers' "
            "quantize_embeddings): their cosine also re-centres and rescales each dimension, so @int8 "
            f"(N2O {int8.n2o_with_original:.3f}) moves neighbors by more than its rounding."
        )
    notes.append(
        f"N2O at k={k} with {eid}'s exact full-precision neighbors, over {len(res.samples)} samples of "
        f"{len(res.samples[0])} queries; chance k/(N-1) = {res.chance:.4f}. PCA and the int8 ranges are fitted "
        f"on this corpus's {res.corpus_size:,} sentences."
    )
    return Compression(
        eid,
        k,
        res.corpus_size,
        res.chance,
        points,
        None if at is None else points[at].variant,
        fam_knees,
        needle_pairs if mrr else None,
        sts_pairs if spearman else None,
        notes,
    )
