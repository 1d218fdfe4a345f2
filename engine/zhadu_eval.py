"""Static evaluation of Zhadu positions, in centipawns for the side to move.

A Zhadu game is decided by a single capture: the first capture of the enemy 4, or a capture
that completes the sharing with one's first capture. So the evaluation looks at which enemy
stones would win for each side (``winning_values``) and which of those its stones reach:

* the side to move reaching such a stone has won (it captures next: scored near a win);
* the other side reaching one is a threat the mover must parry; two threats rarely can be;
* more winning targets left on the board means more ways to win; mobility counts a little;
* the other side reaching a stone of the mover whose capture would not win for it is contact,
  and contact favours the mover, who acts first (fitted to game results, which put the mover's
  own reach on enemy stones at nothing beyond mobility: the quiescence plays those captures).

It reads the state's slots (``pos``, ``occ``, ``first``, ``stm``, ``ply``) and the geometry's
memoised destinations directly: the accessors build dicts per call, and the evaluation runs at
every leaf (measured: about 3x faster than through ``stones()``/``destinations()``).
"""

from __future__ import annotations

from typing import Final

from zengine.engine.bits import popcount
from zengine.engine.zhadu_core import FULL, SETUP_PLIES, WALK_MEMO, WIN_KINDS, ZhaduCore

#: Capturing a winning stone next move: certain unless the game ends first.
WIN_NEXT = 20_000
# The weights below are halfway from the previous ones to a Texel fit on 85,615 positions of
# 2,267 match games at 5+0.05 (`tune records`); accepted by SPRT at 5+0.05, +38.2 +/- 26.4
# Elo over 254 games (docs/search-experiments.md, "Record of evaluation changes").
#: Per enemy stone whose capture wins for the side not to move and that it reaches.
THREAT = 82
#: Two or more such threats: the mover can parry at most one (unless it captures an attacker).
DOUBLE_THREAT = 306
#: Per stone on the board.
STONE = 104
#: Per enemy stone left whose capture would win.
TARGET = 175
#: Per destination of one's stones.
MOBILITY = 4
#: Per stone of the side to move that the other side reaches and whose capture would not win
#: for it: a Texel fit on 16,806 positions of 1,200 depth-4 self-play games, accepted by SPRT
#: at 5+0.05 (docs/search-experiments.md, "Record of evaluation changes").
CONTACT = 20


#: The weights the tuner fits (``zengine.tools.dev.tune``): constants of this module.
TUNED_WEIGHTS: tuple[tuple[str, int | None], ...] = (
    ("THREAT", None),
    ("DOUBLE_THREAT", None),
    ("STONE", None),
    ("TARGET", None),
    ("MOBILITY", None),
    ("CONTACT", None),
)


class Weights:
    """The weights above as fields of one object, read from the module's constants by
    :meth:`load`. Compiled, the evaluation reads fields natively, where each module constant
    that is not ``Final`` (the tuner changes them) is a dict lookup at every use."""

    win_next: int
    threat: int
    double_threat: int
    stone: int
    target: int
    mobility: int
    contact: int

    def __init__(self) -> None:
        self.load()

    def load(self) -> None:
        """Read the module's constants again (after the tuner changed them)."""
        self.win_next = WIN_NEXT
        self.threat = THREAT
        self.double_threat = DOUBLE_THREAT
        self.stone = STONE
        self.target = TARGET
        self.mobility = MOBILITY
        self.contact = CONTACT


WEIGHTS: Final = Weights()


def refresh() -> None:
    """Make the evaluation use the module's constants as they are now (the tuner's hook)."""
    WEIGHTS.load()


def evaluate(state: ZhaduCore) -> int:
    """Winning targets, threats, material and mobility for the side to move."""
    us = state.stm
    occ = state.occ
    own_bits = occ[us]
    their_bits = occ[us ^ 1]
    occupied = own_bits | their_bits
    g = state.g
    steps, ball, cache, high = g.steps, g.ball, g.cache, g.high
    pos = state.pos
    # One pass over both sides' stones (measured: the evaluation is ~40% of Zhadu search time,
    # and separate passes per side and per term cost a third more). The memo lookup of
    # Geometry.destinations is inlined for both sides: calling the method instead measured
    # 6-15% slower over 1,584 random movement positions. The 1 (kind 0) steps, it needs no memo.
    base_us = 5 * us
    base_them = 5 - base_us
    free_us = FULL ^ own_bits
    free_them = FULL ^ their_bits
    our_reach = their_reach = 0
    mobility = 0
    p = pos[base_us]
    if p >= 0:
        our_reach = steps[p] & free_us
        mobility = popcount(our_reach)
    p = pos[base_them]
    if p >= 0:
        their_reach = steps[p] & free_them
        mobility -= popcount(their_reach)
    for kind in (1, 2, 3, 4):
        p = pos[base_us + kind]
        if p >= 0:
            if WALK_MEMO:
                j = 5 * p + kind
                ck = (occupied & ball[j]) | high[j]
                found = cache.get(ck)
                ends = g.remember(ck, p, kind, occupied) if found is None else found
            else:
                ends = g.finals(p, kind, occupied)
            ends &= free_us
            our_reach |= ends
            mobility += popcount(ends)
        p = pos[base_them + kind]
        if p >= 0:
            if WALK_MEMO:
                j = 5 * p + kind
                ck = (occupied & ball[j]) | high[j]
                found = cache.get(ck)
                ends = g.remember(ck, p, kind, occupied) if found is None else found
            else:
                ends = g.finals(p, kind, occupied)
            ends &= free_them
            their_reach |= ends
            mobility -= popcount(ends)
    w = WEIGHTS
    score = mobility * w.mobility
    if state.ply < SETUP_PLIES:
        return score
    # The stones whose capture would win, by point: the other terms are popcounts of reach
    # and stones (each stone is one point), with no pass testing each stone (measured with
    # cachegrind: with the 1 outside the loop, 24-28% fewer instructions per evaluation).
    our_targets = their_targets = 0
    for kind in WIN_KINDS[state.first[us] + 1]:
        p = pos[base_them + kind]
        if p >= 0:
            our_targets |= 1 << p
    for kind in WIN_KINDS[state.first[us ^ 1] + 1]:
        p = pos[base_us + kind]
        if p >= 0:
            their_targets |= 1 << p
    score += (popcount(own_bits) - popcount(their_bits)) * w.stone
    score += (popcount(our_targets) - popcount(their_targets)) * w.target
    if our_reach & our_targets:
        return w.win_next + score // 10
    threats = popcount(their_reach & their_targets)
    # Their targets are stones of ours: the reached stones that are not threats are contact.
    score += (popcount(their_reach & own_bits) - threats) * w.contact
    if threats >= 2:
        score -= w.double_threat
    return score - threats * w.threat
