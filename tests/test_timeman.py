"""Time management as pure functions: budgets from limits, without any clock."""

from __future__ import annotations

import pytest

from zengine.engine.game import State
from zengine.engine.search import Searcher
from zengine.engine.timeman import (
    DEFAULT_MOVES_TO_GO,
    HARD_FACTOR,
    LATENCY_WINDOW,
    MAX_LATENCY_MS,
    MIN_PLANNED_MOVES,
    NEXT_ITERATION_PERCENT,
    STALL_WINDOW,
    TimeBudget,
    budget,
    latency,
    latency_sample,
    planned_moves,
    stall_margin,
    start_iteration,
)
from zengine.engine.values import GoLimits
from zengine.engine.variants import make_rules

ZHADU_PLAY = "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"


def test_no_time_limit() -> None:
    assert budget(GoLimits(), 0, 30) == TimeBudget(None, None)
    assert budget(GoLimits(depth=5, nodes=100), 1, 30) == TimeBudget(None, None)


def test_infinite_ignores_clocks() -> None:
    assert budget(GoLimits(infinite=True, movetime=100, p1time=1000), 0, 30) == TimeBudget(
        None, None
    )


def test_movetime_is_met_within_the_overhead() -> None:
    assert budget(GoLimits(movetime=1000), 0, 30) == TimeBudget(970, 970)
    assert budget(GoLimits(movetime=20), 1, 30) == TimeBudget(0, 0)
    assert budget(GoLimits(movetime=500), 0, 0) == TimeBudget(500, 500)


def test_only_the_side_to_move_clock_counts() -> None:
    mine = budget(GoLimits(p1time=60_000, p2time=1_000), 0, 0)
    theirs = budget(GoLimits(p1time=1_000, p2time=60_000), 1, 0)
    assert mine == theirs
    assert mine.soft_ms == 60_000 // DEFAULT_MOVES_TO_GO
    assert budget(GoLimits(p2time=60_000), 0, 0) == TimeBudget(None, None)


CLOCKS = (0, 30, 100, 1_000, 10_000, 100_000)
INCREMENTS = (0, 10, 30, 100, 1_000)
MOVES_TO_GO = (None, 1, 2, 10, 40, 100)


@pytest.mark.parametrize("overhead", [0, 30, 100])
def test_soft_below_hard_below_a_share_of_the_clock(overhead: int) -> None:
    for clock in CLOCKS:
        for inc in INCREMENTS:
            for mtg in MOVES_TO_GO:
                b = budget(GoLimits(p1time=clock, p1inc=inc, movestogo=mtg), 0, overhead)
                assert b.soft_ms is not None and b.hard_ms is not None
                later = 0 if mtg is None else (min(mtg, 50) - 1) * max(0, overhead - inc)
                available = max(0, clock - overhead - later)
                assert 0 <= b.soft_ms <= b.hard_ms <= HARD_FACTOR * b.soft_ms
                # A fifth of what is left at most; up to 80% on the last move before a control.
                share = 0.8 if mtg == 1 else 0.4 if mtg == 2 else 0.2
                assert b.hard_ms <= available * share


def test_increment_beyond_the_overhead_adds_time() -> None:
    without = budget(GoLimits(p1time=10_000), 0, 30)
    with_inc = budget(GoLimits(p1time=10_000, p1inc=1_000), 0, 30)
    assert with_inc.soft_ms > without.soft_ms and with_inc.hard_ms > without.hard_ms
    # Every move pays the overhead: an increment no larger than it is no time to plan on.
    assert budget(GoLimits(p1time=10_000, p1inc=30), 0, 30) == without


def test_movestogo_spreads_the_clock() -> None:
    few = budget(GoLimits(p2time=10_000, movestogo=2), 1, 0)
    many = budget(GoLimits(p2time=10_000, movestogo=20), 1, 0)
    assert few.soft_ms > many.soft_ms and few.hard_ms > many.hard_ms
    last = budget(GoLimits(p2time=10_000, movestogo=1), 1, 100)
    assert last.hard_ms == 9_900 * 8 // 10
    assert budget(GoLimits(p2time=10_000, movestogo=1_000), 1, 0) == budget(
        GoLimits(p2time=10_000, movestogo=50), 1, 0
    )


def test_negative_or_exhausted_clock_gives_zero() -> None:
    assert budget(GoLimits(p1time=-500, p1inc=0), 0, 30) == TimeBudget(0, 0)
    assert budget(GoLimits(p1time=20), 0, 30) == TimeBudget(0, 0)
    assert budget(GoLimits(p1time=-500, p1inc=-3), 0, 30).hard_ms == 0


def test_movetime_and_clock_take_the_tighter() -> None:
    b = budget(GoLimits(movetime=5_000, p1time=2_000), 0, 0)
    assert b.hard_ms <= 400 and b.soft_ms <= b.hard_ms
    b = budget(GoLimits(movetime=50, p1time=600_000), 0, 0)
    assert b == TimeBudget(50, 50)


#: (base, increment, moves per period) of the simulated games.
GAME_CLOCKS = [
    (1_000, 10, None),  # the clock of `zengine match --each tc=1+0.01`
    (1_000, 50, None),
    (2_000, 50, None),
    (100, 100, None),
    (10_000, 100, None),
    (60_000, 0, 40),
    (1_000, 0, 10),
    (5_000, 30, 5),
]


@pytest.mark.parametrize(
    ("base", "inc", "period", "overhead"),
    [
        (base, inc, period, overhead)
        for base, inc, period in GAME_CLOCKS
        for overhead in (10, 30, 100)
        # In sudden death with an increment below the per-move loss, any clock runs out.
        if period is not None or inc >= overhead
    ],
)
@pytest.mark.parametrize("planned", [DEFAULT_MOVES_TO_GO, MIN_PLANNED_MOVES])
def test_worst_case_games_never_flag(
    base: int, inc: int, period: int | None, overhead: int, planned: int
):
    """Every search runs to its hard limit and then loses the whole Move Overhead on top (the
    worst the engine allows itself): no move ever takes more than the clock holds, for 300
    moves, when the increment covers the overhead or the time control refills the clock; the
    same when the position keeps saying the game is about to be decided (the fewest moves a
    clock is ever planned for) and the game goes on."""
    clock = base
    for move in range(300):
        mtg = None if period is None else period - move % period
        limits = GoLimits(p1time=clock, p1inc=inc, movestogo=mtg)
        b = budget(limits, 0, overhead, moves_to_go=planned)
        assert b.hard_ms is not None
        spent = b.hard_ms + overhead
        assert spent <= clock, f"move {move}: {spent} ms spent of {clock}"
        clock += inc - spent
        if period is not None and mtg == 1:
            clock += base


def test_the_1s_clock_is_spread_over_the_game() -> None:
    """At 1+0.05 a move takes at most a small share of the clock: not ~305 ms of 1000."""
    b = budget(GoLimits(p1time=1_000, p2time=1_000, p1inc=50, p2inc=50), 0, 30)
    assert b.soft_ms == (1_000 - 30) // DEFAULT_MOVES_TO_GO + 20
    assert b.soft_ms <= 100 and b.hard_ms <= 200


def test_no_iteration_predicted_to_end_after_the_soft_limit() -> None:
    assert start_iteration(TimeBudget(None, None), 1e9)
    # A clock (soft below hard), and movetime (soft = hard): the same rule, so the search may
    # end well before the limit.
    for soft, hard in ((150, 450), (100, 100)):
        times = TimeBudget(soft, hard)
        latest = soft * 100 / (100 + NEXT_ITERATION_PERCENT)
        assert start_iteration(times, 0) and start_iteration(times, latest)
        assert not start_iteration(times, latest + 0.01)
        assert not start_iteration(times, soft)


def test_the_stall_margin_keeps_the_longest_recent_stall() -> None:
    assert stall_margin([]) == 0.0
    stalls = [48.0] + [5.0] * (STALL_WINDOW - 1)
    # A long stall stays in the margin for STALL_WINDOW searches, however short the others...
    assert stall_margin(stalls) == 48.0
    # ...and is forgotten after that: an idle machine soon keeps next to nothing back.
    assert stall_margin([*stalls, 6.0]) == 6.0
    assert stall_margin([0.5] * (STALL_WINDOW + 3)) == 0.5


def test_a_latency_sample_is_what_the_referee_charged_beyond_the_own_time() -> None:
    # 1000 ms, +10 a move; the next go gives 950: 60 ms charged, 22.5 of them the engine's.
    assert latency_sample(1000, 10, 22.5, 950) == 37.5
    assert latency_sample(1000, 10, 61.0, 950) == 0.0  # the referee's rounding
    assert latency_sample(1000, 10, 5.0, 2000) is None  # a new period, or another game
    assert latency_sample(5000, 0, 5.0, 5000 - MAX_LATENCY_MS - 10) is None


def test_the_latency_is_the_mean_of_recent_samples() -> None:
    assert latency([]) == 0.0
    assert latency([10.0, 30.0]) == 20.0
    assert latency([500.0] + [4.0] * LATENCY_WINDOW) == 4.0


def test_a_latency_beyond_the_increment_is_kept_back_for_the_moves_to_come() -> None:
    limits = GoLimits(p1time=1000, p1inc=10)
    plain = budget(limits, 0, 30)
    assert budget(limits, 0, 30, latency_ms=10) == plain  # the increment pays for it
    slow = budget(limits, 0, 30, latency_ms=23)
    assert slow.soft_ms == (1000 - 30 - (DEFAULT_MOVES_TO_GO - 1) * 13) // DEFAULT_MOVES_TO_GO
    assert slow.soft_ms is not None and plain.soft_ms is not None
    assert slow.soft_ms < plain.soft_ms
    # A clock smaller than what the moves to come will drain: depth 1 only, at once.
    drained = 30 + (DEFAULT_MOVES_TO_GO - 1) * 13
    assert budget(GoLimits(p1time=drained, p1inc=10), 0, 30, latency_ms=23) == TimeBudget(0, 0)
    # With a movestogo the larger of the overhead and the latency is kept for each move.
    mtg = GoLimits(p1time=1000, p1inc=0, movestogo=10)
    later = 9 * 50  # nine moves after this one, each 50 ms outside the engine
    assert budget(mtg, 0, 30, latency_ms=50).soft_ms == (1000 - 30 - later) // 10
    assert budget(mtg, 0, 30, latency_ms=20) == budget(mtg, 0, 30)


def soft_limit_at_10s(state: State) -> int | None:
    """The soft limit a depth-1 search of ``state`` sets with 10 s on both clocks."""
    clock = GoLimits(p1time=10_000, p2time=10_000, depth=1)
    return Searcher(overhead_ms=0).search(state, clock, state.rules.evaluation()).soft_ms


def test_each_game_plans_its_own_moves_to_go() -> None:
    # Without movestogo the clock is planned for the game's moves_to_go; a movestogo wins.
    clock = GoLimits(p1time=10_000)
    assert budget(clock, 0, 0).soft_ms == 10_000 // DEFAULT_MOVES_TO_GO
    assert budget(clock, 0, 0, moves_to_go=10).soft_ms == 1_000
    given = GoLimits(p1time=10_000, movestogo=20)
    assert budget(given, 0, 0, moves_to_go=10) == budget(given, 0, 0)
    # The search asks the game: Zhadu's games are short, Zola keeps the default.
    for variant, moves in (("zhadu", 10), ("zhadu-star", 10), ("zola", DEFAULT_MOVES_TO_GO)):
        rules = make_rules(variant)
        assert rules.search_parameters().moves_to_go == moves
        state = rules.parse_position(ZHADU_PLAY) if "zhadu" in variant else rules.start()
        assert soft_limit_at_10s(state) == 10_000 // moves


def test_planned_moves_follow_the_position_down_to_a_floor() -> None:
    # No estimate: the game's moves_to_go. An estimate only shortens the plan, never below
    # MIN_PLANNED_MOVES, and never lengthens it.
    assert planned_moves(16, None) == 16
    assert planned_moves(16, 40) == 16
    assert planned_moves(16, 9) == 9
    assert planned_moves(16, 1) == MIN_PLANNED_MOVES
    assert planned_moves(16, MIN_PLANNED_MOVES) == MIN_PLANNED_MOVES
    # A game that already plans for fewer moves than the floor keeps its own number.
    assert planned_moves(4, None) == 4
    assert planned_moves(4, 1) == 4
    for moves_to_go in range(1, 30):
        previous = 0
        for expected in range(0, 40):
            planned = planned_moves(moves_to_go, expected)
            assert min(moves_to_go, MIN_PLANNED_MOVES) <= planned <= moves_to_go
            assert planned >= previous  # more moves expected, never a shorter plan
            previous = planned


# Zola 6x6 positions by checkers on the board: the start (36), after the four captures
# b4xb3 f5xf4 a5xb5 c4xd4 (32), a middle game (20) and an ending (8).
ZOLA_BY_CHECKERS = (
    (36, "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r"),
    (32, "brbrbr/1rrbr1/b2bbb/rrrbrb/brbrbr/rbrbrb r"),
    (20, "rbrb2/brbr2/rbrb2/brbr2/rbrb2/6 r"),
    (8, "rb4/br4/rb4/br4/6/6 b"),
)


@pytest.mark.parametrize(("checkers", "position"), ZOLA_BY_CHECKERS)
def test_zola_plans_its_clock_for_the_moves_before_the_game_is_decided(
    checkers: int, position: str
) -> None:
    state = make_rules("zola").parse_position(position)
    red, blue = state.boards
    assert red.bit_count() + blue.bit_count() == checkers
    expected = state.expected_moves_left()
    assert expected == max(1, min(checkers - 7, checkers // 2 - 1))
    planned = planned_moves(DEFAULT_MOVES_TO_GO, expected)
    assert soft_limit_at_10s(state) == 10_000 // planned
    # The start plans as before; from the middle game on a move may take more of the clock.
    assert (planned == DEFAULT_MOVES_TO_GO) == (checkers >= 34)


@pytest.mark.parametrize("variant", ["zola-8", "zola-10"])
def test_the_larger_zola_boards_plan_for_the_default_moves(variant: str) -> None:
    # Their games already spend the clock: no estimate, at the start or with few checkers.
    rules = make_rules(variant)
    size = rules.geometry.n
    few = "/".join(["rb" + str(size - 2)] + [str(size)] * (size - 1)) + " r"
    for state in (rules.start(), rules.parse_position(few)):
        assert state.expected_moves_left() is None
        assert soft_limit_at_10s(state) == 10_000 // DEFAULT_MOVES_TO_GO
