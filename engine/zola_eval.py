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

Compiled by mypyc, ints that wide stay Python objects: the compiled build evaluates in machine
words instead (:func:`evaluate_words`, the same value; see the comment above it).
"""

from __future__ import annotations

import importlib.machinery
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine.engine.zola import GEOMETRY, Geometry, ZolaState

if TYPE_CHECKING:
    # Machine-size ints for the compiled build (mypyc); only in annotations, which the
    # interpreter never evaluates here, so mypy_extensions is not needed at run time.
    from mypy_extensions import i64

# The weights are halfway from the previous ones to a Texel fit on 15,932 positions of 381
# match games at 5+0.05 (`tune records`), the two hanging weights as fitted; accepted by SPRT
# at 5+0.05 (docs/search-experiments.md, "Record of evaluation changes").
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


def evaluate_ints(state: ZolaState) -> int:
    """Material, distance bands, pending captures and steps for the side to move: the
    interpreted build's evaluation, whole boards in one int."""
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


# The same evaluation in machine words, for the compiled build. Compiled by mypyc, an int of
# more than 62 bits stays a Python object and every operation on it a call; the four boards
# of evaluate_ints are 144 to 400 bits. Here each board is two words of half the squares
# (ranks below and above the middle), every operation a machine instruction, and the 8
# directions are walked one by one (measured on a kernel of the capture rays, 10x10: 0.3 us
# compiled against 2.4 us for the one-int form compiled; interpreted it is 4x slower than
# the one-int form, hence two forms of one evaluation, chosen at import, and a test that
# they agree).


#: A direction's shift, step mask (low, high) and per slide length (capture low, capture high,
#: onward low, onward high).
_Direction = tuple[int, int, int, tuple[tuple[int, int, int, int], ...]]


@dataclass(frozen=True)
class _Words:
    """One board size's masks for boards in two words of ``half`` bits each: (low, high)."""

    half: int
    word: int
    #: (low, high, bonus) per distance band.
    bands: tuple[tuple[int, int, int], ...]
    #: Per direction of a positive shift, then per direction of a negative one: the shift
    #: (its size), the squares a step may end on, and per slide length the squares where a
    #: slide may capture and the onward mask, in the coordinates of the slide's front (as
    #: Geometry.axes, for one image and one direction).
    up: tuple[_Direction, ...]
    down: tuple[_Direction, ...]


def _words(g: Geometry) -> _Words:
    half = g.n * g.n // 2
    word = (1 << half) - 1

    def split(mask: int) -> tuple[int, int]:
        return mask & word, mask >> half

    def direction(
        shift: int, step_from: int, slides: tuple[tuple[int, int, int], ...], up: bool
    ) -> _Direction:
        def front(mask: int, by: int) -> tuple[int, int]:
            return split(mask << by if up else mask >> by)

        runs = tuple(
            (*front(capture, k_shift), *front(further, k_shift))
            for k_shift, capture, further in slides
        )
        return (shift, *front(step_from, shift), runs)

    return _Words(
        half=half,
        word=word,
        bands=tuple((*split(mask), bonus) for mask, bonus in _bands(g)),
        up=tuple(
            direction(shift, mask, slides, True)
            for (shift, mask), slides in zip(g.step_up, g.slide_up)
        ),
        down=tuple(
            direction(shift, mask, slides, False)
            for (shift, mask), slides in zip(g.step_down, g.slide_down)
        ),
    )


_WORDS = {n: _words(g) for n, g in GEOMETRY.items()}


def rebuild_tables() -> None:
    """Build both forms' tables again from the weights (the tuner changes BAND_BONUS and
    CHECKER, which the tables carry)."""
    global _TABLES, _WORDS
    _TABLES = {n: _tables(g) for n, g in GEOMETRY.items()}
    _WORDS = {n: _words(g) for n, g in GEOMETRY.items()}


def _popcount(x: i64) -> i64:
    """Set bits of a non-negative word below 2^63. Compiled, ``int.bit_count`` boxes the word
    into a Python int first (measured on a loaded machine: 26-42 ns for two counts this way,
    64-174 ns with ``int(x).bit_count()``)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


def evaluate_words(state: ZolaState) -> int:
    """:func:`evaluate_ints` computed in words: the same value for every position."""
    stm = state.stm
    t = _WORDS[state.g.n]
    half: i64 = t.half
    word: i64 = t.word
    big_word: int = t.word
    own: int = state.doubled[stm]
    opp: int = state.doubled[stm ^ 1]
    # Own and opponent's checkers (o, p), the empty squares (e), low word 0, high word 1.
    o0: i64 = own & big_word
    o1: i64 = (own >> t.half) & big_word
    p0: i64 = opp & big_word
    p1: i64 = (opp >> t.half) & big_word
    e0: i64 = word ^ (o0 | p0)
    e1: i64 = word ^ (o1 | p1)
    score: i64 = (_popcount(o0) + _popcount(o1) - _popcount(p0) - _popcount(p1)) * CHECKER
    for b0, b1, bonus in t.bands:
        score += (
            _popcount(o0 & b0) + _popcount(o1 & b1) - _popcount(p0 & b0) - _popcount(p1 & b1)
        ) * bonus
    steps: i64 = 0
    # Where each side's slides end (h own, q opponent's), whatever stands there.
    h0: i64 = 0
    h1: i64 = 0
    q0: i64 = 0
    q1: i64 = 0
    # The directions of a positive shift, then those of a negative one: the two loops differ
    # only in how the front moves (carries up from the low word, or down from the high one),
    # kept apart so that each is straight-line code without a test per square.
    for shift, s0, s1, runs in t.up:
        by: i64 = shift
        carry: i64 = half - by
        f0: i64 = (o0 << by) & word
        f1: i64 = (o1 << by) | (o0 >> carry)
        g0: i64 = (p0 << by) & word
        g1: i64 = (p1 << by) | (p0 >> carry)
        steps += _popcount(f0 & s0 & e0) + _popcount(f1 & s1 & e1)
        steps -= _popcount(g0 & s0 & e0) + _popcount(g1 & s1 & e1)
        for c0, c1, n0, n1 in runs:
            h0 |= f0 & c0
            h1 |= f1 & c1
            q0 |= g0 & c0
            q1 |= g1 & c1
            f0 = f0 & e0 & n0
            f1 = f1 & e1 & n1
            g0 = g0 & e0 & n0
            g1 = g1 & e1 & n1
            if not (f0 | f1 | g0 | g1):
                break
            f1 = (f1 << by) | (f0 >> carry)
            f0 = (f0 << by) & word
            g1 = (g1 << by) | (g0 >> carry)
            g0 = (g0 << by) & word
    for shift, s0, s1, runs in t.down:
        by = shift
        carry = half - by
        below: i64 = (1 << by) - 1
        f0 = (o0 >> by) | ((o1 & below) << carry)
        f1 = o1 >> by
        g0 = (p0 >> by) | ((p1 & below) << carry)
        g1 = p1 >> by
        steps += _popcount(f0 & s0 & e0) + _popcount(f1 & s1 & e1)
        steps -= _popcount(g0 & s0 & e0) + _popcount(g1 & s1 & e1)
        for c0, c1, n0, n1 in runs:
            h0 |= f0 & c0
            h1 |= f1 & c1
            q0 |= g0 & c0
            q1 |= g1 & c1
            f0 = f0 & e0 & n0
            f1 = f1 & e1 & n1
            g0 = g0 & e0 & n0
            g1 = g1 & e1 & n1
            if not (f0 | f1 | g0 | g1):
                break
            f0 = (f0 >> by) | ((f1 & below) << carry)
            f1 = f1 >> by
            g0 = (g0 >> by) | ((g1 & below) << carry)
            g1 = g1 >> by
    ours0: i64 = h0 & p0
    ours1: i64 = h1 & p1
    theirs0: i64 = q0 & o0
    theirs1: i64 = q1 & o1
    if ours0 | ours1 | theirs0 | theirs1:
        # A checker is hanging where no slide of its own side ends on it (no retake).
        free: i64 = _popcount(ours0 & ~(q0 & p0)) + _popcount(ours1 & ~(q1 & p1))
        if free:
            score += FREE_CAPTURE + free * HANGING
        score -= (_popcount(theirs0 & ~(h0 & o0)) + _popcount(theirs1 & ~(h1 & o1))) * HANGING
    if ours0 | ours1:
        score += TEMPO_CAPTURE
    attacks: i64 = _popcount(ours0) + _popcount(ours1) - _popcount(theirs0) - _popcount(theirs1)
    return int(score + attacks * ATTACK + steps * STEP)


def _compiled() -> bool:
    """Whether this module runs compiled (a mypyc extension, not the .py file)."""
    return (__file__ or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


#: The evaluation the engine uses: the form that is faster in the build that runs.
evaluate = evaluate_words if _compiled() else evaluate_ints
