"""A deliberately naive Zola move generator: the oracle the real one is checked against.

It reads the position string itself, keeps the board as a list of lists of letters, and walks
squares and directions with plain loops and integer distances. It shares no code with
``engine/zola.py``, so a mistake would have to be made twice, differently, to go unnoticed.
"""

from __future__ import annotations

DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]


def parse(position: str) -> tuple[list[list[str]], str]:
    """``grid[rank][file]`` of 'r', 'b' or '.', and the side to move."""
    board, side = position.split()
    grid = []
    for rank_text in reversed(board.split("/")):
        row: list[str] = []
        digits = ""
        for ch in rank_text + "$":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                row.extend("." * int(digits))
                digits = ""
            if ch in "rb":
                row.append(ch)
        grid.append(row)
    return grid, side


def distance2(n: int, file: int, rank: int) -> int:
    """Squared distance to the centre, times four: exact."""
    return (2 * file - (n - 1)) ** 2 + (2 * rank - (n - 1)) ** 2


def name(file: int, rank: int) -> str:
    return "abcdefghij"[file] + str(rank + 1)


def legal_moves(position: str) -> list[str]:
    """Every legal move as canonical text, sorted; ``[]`` once a side has no checkers."""
    grid, me = parse(position)
    n = len(grid)
    enemy = "b" if me == "r" else "r"
    if not any(enemy in row for row in grid) or not any(me in row for row in grid):
        return []
    moves = []
    for rank in range(n):
        for file in range(n):
            if grid[rank][file] != me:
                continue
            here = distance2(n, file, rank)
            for df, dr in DIRECTIONS:
                f, r = file + df, rank + dr
                if 0 <= f < n and 0 <= r < n and grid[r][f] == "." and distance2(n, f, r) > here:
                    moves.append(name(file, rank) + "-" + name(f, r))
                while 0 <= f < n and 0 <= r < n and grid[r][f] == ".":
                    f, r = f + df, r + dr
                if 0 <= f < n and 0 <= r < n and grid[r][f] == enemy:
                    if distance2(n, f, r) <= here:
                        moves.append(name(file, rank) + "x" + name(f, r))
    if not moves:
        return ["pass"]
    return sorted(moves)


def play(position: str, move: str) -> str:
    """The position string after a move given as canonical text."""
    grid, me = parse(position)
    if move != "pass":
        sep = next(i for i, ch in enumerate(move) if ch in "-x")
        frm, to = move[:sep], move[sep + 1 :]
        ff, fr = ord(frm[0]) - 97, int(frm[1:]) - 1
        tf, tr = ord(to[0]) - 97, int(to[1:]) - 1
        grid[fr][ff] = "."
        grid[tr][tf] = me
    return text(grid, "b" if me == "r" else "r")


def text(grid: list[list[str]], side: str) -> str:
    """The position string of ``grid`` (as :func:`parse` gives it) with ``side`` to move."""
    n = len(grid)
    ranks = []
    for rank in range(n - 1, -1, -1):
        text, run = "", 0
        for cell in grid[rank]:
            if cell == ".":
                run += 1
                continue
            if run:
                text += str(run)
                run = 0
            text += cell
        ranks.append(text + (str(run) if run else ""))
    return "/".join(ranks) + " " + side


def perft(position: str, depth: int) -> int:
    """Leaf count by plain recursion over text positions (slow; for deep checks only)."""
    if depth == 0:
        return 1
    return sum(perft(play(position, m), depth - 1) for m in legal_moves(position))
