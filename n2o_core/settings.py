"""The dashboard's settings and their URL encoding (no Streamlit): the shared sidebar choices (`Settings`,
`to_query` / `from_query`) and each page's own parameters (`view=`, `qid=`, `text=`, `pairs=`, ...).

Every choice round-trips through the URL's query string, so a copied link reproduces the view. Parsing never
raises: a bad value falls back to the default and comes with a note that says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

from n2o_core.corpora.builtin import builtin_names
from n2o_core.corpora.specs import DEFAULT_CORPUS, linkable_spec
from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.averaging import AVERAGING, AVERAGING_DEFAULT
from n2o_core.evaluation.probe.split import MIN_TRAIN_PER_CLASS, per_class_for
from n2o_core.limits import K_MAX
from n2o_core.runtime.server_mode import operator_scheduler
from n2o_core.text import TOKEN_WORDS as TOKEN_WORDS
from n2o_core.text import TOKEN_WORDS_DEFAULT as TOKEN_WORDS_DEFAULT

#: Cold start on 2 cores stays tolerable at this many sentences (the sidebar exposes it).
DEFAULT_MAX_SENTENCES = 5000
MAX_SENTENCES_CHOICES = (500, 1000, 2000, 5000, 10000, 20000, 50000)
#: The embedders the dashboard opens with (the CLI and the API default to the paper's ten,
#: embedders.PAPER_EMBEDDER_IDS). Fast on a cold cache (2 cores): tf-idf, pretrained and corpus-trained static
#: vectors, two transformers.
#: model2vec (slow to distill on first use), minilm-l6-cls and e5-small stay one click away
#: (measured: benchmarks/README.md, 'Measurements behind the code's choices').
DASHBOARD_EMBEDDERS = (
    "tfidf",
    "glove-6b-50d",
    "word2vec",
    "fasttext-sub",
    "minilm-l6-mean",
    "paraphrase-minilm-l3-mean",
)
ORDERS = ("cluster", "chosen")
#: Embedder ids a link may name beyond the built-ins, when the server allows it (`from_query(link_refusal=)`).
USER_EMBEDDER_PREFIXES = ("st:", "hf:", "wv:", "npy:", "vec:")


@dataclass(frozen=True)
class Settings:
    """The shared sidebar choices."""

    corpus: str = DEFAULT_CORPUS
    max_sentences: int = DEFAULT_MAX_SENTENCES
    embedders: tuple[str, ...] = DASHBOARD_EMBEDDERS
    k: int = 10
    n_queries: int = 100
    n_samples: int = 5
    seed: int = 0
    approx: bool = False
    znorm: bool = False
    order: str = "cluster"
    #: Text column of a table corpus or a Hugging Face dataset (`col=`; "" = the loader's default).
    text_column: str = ""
    #: A built-in corpus the corpus-trained embedders are also trained on (`train=`; "" = the corpus alone), for a
    #: corpus smaller than they need (`analyses.face_value.TRAINED_NOISE_BELOW`).
    train_with: str = ""
    #: Dask scheduler address ("" = this process). Deliberately not in the URL: a link must not make the
    #: server connect somewhere.
    scheduler: str = ""
    notes: tuple[str, ...] = field(default=(), compare=False)


def env_defaults(environ: Mapping[str, str] | None = None) -> Settings:
    """Defaults, overridable by N2O_DEFAULT_CORPUS, N2O_DEFAULT_EMBEDDERS (comma list),
    N2O_MAX_SENTENCES, N2O_DEFAULT_QUERIES and N2O_DEFAULT_SAMPLES (tests and demos use a small setup), and
    N2O_DASK_SCHEDULER (or N2O_SCHEDULER: the operator's Dask scheduler, `runtime.server_mode`)."""
    env = os.environ if environ is None else environ
    s = Settings(scheduler=operator_scheduler(environ))
    corpus = env.get("N2O_DEFAULT_CORPUS", "").strip()
    if corpus:
        s = replace(s, corpus=corpus)
    embs = _split(env.get("N2O_DEFAULT_EMBEDDERS", ""))
    if embs:
        s = replace(s, embedders=tuple(embs))
    for var, fld in (
        ("N2O_MAX_SENTENCES", "max_sentences"),
        ("N2O_DEFAULT_QUERIES", "n_queries"),
        ("N2O_DEFAULT_SAMPLES", "n_samples"),
    ):
        v = _int(env.get(var))
        if v is not None and v > 0:
            s = replace(s, **{fld: v})  # type: ignore[arg-type]  # fld names an int field
    return s


def _split(v: str | Sequence[str] | None) -> list[str]:
    if v is None:
        return []
    if not isinstance(v, str):
        v = ",".join(v)
    return list(dict.fromkeys(p.strip() for p in v.split(",") if p.strip()))


def _int(v: object) -> int | None:
    if isinstance(v, (list, tuple)):
        v = v[0] if v else None
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return None


def _first(v: object) -> object:
    if isinstance(v, (list, tuple)):
        return v[0] if v else None
    return v


def _linked_embedders(
    asked: list[str], known: set[str], link_refusal: Callable[[str], str | None] | None, notes: list[str]
) -> list[str]:
    """The embedders a link names that it may: known ids, user specs `link_refusal` allows, and variants of
    either (`ID@binary`); a note for each left out."""
    kept, unknown = [], []
    for e in asked:
        base, bad_variant = _variant_base(e)
        user = link_refusal is not None and base.startswith(USER_EMBEDDER_PREFIXES)
        why = None if base in known else (link_refusal(base) if user else "unknown")  # type: ignore[misc]
        if bad_variant:
            why, user = bad_variant, True
        if why is None:
            kept.append(e)
        elif user:
            notes.append(f"Embedder '{e[:200]}' in the link is left out: {why}.")
        else:
            unknown.append(e)
    if unknown:
        notes.append(f"Unknown embedder(s) in the link ignored: {', '.join(b[:40] for b in unknown)}.")
    return kept


def _variant_base(eid: str) -> tuple[str, str | None]:
    """(the embedder a variant id is a variant of, None) -- the id itself for a plain one; (the id, why) when its
    variant parts are malformed (`n2o_core.variants.spec`)."""
    from n2o_core.variants.spec import parse_variant

    if "@" not in eid:
        return eid, None
    try:
        return parse_variant(eid).base, None
    except N2OError as e:
        return eid, str(e).rstrip(".")


def link_int(params: Mapping[str, object], name: str, lo: int, hi: int) -> int | None:
    """The link's whole number `name` when it is one from `lo` to `hi`; None when the link has none or a bad one
    (`from_query` then uses the default, with a note)."""
    raw = params.get(name)
    if raw is None:
        return None
    v = _int(raw)
    return v if v is not None and lo <= v <= hi else None


def from_query(
    params: Mapping[str, object],
    defaults: Settings | None = None,
    known_embedders: Iterable[str] | None = None,
    extra_corpora: Iterable[str] = (),
    link_refusal: Callable[[str], str | None] | None = None,
) -> Settings:
    """Settings from URL query parameters; unknown or bad values fall back to `defaults` with a note.

    `link_refusal(eid)`: for an embedder the link names that is not in `known_embedders` (a user's model spec or
    uploaded vectors), None when the link may name it (it is then kept) or why not (it is dropped with a note);
    see `n2o_core.embedders.user` for the rule."""
    d = defaults or env_defaults()
    notes: list[str] = []
    extra = set(extra_corpora) | {d.corpus}

    corpus = _first(params.get("corpus"))
    if corpus is None:
        corpus = d.corpus
    elif not linkable_spec(str(corpus), extra):
        notes.append(f"Unknown corpus '{str(corpus)[:80]}' in the link; using {d.corpus}.")
        corpus = d.corpus

    def pos_int(name: str, default: int, lo: int, hi: int) -> int:
        v = link_int(params, name, lo, hi)
        if v is None:
            if params.get(name) is not None:
                notes.append(f"'{name}' must be a whole number from {lo} to {hi}; using {default}.")
            return default
        return v

    max_sentences = pos_int("cap", d.max_sentences, 10, 1_000_000)
    k = pos_int("k", d.k, 1, K_MAX)
    n_queries = pos_int("queries", d.n_queries, 1, 100_000)
    n_samples = pos_int("samples", d.n_samples, 1, 100)
    seed = pos_int("seed", d.seed, 0, 2**31 - 1)

    embedders = tuple(d.embedders)
    if params.get("emb") is not None:
        asked = _split(params.get("emb"))  # type: ignore[arg-type]
        if known_embedders is not None:
            asked = _linked_embedders(asked, set(known_embedders), link_refusal, notes)
        embedders = tuple(asked)

    search = str(_first(params.get("search")) or ("approx" if d.approx else "exact"))
    if search not in ("exact", "approx"):
        notes.append("'search' must be exact or approx; using exact.")
        search = "exact"
    train_with = str(_first(params.get("train")) or d.train_with).strip()
    if train_with and train_with not in builtin_names():
        notes.append(
            f"'train' must name a built-in corpus ({', '.join(builtin_names())}); training on the corpus alone."
        )
        train_with = ""
    z = str(_first(params.get("z")) or ("1" if d.znorm else "0"))
    order = str(_first(params.get("order")) or d.order)
    if order not in ORDERS:
        notes.append(f"'order' must be one of {', '.join(ORDERS)}; using cluster.")
        order = "cluster"
    return Settings(
        corpus=str(corpus),
        max_sentences=max_sentences,
        embedders=embedders,
        k=k,
        n_queries=n_queries,
        n_samples=n_samples,
        seed=seed,
        approx=search == "approx",
        znorm=z in ("1", "true", "on", "yes"),
        order=order,
        text_column=str(_first(params.get("col")) or d.text_column).strip()[:200],
        train_with=train_with,
        scheduler=d.scheduler,
        notes=tuple(notes),
    )


def to_query(s: Settings) -> dict[str, str]:
    """The URL query parameters for `s` (inverse of `from_query`)."""
    return {
        "corpus": s.corpus,
        "cap": str(s.max_sentences),
        "emb": ",".join(s.embedders),
        "k": str(s.k),
        "queries": str(s.n_queries),
        "samples": str(s.n_samples),
        "seed": str(s.seed),
        "search": "approx" if s.approx else "exact",
        "z": "1" if s.znorm else "0",
        "order": s.order,
        **({"col": s.text_column} if s.text_column else {}),
        **({"train": s.train_with} if s.train_with else {}),
    }


def settings_dict(s: Settings) -> dict:
    """Plain dict (for JSON exports)."""
    d = asdict(s)
    d.pop("notes", None)
    d["embedders"] = list(s.embedders)
    return d


# --------------------------------------------------------------------------- each page's own parameters

#: The heatmap page's sections (`view=`), one on screen at a time.
HEATMAP_VIEWS: dict[str, str] = {
    "matrix": "Matrix",
    "box": "Per embedder",
    "robustness": "Robustness",
    "downloads": "Downloads",
}
#: Minimal pairs per subset on the HEROS page (`pairs=`).
HEROS_PAIR_CHOICES: tuple[int, ...] = (10, 20, 50, 100, 200)
HEROS_DEFAULT_PAIRS = 50
#: Longest free-text query (`text=`).
MAX_QUERY_CHARS = 1000
#: Token overlap counts (`words=`): TOKEN_WORDS and TOKEN_WORDS_DEFAULT are defined once in the core (`n2o_core.text`,
#: imported above), which the findings read too.
#: Averaged word vectors on the HEROS page (`avg=`): stop words dropped, as the sentence-transformers GloVe models
#: Heros evaluated do, or every token, as the N2O paper averaged. Defined once in the core (the CLI's --averaging).
HEROS_AVERAGING: dict[str, str] = AVERAGING
HEROS_AVERAGING_DEFAULT = AVERAGING_DEFAULT


def param_choice(
    params: Mapping[str, object], name: str, choices: Sequence[str], default: str
) -> tuple[str, str | None]:
    """A page parameter that must be one of `choices`: (value, note when the link's value was replaced)."""
    raw = _first(params.get(name))
    if raw is None or str(raw) == "":
        return default, None
    if str(raw) in choices:
        return str(raw), None
    return default, f"'{name}' in the link must be one of {', '.join(choices)}; using {default}."


def param_int_choice(
    params: Mapping[str, object], name: str, choices: Sequence[int], default: int
) -> tuple[int, str | None]:
    """A whole-number page parameter that must be one of `choices` (value, note)."""
    raw = _first(params.get(name))
    if raw is None or str(raw) == "":
        return default, None
    v = _int(raw)
    if v in choices:
        return int(v), None  # type: ignore[arg-type]
    return default, f"'{name}' in the link must be one of {', '.join(map(str, choices))}; using {default}."


def param_query(params: Mapping[str, object], n_corpus: int) -> tuple[int | None, str | None, str | None]:
    """The query explorer's query: (corpus id from `qid=`, or None; typed text from `text=`, or None; note).

    A typed text wins over an id; text is trimmed to MAX_QUERY_CHARS."""
    text = _first(params.get("text"))
    if text is not None and str(text).strip():
        return None, str(text).strip()[:MAX_QUERY_CHARS], None
    raw = _first(params.get("qid"))
    if raw is None or str(raw) == "":
        return None, None, None
    v = _int(raw)
    if v is None or not 0 <= v < n_corpus:
        return None, None, f"'qid' in the link must be a sentence id from 0 to {n_corpus - 1}; showing the first query."
    return v, None, None


# --------------------------------------------------------------------------- evaluation pages' parameters

#: Paraphrase needle page (`npairs=`): pairs made from the corpus by a HEROS rule, gensim's human-scored Lee
#: documents (the only human pairs installed offline: whole documents; the paper's filters keep 18), or a mode
#: without content ("upload", "hf"): a link never names a file or a Hugging Face dataset, so it can neither make
#: the server read a file nor go online.
NEEDLE_SYNTHETIC_SIZES: tuple[int, ...] = (50, 100, 200, 500)
NEEDLE_SOURCES: tuple[str, ...] = (
    "builtin:lee",
    *(f"synthetic:{rule}:{n}" for rule in ("heros-synonym", "heros-typo") for n in NEEDLE_SYNTHETIC_SIZES),
    "upload",
    "hf",
)
NEEDLE_DEFAULT_SOURCE = "builtin:lee"  # human pairs that ship offline; the synthetic sets are labelled options
#: Human-similarity page (`hpairs=`): gensim's Lee judgments, or a mode ("upload", "hf").
SIMILARITY_SOURCES: tuple[str, ...] = ("builtin:lee", "upload", "hf")
SIMILARITY_DEFAULT_SOURCE = "builtin:lee"


def param_threshold(
    params: Mapping[str, object], name: str, lo: float, hi: float, default: float | None
) -> tuple[float | None, str | None]:
    """A filter threshold (`min_score=4`, `max_overlap=off`): a number in [lo, hi], or off (None); (value, note
    when the link's value was replaced by `default`)."""
    raw = _first(params.get(name))
    if raw is None or str(raw).strip() == "":
        return default, None
    text = str(raw).strip().lower()
    if text in ("off", "none"):
        return None, None
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if lo <= v <= hi:
        return v, None
    shown = "off" if default is None else f"{default:g}"
    return default, f"'{name}' in the link must be a number from {lo:g} to {hi:g} or 'off'; using {shown}."


#: Talk mode (`talk=1`): no sidebar and no widgets, larger text and figures, the rest of the link unchanged.
TALK_PARAM = "talk"
_TRUE = ("1", "true", "on", "yes")


def param_flag(params: Mapping[str, object], name: str) -> bool:
    """A page flag such as `talk=1` (also true, on, yes); anything else, or no value, is off."""
    raw = _first(params.get(name))
    return raw is not None and str(raw).strip().lower() in _TRUE


def param_multi_choice(
    params: Mapping[str, object], name: str, choices: Sequence[str], default: Sequence[str]
) -> tuple[list[str], str | None]:
    """A page parameter naming some of `choices`, comma-separated (`tasks=bshift,tense`; `all` = every choice):
    (the named choices in `choices`' order, note when the link named unknown ones or none; then `default`)."""
    raw = _first(params.get(name))
    if raw is None or str(raw).strip() == "":
        return list(default), None
    asked = [p.lower() for p in _split(str(raw))]
    if asked == ["all"]:
        return list(choices), None
    unknown = [a for a in asked if a not in choices]
    kept = [c for c in choices if c in asked]
    if not kept:
        return list(default), f"'{name}' in the link must name some of {', '.join(choices)}; using the default."
    if unknown:
        return kept, f"Unknown value(s) of '{name}' in the link ignored: {', '.join(u[:40] for u in unknown)}."
    return kept, None


#: Probing page: items per class at most (`per_class=`). The paper's tasks have 100k train + 10k dev + 10k test
#: sentences each. The page opens at the smallest size whose test split measures a binary task within ±5 points
#: (95%): 1,000 per class (250 test items per class, 500 per task: ±4.4); 100 per class gave ±13.9, most results
#: within noise of the majority baseline.
PROBE_PER_CLASS_CHOICES: tuple[int, ...] = (50, 100, 200, 500, 1000, 2000, 5000)
PROBE_NOISE_POINTS = 5.0
PROBE_DEFAULT_PER_CLASS = per_class_for(PROBE_NOISE_POINTS, PROBE_PER_CLASS_CHOICES)
#: Probing page: training items every class keeps at least (`min_train=`). The default is the paper's floor
#: (`split.MIN_TRAIN_PER_CLASS`, 100: WC's 100k training sentences over 1,000 words); the smaller ones are
#: deviations for small corpora, labelled so on the page.
PROBE_MIN_TRAIN_CHOICES: tuple[int, ...] = (1, 10, 25, 50, MIN_TRAIN_PER_CLASS)
PROBE_DEFAULT_MIN_TRAIN = MIN_TRAIN_PER_CLASS
