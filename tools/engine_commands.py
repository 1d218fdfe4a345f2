"""The click commands over the engine's own jobs: ``zengine bench`` and ``zengine perft``.

The engine layer (:mod:`zengine.engine.bench`, :mod:`zengine.engine.perft`) does the work and
knows nothing of the command line; these only read arguments and print.
"""

from __future__ import annotations

import sys
import time

import click

from zengine.engine.bench import DEFAULT_DEPTH, run_bench
from zengine.engine.game import GameError
from zengine.engine.perft import parallel_divide, perft, start_state
from zengine.engine.values import MAX_BENCH, MAX_PERFT
from zengine.engine.variants import default_variant


@click.command(
    "bench",
    help=f"""Search fixed positions of every variant to DEPTH; print nodes and nps.

    DEPTH is 1 to {MAX_BENCH}, default {DEFAULT_DEPTH} (its total node count identifies the
    search). Ctrl-C stops the bench.""",
)
@click.argument("depth", type=click.IntRange(1, MAX_BENCH), required=False)
def bench_command(depth: int | None) -> None:
    """``zengine bench``: :func:`run_bench` printing as it goes."""
    run_bench(depth, emit=lambda line: click.echo(line))


def _parse_options(pairs: tuple[str, ...]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key or not value:
            raise click.BadParameter(f"'{pair}' is not KEY=VALUE", param_hint="--rule")
        options[key.strip().lower()] = value.strip()
    return options


@click.command(
    "perft",
    help=f"""Count the leaf nodes of the legal-move tree to DEPTH (0 to {MAX_PERFT}).

    Depth 0 counts 1 (the position itself). Ctrl-C stops the count.""",
)
@click.argument("depth", type=click.IntRange(0, MAX_PERFT))
@click.option(
    "--variant",
    "-v",
    default=default_variant,
    show_default="the first registered variant",
    help="Game or variant name.",
)
@click.option("--fen", default=None, help="Start from this position string instead of the start.")
@click.option(
    "--rule", "rules_", multiple=True, metavar="KEY=VALUE", help="A rule option (quiet=50)."
)
@click.option("--divide", is_flag=True, help="Print the count below each legal move.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(1, 256),
    default=1,
    show_default=True,
    help="Processes to spread the root moves over.",
)
def perft_command(
    depth: int, variant: str, fen: str | None, rules_: tuple[str, ...], divide: bool, jobs: int
) -> None:
    """``zengine perft``: the count of :func:`perft` (or :func:`divide`), with time and speed."""
    try:
        state = start_state(variant, _parse_options(rules_), fen)
    except GameError as exc:
        raise click.UsageError(str(exc)) from None
    started = time.perf_counter()
    if depth > 0 and (divide or jobs > 1):
        rows = parallel_divide(state, depth, jobs)
        total = sum(count for _, count in rows)
    else:
        rows, total = [], perft(state, depth)
    elapsed = time.perf_counter() - started
    if divide and depth > 0:  # as the protocol: perft 0 prints the total alone
        for text, count in rows:
            click.echo(f"{text}: {count}")
        click.echo("")
    click.echo(f"Nodes searched: {total}")
    click.echo(f"Time: {elapsed:.3f} s")
    click.echo(f"Nodes/second: {int(total / elapsed) if elapsed > 0 else 0}")
    sys.stdout.flush()
