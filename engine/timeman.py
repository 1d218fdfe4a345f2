"""Time management: how long one search may think, as pure functions of the limits.

The search asks :func:`budget` once, at its start, and then only compares the time elapsed since
the ``go`` arrived with the two numbers it returns:

* ``soft_ms``: the time to have finished by: :func:`start_iteration` starts another
  iteration of the iterative deepening only if it is predicted to end by then;
* ``hard_ms``: abort the iteration in progress (depth 1 is always completed regardless).

The figures behind the constants were measured with ``tests/time_usage.py`` on a 2-core machine
shared with other work (docs/search.md). Being pure functions of
:class:`~zengine.engine.values.GoLimits`, the side to move, the Move Overhead and the elapsed
time, they are tested without any clock (tests/test_timeman.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zengine.engine.values import DEFAULT_MOVES_TO_GO, GoLimits

#: A game's expected moves left (:func:`planned_moves`) plan a clock for no fewer moves than
#: this: at 6 a move may take a sixth of the clock, and the hard limit's fifth still caps it.
MIN_PLANNED_MOVES = 6
#: ``movestogo`` beyond this is planned as this many moves (a far time control is no reason
#: to think less than usual now).
MAX_MOVES_TO_GO = 50
#: The hard limit is at most this many soft limits. The old factor 4 (with up to half the
#: clock) let an iteration started just before the soft limit run on and be aborted at the
#: hard one nearly every move: ~305 ms of a 1 s clock per move, and games lost on time.
HARD_FACTOR = 3
#: The hard limit is at most this share (per mille) of the clock left after the Move Overhead:
#: whatever a loaded machine does to one search, the clock survives the next several moves.
MAX_SHARE_PERMILLE = 200
#: With ``movestogo`` n, the hard limit may also reach this share (per mille) divided by n:
#: the last moves before the time control may use most of what is left (a new period follows).
LAST_MOVES_SHARE_PERMILLE = 800
#: Under a clock, the next iteration is predicted to take this share (per cent) of the time
#: spent so far. Measured over 580 iterations of depth 3 and more in Zola and Zhadu self-play
#: (node counts): the next iteration's nodes over all nodes before it has median 1.45 (Zola)
#: and 1.15 (Zhadu), 75th percentile 2.55 and 2.27, 90th 4.1 and 4.0. Replayed on the
#: iterations of 169 searches of self-play positions (warm table, as in a game) with the hard
#: limit at 3 soft: 150 gives a mean time of 0.87-1.43 soft limits and 6-24% of the searches
#: aborted at the hard limit, against 1.8-2.3 soft limits and 17-42% aborted when any
#: iteration may start before the soft limit (the old rule). That replay chose 150; in games
#: it left half the clock unused (a median 2.7-3.0 s of 5 s at the end of 5+0.05 games), and
#: 80 (an iteration starts up to 0.56 soft limits in, not 0.4) thinks ~17% longer a move and
#: won at 5+0.05 against 150: Zhadu SPRT(0, 20) H1 after 330 games, +25.2 [+5.5, +44.8];
#: Zola 600 games, +20.8 [-1.4, +43.0] (docs/search.md).
NEXT_ITERATION_PERCENT = 80
#: The stall margin is the longest stall of the last this many searches. A stall is wall time
#: without CPU time between two looks at the clock (the machine ran something else); one after
#: the last look makes the move late whatever the limits, so the margin keeps it back. Measured
#: at st=0.1 with two CPU burners and other work (load 13-21): per search the longest stall
#: varies 5-60 ms from one search to the next; the margin that decayed by 0.8 per search let
#: 2.9% of the searches run past ``movetime - overhead`` (up to 104 ms for 70).
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

    ``movetime`` is met within the overhead: both limits are ``movetime - overhead``. With a
    clock, only the side to move's time and increment count. The soft limit is ``1 /
    movestogo`` (without one, ``1 / moves_to_go``: the game's ``SearchParameters.moves_to_go``,
    by default :data:`DEFAULT_MOVES_TO_GO`) of the clock less the overhead (with a
    ``movestogo``, less the overhead of every move to go), plus the increment less the
    overhead (every move pays it, so a small increment is no time to plan on); the hard limit
    is :data:`HARD_FACTOR` times that but at most a share of the same clock. A negative clock
    counts as 0 and gives a zero budget (the search then completes depth 1 only and moves at
    once). When both ``movetime`` and a clock are given, the tighter limit wins. ``infinite``
    ignores both.

    ``latency_ms`` is what each move is measured to cost beyond the engine's own time (see
    :func:`latency_sample`): where it exceeds the increment, every move to come drains the
    clock by the difference whatever the engine does, so that is kept back for the moves to
    go (``movestogo``, else ``moves_to_go``), the Move Overhead too with a
    ``movestogo``.
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
        # Spending a share of what is left leaves time for the moves to come, unless each of
        # them costs more than its increment outside the engine (measured: 1+0.01 beside two
        # CPU burners and other work, ~23 ms a move): then the clock drains by itself.
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
    fewer where the position says the game will be decided sooner (``expected``, from
    ``State.expected_moves_left``), but not below :data:`MIN_PLANNED_MOVES`. Never more: a
    long game is no reason to think less than usual now."""
    if expected is None:
        return moves_to_go
    return min(moves_to_go, max(MIN_PLANNED_MOVES, expected))


def stall_margin(stalls_ms: Sequence[float]) -> float:
    """The milliseconds the next search keeps back (besides the Move Overhead) for stalls: the
    longest of the last :data:`STALL_WINDOW` searches' longest stalls (0 before any search).
    A busy machine keeps it up; the margin drops within a few moves once the machine is idle."""
    return max(list(stalls_ms)[-STALL_WINDOW:], default=0.0)


def latency_sample(clock_ms: int, inc_ms: int, own_ms: float, next_clock_ms: int) -> float | None:
    """What one move cost beyond the engine's own time (ms), from the clock before it
    (``clock_ms``, increment ``inc_ms``), the engine's own time for it (``go`` to
    ``bestmove``) and the clock the next ``go`` gives the same side; None when the clocks do
    not follow (a new period's time, another game: more than :data:`MAX_LATENCY_MS`).

    The referee charged ``clock + inc - next_clock``; the rest beyond the engine's own time
    went to pipes, scheduling and the referee's own delays (0 when the referee's rounding
    makes it negative).
    """
    charged = clock_ms + inc_ms - next_clock_ms
    if charged < 0:
        return None
    sample = charged - own_ms
    if sample > MAX_LATENCY_MS:
        return None
    return max(0.0, sample)


def latency(samples_ms: Sequence[float]) -> float:
    """The latency a move is expected to cost beyond the engine's own time: the mean of the
    last :data:`LATENCY_WINDOW` samples (0 before any): each move pays it, so its mean is
    what drains a clock."""
    recent = list(samples_ms)[-LATENCY_WINDOW:]
    return sum(recent) / len(recent) if recent else 0.0


def start_iteration(times: TimeBudget, elapsed_ms: float) -> bool:
    """Whether to start another iteration ``elapsed_ms`` after the ``go`` arrived.

    Only if the next iteration, predicted to take :data:`NEXT_ITERATION_PERCENT` of the time
    so far, ends by the soft limit. The prediction is on the short side of the measured
    iterations on purpose (matches at 5+0.05 preferred it to a longer one): an iteration that
    runs on still has until the hard limit, where it is aborted. Under ``movetime`` (soft =
    hard) the same rule ends many searches before the limit, leaving the rest of the move time
    to the machine's stalls.
    """
    if times.soft_ms is None:
        return True
    return elapsed_ms * (100 + NEXT_ITERATION_PERCENT) / 100 <= times.soft_ms
