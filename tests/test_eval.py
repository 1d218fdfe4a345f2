"""The evaluations: found through the registry, bounded, colour-symmetric, sensible signs."""

from __future__ import annotations

import random
from collections.abc import Callable

import naive_zhadu
import naive_zola
import pytest
from brute_force import wins_within

from zengine.engine import zhadu_eval, zola_eval
from zengine.engine.search import MATE_BOUND
from zengine.engine.variants import make_rules, variant_names
from zengine.engine.zola import ZolaState


def playout_states(variant: str, count: int, seed: int):
    rules = make_rules(variant)
    rng = random.Random(seed)
    for _ in range(count):
        state = rules.start()
        for _ in range(rng.randrange(0, 50)):
            moves = state.legal_moves()
            if not moves:
                break
            state.play(rng.choice(sorted(moves)))
        yield state


@pytest.mark.parametrize("variant", variant_names())
def test_evaluation_is_an_int_far_from_mate_scores(variant: str) -> None:
    evaluate = make_rules(variant).evaluation()
    for state in playout_states(variant, 30, seed=3):
        if state.outcome() is None:
            value = evaluate(state)
            assert isinstance(value, int) and abs(value) < MATE_BOUND


@pytest.mark.parametrize("variant", ["zola", "zola-8", "zola-10"])
def test_zola_colour_symmetry(variant: str) -> None:
    rules = make_rules(variant)
    evaluate = rules.evaluation()
    for state in playout_states(variant, 20, seed=4):
        red, blue = state.boards
        swapped = ZolaState(rules, blue, red, state.stm ^ 1)
        assert evaluate(swapped) == evaluate(state)


def naive_zola_evaluation(position: str) -> int:
    """The Zola evaluation as its docstring describes it, term by term, from the moves of the
    naive generator (tests/naive_zola.py) and a square-by-square walk of the board."""
    grid, me = naive_zola.parse(position)
    n = len(grid)
    board = position.split()[0]

    def moves_of(side: str) -> list[str]:
        return [m for m in naive_zola.legal_moves(f"{board} {side}") if m != "pass"]

    other = "b" if me == "r" else "r"
    mine, theirs = moves_of(me), moves_of(other)
    ranks = sorted({naive_zola.distance2(n, f, r) for f in range(n) for r in range(n)})
    bonuses = zola_eval.BAND_BONUS
    score = 0
    for rank in range(n):
        for file in range(n):
            if grid[rank][file] == ".":
                continue
            band = ranks.index(naive_zola.distance2(n, file, rank)) * len(bonuses) // len(ranks)
            value = zola_eval.CHECKER + bonuses[band]
            score += value if grid[rank][file] == me else -value
    attacked = {m.split("x")[1] for m in mine if "x" in m}
    attacking = {m.split("x")[1] for m in theirs if "x" in m}
    if attacked:
        score += zola_eval.TEMPO_CAPTURE
    score += (len(attacked) - len(attacking)) * zola_eval.ATTACK

    def retaken(square: str, side: str) -> bool:
        # Could another checker of ``side`` capture on ``square`` were an enemy standing there?
        file, rank = ord(square[0]) - 97, int(square[1:]) - 1
        swapped = [row[:] for row in grid]
        swapped[rank][file] = "b" if side == "r" else "r"
        return any(
            m.endswith("x" + square) for m in naive_zola.legal_moves(naive_zola.text(swapped, side))
        )

    free = {square for square in attacked if not retaken(square, other)}
    if free:
        score += zola_eval.FREE_CAPTURE
    hanging = {square for square in attacking if not retaken(square, me)}
    score += (len(free) - len(hanging)) * zola_eval.HANGING
    steps = sum("-" in m for m in mine) - sum("-" in m for m in theirs)
    return score + steps * zola_eval.STEP


@pytest.mark.parametrize(
    "evaluate", [zola_eval.evaluate_ints, zola_eval.evaluate_words], ids=["ints", "words"]
)
@pytest.mark.parametrize("variant,count", [("zola", 120), ("zola-8", 60), ("zola-10", 30)])
def test_zola_evaluation_matches_the_naive_one(
    variant: str, count: int, evaluate: Callable[[ZolaState], int]
) -> None:
    # Both forms of the evaluation: four boards in one int with bits reversed, and two words
    # per board walked per direction with carries between the words. An oracle that walks
    # squares catches a mask, a lane or a carry off by one.
    checked = 0
    for state in playout_states(variant, count, seed=6):
        if state.outcome() is None:
            position = state.position_text()
            assert evaluate(state) == naive_zola_evaluation(position), position
            checked += 1
    assert checked > count // 2


def test_zola_material_counts() -> None:
    rules = make_rules("zola")
    evaluate = rules.evaluation()
    # Red has two extra checkers, far from everything: Red to move is better, Blue worse.
    ahead = rules.parse_position("r4r/6/6/6/6/r4b r")
    behind = rules.parse_position("r4r/6/6/6/6/r4b b")
    assert evaluate(ahead) > 100 and evaluate(behind) < -100


def naive_zhadu_evaluation(position: str, links: str) -> int:
    """The Zhadu evaluation as its docstring describes it, term by term, from the walks of the
    naive referee (tests/naive_zhadu.py) stone by stone."""
    game = naive_zhadu.NaiveGame(position, links)
    me = game.side
    other = naive_zhadu.OTHER[me]
    reach = {me: set(), other: set()}
    mobility = 0
    for point, (colour, stone) in game.stones.items():
        lengths = [1, 2, 3] if stone == "123" else [int(stone)]
        ends = set().union(*(game.ends(point, length) for length in lengths))
        # where it may end, its own side's stones (its own point too) left out
        ends = {e for e in ends if game.stones.get(e, ("", ""))[0] != colour}
        reach[colour] |= ends
        mobility += len(ends) if colour == me else -len(ends)
    score = mobility * zhadu_eval.MOBILITY
    if game.ply < 10:
        return score

    def wins(colour: str) -> set[str]:
        first = game.first[colour]
        if first is None:
            return {"4"}
        return {s for s in naive_zhadu.STONES if s != first and game.completes(first, s)}

    stones = {
        colour: {p: s for p, (c, s) in game.stones.items() if c == colour} for colour in reach
    }
    our_targets = {p for p, s in stones[other].items() if s in wins(me)}
    their_targets = {p for p, s in stones[me].items() if s in wins(other)}
    score += (len(stones[me]) - len(stones[other])) * zhadu_eval.STONE
    score += (len(our_targets) - len(their_targets)) * zhadu_eval.TARGET
    if reach[me] & our_targets:
        return zhadu_eval.WIN_NEXT + score // 10
    # our stones the other side reaches and whose capture would not win for it: contact
    score += len((reach[other] & stones[me].keys()) - their_targets) * zhadu_eval.CONTACT
    threats = len(reach[other] & their_targets)
    return score - threats * zhadu_eval.THREAT - (zhadu_eval.DOUBLE_THREAT if threats >= 2 else 0)


@pytest.mark.parametrize("variant,links", [("zhadu", "full"), ("zhadu-star", "star")])
def test_zhadu_evaluation_matches_the_naive_one(variant: str, links: str) -> None:
    evaluate = make_rules(variant).evaluation()
    checked = won_next = 0
    for state in playout_states(variant, 200, seed=7):
        if state.outcome() is None:
            position = state.position_text()
            value = evaluate(state)
            assert value == naive_zhadu_evaluation(position, links), position
            checked += 1
            won_next += value > zhadu_eval.WIN_NEXT // 2
    assert checked > 100 and won_next > 0


def test_zhadu_symmetric_start_of_movement_is_level() -> None:
    rules = make_rules("zhadu")
    evaluate = rules.evaluation()
    white = rules.parse_position("1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10")
    black = rules.parse_position("1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 b -/- 0 10")
    assert evaluate(white) == evaluate(black)


def test_zhadu_reaching_a_winning_stone_is_nearly_won() -> None:
    # Oracle: the mover has a capture that wins at once iff the evaluation says "won next".
    for variant in ("zhadu", "zhadu-star"):
        evaluate = make_rules(variant).evaluation()
        seen = 0
        for state in playout_states(variant, 150, seed=5):
            if state.outcome() is not None or state.in_setup:
                continue
            wins = wins_within(state, 1, state.side_to_move)
            assert (evaluate(state) > 5_000) == wins
            seen += wins
        assert seen > 0
