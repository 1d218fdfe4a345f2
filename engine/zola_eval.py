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
from typing import TYPE_CHECKING, Final, cast

from zengine.engine.bits import popcount
from zengine.engine.zola import GEOMETRY, WORDS, Geometry, ZolaPosition, ZolaState
from zengine.engine.zola_words import WordBoard

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


#: The weights the tuner fits (``zengine.tools.dev.tune``): constants of this module, or
#: (name, index) for an entry of a tuple.
TUNED_WEIGHTS: tuple[tuple[str, int | None], ...] = (
    ("CHECKER", None),
    ("BAND_BONUS", 1),
    ("BAND_BONUS", 2),
    ("BAND_BONUS", 3),
    ("TEMPO_CAPTURE", None),
    ("ATTACK", None),
    ("STEP", None),
    ("HANGING", None),
    ("FREE_CAPTURE", None),
)


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


class _Band:
    """A distance band's squares (low, high) and bonus, then the next band."""

    def __init__(self, b0: i64, b1: i64, bonus: i64, following: _Band | None) -> None:
        self.b0 = b0
        self.b1 = b1
        self.bonus = bonus
        self.following = following


class _Words:
    """One board size's tables for boards in two words of ``half`` bits each (low, high), the
    weights with them. The directions are the rules' (``zola_words.Words.rays``); the fields
    are machine words to compiled code, where module constants, tuples and lists of ints are
    looked up or unboxed at each use (measured with perf over the Zola bench: those lookups
    and unboxings took more time than the evaluation's own instructions)."""

    def __init__(self, g: Geometry) -> None:
        half = g.n * g.n // 2
        word = (1 << half) - 1
        self.half: i64 = half
        self.word: i64 = word
        #: Both halves fit one word side by side (below 2^62, as ``popcount`` wants): one
        #: popcount for both.
        self.merge = half <= 30
        self.rays = WORDS[g.n].rays
        bands: _Band | None = None
        for mask, bonus in reversed(_bands(g)):
            bands = _Band(mask & word, mask >> half, bonus, bands)
        self.bands = bands
        self.checker: i64 = CHECKER
        self.tempo_capture: i64 = TEMPO_CAPTURE
        self.attack: i64 = ATTACK
        self.step: i64 = STEP
        self.hanging: i64 = HANGING
        self.free_capture: i64 = FREE_CAPTURE


#: Per board size (the index), its tables; rebuilt in place (the name is Final: compiled, a
#: module name that is not is looked up in the module's dict at each use).
_WORDS: Final[list[_Words | None]] = [None] * (max(GEOMETRY) + 1)
for _n, _g in GEOMETRY.items():
    _WORDS[_n] = _Words(_g)


def rebuild_tables() -> None:
    """Build both forms' tables again from the weights (the tuner changes them; the int form's
    tables carry BAND_BONUS and CHECKER, the word form's every weight)."""
    global _TABLES
    _TABLES = {n: _tables(g) for n, g in GEOMETRY.items()}
    for n, g in GEOMETRY.items():
        _WORDS[n] = _Words(g)


def _count(x0: i64, x1: i64, merge: bool) -> i64:
    """Set bits of a board in two words (in one popcount where the halves fit one word)."""
    if merge:
        return popcount(x0 | x1 << 32)
    return popcount(x0) + popcount(x1)


def evaluate_words(state: ZolaPosition) -> int:
    """:func:`evaluate_ints` computed in words: the same value for every position, of either
    form of the state (the compiled build's holds its words already)."""
    if isinstance(state, WordBoard):
        # Read through a variable of the narrowed type: compiled, the fields of a union-typed
        # one are read by CPython's generic attribute lookup.
        board: WordBoard = state
        stm = board.stm
        t = _WORDS[board.t.n]
        if stm:
            o0: i64 = board.blue0
            o1: i64 = board.blue1
            p0: i64 = board.red0
            p1: i64 = board.red1
        else:
            o0 = board.red0
            o1 = board.red1
            p0 = board.blue0
            p1 = board.blue1
    else:
        stm = state.stm
        t = _WORDS[state.g.n]
        assert t is not None
        # Python ints until split (a doubled board is wider than a word)
        big_word: int = t.word
        big_half: int = t.half
        own: int = cast(ZolaState, state).doubled[stm]
        opp: int = cast(ZolaState, state).doubled[stm ^ 1]
        o0 = own & big_word
        o1 = (own >> big_half) & big_word
        p0 = opp & big_word
        p1 = (opp >> big_half) & big_word
    assert t is not None
    word = t.word
    merge = t.merge
    # Own and opponent's checkers (o, p), the empty squares (e), low word 0, high word 1.
    e0: i64 = word ^ (o0 | p0)
    e1: i64 = word ^ (o1 | p1)
    score: i64 = (_count(o0, o1, merge) - _count(p0, p1, merge)) * t.checker
    band = t.bands
    while band is not None:
        b0 = band.b0
        b1 = band.b1
        score += (_count(o0 & b0, o1 & b1, merge) - _count(p0 & b0, p1 & b1, merge)) * band.bonus
        band = band.following
    steps: i64 = 0
    # Where each side's slides end (h own, q opponent's), whatever stands there.
    h0: i64 = 0
    h1: i64 = 0
    q0: i64 = 0
    q1: i64 = 0
    ray = t.rays
    while ray is not None:
        by = ray.by
        carry = ray.carry
        below = ray.below
        up = ray.up
        # The front moves a square a length: carries up from the low word, or down from the
        # high one.
        if up:
            f0: i64 = (o0 << by) & word
            f1: i64 = (o1 << by) | (o0 >> carry)
            g0: i64 = (p0 << by) & word
            g1: i64 = (p1 << by) | (p0 >> carry)
        else:
            f0 = (o0 >> by) | ((o1 & below) << carry)
            f1 = o1 >> by
            g0 = (p0 >> by) | ((p1 & below) << carry)
            g1 = p1 >> by
        s0 = ray.s0
        s1 = ray.s1
        steps += _count(f0 & s0 & e0, f1 & s1 & e1, merge)
        steps -= _count(g0 & s0 & e0, g1 & s1 & e1, merge)
        run = ray.runs
        while run is not None:
            c0 = run.c0
            c1 = run.c1
            h0 |= f0 & c0
            h1 |= f1 & c1
            q0 |= g0 & c0
            q1 |= g1 & c1
            n0 = e0 & run.n0
            n1 = e1 & run.n1
            f0 &= n0
            f1 &= n1
            g0 &= n0
            g1 &= n1
            if not (f0 | f1 | g0 | g1):
                break
            if up:
                f1 = (f1 << by) | (f0 >> carry)
                f0 = (f0 << by) & word
                g1 = (g1 << by) | (g0 >> carry)
                g0 = (g0 << by) & word
            else:
                f0 = (f0 >> by) | ((f1 & below) << carry)
                f1 = f1 >> by
                g0 = (g0 >> by) | ((g1 & below) << carry)
                g1 = g1 >> by
            run = run.following
        ray = ray.following
    ours0: i64 = h0 & p0
    ours1: i64 = h1 & p1
    theirs0: i64 = q0 & o0
    theirs1: i64 = q1 & o1
    hanging = t.hanging
    if ours0 | ours1 | theirs0 | theirs1:
        # A checker is hanging where no slide of its own side ends on it (no retake).
        free: i64 = _count(ours0 & ~(q0 & p0), ours1 & ~(q1 & p1), merge)
        if free:
            score += t.free_capture + free * hanging
        score -= _count(theirs0 & ~(h0 & o0), theirs1 & ~(h1 & o1), merge) * hanging
    if ours0 | ours1:
        score += t.tempo_capture
    attacks: i64 = _count(ours0, ours1, merge) - _count(theirs0, theirs1, merge)
    return int(score + attacks * t.attack + steps * t.step)


def _compiled() -> bool:
    """Whether this module runs compiled (a mypyc extension, not the .py file)."""
    return (__file__ or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


#: The evaluation the engine uses: the form that is faster in the build that runs.
evaluate = evaluate_words if _compiled() else evaluate_ints
