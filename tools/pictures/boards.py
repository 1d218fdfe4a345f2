"""The boards of a report: every position of a game drawn by the game itself (``State.svg``).

The boards never name a game: the registry gives the rules of a record's variant, and each
position draws itself. Pictures are large (a Zhadu board is ~24 kB of SVG in ~200 lines) and a
ply changes only a few lines, so every distinct line is stored once in a table shared by the
whole page (:class:`LineTable`), and each ply is a flat list of runs ``first, count, first,
count, ...`` of that table; the page joins the lines back into the exact ``State.svg`` text
(measured: 0.5 kB a Zhadu ply instead of 24 kB).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zengine.engine.game import GameError, MoveError, Rules
from zengine.engine.variants import make_rules

#: Width in pixels the pictures are drawn at (the page scales them to fit).
BOARD_SIZE = 480


class LineTable:
    """Every distinct line of every picture, once; a picture is a list of runs of it."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._ids: dict[str, int] = {}

    def runs(self, picture: str) -> list[int]:
        """The picture as runs of table lines, flat: ``[first, count, first, count, ...]``."""
        out: list[int] = []
        for line in picture.split("\n"):
            index = self._ids.get(line)
            if index is None:
                index = self._ids[line] = len(self.lines)
                self.lines.append(line)
            if out and out[-2] + out[-1] == index:
                out[-1] += 1
            else:
                out += [index, 1]
        return out

    def picture(self, runs: Sequence[int]) -> str:
        """The text of a picture from its runs (what the page's script does)."""
        return "\n".join(
            self.lines[i]
            for first, count in zip(runs[::2], runs[1::2])
            for i in range(first, first + count)
        )


def rules_of(variant: str, variant_name: str) -> Rules:
    """The rules a record was played under: its variant text (``zhadu links full quiet 100``:
    a game and its rule options), else its variant name; raises :class:`GameError`."""
    words = variant.split()
    if words and len(words) % 2 == 1:
        try:
            return make_rules(words[0], dict(zip(words[1::2], words[2::2])))
        except GameError:
            if not variant_name:
                raise
    return make_rules(variant_name or variant)


@dataclass
class Board:
    """A game's positions: one picture (runs of the line table) per ply, from the start."""

    pictures: list[list[int]]
    positions: list[str]
    #: Side to move (0 = p1) before each move.
    movers: list[int]
    side_names: tuple[str, str]


class BoardMaker:
    """Draws games ply by ply into one line table.

    Paired games often repeat each other (deterministic engines at a fixed depth), and games
    share openings, so pictures are cached by the game's moves so far: a prefix already drawn
    is not drawn again.
    """

    def __init__(self, size: int = BOARD_SIZE) -> None:
        self.size = size
        self.table = LineTable()
        self._nodes: dict[tuple[Any, ...], int] = {}
        self._pictures: list[list[int]] = []

    def draw(self, rules: Rules, start_fen: str | None, texts: Sequence[str]) -> Board:
        """Every position of a game of ``rules`` from ``start_fen`` (None: the start position)
        through the moves ``texts``; raises :class:`GameError` for a bad start position or a
        move that cannot be played."""
        state = rules.parse_position(start_fen) if start_fen else rules.start()
        moves: list[int] = []
        movers: list[int] = []
        for number_, text in enumerate(texts, 1):
            try:
                move = state.parse_move(text)
            except MoveError as exc:
                raise type(exc)(f"ply {number_} '{text}': {exc}") from None
            movers.append(state.side_to_move)
            moves.append(move)
            state.play(move)
        for _ in moves:
            state.undo()
        node = self._node(("start", rules.describe(), state.position_text()), state, None)
        pictures, positions = [self._pictures[node]], [state.position_text()]
        for text, move in zip(texts, moves):
            state.play(move)
            node = self._node((node, text), state, move)
            pictures.append(self._pictures[node])
            positions.append(state.position_text())
        return Board(pictures, positions, movers, rules.player_names)

    def _node(self, key: tuple[Any, ...], state: Any, move: int | None) -> int:
        node = self._nodes.get(key)
        if node is None:
            node = self._nodes[key] = len(self._pictures)
            self._pictures.append(self.table.runs(state.svg(self.size, move)))
        return node
