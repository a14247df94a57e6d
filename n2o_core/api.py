"""The Python API: the engine behind the dashboard and the CLI, one call per analysis.

    import n2o_core as n2o

    res = n2o.compare("builtin:bbc-news", ["tfidf", "glove-6b-50d"], k=10, max_sentences=2000)
    res.to_frame()        # one row per pair: a, b, n2o, std, chance
    res.to_json()         # the document `python -m n2o_core compare --json` writes

A corpus is a spec (`builtin:NAME`, a file path, `hf:NAME`), a plain list of strings, or a loaded `Corpus`. An
embedder is an id (`n2o.list_embedders()`, or a user spec such as `st:MODEL` or `wv:FILE`), or a pair
`(name, vectors)` of a name and a numpy array with one row per corpus sentence, in corpus order (a mapping
`{name: vectors}` works too). Every function embeds and searches through the same cached pipeline the dashboard
uses (the cache folder: `cache_dir`, else `$N2O_CACHE_DIR`, else `./cache`), and returns a typed result with
`.to_frame()` (pandas) and `.to_json()` (the CLI's document). Bad input raises `N2OError` with one sentence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from n2o_core.errors import N2OError

if TYPE_CHECKING:
    from n2o_core.analyses.agreement import Agreement
    from n2o_core.analyses.compare import ComparisonResult
    from n2o_core.corpora import Corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.embedders.base import EmbedderInfo
    from n2o_core.evaluation.heros.run import HerosResult
    from n2o_core.evaluation.needle import NeedleResult
    from n2o_core.evaluation.probe.run import ProbeResult
    from n2o_core.evaluation.sts import STSResult
    from n2o_core.evaluation.variants.run import VariantsResult
    from n2o_core.measures.run import MeasureComparison
    from n2o_core.runtime.progress import Progress
    from n2o_core.storage.cache import Cache

    #: A corpus: a spec string, a list of sentences, or a loaded Corpus.
    CorpusLike: TypeAlias = str | Sequence[str] | Corpus
    #: Embedders: ids and (name, vectors) pairs, or a mapping of names to vectors (None: the name is an id).
    EmbeddersLike: TypeAlias = Sequence[str | tuple[str, Any]] | Mapping[str, Any]

__all__ = [
    "agreement",
    "compare",
    "heros",
    "list_embedders",
    "load_corpus",
    "needle",
    "probe",
    "similarity_measures",
    "sts",
    "variant_analysis",
    "workspace",
]


def list_embedders() -> list[EmbedderInfo]:
    """Every built-in embedder's registry entry (id, family, composition, dimension, default), in display order."""
    from n2o_core.embedders.registry import list_embedders as registry_list

    return list(registry_list())


def load_corpus(
    corpus: CorpusLike,
    *,
    max_sentences: int | None = None,
    text_column: str | None = None,
    seed: int = 0,
    cache_dir: str | None = None,
) -> Corpus:
    """A deduplicated, fingerprinted corpus from a spec, a list of sentences, or a Corpus (returned as it is).

    `max_sentences` caps a spec at a fixed, seeded (topic-stratified where labelled) sample."""
    from n2o_core.corpora import Corpus, from_texts
    from n2o_core.corpora import load_corpus as load_spec
    from n2o_core.storage.cache import Cache

    if max_sentences is not None and max_sentences < 1:
        raise N2OError(f"max_sentences must be positive (got {max_sentences}).")
    if isinstance(corpus, Corpus):
        return corpus
    if isinstance(corpus, str):
        root = Cache(cache_dir).root
        return load_spec(corpus, max_sentences=max_sentences, text_column=text_column, seed=seed, cache_dir=root)
    texts = list(corpus)
    if not all(isinstance(t, str) for t in texts):
        raise N2OError("A corpus given as a list must hold strings (one sentence each).")
    return from_texts(texts, name="sentences given to the API")


def workspace(
    corpus: CorpusLike | Workspace,
    embedders: EmbeddersLike = (),
    *,
    max_sentences: int | None = None,
    text_column: str | None = None,
    seed: int = 0,
    cache_dir: str | None = None,
) -> Workspace:
    """The corpus's workspace (cached embeddings and neighbors) with the given vectors registered under their
    names; unknown ids raise before any work. Every other function starts here, and each takes a Workspace in
    place of a corpus too (then `max_sentences` and `cache_dir` are its own)."""
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    if isinstance(corpus, Workspace):  # a front end's own workspace (the CLI's: its cache, dtype, scheduler)
        ws, cache = corpus, corpus.cache
    else:
        cache = Cache(cache_dir)
        corp = load_corpus(
            corpus, max_sentences=max_sentences, text_column=text_column, seed=seed, cache_dir=str(cache.root)
        )
        ws = Workspace(corp, cache=cache)
    for name, vectors in _embedder_items(embedders):
        if vectors is not None:
            ws.add_vectors(name, _vectors_file(cache, name, vectors, len(ws.corpus)))
        elif not ws.is_precomputed(name):
            ws.info(name)  # raises EmbedderError for an unknown id
    return ws


def _names(embedders: EmbeddersLike) -> list[str]:
    """The embedder ids in the order given (a name for each (name, vectors) pair)."""
    return [name for name, _ in _embedder_items(embedders)]


def _embedder_items(embedders: EmbeddersLike) -> list[tuple[str, Any]]:
    if isinstance(embedders, str):
        raise N2OError("Give the embedders as a list of ids, e.g. ['tfidf', 'glove-6b-50d'], not one string.")
    if isinstance(embedders, Mapping):
        return [(str(k), v) for k, v in embedders.items()]
    out: list[tuple[str, Any]] = []
    for item in embedders:
        if isinstance(item, str):
            out.append((item, None))
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            out.append((item[0], item[1]))
        else:
            raise N2OError(f"An embedder is an id or a (name, vectors) pair, not {type(item).__name__}.")
    return out


def _vectors_file(cache: Cache, name: str, vectors: Any, n: int) -> str:
    """Write an in-memory array once into the cache (content-addressed) and return its path."""
    from n2o_core.storage.fileio import atomic_write, hash_key

    arr = np.ascontiguousarray(np.asarray(vectors))
    if arr.ndim != 2 or arr.shape[0] != n:
        raise N2OError(f"The vectors of '{name}' must be a 2-D array with one row per corpus sentence ({n}).")
    path = cache.path("vectors", "api", f"{hash_key(arr.dtype.str, arr.shape, arr.tobytes().hex())}.npy")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda f: np.save(f, arr, allow_pickle=False))
    return str(path)


def _default_ids(ids: list[str]) -> list[str]:
    from n2o_core.embedders.registry import PAPER_EMBEDDER_IDS

    return ids or list(PAPER_EMBEDDER_IDS)


def compare(
    corpus: CorpusLike | Workspace,
    embedders: EmbeddersLike,
    *,
    k: int = 50,
    queries: int = 100,
    samples: int = 5,
    seed: int = 0,
    k_max: int | None = None,
    znorm: bool = False,
    approx: bool = False,
    token_overlap: bool = True,
    max_sentences: int | None = None,
    cache_dir: str | None = None,
    progress: Progress | None = None,
) -> ComparisonResult:
    """N2O between every pair of embedders (Lin & Smith 2019): `samples` random samples of `queries` corpus
    sentences (the paper: 5 x 100), k nearest neighbors by cosine, the query excluded by index; with the token
    overlap of each embedder's neighbors (stop words not counted) unless `token_overlap` is False. `progress`
    gets each embedder's stages ("train", "embed", "neighbors"; the embedder id as the item)."""
    from n2o_core.analyses.compare import compare as run_compare
    from n2o_core.limits import require_embedders, validate_k
    from n2o_core.text import SBERT_STOP_WORDS

    ws = workspace(corpus, embedders, max_sentences=max_sentences, cache_dir=cache_dir)
    ids = _names(embedders)
    require_embedders(ids, what="to compare")
    validate_k(k, len(ws.corpus))
    res = run_compare(
        ws,
        ids,
        k,
        n_queries=queries,
        n_samples=samples,
        seed=seed,
        k_max=k_max,
        znorm=znorm,
        approx=approx,
        progress=progress,
    )
    if token_overlap:
        res.add_token_overlap(ws.corpus.texts, SBERT_STOP_WORDS)
    return res


def agreement(
    corpus: CorpusLike | Workspace,
    embedders: EmbeddersLike,
    *,
    k: int = 10,
    znorm: bool = False,
    approx: bool | None = None,
    max_sentences: int | None = None,
    cache_dir: str | None = None,
    progress: Progress | None = None,
) -> Agreement:
    """Per-sentence N2O of every pair of embedders, every corpus sentence a query (its mean over the corpus is
    N2O with the whole corpus as the query set); `approx=None` picks exact search up to 50,000 sentences.
    `progress` gets each embedder's stages ("train", "embed", "neighbors"; the embedder id as the item)."""
    from n2o_core.analyses.agreement import agreement as run_agreement

    ws = workspace(corpus, embedders, max_sentences=max_sentences, cache_dir=cache_dir)
    ids = _names(embedders)
    return run_agreement(ws, ids, k, znorm=znorm, approx=approx, progress=progress)


def needle(
    corpus: CorpusLike | Workspace,
    embedders: EmbeddersLike = (),
    pairs: str = "builtin:lee",
    *,
    columns: dict[str, str | None] | None = None,
    scale: float | None = None,
    min_score: float | str | None = "paper",
    max_overlap: float | str | None = "paper",
    genres: Sequence[str] = (),
    overlap_measure: str = "query",
    pair_vectors: Mapping[str, np.ndarray] | None = None,
    znorm: bool = False,
    top: int = 3,
    n_boot: int = 1000,
    seed: int = 0,
    max_sentences: int | None = None,
    cache_dir: str | None = None,
    progress: Progress | None = None,
) -> NeedleResult:
    """The paraphrase needle (N2O §8): each pair's paraphrase hidden in the corpus, ranked among the corpus by
    cosine to its query; MRR with a bootstrap CI, top-1, top-5. `min_score`/`max_overlap` default to the paper's
    filters for the pair source ("paper"; None switches a filter off); `genres` default to the paper's too (news
    only where the pair file has a news genre, as STS-B's "main-news"; ["all"] keeps every genre); the result's
    `pairs` says how many pairs each filter dropped and how many were kept. Embedders default to the defaults; a
    precomputed-vector embedder needs its pairs' rows in `pair_vectors[name]` (sentence1 block first)."""
    from n2o_core.evaluation.needle import run_needle
    from n2o_core.evaluation.pairs import filter_pairs, load_pairs, paper_defaults

    if top < 0:
        raise N2OError(f"top must be 0 or more (got {top}).")
    if n_boot < 1:
        raise N2OError(f"n_boot must be at least 1 (got {n_boot}).")
    ws = workspace(corpus, embedders, max_sentences=max_sentences, seed=seed, cache_dir=cache_dir)
    ids = _names(embedders)
    ids = _default_ids(ids)
    for eid in ids:
        if not ws.is_precomputed(eid):
            ws.info(eid)  # an unknown id fails before the pairs are made
    loaded = load_pairs(pairs, columns=columns, scale=scale, corpus=ws.corpus, cache=ws.cache, seed=seed)
    paper = paper_defaults(loaded.source, loaded.genres)
    wanted = [g for g in genres if g.strip().lower() != "all"]
    filtered = filter_pairs(
        loaded,
        min_score=paper["min_score"] if isinstance(min_score, str) else min_score,
        max_overlap=paper["max_overlap"] if isinstance(max_overlap, str) else max_overlap,
        genres=wanted if genres else paper["genres"],
        measure=overlap_measure,
    )
    return run_needle(
        ws, filtered, ids, znorm=znorm, top=top, n_boot=n_boot, seed=seed, pair_vectors=pair_vectors, progress=progress
    )


def sts(
    pairs: str = "builtin:lee",
    embedders: Sequence[str] = (),
    *,
    corpus: CorpusLike | None = None,
    columns: dict[str, str | None] | None = None,
    scale: float | None = None,
    genres: Sequence[str] = (),
    max_sentences: int | None = None,
    text_column: str | None = None,
    cache_dir: str | None = None,
    progress: Progress | None = None,
) -> STSResult:
    """Cosine against human similarity scores, Pearson and Spearman, raw and z-normalized (Eger et al.,
    Pitfalls), with each embedder's dimension and rank under every scoring. Corpus-trained embedders are fit on
    `corpus` when given; else, for `builtin:lee`, gensim's Lee background corpus; else the pair sentences."""
    from n2o_core.corpora import from_texts
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.evaluation.pairs import filter_pairs, load_pairs
    from n2o_core.evaluation.sts import run_sts
    from n2o_core.storage.cache import Cache

    if pairs.strip().startswith("synthetic"):
        raise N2OError("Synthetic pairs carry no human scores; sts needs a scored pair file or builtin:lee.")
    if max_sentences is not None and max_sentences < 1:
        raise N2OError(f"max_sentences must be positive (got {max_sentences}).")
    cache = Cache(cache_dir)
    loaded = load_pairs(pairs, columns=columns, scale=scale, cache=cache)
    if not loaded.source.scored:
        raise N2OError(f"The pairs from '{loaded.source.spec}' have no human scores to correlate with.")
    genres = [g for g in genres if g.strip().lower() != "all"]
    if genres:
        loaded = filter_pairs(loaded, min_score=None, max_overlap=None, genres=genres).pairs
    root = str(cache.root)
    if corpus is not None:
        fit = load_corpus(corpus, max_sentences=max_sentences, text_column=text_column, cache_dir=root)
    elif loaded.source.kind == "lee":
        fit = load_corpus("builtin:lee-news", cache_dir=root)
    else:
        fit = from_texts(loaded.queries + loaded.paraphrases, name=f"pair sentences of {loaded.source.spec}")
    ws = Workspace(fit, cache=cache)
    ids = _default_ids(list(embedders))
    for eid in ids:
        ws.info(eid)  # an unknown id fails before any work
    return run_sts(ws, loaded, ids, progress=progress)


def heros(
    corpus: CorpusLike | Workspace,
    embedders: EmbeddersLike = (),
    *,
    n_pairs: int = 500,
    seed: int = 0,
    znorm: bool = False,
    n_boot: int = 1000,
    max_sentences: int | None = None,
    cache_dir: str | None = None,
    averaging: str = "nostop",
) -> HerosResult:
    """HEROS-style minimal pairs (Chiang et al.) made from the corpus: cosine of each sentence with its synonym,
    antonym, typo, random-word and negation variants, raw and normalized by the random-pair baseline,
    s' = (s - b) / (1 - b). `averaging`: "nostop" (averaged word vectors without stop words, as Heros and the
    dashboard) or "all" (every token)."""
    from n2o_core.evaluation.heros.run import run_heros

    if n_pairs < 1:
        raise N2OError(f"n_pairs must be at least 1 (got {n_pairs}).")
    ws = workspace(corpus, embedders, max_sentences=max_sentences, seed=seed, cache_dir=cache_dir)
    ids = _names(embedders)
    return run_heros(ws, _default_ids(ids), n_pairs=n_pairs, seed=seed, n_boot=n_boot, znorm=znorm, averaging=averaging)


def probe(
    corpus: CorpusLike | Workspace,
    embedders: EmbeddersLike = (),
    *,
    tasks: str | Sequence[str] = "all",
    classifiers: Sequence[str] = ("lr", "mlp"),
    per_class: int = 5000,
    seed: int = 0,
    min_train: int | None = None,
    max_sentences: int | None = None,
    cache_dir: str | None = None,
) -> ProbeResult:
    """SentEval's ten probing tasks (Conneau et al. 2018) built from the corpus, read out by logistic
    regression and an MLP; `per_class` caps the items per class, `min_train` is the fewest training items a class
    keeps (default: the paper's 100; classes and tasks below it are dropped, said in the task table)."""
    from n2o_core.evaluation.probe.build import parse_tasks
    from n2o_core.evaluation.probe.run import run_probe

    chosen = parse_tasks(tasks if isinstance(tasks, str) else ",".join(tasks))
    if per_class <= 0:
        raise N2OError(f"per_class must be a positive number of items per class (got {per_class}).")
    from n2o_core.evaluation.probe.split import MIN_TRAIN_PER_CLASS

    ws = workspace(corpus, embedders, max_sentences=max_sentences, cache_dir=cache_dir)
    ids = _names(embedders)
    return run_probe(
        ws,
        _default_ids(ids),
        tasks=chosen,
        classifiers=list(classifiers),
        per_class=per_class,
        seed=seed,
        min_train=MIN_TRAIN_PER_CLASS if min_train is None else min_train,
    )


def similarity_measures(
    corpus: CorpusLike | Workspace,
    embedders: EmbeddersLike,
    *,
    k: int = 10,
    measure_ids: Sequence[str] | None = None,
    permutations: int = 100,
    bootstrap: int = 100,
    subsample: int = 5000,
    seed: int = 0,
    max_sentences: int | None = None,
    cache_dir: str | None = None,
) -> MeasureComparison:
    """Similarity measures beyond N2O for every pair of embedders (CKA linear/unbiased/RBF, CKNNA, mutual k-NN,
    Jaccard, RSA, Procrustes, regression R², SVCCA, PWCCA; `measure_ids` picks some), each with a permutation
    null (mean, p) and a bootstrap interval; kernel measures on a seeded subsample of `subsample` sentences."""
    from n2o_core.measures.run import compare_measures

    ws = workspace(corpus, embedders, max_sentences=max_sentences, cache_dir=cache_dir)
    ids = _names(embedders)
    return compare_measures(
        ws, ids, k, measure_ids, permutations_=permutations, bootstrap=bootstrap, subsample=subsample, seed=seed
    )


def variant_analysis(
    corpus: CorpusLike | Workspace,
    embedder: str,
    *,
    other: str | None = None,
    k: int = 10,
    layers: bool = True,
    compression: bool = True,
    index: bool = True,
    sizes: Sequence[int] | None = None,
    needle_pairs: str | None = "builtin:lee",
    sts_pairs: str | None = "builtin:lee",
    queries: int = 100,
    samples: int = 5,
    seed: int = 0,
    max_sentences: int | None = None,
    cache_dir: str | None = None,
    progress: Progress | None = None,
) -> VariantsResult:
    """What a layer, a compression or an approximate index does to one embedder's neighbors (issue 36), as the
    CLI's `variants --json` writes it (`.to_json()`):

    - `.layers`: N2O (mean and spread over `samples` x `queries` query samples, at k) and linear CKA between
      every two layers of the embedder's model (`@layer=0` = the embeddings output ... the last layer; one cached
      forward pass), the chance level k/(N-1), each layer's best-matching other layer; `.between`: the same with
      `other`'s layers as columns (one column for an embedder without layers, e.g. GloVe).
    - `.compression`: for each family (dims, pca, int8, binary, binary+rescore) at each size in `sizes` (default:
      the full dimension, then halves down to 16): bytes per vector, N2O with the full-precision exact neighbors,
      the needle MRR on `needle_pairs` and the STS Spearman on `sts_pairs` (None: left out), and the knee.
    - `.index`: exact search and pynndescent at several graph degrees: recall@k (= N2O with exact) against the
      query time per query and the build time.
    A part that cannot be computed (layers of an embedder without hidden states) is named in `.errors`.
    (Named `variant_analysis`, not `variants`: `n2o_core.variants` is the package of the variant grammar.)
    `progress` gets each stage as "<part>: <stage>" (parts "layers", "between", "compression", "index"; stages
    "layers", "neighbors", "cka", "needle", "sts", "index")."""
    from n2o_core.evaluation.variants.run import run_variants

    ws = workspace(corpus, [embedder] + ([other] if other else []), max_sentences=max_sentences, cache_dir=cache_dir)
    return run_variants(
        ws,
        embedder,
        other=other,
        k=k,
        layers=layers,
        compression=compression,
        index=index,
        sizes=list(sizes) if sizes else None,
        needle_pairs=needle_pairs,
        sts_pairs=sts_pairs,
        n_queries=queries,
        n_samples=samples,
        seed=seed,
        progress=progress,
    )
