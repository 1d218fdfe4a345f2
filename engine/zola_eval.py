"""Static evaluation of Zola positions, in centipawns for the side to move.

Zola is won by capturing every enemy checker, so material leads. The rest follows from the
distance rules: a capture may not move a checker outward, so a checker can only be taken by an
enemy at least as far from the centre; checkers far out are both safe and strong (they capture
inward along open lines), checkers near the centre are targets. Steps only go outward, so a
checker's distance also bounds how many steps it has left.

Almost every move captures in the opening, so the quiescence search is kept to one ply
(``quiescence_depth``) and this evaluation scores the pending captures itself: the side to move
gains for having a capture now (a tempo in the exchange), and a side pays for its checkers
that the enemy can capture and that no own checker guards.
"""

from __future__ import annotations

from engine.zola import GEOMETRY, Geometry, ZolaState, count_moves

CHECKER = 100
MOBILITY = 3
#: The side to move can take a checker at once (the opponent may recapture: not a full one).
TEMPO_CAPTURE = 45
#: Per own checker that the enemy attacks and no own checker covers.
HANGING = 25

#: quiescence plies the search should use with this evaluation (see the module docstring).
QUIESCENCE_DEPTH = 1


def _ring_tables(g: Geometry) -> list[int]:
    """Per square: a bonus for being far from the centre (0 at the centre ring, up to ~12)."""
    ranks = sorted(set(g.d2))
    top = len(ranks) - 1
    return [ranks.index(d) * 12 // max(1, top) for d in g.d2]


_RING = {n: _ring_tables(g) for n, g in GEOMETRY.items()}


def capture_targets(g: Geometry, own: int, opp: int) -> int:
    """The bitboard of ``opp`` checkers that some ``own`` checker can capture now."""
    empty = g.full & ~(own | opp)
    targets = 0
    for slides in g.slide_up:
        sliding = own
        for shift, may_capture, further in slides:
            targets |= ((sliding & may_capture) << shift) & opp
            sliding &= (empty >> shift) & further
            if not sliding:
                break
    for slides in g.slide_down:
        sliding = own
        for shift, may_capture, further in slides:
            targets |= ((sliding & may_capture) >> shift) & opp
            sliding &= (empty << shift) & further
            if not sliding:
                break
    return targets


def _placement(ring: list[int], bits: int) -> int:
    total = 0
    while bits:
        low = bits & -bits
        total += ring[low.bit_length() - 1]
        bits ^= low
    return total


def evaluate(state: ZolaState) -> int:
    """Material, pending captures, distance structure and mobility for the side to move."""
    stm = state.stm
    own = state.boards[stm]
    opp = state.boards[stm ^ 1]
    g = state.g
    score = (own.bit_count() - opp.bit_count()) * CHECKER
    ours = capture_targets(g, own, opp)
    theirs = capture_targets(g, opp, own)
    if ours:
        score += TEMPO_CAPTURE
    # A checker is covered when an own checker could take back on its square: the own pieces
    # that "capture" it if it were an enemy one.
    own_covered = capture_targets(g, own ^ theirs, theirs) if theirs else 0
    opp_covered = capture_targets(g, opp ^ ours, ours) if ours else 0
    score -= (theirs & ~own_covered).bit_count() * HANGING
    score += (ours & ~opp_covered).bit_count() * HANGING
    ring = _RING[g.n]
    score += _placement(ring, own) - _placement(ring, opp)
    score += (count_moves(g, own, opp) - count_moves(g, opp, own)) * MOBILITY
    return score


evaluate.quiescence_depth = QUIESCENCE_DEPTH  # type: ignore[attr-defined]
