"""``zengine report DIR``: one self-contained HTML page of a match played with ``--out DIR``.

The page (``DIR/report.html``) shows the standings, the cross table, Elo with its 95% interval,
the terminations, the score and Elo over the course of the match as charts, and every game with
a board to step through move by move. Everything is inline (CSS, script, SVG): the file opens
offline, can be mailed, and shows the same anywhere.

The report never names a game: it asks the registry for the rules of a record's variant and
lets each position draw itself (``State.svg``). Pictures are large (a Zhadu board is ~24 kB of
SVG in ~200 lines) and a ply changes only a few lines, so every distinct line is stored once in
a table shared by the whole page, and each ply is a flat list of runs ``first, count, first,
count, ...`` of that table; the page joins the lines back into the exact ``State.svg`` text
(measured: 0.5 kB a Zhadu ply instead of 24 kB). Drawing takes time too (5-13 ms a picture),
so only the first ``--boards`` games get boards; the others list their moves with a note.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from zengine.cli import fail
from zengine.engine.game import GameError, MoveError, Rules
from zengine.engine.svg import escape, number
from zengine.engine.text import printable
from zengine.engine.variants import make_rules
from zengine.tools.referee import stats
from zengine.tools.referee.stats import EloEstimate

#: The files ``zengine match --out DIR`` writes that the report reads, and the one it writes.
CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.html"

#: Games that get a board by default; later ones list their moves only (``--boards`` changes
#: this). Measured on a loaded 2-core machine: a 200-game Zhadu match (33 plies a game) with
#: every board is 3.4 MB (17 kB a game: ~0.3 kB of runs a ply plus the shared lines) and takes
#: 19 s to draw (5-13 ms a picture), so 100 games keep the page and the wait moderate.
DEFAULT_BOARDS = 100
#: A game of more plies gets no boards (its moves are listed): drawing one picture a ply, a
#: 14,000-ply game (a referee test's opening line) took 56 s of processor time to report.
#: Games of both games end far sooner; a few hundred plies draw in about a second.
MAX_DRAWN_PLIES = 1000
#: Width in pixels the pictures are drawn at (the page scales them to fit).
BOARD_SIZE = 480
#: A record's result text -> score of p1.
RESULTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}
#: Line colours of the engines in the charts (colour-blind-safe, after Okabe and Ito).
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7f7f7f", "#000000")


class ReportError(Exception):
    """A directory that holds no readable match, or a report that cannot be written."""


# --- reading the match --------------------------------------------------------------------------


@dataclass
class Game:
    """One game record, checked field by field: damaged fields get defaults and a note."""

    id: int
    p1: str
    p2: str
    #: ``1-0``, ``0-1`` or ``1/2-1/2``; None if the record has no readable result.
    result: str | None
    termination: str
    reason: str
    variant: str
    variant_name: str
    opening: str
    time_control: str
    date: str
    start_fen: str | None
    final_fen: str | None
    start_side: int
    #: Opening moves (played by the referee) and then the engines' moves.
    book: list[str]
    moves: list[str]
    times_ms: list[int | None]
    scores: list[str | None]
    depths: list[int | None]
    #: Round and pair: the two games of one opening with colours swapped (None if unknown).
    pair: tuple[Any, ...] | None
    notes: list[str] = field(default_factory=list)

    def score(self, name: str) -> float | None:
        """The score (1, 1/2, 0) of the engine ``name`` in this game; None without a result."""
        if self.result is None:
            return None
        p1 = RESULTS[self.result]
        return p1 if name == self.p1 else 1.0 - p1


@dataclass
class Match:
    """Everything the report shows, as read from the directory."""

    directory: Path
    config: dict[str, Any]
    summary: dict[str, Any]
    games: list[Game]
    engines: list[str]
    notes: list[str]


def _text(record: dict[str, Any], key: str, default: str = "") -> str:
    value = record.get(key)
    return value if isinstance(value, str) else default


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _column(record: dict[str, Any], key: str, length: int, keep: Callable[[Any], bool]) -> list:
    """A per-move list of ``length`` entries; entries that fail ``keep`` (or are missing) are
    None, so a damaged column never shifts the others."""
    values = record.get(key)
    if not isinstance(values, list):
        values = []
    return [values[i] if i < len(values) and keep(values[i]) else None for i in range(length)]


def _moves(record: dict[str, Any], key: str, notes: list[str]) -> list[str]:
    value = record.get(key, [])
    if isinstance(value, list) and all(isinstance(m, str) for m in value):
        return value
    notes.append(f"the record's '{key}' is unreadable")
    return []


def game_of(record: dict[str, Any]) -> Game:
    """A game from one JSON record (a dict with an int ``id``); never raises."""
    notes: list[str] = []
    result = record.get("result")
    if not isinstance(result, str) or result not in RESULTS:
        notes.append(f"no readable result ({result!r}): left out of the standings")
        result = None
    book = _moves(record, "opening_moves", notes)
    moves = _moves(record, "moves", notes)
    side = _opt_int(record.get("start_side"))
    round_, pair = record.get("round"), record.get("pair")
    return Game(
        id=record["id"],
        p1=_text(record, "p1", "?"),
        p2=_text(record, "p2", "?"),
        result=result,
        termination=_text(record, "termination", "?"),
        # A folder of an earlier version may hold an engine's raw control characters here.
        reason=printable(_text(record, "reason")),
        variant=_text(record, "variant"),
        variant_name=_text(record, "variant_name"),
        opening=_text(record, "opening"),
        time_control=_text(record, "time_control"),
        date=_text(record, "date"),
        start_fen=record.get("start_fen") if isinstance(record.get("start_fen"), str) else None,
        final_fen=record.get("final_fen") if isinstance(record.get("final_fen"), str) else None,
        start_side=side if side in (0, 1) else 0,
        book=book,
        moves=moves,
        times_ms=_column(record, "times_ms", len(moves), lambda v: _opt_int(v) is not None),
        scores=_column(record, "scores", len(moves), lambda v: isinstance(v, str)),
        depths=_column(record, "depths", len(moves), lambda v: _opt_int(v) is not None),
        pair=(round_, pair)
        if _opt_int(round_) is not None and _opt_int(pair) is not None
        else None,
        notes=notes,
    )


def _read_json(path: Path, notes: list[str]) -> dict[str, Any]:
    """A JSON object file, or {} with a note if it is missing or damaged."""
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except FileNotFoundError:
        notes.append(f"{path.name} is missing")
        return {}
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: absurd nesting
        notes.append(f"{path.name} is unreadable ({exc.__class__.__name__})")
        return {}
    if not isinstance(data, dict):
        notes.append(f"{path.name} is unreadable (not a JSON object)")
        return {}
    return data


def read_records(path: Path, notes: list[str]) -> list[dict[str, Any]]:
    """The game records of a JSON-lines file in file order (the order games finished in).

    A line that is no JSON object with an int ``id`` (a crash mid-write, damage) and a second
    record of one id are left out, each kind counted in a note.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    records: list[dict[str, Any]] = []
    seen: set[int] = set()
    bad = repeated = 0
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: absurd nesting
            bad += 1
            continue
        if not isinstance(record, dict) or _opt_int(record.get("id")) is None:
            bad += 1
            continue
        if record["id"] in seen:
            repeated += 1
            continue
        seen.add(record["id"])
        records.append(record)
    if bad:
        notes.append(f"{bad} line{'s' if bad > 1 else ''} of {path.name} could not be read")
    if repeated:
        notes.append(f"{repeated} repeated game id{'s' if repeated > 1 else ''} left out")
    return records


def load_match(directory: Path) -> Match:
    """Read a match directory; raises :class:`ReportError` if it holds no match at all."""
    if not directory.is_dir():
        what = "not a directory" if directory.exists() else "no such directory"
        raise ReportError(f"{directory}: {what}")
    if not (directory / GAMES_FILE).exists() and not (directory / CONFIG_FILE).exists():
        raise ReportError(
            f"{directory}: not a match directory (no {GAMES_FILE} or {CONFIG_FILE}; "
            "write one with zengine match --out DIR)"
        )
    notes: list[str] = []
    config = _read_json(directory / CONFIG_FILE, notes)
    summary = _read_json(directory / SUMMARY_FILE, [])
    games = [game_of(r) for r in read_records(directory / GAMES_FILE, notes)]
    engines: list[str] = []
    configured = config.get("engines")
    if isinstance(configured, list):
        names = (e["name"] for e in configured if isinstance(e, dict) and _text(e, "name"))
        engines = list(dict.fromkeys(names))
    for game in games:
        for name in (game.p1, game.p2):
            if name not in engines:
                engines.append(name)
    return Match(directory, config, summary, games, engines, notes)


# --- statistics ---------------------------------------------------------------------------------


class EloTally:
    """One engine's pairs, fed game by game (for the standings and the chart): the Elo is the
    referee's own regularised estimate (:func:`stats.elo_estimate`) of the pentanomial counts,
    so the report and the summary agree."""

    def __init__(self) -> None:
        self.open: dict[tuple[Any, ...], float] = {}
        self.penta = [0, 0, 0, 0, 0]

    def add(self, game: Game, score: float) -> None:
        """Count one game: a paired game waits for its partner; a game without a pair (records
        of other tools) counts as a pair of two such results."""
        if game.pair is not None:
            key = (*game.pair, frozenset((game.p1, game.p2)))
            if key not in self.open:
                self.open[key] = score
                return
            pair_score = self.open.pop(key) + score
        else:
            pair_score = 2 * score
        self.penta[round(pair_score * 2)] += 1

    def estimate(self) -> EloEstimate | None:
        return stats.elo_estimate(self.penta)


@dataclass
class Standing:
    """One engine's line of the standings."""

    name: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: Per colour: ``[wins, draws, losses]`` as p1 and as p2.
    sides: tuple[list[int], list[int]] = field(default_factory=lambda: ([0, 0, 0], [0, 0, 0]))
    elo: EloEstimate | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


def _wdl_index(score: float) -> int:
    return 0 if score == 1.0 else 1 if score == 0.5 else 2


def scored(games: Iterable[Game]) -> list[Game]:
    """The games that count: those with a readable result."""
    return [g for g in games if g.result is not None]


def standings(match: Match) -> list[Standing]:
    """Every engine's results, best first (points, then fewer games, then name)."""
    table = {name: Standing(name) for name in match.engines}
    tallies = {name: EloTally() for name in match.engines}
    for game in scored(match.games):
        for side, name in enumerate((game.p1, game.p2)):
            score = game.score(name)
            assert score is not None
            line = table[name]
            index = _wdl_index(score)
            if index == 0:
                line.wins += 1
            elif index == 1:
                line.draws += 1
            else:
                line.losses += 1
            line.sides[side][index] += 1
            tallies[name].add(game, score)
    for name, line in table.items():
        line.elo = tallies[name].estimate()
    return sorted(table.values(), key=lambda s: (-s.points, s.games, s.name))


def cross_table(match: Match) -> dict[tuple[str, str], tuple[float, int]]:
    """``(row, column) -> (points of row against column, games)`` for engines that met."""
    cells: dict[tuple[str, str], tuple[float, int]] = {}
    for game in scored(match.games):
        for name, other in ((game.p1, game.p2), (game.p2, game.p1)):
            points, count = cells.get((name, other), (0.0, 0))
            score = game.score(name)
            assert score is not None
            cells[(name, other)] = (points + score, count + 1)
    return cells


@dataclass
class Course:
    """Per engine, after each game of the match (in the order they finished): the score so
    far (fraction of points in its games) and the Elo estimate so far."""

    score: dict[str, list[tuple[int, float]]]
    elo: dict[str, list[tuple[int, EloEstimate]]]
    games: int


def course(match: Match) -> Course:
    """The score and Elo of every engine over the course of the match."""
    games = scored(match.games)
    points = dict.fromkeys(match.engines, 0.0)
    played = dict.fromkeys(match.engines, 0)
    tallies = {name: EloTally() for name in match.engines}
    score: dict[str, list[tuple[int, float]]] = {name: [] for name in match.engines}
    elo: dict[str, list[tuple[int, EloEstimate]]] = {name: [] for name in match.engines}
    for x, game in enumerate(games, 1):
        for name in (game.p1, game.p2):
            value = game.score(name)
            assert value is not None
            points[name] += value
            played[name] += 1
            tallies[name].add(game, value)
            score[name].append((x, points[name] / played[name]))
            estimate = tallies[name].estimate()
            if estimate is not None:
                elo[name].append((x, estimate))
    return Course(score, elo, len(games))


# --- boards -------------------------------------------------------------------------------------


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


def rules_of(game: Game) -> Rules:
    """The rules a record was played under: its variant text (``zhadu links full quiet 100``:
    a game and its rule options), else its variant name; raises :class:`GameError`."""
    words = game.variant.split()
    if words and len(words) % 2 == 1:
        try:
            return make_rules(words[0], dict(zip(words[1::2], words[2::2])))
        except GameError:
            if not game.variant_name:
                raise
    return make_rules(game.variant_name or game.variant)


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

    def draw(self, game: Game) -> Board:
        """Every position of the game; raises :class:`GameError` for an unknown variant, a bad
        start position or a move that cannot be played."""
        rules = rules_of(game)
        state = rules.parse_position(game.start_fen) if game.start_fen else rules.start()
        texts = game.book + game.moves
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


# --- the page -----------------------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def format_elo(value: float) -> str:
    """Elo as a signed whole number (``+12``, ``-inf``; never ``-0``)."""
    if math.isinf(value):
        return "+inf" if value > 0 else "\u2212inf"
    text = f"{round(value) + 0:+d}"
    return text.replace("-", "\u2212")


def elo_text(estimate: EloEstimate | None) -> str:
    """``+70 [-29, +184]`` as HTML; a dash without an estimate."""
    if estimate is None:
        return "\u2013"
    return f"{format_elo(estimate.elo)} <small>[{format_elo(estimate.low)}, {format_elo(estimate.high)}]</small>"


def points_text(points: float) -> str:
    """``3``, ``2.5``: points without a needless ``.0``."""
    return f"{points:g}"


def _nice_step(span: float, most: int) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving at most ``most`` ticks."""
    raw = max(span / most, 1e-9)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power


@dataclass
class Series:
    """One engine's line in a chart, with an optional band (``x, low, high``) under it."""

    name: str
    colour: str
    points: Sequence[tuple[float, float]]
    band: Sequence[tuple[float, float, float]] = ()


@dataclass(frozen=True)
class Axis:
    """A chart's y axis: its name, range (values are clipped to it), tick step and labels,
    and where the dashed reference line goes (50%, Elo 0)."""

    name: str
    low: float
    high: float
    step: float
    label: Callable[[float], str]
    reference: float


def chart(title: str, series: list[Series], games: int, axis: Axis) -> str:
    """A line chart as inline SVG: games played on x, ``axis`` on y, a legend of the series
    in rows under the title, a shaded band per series where it has one."""
    width, height = 560.0, 320.0
    left, right, bottom = 64.0, 16.0, 44.0
    legend: list[str] = []
    x, y = left, 40.0
    for s in series:
        room = 34 + 7.2 * len(s.name)
        if x + room > width - right and x > left:
            x, y = left, y + 18
        legend.append(
            f'<line x1="{number(x)}" x2="{number(x + 18)}" y1="{number(y - 4)}" '
            f'y2="{number(y - 4)}" stroke="{s.colour}" stroke-width="3"/>'
            f'<text class="legend" x="{number(x + 24)}" y="{number(y)}">{escape(s.name)}</text>'
        )
        x += room
    top = y + 14
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(value: float) -> float:
        return left + (value / max(games, 1)) * plot_w

    def py(value: float) -> float:
        value = min(max(value, axis.low), axis.high)
        return top + (axis.high - value) / (axis.high - axis.low) * plot_h

    parts = [
        f'<text class="chart-title" x="{number(left)}" y="18">{escape(title)}</text>',
        *legend,
        f'<rect class="plot" x="{number(left)}" y="{number(top)}" width="{number(plot_w)}" '
        f'height="{number(plot_h)}"/>',
    ]
    for i in range(round((axis.high - axis.low) / axis.step) + 1):
        value = axis.low + i * axis.step
        parts.append(
            f'<line class="gridline" x1="{number(left)}" x2="{number(left + plot_w)}" '
            f'y1="{number(py(value))}" y2="{number(py(value))}"/>'
            f'<text class="tick" x="{number(left - 6)}" y="{number(py(value) + 4)}" '
            f'text-anchor="end">{escape(axis.label(value))}</text>'
        )
    step = max(1, round(_nice_step(games, 8)))
    for value in range(0, games + 1, step):
        parts.append(
            f'<line class="axis" x1="{number(px(value))}" x2="{number(px(value))}" '
            f'y1="{number(top + plot_h)}" y2="{number(top + plot_h + 4)}"/>'
            f'<text class="tick" x="{number(px(value))}" y="{number(top + plot_h + 17)}" '
            f'text-anchor="middle">{value}</text>'
        )
    middle = top + plot_h / 2
    parts += [
        f'<text class="axis-label" x="{number(left + plot_w / 2)}" y="{number(height - 6)}" '
        'text-anchor="middle">games played</text>',
        f'<text class="axis-label" x="14" y="{number(middle)}" text-anchor="middle" '
        f'transform="rotate(-90 14 {number(middle)})">{escape(axis.name)}</text>',
        f'<line class="reference" x1="{number(left)}" x2="{number(left + plot_w)}" '
        f'y1="{number(py(axis.reference))}" y2="{number(py(axis.reference))}"/>',
    ]
    for s in series:
        if s.band:
            upper = " ".join(f"{number(px(x))},{number(py(hi))}" for x, _, hi in s.band)
            lower = " ".join(f"{number(px(x))},{number(py(lo))}" for x, lo, _ in reversed(s.band))
            parts.append(
                f'<polygon class="band" points="{upper} {lower}" fill="{s.colour}" '
                'fill-opacity="0.15"/>'
            )
        if s.points:
            path = " ".join(f"{number(px(x))},{number(py(y))}" for x, y in s.points)
            parts.append(
                f'<polyline class="series" data-engine="{escape(s.name)}" points="{path}" '
                f'stroke="{s.colour}"/>'
            )
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {number(width)} '
        f'{number(height)}" role="img" aria-label="{escape(title)}">' + "".join(parts) + "</svg>"
    )


def charts(match: Match) -> str:
    """The score and Elo charts; with two engines only the first is drawn (the other's
    lines are its mirror image)."""
    data = course(match)
    if data.games == 0:
        return '<p class="empty">No games yet.</p>'
    names = match.engines[:1] if len(match.engines) == 2 else match.engines
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(match.engines)}
    score_series = [Series(n, colours[n], [(x, 100 * y) for x, y in data.score[n]]) for n in names]
    elo_series = []
    finite = [0.0]
    for n in names:
        points = [(x, e.elo) for x, e in data.elo[n]]  # infinite ones sit on the edge
        band = [(x, e.low, e.high) for x, e in data.elo[n]]
        finite += [abs(v) for _, e in data.elo[n] for v in (e.elo, e.low, e.high)]
        elo_series.append(Series(n, colours[n], points, band))
    reach = min(max(v for v in finite if not math.isinf(v)) if finite else 0.0, 800.0)
    step = _nice_step(max(reach, 50.0), 4)
    bound = step * math.ceil(max(reach, 50.0) / step)
    versus = f" against {match.engines[1]}" if len(match.engines) == 2 else " against the field"
    return chart(
        f"Score{versus}",
        score_series,
        data.games,
        Axis("score %", 0.0, 100.0, 25.0, lambda y: f"{y:g}", 50.0),
    ) + chart(
        f"Elo{versus}, with its 95% interval",
        elo_series,
        data.games,
        Axis("Elo", -bound, bound, step, format_elo, 0.0),
    )


def _wdl(values: Sequence[int]) -> str:
    return "\u2013".join(str(v) for v in values)


def engine_settings(config: dict[str, Any]) -> dict[str, str]:
    """Each configured engine's limits (``depth=2``, ``tc=10+0.1``), as text."""
    out: dict[str, str] = {}
    engines = config.get("engines")
    for engine in engines if isinstance(engines, list) else []:
        if isinstance(engine, dict) and isinstance(engine.get("limits"), dict):
            limits = sorted(engine["limits"].items())
            out[_text(engine, "name")] = " ".join(f"{k}={v}" for k, v in limits)
    return out


def standings_html(match: Match) -> str:
    """The standings table, best engine first."""
    settings = engine_settings(match.config)
    rows = []
    for rank, s in enumerate(standings(match), 1):
        share = f"{100 * s.points / s.games:.1f}%" if s.games else "\u2013"
        rows.append(
            f'<tr data-engine="{_e(s.name)}"><td class="num">{rank}</td><th scope="row">{_e(s.name)}</th>'
            f'<td class="num">{s.games}</td><td class="num strong">{points_text(s.points)}</td>'
            f'<td class="num">{share}</td><td class="num">{s.wins}</td><td class="num">{s.draws}</td>'
            f'<td class="num">{s.losses}</td><td class="num">{elo_text(s.elo)}</td>'
            f'<td class="num">{_wdl(s.sides[0])}</td><td class="num">{_wdl(s.sides[1])}</td>'
            f'<td class="limits">{_e(settings.get(s.name, ""))}</td></tr>'
        )
    return (
        '<table id="standings-table"><thead><tr><th class="num">#</th><th>Engine</th>'
        '<th class="num">Games</th><th class="num">Points</th><th class="num">Score</th>'
        '<th class="num">W</th><th class="num">D</th><th class="num">L</th>'
        '<th class="num" title="Elo against its opponents, 95% interval">Elo [95%]</th>'
        '<th class="num">as P1 W\u2013D\u2013L</th><th class="num">as P2 W\u2013D\u2013L</th>'
        "<th>Limits</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def cross_table_html(match: Match) -> str:
    """The cross table; each cell carries its numbers in ``data-`` attributes too."""
    cells = cross_table(match)
    names = match.engines
    head = "".join(f'<th class="num" scope="col">{_e(n)}</th>' for n in names)
    rows = []
    for row in names:
        tds = []
        for column in names:
            if row == column:
                tds.append('<td class="self">\u2014</td>')
            elif (row, column) in cells:
                points, count = cells[(row, column)]
                tds.append(
                    f'<td class="num" data-row="{_e(row)}" data-column="{_e(column)}" '
                    f'data-points="{points:g}" data-games="{count}">'
                    f"<b>{points_text(points)}</b>\u2009/\u2009{count}</td>"
                )
            else:
                tds.append("<td></td>")
        rows.append(f'<tr><th scope="row">{_e(row)}</th>{"".join(tds)}</tr>')
    return (
        '<table id="cross-table"><thead><tr><th><small>row against column: points / games</small>'
        f"</th>{head}</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def terminations_html(match: Match) -> str:
    """How many games ended each way, with their reasons counted."""
    games = match.games
    if not games:
        return '<p class="empty">No games yet.</p>'
    counts = Counter(g.termination for g in games)
    rows = []
    for word, count in counts.most_common():
        reasons = Counter(g.reason for g in games if g.termination == word and g.reason)
        detail = ", ".join(f"{_e(r)} <small>\u00d7{c}</small>" for r, c in reasons.most_common(6))
        if len(reasons) > 6:
            detail += ", \u2026"
        rows.append(
            f'<tr data-termination="{_e(word)}"><th scope="row">{_e(word)}</th>'
            f'<td class="num">{count}</td><td class="wrap">{detail}</td></tr>'
        )
    return (
        '<table id="terminations-table"><thead><tr><th>Termination</th><th class="num">Games</th>'
        "<th>Reasons</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def games_table_html(match: Match) -> str:
    """Every game, one row each; the page's script makes a row open the game."""
    rows = []
    for index, g in enumerate(match.games):
        plies = len(g.book) + len(g.moves)
        result = g.result or "?"
        why = f"{g.termination}: {g.reason}" if g.reason else g.termination
        rows.append(
            f'<tr id="game-row-{g.id}" data-index="{index}" tabindex="0">'
            f'<td class="num">{g.id + 1}</td><td>{_e(g.p1)}</td><td>{_e(g.p2)}</td>'
            f'<td class="result">{_e(result)}</td><td class="num">{plies}</td>'
            f"<td>{_e(why)}</td><td><code>{_e(g.opening)}</code></td></tr>"
        )
    return (
        '<div class="games-scroll"><table id="games-table"><thead><tr><th class="num">Game</th>'
        '<th>P1</th><th>P2</th><th>Result</th><th class="num">Plies</th><th>Termination</th>'
        "<th>Opening</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
    )


def _score_text(score: str | None, depth: int | None) -> str | None:
    """``cp 35`` -> ``+35``, ``mate -2`` -> ``#-2`` (the mover's view), depth after a slash."""
    if score is None:
        return None
    kind, _, value = score.partition(" ")
    try:
        n = int(value)
    except ValueError:
        return score
    text = f"{n:+d}" if kind == "cp" else f"#{n}" if kind == "mate" else score
    return f"{text}/{depth}" if depth is not None else text


def game_data(game: Game, board: Board | None, missing: str | None = None) -> dict[str, Any]:
    """What the page's script needs of one game (compact: arrays, no repeated keys); without
    a board, ``missing`` says why."""
    plies = [[text, None, None, 1] for text in game.book] + [
        [text, game.times_ms[i], _score_text(game.scores[i], game.depths[i]), 0]
        for i, text in enumerate(game.moves)
    ]
    data: dict[str, Any] = {
        "id": game.id,
        "p1": game.p1,
        "p2": game.p2,
        "result": game.result or "?",
        "why": f"{game.termination}: {game.reason}" if game.reason else game.termination,
        "variant": game.variant or game.variant_name,
        "opening": game.opening,
        "tc": game.time_control,
        "start_side": game.start_side,
        "plies": plies,
        "notes": game.notes,
    }
    if board is None:
        data["no_board"] = missing or "not drawn"
    else:
        data.update(
            boards=board.pictures,
            fens=board.positions,
            movers=board.movers,
            sides=list(board.side_names),
        )
    return data


def header_facts(match: Match) -> list[tuple[str, str]]:
    """Facts about the match for the page's header, from config.json and summary.json."""
    config, summary = match.config, match.summary
    facts: list[tuple[str, str]] = []
    variants = sorted({g.variant for g in match.games if g.variant})
    if variants:
        facts.append(("Variant", ", ".join(variants)))
    elif isinstance(config.get("variant"), str):
        facts.append(("Variant", config["variant"]))
    controls = {g.time_control for g in match.games if g.time_control}
    if len(controls) == 1:  # else each engine's limits are in the standings
        facts.append(("Time control", controls.pop()))
    dates = sorted({g.date for g in match.games if g.date})
    if dates:
        facts.append(("Date", dates[0] if len(dates) == 1 else f"{dates[0]} \u2013 {dates[-1]}"))
    played = len(match.games)
    scheduled = _opt_int(summary.get("games_scheduled"))
    facts.append(("Games", f"{played} of {scheduled}" if scheduled else str(played)))
    for key, label in (
        ("tournament", "Tournament"),
        ("seed", "Seed"),
        ("concurrency", "Concurrency"),
    ):
        value = config.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool):
            facts.append((label, str(value)))
    openings = config.get("openings")
    if isinstance(openings, dict) and isinstance(openings.get("kind"), str):
        extra = " ".join(f"{k}={v}" for k, v in sorted(openings.items()) if k != "kind")
        facts.append(("Openings", f"{openings['kind']} {extra}".strip()))
    sprt = summary.get("sprt")
    if isinstance(sprt, dict):
        try:
            verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}.get(
                sprt.get("verdict"), "?"
            )
            facts.append(
                (
                    "SPRT",
                    f"elo0={sprt['elo0']:g} elo1={sprt['elo1']:g}: LLR {sprt['llr']:.2f} "
                    f"({sprt['lower']:.2f}, {sprt['upper']:.2f}), {verdict}",
                )
            )
        except (KeyError, TypeError, ValueError):
            pass
    stopped = summary.get("stopped")
    if isinstance(stopped, str) and stopped:
        facts.append(("Stopped", stopped))
    return facts


def render(match: Match, boards: int = DEFAULT_BOARDS, size: int = BOARD_SIZE) -> str:
    """The whole page for a match, drawing boards for the first ``boards`` games."""
    maker = BoardMaker(size)
    games = []
    drawn = 0
    for game in match.games:
        board, missing = None, None
        plies = len(game.book) + len(game.moves)
        if drawn < boards and plies > MAX_DRAWN_PLIES:
            missing = (
                f"a game of {plies} plies: this report draws games of up to {MAX_DRAWN_PLIES} plies"
            )
        elif drawn < boards:
            try:
                board = maker.draw(game)
                drawn += 1
            except GameError as exc:
                missing = str(exc)
        else:
            missing = (
                f"this report draws the first {boards} games "
                "(zengine report DIR --boards N draws more)"
            )
        games.append(game_data(game, board, missing))
    payload = {"lines": maker.table.lines, "games": games}
    # '<' only occurs inside JSON strings, where \u003c means the same: no '</script>' inside.
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    names = match.engines
    title = " vs ".join(names[:4]) + (" \u2026" if len(names) > 4 else "") or "no engines"
    event = _text(match.config, "event", "zengine match")
    facts = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in header_facts(match))
    notes = "".join(f"<li>{_e(n)}</li>" for n in match.notes)
    notes_html = (
        f'<section class="card notes" id="notes"><ul>{notes}</ul></section>' if notes else ""
    )
    board_note = (
        f'<p class="hint">Boards are drawn for the first {boards} of {len(match.games)} games.</p>'
        if len(match.games) > boards
        else ""
    )
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="zengine report">
<title>{_e(event)}: {_e(title)}</title>
<style>{CSS}</style>
</head>
<body>
<header class="page-head">
<h1>{_e(event)} <span class="versus">{_e(title)}</span></h1>
<dl class="facts">{facts}</dl>
</header>
<main>
{notes_html}
<section class="card" id="standings"><h2>Standings</h2>{standings_html(match)}
<p class="hint">Elo against each engine's opponents with its 95% interval, from pairs of games (one opening, colours swapped) when the games are paired.</p></section>
<div class="grid">
<section class="card" id="crosstable"><h2>Cross table</h2>{cross_table_html(match)}</section>
<section class="card" id="terminations"><h2>Terminations</h2>{terminations_html(match)}</section>
</div>
<section class="card" id="course"><h2>Course of the match</h2><div class="charts">{charts(match)}</div></section>
<section class="card" id="games"><h2>Games</h2>
<noscript><p class="note">The board viewer needs JavaScript; the games are listed below.</p></noscript>
{VIEWER if match.games else '<p class="empty">No games yet.</p>'}
{board_note}
{games_table_html(match)}
</section>
</main>
<footer>Written by <code>zengine report</code> on {stamp} from <code>{_e(match.directory.name or match.directory)}</code>. Keys (while the board is on screen): \u2190 \u2192 step, Home/End first/last, p/n previous/next game.</footer>
<script type="application/json" id="report-data">{data}</script>
<script>{SCRIPT}</script>
</body>
</html>
"""


def write_report(out_dir: Path, boards: int = DEFAULT_BOARDS) -> Path:
    """Write ``out_dir/report.html`` for the match in ``out_dir`` and return its path.

    Damaged records are shown with notes; raises :class:`ReportError` only if the directory
    holds no match or the file cannot be written. The file is replaced atomically.
    """
    return save(load_match(Path(out_dir)), boards)


def save(match: Match, boards: int = DEFAULT_BOARDS) -> Path:
    """Write the page of a match read by :func:`load_match` into its directory."""
    page = render(match, boards)
    path = match.directory / REPORT_FILE
    tmp = match.directory / (REPORT_FILE + ".tmp")
    try:
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise ReportError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp.is_file():  # a failed or interrupted write leaves nothing behind
            tmp.unlink()
    return path


@click.command("report")
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
@click.option(
    "--boards",
    type=click.IntRange(0),
    default=DEFAULT_BOARDS,
    show_default=True,
    help="Draw boards for this many games (the first ones); the others list their moves.",
)
def report_command(directory: Path, boards: int) -> None:
    """Write DIR/report.html: one self-contained page of the match in DIR (standings, cross
    table, Elo, charts, every game with a board to step through)."""
    try:
        match = load_match(directory)
        path = save(match, boards)
    except ReportError as exc:
        fail(click.get_current_context().command_path, str(exc))  # exit 2, as a bad command line
    for note in match.notes:  # also on the page; said here so a damaged match is noticed
        click.echo(f"note: {note}", err=True)
    size = path.stat().st_size
    click.echo(f"{path} ({size / 1e6:.1f} MB)" if size >= 1e5 else f"{path} ({size // 1000} kB)")


# --- the page's style and script ----------------------------------------------------------------

VIEWER = """<div id="viewer" class="viewer" data-game="" data-ply="">
<div class="viewer-head">
<button type="button" id="prev-game" title="Previous game (p)" aria-label="Previous game">\u2039</button>
<div class="game-title"><div id="game-title"></div><div id="game-sub" class="sub"></div></div>
<button type="button" id="next-game" title="Next game (n)" aria-label="Next game">\u203a</button>
</div>
<div class="viewer-body">
<div class="board-col">
<div id="board" class="board" aria-live="polite"></div>
<div id="no-board" class="no-board" hidden></div>
<div class="controls">
<button type="button" id="first" title="Start (Home)" aria-label="First position"><svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 3h2v10H3zM13 3v10L6 8z"/></svg></button>
<button type="button" id="prev" title="Previous move (\u2190)" aria-label="Previous move"><svg viewBox="0 0 16 16" aria-hidden="true"><path d="M12 3v10L4 8z"/></svg></button>
<span id="ply-label" class="ply-label"></span>
<button type="button" id="next" title="Next move (\u2192)" aria-label="Next move"><svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 3v10l8-5z"/></svg></button>
<button type="button" id="last" title="End (End)" aria-label="Last position"><svg viewBox="0 0 16 16" aria-hidden="true"><path d="M11 3h2v10h-2zM3 3v10l7-5z"/></svg></button>
</div>
<div id="position" class="position"></div>
<ul id="game-notes" class="game-notes"></ul>
</div>
<div class="moves-col">
<table id="moves"><thead><tr><th class="num">No.</th><th>Side</th><th>Move</th>
<th class="num" title="Score from the mover's view / search depth">Score/depth</th><th class="num">Time</th></tr></thead>
<tbody id="move-list"></tbody></table>
</div>
</div>
</div>"""

CSS = """
:root { --ink: #1d2430; --muted: #5d6878; --line: #dfe3ea; --card: #ffffff; --bg: #f3f5f8;
  --accent: #0b62c4; --accent-soft: #e3eefb; --book: #8a93a3; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
code { font: 13px/1.3 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.page-head { padding: 22px 32px 14px; background: #17202e; color: #fff; }
.page-head h1 { margin: 0 0 10px; font-size: 24px; font-weight: 650; }
.page-head .versus { font-weight: 400; color: #aac4e6; margin-left: 10px; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 26px; margin: 0; }
.facts div { display: flex; gap: 6px; }
.facts dt { color: #93a3ba; }
.facts dd { margin: 0; }
main { max-width: 1320px; margin: 0 auto; padding: 18px 24px 8px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 18px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 14px 18px 16px; margin-bottom: 18px; overflow-x: auto; }
.grid .card { margin-bottom: 0; }
.grid { margin-bottom: 18px; align-items: start; }
h2 { font-size: 17px; margin: 0 0 10px; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 5px 8px; text-align: left; border-bottom: 1px solid var(--line); white-space: nowrap; }
thead th { font-size: 12.5px; color: var(--muted); font-weight: 600; border-bottom: 2px solid var(--line); }
tbody th { font-weight: 600; }
td.wrap { white-space: normal; }
td.limits { color: var(--muted); font-size: 13px; }
.badge { display: inline-block; margin-left: 8px; padding: 0 8px; border-radius: 6px;
  background: #17202e; color: #fff; font-size: 15px; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.strong { font-weight: 700; }
td small, th small { color: var(--muted); font-weight: 400; }
td.self { text-align: center; color: #b7bec9; background: #f7f8fa; }
.hint { color: var(--muted); font-size: 13px; margin: 8px 0 0; }
.empty { color: var(--muted); font-style: italic; }
.notes { background: #fff7e0; border-color: #f1d48a; }
.notes ul { margin: 0; padding-left: 20px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 18px; }
.chart { width: 100%; height: auto; font-family: system-ui, "DejaVu Sans", Arial, sans-serif; }
.chart .plot { fill: #fbfcfd; stroke: #c9d0da; }
.chart .gridline { stroke: #e6e9ee; }
.chart .axis { stroke: #8a93a3; }
.chart .reference { stroke: #8a93a3; stroke-dasharray: 4 3; }
.chart .series { fill: none; stroke-width: 2.2; stroke-linejoin: round; }
.chart .tick { font-size: 11px; fill: var(--muted); }
.chart .axis-label { font-size: 12px; fill: var(--muted); }
.chart .legend { font-size: 12px; fill: var(--ink); }
.chart .chart-title { font-size: 14px; font-weight: 600; fill: var(--ink); }
.viewer { border: 1px solid var(--line); border-radius: 10px; padding: 12px; background: #fafbfc; }
.viewer-head { display: flex; align-items: center; gap: 12px; margin-bottom: 10px; }
.game-title { flex: 1; text-align: center; }
#game-title { font-size: 17px; font-weight: 650; }
.game-title .sub { color: var(--muted); font-size: 13px; }
.viewer-body { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
.board-col { flex: 0 1 500px; min-width: 280px; }
.board { width: 100%; max-width: 500px; background: #fff; border: 1px solid var(--line);
  border-radius: 8px; overflow: hidden; }
.board svg { width: 100%; height: auto; display: block; }
.no-board { padding: 18px; border: 1px dashed #c9d0da; border-radius: 8px; color: var(--muted);
  background: #fff; }
.controls { display: flex; align-items: center; justify-content: center; gap: 6px; margin: 10px 0 4px; }
button { font: inherit; font-size: 16px; min-width: 40px; height: 34px; border-radius: 7px;
  border: 1px solid #c3cad5; background: #fff; color: var(--ink); cursor: pointer; }
button:hover:not(:disabled) { background: var(--accent-soft); border-color: var(--accent); }
button:disabled { color: #b7bec9; cursor: default; }
button svg { width: 15px; height: 15px; fill: currentColor; vertical-align: -2px; }
.viewer-head button { font-size: 22px; line-height: 1; }
.ply-label { min-width: 150px; text-align: center; font-variant-numeric: tabular-nums; color: var(--muted); }
.position { font: 12px ui-monospace, "DejaVu Sans Mono", Menlo, monospace; color: var(--muted);
  text-align: center; word-break: break-all; }
.game-notes { color: #8a5a00; font-size: 13px; padding-left: 18px; }
.moves-col { flex: 1 1 320px; max-height: 600px; overflow-y: auto; border: 1px solid var(--line);
  border-radius: 8px; background: #fff; }
#moves, #games-table { border-collapse: separate; border-spacing: 0; }
#moves thead th, #games-table thead th { position: sticky; top: 0; background: #fff; z-index: 1;
  border-bottom: 0; box-shadow: inset 0 -2px 0 var(--line); }
#moves tbody tr { cursor: pointer; }
#moves tbody tr:hover { background: #f2f6fb; }
#moves tr.book td { color: var(--book); }
#moves tr.current, #moves tr.current:hover { background: var(--accent); }
#moves tr.current td { color: #fff; }
#moves td.move { font-weight: 600; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
#moves tr.end td { color: var(--muted); font-style: italic; cursor: default; }
.games-scroll { max-height: 420px; overflow-y: auto; margin-top: 14px; border: 1px solid var(--line);
  border-radius: 8px; }
#games-table tbody tr { cursor: pointer; }
#games-table tbody tr:hover { background: #f2f6fb; }
#games-table tr.selected { background: var(--accent-soft); }
#games-table td.result { font-weight: 600; }
footer { max-width: 1320px; margin: 0 auto; padding: 4px 24px 26px; color: var(--muted); font-size: 13px; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var games = data.games, lines = data.lines;
  var viewer = document.getElementById("viewer");
  if (!viewer || !games.length) return;
  function $(id) { return document.getElementById(id); }
  var boardBox = $("board"), moveList = $("move-list"), movesCol = moveList.closest(".moves-col");
  var index = 0, ply = 0, rows = [];

  // A picture is runs (first, count, first, count, ...) of the shared line table; joined, it
  // is State.svg's text.
  function picture(runs) {
    var out = [];
    for (var r = 0; r < runs.length; r += 2)
      for (var i = runs[r]; i < runs[r] + runs[r + 1]; i++) out.push(lines[i]);
    return out.join("\n").replace(/^<\?xml[^>]*>\s*/, "");
  }
  function text(tag, content, cls) {
    var el = document.createElement(tag);
    if (content !== undefined && content !== null) el.textContent = content;
    if (cls) el.className = cls;
    return el;
  }
  function timeText(ms) {
    if (ms === null || ms === undefined) return "";
    return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
  }
  function sideName(g, side) {
    var names = g.sides || ["P1", "P2"];
    return names[side] + " (" + (side === 0 ? g.p1 : g.p2) + ")";
  }
  function mover(g, i) {
    return g.movers ? g.movers[i] : (g.start_side + i) % 2;
  }

  function load(i, where) {
    index = Math.max(0, Math.min(games.length - 1, i));
    var g = games[index];
    viewer.dataset.game = String(g.id);
    var title = $("game-title");
    title.textContent = "Game " + (g.id + 1) + ": " + g.p1 + " \u2013 " + g.p2;
    title.appendChild(text("span", g.result, "badge"));
    $("game-sub").textContent = g.why + " \u00b7 " + g.variant + (g.tc ? " \u00b7 " + g.tc : "") +
      (g.opening ? " \u00b7 opening " + g.opening : "");
    var notes = $("game-notes");
    notes.textContent = "";
    for (var n = 0; n < g.notes.length; n++) notes.appendChild(text("li", g.notes[n]));
    boardBox.hidden = !g.boards;
    var none = $("no-board");
    none.hidden = !!g.boards;
    none.textContent = g.boards ? "" : "No board: " + g.no_board + ".";
    moveList.textContent = "";
    rows = [];
    var start = text("tr", null, "start");
    start.appendChild(text("td", "", "num"));
    start.appendChild(text("td", "start"));
    start.appendChild(text("td", "\u2014", "move"));
    start.appendChild(text("td", "", "num"));
    start.appendChild(text("td", "", "num"));
    start.dataset.ply = "0";
    moveList.appendChild(start);
    rows.push(start);
    var moveNo = 1;
    for (var p = 0; p < g.plies.length; p++) {
      var m = g.plies[p], side = mover(g, p);
      var tr = text("tr", null, m[3] ? "book" : "");
      tr.dataset.ply = String(p + 1);
      tr.appendChild(text("td", side === 0 || p === 0 ? moveNo + (side === 0 ? "." : "\u2026") : "", "num"));
      tr.appendChild(text("td", (g.sides || ["P1", "P2"])[side]));
      tr.appendChild(text("td", m[0], "move"));
      tr.appendChild(text("td", m[3] ? "book" : m[2], "num"));
      tr.appendChild(text("td", timeText(m[1]), "num"));
      if (side === 1) moveNo++;
      moveList.appendChild(tr);
      rows.push(tr);
    }
    var end = text("tr", null, "end");
    var cell = text("td", g.result + "  " + g.why);
    cell.colSpan = 5;
    end.appendChild(cell);
    moveList.appendChild(end);
    var selected = document.querySelector("#games-table tr.selected");
    if (selected) selected.classList.remove("selected");
    var row = $("game-row-" + g.id);
    if (row) row.classList.add("selected");
    $("prev-game").disabled = index === 0;
    $("next-game").disabled = index === games.length - 1;
    go(where === "end" ? g.plies.length : 0);
  }

  function go(p) {
    var g = games[index];
    ply = Math.max(0, Math.min(g.plies.length, p));
    viewer.dataset.ply = String(ply);
    if (g.boards) {
      boardBox.innerHTML = picture(g.boards[ply]);
      $("position").textContent = g.fens[ply];
    } else {
      $("position").textContent = "";
    }
    for (var r = 0; r < rows.length; r++) rows[r].classList.toggle("current", r === ply);
    var label;
    if (ply === 0) label = "Start";
    else label = "Ply " + ply + " of " + g.plies.length + ": " + g.plies[ply - 1][0];
    if (ply === g.plies.length && ply > 0) label += " \u00b7 " + g.result;
    $("ply-label").textContent = label;
    $("first").disabled = $("prev").disabled = ply === 0;
    $("next").disabled = $("last").disabled = ply === g.plies.length;
    // Keep the current move in view inside the list without scrolling the page.
    var row = rows[ply], top = row.offsetTop - movesCol.clientHeight / 2 + row.offsetHeight;
    movesCol.scrollTop = Math.max(0, top);
  }

  $("first").addEventListener("click", function () { go(0); });
  $("prev").addEventListener("click", function () { go(ply - 1); });
  $("next").addEventListener("click", function () { go(ply + 1); });
  $("last").addEventListener("click", function () { go(games[index].plies.length); });
  $("prev-game").addEventListener("click", function () { load(index - 1); });
  $("next-game").addEventListener("click", function () { load(index + 1); });
  moveList.addEventListener("click", function (event) {
    var tr = event.target.closest("tr");
    if (tr && tr.dataset.ply !== undefined) go(Number(tr.dataset.ply));
  });
  var table = $("games-table");
  function pick(event) {
    var tr = event.target.closest("tr[data-index]");
    if (!tr) return;
    load(Number(tr.dataset.index));
    history.replaceState(null, "", "#game-" + games[index].id);
    viewer.scrollIntoView({ block: "start" });
  }
  // The keys act on the viewer only while it is on screen: elsewhere they scroll the page.
  function onScreen() {
    var box = viewer.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  }
  table.addEventListener("click", pick);
  table.addEventListener("keydown", function (event) { if (event.key === "Enter") pick(event); });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || !onScreen()) return;
    var keys = {
      ArrowRight: function () { go(ply + 1); },
      ArrowLeft: function () { go(ply - 1); },
      Home: function () { go(0); },
      End: function () { go(games[index].plies.length); },
      n: function () { load(index + 1); },
      p: function () { load(index - 1); }
    };
    if (keys[event.key]) { keys[event.key](); event.preventDefault(); }
  });
  var start = 0, match = /^#game-(\d+)$/.exec(location.hash);
  if (match) for (var i = 0; i < games.length; i++) if (games[i].id === Number(match[1])) start = i;
  load(start);
  if (match) viewer.scrollIntoView({ block: "start" });
})();
"""
