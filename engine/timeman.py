"""Time management: how long one search may think, as pure functions of the limits.

The search asks :func:`budget` once for a soft limit (start no iteration predicted to end
after it: :func:`start_iteration`) and a hard one (abort the iteration under way; depth 1
always completes). Pure functions, so tests/test_timeman.py needs no clock. The rules are
in docs/search.md, "Time management"; the measurements behind the constants there and in
docs/search-experiments.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zengine.engine.values import DEFAULT_MOVES_TO_GO, GoLimits

#: A game's expected moves left (:func:`planned_moves`) plan a clock for no fewer moves than
#: this: a move may take a sixth of the clock, the hard limit's fifth still caps it.
MIN_PLANNED_MOVES = 6
#: ``movestogo`` beyond this counts as this many: a far time control is no reason to think less.
MAX_MOVES_TO_GO = 50
#: The hard limit is at most this many soft limits: at 4, iterations begun late ran to the
#: hard limit nearly every move and games were lost on time.
HARD_FACTOR = 3
#: The hard limit is at most this share (per mille) of the clock left after the Move Overhead,
#: so that the clock survives the next several moves whatever a loaded machine does to one.
MAX_SHARE_PERMILLE = 200
#: With ``movestogo`` n, the hard limit may also reach this share (per mille) divided by n:
#: the last moves before a time control may use most of what is left.
LAST_MOVES_SHARE_PERMILLE = 800
#: The next iteration is predicted to take this share (per cent) of the time spent so far:
#: below the measured median on purpose, which won at 5+0.05 against 150%.
NEXT_ITERATION_PERCENT = 80
#: The stall margin is the longest stall of the last this many searches (stalls vary too much
#: from search to search for a decaying mean: moves were late).
STALL_WINDOW = 8
#: The latency is the mean of the last this many samples (one per move under a clock).
LATENCY_WINDOW = 8
#: A latency sample beyond this (ms) is no latency: the clock was set anew (another game).
MAX_LATENCY_MS = 250


@dataclass(frozen=True)
class TimeBudget:
    """Milliseconds from the arrival of ``go``; ``None`` means no time limit."""

    soft_ms: int | None
    hard_ms: int | None


def budget(
    limits: GoLimits,
    side: int,
    overhead_ms: int,
    latency_ms: int = 0,
    moves_to_go: int = DEFAULT_MOVES_TO_GO,
) -> TimeBudget:
    """The soft and hard time limits of a search for ``side`` (0 = p1) to move.

    Both are ``movetime - overhead`` under ``movetime``. Under the mover's clock the soft
    limit is the clock (less the overhead and, where each move costs more than its increment,
    the ``latency_ms`` of the moves to go) over ``movestogo`` or ``moves_to_go``, plus the
    increment beyond the overhead; the hard limit :data:`HARD_FACTOR` times that, at most a
    share of the clock. A negative clock counts as 0; the tighter of the two rules wins;
    ``infinite`` has no limits.
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
    if clock is None:
        return TimeBudget(soft, hard)
    increment = max(0, inc or 0)
    if limits.movestogo is not None and limits.movestogo > 0:
        moves_to_go = min(limits.movestogo, MAX_MOVES_TO_GO)
        # The time control refills the clock after a known number of moves, each of which
        # pays the overhead (less its increment): kept back for all of them.
        later_losses = (moves_to_go - 1) * max(0, max(overhead, latency_ms) - increment)
    else:
        # A share of what is left leaves time for the moves to come, unless each costs more
        # than its increment outside the engine: then the clock drains by itself.
        moves_to_go = max(1, moves_to_go)
        later_losses = (moves_to_go - 1) * max(0, latency_ms - increment)
    available = max(0, clock - overhead - later_losses)
    # Every move pays the overhead: only the increment beyond it is time to plan on.
    increment = max(0, increment - overhead)
    share = max(MAX_SHARE_PERMILLE, LAST_MOVES_SHARE_PERMILLE // moves_to_go)
    clock_soft = available // moves_to_go + increment
    clock_hard = min(available * share // 1000, clock_soft * HARD_FACTOR)
    clock_soft = min(clock_soft, clock_hard)
    soft = clock_soft if soft is None else min(soft, clock_soft)
    hard = clock_hard if hard is None else min(hard, clock_hard)
    return TimeBudget(soft, hard)


def planned_moves(moves_to_go: int, expected: int | None) -> int:
    """The moves a clock without ``movestogo`` is planned for: the game's ``moves_to_go``, or
    fewer where the position expects the game decided sooner (``State.expected_moves_left``),
    not below :data:`MIN_PLANNED_MOVES`."""
    if expected is None:
        return moves_to_go
    return min(moves_to_go, max(MIN_PLANNED_MOVES, expected))


def stall_margin(stalls_ms: Sequence[float]) -> float:
    """The milliseconds the next search keeps back (besides the Move Overhead) for stalls: the
    longest of the last :data:`STALL_WINDOW` searches' longest stalls (0 before any search)."""
    return max(list(stalls_ms)[-STALL_WINDOW:], default=0.0)


def latency_sample(clock_ms: int, inc_ms: int, own_ms: float, next_clock_ms: int) -> float | None:
    """What one move cost beyond the engine's own time (``own_ms``, ``go`` to ``bestmove``):
    the referee charged ``clock_ms + inc_ms - next_clock_ms``, the rest went to pipes,
    scheduling and the referee's delays (0 if rounding makes it negative). None when the
    clocks do not follow (another period or game: over :data:`MAX_LATENCY_MS`)."""
    charged = clock_ms + inc_ms - next_clock_ms
    if charged < 0:
        return None
    sample = charged - own_ms
    if sample > MAX_LATENCY_MS:
        return None
    return max(0.0, sample)


def latency(samples_ms: Sequence[float]) -> float:
    """The latency a move is expected to cost beyond the engine's own time: the mean of the
    last :data:`LATENCY_WINDOW` samples (0 before any), as each move pays it."""
    recent = list(samples_ms)[-LATENCY_WINDOW:]
    return sum(recent) / len(recent) if recent else 0.0


def start_iteration(times: TimeBudget, elapsed_ms: float) -> bool:
    """Whether to start another iteration ``elapsed_ms`` after the ``go`` arrived: only if,
    predicted to take :data:`NEXT_ITERATION_PERCENT` of the time so far, it ends by the soft
    limit (one that runs on still has until the hard limit)."""
    if times.soft_ms is None:
        return True
    return elapsed_ms * (100 + NEXT_ITERATION_PERCENT) / 100 <= times.soft_ms
