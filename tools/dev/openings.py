"""``python -m zengine.tools.dev.openings``: build an openings file of balanced positions.

Matches between two versions of the engine are only informative when the games start from
positions neither side has already won: a random Zhadu setup is often decided before the first
move, and a few random Zola plies can leave a checker hanging. This tool draws seeded random
lines (:func:`zengine.tools.referee.schedule.random_opening`: past the setup plies of a game that has
them, plus a few moves), searches each to a modest fixed depth with the engine's own evaluation,
and keeps a line only when the score is within ``window`` centipawns of 0 (no mate found) and
its position was not kept before. The output is one line of moves from the start per opening,
the format ``zengine match --openings file=PATH`` reads; everything is a function of the seed,
so the committed files under ``openings/`` rebuild exactly (``scripts/make-openings``).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace

import click

from zengine.cli import Tool
from zengine.engine.game import GameError, OpeningSettings
from zengine.engine.search import Searcher
from zengine.engine.values import GoLimits
from zengine.engine.variants import make_rules
from zengine.tools.referee.schedule import Opening, random_opening

#: Most openings one run may ask for.
MAX_COUNT = 100_000


def balanced_openings(
    variant: str, seed: int, settings: OpeningSettings
) -> Iterator[tuple[Opening, int]]:
    """Balanced openings of ``variant`` and their scores, without end, in a seeded order."""
    rules = make_rules(variant)
    rng = random.Random(seed)
    plies = rules.setup_plies + settings.moves
    evaluate = rules.evaluation()
    seen: set[int] = set()
    while True:
        opening = random_opening(rules, plies, rng)
        state = opening.state(rules)
        if state.key in seen:
            continue
        seen.add(state.key)
        searcher = Searcher(hash_mb=4, seed=0, overhead_ms=0)
        result = searcher.search(state, GoLimits(depth=settings.depth), evaluate)
        cp = result.score.cp
        if cp is not None and abs(cp) <= settings.window:
            yield opening, cp


def build(
    variant: str,
    count: int,
    seed: int,
    settings: OpeningSettings,
    progress: Callable[[int], None] | None = None,
) -> list[str]:
    """``count`` lines of an openings file (moves from the start, one opening a line)."""
    lines = []
    for opening, _ in balanced_openings(variant, seed, settings):
        lines.append(" ".join(opening.moves))
        if progress is not None:
            progress(len(lines))
        if len(lines) == count:
            break
    return lines


@click.command("openings", cls=Tool)
@click.option("--variant", required=True, help="A variant of the registry.")
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=200, show_default=True)
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True)
@click.option("--depth", type=click.IntRange(1, 20), default=None, help="Judging depth.")
@click.option("--window", type=click.IntRange(0, 10_000), default=None, help="Largest |cp| kept.")
@click.option("--moves", type=click.IntRange(0, 100), default=None, help="Random moves past setup.")
def openings_command(
    variant: str,
    count: int,
    seed: int,
    depth: int | None,
    window: int | None,
    moves: int | None,
) -> None:
    """Print COUNT balanced openings of VARIANT, one line of moves from the start each."""
    try:
        rules = make_rules(variant)
    except GameError as exc:
        raise click.BadParameter(str(exc), param_hint="--variant") from None
    given = {"moves": moves, "depth": depth, "window": window}
    chosen = {key: value for key, value in given.items() if value is not None}
    base = rules.opening_settings()
    if base is None and len(chosen) < len(given):
        raise click.BadParameter(
            f"the game '{rules.game}' has no opening settings for '{variant}':"
            " give --moves, --depth and --window",
            param_hint="--variant",
        )
    settings = OpeningSettings(**chosen) if base is None else replace(base, **chosen)
    click.echo(
        f"# {variant}: {count} openings, seed {seed}, {settings.moves} random moves"
        f" after the setup, kept when a depth-{settings.depth} search scores them within"
        f" +-{settings.window} cp"
    )
    for line in build(variant, count, seed, settings):
        click.echo(line)
        sys.stdout.flush()


def main() -> None:
    """Entry point of ``python -m zengine.tools.dev.openings``."""
    openings_command.main(prog_name="python -m zengine.tools.dev.openings")


if __name__ == "__main__":
    main()
