"""What the subcommands share: their common options, the workspace they open from them, progress bars, JSON output
and the one error wrapper (`run_command`: bad input is one `error:` line on stderr and exit code 2).

Every command module imports from here and from nowhere else in `n2o_core.cli`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from n2o_core.errors import N2OError
from n2o_core.runtime.progress import ProgressEvent
from n2o_core.storage.fileio import atomic_write_text

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

__all__ = [
    "CACHE_DIR_HELP",
    "CORPUS_HELP",
    "PROBE_UNITS",
    "ProgressBars",
    "StageBars",
    "add_cache_dir_arg",
    "add_corpus_args",
    "add_embedder_args",
    "add_json_arg",
    "add_pair_options",
    "add_sample_md_args",
    "check_embedders",
    "check_max_sentences",
    "measure_bars",
    "named_files",
    "open_workspace",
    "pair_columns",
    "probe_with_bars",
    "run_command",
    "workspace_from_args",
    "write_json",
]

CORPUS_HELP = "PATH, builtin:NAME or hf:NAME (default %(default)s)"
MAX_SENTENCES_HELP = "cap: a fixed, topic-stratified sample"
TEXT_COLUMN_HELP = "text column of a .csv/.tsv/.jsonl/.parquet corpus"
CACHE_DIR_HELP = "cache folder (default: $N2O_CACHE_DIR or ./cache)"
EMBEDDER_HELP = "embedder id (repeatable); see `embedders`"
VECTORS_HELP = "precomputed vectors, one row per corpus sentence (repeatable)"


# ------------------------------------------------------------------------------------------------ options


def add_corpus_args(
    p: argparse.ArgumentParser,
    *,
    corpus_help: str = CORPUS_HELP,
    max_sentences_help: str = MAX_SENTENCES_HELP,
    text_column: bool = True,
    cache_dir: bool = True,
    storage: bool = True,
) -> None:
    """--corpus, --max-sentences, --text-column (unless text_column=False), then --cache-dir (unless
    cache_dir=False) and --dtype, --scheduler (unless storage=False)."""
    from n2o_core.corpora.specs import DEFAULT_CORPUS  # here: `python -m n2o_core.cli.warm` times its imports

    p.add_argument("--corpus", default=DEFAULT_CORPUS, help=corpus_help)
    p.add_argument("--max-sentences", type=int, default=None, help=max_sentences_help)
    if text_column:
        p.add_argument("--text-column", default=None, help=TEXT_COLUMN_HELP)
    if cache_dir:
        add_cache_dir_arg(p)
    if storage:
        p.add_argument("--dtype", default="float32", choices=["float32", "float16"], help="embedding storage")
        p.add_argument(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help="Dask scheduler (tcp://host:8786): embed shards and search neighbors on its workers",
        )


def add_cache_dir_arg(p: argparse.ArgumentParser) -> None:
    """--cache-dir."""
    p.add_argument("--cache-dir", default=None, help=CACHE_DIR_HELP)


def add_embedder_args(
    p: argparse.ArgumentParser, *, embedder_help: str = EMBEDDER_HELP, vectors_help: str | None = VECTORS_HELP
) -> None:
    """--embedder ID (repeatable) and, unless vectors_help is None, --vectors NAME=FILE.npy (repeatable)."""
    p.add_argument("--embedder", action="append", default=[], metavar="ID", help=embedder_help)
    if vectors_help is not None:
        p.add_argument("--vectors", action="append", default=[], metavar="NAME=FILE.npy", help=vectors_help)


def add_json_arg(p: argparse.ArgumentParser, help_text: str | None = "write the result JSON here") -> None:
    """--json OUT."""
    p.add_argument("--json", default=None, metavar="OUT", help=help_text)


def add_sample_md_args(p: argparse.ArgumentParser, *, of: str, per: str, default_n: int = 30) -> None:
    """--sample-md OUT.md (a Markdown sample `of` what was made) and --sample-n (`per` what, default `default_n`)."""
    p.add_argument(
        "--sample-md", default=None, metavar="OUT.md", help=f"write a Markdown sample of {of} for reading by hand"
    )
    p.add_argument("--sample-n", type=int, default=default_n, help=f"{per} in --sample-md (default %(default)s)")


def add_pair_options(p: argparse.ArgumentParser) -> None:
    """--sentence1-column, --sentence2-column, --score-column, --genre-column, --scale, --genre (needle, sts)."""
    p.add_argument("--sentence1-column", default=None, metavar="NAME", help="query column (default: sentence1)")
    p.add_argument("--sentence2-column", default=None, metavar="NAME", help="paraphrase column (default: sentence2)")
    p.add_argument("--score-column", default=None, metavar="NAME", help="human score column (default: score)")
    p.add_argument("--genre-column", default=None, metavar="NAME", help="genre column (default: genre, if any)")
    p.add_argument(
        "--scale",
        type=float,
        default=None,
        metavar="MAX",
        help="the source's maximum score (5 for STS-B, 1 for a 0-1 copy); default: 1 if no score exceeds 1, else 5",
    )
    p.add_argument(
        "--genre",
        action="append",
        default=[],
        metavar="G",
        help="keep only genre G (repeatable; 'news' = main-news; 'all' keeps every genre). Default for needle: the "
        "paper's news only where the pairs have a news genre (STS-B), synonym for a Heros file, else all; for sts: all",
    )


def pair_columns(args: argparse.Namespace) -> dict[str, str | None]:
    """The pair file's column names given by `add_pair_options`' options."""
    return {
        "sentence1": args.sentence1_column,
        "sentence2": args.sentence2_column,
        "score": args.score_column,
        "genre": args.genre_column,
    }


# ------------------------------------------------------------------------------------------------ workspace


def named_files(specs: Sequence[str], flag: str) -> list[tuple[str, str]]:
    """[(NAME, FILE), ...] from NAME=FILE options, in order; anything else is an N2OError naming `flag`."""
    out = []
    for spec in specs:
        if "=" not in spec:
            raise N2OError(f"{flag} expects NAME=FILE.npy (got {spec!r}).")
        name, path = spec.split("=", 1)
        out.append((name, path))
    return out


def check_max_sentences(args: argparse.Namespace) -> None:
    """N2OError unless --max-sentences is unset or positive."""
    if args.max_sentences is not None and args.max_sentences < 1:
        raise N2OError(f"--max-sentences must be positive (got {args.max_sentences}).")


def open_workspace(args: argparse.Namespace, *, seed: int = 0) -> Workspace:
    """The workspace over --corpus (a `seed`ed sample of --max-sentences; --text-column where the command has it)
    with the cache in --cache-dir; --dtype and --scheduler where the command has them."""
    from n2o_core.storage.cache import Cache

    return _open_workspace(Cache(args.cache_dir), args, seed)


def _open_workspace(cache: Cache, args: argparse.Namespace, seed: int) -> Workspace:
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace

    corpus = load_corpus(
        args.corpus,
        max_sentences=args.max_sentences,
        text_column=getattr(args, "text_column", None),
        seed=seed,
        cache_dir=cache.root,
        train_with=getattr(args, "train_with", ""),
    )
    if not hasattr(args, "dtype"):
        return Workspace(corpus, cache=cache)
    return Workspace(corpus, cache=cache, storage_dtype=args.dtype, scheduler=args.scheduler)


def workspace_from_args(args: argparse.Namespace) -> tuple[Workspace, list[str]]:
    """The workspace of `add_corpus_args` + `add_embedder_args` options, and the embedder ids to run: every
    --embedder, then every --vectors name (added to the workspace)."""
    from n2o_core.storage.cache import Cache

    cache = Cache(args.cache_dir)
    check_max_sentences(args)
    ws = _open_workspace(cache, args, 0)
    ids = list(args.embedder)
    for name, path in named_files(args.vectors, "--vectors"):
        ws.add_vectors(name, path)
        ids.append(name)
    return ws, ids


def check_embedders(ids: Sequence[str], ws: Workspace) -> None:
    """Raise EmbedderError for an unknown id, before any work starts (precomputed vectors are known)."""
    for eid in ids:
        if not ws.is_precomputed(eid):
            ws.info(eid)


# ------------------------------------------------------------------------------------------------ output


#: Units of the probing run's progress stages (sentences parsed, then tasks read out).
PROBE_UNITS = {"tokenize": "sent", "parse": "sent", "tasks": "task", "readouts": "step"}
BAR_DELAY = 0.5  # seconds: a stage that ends sooner (read from the cache, a tiny corpus) shows no bar


class StageBars:
    """One tqdm bar per stage (an event's `label`: its stage, then its item), on stderr, shown once the stage has
    taken BAR_DELAY seconds: a `Progress`; `units` names each stage's unit (default "task")."""

    def __init__(self, units: dict[str, str] | None = None) -> None:
        self.units = units or {}
        self.bars: dict[str, Any] = {}

    def __call__(self, event: ProgressEvent) -> None:
        from tqdm.auto import tqdm

        label, done, total = event.label, event.done, event.total
        bar = self.bars.get(label)
        if bar is not None and bar.disable:
            return  # closed: the stage is done
        if bar is None:
            unit = self.units.get(event.stage, "task")
            bar = self.bars[label] = tqdm(
                total=total, desc=f"{label:24s}", unit=unit, file=sys.stderr, leave=True, delay=BAR_DELAY
            )
        bar.total = total
        if done > bar.n:
            bar.update(done - bar.n)
        if done >= total:
            bar.close()

    def stages(self, event: ProgressEvent) -> None:
        """`__call__` for a probing run that also reports its steps (`step`): its per-embedder stage ("embedder")
        is left out, the steps' bar covers it."""
        if event.stage != "embedder":
            self(event)

    def step(self, step: Any) -> None:
        """A probing run's readout step (`evaluation.probe.timing.ReadoutStep`): one bar over every (task,
        embedder) step, its line "task x of 10 · embedder y of 6 · about N s left"."""
        total = step.n_tasks * step.n_embedders
        self(ProgressEvent("readouts", "", (step.embedder - 1) * step.n_tasks + step.task - 1, total))
        bar = self.bars.get("readouts")
        if bar is not None and not bar.disable:
            bar.set_postfix_str(step.line(), refresh=True)

    def steps_done(self) -> None:
        """The steps' bar at its end (the run finished)."""
        bar = self.bars.get("readouts")
        if bar is not None and not bar.disable and bar.total:
            self(ProgressEvent("readouts", "", int(bar.total), int(bar.total)))

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def probe_with_bars(ws: Any, ids: list[str], **kwargs: Any) -> Any:
    """`evaluation.probe.run.run_probe(ws, ids, **kwargs)` with a bar per stage and one over the readout steps
    ("task x of 10 · embedder y of 6 · about N s left"), all closed at the end."""
    from n2o_core.evaluation.probe.run import run_probe

    bars = StageBars(PROBE_UNITS)
    try:
        res = run_probe(ws, ids, progress=bars.stages, on_step=bars.step, **kwargs)
        bars.steps_done()
        return res
    finally:
        bars.close()


class ProgressBars:
    """One tqdm bar per (item, stage) on stderr, labelled "{stage} {item}" with the stage padded to `width`: a
    `Progress`. An event that names no item is drawn under `items[stage]` ({"measures": "(measure x pair)"}).
    Counts sentences unless `units` names another unit for a stage ({"measures": "pair"}); a stage that is done at
    once (read from the cache) gets no bar."""

    def __init__(
        self, units: dict[str, str] | None = None, items: dict[str, str] | None = None, width: int = 9
    ) -> None:
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self.units = dict(units or {})
        self.items = dict(items or {})
        self.width = width
        self.bars: dict[tuple[str, str], Any] = {}

    def __call__(self, event: ProgressEvent) -> None:
        stage, done, total = event.stage, event.done, event.total
        item = event.item or self.items.get(stage, "")
        key = (item, stage)
        bar = self.bars.get(key)
        if bar is None and total > 0 and done >= total:
            return  # finished at once (loaded from the cache): no bar
        if bar is None:
            bar = self.bars[key] = self._tqdm(
                total=total,
                desc=f"{stage:{self.width}s} {item}",
                unit=self.units.get(stage, "sent"),
                leave=True,
                file=sys.stderr,
            )
        if done > bar.n:
            bar.update(done - bar.n)  # tqdm redraws at most every 0.1 s
        if done >= total:
            bar.close()

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def measure_bars() -> ProgressBars:
    """The similarity measures' bars: one step per embedder searched ("search"), one per (measure, pair of
    embedders) ("measures")."""
    return ProgressBars(
        units={"search": "embedder", "measures": "pair"}, items={"search": "embedders", "measures": "(measure x pair)"}
    )


def write_json(
    path: str,
    obj: Any,
    *,
    indent: int | None = 1,
    ensure_ascii: bool = False,
    allow_nan: bool = False,
    default: Any = None,
) -> None:
    """Write `json.dumps(obj, ...)` atomically (by default readable, UTF-8, and NaN refused: callers write null)."""
    text = json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii, allow_nan=allow_nan, default=default)
    atomic_write_text(path, text)


@contextlib.contextmanager
def _log_to_file(args: argparse.Namespace) -> Iterator[None]:
    """While a command runs, the library's log (logger "n2o": the details behind "the details are in the log")
    goes to `<cache>/logs/n2o.log`, opened only when something is logged, so stderr keeps one `error:` line."""
    import logging

    from n2o_core.storage.cache import default_cache_dir

    log = logging.getLogger("n2o")
    path = Path(getattr(args, "cache_dir", None) or default_cache_dir()) / "logs" / "n2o.log"
    handler: logging.Handler | None = None
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, delay=True, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
    try:
        yield
    finally:
        if handler is not None:
            log.removeHandler(handler)
            handler.close()


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed subcommand (`args.func`) with library notices on stderr. Bad input (N2OError) or a file that
    cannot be read or written (OSError): one `error:` line on stderr and 2; Ctrl-C: 130."""
    from n2o_core.runtime.notices import listen

    try:
        with _log_to_file(args), listen(lambda m: print(f"note: {m}", file=sys.stderr, flush=True)):
            return int(args.func(args) or 0)
    except N2OError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a file the command writes or reads (disk full, permissions): one line, not a traceback
        where = f" ({e.filename})" if getattr(e, "filename", None) else ""
        print(f"error: {e.strerror or e}{where}.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
