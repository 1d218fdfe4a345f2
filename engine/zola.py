"""Zola (Mark Steere, 2021) on 6x6, 8x8 and 10x10: the rules in docs/zola.md.

Board: square ``sq = rank * n + file`` (0-based), bit ``sq`` of an int per colour.
Moves inside the engine are ints: ``from | to << 7 | CAPTURE`` and :data:`PASS`.

Distances use the exact integer ``d2 = (2f-(n-1))^2 + (2r-(n-1))^2``; every rule that
compares distances is folded into masks precomputed per board size at import
(:class:`Geometry`):

* a step in a direction is outward from exactly the squares of its mask in ``step_up`` /
  ``step_down``;
* along a ray ``d2`` falls then rises, so the capture targets that keep or reduce the distance
  form a prefix of the ray: per direction, ``slide_up`` / ``slide_down`` hold for each slide
  length ``k`` the squares from which a slide of ``k`` squares may capture.

Move generation therefore works on whole bitboards, one shift per direction and slide length,
independent of how many checkers there are (measured: about 3x faster than per-checker rays
on the 6x6 start position).

A state keeps each side's checkers *doubled* (:attr:`ZolaState.doubled`): the board as it is in
the low bits and turned a half turn (square ``sq`` -> ``n*n - 1 - sq``) from bit
``Geometry.lane``. The half turn maps each direction with a negative shift onto the opposite one,
so one left shift by ``s`` moves both images along an axis at once: counting the moves
(:func:`count_moves`) and the evaluation's capture rays walk 4 axes instead of 8 directions
(measured: move counting 1.55x faster on positions from the bench searches). Keeping the
second image costs nothing in ``play``/``undo``: a move XORs one precomputed int per square
(``Geometry.twin``) where it shifted a bit before.
"""

from __future__ import annotations

import random
import re
from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, cast

from zengine.engine.game import (
    BadRuleValueError,
    EvaluationTuning,
    IllegalMoveError,
    InvalidMoveError,
    OpeningSettings,
    PositionError,
    Rule,
    Rules,
    SearchParameters,
    State,
    fold_case,
    key_number,
)
from zengine.engine.svg import document, element, group, label, number
from zengine.engine.text import shown
from zengine.engine.values import Outcome, Result
from zengine.engine.zola_words import (
    BLUE_WINS,
    CAPTURE,
    COMPILED,
    PASS,
    RED_WINS,
    WordBoard,
    Words,
)

if TYPE_CHECKING:  # the tables are loaded only by those who use them
    from zengine.engine.endgame import TableCodec

_SQ = 0x7F

SIZES = (6, 8, 10)
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
COLOUR_LETTERS = "rb"


@dataclass(frozen=True)
class Geometry:
    """Precomputed tables for one board size."""

    n: int
    full: int
    d2: tuple[int, ...]
    # (shift, mask) for steps: positive shifts use <<, negative ones store -shift and use >>.
    step_up: tuple[tuple[int, int], ...]
    step_down: tuple[tuple[int, int], ...]
    # per direction: tuple of (k * shift, may-capture-from mask, may-slide-further mask)
    slide_up: tuple[tuple[tuple[int, int, int], ...], ...]
    slide_down: tuple[tuple[tuple[int, int, int], ...], ...]
    start: tuple[int, int]
    zobrist: tuple[tuple[int, ...], tuple[int, ...]]
    side_key: int
    # per square: (file, rank), for checking single moves (State.is_legal_move)
    coords: tuple[tuple[int, int], ...]
    # The doubled boards (see the module docstring): where the half-turned image starts, both
    # images of the whole board, and per square its bit in each image.
    lane: int
    full2: int
    twin: tuple[int, ...]
    # per axis (a direction with a positive shift and its opposite, half-turned): the shift,
    # the squares a step may end on, and per slide length k the squares where a slide of k
    # may capture and the onward mask, all doubled and all in the coordinates of the k-th
    # square of the slide: the checkers shifted k times (the slide's front) capture on
    # ``front & capture_at`` and go on from ``front & empty & onward``. The onward mask is
    # slide_up's may-slide-further mask shifted to the k-th square; masked by it, no front
    # leaves its image.
    axes: tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]
    # per side: move -> (XOR for the mover's doubled board, XOR for the opponent's, XOR for the
    # key), filled by :meth:`change` as moves are first played (at most 1,965 per side, on
    # 10x10: every step and capture the board allows, and the pass).
    changes: tuple[dict[int, tuple[int, int, int]], ...] = field(compare=False)

    def change(self, side: int, move: int) -> tuple[int, int, int]:
        """What playing ``move`` with ``side`` XORs into the doubled boards and the key,
        remembered in :attr:`changes`."""
        own = opp = 0
        key = self.side_key
        if move != PASS:
            fr, to = move & _SQ, (move >> 7) & _SQ
            own = self.twin[fr] ^ self.twin[to]
            key ^= self.zobrist[side][fr] ^ self.zobrist[side][to]
            if move & CAPTURE:
                opp = self.twin[to]
                key ^= self.zobrist[side ^ 1][to]
        found = self.changes[side][move] = (own, opp, key)
        return found

    def double(self, board: int) -> int:
        """A plain bitboard doubled: both images of the same checkers."""
        twin = self.twin
        doubled = 0
        while board:
            low = board & -board
            doubled |= twin[low.bit_length() - 1]
            board ^= low
        return doubled


def _build(n: int) -> Geometry:
    def d2(f: int, r: int) -> int:
        return (2 * f - (n - 1)) ** 2 + (2 * r - (n - 1)) ** 2

    dist = tuple(d2(sq % n, sq // n) for sq in range(n * n))
    step_up, step_down, slide_up, slide_down = [], [], [], []
    for df, dr in DIRECTIONS:
        shift = dr * n + df
        step_mask = 0
        slides = []
        # capture_from[k]: squares from which a slide of k squares may capture.
        capture_from = {k: 0 for k in range(1, n)}
        has = {k: 0 for k in range(1, n + 1)}
        for sq in range(n * n):
            f, r = sq % n, sq // n
            for k in range(1, n):
                tf, tr = f + k * df, r + k * dr
                if not (0 <= tf < n and 0 <= tr < n):
                    break
                has[k] |= 1 << sq
                if k == 1 and d2(tf, tr) > d2(f, r):
                    step_mask |= 1 << sq
                if d2(tf, tr) <= d2(f, r):
                    capture_from[k] |= 1 << sq
        for k in range(1, n):
            # A slide goes on past k only if k+1 exists and some capture lies further out.
            further = 0
            for k2 in range(k + 1, n):
                further |= capture_from[k2]
            slides.append((k * abs(shift), capture_from[k], has.get(k + 1, 0) & further))
        while slides and slides[-1][1] == 0 and slides[-1][2] == 0:
            slides.pop()
        if shift > 0:
            step_up.append((shift, step_mask))
            slide_up.append(tuple(slides))
        else:
            step_down.append((-shift, step_mask))
            slide_down.append(tuple(slides))
    red = blue = 0
    for sq in range(n * n):
        if (sq % n + sq // n) % 2 == 0:
            red |= 1 << sq
        else:
            blue |= 1 << sq
    rng = random.Random(0x5A01A000 + n)
    zobrist = tuple(tuple(key_number(rng) for _ in range(n * n)) for _ in range(2))
    squares = n * n
    # The images are adjacent: every shift of a doubled board is masked first to the squares
    # whose target lies on the board, so no bit crosses into the other image (measured:
    # adjacent images instead of a board's width apart, 12% fewer instructions in the
    # evaluation on 10x10, whose ints shrink from 27 to 14 digits).
    lane = squares

    def doubled(up: int, down: int) -> int:
        # ``up`` as it is, ``down`` turned a half turn (bit sq -> squares - 1 - sq) above it
        return up | int(f"{down:0{squares}b}"[::-1], 2) << lane

    opposite = {shift: (mask, runs) for (shift, mask), runs in zip(step_down, slide_down)}
    axes = []
    for (shift, mask), runs in zip(step_up, slide_up):
        down_mask, down_runs = opposite[shift]
        assert len(down_runs) == len(runs), "the board is symmetric under the half turn"
        doubled_runs = tuple(
            (doubled(capture, d_capture) << k_shift, doubled(further, d_further) << k_shift)
            for (k_shift, capture, further), (_, d_capture, d_further) in zip(runs, down_runs)
        )
        axes.append((shift, doubled(mask, down_mask) << shift, doubled_runs))
    return Geometry(
        n=n,
        full=(1 << (n * n)) - 1,
        d2=dist,
        step_up=tuple(step_up),
        step_down=tuple(step_down),
        slide_up=tuple(slide_up),
        slide_down=tuple(slide_down),
        start=(red, blue),
        zobrist=zobrist,  # type: ignore[arg-type]
        side_key=key_number(rng),
        coords=tuple((sq % n, sq // n) for sq in range(n * n)),
        lane=lane,
        full2=doubled((1 << squares) - 1, (1 << squares) - 1),
        twin=tuple(doubled(1 << sq, 1 << sq) for sq in range(squares)),
        axes=tuple(axes),
        changes=({}, {}),
    )


GEOMETRY: dict[int, Geometry] = {n: _build(n) for n in SIZES}


def word_directions(
    g: Geometry,
) -> tuple[list[tuple[int, int, int, list[int]]], list[tuple[int, int, int, list[int]]]]:
    """The directions for boards in two words of half the squares (below and above the middle
    rank), those of a positive shift first, then the others, each in the order of
    :data:`DIRECTIONS`: (shift size, step-to mask low, high, [per slide length: capture-at low,
    high, onward low, high]), every mask in the coordinates of the slide's front, as
    Geometry.axes for one image and one direction."""
    half = g.n * g.n // 2
    word = (1 << half) - 1

    def direction(
        shift: int, step_from: int, slides: tuple[tuple[int, int, int], ...], up: bool
    ) -> tuple[int, int, int, list[int]]:
        def front(mask: int, by: int) -> list[int]:
            moved = mask << by if up else mask >> by
            return [moved & word, moved >> half]

        runs = [
            value
            for k_shift, capture, further in slides
            for value in front(capture, k_shift) + front(further, k_shift)
        ]
        low, high = front(step_from, shift)
        return (shift, low, high, runs)

    up = [direction(s, m, sl, True) for (s, m), sl in zip(g.step_up, g.slide_up)]
    down = [direction(s, m, sl, False) for (s, m), sl in zip(g.step_down, g.slide_down)]
    return up, down


def _words(g: Geometry) -> Words:
    up, down = word_directions(g)
    flat = [
        value
        for shift, low, high, runs in up + down
        for value in [shift, low, high, len(runs) // 4, *runs]
    ]
    zobrist = [*g.zobrist[0], *g.zobrist[1]]
    return Words(g.n, flat, len(up), zobrist, g.side_key)


#: The tables of the rules in machine words (engine/zola_words.py), per board size.
WORDS: dict[int, Words] = {n: _words(g) for n, g in GEOMETRY.items()}


def count_moves(g: Geometry, own: int, opp: int) -> int:
    """How many steps and captures ``own`` has against ``opp`` (pass not counted); both sides'
    checkers doubled (:attr:`ZolaState.doubled`), so each axis counts both its directions."""
    empty = g.full2 ^ (own | opp)
    count = 0
    # Each slide's front moves a square per length, one shift of the whole board: one
    # operation fewer per length than shifting the origins still sliding by k squares both
    # ways (measured with callgrind, interpreter start excluded: 8.0% fewer instructions for
    # perft 4 of zola, 8.9% for perft 3 of zola-10).
    for step, step_to, slides in g.axes:
        front = own << step
        count += (front & step_to & empty).bit_count()
        ends = 0
        for capture_at, onward in slides:
            ends |= front & capture_at
            front = (front & empty & onward) << step
            if not front:
                break
        # Where the slides end: those on an enemy checker are the captures, one per slide, as a
        # checker nearer along the same line would have stopped the farther one (measured:
        # one count per axis instead of one per length, 5-9% fewer instructions).
        count += (ends & opp).bit_count()
    return count


def generate_moves(g: Geometry, own: int, opp: int, captures_only: bool = False) -> list[int]:
    """Move ints for ``own`` against ``opp``: captures first, then steps (no pass); only the
    captures with ``captures_only`` (the steps alone are :func:`_steps`)."""
    empty = g.full & ~(own | opp)
    moves: list[int] = []
    append = moves.append
    # A move from ``to - shift`` to ``to`` is ``(to - shift) | to << 7 | flag``, which is
    # ``to * 129 - shift + flag``: with ``bit_length() = to + 1`` and the constant folded per
    # slide, 3 operations per move instead of 6 (measured: 10-16% fewer instructions for the
    # captures of bench positions).
    for slides in g.slide_up:
        sliding = own
        for shift, may_capture, further in slides:
            targets = ((sliding & may_capture) << shift) & opp
            if targets:
                base = _CAPTURE_BASE - shift
                while targets:
                    bit = targets & -targets
                    targets ^= bit
                    append(bit.bit_length() * 129 + base)
            sliding &= (empty >> shift) & further
            if not sliding:
                break
    for slides in g.slide_down:
        sliding = own
        for shift, may_capture, further in slides:
            targets = ((sliding & may_capture) >> shift) & opp
            if targets:
                base = _CAPTURE_BASE + shift
                while targets:
                    bit = targets & -targets
                    targets ^= bit
                    append(bit.bit_length() * 129 + base)
            sliding &= (empty << shift) & further
            if not sliding:
                break
    if captures_only:
        return moves
    return _steps(g, own, empty, moves)


def _steps(g: Geometry, own: int, empty: int, moves: list[int]) -> list[int]:
    """``moves`` with the steps of ``own`` onto ``empty`` appended (see generate_moves)."""
    append = moves.append
    for shift, mask in g.step_up:
        targets = ((own & mask) << shift) & empty
        base = -129 - shift
        while targets:
            bit = targets & -targets
            targets ^= bit
            append(bit.bit_length() * 129 + base)
    for shift, mask in g.step_down:
        targets = ((own & mask) >> shift) & empty
        base = -129 + shift
        while targets:
            bit = targets & -targets
            targets ^= bit
            append(bit.bit_length() * 129 + base)
    return moves


#: See generate_moves: the move of a capture onto ``to`` less ``129 * (to + 1)``.
_CAPTURE_BASE = CAPTURE - 129


_MOVE_RE = re.compile(r"([a-z])([0-9]{1,2})([-x]?)([a-z])([0-9]{1,2})")
#: A rank of a position string, token by token: a run of ASCII digits or any one character.
_RANK_TOKEN = re.compile(r"[0-9]+|.", re.DOTALL)


class ZolaRules(Rules):
    """Zola on an n x n board."""

    game = "zola"
    player_names = ("Red", "Blue")
    VARIANTS: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "zola": {},
        "zola-8": {"size": "8"},
        "zola-10": {"size": "10"},
    }
    RULES = (Rule("size", "6", tuple(str(n) for n in SIZES)),)
    #: The start, then mid-game positions from seeded random playouts, fixed here as text.
    #: Openings: the larger boards have 64-100 moves a ply, where a depth-2 search of one takes
    #: ~0.3 s, so they are judged at depth 1 (0.03-0.06 s).
    OPENING_SETTINGS: ClassVar[Mapping[str, OpeningSettings]] = {
        "zola": OpeningSettings(moves=4, depth=3, window=40),
        "zola-8": OpeningSettings(moves=4, depth=1, window=50),
        "zola-10": OpeningSettings(moves=4, depth=1, window=50),
    }
    BENCH_POSITIONS: ClassVar[Mapping[str, tuple[str | None, ...]]] = {
        "zola": (
            None,
            "1bbb1r/rbrbb1/br1rb1/rbbbrr/brrrr1/rb2rb r",
            "2rbb1/1b2rr/r1r1bb/4b1/5r/r1b1rb r",
            "1rbrr1/4bb/bbrrbb/rbb1r1/4bb/1rr1r1 r",
        ),
        "zola-8": (
            None,
            "br2r1br/rbrbrbrb/brbrbrbr/rrrbrbb1/b1brbrbr/rbrbbrrb/br1b2br/rbrbrbrb r",
            "b1rrbrb1/rbrrbr2/br1b1br1/r1b1bb2/b2b1rr1/brrbrb1r/r1rrb1br/1brbbrrb r",
        ),
        "zola-10": (
            None,
            "brbrbrbrbr/rb1brbr1rb/brrr2bb2/2rbrr1br1/1b1rr1brb1/rbbb1rrb1r/b1rrr1brbr/r1bbrbrbbb/b1rrbrb2r/rbrbrbrbrb r",
            "br1bbrbrr1/rbrbrbrbrb/brbrbrbrbr/rbrbrbb1rb/brbrbbbrbr/rbrbr1rbrb/bbbrbrbrbr/r1rrrbrbrb/brr1brbrbr/rb2rbrbrb r",
        ),
    }

    def __init__(self, size: int = 6) -> None:
        if size not in SIZES:
            raise BadRuleValueError(f"bad value '{size}' for rule 'size' (6, 8 or 10)")
        self.size = size
        self.geometry = GEOMETRY[size]
        self.words = WORDS[size]
        self.options = {"size": str(size)}
        self.name = "zola" if size == 6 else f"zola-{size}"

    def __reduce__(self) -> tuple[type[ZolaRules], tuple[int]]:
        """Pickled as its size: its tables, compiled, do not pickle (and are shared)."""
        return (ZolaRules, (self.size,))

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> ZolaRules:
        """Rules from ``setup`` options; only ``size`` (6, 8, 10) exists."""
        return cls(int(cls.rule_values(options)["size"]))

    def evaluation(self) -> Callable[[State], int]:
        from zengine.engine.zola_eval import evaluate

        return cast(Callable[[State], int], evaluate)

    def tuning(self) -> EvaluationTuning:
        from zengine.engine import zola_eval

        return EvaluationTuning(zola_eval, zola_eval.TUNED_WEIGHTS, zola_eval.rebuild_tables)

    def table_codec(self) -> TableCodec:
        """Exact endgame tables (engine/zola_tables.py)."""
        from zengine.engine.zola_tables import ZolaTableCodec

        return ZolaTableCodec(self)

    def search_parameters(self) -> SearchParameters:
        """A one-ply quiescence: the evaluation scores pending captures itself (see
        engine/zola_eval.py); every checker is worth the same, so every capture is; the
        captures are tried before the steps are generated (:meth:`ZolaState.quiet_moves`); the
        compiled evaluation is cheaper than a lookup of the leaves' evaluations."""
        from zengine.engine.zola_eval import QUIESCENCE_DEPTH

        return SearchParameters(
            quiescence_depth=QUIESCENCE_DEPTH,
            equal_captures=True,
            captures_first=True,
            cache_leaf_evaluations=not COMPILED,
        )

    def start(self) -> ZolaPosition:
        red, blue = self.geometry.start
        return STATE_CLASS(self, red, blue, 0)

    def parse_position(self, text: str) -> ZolaPosition:
        """Parse ``<ranks> <side>`` (letters in either case); raises :class:`PositionError`
        with the reason."""
        fields = fold_case(text).split()
        if len(fields) != 2:
            raise PositionError(
                f"a zola position string has 2 fields (board and side), got {len(fields)}"
            )
        board, side = fields
        if side not in ("r", "b"):
            raise PositionError(f"side to move must be 'r' or 'b', got '{shown(side)}'")
        ranks = board.split("/")
        n = len(ranks)
        if n % 2 or n not in SIZES:
            raise PositionError(f"unsupported board size {n} (ranks given: {n}; sizes 6, 8, 10)")
        if n != self.size:
            raise PositionError(
                f"position is for a {n}x{n} board, this game is {self.size}x{self.size}"
            )
        boards = [0, 0]
        for i, rank_text in enumerate(ranks):
            rank = n - 1 - i
            file = 0
            for token in _RANK_TOKEN.findall(rank_text):
                if token[0] in "0123456789":
                    # the length first: a run of 5,000 digits is no count to convert
                    if token[0] == "0" or len(token) > 2 or not 1 <= int(token) <= n:
                        raise PositionError(
                            f"bad empty-square count '{shown(token, 10)}' in rank {rank + 1}"
                        )
                    file += int(token)
                elif token in COLOUR_LETTERS:
                    if file < n:
                        boards[COLOUR_LETTERS.index(token)] |= 1 << (rank * n + file)
                    file += 1
                else:
                    raise PositionError(f"unknown character '{shown(token)}' in rank {rank + 1}")
                if file > n:
                    break
            if file != n:
                raise PositionError(f"rank {rank + 1} has {file} squares, expected {n}")
        red, blue = boards
        limit = n * n // 2
        for colour, bits in (("Red", red), ("Blue", blue)):
            if bits.bit_count() > limit:
                raise PositionError(f"{colour} has {bits.bit_count()} checkers, at most {limit}")
        if not red and not blue:
            raise PositionError("the board is empty")
        return STATE_CLASS(self, red, blue, 0 if side == "r" else 1)


class ZolaPosition(State):
    """What both forms of a Zola state share: the text, the pictures and the clock's estimate,
    all read from :attr:`boards` (``ZolaState``, big ints, is the interpreted build's form;
    ``ZolaWordState``, machine words, the compiled build's: ``STATE_CLASS``)."""

    __slots__ = ()

    g: Geometry

    @property
    @abstractmethod
    def boards(self) -> list[int]:
        """Red's and Blue's checkers as plain bitboards (bit ``sq``), in a new list."""

    def expected_moves_left(self) -> int | None:
        """On 6x6, from the checkers on the board, ``c``: min(c, c // 2 + 6) moves of the side
        to move are left in the game on average, and the last 7 take no time (measured over
        60 games of self-play at 5+0.05: the searches prove the result by then), so
        min(c - 7, c // 2 - 1), at least 1. None on 8x8 and 10x10: their games at 5+0.05
        already spend the clock planned for 16 moves (docs/search-experiments.md)."""
        if self.g.n != 6:
            return None
        red, blue = self.boards
        c = (red | blue).bit_count()
        return max(1, min(c - 7, c // 2 - 1))

    def checkers(self, side: int) -> int:
        """The bitboard of one side's checkers (0 = Red, 1 = Blue)."""
        return self.boards[side]

    # --- text --------------------------------------------------------------------------------
    def square_name(self, sq: int) -> str:
        """``a1``-style name of a square index."""
        n = self.g.n
        return f"{chr(97 + sq % n)}{sq // n + 1}"

    def move_text(self, move: int) -> str:
        if move == PASS:
            return "pass"
        sep = "x" if move & CAPTURE else "-"
        return f"{self.square_name(move & _SQ)}{sep}{self.square_name((move >> 7) & _SQ)}"

    def parse_move(self, text: str) -> int:
        cleaned = fold_case(text.strip())
        if cleaned == "pass":
            moves = self.legal_moves()
            if moves == [PASS]:
                return PASS
            if not moves:
                raise IllegalMoveError("illegal move 'pass': the game is over")
            raise IllegalMoveError("illegal move 'pass': a pass is legal only with no other move")
        fr, to = self._squares(text, cleaned)
        if self.outcome() is not None:
            raise IllegalMoveError(f"illegal move '{shown(text)}': the game is over")
        for move in self.legal_moves():
            if move != PASS and move & _SQ == fr and (move >> 7) & _SQ == to:
                return move
        raise IllegalMoveError(f"illegal move '{shown(text)}' in this position")

    def _squares(self, text: str, cleaned: str) -> tuple[int, int]:
        """The two squares of a step or capture text (``cleaned``: stripped, lower case);
        raises :class:`InvalidMoveError` for text that is none on this board."""
        match = _MOVE_RE.fullmatch(cleaned)
        if not match:
            raise InvalidMoveError(
                f"'{shown(text)}' is no zola move (expected e.g. c3-b2, a1xa2 or pass)"
            )
        n = self.g.n
        squares = []
        for file_letter, rank_text in ((match[1], match[2]), (match[4], match[5])):
            file, rank = ord(file_letter) - 97, int(rank_text)
            if file >= n or not 1 <= rank <= n or rank_text.startswith("0"):
                raise InvalidMoveError(
                    f"'{shown(text)}': no square {file_letter}{rank_text} on a {n}x{n} board"
                )
            squares.append((rank - 1) * n + file)
        return squares[0], squares[1]

    def position_text(self) -> str:
        n = self.g.n
        red, blue = self.boards
        ranks = []
        for rank in range(n - 1, -1, -1):
            out, run = [], 0
            for file in range(n):
                bit = 1 << (rank * n + file)
                letter = "r" if red & bit else "b" if blue & bit else ""
                if letter:
                    if run:
                        out.append(str(run))
                        run = 0
                    out.append(letter)
                else:
                    run += 1
            if run:
                out.append(str(run))
            ranks.append("".join(out))
        return f"{'/'.join(ranks)} {COLOUR_LETTERS[self.stm]}"

    def diagram(self) -> str:
        n = self.g.n
        red, blue = self.boards
        lines = ["    +" + "-" * (2 * n + 1) + "+"]
        for rank in range(n - 1, -1, -1):
            cells = []
            for file in range(n):
                bit = 1 << (rank * n + file)
                cells.append("r" if red & bit else "b" if blue & bit else ".")
            lines.append(f" {rank + 1:>2} | {' '.join(cells)} |")
        lines.append("    +" + "-" * (2 * n + 1) + "+")
        lines.append("      " + " ".join(chr(97 + f) for f in range(n)))
        counts = f"Red (r) {red.bit_count()} checkers, Blue (b) {blue.bit_count()} checkers"
        lines.append(counts)
        return "\n".join(lines)

    # --- pictures (``zengine svg``) ----------------------------------------------------------
    # Everything below draws the position; it reads the state and never changes it.

    def svg(self, size: int = 480, last_move: int | None = None) -> str:
        """The board as SVG: squares with their coordinates, the checkers
        (``class="checker red" data-square="c4"``) and the last move's squares and path
        (``class="last-move from|to"``)."""
        n = self.g.n
        cell = _BOARD / n
        left, top = _MARGIN, _PAD

        def corner(sq: int) -> tuple[float, float]:
            return left + (sq % n) * cell, top + (n - 1 - sq // n) * cell

        def centre(sq: int) -> tuple[float, float]:
            x, y = corner(sq)
            return x + cell / 2, y + cell / 2

        squares, coordinates, marks, checkers = [], [], [], []
        for sq in range(n * n):
            x, y = corner(sq)
            dark = (sq % n + sq // n) % 2 == 0
            squares.append(
                element(
                    "rect",
                    class_="square",
                    data_square=self.square_name(sq),
                    x=x,
                    y=y,
                    width=cell,
                    height=cell,
                    fill=_DARK if dark else _LIGHT,
                )
            )
        for i in range(n):
            coordinates.append(
                label(left + (i + 0.5) * cell, top + _BOARD + _MARGIN / 2, chr(97 + i), 15)
            )
            coordinates.append(
                label(left - _MARGIN / 2, top + (n - 0.5 - i) * cell, str(i + 1), 15)
            )
        for side, colour in enumerate(_COLOURS):
            bits = self.boards[side]
            fill, edge = _CHECKER_FILL[side], _CHECKER_EDGE[side]
            while bits:
                low = bits & -bits
                sq = low.bit_length() - 1
                bits ^= low
                x, y = centre(sq)
                checkers.append(
                    element(
                        "circle",
                        class_=f"checker {colour}",
                        data_square=self.square_name(sq),
                        cx=x,
                        cy=y,
                        r=cell * 0.4,
                        fill=fill,
                        stroke=edge,
                        stroke_width=cell * 0.04,
                    )
                )
                checkers.append(
                    element(
                        "circle",
                        cx=x,
                        cy=y,
                        r=cell * 0.27,
                        fill="none",
                        stroke=edge,
                        stroke_width=cell * 0.025,
                        stroke_opacity=0.5,
                    )
                )
        arrow: list[str] = []
        if last_move is not None and last_move != PASS:
            fr, to = last_move & _SQ, (last_move >> 7) & _SQ
            for role, sq in (("from", fr), ("to", to)):
                x, y = corner(sq)
                marks.append(
                    element(
                        "rect",
                        class_=f"last-move {role}",
                        data_square=self.square_name(sq),
                        x=x,
                        y=y,
                        width=cell,
                        height=cell,
                        fill=_HIGHLIGHT,
                        fill_opacity=0.75,
                    )
                )
            arrow.append(
                _arrow(centre(fr), centre(to), cell, self.square_name(fr), self.square_name(to))
            )
        board_edge = element(
            "rect",
            x=left,
            y=top,
            width=_BOARD,
            height=_BOARD,
            fill="none",
            stroke=_EDGE,
            stroke_width=2.0,
        )
        names = self.rules.player_names
        outcome = self.outcome()
        status = f"{names[self.stm]} to move" if outcome is None else _outcome_text(outcome, names)
        counts = ", ".join(f"{names[side]} {self.boards[side].bit_count()}" for side in (0, 1))
        caption_y = top + _BOARD + _MARGIN + _CAPTION / 2
        caption = [label(left, caption_y, f"{status} · {counts}", 16, text_anchor="start")]
        if last_move is not None:
            caption.append(
                label(
                    left + _BOARD,
                    caption_y,
                    f"Last move: {self.move_text(last_move)}",
                    16,
                    text_anchor="end",
                )
            )
        width = _MARGIN + _BOARD + _PAD
        height = top + _BOARD + _MARGIN + _CAPTION
        body = [
            element("rect", width=float(width), height=float(height), fill=_BACKGROUND),
            group(squares, class_="board"),
            group(marks, class_="highlights"),
            board_edge,
            group(coordinates, class_="coordinates", fill=_INK),
            group(checkers, class_="checkers"),
            group(arrow, class_="last-move-path"),
            group(caption, class_="caption", fill=_INK),
        ]
        title = f"{self.rules.name}: {self.position_text()}"
        return document(width, height, size, title, body, f"Zola {n}x{n}, {status}")

    def parse_last_move(self, text: str) -> int:
        """The step or capture (or pass) a text names as the move that led here, checked
        against this position alone: the position before it is rebuilt and the move must be
        legal there."""
        cleaned = fold_case(text.strip())
        mover = self.stm ^ 1
        own, opp = self.boards[mover], self.boards[self.stm]
        colour = self.rules.player_names[mover]
        if cleaned == "pass":
            if own and opp and not generate_moves(self.g, own, opp):
                return PASS
            raise IllegalMoveError(f"'{shown(text)}' cannot be the last move: {colour} had a move")
        fr, to = self._squares(text, cleaned)
        if not own >> to & 1:
            raise IllegalMoveError(
                f"'{shown(text)}' cannot be the last move: no {colour} checker on {self.square_name(to)}"
            )
        if (own | opp) >> fr & 1:
            raise IllegalMoveError(
                f"'{shown(text)}' cannot be the last move: {self.square_name(fr)} is not empty"
            )
        # The separator is not trusted (input accepts either): a step goes strictly outward and
        # a capture does not, so at most one of the two rebuilt positions makes the move legal.
        before_own = own ^ (1 << to) ^ (1 << fr)
        for move, before_opp in ((fr | to << 7 | CAPTURE, opp | 1 << to), (fr | to << 7, opp)):
            if before_opp and move in generate_moves(self.g, before_own, before_opp):
                return move
        raise IllegalMoveError(
            f"'{shown(text)}' cannot be the last move: it is no legal move in the position before"
        )


class ZolaState(ZolaPosition):
    """A Zola position with make/unmake and an incremental Zobrist key.

    ``doubled[side]`` holds a side's checkers doubled (the module docstring says how);
    :attr:`boards` gives them as plain bitboards.
    """

    __slots__ = ("_key", "doubled", "g", "rules", "stack", "stm")

    def __init__(self, rules: ZolaRules, red: int, blue: int, stm: int) -> None:
        self.rules = rules
        g = self.g = rules.geometry
        self.doubled = [g.double(red), g.double(blue)]
        self.stm = stm
        self.stack: list[int] = []
        z0, z1 = g.zobrist
        key = rules.key_salt ^ (g.side_key if stm else 0)
        for sq in range(g.n * g.n):
            if red >> sq & 1:
                key ^= z0[sq]
            elif blue >> sq & 1:
                key ^= z1[sq]
        self._key = key

    @property
    def boards(self) -> list[int]:
        """Red's and Blue's checkers as plain bitboards (bit ``sq``), in a new list."""
        full = self.g.full
        red, blue = self.doubled
        return [red & full, blue & full]

    # --- moves -------------------------------------------------------------------------------
    def legal_moves(self) -> list[int]:
        full = self.g.full
        own, opp = self.doubled[self.stm] & full, self.doubled[self.stm ^ 1] & full
        if not own or not opp:
            return []
        moves = generate_moves(self.g, own, opp)
        return moves if moves else [PASS]

    def captures(self) -> list[int]:
        full = self.g.full
        own, opp = self.doubled[self.stm] & full, self.doubled[self.stm ^ 1] & full
        if not own or not opp:
            return []
        return generate_moves(self.g, own, opp, captures_only=True)

    def quiet_moves(self) -> list[int]:
        """The steps (the search tries captures first: in Zola most moves capture, and 86% of
        the cut-offs of bench depth 4 were captures, so most nodes never generate steps)."""
        full = self.g.full
        own, opp = self.doubled[self.stm] & full, self.doubled[self.stm ^ 1] & full
        if not own or not opp:
            return []
        g = self.g
        moves = _steps(g, own, g.full & ~(own | opp), [])
        if moves or generate_moves(g, own, opp, captures_only=True):
            return moves
        return [PASS]

    def count_moves(self) -> int:
        own, opp = self.doubled[self.stm], self.doubled[self.stm ^ 1]
        if not own or not opp:
            return 0
        return count_moves(self.g, own, opp) or 1

    def is_legal_move(self, move: int) -> bool:
        """The rules checked for this one move, without generating the others."""
        if move == PASS:
            return self.legal_moves() == [PASS]
        if move < 0 or move & ~(_SQ | _SQ << 7 | CAPTURE):
            return False
        g = self.g
        fr, to = move & _SQ, (move >> 7) & _SQ
        own, opp = self.doubled[self.stm] & g.full, self.doubled[self.stm ^ 1] & g.full
        if fr >= len(g.d2) or to >= len(g.d2) or not own >> fr & 1 or not opp:
            return False
        (f, r), (tf, tr) = g.coords[fr], g.coords[to]
        df, dr = tf - f, tr - r
        if not move & CAPTURE:
            # a king step outward to an empty square
            return max(abs(df), abs(dr)) == 1 and not (own | opp) >> to & 1 and g.d2[to] > g.d2[fr]
        # a queen move over empty squares onto an enemy checker, not outward
        if not opp >> to & 1 or g.d2[to] > g.d2[fr] or (df and dr and abs(df) != abs(dr)):
            return False
        shift = ((dr > 0) - (dr < 0)) * g.n + (df > 0) - (df < 0)
        occupied = own | opp
        return all(not occupied >> (fr + k * shift) & 1 for k in range(1, max(abs(df), abs(dr))))

    def is_capture(self, move: int) -> bool:
        return bool(move & CAPTURE)

    def capture_value(self, move: int) -> int:
        """1 for a capture, 0 for a step or pass: every checker is worth the same.

        Overridden only to skip the default's call of :meth:`is_capture`: the search calls
        this for every move it orders (measured: 1.16 million calls in a Zola bench run)."""
        return move >> 14 & 1

    def play(self, move: int) -> None:
        # One lookup of what the move XORs into boards and key: measured 35-40% fewer
        # instructions per play and undo than working it out from the move each time.
        stm = self.stm
        change = self.g.changes[stm].get(move)
        if change is None:
            change = self.g.change(stm, move)
        own, opp, key = change
        doubled = self.doubled
        doubled[stm] ^= own
        if opp:
            doubled[stm ^ 1] ^= opp
        self._key ^= key
        self.stm = stm ^ 1
        self.stack.append(move)

    def undo(self) -> None:
        move = self.stack.pop()
        stm = self.stm ^ 1  # the side that made the move, which put the move in changes
        self.stm = stm
        own, opp, key = self.g.changes[stm][move]
        doubled = self.doubled
        doubled[stm] ^= own
        if opp:
            doubled[stm ^ 1] ^= opp
        self._key ^= key

    def copy(self) -> ZolaState:
        other = object.__new__(ZolaState)
        other.rules = self.rules
        other.g = self.g
        other.doubled = list(self.doubled)
        other.stm = self.stm
        other._key = self._key
        other.stack = list(self.stack)
        return other

    # --- state -------------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        red, blue = self.doubled
        if not blue:
            return RED_WINS
        if not red:
            return BLUE_WINS
        return None


class ZolaWordState(WordBoard, ZolaPosition):
    """A Zola position with its checkers in machine words (engine/zola_words.py): the
    compiled build's form, the same moves, keys and counts as :class:`ZolaState`."""

    def __init__(self, rules: ZolaRules, red: int, blue: int, stm: int) -> None:
        super().__init__(rules, rules.words, red, blue, stm)
        self.g = rules.geometry

    @property
    def doubled(self) -> list[int]:
        """Both sides' checkers doubled, as :attr:`ZolaState.doubled` (for the interpreted
        evaluation's cross-checks; the engine never reads it)."""
        return [self.g.double(board) for board in self.boards]

    def is_legal_move(self, move: int) -> bool:
        """Whether ``move`` is one of the legal moves (generated in words, cheaply)."""
        return move in self.legal_moves()

    def copy(self) -> ZolaWordState:
        red, blue = self.boards
        return _restore_words(cast(ZolaRules, self.rules), red, blue, self.stm, list(self.stack))

    def __reduce__(
        self,
    ) -> tuple[Callable[[ZolaRules, int, int, int, list[object]], ZolaWordState], tuple]:
        """Pickled as its rules, boards, side to move and moves (a compiled core has no
        pickling of its own)."""
        red, blue = self.boards
        return (_restore_words, (self.rules, red, blue, self.stm, list(self.stack)))


def _restore_words(
    rules: ZolaRules, red: int, blue: int, stm: int, stack: list[object]
) -> ZolaWordState:
    """A word state with its moves (a copy, or an unpickled state)."""
    other = ZolaWordState(rules, red, blue, stm)
    other.stack = stack
    return other


#: The state class of this build: words where compiled, big ints where interpreted (each the
#: faster form in its build; engine/zola_words.py).
STATE_CLASS: type[ZolaState] | type[ZolaWordState] = ZolaWordState if COMPILED else ZolaState


# Picture layout, in the units of the SVG's viewBox (the board is _BOARD units wide at any n).
_BOARD = 480.0
_MARGIN = 30.0  # room for the coordinates, left of and below the board
_PAD = 14.0
_CAPTION = 34.0
_COLOURS = ("red", "blue")
_CHECKER_FILL = ("#d0342c", "#2f6db5")
_CHECKER_EDGE = ("#7a1712", "#163a66")
_LIGHT, _DARK = "#f0e2c6", "#cfb58c"
_HIGHLIGHT = "#f7d54a"
_EDGE = "#6b5436"
_INK = "#333333"
_BACKGROUND = "#fbf8f2"


def _outcome_text(outcome: Outcome, names: tuple[str, str]) -> str:
    if outcome.result is Result.P1_WIN:
        return f"{names[0]} wins"
    if outcome.result is Result.P2_WIN:
        return f"{names[1]} wins"
    return "Draw"


def _arrow(
    start: tuple[float, float], end: tuple[float, float], cell: float, fr: str, to: str
) -> str:
    """A translucent arrow from the centre of one square to the next (a slide's whole path)."""
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    length = (dx * dx + dy * dy) ** 0.5
    ux, uy = dx / length, dy / length
    head, half = cell * 0.3, cell * 0.16
    bx, by = x1 - ux * head, y1 - uy * head
    points = (
        f"{number(x1)},{number(y1)} {number(bx - uy * half)},{number(by + ux * half)} "
        f"{number(bx + uy * half)},{number(by - ux * half)}"
    )
    return group(
        [
            element(
                "line",
                x1=x0,
                y1=y0,
                x2=bx,
                y2=by,
                stroke=_ARROW,
                stroke_width=cell * 0.09,
                stroke_linecap="round",
            ),
            element("polygon", points=points, fill=_ARROW),
        ],
        class_="last-move arrow",
        data_from=fr,
        data_to=to,
        opacity=0.7,
    )


_ARROW = "#1d1d1d"
