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

import re
from collections.abc import Callable, Mapping
from typing import ClassVar, cast

from zengine.engine.game import (
    BadRuleValueError,
    EvaluationTuning,
    IllegalMoveError,
    InvalidMoveError,
    OpeningSettings,
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
from zengine.engine.text import shown
from zengine.engine.values import Outcome, Result
from zengine.engine.zhadu_core import (
    _INDEX,
    _NO_LIMIT,
    _WIN_MASK,
    CAPTURE,
    DRAW_BY_QUIET_LIMIT,
    FOUR,
    FULL,
    GEOMETRY,
    KIND_OF_TEXT,
    KIND_OF_VALUE,
    MOVES_TO_GO,
    PASS,
    PLACE,
    PLY_MAX,
    POINT_NAMES,
    POINTS,
    QUIET_DEFAULT,
    QUIET_MAX,
    SETUP_PLIES,
    SIDE_LETTERS,
    TRIANGLE_VERTICES,
    TRIANGLES,
    VALUE_TEXT,
    ZONES,
    ZhaduCore,
)
from zengine.engine.zhadu_core import (
    DRAW_BY_REPETITION as DRAW_BY_REPETITION,
)
from zengine.engine.zhadu_core import (
    DRAW_BY_TWO_PASSES as DRAW_BY_TWO_PASSES,
)
from zengine.engine.zhadu_core import (
    VALUES as VALUES,
)
from zengine.engine.zhadu_core import (
    WIN_KINDS as WIN_KINDS,
)
from zengine.engine.zhadu_core import (
    Geometry as Geometry,
)
from zengine.engine.zhadu_core import (
    build_steps as build_steps,
)
from zengine.engine.zhadu_core import (
    point_index as point_index,
)
from zengine.engine.zhadu_core import (
    winning_values as winning_values,
)


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
    #: Openings: Zhadu's scores swing with threats, so its window is wide.
    OPENING_SETTINGS: ClassVar[Mapping[str, OpeningSettings]] = {
        "zhadu": OpeningSettings(moves=2, depth=4, window=60),
        "zhadu-star": OpeningSettings(moves=2, depth=4, window=60),
    }
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

    def __reduce__(self) -> tuple[type[ZhaduRules], tuple[str, int]]:
        """Pickled as its options: its geometry, compiled, does not pickle (and is shared)."""
        return (ZhaduRules, (self.links, self.quiet))

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> ZhaduRules:
        """Rules from ``setup`` options: ``links full|star``, ``quiet N`` (0..100000)."""
        values = cls.rule_values(options)
        return cls(values["links"], int(values["quiet"]))

    def evaluation(self) -> Callable[[State], int]:
        from zengine.engine.zhadu_eval import evaluate

        return cast(Callable[[State], int], evaluate)

    def tuning(self) -> EvaluationTuning:
        from zengine.engine import zhadu_eval

        return EvaluationTuning(
            zhadu_eval, zhadu_eval.TUNED_WEIGHTS, zhadu_eval.refresh, win_constant="WIN_NEXT"
        )

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


class ZhaduState(ZhaduCore, State):
    """A Zhadu position: the rules core (:class:`~zengine.engine.zhadu_core.ZhaduCore`:
    make/unmake, repetition counts, an incremental Zobrist key) with the game interface and
    the text."""

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
        super().__init__(rules, rules.geometry, rules.quiet, pos, stm, first, quiet, ply, result)

    def copy(self) -> ZhaduState:
        return _restore(cast(ZhaduRules, self.rules), self._fields())

    def _fields(self) -> tuple:
        """Everything :func:`_restore` needs besides the rules, in new lists and dicts."""
        return (
            list(self.pos),
            list(self.board),
            list(self.occ),
            list(self.first),
            self.stm,
            self.ply,
            self.quiet,
            self._key,
            dict(self.rep),
            list(self.stack),
            self.result,
        )

    def __reduce__(self) -> tuple[Callable[[ZhaduRules, tuple], ZhaduState], tuple]:
        """Pickled as its rules and fields (a compiled core has no pickling of its own)."""
        return (_restore, (self.rules, self._fields()))

    # --- text ------------------------------------------------------------------------------------
    def move_text(self, move: int) -> str:
        if move & PASS:
            return "pass"
        if move & PLACE:
            return f"{VALUE_TEXT[(move >> 5) & 7]}@{POINT_NAMES[move & 31]}"
        sep = "x" if move & CAPTURE else "-"
        return f"{POINT_NAMES[move & 31]}{sep}{POINT_NAMES[(move >> 5) & 31]}"

    def move_stone(self, move: int) -> str | None:
        return VALUE_TEXT[(move >> 5) & 7] if move & PLACE and not move & PASS else None

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
                    data_square=POINT_NAMES[p],
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


def _restore(rules: ZhaduRules, fields: tuple) -> ZhaduState:
    """A state from its rules and :meth:`ZhaduState._fields` (a copy, or an unpickled state)."""
    other = ZhaduState.__new__(ZhaduState)
    other.rules = rules
    other.g = rules.geometry
    other.limit = rules.quiet or _NO_LIMIT
    (
        other.pos,
        other.board,
        other.occ,
        other.first,
        other.stm,
        other.ply,
        other.quiet,
        other._key,
        other.rep,
        other.stack,
        other.result,
    ) = fields
    return other


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
        result = Outcome(Result.win_for(winner), why)
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
