"""Zola's rules core in machine words: the compiled build's form of the rules (engine/zola.py).

Compiled by mypyc, an int of more than 62 bits stays a Python object and every operation on it
a call into CPython; the interpreted build's boards (both images of a board in one int, 72 to
200 bits) are such ints. Here each side's checkers are two words of half the squares each
(ranks below and above the middle: 18, 32 or 50 bits, the form of
``zola_eval.evaluate_words``), every rule a few machine instructions per direction, and the
key is a word (``game.KEY_BITS`` wide). Interpreted, this form is slower than the big ints, so
:mod:`engine.zola` picks the form at import (:data:`COMPILED`); both give the same moves in
the same order, counts and keys (tests/test_zola.py holds them to the naive oracle).

:class:`WordBoard` is the state's core; ``zola.ZolaWordState`` adds the game interface
(:class:`~zengine.engine.game.State`) and the text. An interpreted class may subclass it
(``allow_interpreted_subclasses``), which only mypyc reads.
"""

from __future__ import annotations

import importlib.machinery
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, cast

from zengine.engine.bits import popcount
from zengine.engine.game import Rules
from zengine.engine.values import Outcome, Result

if TYPE_CHECKING:
    # Machine-size ints for mypyc; only in annotations, never evaluated at run time.
    from mypy_extensions import i64
try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the decorator speaks only to mypyc; compiled code never calls it

    def mypyc_attr(*args: object, **kwargs: object) -> Callable[[type], type]:  # type: ignore[misc]
        """Stands in for mypy_extensions' decorator where it is not installed."""
        return lambda cls: cls


RED_WINS = Outcome(Result.P1_WIN, "every Blue checker captured")
BLUE_WINS = Outcome(Result.P2_WIN, "every Red checker captured")

# Final: compiled, a module-level name that is not is looked up in the module's dict at every
# use (measured: a quarter of perft's time).
CAPTURE: Final = 1 << 14
PASS: Final = 1 << 15
_SQ: Final = 0x7F

#: Every move int, boxed once: a move list appends these instead of boxing a new int per move
#: (an int above 256 is a fresh object each time it leaves a machine word).
_BOXED: Final[list[object]] = list(range(PASS + 1))

#: Entries per direction in :attr:`Words.dirs` before its runs, and per run.
_HEAD: Final = 4
_RUN: Final = 4


class Run:
    """One slide length of a direction: the squares where the slide's front may capture and the
    onward mask (low, high), in the coordinates of the front; then the next length."""

    def __init__(self, c0: i64, c1: i64, n0: i64, n1: i64, following: Run | None) -> None:
        self.c0 = c0
        self.c1 = c1
        self.n0 = n0
        self.n1 = n1
        self.following = following


class Ray:
    """One direction: its shift, whether it moves up the board, the squares a step may end on
    (low, high), its slide lengths, then the next direction."""

    def __init__(
        self,
        by: i64,
        up: bool,
        half: i64,
        s0: i64,
        s1: i64,
        runs: Run | None,
        following: Ray | None,
    ) -> None:
        self.by = by
        self.up = up
        self.carry: i64 = half - by
        self.below: i64 = (1 << int(by)) - 1
        self.s0 = s0
        self.s1 = s1
        self.runs = runs
        self.following = following


class Words:
    """One board size's tables for boards in two words of ``half`` bits (low, high).

    ``dirs`` holds the 8 directions flat, those of a positive shift first (``up`` of them),
    in the order of ``zola.DIRECTIONS``: per direction its shift (a size), the squares a step
    may end on (low, high), the number of slide lengths, then per length the squares where a
    slide's front may capture and the onward mask (low, high each), as
    ``zola_eval.evaluate_words`` reads them. They are kept as a chain of :class:`Ray` and
    :class:`Run` objects, whose fields compiled code reads as machine words (measured: read
    from a list, each word's unboxing took a sixth of perft's time).
    """

    def __init__(self, n: int, dirs: list[int], up: int, zobrist: list[int], side_key: int) -> None:
        self.n: i64 = n
        self.half: i64 = n * n // 2
        self.word: i64 = (1 << (n * n // 2)) - 1
        #: Both halves fit one word side by side (``x0 | x1 << 32`` below 2^62, as
        #: :func:`popcount` wants: 6x6): one popcount for both.
        self.merge = n * n // 2 <= 30
        rays: list[tuple[int, int, int, list[int]]] = []
        at = 0
        while at < len(dirs):
            runs = dirs[at + 3]
            rays.append((dirs[at], dirs[at + 1], dirs[at + 2], dirs[at + 4 : at + 4 + 4 * runs]))
            at += 4 + 4 * runs
        chain: Ray | None = None
        for d in range(len(rays) - 1, -1, -1):
            by, s0, s1, masks = rays[d]
            first: Run | None = None
            for r in range(len(masks) - 4, -1, -4):
                first = Run(masks[r], masks[r + 1], masks[r + 2], masks[r + 3], first)
            chain = Ray(by, d < up, self.half, s0, s1, first, chain)
        self.rays = chain
        #: Per side and square the key's term, as signed words: side * n * n + square.
        self.zobrist: list[i64] = list(zobrist)
        self.side_key: i64 = side_key
        #: 1 << i for i below 63: mypyc computes ``1 << i`` in a C int, which overflows from
        #: i = 31 (found on 8x8), even with the 1 in a word-typed variable (folded back to 1).
        self.bit: list[i64] = [1 << i for i in range(63)]


def _moves(
    t: Words, o0: i64, o1: i64, p0: i64, p1: i64, captures: bool, steps: bool
) -> list[object]:
    """The captures, then the steps, of ``o`` against ``p`` in the order of the interpreted
    generator (``zola.generate_moves``): per direction, per slide length, by square."""
    moves: list[object] = []
    half = t.half
    word = t.word
    e0: i64 = word ^ (o0 | p0)
    e1: i64 = word ^ (o1 | p1)
    if captures:
        ray = t.rays
        while ray is not None:
            by = ray.by
            carry = ray.carry
            below = ray.below
            up = ray.up
            if up:
                f0: i64 = (o0 << by) & word
                f1: i64 = (o1 << by) | (o0 >> carry)
                sign: i64 = -by
            else:
                f0 = (o0 >> by) | ((o1 & below) << carry)
                f1 = o1 >> by
                sign = by
            back: i64 = sign
            run = ray.runs
            while run is not None:
                t0: i64 = f0 & run.c0 & p0
                t1: i64 = f1 & run.c1 & p1
                while t0:
                    bit: i64 = t0 & -t0
                    t0 ^= bit
                    to: i64 = popcount(bit - 1)
                    moves.append(_BOXED[(to + back) | to << 7 | CAPTURE])
                while t1:
                    bit = t1 & -t1
                    t1 ^= bit
                    to = half + popcount(bit - 1)
                    moves.append(_BOXED[(to + back) | to << 7 | CAPTURE])
                f0 &= e0 & run.n0
                f1 &= e1 & run.n1
                if not (f0 | f1):
                    break
                if up:
                    f1 = (f1 << by) | (f0 >> carry)
                    f0 = (f0 << by) & word
                else:
                    f0 = (f0 >> by) | ((f1 & below) << carry)
                    f1 = f1 >> by
                back += sign
                run = run.following
            ray = ray.following
    if steps:
        ray = t.rays
        while ray is not None:
            by = ray.by
            carry = ray.carry
            if ray.up:
                t0 = ((o0 << by) & word) & ray.s0 & e0
                t1 = ((o1 << by) | (o0 >> carry)) & ray.s1 & e1
                back = -by
            else:
                t0 = ((o0 >> by) | ((o1 & ray.below) << carry)) & ray.s0 & e0
                t1 = (o1 >> by) & ray.s1 & e1
                back = by
            while t0:
                bit = t0 & -t0
                t0 ^= bit
                to = popcount(bit - 1)
                moves.append(_BOXED[(to + back) | to << 7])
            while t1:
                bit = t1 & -t1
                t1 ^= bit
                to = half + popcount(bit - 1)
                moves.append(_BOXED[(to + back) | to << 7])
            ray = ray.following
    return moves


def count_moves(t: Words, o0: i64, o1: i64, p0: i64, p1: i64) -> i64:
    """How many steps and captures ``o`` has against ``p`` (pass not counted)."""
    word = t.word
    merge = t.merge
    e0: i64 = word ^ (o0 | p0)
    e1: i64 = word ^ (o1 | p1)
    total: i64 = 0
    ray = t.rays
    while ray is not None:
        by = ray.by
        carry = ray.carry
        below = ray.below
        up = ray.up
        if up:
            f0: i64 = (o0 << by) & word
            f1: i64 = (o1 << by) | (o0 >> carry)
        else:
            f0 = (o0 >> by) | ((o1 & below) << carry)
            f1 = o1 >> by
        # The steps' ends and, below, the slides' ends (one end per slide: the front stops at
        # the first checker), those on an enemy checker the captures: apart, so one count.
        x0: i64 = f0 & ray.s0 & e0
        x1: i64 = f1 & ray.s1 & e1
        h0: i64 = 0
        h1: i64 = 0
        run = ray.runs
        while run is not None:
            h0 |= f0 & run.c0
            h1 |= f1 & run.c1
            f0 &= e0 & run.n0
            f1 &= e1 & run.n1
            if not (f0 | f1):
                break
            if up:
                f1 = (f1 << by) | (f0 >> carry)
                f0 = (f0 << by) & word
            else:
                f0 = (f0 >> by) | ((f1 & below) << carry)
                f1 = f1 >> by
            run = run.following
        x0 |= h0 & p0
        x1 |= h1 & p1
        if merge:
            total += popcount(x0 | x1 << 32)
        else:
            total += popcount(x0) + popcount(x1)
        ray = ray.following
    return total


def count_replies(t: Words, o0: i64, o1: i64, p0: i64, p1: i64) -> i64:
    """The sum over the moves of ``o`` of the opponent's move count after each (perft 2 in
    bulk): each move applied to the words in place of a list, a play and an undo."""
    if not (o0 | o1) or not (p0 | p1):
        return 0
    moves = _moves(t, o0, o1, p0, p1, True, True)
    if not moves:
        # a pass: the opponent moves from the same boards
        return count_moves(t, p0, p1, o0, o1) or 1
    half = t.half
    total: i64 = 0
    bits = t.bit
    for boxed in moves:
        move: i64 = cast(int, boxed)
        fr: i64 = move & _SQ
        to: i64 = (move >> 7) & _SQ
        a0 = o0
        a1 = o1
        b0 = p0
        b1 = p1
        if fr < half:
            a0 ^= bits[fr]
        else:
            a1 ^= bits[fr - half]
        if to < half:
            a0 ^= bits[to]
            if move & CAPTURE:
                b0 ^= bits[to]
        else:
            a1 ^= bits[to - half]
            if move & CAPTURE:
                b1 ^= bits[to - half]
        if b0 | b1:
            total += count_moves(t, b0, b1, a0, a1) or 1
    return total


@mypyc_attr(allow_interpreted_subclasses=True)
class WordBoard:
    """A Zola position in words with make/unmake: the hot half of ``zola.ZolaWordState``."""

    def __init__(self, rules: Rules, words: Words, red: int, blue: int, stm: int) -> None:
        self.rules = rules
        self.t = words
        # Python ints until split: a plain 8x8 or 10x10 board does not fit a machine word.
        half: int = words.half
        mask: int = (1 << half) - 1
        self.red0: i64 = red & mask
        self.red1: i64 = red >> half
        self.blue0: i64 = blue & mask
        self.blue1: i64 = blue >> half
        self.stm: int = stm
        self.stack: list[object] = []
        # The key (game.KEY_BITS wide) is a word, and an int when read, without a new object.
        key: i64 = rules.key_salt
        if stm:
            key ^= words.side_key
        n2: int = words.n * words.n
        for sq in range(n2):
            if red >> sq & 1:
                key ^= words.zobrist[sq]
            elif blue >> sq & 1:
                key ^= words.zobrist[n2 + sq]
        self.k: i64 = key

    @property
    def key(self) -> int:
        """The position's key, as the interpreted form gives it."""
        return self.k

    @property
    def boards(self) -> list[int]:
        """Red's and Blue's checkers as plain bitboards (bit ``sq``), in a new list."""
        # Python ints: the whole board of 8x8 or 10x10 does not fit a machine word.
        half: int = self.t.half
        red0: int = self.red0
        red1: int = self.red1
        blue0: int = self.blue0
        blue1: int = self.blue1
        return [red0 | red1 << half, blue0 | blue1 << half]

    def legal_moves(self) -> list[int]:
        """Every legal move: captures, then steps, or a pass; none once the game is over."""
        if self.stm:
            o0, o1, p0, p1 = self.blue0, self.blue1, self.red0, self.red1
        else:
            o0, o1, p0, p1 = self.red0, self.red1, self.blue0, self.blue1
        if not (o0 | o1) or not (p0 | p1):
            return []
        moves = _moves(self.t, o0, o1, p0, p1, True, True)
        if not moves:
            moves.append(_BOXED[PASS])
        return cast("list[int]", moves)

    def captures(self) -> list[int]:
        """The captures (for quiescence and a search that tries them first)."""
        if self.stm:
            o0, o1, p0, p1 = self.blue0, self.blue1, self.red0, self.red1
        else:
            o0, o1, p0, p1 = self.red0, self.red1, self.blue0, self.blue1
        if not (o0 | o1) or not (p0 | p1):
            return []
        return cast("list[int]", _moves(self.t, o0, o1, p0, p1, True, False))

    def quiet_moves(self) -> list[int]:
        """The steps, or the pass when there is no move at all."""
        if self.stm:
            o0, o1, p0, p1 = self.blue0, self.blue1, self.red0, self.red1
        else:
            o0, o1, p0, p1 = self.red0, self.red1, self.blue0, self.blue1
        if not (o0 | o1) or not (p0 | p1):
            return []
        t = self.t
        moves = _moves(t, o0, o1, p0, p1, False, True)
        if moves or _moves(t, o0, o1, p0, p1, True, False):
            return cast("list[int]", moves)
        moves.append(_BOXED[PASS])
        return cast("list[int]", moves)

    def count_moves(self) -> int:
        """``len(self.legal_moves())`` without the list: perft's bulk count."""
        if self.stm:
            o0, o1, p0, p1 = self.blue0, self.blue1, self.red0, self.red1
        else:
            o0, o1, p0, p1 = self.red0, self.red1, self.blue0, self.blue1
        if not (o0 | o1) or not (p0 | p1):
            return 0
        return count_moves(self.t, o0, o1, p0, p1) or 1

    def count_replies(self) -> int:
        """Perft 2 from here, counted in words without playing a move."""
        if self.stm:
            return count_replies(self.t, self.blue0, self.blue1, self.red0, self.red1)
        return count_replies(self.t, self.red0, self.red1, self.blue0, self.blue1)

    def is_capture(self, move: int) -> bool:
        """Whether the move captures."""
        return bool(move & CAPTURE)

    def capture_value(self, move: int) -> int:
        """1 for a capture, 0 otherwise: every checker is worth the same."""
        return move >> 14 & 1

    def play(self, move: int) -> None:
        """Make a legal move: its squares' bits and key terms XORed in."""
        stm: i64 = self.stm
        t = self.t
        self.stack.append(_BOXED[move])
        self.stm = stm ^ 1
        _flip(self, t, stm, move)

    def undo(self) -> None:
        """Unmake the last move (the same XORs again)."""
        move: i64 = cast(int, self.stack.pop())
        stm: i64 = self.stm ^ 1
        self.stm = stm
        _flip(self, self.t, stm, move)

    def outcome(self) -> Outcome | None:
        """Red wins once Blue has no checker, and the other way round; else None."""
        if not (self.blue0 | self.blue1):
            return RED_WINS
        if not (self.red0 | self.red1):
            return BLUE_WINS
        return None


def _flip(b: WordBoard, t: Words, stm: i64, move: i64) -> None:
    """XOR ``move`` of ``stm`` into the boards of ``b`` and its key (play and undo alike;
    a function, not a method, so that the call is direct whatever class ``b`` is)."""
    key: i64 = b.k ^ t.side_key
    if move == PASS:
        b.k = key
        return
    half = t.half
    bits = t.bit
    fr: i64 = move & _SQ
    to: i64 = (move >> 7) & _SQ
    n2: i64 = t.n * t.n
    zobrist = t.zobrist
    own: i64 = stm * n2
    key ^= zobrist[own + fr] ^ zobrist[own + to]
    w0: i64 = 0
    w1: i64 = 0
    if fr < half:
        w0 = bits[fr]
    else:
        w1 = bits[fr - half]
    c0: i64 = 0
    c1: i64 = 0
    if to < half:
        c0 = bits[to]
    else:
        c1 = bits[to - half]
    w0 |= c0
    w1 |= c1
    if stm:
        b.blue0 ^= w0
        b.blue1 ^= w1
        if move & CAPTURE:
            b.red0 ^= c0
            b.red1 ^= c1
            key ^= zobrist[to]
    else:
        b.red0 ^= w0
        b.red1 ^= w1
        if move & CAPTURE:
            b.blue0 ^= c0
            b.blue1 ^= c1
            key ^= zobrist[n2 + to]
    b.k = key


def _compiled() -> bool:
    """Whether this module runs compiled (a mypyc extension, not the .py file)."""
    return (__file__ or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


#: Whether the word form is the fast one in this build (zola.py picks the state class by it).
COMPILED = _compiled()
