"""The game of ``zengine gui``: one board that every tab shows, its players, clocks and analysis.

A :class:`Table` lives on the server's event loop and is changed only there: by the page's
requests (:meth:`Table.request`) and by the engines' answers, which come back from their
worker threads through the loop. After each change every page gets the whole state again
(:meth:`Table.snapshot`), so a reloaded or second tab shows the same game.

The rules are asked for everything: the legal moves of the position shown and the squares,
points and stones each is made of (``State.move_squares``, ``State.move_stone``), the
picture (``State.svg``), the result. The page knows no rule.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from zengine.engine.game import GameError, IllegalMoveError, InvalidMoveError, Rules, State
from zengine.engine.values import GoLimits, Result, Score, format_go
from zengine.engine.variants import make_rules, resolve, variant_names
from zengine.tools.gui.engines import Answer, EngineSeat, Line, Search
from zengine.tools.referee.clock import Clock, go_limits
from zengine.tools.referee.config import ConfigError, EngineLimits
from zengine.tools.referee.game import MATE_CP, rule_options
from zengine.tools.referee.records import GameRecord, pgn_text, reason_text
from zengine.tools.referee.terminations import Ending, Termination

#: What a seat holds when a person plays it.
HUMAN = "human"
#: The modes of the page: who plays (see :meth:`Table.new_game`).
MODES = ("play", "watch", "analyse", "humans")
#: The limit keys the page may choose, as the referee's ``--engine`` keys.
LIMIT_KEYS = ("st", "tc", "depth", "nodes")
#: Most best lines an analysis shows.
MAX_LINES = 16
#: Analysis lines sent to the pages at most this often, in seconds (the page stays smooth).
LINES_EVERY_S = 0.1
#: Event name of saved games.
EVENT = "zengine gui"


class RequestError(ValueError):
    """A request the page cannot make (a bad position string, an unknown engine): said to
    the tab that sent it, in one line; the game is unchanged."""


@dataclass
class Job:
    """The search running: what for (``move`` or ``analyse``), on which game and ply."""

    kind: str
    generation: int
    search: Search
    engine: str
    side: int
    task: asyncio.Task[None] | None = None


class Table:
    """The one game of the server and everything shown about it."""

    def __init__(
        self,
        seats: dict[str, EngineSeat],
        limits: dict[str, str],
        variant: str,
        human: str,
        publish: Callable[[dict[str, Any]], None],
    ) -> None:
        self.seats = seats
        self.publish = publish
        self.engine_names = list(seats)
        self.limits = dict(limits)
        self.mode = "play"
        self.players = [HUMAN, HUMAN]
        self.generation = 0
        self.game_id = 0
        self.job: Job | None = None
        self.analysis_on = False
        self.analysis_engine = self.engine_names[0]
        self.analysis_count = 1
        self.lines: list[Line] = []
        self.lines_ply = -1
        self.lines_sent = 0.0
        self.lines_timer: asyncio.TimerHandle | None = None
        self.flag_timer: asyncio.TimerHandle | None = None
        self.note: str | None = None
        self.fault: str | None = None
        self.paused = False
        #: An analysis that ended by itself (an engine that answers 'go infinite' at once):
        #: not started again on the same position, lines and engine.
        self.analysed: tuple[str, int, str] | None = None
        self.thinking: str | None = None
        self._set_players_for(human)
        self._start(make_rules(variant), None)
        self._kick()  # two engines: the game starts at once

    # --- the game ---------------------------------------------------------------------------
    def _start(self, rules: Rules, fen: str | None, moves: list[str] | None = None) -> None:
        """A new game of ``rules`` from ``fen`` (None: the start), after ``moves``."""
        state = rules.start() if fen is None else rules.parse_position(fen)
        self.rules = rules
        self.start_fen = state.position_text()
        self.base = state
        self.states: list[State] = [state.copy()]
        self.moves: list[str] = []
        self.evals: list[int | None] = [None]
        self.reports: list[tuple[int, Score | None, int | None]] = []
        self.ending: Ending | None = None
        self.fault = None
        self.note = None
        self.paused = False
        self.game_id += 1
        self.clocks = self._new_clocks()
        self.turn_started = time.monotonic()
        for text in moves or []:
            self._play(text, 0, None, None)
        self.view = len(self.moves)

    def _new_clocks(self) -> tuple[Clock, Clock] | None:
        limits = self._limits()
        if limits.tc is None:
            return None
        return (Clock(limits), Clock(limits))

    def _limits(self) -> EngineLimits:
        return EngineLimits.parse(self.limits)

    @property
    def state(self) -> State:
        """The position the game has reached."""
        return self.states[-1]

    def _play(self, text: str, elapsed_ms: int, score: Score | None, depth: int | None) -> None:
        state = self.state.copy()
        move = state.parse_move(text)  # raises MoveError
        canonical = state.move_text(move)
        mover = state.side_to_move
        state.play(move)
        self.states.append(state)
        self.moves.append(canonical)
        self.reports.append((elapsed_ms, score, depth))
        cp = None if score is None else score.centipawns(MATE_CP)
        if cp is not None and mover == 1:
            cp = -cp
        self.evals[-1] = cp if cp is not None else self.evals[-1]
        self.evals.append(None)
        over = state.outcome()
        if over is not None and self.ending is None:
            self.ending = Ending.by_rules(over)

    def _truncate(self, ply: int) -> None:
        """Take the game back to ``ply`` (its result and fault go with the moves)."""
        del self.states[ply + 1 :]
        del self.moves[ply:]
        del self.reports[ply:]
        del self.evals[ply + 1 :]
        self.ending = None
        over = self.state.outcome()
        if over is not None:
            self.ending = Ending.by_rules(over)
        self.fault = None
        if self.clocks is not None:
            # The clocks go back too: the time each side had before the moves taken back.
            self.clocks = self._new_clocks()
            assert self.clocks is not None
            for i, (elapsed, _, _) in enumerate(self.reports):
                self.clocks[self.states[i].side_to_move].spend(elapsed)

    # --- requests from the page -------------------------------------------------------------
    def request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Carry out one request of a page; returns a reply for that page only (a saved
        game, an error), or None. :class:`RequestError` for a request that cannot be made."""
        kind = message.get("type")
        handler = getattr(self, f"_on_{kind}", None) if isinstance(kind, str) else None
        if handler is None:
            raise RequestError(f"unknown request {kind!r}")
        reply: dict[str, Any] | None = handler(message)
        self._changed()
        return reply

    def _on_move(self, message: dict[str, Any]) -> None:
        text, ply = _text(message, "move"), message.get("ply")
        if not isinstance(ply, int) or not 0 <= ply <= len(self.moves):
            raise RequestError("a move needs the ply it is played at")
        state = self.states[ply]
        if self._human_picks(ply) is None:
            raise RequestError("no move of yours is expected here")
        try:
            state.copy().parse_move(text)
        except (InvalidMoveError, IllegalMoveError) as exc:
            raise RequestError(str(exc)) from None
        if ply < len(self.moves):
            self._stop_job()
            self._truncate(ply)
        elapsed = self._charge(state.side_to_move)
        if self.ending is not None:  # lost on time before moving
            return
        self._stop_job()
        self._play(text, elapsed, None, None)
        self.view = len(self.moves)

    def _charge(self, side: int) -> int:
        """Charge the mover's clock for the move now made; the loss on time if it ran out."""
        elapsed = round((time.monotonic() - self.turn_started) * 1000)
        self.turn_started = time.monotonic()
        if self.clocks is not None and not self.clocks[side].spend(elapsed):
            self._end(Result.win_for(1 - side), Termination.TIME_FORFEIT, "lost on time", side)
        return elapsed

    def _on_view(self, message: dict[str, Any]) -> None:
        ply = message.get("ply")
        if not isinstance(ply, int) or not 0 <= ply <= len(self.moves):
            raise RequestError("no such ply")
        self.view = ply

    def _on_takeback(self, message: dict[str, Any]) -> None:
        if not self.moves:
            raise RequestError("no move to take back")
        self._stop_job()
        ply = len(self.moves) - 1
        if self.mode == "play":
            # Against an engine, back to the last position where the person is to move.
            human = [self.players[self.states[p].side_to_move] == HUMAN for p in range(ply + 1)]
            ply = max((p for p in range(ply + 1) if human[p]), default=ply)
        self._truncate(ply)
        self.view = ply
        self.turn_started = time.monotonic()

    def _on_new(self, message: dict[str, Any]) -> None:
        variant = message.get("variant", self.rules.name)
        mode = message.get("mode", self.mode)
        if mode not in MODES:
            raise RequestError(f"unknown mode {mode!r}")
        engines = message.get("engines") or [self.engine_names[0], self.engine_names[-1]]
        if not isinstance(engines, list) or len(engines) != 2:
            raise RequestError("two engines are needed")
        for name in engines:
            if name not in self.seats:
                raise RequestError(f"no engine {name!r} (engines: {', '.join(self.engine_names)})")
        limits = message.get("limits", self.limits)
        fen = message.get("fen") or None
        try:
            rules = make_rules(_text({"v": variant}, "v"))
            self._check_limits(limits)
            if fen is not None:
                rules.parse_position(_text(message, "fen"))
        except (GameError, ConfigError) as exc:
            raise RequestError(str(exc)) from None
        self._stop_job()
        self.limits = dict(limits)
        self.mode = mode
        human = message.get("human", "p1")
        if mode == "play":
            engine = engines[0]
            self.players = [HUMAN, engine] if human != "p2" else [engine, HUMAN]
        elif mode == "watch":
            self.players = list(engines)
        else:
            self.players = [HUMAN, HUMAN]
        if mode == "analyse":
            self.analysis_on = True
            self.analysis_engine = engines[0]
        self._start(rules, fen)

    def _check_limits(self, limits: object) -> None:
        if not isinstance(limits, dict) or len(limits) != 1:
            raise ConfigError("give one limit: st, tc, depth or nodes")
        key, value = next(iter(limits.items()))
        if key not in LIMIT_KEYS or not isinstance(value, str):
            raise ConfigError("give one limit: st, tc, depth or nodes")
        EngineLimits.parse({key: value})

    def _on_setup(self, message: dict[str, Any]) -> None:
        fen = _text(message, "fen")
        try:
            self.rules.parse_position(fen)
        except GameError as exc:
            raise RequestError(str(exc)) from None
        self._stop_job()
        self._start(self.rules, fen)

    def _on_pause(self, message: dict[str, Any]) -> None:
        self.paused = bool(message.get("paused", True))
        if self.paused:
            self._stop_job()

    def _on_analysis(self, message: dict[str, Any]) -> None:
        engine = message.get("engine", self.analysis_engine)
        count = message.get("lines", self.analysis_count)
        if engine not in self.seats:
            raise RequestError(f"no engine {engine!r}")
        if not isinstance(count, int) or not 1 <= count <= MAX_LINES:
            raise RequestError(f"lines: from 1 to {MAX_LINES}")
        on = bool(message.get("on", self.analysis_on))
        if (on, engine, count) != (self.analysis_on, self.analysis_engine, self.analysis_count):
            if self.job is not None and self.job.kind == "analyse":
                self._stop_job()
            self.analysis_on, self.analysis_engine, self.analysis_count = on, engine, count
            self.lines = []

    def _on_save(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"type": "pgn", "text": self.pgn()}

    def _on_load(self, message: dict[str, Any]) -> None:
        text = _text(message, "pgn")
        try:
            rules, fen, moves = read_pgn(text)
        except GameError as exc:
            raise RequestError(f"cannot load the game: {exc}") from None
        self._stop_job()
        self.mode = "humans"
        self.players = [HUMAN, HUMAN]
        self._start(rules, fen, moves)

    # --- what the engines do ----------------------------------------------------------------
    def _changed(self) -> None:
        """After any change: stop a search that no longer fits, start the one needed, and
        send the state to every page."""
        self._kick()
        self.publish(self.snapshot())

    def _wanted(self) -> tuple[str, int, str] | None:
        """The search the game needs now: (kind, ply, engine), or None."""
        end = len(self.moves)
        if self.ending is None and self.fault is None and not self.paused:
            engine = self.players[self.state.side_to_move]
            if engine != HUMAN:
                return ("move", end, engine)
        done = (self._position_line(self.view), self.analysis_count, self.analysis_engine)
        if self.analysis_on and not self.states[self.view].is_over() and done != self.analysed:
            if self.ending is not None or self.fault is not None or self.paused:
                return ("analyse", self.view, self.analysis_engine)
            if HUMAN == self.players[self.states[self.view].side_to_move] or self.view < end:
                return ("analyse", self.view, self.analysis_engine)
        return None

    def _kick(self) -> None:
        wanted = self._wanted()
        job = self.job
        if job is not None:
            same = (job.kind, job.search.position, job.engine) == (
                (wanted[0], self._position_line(wanted[1]), wanted[2]) if wanted else None
            )
            if job.kind == "analyse" and same and job.search.lines != self.analysis_count:
                same = False
            if not same or job.generation != self.generation:
                self._stop_job()
            return
        self._arm_flag()
        if wanted is None:
            return
        kind, ply, engine = wanted
        state = self.states[ply]
        side = state.side_to_move
        seat = self.seats[engine]
        if kind == "move":
            limits = self._limits()
            if self.clocks is not None:
                go = go_limits(side, self.clocks)
                allowed = self.clocks[side].allowed_ms()
            else:
                go = limits.search
                allowed = None
            if allowed is not None:
                wait_s: float | None = allowed / 1000 + seat.config.timeouts.grace
            elif limits.movetime_ms is not None:
                wait_s = limits.movetime_ms / 1000 + seat.config.timeouts.move
            else:
                wait_s = seat.config.timeouts.move
            lines = 1
        else:
            go = GoLimits(infinite=True)
            wait_s = None
            lines = self.analysis_count
            if self.lines_ply != ply:
                self.lines = []
                self.lines_ply = ply
        search = Search(
            variant=self.rules.name,
            rule_options=rule_options(self.rules),
            game_id=self.game_id,
            position=self._position_line(ply),
            go=format_go(go, seat.config.proto.value),
            wait_s=wait_s,
            lines=lines,
        )
        job = Job(kind, self.generation, search, engine, side)
        self.job = job
        self.thinking = engine
        loop = asyncio.get_running_loop()

        def on_line(line: Line) -> None:
            loop.call_soon_threadsafe(self._line, job, line)

        def on_note(text: str) -> None:
            loop.call_soon_threadsafe(self._noted, job, text)

        async def run() -> None:
            answer = await asyncio.to_thread(seat.search, search, on_line, on_note)
            self._answered(job, answer)

        job.task = loop.create_task(run())

    def _position_line(self, ply: int) -> str:
        moves = self.moves[:ply]
        base = f"position fen {self.start_fen}"
        return base + (" moves " + " ".join(moves) if moves else "")

    def _stop_job(self) -> None:
        """Ask the running search to stop; its answer will be dropped."""
        self.generation += 1
        if self.job is not None:
            self.job.search.stop.set()

    def _line(self, job: Job, line: Line) -> None:
        if job is not self.job or job.generation != self.generation:
            return
        if job.kind == "analyse":
            lines = [x for x in self.lines if x.rank != line.rank]
            self.lines = sorted([*lines, line], key=lambda x: x.rank)[: self.analysis_count]
            if line.rank == 1 and line.score is not None:
                cp = line.score.centipawns(MATE_CP)
                self.evals[self.view] = cp if self.states[self.view].side_to_move == 0 else -cp
        else:
            self.lines = [line] if line.rank == 1 else self.lines
            self.lines_ply = len(self.moves)
        self._send_lines()

    def _noted(self, job: Job, text: str) -> None:
        if job is self.job and job.generation == self.generation and self.note != text:
            self.note = text
            self.publish(self.snapshot())

    def _send_lines(self) -> None:
        """The lines to the pages, at most every :data:`LINES_EVERY_S`, the last one always."""
        now = time.monotonic()
        if now - self.lines_sent >= LINES_EVERY_S:
            self.lines_sent = now
            if self.lines_timer is not None:
                self.lines_timer.cancel()
                self.lines_timer = None
            self.publish(self._lines_message())
        elif self.lines_timer is None:

            def later() -> None:
                self.lines_timer = None
                self._send_lines()

            delay = LINES_EVERY_S - (now - self.lines_sent)
            self.lines_timer = asyncio.get_running_loop().call_later(delay, later)

    def _lines_message(self) -> dict[str, Any]:
        return {
            "type": "lines",
            "ply": self.lines_ply,
            "engine": self.thinking,
            "lines": [line.to_json() for line in self.lines],
            "evals": self.evals,
        }

    def _answered(self, job: Job, answer: Answer) -> None:
        if self.job is job:
            self.job = None
            self.thinking = None
        if job.generation != self.generation:
            if answer.fault is not None and job.kind == "analyse":
                self.note = answer.fault
            self._changed()
            return
        if answer.fault is not None:
            self.fault = answer.fault
            if job.kind == "move":
                detail = answer.fault
                termination = answer.termination or Termination.PROTOCOL
                self._end(Result.win_for(1 - job.side), termination, detail, job.side)
            else:
                self.analysis_on = False
        elif job.kind == "move":
            self._engine_moved(job, answer)
        else:
            self.analysed = (job.search.position, job.search.lines, job.engine)
        self._changed()

    def _engine_moved(self, job: Job, answer: Answer) -> None:
        text = answer.move or ""
        name = job.engine
        if text in ("", "(none)", "0000", "none"):
            self.fault = f"{name} played no move ('bestmove {text}') while legal moves exist"
            self._end(Result.win_for(1 - job.side), Termination.PROTOCOL, self.fault, job.side)
            return
        try:
            self.state.copy().parse_move(text)
        except InvalidMoveError:
            self.fault = f"{name} played an unparsable move: '{text}'"
            self._end(Result.win_for(1 - job.side), Termination.PROTOCOL, self.fault, job.side)
            return
        except IllegalMoveError:
            self.fault = f"{name} played an illegal move: '{text}'"
            self._end(Result.win_for(1 - job.side), Termination.ILLEGAL_MOVE, self.fault, job.side)
            return
        if self.clocks is not None and not self.clocks[job.side].spend(answer.elapsed_ms):
            self._end(
                Result.win_for(1 - job.side),
                Termination.TIME_FORFEIT,
                f"lost on time: {answer.elapsed_ms} ms used",
                job.side,
            )
            return
        best = answer.best
        follow = self.view == len(self.moves)
        score, depth = (None, None) if best is None else (best.score, best.depth)
        self._play(text, answer.elapsed_ms, score, depth)
        self.turn_started = time.monotonic()
        if follow:
            self.view = len(self.moves)

    def _end(self, result: Result, termination: Termination, detail: str, loser: int) -> None:
        # The detail names the engine already when it comes from one.
        name = self._name(loser)
        if detail.startswith(name + " "):
            detail = detail[len(name) + 1 :]
        self.ending = Ending(result, termination, detail)

    def _arm_flag(self) -> None:
        """A person's clock: the loss on time when it runs out without a move."""
        if self.flag_timer is not None:
            self.flag_timer.cancel()
            self.flag_timer = None
        if self.clocks is None or self.ending is not None or self.paused or self.fault:
            return
        side = self.state.side_to_move
        if self.players[side] != HUMAN:
            return
        left = self.clocks[side].remaining_ms / 1000 - (time.monotonic() - self.turn_started)

        def flag() -> None:
            self.flag_timer = None
            if self.ending is None and self.state.side_to_move == side:
                self._charge(side)
                self._changed()

        self.flag_timer = asyncio.get_running_loop().call_later(max(0.0, left) + 0.05, flag)

    # --- what the pages show ----------------------------------------------------------------
    def _name(self, side: int) -> str:
        player = self.players[side]
        return "human" if player == HUMAN else player

    def _human_picks(self, ply: int) -> list[dict[str, Any]] | None:
        """The moves a person may make in the position at ``ply``, each with what is clicked
        for it; None when no person is to move there."""
        state = self.states[ply]
        if state.is_over() or self.players[state.side_to_move] != HUMAN:
            return None
        if ply == len(self.moves) and (self.ending is not None or self.fault is not None):
            return None
        picks = []
        for move in state.legal_moves():
            picks.append(
                {
                    "move": state.move_text(move),
                    "squares": list(state.move_squares(move)),
                    "stone": state.move_stone(move),
                }
            )
        picks.sort(key=lambda p: str(p["move"]))
        return picks

    def status(self) -> str:
        """The game's state in words: who is to move, or the result and why."""
        names = self.rules.player_names
        if self.ending is not None:
            reason = reason_text(self.ending, (self._name(0), self._name(1)))
            return f"{self.ending.result.pgn}: {reason}"
        state = self.state
        side = state.side_to_move
        who = f"{names[side]} ({self._name(side)}) to move"
        if self.paused:
            return f"Paused: {who}"
        return who

    def snapshot(self) -> dict[str, Any]:
        """Everything a page shows, as one JSON object."""
        shown = self.states[self.view]
        last = None
        if self.view > 0:
            last = self.states[self.view - 1].parse_move(self.moves[self.view - 1])
        clocks = running = None
        if self.clocks is not None:
            clocks = [c.remaining_ms for c in self.clocks]
            if self.ending is None and not self.paused and self.fault is None:
                running = self.state.side_to_move
                clocks[running] -= round((time.monotonic() - self.turn_started) * 1000)
        return {
            "type": "state",
            "variants": variant_names(),
            "variant": self.rules.name,
            "players_names": list(self.rules.player_names),
            "engines": self.engine_names,
            "mode": self.mode,
            "players": [self._name(0), self._name(1)],
            "limits": self.limits,
            "start": self.start_fen,
            "moves": [
                {"text": text, "score": None if score is None else score.format(), "depth": depth}
                for text, (_, score, depth) in zip(self.moves, self.reports)
            ],
            "view": self.view,
            "position": shown.position_text(),
            "svg": shown.svg(480, last),
            "status": self.status(),
            "over": self.ending is not None,
            "fault": self.fault,
            "note": self.note,
            "picks": self._human_picks(self.view),
            "clocks": clocks,
            "running": running,
            "paused": self.paused,
            "thinking": self.thinking,
            "analysis": {
                "on": self.analysis_on,
                "engine": self.analysis_engine,
                "lines": self.analysis_count,
            },
            "lines_ply": self.lines_ply,
            "lines": [line.to_json() for line in self.lines],
            "evals": self.evals,
        }

    def pgn(self) -> str:
        """The game as PGN with the referee's tags (``*`` while it goes on)."""
        names = (self._name(0), self._name(1))
        ending = self.ending or Ending(Result.DRAW, Termination.ABANDONED, "")
        record = GameRecord(
            id=0,
            round=0,
            pair=0,
            encounter=(0, 1),
            opening_index=0,
            event=EVENT,
            date=datetime.now(UTC).strftime("%Y.%m.%d"),
            variant=self.rules.describe(),
            variant_name=self.rules.name,
            p1=names[0],
            p2=names[1],
            p1_index=0,
            p2_index=1,
            result=ending.result,
            termination=ending.termination,
            reason=reason_text(ending, names) if self.ending is not None else "",
            opening="",
            opening_moves=(),
            start_fen=self.start_fen,
            final_fen=self.state.position_text(),
            start_side=self.base.side_to_move,
            moves=tuple(self.moves),
            times_ms=tuple(r[0] for r in self.reports),
            scores=tuple(r[1] for r in self.reports),
            depths=tuple(r[2] for r in self.reports),
            time_control=self._limits().text(),
            overhead_ms=0.0,
            overhead_moves=0,
        )
        text = pgn_text(record)
        if self.ending is None:
            # A game still going on has the result PGN writes as '*' (the record always
            # holds a finished game's).
            text = text.replace('[Result "1/2-1/2"]', '[Result "*"]', 1)
            text = text.replace('[Termination "abandoned"]', '[Termination "unterminated"]', 1)
            body = text.rstrip()
            text = body[: len(body) - len(Result.DRAW.pgn)] + "*\n"
        return text

    def close(self) -> None:
        """Stop the search and every engine."""
        self._stop_job()
        for seat in self.seats.values():
            seat.shut()

    def _set_players_for(self, human: str) -> None:
        engine = self.engine_names[0]
        other = self.engine_names[-1]
        if human == "p1":
            self.players, self.mode = [HUMAN, engine], "play"
        elif human == "p2":
            self.players, self.mode = [engine, HUMAN], "play"
        elif human == "both":
            self.players, self.mode = [HUMAN, HUMAN], "humans"
        else:
            self.players, self.mode = [engine, other], "watch"


def _text(message: dict[str, Any], key: str) -> str:
    value = message.get(key)
    if not isinstance(value, str) or len(value) > 100_000:
        raise RequestError(f"'{key}' must be text")
    return value


_TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_NOISE = re.compile(r"\{[^}]*\}|;[^\n]*|\(\s*[^)]*\)|\$\d+")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def read_pgn(text: str) -> tuple[Rules, str | None, list[str]]:
    """The game of a PGN text (the first one): its rules (the ``Variant`` tag, as the referee
    writes it: ``zola size 6``), start position (``FEN``) and moves.
    :class:`GameError` for a text that is no such game."""
    tags: dict[str, str] = {}
    body: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        match = _TAG.match(line)
        if match and not body:
            tags[match[1]] = match[2].replace('\\"', '"').replace("\\\\", "\\")
        elif line and not line.startswith("%"):
            if match:  # the next game's tags
                break
            body.append(line)
    words = tags.get("Variant", "").split()
    if not words:
        raise GameError("no Variant tag")
    game = words[0]
    options = dict(zip(words[1::2], words[2::2]))
    resolve(game)
    rules = make_rules(game, options)
    moves = []
    for token in _NOISE.sub(" ", " ".join(body)).split():
        token = re.sub(r"^\d+\.+", "", token)
        if not token or token in _RESULTS:
            continue
        moves.append(token)
    fen = tags.get("FEN")
    state = rules.start() if fen is None else rules.parse_position(fen)
    for number, move in enumerate(moves, 1):
        try:
            state.play(state.parse_move(move))
        except GameError as exc:
            raise GameError(f"move {number}: {exc}") from None
    return rules, fen, moves
