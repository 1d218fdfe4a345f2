"""Time management as a pure function: budgets from limits, without any clock."""

from __future__ import annotations

from zengine.engine.timeman import DEFAULT_MOVES_TO_GO, TimeBudget, budget
from zengine.engine.values import GoLimits


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


def test_soft_below_hard_below_half_the_clock() -> None:
    for clock in (100, 1_000, 10_000, 100_000):
        for inc in (0, 100, 1_000):
            for mtg in (None, 2, 10, 40):
                b = budget(GoLimits(p1time=clock, p1inc=inc, movestogo=mtg), 0, 30)
                assert 0 <= b.soft_ms <= b.hard_ms <= max(0, clock - 30)


def test_increment_adds_time() -> None:
    without = budget(GoLimits(p1time=10_000), 0, 0)
    with_inc = budget(GoLimits(p1time=10_000, p1inc=1_000), 0, 0)
    assert with_inc.soft_ms > without.soft_ms and with_inc.hard_ms >= without.hard_ms


def test_movestogo_spreads_the_clock() -> None:
    few = budget(GoLimits(p2time=10_000, movestogo=2), 1, 0)
    many = budget(GoLimits(p2time=10_000, movestogo=20), 1, 0)
    assert few.soft_ms > many.soft_ms
    last = budget(GoLimits(p2time=10_000, movestogo=1), 1, 100)
    assert last.hard_ms == 9_900 and last.soft_ms < last.hard_ms


def test_negative_or_exhausted_clock_gives_zero() -> None:
    assert budget(GoLimits(p1time=-500, p1inc=0), 0, 30) == TimeBudget(0, 0)
    assert budget(GoLimits(p1time=20), 0, 30) == TimeBudget(0, 0)
    assert budget(GoLimits(p1time=-500, p1inc=-3), 0, 30).hard_ms == 0


def test_movetime_and_clock_take_the_tighter() -> None:
    b = budget(GoLimits(movetime=5_000, p1time=2_000), 0, 0)
    assert b.hard_ms <= 1_000 and b.soft_ms <= b.hard_ms
    b = budget(GoLimits(movetime=50, p1time=600_000), 0, 0)
    assert b == TimeBudget(50, 50)
