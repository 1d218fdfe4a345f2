"""Perft: count the leaf positions of the legal-move tree, the rules core's correctness oracle.

Counting is generic over the game interface; at depth 1 it uses ``State.count_moves`` (bulk
counting, no make/unmake at the leaves), at depth 2 ``State.count_replies`` (which a game may
count without making its moves). ``--jobs`` splits the root moves over processes
(:func:`zengine.engine.parallel.parallel_map`: Ctrl-C stops them all at once).
"""

from __future__ import annotations

import sys
import time

import click

from zengine.engine.game import GameError, State, sorted_moves
from zengine.engine.parallel import parallel_map
from zengine.engine.variants import default_variant, make_rules

#: Deepest perft the command accepts, as the protocol's ``perft``. The counts grow some
#: thirtyfold a ply (Zola: 36, 1296, 46472, ...), so depths far below this already run for
#: ages: Ctrl-C stops them.
MAX_PERFT = 64


def perft(state: State, depth: int) -> int:
    """The number of move sequences of length ``depth`` from ``state`` (1 at depth 0)."""
    if depth <= 1:
        return 1 if depth <= 0 else state.count_moves()
    if depth == 2:
        return state.count_replies()
    total = 0
    play, undo = state.play, state.undo
    for move in state.legal_moves():
        play(move)
        total += perft(state, depth - 1)
        undo()
    return total


def divide(state: State, depth: int) -> list[tuple[str, int]]:
    """Per legal move (in code-point order of its text): the perft of ``depth - 1`` after it."""
    result = []
    for text, move in sorted_moves(state):
        state.play(move)
        result.append((text, perft(state, depth - 1)))
        state.undo()
    return result


def _divide_one(args: tuple[str, dict[str, str], str, str, int]) -> tuple[str, int]:
    variant, options, fen, text, depth = args
    state = _state(variant, options, fen)
    state.play(state.parse_move(text))
    return text, perft(state, depth - 1)


def parallel_divide(state: State, depth: int, jobs: int) -> list[tuple[str, int]]:
    """:func:`divide` with the root moves spread over ``jobs`` processes."""
    if jobs <= 1 or depth < 3:
        return divide(state, depth)
    rules = state.rules
    fen = state.position_text()
    work = [(rules.name, rules.options, fen, text, depth) for text, _ in sorted_moves(state)]
    return parallel_map(_divide_one, work, jobs)


def _state(variant: str, options: dict[str, str], fen: str | None) -> State:
    rules = make_rules(variant, options)
    # An empty --fen is a position string too (a wrong one), not a request for the start.
    return rules.start() if fen is None else rules.parse_position(fen)


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
        state = _state(variant, _parse_options(rules_), fen)
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
