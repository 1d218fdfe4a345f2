"""Zola's endgame tables: materials, position numbers and the retrograde builder.

**Materials** are ``<a>v<b>``: the side to move has ``a`` checkers, the other side ``b``.
The rules treat both colours alike (only who moves first differs), so one table serves Red and
Blue to move (colour reduction).

**Numbering.** The 8 symmetries of the square board keep every distance from the centre, so
they keep every value. The side to move's checkers are turned into the *canonical* image of
their orbit (the least bitboard of the 8), orbits numbered in increasing order of it; the
other side's checkers, turned the same way, are numbered among the free squares by their
combinatorial rank. A table holds ``orbits(a) * C(n*n - a, b)`` values: about an eighth of
the boards.

**Building.** Zola's game graph has no cycles: a step moves a checker strictly outward and a
capture removes one, and only a pass keeps the board (the proof in docs/zola.md says a pass is
never answered by a pass). So the materials are built fewest checkers first (a capture leads to
a table built earlier), ``a v b`` together with ``b v a`` (their steps and passes lead into
each other), and each position is solved once all its successors are: depth-first over the
acyclic graph. The build checks the rules' claim as it goes: a position where neither side can
move is a :class:`~zengine.engine.endgame.TableError`, never assumed away.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

from zengine.engine.endgame import NO_VALUE, TableCodec, TableError
from zengine.engine.zola import CAPTURE, ZolaPosition, ZolaState, generate_moves

if TYPE_CHECKING:
    from zengine.engine.game import State
    from zengine.engine.zola import ZolaRules

#: The longest distance a byte holds (NO_VALUE is the next).
MAX_PLIES = NO_VALUE - 1
#: Positions between two progress reports.
PROGRESS_EVERY = 4096


def _symmetries(n: int) -> list[tuple[int, ...]]:
    """The 8 symmetries of the n x n board as square permutations, the identity first."""
    last = n - 1
    forms = (
        lambda f, r: (f, r),
        lambda f, r: (last - f, r),
        lambda f, r: (f, last - r),
        lambda f, r: (last - f, last - r),
        lambda f, r: (r, f),
        lambda f, r: (last - r, f),
        lambda f, r: (r, last - f),
        lambda f, r: (last - r, last - f),
    )
    perms = []
    for form in forms:
        perm = []
        for sq in range(n * n):
            f, r = form(sq % n, sq // n)
            perm.append(r * n + f)
        perms.append(tuple(perm))
    return perms


#: Per board size: what :meth:`ZolaTableCodec.orbits` found, for every codec of that size (a
#: folder opened checks each file with a codec of its own).
_ORBITS: dict[int, tuple[dict[int, dict[int, tuple[int, int, int]]], dict[int, list[int]]]] = {}


def parse_material(material: str) -> tuple[int, int]:
    """``(a, b)`` of ``a v b``; ValueError for anything else."""
    a_text, sep, b_text = material.partition("v")
    if not sep or not a_text.isdigit() or not b_text.isdigit() or not a_text.isascii():
        raise ValueError(f"no material '{material}'")
    a, b = int(a_text), int(b_text)
    if a < 1 or b < 1 or str(a) != a_text or str(b) != b_text:
        raise ValueError(f"no material '{material}'")
    return a, b


class ZolaTableCodec(TableCodec):
    """The tables of one board size."""

    numbering = "zola orbits by least board, colex rank of the other side (1)"

    def __init__(self, rules: ZolaRules) -> None:
        self.rules = rules
        self.zola = rules
        g = self.g = rules.geometry
        self.n = g.n
        self.squares = g.n * g.n
        perms = _symmetries(g.n)
        #: per symmetry, per square: the bit of its image
        self.images = [tuple(1 << p[sq] for sq in range(self.squares)) for p in perms]
        index_of = {p: i for i, p in enumerate(perms)}
        #: inverse[t]: the symmetry undoing t
        self.inverse = [
            index_of[tuple(sorted(range(self.squares), key=p.__getitem__))] for p in perms
        ]
        #: binomial[m][k] = C(m, k)
        self.binomial = [
            [comb(m, k) for k in range(self.squares + 1)] for m in range(self.squares + 1)
        ]
        #: per count a: own bitboard -> (orbit number, symmetry to its canonical image, image),
        #: and the canonical images in orbit order; shared by every codec of the board size
        self._orbits, self._canonical = _ORBITS.setdefault(self.n, ({}, {}))
        self.perms = perms

    # --- numbering ---------------------------------------------------------------------------
    def turn(self, board: int, symmetry: int) -> int:
        """A bitboard turned by one of the 8 symmetries."""
        images = self.images[symmetry]
        out = 0
        while board:
            low = board & -board
            out |= images[low.bit_length() - 1]
            board ^= low
        return out

    def orbits(self, a: int) -> dict[int, tuple[int, int, int]]:
        """Every bitboard of ``a`` checkers -> (orbit number, symmetry, canonical image)."""
        found = self._orbits.get(a)
        if found is not None:
            return found
        table: dict[int, tuple[int, int, int]] = {}
        canonical: list[int] = []
        inverse = self.inverse
        turn = self.turn
        # Every board of ``a`` checkers in increasing order (Gosper's next combination): the
        # first board of an orbit met is its least image, the canonical one.
        board = (1 << a) - 1
        end = 1 << self.squares
        while board < end:
            if board not in table:
                number = len(canonical)
                canonical.append(board)
                for t in range(8):
                    image = turn(board, t)
                    if image not in table:  # image = T_t(board): T_t^-1 takes it back
                        table[image] = (number, inverse[t], board)
            low = board & -board
            ripple = board + low
            board = (((ripple ^ board) >> 2) // low) | ripple
        self._orbits[a] = table
        self._canonical[a] = canonical
        return table

    def canonical(self, a: int) -> list[int]:
        """The canonical own boards of ``a`` checkers, in orbit order."""
        self.orbits(a)
        return self._canonical[a]

    def position_index(self, a: int, b: int, own: int, opp: int) -> int:
        """The index of ``own`` (``a`` checkers, to move) against ``opp`` (``b``)."""
        number, symmetry, image = self._orbits[a][own]
        if symmetry:
            opp = self.turn(opp, symmetry)
        binomial = self.binomial
        rank = 0
        k = 1
        while opp:
            low = opp & -opp
            opp ^= low
            # the square's place among the free squares: own checkers below it do not count
            rank += binomial[low.bit_length() - 1 - (image & (low - 1)).bit_count()][k]
            k += 1
        return number * binomial[self.squares - a][b] + rank

    # --- the codec ---------------------------------------------------------------------------
    def material(self, state: State) -> str | None:
        assert isinstance(state, ZolaPosition)
        own, opp = state.checkers(state.stm), state.checkers(state.stm ^ 1)
        if not own or not opp:
            return None
        return f"{own.bit_count()}v{opp.bit_count()}"

    def index(self, state: State) -> int:
        assert isinstance(state, ZolaPosition)
        own, opp = state.checkers(state.stm), state.checkers(state.stm ^ 1)
        return self.position_index(own.bit_count(), opp.bit_count(), own, opp)

    def pieces(self, material: str) -> int:
        a, b = parse_material(material)
        return a + b

    def prepare(self, materials: list[str]) -> None:
        for material in materials:
            self.orbits(parse_material(material)[0])

    def entries(self, material: str) -> int:
        a, b = parse_material(material)
        if a + b > self.squares or max(a, b) > self.squares // 2:
            raise ValueError(f"no material '{material}' on {self.n}x{self.n}")
        return self.orbit_count(a) * comb(self.squares - a, b)

    def orbit_count(self, a: int) -> int:
        """How many orbits the boards of ``a`` checkers form, by Burnside's lemma (the mean
        number of boards each symmetry keeps), without listing them."""
        kept = 0
        for perm in self.perms:
            cycles = []
            seen = [False] * self.squares
            for sq in range(self.squares):
                length = 0
                while not seen[sq]:
                    seen[sq] = True
                    sq = perm[sq]
                    length += 1
                if length:
                    cycles.append(length)
            # boards the symmetry keeps: unions of whole cycles with a squares in all
            ways = [1] + [0] * a
            for length in cycles:
                for total in range(a, length - 1, -1):
                    ways[total] += ways[total - length]
            kept += ways[a]
        return kept // 8

    def plan(self, pieces: int) -> list[list[tuple[str, ...]]]:
        stages = []
        half = self.squares // 2
        for total in range(2, pieces + 1):
            groups: list[tuple[str, ...]] = []
            for a in range(1, total // 2 + 1):
                b = total - a
                if b > half:
                    continue
                groups.append((f"{a}v{b}",) if a == b else (f"{a}v{b}", f"{b}v{a}"))
            stages.append(groups)
        return stages

    def fen(self, own: int, opp: int) -> str:
        """A position string of the boards, the side to move as Red."""
        return ZolaState(self.zola, own, opp, 0).position_text()

    # --- the builder ---------------------------------------------------------------------------
    def build(
        self,
        group: tuple[str, ...],
        tables: Mapping[str, bytes],
        progress: Callable[[int], None],
    ) -> dict[str, bytes]:
        values = {m: bytearray([NO_VALUE]) * self.entries(m) for m in group}
        pairs = {parse_material(m): values[m] for m in group}
        for a, b in list(pairs):
            self.orbits(b)
            if b > 1:
                self.orbits(b - 1)
                lower = f"{b - 1}v{a}"
                if lower not in tables:
                    raise TableError(f"the table {lower} is needed first")
        g = self.g
        index = self.position_index
        fen = self.fen
        done = [0]
        # The deepest chain of positions solved inside each other is a game's length.
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * MAX_PLIES + 100))

        def solve(a: int, b: int, own: int, opp: int, at: int) -> int:
            """The value of ``own`` (to move) against ``opp``, stored at ``at``."""
            moves = generate_moves(g, own, opp)
            successors = pairs[(b, a)]
            if not moves:
                if not generate_moves(g, opp, own):
                    raise TableError(f"neither side can move in {fen(own, opp)}")
                where = index(b, a, opp, own)
                after = successors[where]
                if after == NO_VALUE:
                    after = solve(b, a, opp, own, where)
                value = after + 1
            else:
                lower = tables.get(f"{b - 1}v{a}", b"")
                win = NO_VALUE
                loss = -1
                for move in moves:
                    fr = move & 0x7F
                    to = move >> 7 & 0x7F
                    moved = own ^ (1 << fr) ^ (1 << to)
                    if move & CAPTURE:
                        if b == 1:
                            win = 1  # the last enemy checker: no shorter win exists
                            break
                        after = lower[index(b - 1, a, opp ^ (1 << to), moved)]
                    else:
                        where = index(b, a, opp, moved)
                        after = successors[where]
                        if after == NO_VALUE:
                            after = solve(b, a, opp, moved, where)
                    if after & 1:
                        if after >= loss:
                            loss = after + 1
                    elif after < win:
                        win = after + 1
                value = win if win != NO_VALUE else loss
            if value > MAX_PLIES:
                raise TableError(f"{fen(own, opp)} is more than {MAX_PLIES} plies from its end")
            pairs[(a, b)][at] = value
            done[0] += 1
            if done[0] == PROGRESS_EVERY:
                progress(done[0])
                done[0] = 0
            return value

        for (a, b), table in pairs.items():
            for own in self.canonical(a):
                free = [sq for sq in range(self.squares) if not own >> sq & 1]
                for chosen in combinations(free, b):
                    opp = 0
                    for sq in chosen:
                        opp |= 1 << sq
                    at = index(a, b, own, opp)
                    if table[at] == NO_VALUE:
                        solve(a, b, own, opp, at)
        progress(done[0])
        for material, table in values.items():
            if NO_VALUE in table:
                raise TableError(f"table {material}: a position was left unsolved")
        return {m: bytes(v) for m, v in values.items()}
