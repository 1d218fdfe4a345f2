"""Cross-check of engine/zhadu.py against the naive referee in tests/naive_zhadu.py.

Seeded random games of both variants, played by a policy that favours returns (so positions
repeat) and captures (so games are won), with quiet limits small and large. At every position:
the same legal move texts, position string, first captures and outcome with its reason.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from naive_zhadu import NaiveGame

from zengine.engine.game import legal_moves_text
from zengine.engine.variants import make_rules

START = "-/- w -/- 0 0"
AFTER_SETUP = "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"
WALLED_IN = "1a0,123a1,2a2,3a3,4b0/1b1,2b2,3b3,4h0,123g0 w -/- 0 20"
RESULTS = {"p1win": "1-0", "p2win": "0-1", "draw": "1/2-1/2"}


def _choose(rng: random.Random, texts: list[str], appetite: float = 0.35) -> str:
    """A random move; returns with probability 0.35, captures with ``appetite`` when there."""
    returns = [t for t in texts if len(t) == 5 and t[:2] == t[3:]]
    captures = [t for t in texts if "x" in t]
    roll = rng.random()
    if returns and roll < 0.35:
        return rng.choice(returns)
    if captures and roll < 0.35 + appetite:
        return rng.choice(captures)
    return rng.choice(texts)


def crosscheck_game(
    variant: str, quiet: int, seed: int, start: str = START
) -> tuple[str | None, int]:
    """Play one game in both implementations; returns (termination, positions compared)."""
    rng = random.Random(seed)
    appetite = (0.05, 0.2, 0.35)[seed % 3]
    rules = make_rules(variant, {"quiet": str(quiet)})
    state = rules.parse_position(start)
    naive = NaiveGame(start, rules.options["links"], quiet)
    compared = 0
    while True:
        texts = legal_moves_text(state)
        where = f"{variant} quiet {quiet} seed {seed}: {state.position_text()}"
        assert texts == naive.legal(), where
        assert state.position_text() == naive.position(), where
        outcome = state.outcome()
        got = None if outcome is None else (outcome.result.pgn, outcome.detail)
        assert got == naive.result, where
        for side, colour in ((0, "w"), (1, "b")):
            first = state.first_capture(side)
            assert (None if first is None else str(first)) == naive.first[colour], where
        assert state.count_moves() == len(texts), where
        compared += 1
        if not texts:
            return (None if outcome is None else outcome.detail), compared
        move = _choose(rng, texts, appetite)
        state.play(state.parse_move(move))
        naive.play(move)


def _run(games: list[tuple[str, int, int, str]]) -> tuple[Counter, int]:
    endings: Counter = Counter()
    total = 0
    for variant, quiet, seed, start in games:
        ending, compared = crosscheck_game(variant, quiet, seed, start)
        endings[ending] += 1
        total += compared
    return endings, total


def _games(count: int, offset: int) -> list[tuple[str, int, int, str]]:
    games = []
    for i in range(count):
        seed = offset + i
        variant = ("zhadu", "zhadu-star")[i % 2]
        quiet = (12, 40, 100, 0)[(i // 2) % 4] if i % 7 else 6
        start = (START, START, AFTER_SETUP, WALLED_IN)[i % 4]
        games.append((variant, quiet, seed, start))
    return games


def test_naive_crosscheck_random_games() -> None:
    endings, compared = _run(_games(1500, 0))
    assert compared > 20_000
    # Every way a reachable game ends was met (two passes cannot happen: see test_zhadu.py).
    for ending in ("sharing", "first capture of the 4", "repetition", "quiet limit"):
        assert endings[ending] > 0, endings


def test_naive_crosscheck_passes() -> None:
    """Games from the walled-in position of docs/zhadu.md: pass is played and compared."""
    passes = 0
    for seed in range(20):
        rng = random.Random(seed)
        state = make_rules("zhadu").parse_position(WALLED_IN)
        naive = NaiveGame(WALLED_IN)
        for _ in range(30):
            texts = legal_moves_text(state)
            assert texts == naive.legal()
            if not texts:
                break
            move = _choose(rng, texts)
            passes += move == "pass"
            state.play(state.parse_move(move))
            naive.play(move)
    assert passes >= 20


@pytest.mark.slow
def test_naive_crosscheck_many_games() -> None:
    endings, compared = _run(_games(15_000, 10_000))
    assert compared > 200_000
    assert all(
        endings[e] for e in ("sharing", "first capture of the 4", "repetition", "quiet limit")
    )


def naive_perft(game: NaiveGame, depth: int) -> int:
    """Perft over the naive referee, with copies instead of undo."""
    if depth == 0:
        return 1
    moves = game.legal()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = NaiveGame.__new__(NaiveGame)
        child.__dict__.update(game.__dict__)
        child.stones = dict(game.stones)
        child.first = dict(game.first)
        child.seen = Counter(game.seen)
        child.play(move)
        total += naive_perft(child, depth - 1)
    return total


@pytest.mark.parametrize(
    "links,start,depth",
    [
        ("full", AFTER_SETUP, 3),
        ("star", AFTER_SETUP, 4),
        ("full", WALLED_IN, 3),
        pytest.param("full", AFTER_SETUP, 4, marks=pytest.mark.slow),
    ],
)
def test_naive_perft_agrees(links: str, start: str, depth: int) -> None:
    from zengine.engine.perft import perft

    state = make_rules("zhadu", {"links": links}).parse_position(start)
    assert perft(state, depth) == naive_perft(NaiveGame(start, links), depth)
