"""Hexapawn (Martin Gardner, 1962): a third game, kept in the tests to prove the game interface.

Nothing outside this file names it: the tests register it with
``zengine.engine.variants.register_game(HexapawnRules)``, or install it as a plugin (a
distribution declaring ``hexapawn = hexapawn:HexapawnRules`` in the ``zengine.games``
entry-point group) for zengine processes started by the tests.

Rules. An n x n board (rule ``size``: 3, or 4 for the variant ``octapawn``), files ``a..``
from the left, ranks ``1..n`` from White's side. White (p1) has a pawn on every square of rank
1, Black on rank n; White moves first. A pawn steps one square straight forward onto an empty
square, or one square diagonally forward onto an enemy pawn, capturing it. There is no pass.
A side wins by bringing a pawn to the far rank or by capturing every enemy pawn. A side to move
that has pawns but no move is blocked: it loses (rule ``stalemate loss``, Gardner's rule and the
default) or the game is drawn (``stalemate draw``). Every move advances a pawn, so every game
ends within ``n * (n - 2) * 2 + 1`` plies.

Position string: the ranks from n down to 1 separated by ``/``, ``w`` and ``b`` for the pawns,
a digit for a run of empty squares, then the side to move (``w`` or ``b``): ``bbb/3/www w``.
Moves: ``b1-b2`` (a step), ``b2xa3`` (a capture).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from typing import ClassVar, cast

from zengine.engine.game import (
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    Rule,
    Rules,
    State,
)
from zengine.engine.values import Outcome, Result

CAPTURE = 1 << 8
SIZES = ("3", "4")
SIDES = "wb"
_MOVE_RE = re.compile(r"([a-z])([0-9])([-x])([a-z])([0-9])")

#: Per size: a Zobrist number per (side, square) and one for Black to move.
_ZOBRIST: dict[int, tuple[tuple[tuple[int, ...], ...], int]] = {}
for _n in (3, 4):
    _rng = random.Random(0x4E8A00 + _n)
    _ZOBRIST[_n] = (
        tuple(tuple(_rng.getrandbits(64) for _ in range(_n * _n)) for _ in range(2)),
        _rng.getrandbits(64),
    )


class HexapawnRules(Rules):
    """Hexapawn with its rules ``size`` (3, 4) and ``stalemate`` (loss, draw)."""

    game = "hexapawn"
    player_names = ("White", "Black")
    VARIANTS: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "hexapawn": {},
        "octapawn": {"size": "4"},
    }
    RULES = (Rule("size", "3", SIZES), Rule("stalemate", "loss", ("loss", "draw")))
    BENCH_POSITIONS: ClassVar[Mapping[str, tuple[str | None, ...]]] = {
        "octapawn": (None, "bbbb/4/1ww1/w2w b"),
    }

    def __init__(self, size: int = 3, stalemate: str = "loss") -> None:
        self.n = size
        self.stalemate = stalemate
        self.options = {"size": str(size), "stalemate": stalemate}
        self.name = "hexapawn" if size == 3 else "octapawn"
        self.zobrist, self.black_key = _ZOBRIST[size]

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> HexapawnRules:
        values = cls.rule_values(options)
        return cls(int(values["size"]), values["stalemate"])

    def start(self) -> HexapawnState:
        n = self.n
        return HexapawnState(self, (1 << n) - 1, ((1 << n) - 1) << (n * (n - 1)), 0)

    def parse_position(self, text: str) -> HexapawnState:
        fields = text.split()
        if len(fields) != 2 or fields[1] not in ("w", "b"):
            raise PositionError("a hexapawn position is '<ranks> <w|b>', e.g. 'bbb/3/www w'")
        ranks = fields[0].split("/")
        n = self.n
        if len(ranks) != n:
            raise PositionError(f"{len(ranks)} ranks given, this board has {n}")
        pawns = [0, 0]
        for i, rank_text in enumerate(ranks):
            rank, file = n - 1 - i, 0
            for char in rank_text:
                if char in "123456789":
                    file += int(char)
                elif char in SIDES and file < n:
                    pawns[SIDES.index(char)] |= 1 << (rank * n + file)
                    file += 1
                else:
                    raise PositionError(f"bad rank '{rank_text}'")
            if file != n:
                raise PositionError(f"rank '{rank_text}' has {file} squares, not {n}")
        stm = SIDES.index(fields[1])
        state = HexapawnState(self, pawns[0], pawns[1], stm)
        if state.far_rank(stm) or not pawns[stm ^ 1]:
            # the side to move would have won already, or the side that moved has no pawn
            raise PositionError("no game reaches this position")
        return state

    def evaluation(self) -> Callable[[State], int]:
        return cast(Callable[[State], int], evaluate)


class HexapawnState(State):
    """A Hexapawn position: a bitboard per side, make/unmake, an incremental key."""

    def __init__(self, rules: HexapawnRules, white: int, black: int, stm: int) -> None:
        self.rules = rules
        self.n = rules.n
        self.pawns = [white, black]
        self.stm = stm
        self.stack: list[int] = []
        key = rules.key_salt ^ (rules.black_key if stm else 0)
        for side in (0, 1):
            for sq in range(self.n * self.n):
                if self.pawns[side] >> sq & 1:
                    key ^= rules.zobrist[side][sq]
        self._key = key

    def far_rank(self, side: int) -> bool:
        """Whether ``side`` has a pawn on the rank it moves towards."""
        n = self.n
        row = (1 << n) - 1
        return bool(self.pawns[side] & (row << (n * (n - 1)) if side == 0 else row))

    def _moves(self) -> list[int]:
        n, stm = self.n, self.stm
        own, opp = self.pawns[stm], self.pawns[stm ^ 1]
        forward = n if stm == 0 else -n
        moves = []
        for fr in range(n * n):
            if not own >> fr & 1:
                continue
            to = fr + forward
            if not (own | opp) >> to & 1:
                moves.append(fr | to << 4)
            for side_step in (-1, 1):
                if 0 <= fr % n + side_step < n and opp >> (to + side_step) & 1:
                    moves.append(fr | (to + side_step) << 4 | CAPTURE)
        return moves

    def legal_moves(self) -> list[int]:
        return [] if self.outcome() is not None else self._moves()

    def is_capture(self, move: int) -> bool:
        return bool(move & CAPTURE)

    def play(self, move: int) -> None:
        stm, rules = self.stm, self.rules
        fr, to = move & 15, (move >> 4) & 15
        self.pawns[stm] ^= 1 << fr | 1 << to
        self._key ^= rules.zobrist[stm][fr] ^ rules.zobrist[stm][to] ^ rules.black_key
        if move & CAPTURE:
            self.pawns[stm ^ 1] ^= 1 << to
            self._key ^= rules.zobrist[stm ^ 1][to]
        self.stm = stm ^ 1
        self.stack.append(move)

    def undo(self) -> None:
        move = self.stack.pop()
        self.stm ^= 1
        stm, rules = self.stm, self.rules
        fr, to = move & 15, (move >> 4) & 15
        self.pawns[stm] ^= 1 << fr | 1 << to
        self._key ^= rules.zobrist[stm][fr] ^ rules.zobrist[stm][to] ^ rules.black_key
        if move & CAPTURE:
            self.pawns[stm ^ 1] ^= 1 << to
            self._key ^= rules.zobrist[stm ^ 1][to]

    def copy(self) -> HexapawnState:
        other = HexapawnState(self.rules, self.pawns[0], self.pawns[1], self.stm)
        other.stack = list(self.stack)
        return other

    def outcome(self) -> Outcome | None:
        mover = self.stm ^ 1
        win = Result.win_for(mover)
        if self.far_rank(mover):
            return Outcome(win, "far rank")
        if not self.pawns[self.stm]:
            return Outcome(win, "every pawn captured")
        if not self._moves():
            if self.rules.stalemate == "draw":
                return Outcome(Result.DRAW, "blocked")
            return Outcome(win, "blocked")
        return None

    def square(self, sq: int) -> str:
        """The name of a square (``a1``)."""
        return f"{chr(97 + sq % self.n)}{sq // self.n + 1}"

    def move_text(self, move: int) -> str:
        sep = "x" if move & CAPTURE else "-"
        return f"{self.square(move & 15)}{sep}{self.square((move >> 4) & 15)}"

    def parse_move(self, text: str) -> int:
        match = _MOVE_RE.fullmatch(text.strip().lower())
        n = self.n
        if not match or any(
            not (0 <= ord(f) - 97 < n and 1 <= int(r) <= n)
            for f, r in ((match[1], match[2]), (match[4], match[5]))
        ):
            raise InvalidMoveError(f"'{text}' is no hexapawn move (e.g. b1-b2, b2xa3)")
        for move in self.legal_moves():
            if self.move_text(move) == match[0]:
                return move
        raise IllegalMoveError(f"illegal move '{text}' in this position")

    def position_text(self) -> str:
        n, ranks = self.n, []
        for rank in range(n - 1, -1, -1):
            text, run = "", 0
            for file in range(n):
                sq = rank * n + file
                char = "w" if self.pawns[0] >> sq & 1 else "b" if self.pawns[1] >> sq & 1 else ""
                if char:
                    text += (str(run) if run else "") + char
                    run = 0
                else:
                    run += 1
            ranks.append(text + (str(run) if run else ""))
        return f"{'/'.join(ranks)} {SIDES[self.stm]}"

    def diagram(self) -> str:
        board = self.position_text().split()[0]
        rows = [re.sub(r"[0-9]", lambda m: "." * int(m[0]), rank) for rank in board.split("/")]
        return "\n".join(rows + [f"{self.rules.player_names[self.stm]} to move"])


def evaluate(state: HexapawnState) -> int:
    """Pawns (100 each) and how far they have come (10 a rank), for the side to move."""
    n, score = state.n, 0
    for side, sign in ((state.stm, 1), (state.stm ^ 1, -1)):
        pawns = state.pawns[side]
        for sq in range(n * n):
            if pawns >> sq & 1:
                advanced = sq // n if side == 0 else n - 1 - sq // n
                score += sign * (100 + 10 * advanced)
    return score
