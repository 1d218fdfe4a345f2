"""Playing one game between two engine processes, with the referee's clock and adjudication.

The referee keeps the authoritative position through the game interface only
(:mod:`engine.game`): every ``bestmove`` is checked with ``State.parse_move``; the game ends by
the rules (``State.outcome``), by a ply limit, by adjudication on reported scores, or by a
failure of an engine, which then loses. How it ended is a :class:`~zengine.tools.referee.terminations.Ending`: its
``Termination`` and a detail naming the specifics (``3000 ms used, 2200 ms allowed``); the
sentence people read is made where the record is written (:mod:`tools.referee.records`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zengine.engine.game import IllegalMoveError, InvalidMoveError, Rules, State
from zengine.engine.text import quoted
from zengine.engine.values import Result, Score, format_go, parse_info
from zengine.tools.referee.clock import Clock, go_limits
from zengine.tools.referee.config import Adjudication
from zengine.tools.referee.engine_client import EngineError, EngineProcess
from zengine.tools.referee.schedule import Opening
from zengine.tools.referee.tables import table_ending
from zengine.tools.referee.terminations import Ending, Termination

#: Mate scores count as centipawns this large (less the distance) for adjudication.
MATE_CP = 100_000


@dataclass(frozen=True)
class PlayedGame:
    """What happened in one game: how it ended and every move with its time and report."""

    outcome: Ending
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
    #: What the engines did wrong without losing for it (``X: 2 'bestmove' answering no
    #: 'go' (ignored)``).
    warnings: tuple[str, ...] = ()


def _loss(side: int) -> Result:
    return Result.win_for(1 - side)


def start_position(rules: Rules, opening: Opening) -> str:
    """The position string the game starts from (before the opening's moves)."""
    state = rules.parse_position(opening.fen) if opening.fen is not None else rules.start()
    return state.position_text()


def rule_options(rules: Rules) -> dict[str, str]:
    """The engine options (``Zhadu Quiet``...) that set rules away from their defaults."""
    extra = {}
    for option in type(rules).ENGINE_OPTIONS:
        value = rules.options.get(option.rule)
        if value is not None and value != str(option.default):
            extra[option.option] = value
    return extra


class _Pondering:
    """The ponder searches of one game (cutechess's ``ponder``), for the engines that ponder
    (:attr:`EngineProcess.ponders`). An engine whose ``bestmove`` names a reply it expects
    (``bestmove M ponder R``) gets, as its opponent starts to think, the position with R
    played and ``go ponder`` with the clocks as they are then. When its turn comes, a
    pondered reply that was played is a hit: ``ponderhit``, and its clock runs from there
    (the time it pondered is not charged to it, as cutechess charges it). Another reply is a
    miss: ``stop``, and its ``bestmove`` read and dropped (that time is charged to nobody,
    bounded by its ``timeout.ready``), then ``position`` and ``go`` as for any move."""

    def __init__(self, engines: tuple[EngineProcess, EngineProcess]) -> None:
        self.engines = engines
        #: The reply each side's last ``bestmove`` named, to be pondered on next.
        self.expected: list[str | None] = [None, None]
        #: The reply each side is pondering on now (a ``go ponder`` under way).
        self.on: list[str | None] = [None, None]
        self.warnings: list[str] = []
        #: Seconds the last :meth:`resolve` waited for the answer to a ``stop`` (the engine's
        #: time, not the referee's: left out of the referee's overhead).
        self.stop_wait_s = 0.0

    def expect(self, side: int, state: State, tokens: list[str]) -> None:
        """After ``side``'s move (``tokens``: its ``bestmove`` line, the move played on
        ``state``): the reply it named, if it ponders, the reply is legal and does not end
        the game (cutechess ignores those too)."""
        self.expected[side] = None
        engine = self.engines[side]
        if not engine.ponders or len(tokens) < 4 or tokens[2] != "ponder":
            return
        text = tokens[3]
        if text in ("(none)", "0000", "none"):
            return
        try:
            reply = state.parse_move(text)
        except (InvalidMoveError, IllegalMoveError):
            self.warnings.append(
                f"{engine.name}: ponder move '{quoted(text)}' is not legal after"
                f" '{quoted(tokens[1])}' (not pondered on)"
            )
            return
        canonical = state.move_text(reply)
        state.play(reply)
        over = state.outcome() is not None
        state.undo()
        if not over:
            self.expected[side] = canonical

    def start(self, side: int, position: str, clocks: tuple[Clock, Clock]) -> None:
        """``side`` starts to ponder on its expected reply, if it has one: ``position`` (the
        game's moves, to which the reply is added) and ``go ponder`` with the limits of its
        ``go`` at ``clocks``. EngineError if it does not take them within its
        ``timeout.ready``."""
        reply, self.expected[side] = self.expected[side], None
        if reply is None:
            return
        engine = self.engines[side]
        timeout = engine.config.timeouts.ready_s
        joiner = " " if " moves " in position else " moves "
        engine.send(f"{position}{joiner}{reply}", timeout)
        error = engine.discard_stale()
        if error is not None:  # its position is refused: no ponder search on it
            self.warnings.append(f"{engine.name}: answered '{quoted(error)}' (not pondered on)")
            return
        go = format_go(go_limits(side, clocks), engine.config.proto.value)
        engine.send("go ponder" + go[len("go") :], timeout)
        self.on[side] = reply

    def resolve(self, side: int, played: str) -> bool:
        """``side`` is to move, its opponent having played ``played``: whether its ponder
        search goes on as its search for this move (a hit, ``ponderhit`` to be sent). A miss
        ends the search first. EngineError if it does not answer the ``stop``."""
        reply, self.on[side] = self.on[side], None
        self.stop_wait_s = 0.0
        if reply is None:
            return False
        engine = self.engines[side]
        if reply == played:
            return not engine.ponder_ended()
        begun = time.monotonic()
        engine.end_ponder(engine.config.timeouts.ready_s)
        self.stop_wait_s = time.monotonic() - begun
        return False

    def end(self) -> list[int]:
        """The game is over: every ponder search under way is ended; the sides whose engine
        did not answer (they need a resync)."""
        failed = []
        for side in (0, 1):
            if self.on[side] is not None:
                self.on[side] = None
                engine = self.engines[side]
                try:
                    engine.end_ponder(engine.config.timeouts.ready_s)
                except EngineError:
                    failed.append(side)
        return failed


def play_game(
    rules: Rules,
    opening: Opening,
    engines: tuple[EngineProcess, EngineProcess],
    adjudication: Adjudication,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> PlayedGame:
    """Play a game from ``opening`` between ``engines[0]`` (p1) and ``engines[1]`` (p2).

    The processes must have completed their handshake; each one's configuration gives its
    limits and timeouts. Never raises for engine failures: they end the game. An engine that
    rejects the variant or a rule option raises :class:`tools.referee.engine_client.SettingRejected`
    (a configuration error: the game cannot be played as configured).

    Only a ``bestmove`` that answers the ``go`` just sent counts: what an engine wrote before
    ``go`` is discarded when ``go`` is sent, and what follows its ``bestmove`` is stale
    (:meth:`EngineProcess.discard_stale`); the ``bestmove`` lines so discarded are warnings
    of the record. An ``error`` line instead of a ``bestmove`` loses the game, quoted.
    Engines that ponder think on their opponent's time (:class:`_Pondering`).

    ``progress`` is given the game's state for those who follow it after every ``go``
    (:mod:`tools.referee.progress`): written while the engine thinks, it adds nothing to the
    referee's time between a ``bestmove`` and the next ``go``.
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
    pondering = _Pondering(engines)

    def finish(outcome: Ending) -> PlayedGame:
        failed.extend(side for side in pondering.end() if side not in failed)
        warnings = list(pondering.warnings)
        for engine in engines:
            if not engine.eof:
                engine.discard_stale()  # a stray line right after the last move counts here
            warnings += [f"{engine.name}: {text}" for text in engine.take_warnings()]
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
            tuple(warnings),
        )

    extra = rule_options(rules)
    for side in (0, 1):  # p1 first
        try:
            engines[side].new_game(rules.name, extra)
        except EngineError as exc:
            failed.append(side)
            return finish(Ending(_loss(side), exc.termination, exc.detail))

    clocks = (Clock(engines[0].config.limits), Clock(engines[1].config.limits))
    cps: tuple[list[int | None], list[int | None]] = ([], [])
    reported: list[tuple[Score | None, int | None]] = [(None, None), (None, None)]
    last_read: float | None = None
    while True:
        over = state.outcome()
        if over is not None:
            return finish(Ending.by_rules(over))
        if adjudication.tables is not None:
            exact = table_ending(adjudication.tables, state, adjudication.tb_pieces)
            if exact is not None:
                return finish(exact)
        played = len(moves)
        if adjudication.max_plies and played >= adjudication.max_plies:
            return finish(
                Ending(
                    Result.DRAW, Termination.MAX_PLIES, f"draw: {played} plies played, the limit"
                )
            )
        side = state.side_to_move
        engine = engines[side]
        timeouts = engine.config.timeouts
        position = base_cmd + (" moves " + " ".join(history) if history else "")
        who = side
        try:  # the mover's ponder search resolved, then the other one's begun (if any)
            hit = pondering.resolve(side, moves[-1]) if moves else False
            who = 1 - side
            pondering.start(who, position, clocks)
        except EngineError as exc:
            failed.append(who)
            return finish(Ending(_loss(who), exc.termination, exc.describe()))
        go = "ponderhit" if hit else format_go(go_limits(side, clocks), engine.config.proto.value)
        allowed = clocks[side].allowed_ms()
        wait_s = allowed / 1000 + timeouts.grace if allowed is not None else timeouts.move
        sent = time.monotonic()
        try:
            if not hit:
                engine.send(position, wait_s)
                error = engine.discard_stale()
                if error is not None:
                    failed.append(side)
                    return finish(
                        Ending(
                            _loss(side),
                            Termination.PROTOCOL,
                            f"answered '{quoted(error)}' to '{quoted(position)}'",
                        )
                    )
            sent = engine.send(go, wait_s)
            if last_read is not None:
                overhead_s.append(sent - last_read - pondering.stop_wait_s)
            if progress is not None:
                progress(_progress(engines, state.position_text(), moves, clocks, reported))
            stamp, tokens, line, score, depth = _answer(engine, sent + wait_s)
        except EngineError as exc:
            failed.append(side)
            if exc.termination is not Termination.STALL or exc.writing:
                return finish(Ending(_loss(side), exc.termination, exc.describe()))
            elapsed_ms = int((time.monotonic() - sent) * 1000)
            if allowed is not None:
                clocks[side].spend(elapsed_ms)
                return finish(
                    Ending(
                        _loss(side),
                        Termination.TIME_FORFEIT,
                        f"lost on time: no bestmove after {elapsed_ms} ms, {allowed} ms allowed",
                    )
                )
            return finish(
                Ending(
                    _loss(side),
                    Termination.STALL,
                    f"stalled: no bestmove within {timeouts.move:g} s",
                )
            )
        if tokens[0] == "error":
            failed.append(side)  # resynced after the game: it may have half a search going
            return finish(
                Ending(
                    _loss(side),
                    Termination.PROTOCOL,
                    f"answered '{quoted(line)}' instead of a move (to '{quoted(go)}')",
                )
            )
        last_read = stamp
        elapsed_ms = max(0, round((stamp - sent) * 1000))
        move_text = tokens[1] if len(tokens) > 1 else ""
        if move_text in ("(none)", "0000", "none"):
            return finish(
                Ending(
                    _loss(side),
                    Termination.PROTOCOL,
                    f"played no move ('bestmove {move_text}') while legal moves exist",
                )
            )
        try:
            move = state.parse_move(move_text)
        except InvalidMoveError:
            return finish(
                Ending(
                    _loss(side),
                    Termination.PROTOCOL,
                    f"played an unparsable move: '{quoted(line)}'",
                )
            )
        except IllegalMoveError:
            return finish(
                Ending(
                    _loss(side),
                    Termination.ILLEGAL_MOVE,
                    f"played an illegal move: '{quoted(move_text)}'",
                )
            )
        if not clocks[side].spend(elapsed_ms):
            return finish(
                Ending(
                    _loss(side),
                    Termination.TIME_FORFEIT,
                    f"lost on time: {elapsed_ms} ms used, {allowed} ms allowed",
                )
            )
        canonical = state.move_text(move)
        state.play(move)
        pondering.expect(side, state, tokens)
        history.append(canonical)
        moves.append(canonical)
        times_ms.append(elapsed_ms)
        if score is not None and side == 1 and engines[side].config.whitepov:
            # Reported from player 1's view (cutechess's whitepov): made the mover's.
            score = (
                Score(-score.cp, None) if score.cp is not None else Score(None, -(score.mate or 0))
            )
        scores.append(score)
        depths.append(depth)
        reported[side] = (score, depth)
        cps[side].append(None if score is None else score.centipawns(MATE_CP))
        if state.outcome() is None:
            adjudged = adjudicate(adjudication, cps, side, len(moves))
            if adjudged is not None:
                return finish(adjudged)


def _progress(
    engines: tuple[EngineProcess, EngineProcess],
    fen: str,
    moves: list[str],
    clocks: tuple[Clock, Clock],
    reported: list[tuple[Score | None, int | None]],
) -> dict[str, Any]:
    """What a follower of the game needs now (:mod:`tools.referee.progress`)."""
    sides = [
        {
            "name": engines[side].name,
            "clock": clocks[side].remaining_ms if clocks[side].limits.tc is not None else None,
            "score": _score_text(reported[side][0]),
            "depth": reported[side][1],
        }
        for side in (0, 1)
    ]
    return {"fen": fen, "ply": len(moves), "last": moves[-1] if moves else None, "sides": sides}


def _score_text(score: Score | None) -> str | None:
    return None if score is None else score.format()


def _answer(
    engine: EngineProcess, deadline: float
) -> tuple[float, list[str], str, Score | None, int | None]:
    """Read up to the engine's answer to ``go``: its ``bestmove`` (or ``error``) line, split
    and whole, with its read time, and the last score and depth its ``info`` lines reported.

    Lines come in batches (one read each); only the last ``info`` lines of a batch that hold
    a score or a depth are parsed, so a flood of ``info`` costs little more than reading it.
    The lines after the answer go back to the engine, stale (see :func:`play_game`).
    """
    score: Score | None = None
    depth: int | None = None
    while True:
        stamp, lines = engine.read_batch(deadline, "bestmove", "in time")
        end = len(lines)
        tokens: list[str] = []
        for i, line in enumerate(lines):
            if line.startswith("info"):
                continue
            tokens = line.split()
            if tokens and tokens[0] in ("bestmove", "error"):
                end = i
                break
        score, depth = _last_report(lines, end, score, depth)
        if end < len(lines):
            engine.unread(stamp, lines[end + 1 :])
            return stamp, tokens, lines[end], score, depth


def _last_report(
    lines: list[str], end: int, score: Score | None, depth: int | None
) -> tuple[Score | None, int | None]:
    """The last score and depth reported by the info lines among ``lines[:end]`` (those given
    when there is none), parsing from the end only lines that may hold one; of an engine that
    reports several lines (MultiPV), those of its best line (``multipv 1``)."""
    new_score: Score | None = None
    new_depth: int | None = None
    for i in range(end - 1, -1, -1):
        line = lines[i]
        want_score = new_score is None and "score" in line
        if not (want_score or (new_depth is None and "depth" in line)):
            continue
        info = parse_info(line)
        if info is None or (info.multipv is not None and info.multipv > 1):
            continue
        if new_score is None and info.score is not None:
            new_score = info.score
        if new_depth is None and info.depth is not None:
            new_depth = info.depth
        if new_score is not None and new_depth is not None:
            break
    return (
        new_score if new_score is not None else score,
        new_depth if new_depth is not None else depth,
    )


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
) -> Ending | None:
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
            return Ending(
                _loss(side),
                Termination.ADJUDICATION,
                f"resigns: score <= -{threshold} cp for {resign.movecount} moves",
            )
    draw = adj.draw
    if draw is not None and (plies + 1) // 2 >= draw.movenumber:

        def within(v: int) -> bool:
            return abs(v) <= draw.score

        if _streak(cps[0], draw.movecount, within) and _streak(cps[1], draw.movecount, within):
            return Ending(
                Result.DRAW,
                Termination.ADJUDICATION,
                f"draw: both scores within {draw.score} cp for {draw.movecount} moves",
            )
    return None
