"""``zengine svg``: a picture of a position as an SVG file.

The tool only reads the command line and writes the file: the position is built through the
game interface and draws itself (``State.svg``), so the tool never names a game.
"""

from __future__ import annotations

import click

from zengine.cli import fail
from zengine.engine.game import GameError, MoveError, State
from zengine.engine.variants import default_variant, make_rules

#: Default picture width in pixels.
DEFAULT_SIZE = 480


def position(
    variant: str, fen: str | None, moves: list[str], last_move: str | None
) -> tuple[State, int | None]:
    """The position to draw and the move to highlight (``--last-move``, else the last move
    played); raises :class:`GameError` (a :class:`MoveError` names the failing move)."""
    rules = make_rules(variant)
    # An empty --fen is a position string too (a wrong one), not a request for the start.
    state = rules.start() if fen is None else rules.parse_position(fen)
    played = None
    for number, text in enumerate(moves, 1):
        try:
            played = state.parse_move(text)
        except MoveError as exc:
            raise type(exc)(f"move {number} of --moves: {exc}") from None
        state.play(played)
    if last_move is not None:
        try:
            played = state.parse_last_move(last_move)
        except MoveError as exc:
            raise type(exc)(f"--last-move: {exc}") from None
    return state, played


@click.command("svg")
@click.option(
    "--variant",
    "-v",
    default=default_variant,
    show_default="the first registered variant",
    help="Game or variant name.",
)
@click.option("--fen", default=None, help="Start from this position string instead of the start.")
@click.option(
    "--moves",
    "-m",
    multiple=True,
    metavar="MOVES",
    help="Moves to play first, space-separated (the option may be repeated).",
)
@click.option(
    "--last-move",
    default=None,
    metavar="MOVE",
    help="The move that led to the position, to highlight  [default: the last of --moves].",
)
@click.option(
    "--size",
    type=click.IntRange(16, 10_000),
    default=DEFAULT_SIZE,
    show_default=True,
    help="Width of the picture in pixels (the height follows the board).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the SVG to this file instead of standard output.",
)
def svg_command(
    variant: str,
    fen: str | None,
    moves: tuple[str, ...],
    last_move: str | None,
    size: int,
    output: str | None,
) -> None:
    """Draw a position as SVG: the start, or --fen, after --moves."""
    texts = [text for group in moves for text in group.split()]
    try:
        state, highlight = position(variant, fen, texts, last_move)
    except GameError as exc:
        fail(click.get_current_context().command_path, str(exc))
    picture = state.svg(size, highlight)
    if output is None:
        click.echo(picture, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as file:
            file.write(picture)
    except OSError as exc:
        # Exit code 2, as zengine report's: the file was named on the command line.
        where = click.get_current_context().command_path
        fail(where, f"cannot write {output}: {exc.strerror or exc}")
