"""`python -m n2o_core probe`: SentEval's ten probing tasks built from a corpus, read out by LR and an MLP.

Writes JSON {"tasks": [{"task", "classes", "n_train", "n_dev", "n_test", "majority", ...}],
"results": [{"embedder", "task", "classifier", "accuracy", "n_test", ...}], "ranking", "examples", ...}.
Bad input: one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from n2o_core.cli.common import (
    add_cache_dir_arg,
    add_corpus_args,
    add_embedder_args,
    add_json_arg,
    add_sample_md_args,
    check_max_sentences,
    named_files,
    open_workspace,
    probe_with_bars,
    write_json,
)
from n2o_core.errors import N2OError
from n2o_core.evaluation.probe.tasks import TASKS
from n2o_core.storage.fileio import atomic_write_text


def add_parser(subparsers: Any) -> None:
    """Add the `probe` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "probe", help="probing tasks (Conneau et al. 2018) built from the corpus, read out by LR and an MLP"
    )
    add_corpus_args(p, cache_dir=False, storage=False)
    add_embedder_args(
        p,
        embedder_help="embedder id (repeatable; default: every default)",
        vectors_help="precomputed vectors, one row per corpus sentence (only tasks without generated sentences)",
    )
    p.add_argument("--tasks", default="all", help=f"all, or a comma-separated subset of {','.join(TASKS)}")
    p.add_argument("--classifier", default="lr,mlp", help="lr, mlp or lr,mlp (default %(default)s)")
    p.add_argument(
        "--per-class", type=int, default=5000, metavar="N", help="items per class, at most (default %(default)s)"
    )
    p.add_argument(
        "--min-train",
        type=int,
        default=None,
        metavar="N",
        help="training items a class keeps at least; fewer: the class is dropped, a task left with one class is "
        "skipped (default: the paper's floor, 100; smaller is a deviation for small corpora)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=256, help="spaCy nlp.pipe batch size (default %(default)s)")
    p.add_argument("--n-process", type=int, default=1, help="spaCy parsing processes (default %(default)s)")
    p.add_argument("--examples", type=int, default=3, metavar="N", help="test items per class shown and written")
    add_json_arg(p)
    add_sample_md_args(p, of="every task", per="items per task")
    add_cache_dir_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the `probe` subcommand."""
    from n2o_core.embedders.registry import PAPER_EMBEDDER_IDS
    from n2o_core.evaluation.probe.build import parse_tasks
    from n2o_core.evaluation.probe.report import format_table, sample_markdown, task_notes
    from n2o_core.evaluation.probe.split import MIN_TRAIN_PER_CLASS

    tasks = parse_tasks(args.tasks)  # bad input fails before anything loads
    if args.per_class <= 0:
        raise N2OError(f"--per-class must be a positive number of items per class (got {args.per_class}).")
    min_train = MIN_TRAIN_PER_CLASS if args.min_train is None else args.min_train
    if min_train <= 0:
        raise N2OError(f"--min-train must be a positive number of training items per class (got {min_train}).")
    check_max_sentences(args)
    if args.n_process <= 0 or args.batch_size <= 0:
        raise N2OError("--n-process and --batch-size must be positive.")
    clfs = [c for c in args.classifier.split(",") if c.strip()]
    ws = open_workspace(args)
    corpus = ws.corpus
    ids = list(args.embedder)
    for name, path in named_files(args.vectors, "--vectors"):
        ws.add_vectors(name, path)
        ids.append(name)
    if not ids:
        ids = list(PAPER_EMBEDDER_IDS)
    parsing = {"batch_size": args.batch_size, "n_process": args.n_process}
    res = probe_with_bars(
        ws, ids, tasks=tasks, classifiers=clfs, per_class=args.per_class, seed=args.seed, min_train=min_train, **parsing
    )
    floor = "the paper's floor" if min_train >= MIN_TRAIN_PER_CLASS else "a deviation from the paper's 100"
    print(
        f"corpus {corpus.name}: {len(corpus)} sentences; {args.per_class} items per class at most, {min_train} "
        f"training items per class at least ({floor}), seed {args.seed}"
    )
    cols = ["name", "n_classes", "n_train", "n_dev", "n_test", "train_per_class", "majority"]
    print(res.tasks[cols].to_string(index=False))
    for td in res.data.values():
        if td.skipped:
            print(f"skipped: {td.skipped}")
    for t, note in task_notes(res).items():
        print(f"note: {t}: {note}")
    for clf in res.meta["classifiers"]:
        print(f"\naccuracy, {clf} (test split):")
        print(format_table(res.table(clf)))
    print("\nranking by mean accuracy over the tasks:")
    print(res.ranking().round(3).to_string(index=False))
    if args.examples > 0:
        print("\nexamples (test split):")
        for _, r in res.examples(args.examples).iterrows():
            print(f"  {r['task']:9s} {r['label']!s:22.22s} {r['text']}")
    for k, v in res.errors.items():
        print(f"not run: {k}: {v}", file=sys.stderr)
    print(f"\ntotal {res.meta['seconds']} s (tasks {res.meta['tasks_seconds']} s)")
    if args.json:
        write_json(args.json, res.to_json(args.examples), allow_nan=True)
    if args.sample_md:
        title = f"Probing tasks from {corpus.name}"
        atomic_write_text(args.sample_md, sample_markdown(res.data, args.sample_n, args.seed, title=title))
    return 0
