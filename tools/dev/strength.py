"""``zengine strength`` / ``python -m zengine.tools.dev.strength``: the engine against simple opponents.

In-process, through the game interface and :class:`engine.search.Searcher` (no protocol, no
subprocess), three pairings per game:

* the engine at a fixed time per move against a **random** mover;
* the engine against a **greedy** one-ply mover: a winning move if any, else the capture that
  leaves the opponent the fewest captures, else a random move;
* the engine at depth 4 against itself at depth 2.

Each pairing plays ``--games`` games (default 40): openings of a few seeded random plies, each
played twice with colours swapped. The score (wins + draws / 2) of the first player of the pairing
is printed with its 95% Wilson interval. Slow (minutes per pairing): not part of the test suite.
``--jobs`` plays games in worker processes (:func:`zengine.engine.parallel.parallel_map`): Ctrl-C
stops them all at once.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import click

from zengine.engine.game import GameError, State
from zengine.engine.parallel import parallel_map
from zengine.engine.search import Searcher
from zengine.engine.values import MAX_MS, GoLimits
from zengine.engine.variants import GAMES, make_rules

#: A game longer than this many plies is adjudicated a draw (the rules end every Zola game,
#: and Zhadu's quiet limit ends aimless ones; this is only a safety net).
MAX_PLIES = 600
#: Most games a pairing plays (the task list is built up front).
MAX_GAMES = 100_000
#: Most worker processes.
MAX_JOBS = 256

Mover = Callable[[State], int]


@dataclass(frozen=True)
class Player:
    """A player description that can cross process boundaries: kind plus its setting."""

    kind: str  # "engine-time", "engine-depth", "random", "greedy"
    value: int = 0  # ms per move or depth

    def label(self) -> str:
        if self.kind == "engine-time":
            return f"engine {self.value} ms"
        if self.kind == "engine-depth":
            return f"engine depth {self.value}"
        return self.kind


def random_mover(rng: random.Random) -> Mover:
    """Any legal move, uniformly."""

    def move(state: State) -> int:
        return rng.choice(sorted(state.legal_moves()))

    return move


def greedy_mover(rng: random.Random) -> Mover:
    """A winning move if any, else the capture leaving the opponent fewest captures, else random."""

    def move(state: State) -> int:
        moves = sorted(state.legal_moves())
        side = state.side_to_move
        best: list[int] = []
        best_replies = None
        for m in moves:
            state.play(m)
            outcome = state.outcome()
            replies = len(state.captures())
            state.undo()
            if outcome is not None and outcome.winner == side:
                return m
            if state.is_capture(m):
                if best_replies is None or replies < best_replies:
                    best, best_replies = [m], replies
                elif replies == best_replies:
                    best.append(m)
        return rng.choice(best) if best else rng.choice(moves)

    return move


def engine_mover(limits: GoLimits) -> Mover:
    """The engine with a table kept over the game (as in a real game), Seed 0."""
    searcher = Searcher(hash_mb=16, seed=0, overhead_ms=0)

    def move(state: State) -> int:
        result = searcher.search(state.copy(), limits, state.rules.evaluation())
        assert result.best is not None
        return result.best

    return move


def make_mover(player: Player, rng: random.Random) -> Mover:
    """A move function for a player description."""
    if player.kind == "engine-time":
        return engine_mover(GoLimits(movetime=player.value))
    if player.kind == "engine-depth":
        return engine_mover(GoLimits(depth=player.value))
    if player.kind == "random":
        return random_mover(rng)
    if player.kind == "greedy":
        return greedy_mover(rng)
    raise ValueError(f"unknown player kind {player.kind}")


def decided(state: State) -> bool:
    """Whether a short search (depth 4) already finds a forced result for either side."""
    result = Searcher(hash_mb=4).search(state.copy(), GoLimits(depth=4), state.rules.evaluation())
    return result.score.mate is not None


def opening(variant: str, index: int, plies: int) -> State:
    """The ``index``-th opening: ``plies`` seeded random plies from the start (setup included).

    Openings where a short search finds a forced win are redrawn (with the next seed): such a
    game is decided by the dice, not by the players (random Zhadu setups often are).
    """
    attempt = 0
    while True:
        state = make_rules(variant).start()
        rng = random.Random(1000 + 100 * index + attempt)
        for _ in range(plies):
            moves = state.legal_moves()
            if not moves:
                break
            state.play(rng.choice(sorted(moves)))
            if state.outcome() is not None:
                state.undo()
                break
        if state.outcome() is None and not decided(state):
            return state
        attempt += 1


def play_game(args: tuple[str, int, int, Player, Player, bool]) -> tuple[float, int]:
    """One game from an opening; returns (score of player ``a``, plies played)."""
    variant, index, plies, a, b, a_second = args
    state = opening(variant, index, plies)
    rng = random.Random(index * 2 + a_second)
    movers = {0: make_mover(a, rng), 1: make_mover(b, rng)}  # 0 = a
    a_side = state.side_to_move ^ (1 if a_second else 0)
    played = 0
    while state.outcome() is None and played < MAX_PLIES:
        mover = movers[0] if state.side_to_move == a_side else movers[1]
        state.play(mover(state))
        played += 1
    outcome = state.outcome()
    if outcome is None or outcome.winner is None:
        return 0.5, played
    return (1.0 if outcome.winner == a_side else 0.0), played


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a mean score over ``n`` games."""
    if n == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def opening_plies(variant: str) -> int:
    """Random plies of an opening: past a setup phase (Zhadu's 10 placements) plus two moves,
    or four moves in a game without one."""
    setup = make_rules(variant).setup_plies
    return setup + 2 if setup else 4


def run_pairing(
    variant: str, a: Player, b: Player, games: int, jobs: int, emit: Callable[[str], None] = print
) -> tuple[float, float, float]:
    """Play the pairing; returns (score, low, high) of ``a``."""
    plies = opening_plies(variant)
    tasks = [(variant, i // 2, plies, a, b, bool(i % 2)) for i in range(games)]
    start = time.perf_counter()
    results = parallel_map(play_game, tasks, jobs)
    total = sum(s for s, _ in results)
    wins = sum(1 for s, _ in results if s == 1.0)
    draws = sum(1 for s, _ in results if s == 0.5)
    losses = len(results) - wins - draws
    score = total / len(results)
    low, high = wilson(score, len(results))
    mean_plies = sum(p for _, p in results) / len(results)
    emit(
        f"{variant}: {a.label()} vs {b.label()}: +{wins} ={draws} -{losses} "
        f"score {100 * score:.1f}% [95% {100 * low:.1f}%, {100 * high:.1f}%] "
        f"({len(results)} games, {mean_plies:.0f} plies avg, {time.perf_counter() - start:.0f} s)"
    )
    return score, low, high


PAIRINGS = ("random", "greedy", "depth")


@click.command("strength")
@click.option(
    "--variant",
    "variants",
    multiple=True,
    default=tuple(GAMES),
    show_default=True,
    help="Variants to test (repeatable).",
)
@click.option(
    "--pairing",
    "pairings",
    multiple=True,
    type=click.Choice(PAIRINGS),
    default=PAIRINGS,
    show_default=True,
    help="Pairings to play (repeatable).",
)
@click.option(
    "--games",
    type=click.IntRange(2, MAX_GAMES),
    default=40,
    show_default=True,
    help="Games per pairing (pairs of an opening with colours swapped).",
)
@click.option(
    "--movetime",
    type=click.IntRange(1, MAX_MS),
    default=100,
    show_default=True,
    help="Engine ms per move against random and greedy.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1, MAX_JOBS),
    default=1,
    show_default=True,
    help="Processes to play games in.",
)
def strength_command(
    variants: tuple[str, ...], pairings: tuple[str, ...], games: int, movetime: int, jobs: int
) -> None:
    """Play the engine against random and greedy movers and depth 4 against depth 2.

    Takes minutes per pairing; Ctrl-C stops it.
    """
    for variant in variants:
        try:
            make_rules(variant)
        except GameError as exc:
            raise click.BadParameter(str(exc), param_hint="--variant") from None
    engine = Player("engine-time", movetime)
    for variant in variants:
        for pairing in pairings:
            if pairing == "random":
                run_pairing(variant, engine, Player("random"), games, jobs, click.echo)
            elif pairing == "greedy":
                run_pairing(variant, engine, Player("greedy"), games, jobs, click.echo)
            else:
                run_pairing(
                    variant,
                    Player("engine-depth", 4),
                    Player("engine-depth", 2),
                    games,
                    jobs,
                    click.echo,
                )
            sys.stdout.flush()


if __name__ == "__main__":
    from zengine.cli import main

    main(["strength", *sys.argv[1:]])
