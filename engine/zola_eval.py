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
attacks, and more for those it attacks that no enemy checker could retake on (hanging), the
side to move most for taking one now.

Cost matters more than finesse here: the evaluation runs at nearly every node (measured: over
80% of search time with a version that also computed guards and per-checker placement). All
terms are whole-bitboard operations on one int holding four boards: the side to move's
checkers, the same turned a half turn, and the opponent's two (the state keeps each side
doubled, see engine/zola.py). One pass over the 4 axes then follows the capture rays and steps
of both sides in all 8 directions at once; one bit reversal at the end turns the captures found
in the half-turned images back (measured with cachegrind over 1,000 positions of the bench
searches per board: 1.9-2.0x fewer instructions than the earlier pass per direction, with
each side's boards in ints of their own).
"""

from __future__ import annotations

from dataclasses import dataclass

from zengine.engine.zola import GEOMETRY, Geometry, ZolaState

# The weights are halfway from the previous ones to a Texel fit on 15,932 positions of 381
# match games at 5+0.05 (`tune records`), the two hanging weights as fitted; accepted by SPRT
# at 5+0.05 (docs/search.md, "Record of evaluation changes").
CHECKER = 110
#: The side to move can take a checker at once (the opponent may recapture: not a full one).
TEMPO_CAPTURE = 42
#: Per enemy checker a side attacks.
ATTACK = 19
#: Per step a side could make.
STEP = 2
#: Per checker a side attacks that no checker of its own could retake on (hanging).
HANGING = 11
#: The side to move can take a hanging checker at once.
FREE_CAPTURE = 22
#: Bonus per checker in each distance band, from the centre outward (interpolated per size).
BAND_BONUS = (0, 20, 30, 53)

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


#: Byte -> the byte with its bits in reverse order (the last step of reversing a whole int).
_REVERSED_BYTE = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


@dataclass(frozen=True)
class _Tables:
    """One board size's masks for four boards in one int, at bits 0, lane, 2 lane, 3 lane:
    own, own turned, opponent, opponent turned."""

    full: int
    full2: int
    #: Where the opponent's two boards start (2 lanes).
    opponent: int
    #: Squares of every board in the low image of each side, for material and bands.
    material: int
    bands: tuple[tuple[int, int], ...]
    #: The constant that material and band popcounts over ``own | ~opp`` carry (see evaluate).
    offset: int
    #: Geometry.axes with every mask for both sides.
    axes: tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]
    #: Bytes of the four boards, and where a reversed image starts (own's, the opponent's).
    size: int
    own_turned: int
    opp_turned: int


def _tables(g: Geometry) -> _Tables:
    squares = g.n * g.n
    opponent = 2 * g.lane

    def both(mask: int) -> int:
        return mask | mask << opponent

    bands = _bands(g)
    return _Tables(
        full=g.full,
        full2=g.full2,
        opponent=opponent,
        material=both(g.full),
        bands=tuple((both(mask), bonus) for mask, bonus in bands),
        offset=-squares * CHECKER - sum(mask.bit_count() * bonus for mask, bonus in bands),
        axes=tuple(
            (step, both(step_to), tuple((both(c), both(f)) for c, f in runs))
            for step, step_to, runs in g.axes
        ),
        # Reversing all 4 lanes maps bit i to 4 lane - 1 - i: a turned image's square sq lands
        # at 3 lane - squares + sq (own) and at lane - squares + sq (opponent).
        size=4 * g.lane // 8,
        own_turned=3 * g.lane - squares,
        opp_turned=g.lane - squares,
    )


_TABLES = {n: _tables(g) for n, g in GEOMETRY.items()}


def evaluate(state: ZolaState) -> int:
    """Material, distance bands, pending captures and steps for the side to move."""
    stm = state.stm
    own = state.doubled[stm]
    opp = state.doubled[stm ^ 1]
    t = _TABLES[state.g.n]
    quad = t.opponent
    full2 = t.full2
    # Material and bands from one int: popcount(own & m) + popcount(~opp & m) is the
    # difference of the two sides' counts plus the constant popcount(m), folded into offset.
    counted = own | (full2 ^ opp) << quad
    score = (counted & t.material).bit_count() * CHECKER + t.offset
    for mask, bonus in t.bands:
        score += (counted & mask).bit_count() * bonus
    boards = own | opp << quad
    empty = full2 ^ (own | opp)
    empty |= empty << quad
    hit = steps = 0
    for step, step_to, runs in t.axes:
        # The slides' front, a square further per length (see Geometry.axes; measured with
        # callgrind: 5.5% fewer instructions for bench depth 3 of zola-8, 5.8% of zola-10,
        # 4.9% of zola, than shifting the origins still sliding by k squares both ways).
        front = boards << step
        stepped = front & step_to & empty
        steps += stepped.bit_count() - 2 * (stepped >> quad).bit_count()
        for capture_at, onward in runs:
            # Where the slides of length k end; those ending on an enemy checker capture it,
            # so one mask with the enemies after the loop keeps exactly the captures
            # (measured: 5-8% fewer instructions than masking each length).
            hit |= front & capture_at
            front = (front & empty & onward) << step
            if not front:
                break
    # Slides ending on a checker of one's own: the checkers one could retake on. Turned back
    # only where some checker is attacked (measured: 4.3 to 5.1 us an evaluation on 6x6, 4.5
    # to 5.3 on 8x8; the term won at 5+0.05 with that cost paid).
    guard = hit & (own | opp << quad)
    hit &= opp | own << quad
    size = t.size
    turned = int.from_bytes(hit.to_bytes(size, "little").translate(_REVERSED_BYTE), "big")
    full = t.full
    own_turned, opp_turned = t.own_turned, t.opp_turned
    ours = (hit | turned >> own_turned) & full
    theirs = (hit >> quad | turned >> opp_turned) & full
    if ours or theirs:
        turned = int.from_bytes(guard.to_bytes(size, "little").translate(_REVERSED_BYTE), "big")
        our_guard = (guard | turned >> own_turned) & full
        their_guard = (guard >> quad | turned >> opp_turned) & full
        free = ours & ~their_guard
        if free:
            score += FREE_CAPTURE + free.bit_count() * HANGING
        score -= (theirs & ~our_guard).bit_count() * HANGING
    if ours:
        score += TEMPO_CAPTURE
    score += (ours.bit_count() - theirs.bit_count()) * ATTACK
    return score + steps * STEP
