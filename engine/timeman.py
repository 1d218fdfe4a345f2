"""Time management: how long one search may think, as a pure function of the limits.

The search asks :func:`budget` once, at its start, and then only compares elapsed time with the
two numbers it returns:

* ``soft_ms``: do not start another iteration of the iterative deepening after this;
* ``hard_ms``: abort the iteration in progress (depth 1 is always completed regardless).

Being a pure function of :class:`~zengine.engine.values.GoLimits`, the side to move and the Move
Overhead, it is tested without any clock (tests/test_timeman.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from zengine.engine.values import GoLimits

#: Moves assumed still to come when the clock has no ``movestogo``: games of both Zola and
#: Zhadu rarely last more than ~40 moves per side after the opening exchanges.
DEFAULT_MOVES_TO_GO = 25
#: The hard limit is at most this many soft limits: an iteration that runs long may finish.
HARD_FACTOR = 4
#: Never plan to use more than this share of the remaining clock on one move.
MAX_SHARE = 0.5
#: ``movestogo`` beyond this is planned as this many moves (a far time control is no reason
#: to think less than usual now).
MAX_MOVES_TO_GO = 50
#: On the last move before the time control, the soft limit is this share (per mille) of what
#: is left: an iteration started then may still run on to the hard limit.
LAST_MOVE_SOFT_PERMILLE = 700
#: The share (per mille) of the increment planned for this move: it arrives after the move.
INCREMENT_PERMILLE = 750


@dataclass(frozen=True)
class TimeBudget:
    """Milliseconds from the start of the search; ``None`` means no time limit."""

    soft_ms: int | None
    hard_ms: int | None


def budget(limits: GoLimits, side: int, overhead_ms: int) -> TimeBudget:
    """The soft and hard time limits of a search for ``side`` (0 = p1) to move.

    ``movetime`` is met within the overhead: both limits are ``movetime - overhead``. With a
    clock, only the side to move's time and increment count; a negative clock counts as 0 and
    gives a zero budget (the search then completes depth 1 only and moves at once). When both
    ``movetime`` and a clock are given, the tighter limit wins. ``infinite`` ignores both.
    """
    if limits.infinite:
        return TimeBudget(None, None)
    overhead = max(0, overhead_ms)
    soft: int | None = None
    hard: int | None = None
    if limits.movetime is not None:
        hard = max(0, limits.movetime - overhead)
        soft = hard
    clock, inc = limits.clock(side)
    if clock is not None:
        remaining = max(0, clock)
        increment = max(0, inc or 0)
        available = max(0, remaining - overhead)
        if limits.movestogo is not None and limits.movestogo > 0:
            moves_to_go = min(limits.movestogo, MAX_MOVES_TO_GO)
        else:
            moves_to_go = DEFAULT_MOVES_TO_GO
        if moves_to_go == 1:
            # The last move before the time control: all of it may go (bar the overhead).
            clock_hard = available
            clock_soft = available * LAST_MOVE_SOFT_PERMILLE // 1000
        else:
            # The increment arrives after this move; plan on most of it.
            clock_soft = available // moves_to_go + increment * INCREMENT_PERMILLE // 1000
            clock_hard = min(int(available * MAX_SHARE), clock_soft * HARD_FACTOR)
            clock_soft = min(clock_soft, clock_hard)
        soft = clock_soft if soft is None else min(soft, clock_soft)
        hard = clock_hard if hard is None else min(hard, clock_hard)
    return TimeBudget(soft, hard)
