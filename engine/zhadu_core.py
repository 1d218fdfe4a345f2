"""Zhadu's rules core: the board's tables and the hot half of the state (engine/zhadu.py).

Kept apart from the text, the pictures and the game interface so that mypyc can compile it: a
compiled class cannot subclass the interpreted ``game.State``, so ``zhadu.ZhaduState`` is an
interpreted class on :class:`ZhaduCore` and ``State`` (``allow_interpreted_subclasses``, which
only mypyc reads). The 32 points fit a word, so one form serves both builds; constants are
``Final`` (compiled, a module name that is not is looked up in the module's dict at each
use). engine/zhadu.py's docstring describes the rules' representation.
"""

from __future__ import annotations

import importlib.machinery
import random
from collections.abc import Callable
from itertools import combinations
from typing import TYPE_CHECKING, Final

from zengine.engine.bits import popcount
from zengine.engine.game import Rules, fold_case, key_number
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


DRAW_BY_TWO_PASSES: Final = Outcome(Result.DRAW, "two passes")
DRAW_BY_REPETITION: Final = Outcome(Result.DRAW, "repetition")
DRAW_BY_QUIET_LIMIT: Final = Outcome(Result.DRAW, "quiet limit")
# Per winner, made once: a frozen dataclass is slow to build, and the search plays many winning
# captures (cProfile over the Zhadu bench: play's own time 0.106 s -> 0.055 s with these and
# the split paths of ``play``).
_WIN_BY_FOUR: Final = tuple(Outcome(Result.win_for(s), "first capture of the 4") for s in (0, 1))
_WIN_BY_SHARING: Final = tuple(Outcome(Result.win_for(s), "sharing") for s in (0, 1))

TRIANGLES = "abcdefgh"
POINT_NAMES: Final[tuple[str, ...]] = tuple(f"{t}{d}" for t in TRIANGLES for d in "0123")
POINTS: Final = 32
FULL: Final = (1 << POINTS) - 1
_INDEX = {name: i for i, name in enumerate(POINT_NAMES)}

#: kind -> stone value; the 123 is kind 4.
VALUES: Final[tuple[int, ...]] = (1, 2, 3, 4, 123)
VALUE_TEXT = ("1", "2", "3", "4", "123")
KIND_OF_VALUE = {v: k for k, v in enumerate(VALUES)}
KIND_OF_TEXT = {t: k for k, t in enumerate(VALUE_TEXT)}
FOUR: Final = 3  # kind of the 4
OPEN: Final = 4  # kind of the 123

SIDE_LETTERS = "wb"
SETUP_PLIES: Final = 10
QUIET_DEFAULT = 100
QUIET_MAX = 100_000
#: The greatest ply (and quiet count) a position string may give: nine digits, far beyond any
#: game played (with the quiet limit off only a repetition bounds a game).
PLY_MAX = 999_999_999

CAPTURE: Final = 1 << 10
PLACE: Final = 1 << 11
PASS: Final = 1 << 12
#: Moves a clock without ``movestogo`` is planned for (``SearchParameters.moves_to_go``): Zhadu
#: games are short, and 10 beat 16 at 5+0.05 where fewer never won (docs/search-experiments.md).
MOVES_TO_GO = 10
#: The fewest stones of the side to move with which the search tries a null move.
NULL_MOVE_STONES: Final = 3


def point_index(name: str) -> int:
    """The index of a point name (``a0`` -> 0); raises KeyError for no point."""
    return _INDEX[fold_case(name)]


def _bits(names: str) -> int:
    return sum(1 << _INDEX[n] for n in names.split())


#: Start zones as bitboards: White ``a0 a1 a2 a3 b0``, Black ``h0 h1 h2 h3 g0``.
ZONES: Final[tuple[int, int]] = (_bits("a0 a1 a2 a3 b0"), _bits("h0 h1 h2 h3 g0"))

# The diamond's nine grid vertices: B(ottom) and T(op) tips, L/M/R by row 1..3 from White's end.
# Per triangle: the vertex of its apex dot 1, its left dot 2 and its right dot 3 (zhadu.md picture).
TRIANGLE_VERTICES: dict[str, tuple[str, str, str]] = {
    "a": ("B", "L1", "R1"),  # apex down
    "b": ("M2", "L1", "R1"),  # apex up
    "c": ("L1", "L2", "M2"),  # apex down
    "d": ("R1", "M2", "R2"),  # apex down
    "e": ("L3", "L2", "M2"),  # apex up
    "f": ("R3", "M2", "R2"),  # apex up
    "g": ("M2", "L3", "R3"),  # apex down
    "h": ("T", "L3", "R3"),  # apex up
}


def build_steps(links: str) -> list[tuple[str, str]]:
    """Every step of the board as name pairs, from the board's description.

    ``links`` ``full``: all pairs of a triangle's 4 points; ``star``: centre-corner only.
    Between triangles: two triangles sharing an edge (two grid vertices) are joined by a step
    between their corner dots at each shared vertex.
    """
    steps: list[tuple[str, str]] = []
    for t in TRIANGLES:
        for a, b in combinations("0123", 2):
            if links == "full" or a == "0":
                steps.append((t + a, t + b))
    for t, u in combinations(TRIANGLES, 2):
        shared = set(TRIANGLE_VERTICES[t]) & set(TRIANGLE_VERTICES[u])
        if len(shared) != 2:
            continue
        for vertex in sorted(shared):
            dot_t = TRIANGLE_VERTICES[t].index(vertex) + 1
            dot_u = TRIANGLE_VERTICES[u].index(vertex) + 1
            steps.append((f"{t}{dot_t}", f"{u}{dot_u}"))
    return steps


def winning_values(first: int | None) -> frozenset[int]:
    """The enemy stone values whose capture wins for a side whose first capture is ``first``.

    No first capture yet: only the 4. Otherwise the sharing: first + captured = 4, the 123
    counting as 1, 2 or 3 (each side has one stone of each value). A first capture of the 4 has
    already won: nothing.
    """
    if first is None:
        return frozenset({4})
    return frozenset(VALUES[k] for k in range(5) if _WIN_MASK[KIND_OF_VALUE[first]] >> k & 1)


def _sharing(first_kind: int, kind: int) -> bool:
    values = (1, 2, 3) if first_kind == OPEN else (VALUES[first_kind],)
    others = (1, 2, 3) if kind == OPEN else (VALUES[kind],)
    return first_kind != kind and any(a + b == 4 for a in values for b in others)


#: first-capture kind -> bitmask of the kinds whose later capture wins (the sharing table).
_WIN_MASK: Final[tuple[int, ...]] = tuple(
    0 if first == FOUR else sum(1 << k for k in range(5) if _sharing(first, k))
    for first in range(5)
)

#: first capture kind + 1 (0: none yet) -> the enemy kinds whose capture wins, as a tuple.
WIN_KINDS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(k for k in range(5) if (1 << FOUR if first < 0 else _WIN_MASK[first]) >> k & 1)
    for first in range(-1, 5)
)

_rng = random.Random(0x2AD0)
ZOBRIST: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(key_number(_rng) for _ in range(POINTS)) for _ in range(10)
)
FIRST_KEYS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(key_number(_rng) for _ in range(5)) for _ in range(2)
)
SIDE_KEY: Final = key_number(_rng)

# Per non-capturing move int ``fr | to << 5`` (below 1024): the points it changes, as a bitboard
# (0 for a return), and per piece the key change with the side's. Looked up once in ``play`` and
# ``undo`` instead of two shifts and three xors (each a new int object when interpreted).
_MOVE_BITS: Final[tuple[int, ...]] = tuple((1 << (m & 31)) ^ (1 << (m >> 5)) for m in range(1024))
_MOVE_KEYS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(z[m & 31] ^ z[m >> 5] ^ SIDE_KEY for m in range(1024)) for z in ZOBRIST
)
#: ``ZhaduState.limit`` when the quiet limit is off: beyond any quiet count.
_NO_LIMIT: Final = 1 << 62


class Geometry:
    """The steps of one ``links`` option and the memoised destination sets of its stones."""

    def __init__(self, links: str) -> None:
        self.links = links
        self.step_pairs = build_steps(links)
        steps = [0] * POINTS
        for a, b in self.step_pairs:
            steps[_INDEX[a]] |= 1 << _INDEX[b]
            steps[_INDEX[b]] |= 1 << _INDEX[a]
        #: point -> bitboard of the points it steps to.
        self.steps: tuple[int, ...] = tuple(steps)
        # near[i][byte]: the points one step from the points of ``byte << 8 * i``, so that a
        # whole set spreads by 4 lookups (measured: a missed destination set costs 4.6x fewer
        # instructions than spreading point by point, which lets the memo stay small).
        self.near: tuple[tuple[int, ...], ...] = tuple(
            tuple(self._spread_points(byte << 8 * i) for byte in range(256)) for i in range(4)
        )
        # ball[5 * p + kind]: the points a walk of that stone may pass through (not end on):
        # those within value - 1 steps of p (2 for the 123), p itself excluded.
        ball = []
        for p in range(POINTS):
            rings = [1 << p]
            for _ in range(3):
                rings.append(rings[-1] | self.spread(rings[-1]))
            for kind in range(5):
                radius = 2 if kind == OPEN else kind
                ball.append(rings[radius] & ~(1 << p))
        self.ball: tuple[int, ...] = tuple(ball)
        #: ``high[j] = j << 32``, the memo key's high part: a lookup instead of a shift (which
        #: builds a new int each time) in the hot lookups.
        self.high: tuple[int, ...] = tuple(j << 32 for j in range(5 * POINTS))
        #: The memo of :meth:`finals`, keyed by ``(occupancy & ball[j]) | j << 32`` with
        #: ``j = 5 * p + kind`` (a stone of kind 0, the 1, needs none: its finals are its
        #: steps). At most :data:`DESTINATION_ENTRIES` entries: :meth:`remember` clears it when
        #: full. Hot code reads it inline and calls :meth:`remember` on a miss.
        self.cache: dict[int, int] = {}

    def _spread_points(self, mask: int) -> int:
        steps = self.steps
        out = 0
        while mask:
            low = mask & -mask
            out |= steps[low.bit_length() - 1]
            mask ^= low
        return out

    def spread(self, mask: int) -> int:
        """The points one step from any point of ``mask``."""
        n0, n1, n2, n3 = self.near
        return n0[mask & 255] | n1[mask >> 8 & 255] | n2[mask >> 16 & 255] | n3[mask >> 24]

    def finals(self, p: int, kind: int, occupied: int) -> int:
        """The points a walk of the stone may end on (before removing own stones), uncached.

        Intermediate points must be empty; the start counts as empty once left.
        """
        # Words (i64): compiled, no tagged-int checks in the walk's arithmetic.
        empty: i64 = (FULL ^ occupied) | (1 << p)
        n0, n1, n2, n3 = self.near
        reach: i64 = self.steps[p]
        if kind == OPEN:
            first: i64 = reach
            reach &= empty
            second: i64 = (
                n0[reach & 255] | n1[reach >> 8 & 255] | n2[reach >> 16 & 255] | n3[reach >> 24]
            )
            reach = second & empty
            return (
                first
                | second
                | n0[reach & 255]
                | n1[reach >> 8 & 255]
                | n2[reach >> 16 & 255]
                | n3[reach >> 24]
            )
        for _step in range(kind):
            reach &= empty
            if not reach:
                return 0
            reach = n0[reach & 255] | n1[reach >> 8 & 255] | n2[reach >> 16 & 255] | n3[reach >> 24]
        return reach

    def remember(self, key: int, p: int, kind: int, occupied: int) -> int:
        """:meth:`finals`, stored in the memo under ``key`` (its miss path: where the memo is
        kept within its budget)."""
        cache = self.cache
        if len(cache) >= MEMO.destination_entries:
            cache.clear()
        found = cache[key] = self.finals(p, kind, occupied)
        return found

    def destinations(self, p: int, kind: int, occupied: int) -> int:
        """:meth:`finals`, memoised (own stones not yet removed)."""
        if kind == 0:
            return self.steps[p]
        j = 5 * p + kind
        key = (occupied & self.ball[j]) | self.high[j]
        found = self.cache.get(key)
        if found is None:
            found = self.remember(key, p, kind, occupied)
        return found


def _compiled() -> bool:
    """Whether this module runs compiled (a mypyc extension, not the .py file)."""
    return (__file__ or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


#: Whether the rules core runs compiled (tests/test_compiled.py checks it fits the build).
COMPILED: Final = _compiled()
#: Whether the hot code looks the end points of a stone's walk up in the memo
#: (``Geometry.cache``, inline) or walks them (:meth:`Geometry.finals`). Interpreted, the
#: walk is a dozen bytecodes a step and the lookup a few; compiled, the lookup makes a Python
#: int of its key, hashes it and probes, and the walk is a few table reads a step (measured,
#: compiled, 30 Zhadu openings: 1.19-1.24x faster to depth 6-10 walking). The choice stays
#: inline at each hot site: one method holding it (``Geometry.walk``) cost the interpreted
#: build 5.6% more instructions over Zhadu searches (callgrind, 4 openings to depth 6).
WALK_MEMO: Final = not COMPILED


#: The memos' budgets in entries: a memo is cleared when full (no bookkeeping on its hits, as an
#: LRU would need). Chosen by measurement, 400 searches of 200 nodes from random games against
#: an unbounded memo: 1,024 destination entries cost 3.7% more instructions, 4,096 2.1%, 16,384
#: 0.4%, 65,536 nothing; the move lists at half the size hit 87% of the time, at most 88% with
#: no limit. At ~100 bytes per destination set (one memo per links option) and ~220 per move
#: list, all three stay under 5 MB (docs/search.md, "Memory").
DESTINATION_ENTRIES: Final = 1 << 14
MOVE_LIST_ENTRIES: Final = 1 << 13

GEOMETRY: dict[str, Geometry] = {links: Geometry(links) for links in ("full", "star")}


class Memo:
    """The memos' budgets in entries and the move lists' memo, in one object: compiled, a
    module constant cannot change, and the tests shrink the budgets to force clears."""

    def __init__(self) -> None:
        self.destination_entries: int = DESTINATION_ENTRIES
        self.move_list_entries: int = MOVE_LIST_ENTRIES
        #: ``((taken << 32 | ends) << 5) | p`` -> the move ints of a stone on p (captures
        #: first), at most ``move_list_entries`` of them (:func:`_stone_moves` clears it when
        #: full).
        self.move_lists: dict[int, tuple[int, ...]] = {}


MEMO: Final = Memo()


#: Every move of a stone as one shared int object, indexed by the move itself: the memo's
#: tuples hold these instead of ints of their own (measured: 555 -> 219 bytes per entry).
_MOVE_INTS: Final[tuple[int, ...]] = tuple(range((CAPTURE | 31 << 5 | 31) + 1))


def _stone_moves(key: int, p: int, ends: int, taken: int) -> tuple[int, ...]:
    """The move ints of a stone on ``p`` that may end on ``ends``, capturing on ``taken``;
    stored in the memo under ``key`` (its miss path, where its budget is kept)."""
    moves = []
    shared = _MOVE_INTS
    for targets, flag in ((taken, CAPTURE), (ends & ~taken, 0)):
        while targets:
            low = targets & -targets
            moves.append(shared[p | (low.bit_length() - 1) << 5 | flag])
            targets ^= low
    lists = MEMO.move_lists
    if len(lists) >= MEMO.move_list_entries:
        lists.clear()
    found = lists[key] = tuple(moves)
    return found


#: What :meth:`ZhaduCore.undo` needs of a capture: the quiet count, the mover's first capture
#: and the captured piece.
Taken = tuple[int, int, int]
#: A stack entry: (move, key before, repetition count recorded or 0, what a capture undoes or
#: None). Typed to its fields: compiled, the fields of a bare ``tuple`` are Python objects, and
#: undo's arithmetic on them went through CPython's generic operations (measured, 30 Zhadu
#: openings: 1.02-1.06x faster to depth 5-11 typed).
Undo = tuple[int, int, int, "Taken | None"]


@mypyc_attr(allow_interpreted_subclasses=True)
class ZhaduCore:
    """A Zhadu position with make/unmake, repetition counts and an incremental Zobrist key: the
    hot half of ``zhadu.ZhaduState`` (which adds the game interface and the text)."""

    __slots__ = (
        "_key",
        "board",
        "first",
        "g",
        "limit",
        "occ",
        "ply",
        "pos",
        "quiet",
        "rep",
        "result",
        "rules",
        "stack",
        "stm",
    )

    def __init__(
        self,
        rules: Rules,
        geometry: Geometry,
        quiet_limit: int,
        pos: list[int],
        stm: int,
        first: list[int],
        quiet: int,
        ply: int,
        result: Outcome | None,
    ) -> None:
        self.rules = rules
        self.g = geometry
        # The quiet limit as a count the quiet count never reaches when the rule is off (one
        # comparison per move).
        self.limit = quiet_limit or _NO_LIMIT
        self.pos = list(pos)  # piece (5 * side + kind) -> point, -1 off the board
        self.board = [-1] * POINTS  # point -> piece or -1
        self.occ = [0, 0]
        key = rules.key_salt ^ (SIDE_KEY if stm else 0)
        for piece, p in enumerate(self.pos):
            if p >= 0:
                self.board[p] = piece
                self.occ[piece // 5] |= 1 << p
                key ^= ZOBRIST[piece][p]
        for side in (0, 1):
            if first[side] >= 0:
                key ^= FIRST_KEYS[side][first[side]]
        self.first = list(first)  # side -> kind of its first capture, -1 none yet
        self.stm = stm
        self.ply = ply
        self.quiet = quiet
        self._key = key
        # Occurrences of each movement-phase position key; the given position counts once.
        self.rep: dict[int, int] = {key: 1} if ply >= SETUP_PLIES else {}
        self.stack: list[Undo] = []
        self.result = result  # once over

    # --- moves -------------------------------------------------------------------------------
    def legal_moves(self) -> list[int]:
        return self._moves(False)

    def quiet_moves(self) -> list[int]:
        """The moves that capture nothing: the search tries :meth:`captures` first and only
        then generates these (Zhadu has ~1.5 captures among ~32 moves, and half the cut-offs
        are captures: measured on the bench positions at depth 6)."""
        return self._moves(True)

    def _moves(self, quiet: bool) -> list[int]:
        """The legal moves, or with ``quiet`` only those that capture nothing; ``[PASS]``
        when the side to move has no move at all."""
        if self.result is not None:
            return []
        stm = self.stm
        own = self.occ[stm]
        opp = self.occ[stm ^ 1]
        occupied = own | opp
        pos = self.pos
        base = 5 * stm
        moves: list[int] = []
        if self.ply < SETUP_PLIES:
            append = moves.append
            zone = ZONES[stm] & ~occupied
            for kind in range(5):
                if pos[base + kind] < 0:
                    spots = zone
                    while spots:
                        low = spots & -spots
                        append(PLACE | kind << 5 | (low.bit_length() - 1))
                        spots ^= low
            return moves
        g = self.g
        steps, ball, cache, high = g.steps, g.ball, g.cache, g.high
        lists = MEMO.move_lists
        free = FULL ^ (occupied if quiet else own)
        capturable = 0 if quiet else opp
        for kind in range(5):
            p = pos[base + kind]
            if p < 0:
                continue
            if kind:
                if WALK_MEMO:
                    j = 5 * p + kind
                    ck = (occupied & ball[j]) | high[j]
                    found = cache.get(ck)
                    ends = g.remember(ck, p, kind, occupied) if found is None else found
                else:
                    ends = g.finals(p, kind, occupied)
            else:
                ends = steps[p]
            ends &= free | (1 << p)
            taken = ends & capturable
            # The move ints of one stone depend only on (p, ends, taken): kept as tuples,
            # measured ~1.6x faster (30 moves: 10 -> 6 us) than extracting the bits each time.
            mk = ((taken << 32 | ends) << 5) | p
            listed = lists.get(mk)
            if listed is None:
                listed = _stone_moves(mk, p, ends, taken)
            moves += listed
        if moves or (quiet and self.captures()):
            return moves
        return [PASS]

    def captures(self) -> list[int]:
        if self.result is not None or self.ply < SETUP_PLIES:
            return []
        stm = self.stm
        opp = self.occ[stm ^ 1]
        occupied = self.occ[stm] | opp
        pos = self.pos
        base = 5 * stm
        g = self.g
        # Geometry.destinations inlined, as in count_moves: quiescence calls this at every node.
        ball, cache, high = g.ball, g.cache, g.high
        moves = []
        p = pos[base]
        if p >= 0:
            taken = g.steps[p] & opp
            while taken:
                low = taken & -taken
                moves.append(p | (low.bit_length() - 1) << 5 | CAPTURE)
                taken ^= low
        for kind in (1, 2, 3, 4):
            p = pos[base + kind]
            if p < 0:
                continue
            if WALK_MEMO:
                j = 5 * p + kind
                ck = (occupied & ball[j]) | high[j]
                found = cache.get(ck)
                ends = g.remember(ck, p, kind, occupied) if found is None else found
            else:
                ends = g.finals(p, kind, occupied)
            taken = ends & opp
            while taken:
                low = taken & -taken
                moves.append(p | (low.bit_length() - 1) << 5 | CAPTURE)
                taken ^= low
        return moves

    def count_moves(self) -> int:
        if self.result is not None:
            return 0
        stm = self.stm
        own = self.occ[stm]
        occupied = own | self.occ[stm ^ 1]
        pos = self.pos
        base = 5 * stm
        if self.ply < SETUP_PLIES:  # nothing is captured yet: what is not on the board is in hand
            return (5 - popcount(own)) * popcount(ZONES[stm] & ~occupied)
        g = self.g
        # Geometry.destinations inlined, as in the evaluation (where a call measured 6-15% slower).
        ball, cache, high = g.ball, g.cache, g.high
        free = FULL ^ own
        count = 0
        p = pos[base]
        if p >= 0:
            count = popcount(g.steps[p] & (free | (1 << p)))
        for kind in (1, 2, 3, 4):
            p = pos[base + kind]
            if p < 0:
                continue
            if WALK_MEMO:
                j = 5 * p + kind
                ck = (occupied & ball[j]) | high[j]
                found = cache.get(ck)
                ends = g.remember(ck, p, kind, occupied) if found is None else found
            else:
                ends = g.finals(p, kind, occupied)
            count += popcount(ends & (free | (1 << p)))
        return count or 1

    def count_replies(self) -> int:
        """Perft 2 without making the moves that walk to a free point (nearly all of them):
        the opponent's stones stay where they are, so their move counts are taken once, and
        after each walk only the stones whose walks pass through its two points are counted
        again (measured with callgrind, perft 4 from the position after the setup: 534 M
        instructions instead of 1,592 M making every move). Captures, passes and the setup
        are played."""
        if self.result is not None or self.ply < SETUP_PLIES:
            return _replies_by_play(self)
        stm = self.stm
        own = self.occ[stm]
        their = self.occ[stm ^ 1]
        occupied = own | their
        pos = self.pos
        g = self.g
        ball, cache, high, remember = g.ball, g.cache, g.high, g.remember
        # The opponent's stones: (ball, the memo key's high part, point, kind, the points it may
        # end on, its move count now).
        their_free = FULL ^ their
        stones = []
        base = 5 * (stm ^ 1)
        for kind in range(5):
            p = pos[base + kind]
            if p >= 0:
                j = 5 * p + kind
                mask = ball[j]
                allowed = their_free | (1 << p)
                now = g.destinations(p, kind, occupied) & allowed
                stones.append((mask, high[j], p, kind, allowed, popcount(now)))
        # After a walk the position repeats a third time if it was seen twice: the keys are
        # looked up only if some key was (usually none is).
        twice = {k for k, seen in self.rep.items() if seen >= 2}
        walks = self.quiet + 1 < self.limit  # else every walk ends the game by the quiet limit
        key = self._key
        total = 0
        free = FULL ^ own
        base = 5 * stm
        captures = []
        moves = 0
        for kind in range(5):
            fr = pos[base + kind]
            if fr < 0:
                continue
            # Once per stone of the mover, not per reply: the method call costs nothing here.
            ends = g.destinations(fr, kind, occupied) & (free | (1 << fr))
            moves |= ends
            taken = ends & their
            if taken:
                captures.append((fr, taken))
            if not walks:
                continue
            targets = ends ^ taken
            start = 1 << fr
            keys = _MOVE_KEYS[base + kind]
            while targets:
                low = targets & -targets
                targets ^= low
                if twice and key ^ keys[fr | (low.bit_length() - 1) << 5] in twice:
                    continue  # a draw by repetition: no replies
                changed = start ^ low
                after = occupied ^ changed
                count = 0
                for mask, upper, p, k, allowed, before in stones:
                    if mask & changed:
                        ck = (after & mask) | upper
                        found = cache.get(ck)
                        if found is None:
                            found = remember(ck, p, k, after)
                        count += popcount(found & allowed)
                    else:
                        count += before
                total += count or 1
        if not moves:  # the only move is the pass
            return _replies_by_play(self)
        for fr, taken in captures:
            while taken:
                low = taken & -taken
                taken ^= low
                self.play(fr | (low.bit_length() - 1) << 5 | CAPTURE)
                total += self.count_moves()
                self.undo()
        return total

    def is_legal_move(self, move: int) -> bool:
        """The rules checked for this one move, without generating the others."""
        if self.result is not None or move < 0:
            return False
        stm = self.stm
        own = self.occ[stm]
        occupied = own | self.occ[stm ^ 1]
        if move & PLACE:
            kind = (move >> 5) & 7
            p = move & 31
            return (
                move == PLACE | kind << 5 | p
                and kind < 5
                and self.ply < SETUP_PLIES
                and self.pos[5 * stm + kind] < 0
                and bool((ZONES[stm] & ~occupied) >> p & 1)
            )
        if move == PASS:
            return self.legal_moves() == [PASS]
        if move & ~(31 | 31 << 5 | CAPTURE) or self.ply < SETUP_PLIES:
            return False
        fr, to = move & 31, (move >> 5) & 31
        piece = self.board[fr]
        if piece < 0 or piece // 5 != stm:
            return False
        ends = self.g.destinations(fr, piece % 5, occupied) & ((FULL ^ own) | (1 << fr))
        # a move onto an enemy stone is exactly a capture
        return bool(ends >> to & 1) and bool(move & CAPTURE) == bool(self.occ[stm ^ 1] >> to & 1)

    def is_capture(self, move: int) -> bool:
        return bool(move & CAPTURE)

    def capture_value(self, move: int) -> int:
        """0 for no capture; 1000 for a capture that wins; else the captured stone's value."""
        if not move & CAPTURE:
            return 0
        kind = self.board[(move >> 5) & 31] % 5
        first = self.first[self.stm]
        if (kind == FOUR and first < 0) or (first >= 0 and _WIN_MASK[first] >> kind & 1):
            return 1000
        return 2 if kind == OPEN else VALUES[kind]

    def play(self, move: int) -> None:
        # A path per kind of move, the common one first, each doing only its own work, with
        # table lookups for the bits and keys (measured with callgrind, perft 4 from the
        # position after the setup: 11% fewer instructions in all than one path checking for
        # every kind of move). A stack entry is (move, key before, repetition count recorded,
        # what a capture undoes or None): undo needs no dict lookup to restore the count.
        # ``occ[s] = occ[s] ^ x``, not ``^=``: mypyc compiles an augmented assignment to an
        # item as CPython's generic operation on objects.
        if move < CAPTURE:  # a stone walks to a free point (a return: to == fr)
            board = self.board
            fr = move & 31
            piece = board[fr]
            board[fr] = -1
            board[move >> 5] = piece
            self.pos[piece] = move >> 5
            stm = self.stm
            self.occ[stm] = self.occ[stm] ^ _MOVE_BITS[move]
            self.stm = stm ^ 1
            key = self._key
            now = self._key = key ^ _MOVE_KEYS[piece][move]
            self.ply += 1
            quiet = self.quiet = self.quiet + 1
            rep = self.rep
            seen = rep[now] = rep.get(now, 0) + 1
            self.stack.append((move, key, seen, None))
            if seen > 2:
                self.result = DRAW_BY_REPETITION
            elif quiet >= self.limit:
                self.result = DRAW_BY_QUIET_LIMIT
        elif move < PLACE:  # a capture (never a return: it ends on the enemy stone)
            board = self.board
            fr = move & 31
            to = move >> 5 & 31
            piece = board[fr]
            victim = board[to]
            board[fr] = -1
            board[to] = piece
            pos = self.pos
            pos[piece] = to
            pos[victim] = -1
            stm = self.stm
            opp = stm ^ 1
            occ = self.occ
            occ[stm] = occ[stm] ^ _MOVE_BITS[move ^ CAPTURE]
            occ[opp] = occ[opp] ^ 1 << to
            key = self._key
            now = key ^ _MOVE_KEYS[piece][move ^ CAPTURE] ^ ZOBRIST[victim][to]
            kind = victim - 5 * opp
            first = self.first[stm]
            if first < 0:
                self.first[stm] = kind
                now ^= FIRST_KEYS[stm][kind]
                won = _WIN_BY_FOUR[stm] if kind == FOUR else None
            else:
                won = _WIN_BY_SHARING[stm] if _WIN_MASK[first] >> kind & 1 else None
            self.stm = opp
            self._key = now
            self.ply += 1
            self.stack.append((move, key, 1, (self.quiet, first, victim)))
            self.quiet = 0
            # The stones are new to the game (none comes back once taken): a first occurrence.
            self.rep[now] = 1
            if won is not None:
                self.result = won
        elif move & PLACE:
            p = move & 31
            stm = self.stm
            piece = 5 * stm + ((move >> 5) & 7)
            self.pos[piece] = p
            self.board[p] = piece
            self.occ[stm] = self.occ[stm] | 1 << p
            key = self._key
            now = self._key = key ^ ZOBRIST[piece][p] ^ SIDE_KEY
            self.stm = stm ^ 1
            self.ply += 1
            seen = 0
            if self.ply >= SETUP_PLIES:  # the tenth placement: the first movement position
                seen = self.rep[now] = self.rep.get(now, 0) + 1
            self.stack.append((move, key, seen, None))
        else:
            stack = self.stack
            # Passes in a row: the one before this, if any, is the stack's last move.
            again = bool(stack) and stack[-1][0] == PASS
            self.stm ^= 1
            key = self._key
            now = self._key = key ^ SIDE_KEY
            self.ply += 1
            quiet = self.quiet = self.quiet + 1
            rep = self.rep
            seen = rep[now] = rep.get(now, 0) + 1
            stack.append((move, key, seen, None))
            if again:
                self.result = DRAW_BY_TWO_PASSES
            elif seen > 2:
                self.result = DRAW_BY_REPETITION
            elif quiet >= self.limit:
                self.result = DRAW_BY_QUIET_LIMIT

    def undo(self) -> None:
        move, key, seen, taken = self.stack.pop()
        if seen:
            rep = self.rep
            if seen == 1:
                del rep[self._key]
            else:
                rep[self._key] = seen - 1
        self._key = key
        self.result = None
        self.ply -= 1
        stm = self.stm ^ 1
        self.stm = stm
        if move < CAPTURE:
            board = self.board
            fr = move & 31
            piece = board[move >> 5]
            board[move >> 5] = -1
            board[fr] = piece
            self.pos[piece] = fr
            self.occ[stm] = self.occ[stm] ^ _MOVE_BITS[move]
            self.quiet -= 1
        elif move < PLACE:
            board = self.board
            fr = move & 31
            to = move >> 5 & 31
            piece = board[to]
            assert taken is not None  # a capture's entry holds what it took
            quiet, first, victim = taken
            board[to] = victim
            board[fr] = piece
            pos = self.pos
            pos[piece] = fr
            pos[victim] = to
            occ = self.occ
            occ[stm] = occ[stm] ^ _MOVE_BITS[move ^ CAPTURE]
            occ[stm ^ 1] = occ[stm ^ 1] | 1 << to
            self.first[stm] = first
            self.quiet = quiet
        elif move & PLACE:
            p = move & 31
            self.pos[self.board[p]] = -1
            self.board[p] = -1
            self.occ[stm] = self.occ[stm] ^ 1 << p
        else:
            self.quiet -= 1

    def null_move_allowed(self) -> bool:
        """After the setup, while the game goes on and the side to move keeps
        :data:`NULL_MOVE_STONES` stones (every walk has an exact length: a side with few stones
        may have only walks that expose one, a zugzwang where a null move lies)."""
        return (
            self.ply >= SETUP_PLIES
            and self.result is None
            and popcount(self.occ[self.stm]) >= NULL_MOVE_STONES
        )

    def threatened(self) -> bool:
        """Whether a stone of the opponent reaches one of ours whose capture would win for it
        (after the setup, while the game goes on)."""
        return self._reaches_winning_stone(self.stm ^ 1)

    def wins_at_once(self) -> bool:
        """Whether a stone of the side to move reaches an enemy stone whose capture would win
        for it (after the setup, while the game goes on)."""
        return self._reaches_winning_stone(self.stm)

    def _reaches_winning_stone(self, side: int) -> bool:
        """Whether a stone of ``side`` reaches an enemy stone whose capture would win for it."""
        if self.ply < SETUP_PLIES or self.result is not None:
            return False
        pos = self.pos
        base_enemy = 5 * (side ^ 1)
        targets = 0
        for kind in WIN_KINDS[self.first[side] + 1]:
            p = pos[base_enemy + kind]
            if p >= 0:
                targets |= 1 << p
        if not targets:
            return False
        occ = self.occ
        occupied = occ[0] | occ[1]
        base = 5 * side
        g = self.g
        p = pos[base]
        if p >= 0 and g.steps[p] & targets:
            return True
        # Geometry.destinations inlined, as in the evaluation: the search asks this at every
        # inner node (measured: 8% of Zhadu search time through the method, 5% inlined).
        ball, cache, high = g.ball, g.cache, g.high
        for kind in (1, 2, 3, 4):
            p = pos[base + kind]
            if p >= 0:
                if WALK_MEMO:
                    j = 5 * p + kind
                    ck = (occupied & ball[j]) | high[j]
                    found = cache.get(ck)
                    ends = g.remember(ck, p, kind, occupied) if found is None else found
                else:
                    ends = g.finals(p, kind, occupied)
                if ends & targets:
                    return True
        return False

    def play_null(self) -> None:
        self.stm ^= 1
        self._key ^= SIDE_KEY

    def undo_null(self) -> None:
        self.stm ^= 1
        self._key ^= SIDE_KEY

    # --- the game's state ---------------------------------------------------------------------
    @property
    def key(self) -> int:
        """The position's key (read natively: the search reads it at every node)."""
        return self._key

    @property
    def side_to_move(self) -> int:
        """0 if White is to move, 1 if Black."""
        return self.stm

    @property
    def history_length(self) -> int:
        """How many moves :meth:`undo` can take back."""
        return len(self.stack)

    def outcome(self) -> Outcome | None:
        """Its detail is ``sharing``, ``first capture of the 4``, ``repetition``, ``quiet
        limit`` or ``two passes``."""
        return self.result

    # --- accessors (for the evaluation and tools) ----------------------------------------------
    @property
    def in_setup(self) -> bool:
        """Whether stones are still being placed (plies 1-10)."""
        return self.ply < SETUP_PLIES

    @property
    def phase(self) -> str:
        """``"setup"`` or ``"movement"``."""
        return "setup" if self.ply < SETUP_PLIES else "movement"

    def stones(self, side: int) -> dict[int, int]:
        """The stones of ``side`` on the board: value (1, 2, 3, 4, 123) -> point index."""
        base = 5 * side
        return {VALUES[k]: p for k in range(5) if (p := self.pos[base + k]) >= 0}

    def hand(self, side: int) -> list[int]:
        """The values ``side`` still has to place (empty after setup)."""
        if self.ply >= SETUP_PLIES:
            return []
        return [VALUES[k] for k in range(5) if self.pos[5 * side + k] < 0]

    def first_capture(self, side: int) -> int | None:
        """The value of the first stone ``side`` captured, or None."""
        kind = self.first[side]
        return None if kind < 0 else VALUES[kind]

    def winning_values(self, side: int) -> frozenset[int]:
        """The enemy stone values whose capture would now win for ``side``."""
        return winning_values(self.first_capture(side))

    def occupancy(self, side: int) -> int:
        """Bitboard of the points holding ``side``'s stones."""
        return self.occ[side]

    def stone_at(self, point: int) -> tuple[int, int] | None:
        """``(side, value)`` of the stone on ``point``, or None if it is empty."""
        piece = self.board[point]
        return None if piece < 0 else (piece // 5, VALUES[piece % 5])

    def neighbours(self, point: int) -> int:
        """Bitboard of the points ``point`` steps to in this variant."""
        return self.g.steps[point]

    def destinations(self, point: int) -> int:
        """Bitboard of the points the stone on ``point`` may move to (whichever side it is),
        captures included; 0 for an empty point. Ignores whose turn it is and game end."""
        piece = self.board[point]
        if piece < 0:
            return 0
        side = piece // 5
        occupied = self.occ[0] | self.occ[1]
        ends = self.g.destinations(point, piece % 5, occupied)
        return ends & ((FULL ^ self.occ[side]) | (1 << point))

    def destination_list(self, point: int) -> list[int]:
        """:meth:`destinations` as point indices in increasing order."""
        ends = self.destinations(point)
        return [p for p in range(POINTS) if ends >> p & 1]


def _replies_by_play(state: ZhaduCore) -> int:
    """Perft 2 by playing each move and counting the replies (``State.count_replies``)."""
    total = 0
    for move in state.legal_moves():
        state.play(move)
        total += state.count_moves()
        state.undo()
    return total
