"""A deliberately naive Zhadu referee: the oracle ``engine/zhadu.py`` is checked against.

It works on text: the adjacency table written out by hand (not the engine's construction of the
board; tests/test_docs.py checks that docs/zhadu.md shows the same table), a dict of point name
-> (colour, stone), and an explicit depth-first enumeration of every walk of a stone. It shares
no code with ``engine/zhadu.py``, so a mistake would have to be made twice, differently, to go
unnoticed.
"""

from __future__ import annotations

from collections import Counter

# Every point: the points one step away on the full board.
ADJACENCY_TABLE = """
a0: a1 a2 a3          a1: a0 a2 a3          a2: a0 a1 a3 b2       a3: a0 a1 a2 b3
b0: b1 b2 b3          b1: b0 b2 b3 c3 d2    b2: a2 b0 b1 b3 c1    b3: a3 b0 b1 b2 d1
c0: c1 c2 c3          c1: b2 c0 c2 c3       c2: c0 c1 c3 e2       c3: b1 c0 c1 c2 e3
d0: d1 d2 d3          d1: b3 d0 d2 d3       d2: b1 d0 d1 d3 f2    d3: d0 d1 d2 f3
e0: e1 e2 e3          e1: e0 e2 e3 g2       e2: c2 e0 e1 e3       e3: c3 e0 e1 e2 g1
f0: f1 f2 f3          f1: f0 f2 f3 g3       f2: d2 f0 f1 f3 g1    f3: d3 f0 f1 f2
g0: g1 g2 g3          g1: e3 f2 g0 g2 g3    g2: e1 g0 g1 g3 h2    g3: f1 g0 g1 g2 h3
h0: h1 h2 h3          h1: h0 h2 h3          h2: g2 h0 h1 h3       h3: g3 h0 h1 h2
"""

STONES = ["1", "2", "3", "4", "123"]
ZONE = {"w": ["a0", "a1", "a2", "a3", "b0"], "b": ["h0", "h1", "h2", "h3", "g0"]}
OTHER = {"w": "b", "b": "w"}


def table_adjacency() -> dict[str, set[str]]:
    """The adjacency table as point -> set of neighbours."""
    adjacency: dict[str, set[str]] = {}
    tokens = ADJACENCY_TABLE.split()
    point = None
    for token in tokens:
        if token.endswith(":"):
            point = token[:-1]
            adjacency[point] = set()
        else:
            adjacency[point].add(token)  # type: ignore[index]
    return adjacency


def adjacency_for(links: str) -> dict[str, set[str]]:
    """``full``: the table; ``star``: without steps between two corners of one triangle."""
    adjacency = table_adjacency()
    if links == "star":
        for point, neighbours in adjacency.items():
            adjacency[point] = {
                n for n in neighbours if not (n[0] == point[0] and n[1] != "0" and point[1] != "0")
            }
    return adjacency


def numbers(stone: str) -> list[int]:
    """What a stone counts as in the sharing: the 123 as 1, 2 or 3."""
    return [1, 2, 3] if stone == "123" else [int(stone)]


class NaiveGame:
    """A game of Zhadu from a position string, played by move texts."""

    def __init__(self, position: str, links: str = "full", quiet_limit: int = 100) -> None:
        self.adjacency = adjacency_for(links)
        self.quiet_limit = quiet_limit
        stones, self.side, firsts, quiet, ply = position.split()
        white, black = stones.split("/")
        self.stones: dict[str, tuple[str, str]] = {}
        for colour, part in (("w", white), ("b", black)):
            if part == "-":
                continue
            for token in part.split(","):
                stone, point = token[:-2], token[-2:]
                self.stones[point] = (colour, stone)
        first_white, first_black = firsts.split("/")
        self.first = {
            "w": None if first_white == "-" else first_white,
            "b": None if first_black == "-" else first_black,
        }
        self.quiet = int(quiet)
        self.ply = int(ply)
        self.passes = 0
        self.result: tuple[str, str] | None = None
        self.seen: Counter = Counter()
        if self.ply >= 10:
            self.seen[self.snapshot()] += 1
            self.result = self.result_from_string()

    def result_from_string(self) -> tuple[str, str] | None:
        for colour in ("w", "b"):
            first = self.first[colour]
            enemy = OTHER[colour]
            if first is None:
                continue
            if first == "4":
                return ("1-0" if colour == "w" else "0-1", "first capture of the 4")
            left = {s for c, s in self.stones.values() if c == enemy}
            for stone in STONES:
                if stone != first and stone not in left and self.completes(first, stone):
                    return ("1-0" if colour == "w" else "0-1", "sharing")
        if self.quiet_limit and self.quiet >= self.quiet_limit:
            return ("1/2-1/2", "quiet limit")
        return None

    @staticmethod
    def completes(first: str, stone: str) -> bool:
        return any(a + b == 4 for a in numbers(first) for b in numbers(stone))

    def snapshot(self) -> tuple:
        return (frozenset(self.stones.items()), self.side, self.first["w"], self.first["b"])

    def ends(self, start: str, length: int) -> set[str]:
        """Last points of every walk of ``length`` steps from ``start`` through empty points."""
        found: set[str] = set()

        def walk(at: str, left: int) -> None:
            if left == 0:
                found.add(at)
                return
            for nxt in sorted(self.adjacency[at]):
                if left > 1 and nxt != start and nxt in self.stones:
                    continue  # only the last point may hold a stone
                walk(nxt, left - 1)

        walk(start, length)
        return found

    def legal(self) -> list[str]:
        """Every legal move as canonical text, sorted; ``[]`` once the game is over."""
        if self.result is not None:
            return []
        moves = []
        mine = [(p, s) for p, (c, s) in self.stones.items() if c == self.side]
        if self.ply < 10:
            placed = {s for _, s in mine}
            for stone in STONES:
                if stone not in placed:
                    for point in ZONE[self.side]:
                        if point not in self.stones:
                            moves.append(f"{stone}@{point}")
            return sorted(moves)
        for point, stone in mine:
            lengths = [1, 2, 3] if stone == "123" else [int(stone)]
            ends: set[str] = set()
            for length in lengths:
                ends |= self.ends(point, length)
            for end in ends:
                if end == point or end not in self.stones:
                    moves.append(f"{point}-{end}")
                elif self.stones[end][0] != self.side:
                    moves.append(f"{point}x{end}")
        return sorted(moves) if moves else ["pass"]

    def play(self, move: str) -> None:
        """Play a move from :meth:`legal` (not checked)."""
        me = self.side
        won = None
        if "@" in move:
            stone, point = move.split("@")
            self.stones[point] = (me, stone)
        elif move == "pass":
            self.passes += 1
            self.quiet += 1
        else:
            start, end = move[:2], move[3:]
            stone = self.stones.pop(start)[1]
            if move[2] == "x":
                taken = self.stones[end][1]
                if self.first[me] is None:
                    self.first[me] = taken
                    if taken == "4":
                        won = "first capture of the 4"
                elif self.completes(self.first[me], taken):
                    won = "sharing"
                self.quiet = 0
            else:
                self.quiet += 1
            self.stones[end] = (me, stone)
            self.passes = 0
        self.side = OTHER[me]
        self.ply += 1
        if self.ply >= 10:
            self.seen[self.snapshot()] += 1
            if won:
                self.result = ("1-0" if me == "w" else "0-1", won)
            elif self.passes >= 2:
                self.result = ("1/2-1/2", "two passes")
            elif self.seen[self.snapshot()] >= 3:
                self.result = ("1/2-1/2", "repetition")
            elif self.quiet_limit and self.quiet >= self.quiet_limit:
                self.result = ("1/2-1/2", "quiet limit")

    def position(self) -> str:
        """The position string, stones in the order 1 2 3 4 123."""
        halves = []
        for colour in ("w", "b"):
            where = {s: p for p, (c, s) in self.stones.items() if c == colour}
            halves.append(",".join(s + where[s] for s in STONES if s in where) or "-")
        firsts = "/".join(self.first[c] or "-" for c in ("w", "b"))
        return f"{halves[0]}/{halves[1]} {self.side} {firsts} {self.quiet} {self.ply}"
