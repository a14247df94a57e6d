"""What the subcommands share: their common options, the workspace they open from them, progress bars, JSON output
and the one error wrapper (`run_command`: bad input is one `error:` line on stderr and exit code 2).

Every command module imports from here and from nowhere else in `n2o_core.cli`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from n2o_core.errors import N2OError
from n2o_core.runtime.progress import ProgressEvent
from n2o_core.storage.fileio import atomic_write_text

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.evaluation.probe.timing import ReadoutStep
    from n2o_core.storage.cache import Cache

__all__ = [
    "BAR_DELAY",
    "CACHE_DIR_HELP",
    "CORPUS_HELP",
    "PROBE_UNITS",
    "BarOf",
    "ProgressBars",
    "add_cache_dir_arg",
    "add_corpus_args",
    "add_embedder_args",
    "add_json_arg",
    "add_pair_options",
    "add_sample_md_args",
    "check_embedders",
    "check_max_sentences",
    "findings_bars",
    "measure_bars",
    "named_files",
    "open_workspace",
    "pair_columns",
    "probe_with_bars",
    "run_command",
    "scoring_bars",
    "variant_bars",
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
#: Where an event goes: its bar's key and the bar's description (what a command passes as `bar_of`).
BarOf = Callable[[ProgressEvent], tuple[str, str]]


class ProgressBars:
    """The CLI's progress bars: a `Progress` that draws each event on a tqdm bar on stderr.

    An event goes to the bar `bar_of(event)` names, with the description it gives (set anew on each event: the bar
    can name what it works on now); by default one bar per (stage, item), described "{stage} {item}" with the stage
    padded to `width`, and an event that names no item drawn under `items[stage]` ({"measures": "(measure x pair)"}).
    The same for every command: the bar's total is the event's, a bar opens only for work that is not done at once (a
    stage read from the cache gets no bar), it closes when `done` reaches `total` and a closed bar takes no more
    events. What commands differ in: `unit` (per stage in `units`), `delay` (seconds a bar waits before it shows:
    a stage that ends sooner shows none, `BAR_DELAY`), `leave` (False: a finished bar is wiped) and `in_turn` (each
    new bar closes the open ones: stages that follow each other)."""

    def __init__(
        self,
        units: Mapping[str, str] | None = None,
        *,
        unit: str = "sent",
        items: Mapping[str, str] | None = None,
        width: int = 9,
        bar_of: BarOf | None = None,
        delay: float = 0.0,
        leave: bool = True,
        in_turn: bool = False,
    ) -> None:
        self.units = dict(units or {})
        self.unit = unit
        self.items = dict(items or {})
        self.width = width
        self.bar_of = bar_of or self.stage_and_item
        self.delay = delay
        self.leave = leave
        self.in_turn = in_turn
        self.bars: dict[str, Any] = {}

    def stage_and_item(self, event: ProgressEvent) -> tuple[str, str]:
        """The default `bar_of`: one bar per (stage, item), described "{stage} {item}" (the stage padded)."""
        item = event.item or self.items.get(event.stage, "")
        key = f"{event.stage} {item}" if item else event.stage
        return key, f"{event.stage:{self.width}s} {item}" if item else f"{event.stage:{self.width}s}"

    def __call__(self, event: ProgressEvent) -> None:
        key, desc = self.bar_of(event)
        done, total = event.done, event.total
        bar = self.bars.get(key)
        if bar is None:
            if done >= total:
                return  # done at once (read from the cache): no bar
            if self.in_turn:
                self.close()
            from tqdm.auto import tqdm

            bar = self.bars[key] = tqdm(
                total=total,
                desc=desc,
                unit=self.units.get(event.stage, self.unit),
                file=sys.stderr,
                leave=self.leave,
                delay=self.delay,
            )
        if bar.disable:
            return  # closed: its work is done
        bar.total = total
        renamed = desc != bar.desc
        if renamed:
            bar.set_description_str(desc, refresh=False)
        drawn = bar.update(done - bar.n) if done != bar.n else False  # tqdm redraws at most every 0.1 s
        if renamed and not drawn:
            _redraw(bar)  # a new embedder is said at once, not at the next redraw
        if done >= total:
            bar.close()

    def postfix(self, key: str, text: str) -> None:
        """Show `text` after the open bar `key` (redrawn now once the bar's delay has passed)."""
        bar = self.bars.get(key)
        if bar is None or bar.disable:
            return
        bar.set_postfix_str(text, refresh=False)
        _redraw(bar)

    def finish(self, key: str) -> None:
        """The open bar `key` at its total, closed (its work ended without an event saying so)."""
        bar = self.bars.get(key)
        if bar is not None and not bar.disable and bar.total:
            bar.update(bar.total - bar.n)
            bar.close()

    def close(self) -> None:
        """Close every bar."""
        for bar in self.bars.values():
            bar.close()


def _redraw(bar: Any) -> None:
    """Redraw a tqdm bar now, unless it is still within its delay (then its first update draws it)."""
    if time.time() >= bar.start_t + bar.delay:
        bar.refresh()


def _stage_bars(units: Mapping[str, str] | None = None) -> ProgressBars:
    """Bars of a run of many stages (probing, variants): a stage's unit in `units` (else "task"), a bar only for a
    stage that takes longer than BAR_DELAY seconds."""
    return ProgressBars(units, unit="task", width=24, delay=BAR_DELAY)


def probe_with_bars(ws: Any, ids: list[str], **kwargs: Any) -> Any:
    """`evaluation.probe.run.run_probe(ws, ids, **kwargs)` with a bar per stage and one over the readout steps
    ("task x of 10 · embedder y of 6 · about N s left"), all closed at the end. The run's per-embedder stage
    ("embedder") gets no bar: the steps' bar covers it."""
    from n2o_core.evaluation.probe.run import run_probe

    bars = _stage_bars(PROBE_UNITS)

    def stages(event: ProgressEvent) -> None:
        if event.stage != "embedder":
            bars(event)

    def step(s: ReadoutStep) -> None:
        bars(ProgressEvent("readouts", "", (s.embedder - 1) * s.n_tasks + s.task - 1, s.n_tasks * s.n_embedders))
        bars.postfix("readouts", s.line())

    with contextlib.closing(bars):
        res = run_probe(ws, ids, progress=stages, on_step=step, **kwargs)
        bars.finish("readouts")
        return res


def measure_bars() -> ProgressBars:
    """The similarity measures' bars: one step per embedder searched ("search"), one per (measure, pair of
    embedders) ("measures")."""
    return ProgressBars(
        units={"search": "embedder", "measures": "pair"}, items={"search": "embedders", "measures": "(measure x pair)"}
    )


def variant_bars() -> ProgressBars:
    """The variants run's bars (`_stage_bars`): the layers' embeddings count sentences."""
    return _stage_bars({"layers: layers": "sent", "between: layers": "sent"})


def _embedders_bar(event: ProgressEvent) -> tuple[str, str]:
    if event.stage == "embedders":
        return "embedders", event.item or "embedders"
    return event.label, event.label


def scoring_bars() -> ProgressBars:
    """Bars of a run that may make its data first (HEROS' minimal pairs: stage "pairs"), then scores embedders one
    after another (stage "embedders", its item the embedder on): one bar per stage, each closing the one before;
    the embedders' bar named for the embedder being scored."""
    return ProgressBars({"pairs": "pair"}, unit="embedder", bar_of=_embedders_bar, in_turn=True)


#: The findings run's loops over embedders: one bar each, whichever embedder it is on.
_FINDINGS_LOOPS = ("scoring", "correlating", "training")


def _findings_bar(event: ProgressEvent) -> tuple[str, str]:
    label = event.label
    run, _, body = label.partition("): ") if label.startswith("run ") else ("", "", label)
    tag = run.split()[1] + " " if run else ""
    words = body.split()
    key = tag + (words[0] if words and words[0] in _FINDINGS_LOOPS else body)
    return key, (tag + body)[:48]


def findings_bars() -> ProgressBars:
    """The findings check's bars, wiped when done (the report follows them): one per stage, except that a loop over
    embedders ("scoring X", "correlating X", "training X with another seed") is one bar naming the embedder it is
    on; the run ("run 2/6 (seed 1, 2,000 sentences): ...") shortened to "2/6" in front; descriptions cut at 48
    characters."""
    return ProgressBars(unit="it", bar_of=_findings_bar, leave=False)


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
