"""Probing tasks: spaCy parsing speed, building the ten tasks on an empty vs a filled cache, and readout time.

    python benchmarks/bench_probe.py                     # BBC News: 5,000 and 10,000 sentences, then all tasks
    python benchmarks/bench_probe.py --sizes 500 --quick --no-save   # a smoke test (seconds, writes nothing)

1. Parsing: `nlp.pipe` over the first N parseable BBC News sentences (5-28 words) with the components the tasks
   read (tok2vec, tagger, parser; `parse.PARSE_EXCLUDE` leaves out NER, attribute ruler and lemmatizer) for a
   few batch sizes and 1 or 2 processes, each beside the full pipeline (all components, batch 256, 1 process)
   timed in the same run: ratio = full_s / candidate_s.
2. Tasks: `build_tasks` for all ten tasks (5,000 per class) on an empty cache (tokenize + parse the corpus +
   generate), then again on the filled cache (reads JSON; parses nothing). Both in this process.
3. Readouts: `read_out` with logistic regression and the MLP on BShift and WC vectors of glove-6b-50d.

Writes benchmarks/results/bench_probe.json (and .txt) unless --no-save.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder  # noqa: E402


def _sentences(n: int) -> list[str]:
    """The first n BBC News sentences of 5-28 tokenizer words (what `parse_texts` hands to the parser)."""
    from n2o_core.corpora import load_corpus
    from n2o_core.evaluation.probe.parse import MAX_WORDS, MIN_WORDS, parse_pipeline

    tok = parse_pipeline().tokenizer
    out = []
    for text in load_corpus("builtin:bbc-news").texts:
        nw = sum(1 for t in tok(text) if not (t.is_punct or t.is_space))
        if MIN_WORDS <= nw <= MAX_WORDS:
            out.append(text)
            if len(out) == n:
                break
    return out


def _time_pipe(nlp, texts: list[str], batch_size: int, n_process: int) -> float:
    t = time.perf_counter()
    for _ in nlp.pipe(texts, batch_size=batch_size, n_process=n_process):
        pass
    return time.perf_counter() - t


def bench_parse(rec: Recorder, sizes: list[int], quick: bool) -> None:
    import spacy

    from n2o_core.evaluation.heros.nlp import SPACY_MODEL
    from n2o_core.evaluation.probe.parse import PARSE_EXCLUDE

    full = spacy.load(SPACY_MODEL)
    lean = spacy.load(SPACY_MODEL, exclude=list(PARSE_EXCLUDE))
    list(lean.pipe(["Warm up the model."] * 8))
    list(full.pipe(["Warm up the model."] * 8))
    settings = [(256, 1)] if quick else [(64, 1), (256, 1), (1000, 1), (256, 2)]
    for n in sizes:
        texts = _sentences(n)
        for batch, procs in settings:
            base = _time_pipe(full, texts, 256, 1)
            cand = _time_pipe(lean, texts, batch, procs)
            rec.add(
                step="parse",
                sentences=len(texts),
                batch_size=batch,
                n_process=procs,
                full_pipeline_s=base,
                lean_s=cand,
                lean_sent_per_s=len(texts) / cand,
                ratio=base / cand,
            )


def bench_tasks(rec: Recorder, per_class: int, max_sentences: int | None) -> tuple:
    from n2o_core.corpora import load_corpus
    from n2o_core.evaluation.probe import TASKS
    from n2o_core.evaluation.probe.build import build_tasks
    from n2o_core.storage.cache import Cache

    corpus = load_corpus("builtin:bbc-news", max_sentences=max_sentences)
    cache = Cache(tempfile.mkdtemp(prefix="n2o-probe-bench-"))
    t = time.perf_counter()
    cold = build_tasks(corpus, TASKS, per_class, 0, cache, min_train=1)  # as recorded: no minimum per class
    cold_s = time.perf_counter() - t
    t = time.perf_counter()
    warm = build_tasks(corpus, TASKS, per_class, 0, cache, min_train=1)
    warm_s = time.perf_counter() - t
    same = all(cold[k].items.equals(warm[k].items) for k in TASKS)
    rec.add(
        step="tasks",
        corpus_sentences=len(corpus),
        per_class=per_class,
        empty_cache_s=cold_s,
        filled_cache_s=warm_s,
        ratio=warm_s / cold_s,
        identical=same,
        test_items={k: v.sizes()["test"] for k, v in cold.items()},
    )
    return cache, corpus


def bench_readouts(rec: Recorder, cache, corpus, per_class: int) -> None:
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.evaluation.probe.build import build_tasks
    from n2o_core.evaluation.probe.readout import read_out

    ws = Workspace(corpus, cache=cache)
    for task in ("bshift", "wc"):
        td = build_tasks(corpus, [task], per_class, 0, cache, min_train=1)[task]
        if td.skipped:
            rec.add(step="readout", task=task, skipped=td.skipped)
            continue
        X = ws.encode_texts("glove-6b-50d", td.items["text"].tolist())
        sp, y = td.items["split"].to_numpy(), td.items["label"].to_numpy()
        parts = [a[sp == s] for s in ("train", "dev", "test") for a in (X, y)]
        for clf in ("lr", "mlp"):
            t = time.perf_counter()
            ro = read_out(*parts, clf, seed=0)
            rec.add(
                step="readout",
                task=task,
                classifier=clf,
                n_train=int((sp == "train").sum()),
                n_classes=len(td.classes),
                seconds=time.perf_counter() - t,
                accuracy=ro.accuracy,
                params=ro.params,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000, 10000], help="sentences to parse")
    ap.add_argument("--per-class", type=int, default=5000)
    ap.add_argument("--max-sentences", type=int, default=None, help="build tasks from a sample of BBC News")
    ap.add_argument("--quick", action="store_true", help="one parse setting, a 2,000-sentence sample for tasks")
    ap.add_argument("--no-save", action="store_true", help="print only; write nothing to benchmarks/results")
    args = ap.parse_args()
    rec = Recorder("bench_probe")
    bench_parse(rec, args.sizes, args.quick)
    max_sentences = 2000 if args.quick and args.max_sentences is None else args.max_sentences
    per_class = 50 if args.quick else args.per_class
    cache, corpus = bench_tasks(rec, per_class, max_sentences)
    bench_readouts(rec, cache, corpus, per_class)
    if not args.no_save:
        rec.save()


if __name__ == "__main__":
    main()
