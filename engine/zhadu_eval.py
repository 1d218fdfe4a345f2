"""Static evaluation of Zhadu positions, in centipawns for the side to move.

A Zhadu game is decided by a single capture: the first capture of the enemy 4, or a capture
that completes the sharing with one's first capture. So the evaluation looks at which enemy
stones would win for each side (``winning_values``) and which of those its stones reach:

* the side to move reaching such a stone has won (it captures next: scored near a win);
* the other side reaching one is a threat the mover must parry; two threats rarely can be;
* stones the enemy reaches at all are exposed (a lost stone also gives the enemy its first
  capture), stones it does not reach are safe;
* more winning targets left on the board means more ways to win; mobility counts a little.

It reads the state's slots (``pos``, ``occ``, ``first``, ``stm``, ``ply``) and the geometry's
memoised destinations directly: the accessors build dicts per call, and the evaluation runs at
every leaf (measured: about 3x faster than through ``stones()``/``destinations()``).
"""

from __future__ import annotations

from engine.zhadu import FULL, SETUP_PLIES, ZhaduState, winning_values, VALUES

#: Capturing a winning stone next move: certain unless the game ends first.
WIN_NEXT = 20_000
#: Per enemy stone whose capture wins for the side not to move and that it reaches.
THREAT = 250
#: Two or more such threats: the mover can parry at most one (unless it captures an attacker).
DOUBLE_THREAT = 1_500
#: Per stone on the board.
STONE = 120
#: Per enemy stone left whose capture would win.
TARGET = 60
#: Per own stone the enemy reaches (exposed).
EXPOSED = 30
#: Per destination of one's stones.
MOBILITY = 3

#: first capture kind (-1 none) -> bitmask of enemy kinds whose capture wins.
_WIN_KINDS = tuple(
    sum(1 << k for k, v in enumerate(VALUES) if v in winning_values(None if f < 0 else VALUES[f]))
    for f in range(-1, 5)
)


def _reach(state: ZhaduState, side: int, occupied: int) -> tuple[int, int]:
    """(union of the points ``side``'s stones reach, total count of their destinations)."""
    g = state.g
    steps, ball, cache = g.steps, g.ball, g.cache
    pos = state.pos
    base = 5 * side
    free = FULL ^ state.occ[side]
    union = 0
    count = 0
    for kind in range(5):
        p = pos[base + kind]
        if p < 0:
            continue
        if kind:
            j = 5 * p + kind
            ck = (occupied & ball[j]) | j << 32
            ends = cache.get(ck)
            if ends is None:
                ends = cache[ck] = g.finals(p, kind, occupied)
        else:
            ends = steps[p]
        ends &= free
        union |= ends
        count += ends.bit_count()
    return union, count


def _kinds_at(state: ZhaduState, side: int, points: int) -> int:
    """Bitmask of the kinds of ``side``'s stones standing on ``points``."""
    pos = state.pos
    base = 5 * side
    mask = 0
    for kind in range(5):
        p = pos[base + kind]
        if p >= 0 and points >> p & 1:
            mask |= 1 << kind
    return mask


def evaluate(state: ZhaduState) -> int:
    """Winning targets, threats, exposure, material and mobility for the side to move."""
    us = state.stm
    them = us ^ 1
    occ = state.occ
    occupied = occ[0] | occ[1]
    our_reach, our_mobility = _reach(state, us, occupied)
    their_reach, their_mobility = _reach(state, them, occupied)
    score = (our_mobility - their_mobility) * MOBILITY
    if state.ply < SETUP_PLIES:
        return score
    our_wins = _WIN_KINDS[state.first[us] + 1]
    their_wins = _WIN_KINDS[state.first[them] + 1]
    pos = state.pos
    our_stones = their_stones = 0
    our_targets = their_targets = 0
    for kind in range(5):
        if pos[5 * us + kind] >= 0:
            our_stones += 1
            if their_wins >> kind & 1:
                their_targets += 1
        if pos[5 * them + kind] >= 0:
            their_stones += 1
            if our_wins >> kind & 1:
                our_targets += 1
    score += (our_stones - their_stones) * STONE + (our_targets - their_targets) * TARGET
    attacked_them = _kinds_at(state, them, our_reach & occ[them])
    if attacked_them & our_wins:
        return WIN_NEXT + score // 10
    attacked_us = _kinds_at(state, us, their_reach & occ[us])
    threats = (attacked_us & their_wins).bit_count()
    if threats >= 2:
        score -= DOUBLE_THREAT
    score -= threats * THREAT
    score -= attacked_us.bit_count() * EXPOSED
    score += attacked_them.bit_count() * EXPOSED
    return score
