"""Zhadu (R. A. Frederickson, 1993): the rules in docs/zhadu.md, variants ``zhadu``
(corner-corner steps inside a triangle) and ``zhadu-star`` (centre-corner only).

Board: 32 points, point ``4 * triangle + dot`` (``a0`` = 0, ``a1`` = 1, ..., ``h3`` = 31), one bit
each in an int. The steps are *built* from the board's description (:func:`build_steps`): the
grid vertices of each triangle's corners, every step inside a triangle, and a step between the two
corner dots at a shared vertex of two edge-sharing triangles.

Stones: kind ``0..4`` for the values ``1 2 3 4 123``; piece ``5 * side + kind``.
Moves inside the engine are ints: ``from | to << 5 | CAPTURE`` for a move, ``PLACE | kind << 5 |
point`` for a placement and :data:`PASS`.

Where a stone may end is a function of its point, its kind and the occupancy of the points its
walk may pass through (those within ``value - 1`` steps of it), so it is memoised per geometry
keyed by exactly those (:meth:`Geometry.destinations`): a position's moves cost one dict lookup
per stone, never a path search (walks with backtracking are bitboard layers: reach_i =
neighbours(reach_{i-1}) & empty, the start counting as empty).

The Zobrist key covers the stones, the side to move and both first captures, salted with the
rules (``Rules.key_salt``: the links and the quiet limit, which changes outcomes). Setup positions
need no phase key: they have no first captures and fewer than 10 stones, while a movement
position missing a stone always has the opponent's first capture set. Whether the last move was a
pass (which decides if a pass now ends the game) is not in the key, as the position string
cannot carry it either. (The two-pass draw is kept as the spec states it, but cannot arise: a
stone next to an empty point always has a move, so both sides are walled in only if every point
next to a stone is occupied, i.e. all 32 points of the connected board.)

For the evaluation (engine/zhadu_eval.py), all public and stable:

* ``state.stones(side) -> dict[int, int]``: stone value (1, 2, 3, 4, 123) -> point index.
* ``state.first_capture(side) -> int | None``: the value of the first stone ``side`` captured.
* ``state.phase`` (``"setup"`` or ``"movement"``), ``state.in_setup``, ``state.hand(side)``.
* ``state.destinations(point) -> int``: bitboard of where the stone on ``point`` may move
  (movement phase, either side); ``state.destination_list(point)`` the same as point indices.
* ``state.occupancy(side) -> int``: bitboard of a side's stones; ``state.stone_at(point)``.
* ``state.neighbours(point) -> int`` (and ``Geometry.steps``): bitboard of the points a point
  steps to in this variant.
* ``winning_values(first) -> frozenset[int]`` (also ``state.winning_values(side)``): the enemy
  stone values whose capture wins for a side whose first capture is ``first`` (None: only the 4).
* ``POINT_NAMES``, ``point_index(name)``, ``VALUES``, ``ZONES`` (bitboards of the start zones).
* Hot code may read the state's slots directly (kept stable for that): ``pos`` (piece
  ``5 * side + kind`` -> point, -1 off the board), ``occ`` (per side bitboards), ``first`` (per
  side kind of the first capture, -1 none), ``stm``, ``ply``, ``g`` (:class:`Geometry`: ``steps``,
  ``destinations(point, kind, occupied)``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from itertools import combinations
from typing import ClassVar, cast

from zengine.engine.game import (
    BadRuleValueError,
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    Rule,
    RuleOption,
    Rules,
    SearchParameters,
    State,
    fold_case,
    parse_count,
)
from zengine.engine.svg import document, element, group, label, number
from zengine.engine.values import Outcome, Result, Termination, shown

DRAW_BY_TWO_PASSES = Outcome(Result.DRAW, Termination.RULES, "two passes")
DRAW_BY_REPETITION = Outcome(Result.DRAW, Termination.RULES, "repetition")
DRAW_BY_QUIET_LIMIT = Outcome(Result.DRAW, Termination.RULES, "quiet limit")
# Per winner, made once: a frozen dataclass is slow to build, and the search plays many winning
# captures (cProfile over the Zhadu bench: play's own time 0.106 s -> 0.055 s with these and
# the split paths of ``play``).
_WIN_BY_FOUR = tuple(
    Outcome(Result.win_for(s), Termination.RULES, "first capture of the 4") for s in (0, 1)
)
_WIN_BY_SHARING = tuple(Outcome(Result.win_for(s), Termination.RULES, "sharing") for s in (0, 1))

TRIANGLES = "abcdefgh"
POINT_NAMES: tuple[str, ...] = tuple(f"{t}{d}" for t in TRIANGLES for d in "0123")
POINTS = 32
FULL = (1 << POINTS) - 1
_INDEX = {name: i for i, name in enumerate(POINT_NAMES)}

#: kind -> stone value; the 123 is kind 4.
VALUES: tuple[int, ...] = (1, 2, 3, 4, 123)
VALUE_TEXT = ("1", "2", "3", "4", "123")
KIND_OF_VALUE = {v: k for k, v in enumerate(VALUES)}
KIND_OF_TEXT = {t: k for k, t in enumerate(VALUE_TEXT)}
FOUR = 3  # kind of the 4
OPEN = 4  # kind of the 123

SIDE_LETTERS = "wb"
SETUP_PLIES = 10
QUIET_DEFAULT = 100
QUIET_MAX = 100_000
#: The greatest ply (and quiet count) a position string may give: nine digits, far beyond any
#: game played (with the quiet limit off only a repetition bounds a game).
PLY_MAX = 999_999_999

CAPTURE = 1 << 10
PLACE = 1 << 11
PASS = 1 << 12
#: Moves a clock without ``movestogo`` is planned for (``SearchParameters.moves_to_go``): Zhadu
#: games are short, and 10 beat 16 at 5+0.05 where fewer never won (docs/search-experiments.md).
MOVES_TO_GO = 10
#: The fewest stones of the side to move with which the search tries a null move.
NULL_MOVE_STONES = 3


def point_index(name: str) -> int:
    """The index of a point name (``a0`` -> 0); raises KeyError for no point."""
    return _INDEX[fold_case(name)]


def _bits(names: str) -> int:
    return sum(1 << _INDEX[n] for n in names.split())


#: Start zones as bitboards: White ``a0 a1 a2 a3 b0``, Black ``h0 h1 h2 h3 g0``.
ZONES: tuple[int, int] = (_bits("a0 a1 a2 a3 b0"), _bits("h0 h1 h2 h3 g0"))

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
_WIN_MASK: tuple[int, ...] = tuple(
    0 if first == FOUR else sum(1 << k for k in range(5) if _sharing(first, k))
    for first in range(5)
)

#: first capture kind + 1 (0: none yet) -> the enemy kinds whose capture wins, as a tuple.
WIN_KINDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(k for k in range(5) if (1 << FOUR if first < 0 else _WIN_MASK[first]) >> k & 1)
    for first in range(-1, 5)
)

_rng = random.Random(0x2AD0)
ZOBRIST: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rng.getrandbits(64) for _ in range(POINTS)) for _ in range(10)
)
FIRST_KEYS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rng.getrandbits(64) for _ in range(5)) for _ in range(2)
)
SIDE_KEY = _rng.getrandbits(64)

# Per non-capturing move int ``fr | to << 5`` (below 1024): the points it changes, as a bitboard
# (0 for a return), and per piece the key change with the side's. Looked up once in ``play`` and
# ``undo`` instead of two shifts and three xors of 64-bit ints (each a new int object).
_MOVE_BITS: tuple[int, ...] = tuple((1 << (m & 31)) ^ (1 << (m >> 5)) for m in range(1024))
_MOVE_KEYS: tuple[tuple[int, ...], ...] = tuple(
    tuple(z[m & 31] ^ z[m >> 5] ^ SIDE_KEY for m in range(1024)) for z in ZOBRIST
)
#: ``ZhaduState.limit`` when the quiet limit is off: beyond any quiet count.
_NO_LIMIT = 1 << 62


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
        empty = (FULL ^ occupied) | (1 << p)
        n0, n1, n2, n3 = self.near
        reach = self.steps[p]
        if kind == OPEN:
            first = reach
            reach &= empty
            second = (
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
        for _ in range(kind):
            reach &= empty
            if not reach:
                return 0
            reach = n0[reach & 255] | n1[reach >> 8 & 255] | n2[reach >> 16 & 255] | n3[reach >> 24]
        return reach

    def remember(self, key: int, p: int, kind: int, occupied: int) -> int:
        """:meth:`finals`, stored in the memo under ``key`` (its miss path: where the memo is
        kept within its budget)."""
        cache = self.cache
        if len(cache) >= DESTINATION_ENTRIES:
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


#: The memos' budgets in entries: a memo is cleared when full (no bookkeeping on its hits, as an
#: LRU would need). Chosen by measurement, 400 searches of 200 nodes from random games against
#: an unbounded memo: 1,024 destination entries cost 3.7% more instructions, 4,096 2.1%, 16,384
#: 0.4%, 65,536 nothing; the move lists at half the size hit 87% of the time, at most 88% with
#: no limit. At ~100 bytes per destination set (one memo per links option) and ~220 per move
#: list, all three stay under 5 MB (docs/search.md, "Memory").
DESTINATION_ENTRIES = 1 << 14
MOVE_LIST_ENTRIES = 1 << 13

GEOMETRY: dict[str, Geometry] = {links: Geometry(links) for links in ("full", "star")}

#: ``((taken << 32 | ends) << 5) | p`` -> the move ints of a stone on p (captures first), at
#: most :data:`MOVE_LIST_ENTRIES` of them (:func:`_stone_moves` clears it when full).
_MOVE_LISTS: dict[int, tuple[int, ...]] = {}


#: Every move of a stone as one shared int object, indexed by the move itself: the memo's
#: tuples hold these instead of ints of their own (measured: 555 -> 219 bytes per entry).
_MOVE_INTS: tuple[int, ...] = tuple(range((CAPTURE | 31 << 5 | 31) + 1))


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
    if len(_MOVE_LISTS) >= MOVE_LIST_ENTRIES:
        _MOVE_LISTS.clear()
    found = _MOVE_LISTS[key] = tuple(moves)
    return found


class ZhaduRules(Rules):
    """Zhadu with its rule options ``links`` (full, star) and ``quiet`` (0..100000, 0 = off)."""

    game = "zhadu"
    player_names = ("White", "Black")
    VARIANTS: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "zhadu": {},
        "zhadu-star": {"links": "star"},
    }
    RULES = (
        Rule("links", "full", tuple(GEOMETRY)),
        Rule("quiet", str(QUIET_DEFAULT), low=0, high=QUIET_MAX),
    )
    setup_plies = SETUP_PLIES
    ENGINE_OPTIONS = (RuleOption("quiet", "Zhadu Quiet", QUIET_DEFAULT, 0, QUIET_MAX),)
    #: The start, then mid-game positions from short engine games after random setups.
    BENCH_POSITIONS: ClassVar[Mapping[str, tuple[str | None, ...]]] = {
        "zhadu": (
            None,
            "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10",
            "1b0,2a2,3a1,4a0/1h0,2h3,3e1,4g1,123h1 w -/123 2 18",
            "1a2,2a3,3f1,4e0,123a0/1h0,2g0,3h3,4b1 w 123/- 11 26",
            "1a0,2a1,4b2,123b1/1g1,3g0,123h1 w 2/3 6 26",
        ),
        "zhadu-star": (
            None,
            "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10",
            "1b0,2c1,3a1,4a0,123d1/1h0,2d0,3g3,4h2,123h1 w -/- 8 18",
            "1a1,2d1,3c0,4c1,123b2/1h1,2h2,3h0,4f3,123f2 w -/- 16 26",
            "1a2,2d1,3b0,4c1/1f1,2h3,4b1,123g2 w 3/123 7 26",
            "1a2,2d1,3a1,4d2,123b1/1f3,2g2,3e2,4h3,123h2 w -/- 16 26",
        ),
    }

    def __init__(self, links: str = "full", quiet: int = QUIET_DEFAULT) -> None:
        if links not in GEOMETRY:
            raise BadRuleValueError(f"bad value '{links}' for rule 'links' (full or star)")
        if not 0 <= quiet <= QUIET_MAX:
            raise BadRuleValueError(f"bad value '{quiet}' for rule 'quiet' (0..{QUIET_MAX})")
        self.links = links
        self.quiet = quiet
        self.geometry = GEOMETRY[links]
        self.options = {"links": links, "quiet": str(quiet)}
        self.name = "zhadu" if links == "full" else "zhadu-star"

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> ZhaduRules:
        """Rules from ``setup`` options: ``links full|star``, ``quiet N`` (0..100000)."""
        values = cls.rule_values(options)
        return cls(values["links"], int(values["quiet"]))

    def evaluation(self) -> Callable[[State], int]:
        from zengine.engine.zhadu_eval import evaluate

        return cast(Callable[[State], int], evaluate)

    def search_parameters(self) -> SearchParameters:
        """A clock is planned for :data:`MOVES_TO_GO` moves (Zhadu games are short), a
        position with a winning capture pending against the mover is searched a ply deeper
        (:meth:`ZhaduState.threatened`), one where the mover has a winning capture scores as
        won unsearched (:meth:`ZhaduState.wins_at_once`), and the few captures are tried
        before the quiet moves are generated (:meth:`ZhaduState.quiet_moves`)."""
        return SearchParameters(
            moves_to_go=MOVES_TO_GO,
            threat_extension=True,
            win_detection=True,
            captures_first=True,
            counter_moves=True,
            history_lmr=True,
        )

    def start(self) -> ZhaduState:
        return ZhaduState(self, [-1] * 10, 0, [-1, -1], 0, 0, None)

    def parse_position(self, text: str) -> ZhaduState:
        """Parse ``<white>/<black> <side> <first>/<first> <quiet> <ply>``; checks consistency."""
        return _parse_position(self, text)


class ZhaduState(State):
    """A Zhadu position with make/unmake, repetition counts and an incremental Zobrist key."""

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
        rules: ZhaduRules,
        pos: list[int],
        stm: int,
        first: list[int],
        quiet: int,
        ply: int,
        result: Outcome | None,
    ) -> None:
        self.rules = rules
        self.g = rules.geometry
        # The quiet limit as a count the quiet count never reaches when the rule is off (one
        # comparison per move).
        self.limit = rules.quiet or _NO_LIMIT
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
        self.stack: list[tuple] = []
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
        lists = _MOVE_LISTS
        free = FULL ^ (occupied if quiet else own)
        capturable = 0 if quiet else opp
        for kind in range(5):
            p = pos[base + kind]
            if p < 0:
                continue
            if kind:
                j = 5 * p + kind
                ck = (occupied & ball[j]) | high[j]
                ends = cache.get(ck)
                if ends is None:
                    ends = g.remember(ck, p, kind, occupied)
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
            j = 5 * p + kind
            ck = (occupied & ball[j]) | high[j]
            ends = cache.get(ck)
            if ends is None:
                ends = g.remember(ck, p, kind, occupied)
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
            return (5 - own.bit_count()) * (ZONES[stm] & ~occupied).bit_count()
        g = self.g
        # Geometry.destinations inlined, as in the evaluation (where a call measured 6-15% slower).
        ball, cache, high = g.ball, g.cache, g.high
        free = FULL ^ own
        count = 0
        p = pos[base]
        if p >= 0:
            count = (g.steps[p] & (free | (1 << p))).bit_count()
        for kind in (1, 2, 3, 4):
            p = pos[base + kind]
            if p < 0:
                continue
            j = 5 * p + kind
            ck = (occupied & ball[j]) | high[j]
            ends = cache.get(ck)
            if ends is None:
                ends = g.remember(ck, p, kind, occupied)
            count += (ends & (free | (1 << p))).bit_count()
        return count or 1

    def count_replies(self) -> int:
        """Perft 2 without making the moves that walk to a free point (nearly all of them):
        the opponent's stones stay where they are, so their move counts are taken once, and
        after each walk only the stones whose walks pass through its two points are counted
        again (measured with callgrind, perft 4 from the position after the setup: 534 M
        instructions instead of 1,592 M making every move). Captures, passes and the setup
        are played."""
        if self.result is not None or self.ply < SETUP_PLIES:
            return super().count_replies()
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
                stones.append((mask, high[j], p, kind, allowed, now.bit_count()))
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
                        count += (found & allowed).bit_count()
                    else:
                        count += before
                total += count or 1
        if not moves:  # the only move is the pass
            return super().count_replies()
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
        if move < CAPTURE:  # a stone walks to a free point (a return: to == fr)
            board = self.board
            fr = move & 31
            piece = board[fr]
            board[fr] = -1
            board[move >> 5] = piece
            self.pos[piece] = move >> 5
            stm = self.stm
            self.occ[stm] ^= _MOVE_BITS[move]
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
            occ[stm] ^= _MOVE_BITS[move ^ CAPTURE]
            occ[opp] ^= 1 << to
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
            self.occ[stm] |= 1 << p
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
            self.occ[stm] ^= _MOVE_BITS[move]
            self.quiet -= 1
        elif move < PLACE:
            board = self.board
            fr = move & 31
            to = move >> 5 & 31
            piece = board[to]
            quiet, first, victim = taken
            board[to] = victim
            board[fr] = piece
            pos = self.pos
            pos[piece] = fr
            pos[victim] = to
            occ = self.occ
            occ[stm] ^= _MOVE_BITS[move ^ CAPTURE]
            occ[stm ^ 1] |= 1 << to
            self.first[stm] = first
            self.quiet = quiet
        elif move & PLACE:
            p = move & 31
            self.pos[self.board[p]] = -1
            self.board[p] = -1
            self.occ[stm] ^= 1 << p
        else:
            self.quiet -= 1

    def null_move_allowed(self) -> bool:
        """After the setup, while the game goes on and the side to move keeps
        :data:`NULL_MOVE_STONES` stones (every walk has an exact length: a side with few stones
        may have only walks that expose one, a zugzwang where a null move lies)."""
        return (
            self.ply >= SETUP_PLIES
            and self.result is None
            and self.occ[self.stm].bit_count() >= NULL_MOVE_STONES
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
                j = 5 * p + kind
                ck = (occupied & ball[j]) | high[j]
                ends = cache.get(ck)
                if ends is None:
                    ends = g.remember(ck, p, kind, occupied)
                if ends & targets:
                    return True
        return False

    def play_null(self) -> None:
        self.stm ^= 1
        self._key ^= SIDE_KEY

    undo_null = play_null

    def copy(self) -> ZhaduState:
        other = object.__new__(ZhaduState)
        other.rules = self.rules
        other.g = self.g
        other.limit = self.limit
        other.pos = list(self.pos)
        other.board = list(self.board)
        other.occ = list(self.occ)
        other.first = list(self.first)
        other.stm = self.stm
        other.ply = self.ply
        other.quiet = self.quiet
        other._key = self._key
        other.rep = dict(self.rep)
        other.stack = list(self.stack)
        other.result = self.result
        return other

    # --- the game's state ---------------------------------------------------------------------
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

    # --- text ------------------------------------------------------------------------------------
    def move_text(self, move: int) -> str:
        if move & PASS:
            return "pass"
        if move & PLACE:
            return f"{VALUE_TEXT[(move >> 5) & 7]}@{POINT_NAMES[move & 31]}"
        sep = "x" if move & CAPTURE else "-"
        return f"{POINT_NAMES[move & 31]}{sep}{POINT_NAMES[(move >> 5) & 31]}"

    def parse_move(self, text: str) -> int:
        cleaned = fold_case(text.strip())
        if cleaned == "pass":
            return self._find(
                text, lambda m: bool(m & PASS), lambda: "a pass is legal only with no other move"
            )
        placement = _PLACE_RE.fullmatch(cleaned)
        if placement:
            stone, point = placement[1], placement[2]
            if stone not in KIND_OF_TEXT:
                raise InvalidMoveError(
                    f"'{shown(text)}': no stone '{shown(stone)}' (stones: 1 2 3 4 123)"
                )
            p = _point(text, point)
            kind = KIND_OF_TEXT[stone]
            return self._find(
                text, lambda m: m == PLACE | kind << 5 | p, lambda: self._why_not_place(kind, p)
            )
        step = _MOVE_RE.fullmatch(cleaned)
        if not step:
            raise InvalidMoveError(
                f"'{shown(text)}' is no zhadu move (expected e.g. 4@a1, b0-c1, c3xe3 or pass)"
            )
        fr, to = _point(text, step[1]), _point(text, step[3])
        return self._find(
            text,
            lambda m: not m & (PLACE | PASS) and m & 31 == fr and (m >> 5) & 31 == to,
            lambda: self._why_not_move(fr, to),
        )

    def _find(self, text: str, match: Callable[[int], bool], reason: Callable[[], str]) -> int:
        """The legal move ``match`` accepts, else IllegalMoveError with ``reason()``."""
        if self.result is not None:
            raise IllegalMoveError(f"illegal move '{shown(text)}': the game is over")
        for move in self.legal_moves():
            if match(move):
                return move
        raise IllegalMoveError(f"illegal move '{shown(text)}': {reason()}")

    def _why_not_place(self, kind: int, p: int) -> str:
        side = self.rules.player_names[self.stm]
        if self.ply >= SETUP_PLIES:
            return "the setup is over"
        if self.pos[5 * self.stm + kind] >= 0:
            return f"{side}'s {VALUE_TEXT[kind]} is already on the board"
        if not ZONES[self.stm] >> p & 1:
            return f"{POINT_NAMES[p]} is not in {side}'s start zone"
        return f"{POINT_NAMES[p]} is occupied"

    def _why_not_move(self, fr: int, to: int) -> str:
        if self.ply < SETUP_PLIES:
            return "stones are still being placed"
        piece = self.board[fr]
        if piece < 0 or piece // 5 != self.stm:
            return f"no {self.rules.player_names[self.stm]} stone on {POINT_NAMES[fr]}"
        value = VALUE_TEXT[piece % 5]
        return f"the {value} on {POINT_NAMES[fr]} cannot reach {POINT_NAMES[to]}"

    def position_text(self) -> str:
        sides = []
        for side in (0, 1):
            base = 5 * side
            parts = [
                f"{VALUE_TEXT[k]}{POINT_NAMES[self.pos[base + k]]}"
                for k in range(5)
                if self.pos[base + k] >= 0
            ]
            sides.append(",".join(parts) or "-")
        firsts = "/".join("-" if k < 0 else VALUE_TEXT[k] for k in self.first)
        return f"{sides[0]}/{sides[1]} {SIDE_LETTERS[self.stm]} {firsts} {self.quiet} {self.ply}"

    def diagram(self) -> str:
        cells = {}
        for p in range(POINTS):
            piece = self.board[p]
            if piece >= 0:
                cells[p] = f"{'WB'[piece // 5]}{VALUE_TEXT[piece % 5]}"
        lines = []
        for row in _DIAGRAM:
            line = list(row)
            for match in re.finditer(r"[a-h][0-3]", row):
                token = cells.get(_INDEX[match[0]])
                if token:
                    start = match.start() - (1 if len(token) > 3 else 0)
                    line[start : start + len(token)] = list(token.ljust(2))
            lines.append("".join(line).rstrip())
        names = self.rules.player_names
        lines.append("")
        if self.ply < SETUP_PLIES:
            hands = "; ".join(
                f"{names[s]} in hand: {' '.join(map(str, self.hand(s))) or '-'}" for s in (0, 1)
            )
            lines.append(f"Setup, ply {self.ply}. {hands}")
        else:
            firsts = ", ".join(
                f"{names[s]} first capture: {self.first_capture(s) or '-'}" for s in (0, 1)
            )
            lines.append(f"Movement, ply {self.ply}, quiet {self.quiet}. {firsts}")
        if self.result is None:
            lines.append(f"{names[self.stm]} ({'WB'[self.stm]}) to move")
        else:
            lines.append(f"Game over: {self.result.result.pgn} ({self.result.detail})")
        return "\n".join(lines)

    # --- pictures (``zengine svg``) ----------------------------------------------------------
    # Everything below draws the position; it reads the state and never changes it.

    def svg(self, size: int = 480, last_move: int | None = None) -> str:
        """The board as SVG: the eight triangles, the 32 points with their names, every step
        of this variant (``class="step"``, the cross links ``class="step link"``), the start
        zones, the stones (``class="stone white" data-point="a1" data-stone="123"``), beside the
        board each side's stones in hand (``class="hand-stone white"``) or first capture
        (``class="first-capture black" data-side="white"``), and the last move's points
        (``class="last-move from|to" data-point=...``)."""
        names = self.rules.player_names
        body = [element("rect", width=_WIDTH, height=_HEIGHT, fill=_BACKGROUND)]
        body.append(
            group(
                (
                    element(
                        "polygon",
                        class_=_triangle_class(t),
                        data_triangle=t,
                        points=" ".join(f"{number(x)},{number(y)}" for x, y in corners),
                        fill=_triangle_fill(t),
                        stroke=_TRIANGLE_EDGE,
                        stroke_width=2.0,
                        stroke_linejoin="round",
                    )
                    for t, corners in _TRIANGLE_CORNERS.items()
                ),
                class_="triangles",
            )
        )
        steps = []
        for a, b in self.g.step_pairs:
            (x1, y1), (x2, y2) = _AT[_INDEX[a]], _AT[_INDEX[b]]
            link = a[0] != b[0]
            steps.append(
                element(
                    "line",
                    class_="step link" if link else "step",
                    data_from=a,
                    data_to=b,
                    x1=x1,
                    y1=y1,
                    x2=x2,
                    y2=y2,
                    stroke=_LINK if link else _STEP,
                    stroke_width=5.0 if link else 2.0,
                    stroke_linecap="round",
                )
            )
        body.append(group(steps, class_="steps"))
        marks = []
        if last_move is not None and not last_move & PASS:
            to = last_move & 31 if last_move & PLACE else (last_move >> 5) & 31
            ends = [("to", to)]
            if not last_move & PLACE:
                ends.insert(0, ("from", last_move & 31))
            for role, p in ends:
                x, y = _AT[p]
                marks.append(
                    element(
                        "circle",
                        class_=f"last-move {role}",
                        data_point=POINT_NAMES[p],
                        cx=x,
                        cy=y,
                        r=_STONE_R + 6.0,
                        fill=_HIGHLIGHT if role == "to" else "none",
                        stroke=_HIGHLIGHT,
                        stroke_width=4.0,
                        stroke_dasharray="6 4" if role == "from" else None,
                    )
                )
        points = []
        for p, (x, y) in enumerate(_AT):
            zone = next((s for s in (0, 1) if ZONES[s] >> p & 1), None)
            if zone is not None and _triangle_zone(POINT_NAMES[p][0]) is None:
                # A zone point outside a zone triangle: a halo that shows around a stone.
                points.append(
                    element(
                        "circle",
                        class_=f"zone {_SIDE_CLASS[zone]}",
                        data_point=POINT_NAMES[p],
                        cx=x,
                        cy=y,
                        r=_STONE_R + 6.0,
                        fill=_ZONE_EDGE[zone],
                        fill_opacity=0.6,
                    )
                )
            points.append(
                element(
                    "circle",
                    class_="point",
                    data_point=POINT_NAMES[p],
                    cx=x,
                    cy=y,
                    r=_POINT_R,
                    fill=_POINT_FILL if zone is None else _ZONE_FILL[zone],
                    stroke=_POINT_EDGE if zone is None else _ZONE_EDGE[zone],
                    stroke_width=1.5 if zone is None else 2.5,
                )
            )
            points.append(label(x, y, POINT_NAMES[p], 11.0, fill=_POINT_INK))
        body.append(group(points, class_="points"))
        body.append(group(marks, class_="highlights"))
        stones = []
        for piece, p in enumerate(self.pos):
            if p >= 0:
                x, y = _AT[p]
                stones.append(
                    _stone(x, y, piece // 5, piece % 5, "stone", data_point=POINT_NAMES[p])
                )
        body.append(group(stones, class_="stones"))
        body.append(self._svg_panel(0, _WHITE_PANEL))
        body.append(self._svg_panel(1, _BLACK_PANEL))
        if self.result is not None:
            status = _result_text(self.result, names)
        elif self.ply < SETUP_PLIES:
            status = f"Setup, ply {self.ply}: {names[self.stm]} to place"
        else:
            status = f"Ply {self.ply}, quiet {self.quiet}: {names[self.stm]} to move"
        caption = [label(_PAD, _HEIGHT - _CAPTION / 2, status, 17.0, text_anchor="start")]
        if last_move is not None:
            caption.append(
                label(
                    _WIDTH - _PAD,
                    _HEIGHT - _CAPTION / 2,
                    f"Last move: {self.move_text(last_move)}",
                    17.0,
                    text_anchor="end",
                )
            )
        body.append(group(caption, class_="caption", fill=_INK))
        title = f"{self.rules.name}: {self.position_text()}"
        return document(_WIDTH, _HEIGHT, size, title, body, f"{self.rules.describe()}; {status}")

    def _svg_panel(self, side: int, origin: tuple[float, float]) -> str:
        """One side's box beside the board: its stones in hand during the setup, then its
        first capture and the enemy stones whose capture would now win."""
        x0, y0 = origin
        name = self.rules.player_names[side]
        to_move = self.result is None and self.stm == side
        heading = name + (" to move" if to_move else "")
        weight = "bold" if to_move else None
        parts = [label(x0, y0, heading, 18.0, text_anchor="start", font_weight=weight)]
        spacing = 2 * _STONE_R + 8.0
        if self.ply < SETUP_PLIES:
            parts.append(label(x0, y0 + 30.0, "In hand", 14.0, text_anchor="start"))
            for i, value in enumerate(self.hand(side)):
                x = x0 + _STONE_R + (i % 3) * spacing
                y = y0 + 30.0 + 14.0 + _STONE_R + (i // 3) * spacing
                parts.append(_stone(x, y, side, KIND_OF_VALUE[value], "hand-stone"))
            if not self.hand(side):
                parts.append(label(x0, y0 + 58.0, "none", 14.0, text_anchor="start"))
        else:
            parts.append(label(x0, y0 + 30.0, "First capture", 14.0, text_anchor="start"))
            kind = self.first[side]
            if kind >= 0:
                x, y = x0 + _STONE_R, y0 + 44.0 + _STONE_R
                parts.append(
                    _stone(x, y, 1 - side, kind, "first-capture", data_side=_SIDE_CLASS[side])
                )
            else:
                parts.append(label(x0, y0 + 58.0, "none yet", 14.0, text_anchor="start"))
            wins = sorted(self.winning_values(side))
            if self.result is None and wins:
                goal = " or ".join(filter(None, (", ".join(map(str, wins[:-1])), str(wins[-1]))))
                parts.append(
                    label(x0, y0 + 100.0, f"Wins by taking {goal}", 14.0, text_anchor="start")
                )
        return group(parts, class_=f"panel {_SIDE_CLASS[side]}", fill=_INK)

    def parse_last_move(self, text: str) -> int:
        """The placement, move or pass a text names as the one that led here, checked against
        this position alone: the stone stands where it went, the point it left is empty and
        the walk was possible with the stones as they stood; a capture (the quiet count is 0
        after it) and a pass are rebuilt the same way."""
        cleaned = fold_case(text.strip())
        placement = _PLACE_RE.fullmatch(cleaned)
        step = _MOVE_RE.fullmatch(cleaned)
        if placement:
            if placement[1] not in KIND_OF_TEXT:
                raise InvalidMoveError(
                    f"'{shown(text)}': no stone '{shown(placement[1])}' (stones: 1 2 3 4 123)"
                )
            p, kind = _point(text, placement[2]), KIND_OF_TEXT[placement[1]]
        elif step:
            fr, to = _point(text, step[1]), _point(text, step[3])
        elif cleaned != "pass":
            raise InvalidMoveError(
                f"'{shown(text)}' is no zhadu move (expected e.g. 4@a1, b0-c1, c3xe3 or pass)"
            )
        mover = self.stm ^ 1
        colour = self.rules.player_names[mover]

        def cannot(reason: str) -> IllegalMoveError:
            return IllegalMoveError(f"'{shown(text)}' cannot be the last move: {reason}")

        if self.ply == 0:
            raise cannot("no move has been played")
        if placement:
            if self.ply > SETUP_PLIES:
                raise cannot("the setup was over")
            if self.pos[5 * mover + kind] != p:
                raise cannot(f"{colour}'s {placement[1]} is not on {POINT_NAMES[p]}")
            return PLACE | kind << 5 | p
        if self.ply <= SETUP_PLIES:
            raise cannot("the last move was a placement")
        # Only a capture resets the quiet count, so 0 after the setup means the last move
        # captured, and the point it ended on held an enemy stone before.
        captured = self.quiet == 0
        occupied = self.occ[0] | self.occ[1]
        if not step:  # a pass: the mover had no move with the stones as they stand
            if captured:
                raise cannot("the last move captured")
            for kind in range(5):
                p = self.pos[5 * mover + kind]
                free = (FULL ^ self.occ[mover]) | (1 << p)
                if p >= 0 and self.g.destinations(p, kind, occupied) & free:
                    raise cannot(f"{colour}'s {VALUE_TEXT[kind]} on {POINT_NAMES[p]} could move")
            return PASS
        piece = self.board[to]
        if piece < 0 or piece // 5 != mover:
            raise cannot(f"no {colour} stone on {POINT_NAMES[to]}")
        if fr != to and self.board[fr] >= 0:
            raise cannot(f"{POINT_NAMES[fr]} is not empty")
        if captured and fr == to:
            raise cannot("a stone returning to its point captures nothing")
        before = (occupied & ~(1 << to)) | (1 << fr) | (captured << to)
        if not self.g.destinations(fr, piece % 5, before) >> to & 1:
            raise cannot(f"the {VALUE_TEXT[piece % 5]} cannot walk from {POINT_NAMES[fr]}")
        return fr | to << 5 | (CAPTURE if captured else 0)


_PLACE_RE = re.compile(r"([0-9]+)@([a-z][0-9]+)")
_MOVE_RE = re.compile(r"([a-z][0-9]+)([-x]?)([a-z][0-9]+)")

# The board picture of zhadu.md; point names are replaced by stones (W4, B123) when occupied.
_DIAGRAM = (
    "                            h1",
    "                            h0",
    "                   h2                h3",
    "                   g2                g3",
    "              e1            g0            f1",
    "              e0            g1            f0",
    "     e2                e3        f2                f3",
    "     c2                c3        d2                d3",
    "              c0            b1            d0",
    "              c1            b0            d1",
    "                   b2                b3",
    "                   a2                a3",
    "                            a0",
    "                            a1",
)


def _point(text: str, name: str) -> int:
    index = _INDEX.get(name)
    if index is None:
        raise InvalidMoveError(f"'{shown(text)}': no point '{shown(name)}' (points a0..h3)")
    return index


_STONE_RE = re.compile(r"([0-9]+)([a-z][0-9]+)")


def _parse_stones(field: str, colour: str) -> list[tuple[int, int]]:
    if field == "-":
        return []
    stones = []
    for token in field.split(","):
        match = _STONE_RE.fullmatch(token)
        if not match:
            raise PositionError(f"bad {colour} stone '{shown(token)}' (expected e.g. 4a1 or 123b0)")
        if match[1] not in KIND_OF_TEXT:
            raise PositionError(
                f"unknown stone '{shown(match[1])}' in '{shown(token)}' (stones: 1 2 3 4 123)"
            )
        if match[2] not in _INDEX:
            raise PositionError(
                f"unknown point '{shown(match[2])}' in '{shown(token)}' (points a0..h3)"
            )
        stones.append((KIND_OF_TEXT[match[1]], _INDEX[match[2]]))
    return stones


def _parse_position(rules: ZhaduRules, text: str) -> ZhaduState:
    fields = fold_case(text).split()
    if len(fields) != 5:
        raise PositionError(
            "a zhadu position string has 5 fields (stones, side, first captures, quiet, ply), "
            f"got {len(fields)}"
        )
    stones_field, side_field, firsts_field, quiet_field, ply_field = fields
    halves = stones_field.split("/")
    if len(halves) != 2:
        raise PositionError("stones must be '<white>/<black>' (use '-' for none)")
    if side_field not in ("w", "b"):
        raise PositionError(f"side to move must be 'w' or 'b', got '{shown(side_field)}'")
    stm = SIDE_LETTERS.index(side_field)
    first_halves = firsts_field.split("/")
    if len(first_halves) != 2:
        raise PositionError("first captures must be '<white>/<black>', each a stone or '-'")
    first = []
    for colour, item in zip(("White", "Black"), first_halves):
        if item == "-":
            first.append(-1)
        elif item in KIND_OF_TEXT:
            first.append(KIND_OF_TEXT[item])
        else:
            raise PositionError(f"unknown stone '{shown(item)}' as {colour}'s first capture")
    quiet = parse_count(quiet_field, "quiet", PLY_MAX, PositionError)
    ply = parse_count(ply_field, "ply", PLY_MAX, PositionError)

    pos = [-1] * 10
    owner: dict[int, str] = {}
    for side, (colour, half) in enumerate(zip(("White", "Black"), halves)):
        for kind, p in _parse_stones(half, colour):
            if pos[5 * side + kind] >= 0:
                raise PositionError(f"{colour}'s {VALUE_TEXT[kind]} is given twice")
            if p in owner:
                raise PositionError(f"two stones on {POINT_NAMES[p]}")
            pos[5 * side + kind] = p
            owner[p] = colour
    on_board = [[pos[5 * s + k] >= 0 for k in range(5)] for s in (0, 1)]
    names = rules.player_names

    if ply < SETUP_PLIES:
        if stm != ply % 2:
            raise PositionError(
                f"during setup {names[ply % 2]} places at ply {ply}, not {names[stm]}"
            )
        for side in (0, 1):
            for kind in range(5):
                p = pos[5 * side + kind]
                if p >= 0 and not ZONES[side] >> p & 1:
                    raise PositionError(
                        f"during setup {names[side]}'s {VALUE_TEXT[kind]} on {POINT_NAMES[p]} "
                        f"is outside {names[side]}'s start zone"
                    )
            expected = (ply + 1 - side) // 2
            if sum(on_board[side]) != expected:
                raise PositionError(
                    f"at ply {ply} {names[side]} has placed {expected} stones, "
                    f"not {sum(on_board[side])}"
                )
        if first != [-1, -1]:
            raise PositionError("no stone can be captured during setup")
        if quiet:
            raise PositionError("quiet must be 0 during setup")
        return ZhaduState(rules, pos, stm, first, 0, ply, None)

    winners = []
    for side in (0, 1):
        enemy = 1 - side
        missing = [k for k in range(5) if not on_board[enemy][k]]
        f = first[side]
        if f < 0:
            if missing:
                raise PositionError(
                    f"{names[enemy]} stones are missing but {names[side]} has no first capture"
                )
            continue
        if on_board[enemy][f]:
            raise PositionError(
                f"{names[side]}'s first capture, the {VALUE_TEXT[f]}, is still on the board"
            )
        later = [k for k in missing if k != f]
        if f == FOUR:
            if later:
                raise PositionError(
                    f"{names[side]} won by capturing the 4 first: no other "
                    f"{names[enemy]} stone can be missing"
                )
            winners.append((side, "first capture of the 4"))
            continue
        completing = [k for k in later if _WIN_MASK[f] >> k & 1]
        if len(completing) > 1:
            listed = " and ".join(VALUE_TEXT[k] for k in completing)
            raise PositionError(
                f"{names[enemy]}'s {listed} are both missing, but each completes the sharing "
                f"with {names[side]}'s first capture {VALUE_TEXT[f]}"
            )
        if completing:
            winners.append((side, "sharing"))
    if len(winners) == 2:
        raise PositionError("both sides have won")
    if quiet > ply - SETUP_PLIES:
        raise PositionError(f"quiet {quiet} is greater than the movement plies played ({ply - 10})")
    captured = 10 - sum(on_board[0]) - sum(on_board[1])
    if captured > ply - SETUP_PLIES:
        raise PositionError(
            f"{captured} stones captured in only {ply - SETUP_PLIES} movement plies"
        )
    result = None
    if winners:
        winner, why = winners[0]
        if stm == winner:
            raise PositionError(f"{names[winner]} has won, so {names[winner]} cannot be to move")
        if quiet:
            raise PositionError("the game was won by a capture, so quiet must be 0")
        result = Outcome(Result.win_for(winner), Termination.RULES, why)
    elif rules.quiet and quiet >= rules.quiet:
        result = DRAW_BY_QUIET_LIMIT
    return ZhaduState(rules, pos, stm, first, quiet, ply, result)


# --- the picture's layout (ZhaduState.svg), in the units of the SVG's viewBox -----------------
# The board is drawn true to its geometry: equilateral triangles of side _SIDE on the diamond's
# nine grid vertices (TRIANGLE_VERTICES), each point halfway between its triangle's centre and
# the vertex its dot sits at (the centre for dot 0), which spaces all neighbours equally.
_SIDE = 180.0
_ROW = _SIDE * 3**0.5 / 2
_PAD = 20.0
_PANEL = 150.0
_CAPTION = 44.0
_CENTRE_X = _PANEL + _PAD + _SIDE
_TOP = _PAD + 28.0
_BOTTOM = _TOP + 4 * _ROW
_WIDTH = 2 * _CENTRE_X
_HEIGHT = _BOTTOM + _PAD + _CAPTION
_WHITE_PANEL = (_PAD, _BOTTOM - 150.0)
_BLACK_PANEL = (_CENTRE_X + 100.0, _TOP + 10.0)
_STONE_R = 19.0
_POINT_R = 15.0

# Grid vertex -> (half-sides right of the centre line, rows up from White's tip).
_GRID = {
    "B": (0, 0),
    "L1": (-1, 1),
    "R1": (1, 1),
    "L2": (-2, 2),
    "M2": (0, 2),
    "R2": (2, 2),
    "L3": (-1, 3),
    "R3": (1, 3),
    "T": (0, 4),
}


def _vertex(name: str) -> tuple[float, float]:
    across, up = _GRID[name]
    return _CENTRE_X + across * _SIDE / 2, _BOTTOM - up * _ROW


_TRIANGLE_CORNERS: dict[str, tuple[tuple[float, float], ...]] = {
    t: tuple(_vertex(v) for v in vertices) for t, vertices in TRIANGLE_VERTICES.items()
}


def _point_places() -> tuple[tuple[float, float], ...]:
    places = []
    for t in TRIANGLES:
        corners = _TRIANGLE_CORNERS[t]
        cx = sum(x for x, _ in corners) / 3
        cy = sum(y for _, y in corners) / 3
        places.append((cx, cy))
        places.extend(((x + cx) / 2, (y + cy) / 2) for x, y in corners)
    return tuple(places)


#: point index -> centre of its circle in the picture.
_AT = _point_places()

_SIDE_CLASS = ("white", "black")
_STONE_FILL = ("#fbf8ef", "#262626")
_STONE_EDGE = ("#3b3b3b", "#000000")
_STONE_INK = ("#1a1a1a", "#f4f4f4")
_ZONE_FILL = ("#fdf1c7", "#d9d3e6")
_ZONE_EDGE = ("#c99a1e", "#5b4b8a")
_TRIANGLE_FILL = "#efe3c8"
_ZONE_TRIANGLE_FILL = ("#f6dc8c", "#cfc3e3")
_TRIANGLE_EDGE = "#b9a37a"
_STEP = "#8c7b5c"
_LINK = "#a0522d"
_POINT_FILL = "#fffdf7"
_POINT_EDGE = "#9c8b6c"
_POINT_INK = "#8a7a5e"
_HIGHLIGHT = "#e8a317"
_INK = "#333333"
_BACKGROUND = "#fbf8f2"


def _stone(x: float, y: float, side: int, kind: int, role: str, **data: str) -> str:
    """A stone: a disc with its value, tagged ``class="<role> white|black" data-stone=...``."""
    value = VALUE_TEXT[kind]
    return group(
        [
            element(
                "circle",
                cx=x,
                cy=y,
                r=_STONE_R,
                fill=_STONE_FILL[side],
                stroke=_STONE_EDGE[side],
                stroke_width=2.0,
            ),
            label(
                x,
                y,
                value,
                14.0 if len(value) > 1 else 20.0,
                fill=_STONE_INK[side],
                font_weight="bold",
            ),
        ],
        class_=f"{role} {_SIDE_CLASS[side]}",
        data_stone=value,
        **data,
    )


def _triangle_zone(triangle: str) -> int | None:
    """The side whose start zone holds all four points of a triangle, if any."""
    points = 15 << 4 * TRIANGLES.index(triangle)
    return next((side for side in (0, 1) if ZONES[side] & points == points), None)


def _triangle_class(triangle: str) -> str:
    zone = _triangle_zone(triangle)
    return "triangle" if zone is None else f"triangle zone {_SIDE_CLASS[zone]}"


def _triangle_fill(triangle: str) -> str:
    zone = _triangle_zone(triangle)
    return _TRIANGLE_FILL if zone is None else _ZONE_TRIANGLE_FILL[zone]


def _result_text(outcome: Outcome, names: tuple[str, str]) -> str:
    if outcome.result is Result.DRAW:
        return f"Draw by {outcome.detail}"
    winner = names[0] if outcome.result is Result.P1_WIN else names[1]
    return f"{winner} wins ({outcome.detail})"
