"""``zengine tables build`` and ``zengine tables probe``: endgame tables from the command line.

Generic over the games: a game offers tables through ``Rules.table_codec``
(:mod:`zengine.engine.endgame`); this module only plans, shows progress, writes and reads.

The build goes stage by stage (fewest pieces first); a group of materials whose files are all
there and sound is kept, so an interrupted build resumes where it stopped. Every file is
written complete or not at all (a temporary name, renamed when written): Ctrl-C, or a killed
worker, leaves no half-written table. ``--jobs`` builds the groups of a stage in worker
processes (:func:`zengine.engine.parallel.parallel_map`: Ctrl-C stops them all at once).
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from tqdm import tqdm

from zengine.cli import adopt
from zengine.engine.endgame import (
    EndgameTables,
    TableCodec,
    TableError,
    TableFolder,
    load_tables,
    mate_moves,
    ranked_moves,
    remove_temporaries,
    table_name,
    write_table,
)
from zengine.engine.game import GameError, Rules
from zengine.engine.parallel import parallel_map
from zengine.engine.variants import default_variant, make_rules

if TYPE_CHECKING:  # the stubs make tqdm generic in its items; at run time it is not
    _Tqdm = tqdm[None]
else:
    _Tqdm = tqdm


class _Bar(_Tqdm):
    """The build's progress: positions solved, with the time left."""


#: Seconds between two redraws of the bar while worker processes build.
POLL_SECONDS = 0.2


def _codec(variant: str) -> tuple[Rules, TableCodec]:
    try:
        rules = make_rules(variant)
    except GameError as exc:
        raise click.UsageError(str(exc)) from None
    codec = rules.table_codec()
    if codec is None:
        raise click.UsageError(f"{rules.name} has no endgame tables")
    return rules, codec


def _lower(codec: TableCodec, group: tuple[str, ...], built: set[str]) -> list[str]:
    """The materials of earlier stages a group may need (all of fewer pieces)."""
    pieces = max(codec.pieces(m) for m in group)
    return [m for m in built if codec.pieces(m) < pieces]


#: The positions the workers have solved, shared with them by the fork (a shared value cannot
#: travel with a job).
_solved: Any = None


def _build_group(work: tuple[str, tuple[str, ...], str, list[str]]) -> tuple[str, float]:
    """A worker's job: build one group from the tables in the folder and write it."""
    variant, group, folder, lower = work
    counter = _solved
    rules, codec = _codec(variant)
    path = Path(folder)
    tables = load_tables(path, rules, codec, lower)
    started = time.perf_counter()

    def progress(count: int) -> None:
        with counter.get_lock():
            counter.value += count

    for material, values in codec.build(group, tables, progress).items():
        write_table(path, codec, material, values)
    return ",".join(group), time.perf_counter() - started


def _size(size: int) -> str:
    """A file size for people, in decimal units: ``42 KB``, ``5.1 MB``."""
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.0f} KB"
    return f"{size / 1_000_000:.1f} MB"


@click.group(
    "tables",
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.pass_context
def tables_command(ctx: click.Context) -> None:
    """Endgame tables: the exact value of every position with few pieces (docs/tables.md)."""
    if ctx.invoked_subcommand is None:
        raise click.UsageError("give a command: build or probe (see zengine tables --help)")


@tables_command.command("build")
@click.option(
    "--variant",
    "-v",
    default=default_variant,
    show_default="the first registered variant",
    help="Game or variant name.",
)
@click.option(
    "--checkers",
    "pieces",
    type=click.IntRange(2, 12),
    required=True,
    help="Every material with at most this many pieces on the board.",
)
@click.option("--dir", "folder", required=True, help="The folder of the tables (made if need be).")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(1, 256),
    default=1,
    show_default=True,
    help="Processes building the materials of a stage side by side.",
)
def build_command(variant: str, pieces: int, folder: str, jobs: int) -> None:
    """Build the tables of every material with at most --checkers pieces, fewest first.

    Tables already in the folder are kept (an interrupted build resumes); Ctrl-C leaves no
    half-written file."""
    rules, codec = _codec(variant)
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise click.UsageError(f"--dir '{folder}' is not a folder")
    path.mkdir(parents=True, exist_ok=True)
    remove_temporaries(path)
    stages = codec.plan(pieces)
    built: set[str] = set()
    todo: list[list[tuple[str, ...]]] = []
    for stage in stages:
        waiting = []
        for group in stage:
            present = load_tables(path, rules, codec, list(group))
            if len(present) == len(group):
                built.update(group)
            else:
                waiting.append(group)
        todo.append(waiting)
    total = sum(codec.entries(m) for stage in todo for group in stage for m in group)
    kept = len(built)
    started = time.perf_counter()
    bar = _Tqdm(total=total, unit="pos", unit_scale=True, desc=f"{rules.name} tables", leave=False)

    def advance(count: int) -> None:
        bar.update(count)

    try:
        tables: dict[str, bytes] = {}
        for stage in todo:
            if jobs == 1 or len(stage) <= 1:
                for group in stage:
                    needed = [m for m in _lower(codec, group, built) if m not in tables]
                    tables.update(load_tables(path, rules, codec, needed))
                    values = codec.build(group, tables, advance)
                    for material, data in values.items():
                        write_table(path, codec, material, data)
                    tables.update(values)
                    built.update(group)
            else:
                _parallel(rules, stage, path, sorted(built), jobs, advance)
                built.update(m for group in stage for m in group)
    except BaseException:
        remove_temporaries(path)
        raise
    finally:
        bar.close()
    elapsed = time.perf_counter() - started
    built_now = len(built) - kept
    sizes = sum((path / table_name(rules, m)).stat().st_size for m in built)
    click.echo(
        f"{rules.name}: {len(built)} tables up to {pieces} checkers in {folder}"
        f" ({built_now} built in {elapsed:.1f} s, {kept} kept), {total} positions solved,"
        f" {_size(sizes)} on disk"
    )


def _parallel(
    rules: Rules,
    stage: list[tuple[str, ...]],
    path: Path,
    built: list[str],
    jobs: int,
    advance: Callable[[int], None],
) -> None:
    """Build a stage's groups in worker processes, the progress read from a shared counter."""
    global _solved
    counter = _solved = multiprocessing.get_context("fork").Value("q", 0)
    work = [(rules.name, group, str(path), built) for group in stage]
    finished = threading.Event()
    shown = [0]

    def redraw() -> None:
        now = counter.value
        advance(now - shown[0])
        shown[0] = now

    def keep_drawing() -> None:
        while not finished.wait(POLL_SECONDS):
            redraw()

    drawer = threading.Thread(target=keep_drawing, daemon=True)
    drawer.start()
    try:
        parallel_map(_build_group, work, jobs)
    finally:
        finished.set()
        drawer.join()
    redraw()


def _value_text(plies: int) -> str:
    if plies == 0:
        return "loss 0 mate 0"
    word = "win" if plies % 2 else "loss"
    return f"{word} {plies} mate {mate_moves(plies)}"


@tables_command.command("probe")
@click.option(
    "--variant",
    "-v",
    default=default_variant,
    show_default="the first registered variant",
    help="Game or variant name.",
)
@click.option("--dir", "folder", default=".", show_default=True, help="The folder of the tables.")
@click.argument("fen", nargs=-1, required=True)
def probe_command(variant: str, folder: str, fen: tuple[str, ...]) -> None:
    """The exact value of a position (FEN) and of each of its moves, best first.

    Values are for the side to move: win or loss, the plies to the end under best play and
    the same as the protocol's score mate N. Each move's value is the mover's after it."""
    rules, _ = _codec(variant)
    try:
        state = rules.parse_position(" ".join(fen))
    except GameError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        tables = TableFolder(folder).for_rules(rules)
    except TableError as exc:
        raise click.UsageError(str(exc)) from None
    if state.is_over():
        click.echo(f"value {_value_text(0)}")
        return
    plies = None if tables is None else tables.probe(state)
    if tables is None or plies is None:
        raise click.UsageError(f"no table in '{folder}' holds this position")
    click.echo(f"value {_value_text(plies)}")
    _moves(tables, state, click.echo)


def _moves(tables: EndgameTables, state: Any, echo: Callable[[str], None]) -> None:
    for move, after in ranked_moves(tables, state):
        echo(f"move {state.move_text(move)} {_value_text(after + 1)}")


for _command in (build_command, probe_command):
    adopt(_command)
