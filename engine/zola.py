"""Zola (Mark Steere, 2021) on 6x6, 8x8 and 10x10, as ``docs/zola.md`` describes it.

Board: square ``sq = rank * n + file`` (0-based), bit ``sq`` of an int per colour.
Moves inside the engine are ints: ``from | to << 7 | CAPTURE`` and :data:`PASS`.

Distances use the exact integer ``d2 = (2f-(n-1))^2 + (2r-(n-1))^2``; every rule that
compares distances is folded into masks precomputed per board size at import:

* a step in direction ``d`` is outward from exactly the squares in ``step_from[d]``;
* along a ray ``d2`` falls then rises, so the capture targets that keep or reduce the distance
  form a prefix of the ray: a slide of ``k`` squares may capture from ``capture_from[d][k]``.

Move generation therefore works on whole bitboards, one shift per direction and slide length,
independent of how many checkers there are (measured: about 3x faster than per-checker rays
on the 6x6 start position).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import ClassVar

from zengine.engine.game import (
    BadRuleValueError,
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    Rules,
    State,
    UnknownRuleError,
)
from zengine.engine.values import Outcome, Result, Termination

RED_WINS = Outcome(Result.P1_WIN, Termination.RULES, "every Blue checker captured")
BLUE_WINS = Outcome(Result.P2_WIN, Termination.RULES, "every Red checker captured")

CAPTURE = 1 << 14
PASS = 1 << 15
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
    zobrist = tuple(tuple(rng.getrandbits(64) for _ in range(n * n)) for _ in range(2))
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
        side_key=rng.getrandbits(64),
    )


GEOMETRY: dict[int, Geometry] = {n: _build(n) for n in SIZES}


def count_moves(g: Geometry, own: int, opp: int) -> int:
    """How many steps and captures ``own`` has against ``opp`` (pass not counted)."""
    empty = g.full & ~(own | opp)
    count = 0
    for shift, mask in g.step_up:
        count += (((own & mask) << shift) & empty).bit_count()
    for shift, mask in g.step_down:
        count += (((own & mask) >> shift) & empty).bit_count()
    for slides in g.slide_up:
        sliding = own
        for shift, may_capture, further in slides:
            count += (((sliding & may_capture) << shift) & opp).bit_count()
            sliding &= (empty >> shift) & further
            if not sliding:
                break
    for slides in g.slide_down:
        sliding = own
        for shift, may_capture, further in slides:
            count += (((sliding & may_capture) >> shift) & opp).bit_count()
            sliding &= (empty << shift) & further
            if not sliding:
                break
    return count


def generate_moves(g: Geometry, own: int, opp: int, captures_only: bool = False) -> list[int]:
    """Move ints for ``own`` against ``opp``: captures first, then steps (no pass)."""
    empty = g.full & ~(own | opp)
    moves: list[int] = []
    append = moves.append
    for slides in g.slide_up:
        sliding = own
        for shift, may_capture, further in slides:
            targets = ((sliding & may_capture) << shift) & opp
            while targets:
                bit = targets & -targets
                to = bit.bit_length() - 1
                targets ^= bit
                append((to - shift) | (to << 7) | CAPTURE)
            sliding &= (empty >> shift) & further
            if not sliding:
                break
    for slides in g.slide_down:
        sliding = own
        for shift, may_capture, further in slides:
            targets = ((sliding & may_capture) >> shift) & opp
            while targets:
                bit = targets & -targets
                to = bit.bit_length() - 1
                targets ^= bit
                append((to + shift) | (to << 7) | CAPTURE)
            sliding &= (empty << shift) & further
            if not sliding:
                break
    if captures_only:
        return moves
    for shift, mask in g.step_up:
        targets = ((own & mask) << shift) & empty
        while targets:
            bit = targets & -targets
            to = bit.bit_length() - 1
            targets ^= bit
            append((to - shift) | (to << 7))
    for shift, mask in g.step_down:
        targets = ((own & mask) >> shift) & empty
        while targets:
            bit = targets & -targets
            to = bit.bit_length() - 1
            targets ^= bit
            append((to + shift) | (to << 7))
    return moves


_MOVE_RE = re.compile(r"^([a-z])(\d{1,2})([-x]?)([a-z])(\d{1,2})$")


class ZolaRules(Rules):
    """Zola on an n x n board."""

    game = "zola"
    player_names = ("Red", "Blue")
    VARIANTS: ClassVar[dict[str, dict[str, str]]] = {
        "zola": {},
        "zola-8": {"size": "8"},
        "zola-10": {"size": "10"},
    }
    DEFAULTS: ClassVar[dict[str, str]] = {"size": "6"}

    def __init__(self, size: int = 6) -> None:
        if size not in SIZES:
            raise BadRuleValueError(f"bad value '{size}' for rule 'size' (6, 8 or 10)")
        self.size = size
        self.geometry = GEOMETRY[size]
        self.options = {"size": str(size)}
        self.name = "zola" if size == 6 else f"zola-{size}"

    @classmethod
    def from_options(cls, options: dict[str, str]) -> ZolaRules:
        """Rules from ``setup`` options; only ``size`` (6, 8, 10) exists."""
        size = "6"
        for key, value in options.items():
            if key != "size":
                raise UnknownRuleError(f"unknown rule '{key}' for zola (rules: size)")
            size = value
        if size not in ("6", "8", "10"):
            raise BadRuleValueError(f"bad value '{size}' for rule 'size' (6, 8 or 10)")
        return cls(int(size))

    def start(self) -> ZolaState:
        red, blue = self.geometry.start
        return ZolaState(self, red, blue, 0)

    def parse_position(self, text: str) -> ZolaState:
        """Parse ``<ranks> <side>``; raises :class:`PositionError` with the reason."""
        fields = text.split()
        if len(fields) != 2:
            raise PositionError(
                f"a zola position string has 2 fields (board and side), got {len(fields)}"
            )
        board, side = fields
        if side not in ("r", "b"):
            raise PositionError(f"side to move must be 'r' or 'b', got '{side}'")
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
            for token in re.findall(r"\d+|.", rank_text):
                if token.isdigit():
                    run = int(token)
                    if token.startswith("0") or not 1 <= run <= n:
                        raise PositionError(f"bad empty-square count '{token}' in rank {rank + 1}")
                    file += run
                elif token in COLOUR_LETTERS:
                    if file < n:
                        boards[COLOUR_LETTERS.index(token)] |= 1 << (rank * n + file)
                    file += 1
                else:
                    raise PositionError(f"unknown character '{token}' in rank {rank + 1}")
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
        return ZolaState(self, red, blue, 0 if side == "r" else 1)


class ZolaState(State):
    """A Zola position with make/unmake and an incremental Zobrist key."""

    __slots__ = ("_key", "boards", "g", "rules", "stack", "stm")

    def __init__(self, rules: ZolaRules, red: int, blue: int, stm: int) -> None:
        self.rules = rules
        self.g = rules.geometry
        self.boards = [red, blue]
        self.stm = stm
        self.stack: list[int] = []
        z0, z1 = self.g.zobrist
        key = self.g.side_key if stm else 0
        for sq in range(self.g.n * self.g.n):
            if red >> sq & 1:
                key ^= z0[sq]
            elif blue >> sq & 1:
                key ^= z1[sq]
        self._key = key

    # --- moves -------------------------------------------------------------------------------
    def legal_moves(self) -> list[int]:
        own, opp = self.boards[self.stm], self.boards[self.stm ^ 1]
        if not own or not opp:
            return []
        moves = generate_moves(self.g, own, opp)
        return moves if moves else [PASS]

    def captures(self) -> list[int]:
        own, opp = self.boards[self.stm], self.boards[self.stm ^ 1]
        if not own or not opp:
            return []
        return generate_moves(self.g, own, opp, captures_only=True)

    def count_moves(self) -> int:
        own, opp = self.boards[self.stm], self.boards[self.stm ^ 1]
        if not own or not opp:
            return 0
        return count_moves(self.g, own, opp) or 1

    def is_capture(self, move: int) -> bool:
        return bool(move & CAPTURE)

    def play(self, move: int) -> None:
        stm = self.stm
        if move != PASS:
            fr = move & _SQ
            to = (move >> 7) & _SQ
            zob = self.g.zobrist
            if move & CAPTURE:
                self.boards[stm ^ 1] ^= 1 << to
                self._key ^= zob[stm ^ 1][to]
            self.boards[stm] ^= (1 << fr) | (1 << to)
            self._key ^= zob[stm][fr] ^ zob[stm][to]
        self.stm = stm ^ 1
        self._key ^= self.g.side_key
        self.stack.append(move)

    def undo(self) -> None:
        move = self.stack.pop()
        stm = self.stm ^ 1  # the side that made the move
        self.stm = stm
        self._key ^= self.g.side_key
        if move != PASS:
            fr = move & _SQ
            to = (move >> 7) & _SQ
            zob = self.g.zobrist
            self.boards[stm] ^= (1 << fr) | (1 << to)
            self._key ^= zob[stm][fr] ^ zob[stm][to]
            if move & CAPTURE:
                self.boards[stm ^ 1] ^= 1 << to
                self._key ^= zob[stm ^ 1][to]

    def copy(self) -> ZolaState:
        other = object.__new__(ZolaState)
        other.rules = self.rules
        other.g = self.g
        other.boards = list(self.boards)
        other.stm = self.stm
        other._key = self._key
        other.stack = list(self.stack)
        return other

    # --- state -------------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        red, blue = self.boards
        if not blue:
            return RED_WINS
        if not red:
            return BLUE_WINS
        return None

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
        cleaned = text.strip().lower()
        n = self.g.n
        if cleaned == "pass":
            moves = self.legal_moves()
            if moves == [PASS]:
                return PASS
            if not moves:
                raise IllegalMoveError("illegal move 'pass': the game is over")
            raise IllegalMoveError("illegal move 'pass': a pass is legal only with no other move")
        match = _MOVE_RE.match(cleaned)
        if not match:
            raise InvalidMoveError(f"'{text}' is no zola move (expected e.g. c3-b2, a1xa2 or pass)")
        squares = []
        for file_letter, rank_text in ((match[1], match[2]), (match[4], match[5])):
            file, rank = ord(file_letter) - 97, int(rank_text)
            if file >= n or not 1 <= rank <= n or rank_text.startswith("0"):
                raise InvalidMoveError(
                    f"'{text}': no square {file_letter}{rank_text} on a {n}x{n} board"
                )
            squares.append((rank - 1) * n + file)
        fr, to = squares
        if self.outcome() is not None:
            raise IllegalMoveError(f"illegal move '{text}': the game is over")
        for move in self.legal_moves():
            if move != PASS and move & _SQ == fr and (move >> 7) & _SQ == to:
                return move
        raise IllegalMoveError(f"illegal move '{text}' in this position")

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
