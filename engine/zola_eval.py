"""Static evaluation of Zola positions, in centipawns for the side to move.

Zola is won by capturing every enemy checker, so material leads. The rest follows from the
distance rules: a capture may not move a checker outward, so a checker can only be taken by an
enemy at least as far from the centre; checkers far out are both safe and strong (they capture
inward along open lines), checkers near the centre are targets. Steps only go outward, so a
checker near the edge has few steps left, and a side whose steps run out must capture or pass.

Almost every move captures in the opening, so the quiescence search is kept to one ply
(:data:`QUIESCENCE_DEPTH`, handed to the search by ``ZolaRules.search_parameters``) and this
evaluation scores the pending captures itself: the side to move
gains for having a capture now (a tempo in the exchange), each side for the enemy checkers it
attacks.

Cost matters more than finesse here: the evaluation runs at nearly every node (measured: over
80% of search time with a version that also computed guards and per-checker placement). All
terms are whole-bitboard operations: popcounts of ring masks, one pass over the capture rays for
both sides together, one shift per step direction.
"""

from __future__ import annotations

from zengine.engine.zola import GEOMETRY, Geometry, ZolaState

CHECKER = 100
#: The side to move can take a checker at once (the opponent may recapture: not a full one).
TEMPO_CAPTURE = 40
#: Per enemy checker a side attacks.
ATTACK = 8
#: Per step a side could make.
STEP = 2
#: Bonus per checker in each distance band, from the centre outward (interpolated per size).
BAND_BONUS = (0, 6, 14, 24)

#: Quiescence plies the search should use with this evaluation (see the module docstring):
#: a capture tree of width ~36 explodes (measured on the 6x6 start: 7 million nodes for depth 1
#: with 8 plies).
QUIESCENCE_DEPTH = 1


def _bands(g: Geometry) -> tuple[tuple[int, int], ...]:
    """(mask, bonus) per distance band: the squares of each quarter of the distance ranks."""
    ranks = sorted(set(g.d2))
    out = []
    for band, bonus in enumerate(BAND_BONUS):
        mask = 0
        for sq, d in enumerate(g.d2):
            if ranks.index(d) * len(BAND_BONUS) // len(ranks) == band:
                mask |= 1 << sq
        if bonus and mask:
            out.append((mask, bonus))
    return tuple(out)


_BANDS = {n: _bands(g) for n, g in GEOMETRY.items()}


def capture_targets(g: Geometry, own: int, opp: int) -> tuple[int, int]:
    """(enemy checkers ``own`` can capture now, own checkers ``opp`` can capture now)."""
    empty = g.full & ~(own | opp)
    ours = theirs = 0
    for slides in g.slide_up:
        a, b = own, opp
        for shift, may_capture, further in slides:
            ours |= ((a & may_capture) << shift) & opp
            theirs |= ((b & may_capture) << shift) & own
            run = (empty >> shift) & further
            a &= run
            b &= run
            if not (a or b):
                break
    for slides in g.slide_down:
        a, b = own, opp
        for shift, may_capture, further in slides:
            ours |= ((a & may_capture) >> shift) & opp
            theirs |= ((b & may_capture) >> shift) & own
            run = (empty << shift) & further
            a &= run
            b &= run
            if not (a or b):
                break
    return ours, theirs


def evaluate(state: ZolaState) -> int:
    """Material, pending captures, distance structure and steps for the side to move."""
    stm = state.stm
    own = state.boards[stm]
    opp = state.boards[stm ^ 1]
    g = state.g
    score = (own.bit_count() - opp.bit_count()) * CHECKER
    for mask, bonus in _BANDS[g.n]:
        score += ((own & mask).bit_count() - (opp & mask).bit_count()) * bonus
    ours, theirs = capture_targets(g, own, opp)
    if ours:
        score += TEMPO_CAPTURE
    score += (ours.bit_count() - theirs.bit_count()) * ATTACK
    empty = g.full & ~(own | opp)
    steps = 0
    for shift, mask in g.step_up:
        steps += (((own & mask) << shift) & empty).bit_count()
        steps -= (((opp & mask) << shift) & empty).bit_count()
    for shift, mask in g.step_down:
        steps += (((own & mask) >> shift) & empty).bit_count()
        steps -= (((opp & mask) >> shift) & empty).bit_count()
    return score + steps * STEP
