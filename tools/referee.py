"""Playing one game between two engine processes, with the referee's clock and adjudication.

The referee keeps the authoritative position through the game interface only
(:mod:`engine.game`): every ``bestmove`` is checked with ``State.parse_move``; the game ends by
the rules (``State.outcome``), by a ply limit, by adjudication on reported scores, or by a
failure of an engine, which then loses. How it ended is a :class:`values.Outcome`: its
``Termination`` and a detail naming the specifics (``3000 ms used, 2200 ms allowed``); the
sentence people read is made where the record is written (:mod:`tools.records`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from zengine.engine.game import IllegalMoveError, InvalidMoveError, Rules
from zengine.engine.values import Outcome, Result, Score, Termination, format_go, parse_info
from zengine.tools.clock import Clock, go_limits
from zengine.tools.config import Adjudication
from zengine.tools.engine_process import EngineError, EngineProcess
from zengine.tools.schedule import Opening

#: Mate scores count as centipawns this large (less the distance) for adjudication.
MATE_CP = 100_000


@dataclass(frozen=True)
class PlayedGame:
    """What happened in one game: how it ended and every move with its time and report."""

    outcome: Outcome
    start_fen: str
    final_fen: str
    moves: tuple[str, ...] = ()
    times_ms: tuple[int, ...] = ()
    scores: tuple[Score | None, ...] = ()
    depths: tuple[int | None, ...] = ()
    #: Sides (0 = p1) whose process failed (no answer, gone): it needs a resync or a restart.
    failed: tuple[int, ...] = ()
    #: Seconds from reading a ``bestmove`` to writing the next ``go``: the referee's own cost.
    overhead_s: tuple[float, ...] = ()


def _loss(side: int) -> Result:
    return Result.win_for(1 - side)


def start_position(rules: Rules, opening: Opening) -> str:
    """The position string the game starts from (before the opening's moves)."""
    state = rules.parse_position(opening.fen) if opening.fen is not None else rules.start()
    return state.position_text()


def unplayed(
    rules: Rules, opening: Opening, outcome: Outcome, failed: tuple[int, ...]
) -> PlayedGame:
    """A game that ended before its first move (an engine that could not start)."""
    return PlayedGame(
        outcome,
        start_fen=start_position(rules, opening),
        final_fen=opening.state(rules).position_text(),
        failed=failed,
    )


def rule_options(rules: Rules) -> dict[str, str]:
    """The engine options (``Zhadu Quiet``...) that set rules away from their defaults."""
    extra = {}
    for option in type(rules).ENGINE_OPTIONS:
        value = rules.options.get(option.rule)
        if value is not None and value != str(option.default):
            extra[option.option] = value
    return extra


def play_game(
    rules: Rules,
    opening: Opening,
    engines: tuple[EngineProcess, EngineProcess],
    adjudication: Adjudication,
) -> PlayedGame:
    """Play a game from ``opening`` between ``engines[0]`` (p1) and ``engines[1]`` (p2).

    The processes must have completed their handshake; each one's configuration gives its
    limits and timeouts. Never raises for engine failures: they end the game.
    """
    state = opening.state(rules)
    start_fen = start_position(rules, opening)
    base_cmd = f"position fen {opening.fen}" if opening.fen is not None else "position startpos"
    history = list(opening.moves)
    moves: list[str] = []
    times_ms: list[int] = []
    scores: list[Score | None] = []
    depths: list[int | None] = []
    overhead_s: list[float] = []
    failed: list[int] = []

    def finish(outcome: Outcome) -> PlayedGame:
        return PlayedGame(
            outcome,
            start_fen,
            state.position_text(),
            tuple(moves),
            tuple(times_ms),
            tuple(scores),
            tuple(depths),
            tuple(failed),
            tuple(overhead_s),
        )

    extra = rule_options(rules)
    for side in (0, 1):  # p1 first
        try:
            engines[side].new_game(rules.name, extra)
        except EngineError as exc:
            failed.append(side)
            return finish(Outcome(_loss(side), exc.termination, exc.detail))

    clocks = (Clock(engines[0].config.limits), Clock(engines[1].config.limits))
    cps: tuple[list[int | None], list[int | None]] = ([], [])
    last_read: float | None = None
    while True:
        over = state.outcome()
        if over is not None:
            return finish(over)
        played = len(moves)
        if adjudication.max_plies and played >= adjudication.max_plies:
            return finish(
                Outcome(
                    Result.DRAW, Termination.MAX_PLIES, f"draw: {played} plies played, the limit"
                )
            )
        side = state.side_to_move
        engine = engines[side]
        timeouts = engine.config.timeouts
        position = base_cmd + (" moves " + " ".join(history) if history else "")
        go = format_go(go_limits(side, clocks), engine.config.proto.value)
        allowed = clocks[side].allowed_ms()
        wait_s = allowed / 1000 + timeouts.grace if allowed is not None else timeouts.move
        sent = time.monotonic()
        try:
            engine.send(position)
            sent = engine.send(go)
            if last_read is not None:
                overhead_s.append(sent - last_read)
            deadline = sent + wait_s
            score: Score | None = None
            depth: int | None = None
            while True:
                stamp, line = engine.read_line(deadline, "bestmove", "in time")
                info = parse_info(line)
                if info is not None:
                    score = info.score if info.score is not None else score
                    depth = info.depth if info.depth is not None else depth
                    continue
                tokens = line.split()
                if tokens and tokens[0] == "bestmove":
                    break
        except EngineError as exc:
            failed.append(side)
            if exc.termination is not Termination.STALL:
                return finish(Outcome(_loss(side), exc.termination, exc.detail))
            elapsed_ms = int((time.monotonic() - sent) * 1000)
            if allowed is not None:
                clocks[side].spend(elapsed_ms)
                return finish(
                    Outcome(
                        _loss(side),
                        Termination.TIME_FORFEIT,
                        f"lost on time: no bestmove after {elapsed_ms} ms, {allowed} ms allowed",
                    )
                )
            return finish(
                Outcome(
                    _loss(side),
                    Termination.STALL,
                    f"stalled: no bestmove within {timeouts.move:g} s",
                )
            )
        last_read = stamp
        elapsed_ms = max(0, round((stamp - sent) * 1000))
        move_text = tokens[1] if len(tokens) > 1 else ""
        if move_text in ("(none)", "0000", "none"):
            return finish(
                Outcome(
                    _loss(side),
                    Termination.PROTOCOL,
                    f"played no move ('bestmove {move_text}') while legal moves exist",
                )
            )
        try:
            move = state.parse_move(move_text)
        except InvalidMoveError:
            return finish(
                Outcome(
                    _loss(side),
                    Termination.PROTOCOL,
                    f"played an unparsable move: '{line.strip()}'",
                )
            )
        except IllegalMoveError:
            return finish(
                Outcome(
                    _loss(side), Termination.ILLEGAL_MOVE, f"played an illegal move: '{move_text}'"
                )
            )
        if not clocks[side].spend(elapsed_ms):
            return finish(
                Outcome(
                    _loss(side),
                    Termination.TIME_FORFEIT,
                    f"lost on time: {elapsed_ms} ms used, {allowed} ms allowed",
                )
            )
        canonical = state.move_text(move)
        state.play(move)
        history.append(canonical)
        moves.append(canonical)
        times_ms.append(elapsed_ms)
        scores.append(score)
        depths.append(depth)
        cps[side].append(None if score is None else score.centipawns(MATE_CP))
        if state.outcome() is None:
            adjudged = adjudicate(adjudication, cps, side, len(moves))
            if adjudged is not None:
                return finish(adjudged)


def _streak(values: list[int | None], count: int, test: Callable[[int], bool]) -> bool:
    """Whether the last ``count`` values are all reported and pass ``test``."""
    if count <= 0 or len(values) < count:
        return False
    return all(v is not None and test(v) for v in values[-count:])


def adjudicate(
    adj: Adjudication,
    cps: tuple[list[int | None], list[int | None]],
    side: int,
    plies: int,
) -> Outcome | None:
    """Resign or draw adjudication after ``side`` moved (``plies`` made in the game so far);
    ``cps`` are each side's reported scores in centipawns, from its own view."""
    resign = adj.resign
    if resign is not None:
        threshold = resign.score
        loser_low = _streak(cps[side], resign.movecount, lambda v: v <= -threshold)
        other_high = (not resign.twosided) or _streak(
            cps[1 - side], resign.movecount, lambda v: v >= threshold
        )
        if loser_low and other_high:
            return Outcome(
                _loss(side),
                Termination.ADJUDICATION,
                f"resigns: score <= -{threshold} cp for {resign.movecount} moves",
            )
    draw = adj.draw
    if draw is not None and (plies + 1) // 2 >= draw.movenumber:

        def within(v: int) -> bool:
            return abs(v) <= draw.score

        if _streak(cps[0], draw.movecount, within) and _streak(cps[1], draw.movecount, within):
            return Outcome(
                Result.DRAW,
                Termination.ADJUDICATION,
                f"draw: both scores within {draw.score} cp for {draw.movecount} moves",
            )
    return None
