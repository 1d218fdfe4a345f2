"""``zengine report DIR``: one self-contained HTML page of a match played with ``--out DIR``.

The page (``DIR/report.html``) shows the standings, the cross table, Elo with its 95% interval,
the terminations, the score and Elo over the course of the match as charts, and every game with
a board to step through move by move. Everything is inline (CSS, script, SVG): the file opens
offline, can be mailed, and shows the same anywhere. The style, the script and the viewer's
markup are files of this package (``report.css``, ``report.js``, ``viewer.html``), read and
inlined into each page.

The games are read through :mod:`tools.referee.records` and counted by the referee's own
counters (:mod:`tools.referee.tally`, :mod:`tools.referee.stats`), so the page and the
referee's summary agree.

The report never names a game: each position draws itself (:mod:`tools.pictures.boards`, which
also says how the page stores its pictures compactly). Drawing takes time (5-13 ms a picture),
so only the first ``--boards`` games get boards; the others list their moves with a note.
"""

from __future__ import annotations

import functools
import html
import json
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import click

from zengine.cli import fail
from zengine.engine.game import GameError
from zengine.engine.text import printable, writable
from zengine.engine.values import Result
from zengine.tools.pictures.boards import BOARD_SIZE, Board, BoardMaker, rules_of
from zengine.tools.pictures.chart import Axis, Series, chart, nice_step
from zengine.tools.referee import stats
from zengine.tools.referee.folder import CONFIG_FILE, GAMES_FILE, REPORT_FILE, SUMMARY_FILE
from zengine.tools.referee.records import (
    RecordError,
    RecordsError,
    json_value,
    read_bytes,
    read_record_objects,
)
from zengine.tools.referee.stats import EloEstimate
from zengine.tools.referee.tally import MatchTally

#: Games that get a board by default; later ones list their moves only (``--boards`` changes
#: this). Measured on a loaded 2-core machine: a 200-game Zhadu match (33 plies a game) with
#: every board is 3.4 MB (17 kB a game: ~0.3 kB of runs a ply plus the shared lines) and takes
#: 19 s to draw (5-13 ms a picture), so 100 games keep the page and the wait moderate.
DEFAULT_BOARDS = 100
#: A game of more plies gets no boards (its moves are listed): drawing one picture a ply, a
#: 14,000-ply game (a referee test's opening line) took 56 s of processor time to report.
#: Games of both games end far sooner; a few hundred plies draw in about a second.
MAX_DRAWN_PLIES = 1000
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
    #: None if the record has no readable result.
    result: Result | None
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
    text = record.get("result")
    try:
        result: Result | None = Result.from_pgn(text) if isinstance(text, str) else None
    except ValueError:
        result = None
    if result is None:
        notes.append(f"no readable result ({text!r}): left out of the standings")
    book = _moves(record, "opening_moves", notes)
    moves = _moves(record, "moves", notes)
    side = _opt_int(record.get("start_side"))
    round_, pair = record.get("round"), record.get("pair")
    if _opt_int(record.get("pair_round")) is not None:  # a pair across a round's end
        round_ = record["pair_round"]
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
        data = read_bytes(str(path))
        if data is None:
            notes.append(f"{path.name} is missing")
            return {}
        value = json_value(data)
    except (RecordsError, RecordError) as exc:
        notes.append(f"{path.name} is unreadable ({exc})")
        return {}
    if not isinstance(value, dict):
        notes.append(f"{path.name} is unreadable (not a JSON object)")
        return {}
    return value


def read_records(path: Path, notes: list[str]) -> list[dict[str, Any]]:
    """The game records of a JSON-lines file in file order (the order games finished in),
    read by :func:`records.read_record_objects`: the lines it leaves out are counted in notes.
    Raises :class:`ReportError` if the file cannot be read."""
    try:
        read = read_record_objects(str(path))
    except RecordsError as exc:
        raise ReportError(f"cannot read {exc}") from None
    if read.damaged:
        s = "s" if read.damaged > 1 else ""
        notes.append(f"{read.damaged} line{s} of {path.name} could not be read")
    if read.repeated:
        notes.append(f"{read.repeated} repeated game id{'s' if read.repeated > 1 else ''} left out")
    return read.objects


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


@dataclass
class Standing:
    """One engine's line of the standings: its results as P1 and as P2, and its Elo against
    its opponents (the referee's regularised estimate of its pairs, so the report and the
    summary agree)."""

    name: str
    as_p1: stats.WDL
    as_p2: stats.WDL
    elo: EloEstimate | None

    @property
    def wdl(self) -> stats.WDL:
        return self.as_p1 + self.as_p2


def scored(games: Iterable[Game]) -> list[Game]:
    """The games that count: those with a readable result."""
    return [g for g in games if g.result is not None]


def count(tally: MatchTally, numbers: dict[str, int], game: Game) -> None:
    """Count a game with a result in ``tally``, its engines numbered by ``numbers``."""
    assert game.result is not None
    p1_score = stats.game_score(game.result, 0)
    tally.add_score(numbers[game.p1], numbers[game.p2], p1_score, game.pair)


def tally_of(match: Match) -> MatchTally:
    """The counters of the match's games (engines numbered as in ``match.engines``)."""
    tally = MatchTally(len(match.engines))
    numbers = {name: i for i, name in enumerate(match.engines)}
    for game in scored(match.games):
        count(tally, numbers, game)
    return tally


def standings(match: Match) -> list[Standing]:
    """Every engine's results, best first (points, then fewer games, then name)."""
    tally = tally_of(match)
    table = [
        Standing(name, tally.as_p1[i], tally.as_p2[i], stats.elo_estimate(tally.pentanomial_of(i)))
        for i, name in enumerate(match.engines)
    ]
    return sorted(table, key=lambda s: (-s.wdl.points, s.wdl.games, s.name))


def cross_table(match: Match) -> dict[tuple[str, str], tuple[float, int]]:
    """``(row, column) -> (points of row against column, games)`` for engines that met."""
    names = match.engines
    cells: dict[tuple[str, str], tuple[float, int]] = {}
    for (a, b), encounter in tally_of(match).encounters.items():
        wdl = encounter.wdl
        if a != b:
            cells[(names[a], names[b])] = (wdl.points, wdl.games)
            cells[(names[b], names[a])] = (wdl.games - wdl.points, wdl.games)
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
    tally = MatchTally(len(match.engines))
    numbers = {name: i for i, name in enumerate(match.engines)}
    score: dict[str, list[tuple[int, float]]] = {name: [] for name in match.engines}
    elo: dict[str, list[tuple[int, EloEstimate]]] = {name: [] for name in match.engines}
    for x, game in enumerate(games, 1):
        count(tally, numbers, game)
        for name in (game.p1, game.p2):
            wdl = tally.wdl(numbers[name])
            score[name].append((x, wdl.points / wdl.games))
            estimate = stats.elo_estimate(tally.pentanomial_of(numbers[name]))
            if estimate is not None:
                elo[name].append((x, estimate))
    return Course(score, elo, len(games))


# --- the page -----------------------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


#: Elo as the page writes it: whole numbers, always signed, with a true minus sign (``+70``,
#: ``\u221229``, ``+inf``).
page_elo = functools.partial(stats.format_elo, decimals=0, signed=True, minus="\u2212")


def elo_text(estimate: EloEstimate | None) -> str:
    """``+70 [-29, +184]`` as HTML; a dash without an estimate."""
    if estimate is None:
        return "\u2013"
    return f"{page_elo(estimate.elo)} <small>[{page_elo(estimate.low)}, {page_elo(estimate.high)}]</small>"


def points_text(points: float) -> str:
    """``3``, ``2.5``: points without a needless ``.0``."""
    return f"{points:g}"


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
    step = nice_step(max(reach, 50.0), 4)
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
        Axis("Elo", -bound, bound, step, page_elo, 0.0),
    )


def _wdl(wdl: stats.WDL) -> str:
    return f"{wdl.wins}\u2013{wdl.draws}\u2013{wdl.losses}"


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
        wdl = s.wdl
        share = f"{100 * wdl.points / wdl.games:.1f}%" if wdl.games else "\u2013"
        rows.append(
            f'<tr data-engine="{_e(s.name)}"><td class="num">{rank}</td><th scope="row">{_e(s.name)}</th>'
            f'<td class="num">{wdl.games}</td><td class="num strong">{points_text(wdl.points)}</td>'
            f'<td class="num">{share}</td><td class="num">{wdl.wins}</td><td class="num">{wdl.draws}</td>'
            f'<td class="num">{wdl.losses}</td><td class="num">{elo_text(s.elo)}</td>'
            f'<td class="num">{_wdl(s.as_p1)}</td><td class="num">{_wdl(s.as_p2)}</td>'
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
        result = g.result.pgn if g.result else "?"
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
        "result": game.result.pgn if game.result else "?",
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


@functools.cache
def page_file(name: str) -> str:
    """A file of the page shipped beside this module (its style ``report.css``, its script
    ``report.js``, the board viewer's markup ``viewer.html``), inlined so that the page stays
    one self-contained file."""
    return resources.files("zengine.tools.pictures").joinpath(name).read_text(encoding="utf-8")


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
                rules = rules_of(game.variant, game.variant_name)
                board = maker.draw(rules, game.start_fen, game.book + game.moves)
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
    viewer = page_file("viewer.html").removesuffix("\n")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="zengine report">
<title>{_e(event)}: {_e(title)}</title>
<style>
{page_file("report.css")}</style>
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
{viewer if match.games else '<p class="empty">No games yet.</p>'}
{board_note}
{games_table_html(match)}
</section>
</main>
<footer>Written by <code>zengine report</code> on {stamp} from <code>{_e(writable(str(match.directory.name or match.directory)))}</code>. Keys (while the board is on screen): \u2190 \u2192 step, Home/End first/last, p/n previous/next game.</footer>
<script type="application/json" id="report-data">{data}</script>
<script>
{page_file("report.js")}</script>
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
        # Every text of the page is checked as it is read; should one still hold a lone
        # surrogate, it is written as '?' rather than leave the match without a page.
        tmp.write_bytes(page.encode("utf-8", errors="replace"))
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
