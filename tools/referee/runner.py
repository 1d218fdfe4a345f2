"""The coordinator of a match: schedule, worker threads, engine processes, resume, stopping.

Where the games are played is a :class:`GameExecutor`: worker threads of this process
(:class:`LocalThreads`, the default) that take scheduled games from a queue and play them with
:func:`tools.referee.play.play_scheduled_game`, each keeping its own engine processes between games,
or the workers of a Dask cluster (:class:`tools.referee.cluster.ClusterExecutor`, ``--cluster``).
Each finished game comes back here once, through :meth:`Match.finish`: it is appended to the
records, counted in the running statistics (:class:`tools.referee.tally.MatchTally`, O(1) per game)
and printed; the match stops when the schedule is played, the SPRT decides, an engine fails
without ``--recover``, the referee fails, the cluster fails, or the user interrupts it. Why it
stopped is an :class:`ExitReason`, which carries the exit code.
"""

from __future__ import annotations

import enum
import errno
import json
import os
import shlex
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any, Protocol

from zengine.engine.text import shown
from zengine.tools.referee.config import ConfigError, MatchConfig
from zengine.tools.referee.engine_client import (
    EngineError,
    EngineProcess,
    SettingRejected,
    StderrLog,
    StderrTee,
)
from zengine.tools.referee.folder import (
    CONFIG_FILE,
    GAMES_FILE,
    PGN_FILE,
    PROCESS_FILE,
    STDERR_FILE,
    SUMMARY_FILE,
    TRAFFIC_FILE,
    check_folder,
    resume_command,
)
from zengine.tools.referee.live import LiveOutput
from zengine.tools.referee.play import (
    EngineKeeper,
    EngineNotStarted,
    GameReport,
    play_scheduled_game,
    restarted,
)
from zengine.tools.referee.process_tree import ProcessLedger, subreaper
from zengine.tools.referee.progress import clear_live
from zengine.tools.referee.records import (
    GameRecord,
    RecordsError,
    append_game,
    append_line,
    pgn_text,
    read_games,
    rewrite_games,
    write_atomic,
)
from zengine.tools.referee.schedule import OpeningError, ScheduledGame, match_schedule
from zengine.tools.referee.summary import count_games, summary, summary_text
from zengine.tools.referee.tally import MatchTally
from zengine.tools.referee.terminations import Termination

#: Set to 1 to write no live files of the games in progress (to measure what they cost).
NO_LIVE_VARIABLE = "ZENGINE_MATCH_NO_LIVE"


class ExitReason(enum.Enum):
    """Why ``zengine match`` ended: its exit code and what that means."""

    COMPLETED = (0, "the schedule was played")
    SPRT_DECIDED = (0, "the SPRT decided (games already running finished and were counted)")
    REFEREE_ERROR = (1, "a referee error: a traceback on stderr, finished games kept")
    WRITE_FAILED = (1, "the output could not be written (a full disk): finished games kept")
    USAGE = (2, "a bad command line or configuration: one line on stderr, nothing played")
    ENGINE_REJECTED = (
        2,
        "an engine rejected a setting (option, variant): its error quoted, the game not played",
    )
    ENGINE_FAILURE = (
        3,
        "an engine failed without --recover (resume after fixing it), or could not be started "
        "(correct its command and start again)",
    )
    CLUSTER_FAILURE = (
        4,
        "the cluster failed (its scheduler went away, a worker cannot play): finished games "
        "kept; resume with --resume",
    )
    INTERRUPTED = (130, "interrupted (Ctrl-C, SIGTERM, SIGHUP): finished games kept")

    @property
    def code(self) -> int:
        """The process exit code."""
        return self.value[0]

    @property
    def meaning(self) -> str:
        return self.value[1]


#: A later stop replaces an earlier one only if it ranks higher: an interrupt or a referee
#: error is reported even after an SPRT decision or an engine failure. A failed write and an
#: interrupt rank alike: the first is the cause (a failed write stops the match as Ctrl-C does).
_RANK = {
    ExitReason.SPRT_DECIDED: 1,
    ExitReason.ENGINE_FAILURE: 1,
    ExitReason.ENGINE_REJECTED: 1,
    ExitReason.REFEREE_ERROR: 2,
    ExitReason.CLUSTER_FAILURE: 2,
    ExitReason.INTERRUPTED: 3,
    ExitReason.WRITE_FAILED: 3,
}


@dataclass(frozen=True)
class Stop:
    """Why the match stopped before its schedule was played, in words for the summary."""

    reason: ExitReason
    text: str


@dataclass(frozen=True)
class RunResult:
    """How a run ended, and the summary it wrote."""

    reason: ExitReason
    summary: dict[str, Any]
    #: The live output itself could not be written (closed, or on a full disk): the lines
    #: that say why the match stopped reached nobody.
    output_lost: bool = False

    @property
    def exit_code(self) -> int:
        return self.reason.code


class GameExecutor(Protocol):
    """Where the games of a match are played. The match owns the schedule, the records, the
    statistics and the decision to stop; an executor plays the games it is given and hands each
    finished one to :meth:`Match.finish` once, and starts no new game once ``match.stop`` is
    set (the games already running finish and are counted)."""

    #: What a resume must repeat to play on the same executor (`` --cluster ADDRESS``).
    resume_args: str

    def start(self, match: Match, games: PendingGames) -> None:
        """Begin playing ``games`` (taken in schedule order) for ``match``."""

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds; whether games are still being played."""

    def interrupt(self) -> None:
        """Ctrl-C: discard the games in progress, stop their engines, keep finished games."""

    def summary_fields(self, match: Match) -> dict[str, Any]:
        """What ``summary.json`` says of where the games were played (``concurrency``...)."""


class LocalThreads:
    """``--concurrency`` worker threads of this process, each with its own engine processes."""

    resume_args = ""

    def __init__(self) -> None:
        self.workers: list[threading.Thread] = []
        self.match: Match | None = None

    def start(self, match: Match, games: PendingGames) -> None:
        self.match = match

        def next_game() -> ScheduledGame | None:
            return None if match.stop.is_set() else games.popleft()

        self.workers = [
            threading.Thread(target=match._worker, args=(next_game,), name=f"game-{i}", daemon=True)
            for i in range(min(match.config.concurrency, len(games)))
        ]
        for w in self.workers:
            w.start()

    def join(self, timeout: float) -> bool:
        for w in self.workers:
            w.join(timeout=timeout)
        return any(w.is_alive() for w in self.workers)

    def interrupt(self) -> None:
        assert self.match is not None
        self.match._interrupt(self.workers)

    def summary_fields(self, match: Match) -> dict[str, Any]:
        return {"concurrency": match.config.concurrency}


class PendingGames:
    """The games still to play, in schedule order, each made when taken (the schedule is
    lazy: a million-game match starts at once). Safe to take from several threads."""

    def __init__(self, match: Match, indices: Iterator[int], count: int) -> None:
        self.match = match
        self.indices = indices
        self.left = count
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self.left

    def popleft(self) -> ScheduledGame | None:
        """The next game (announced as started), or None when there is none."""
        with self._lock:
            index = next(self.indices, None)
            if index is None:
                self.left = 0
                return None
            self.left -= 1
            try:
                game = self.match.games[index]
            except OpeningError as exc:  # a random opening not found: very unlikely
                self.match.halt(ExitReason.REFEREE_ERROR, f"--openings: {exc}")
                return None
        self.match.output.started(game.id, game.p1, game.p2)
        return game


class Match:
    """A configured match with its output directory: plays the games still missing.

    The folder is checked here (its files, the finished games against the schedule: a damaged
    folder is a ConfigError before anything is played); the caller holds its lock."""

    def __init__(
        self,
        config: MatchConfig,
        out_dir: Path,
        output: LiveOutput,
        executor: GameExecutor | None = None,
    ) -> None:
        self.config = config
        self.executor: GameExecutor = LocalThreads() if executor is None else executor
        self.out_dir = out_dir
        self.output = output
        # Every line goes through the guard: output nobody can read stops the match.
        self._emit = output.emit
        output.emit = self._guarded_emit
        self.output_lost = False
        self.rules = config.make_rules()
        try:
            self.games = match_schedule(config, self.rules)
        except OpeningError as exc:
            raise ConfigError(f"--openings: {exc}") from None
        self.jsonl = str(out_dir / GAMES_FILE)
        self.pgn = str(out_dir / PGN_FILE)
        check_folder(out_dir)
        self.done = self._finished_games()
        # Reentrant: a failed write reports itself from code that already holds the lock.
        self.lock = threading.RLock()
        self.stop = threading.Event()
        #: Set when the match must stop at once, as on Ctrl-C: the output or the records
        #: cannot be written, so the games in progress could not be kept.
        self.abort = threading.Event()
        self.aborting = False
        #: A signal came (Ctrl-C, SIGTERM, SIGHUP); a second one hurries the cleanup.
        self.signalled = False
        self.hurrying = False
        self.concluding = False
        #: The HTML report is being drawn (last, after the summary): a signal then skips it.
        self.reporting = False
        self.stopped: Stop | None = None
        #: Why an engine could not be started, if one could not.
        self.start_failure: str | None = None
        #: The engines' own stderr files (``stderr=``), by path, opened when first needed.
        self._own_stderr: dict[str, StderrLog] = {}
        self.live: set[EngineProcess] = set()
        #: The engines' notes said so far (each one is said once: :attr:`GameReport.notes`).
        self._noted: set[str] = set()
        self.tally = MatchTally(len(config.engines))
        self.played_now = 0
        self.processes = ProcessLedger(out_dir / PROCESS_FILE)
        #: Where the games in progress are followed (tools.referee.progress); None: nowhere.
        self.live_dir: Path | None = None if os.environ.get(NO_LIVE_VARIABLE) else out_dir
        try:
            self._stderr = StderrLog(open(out_dir / STDERR_FILE, "ab"))
            self._traffic: IO[str] | None = (
                open(out_dir / TRAFFIC_FILE, "a", encoding="utf-8") if config.debug else None
            )
        except OSError as exc:
            raise ConfigError(f"cannot write in {out_dir}: {exc.strerror or exc}") from None

    def _finished_games(self) -> list[GameRecord]:
        """The records of ``games.jsonl``, each checked against the schedule: a game the
        schedule does not have (another configuration's, a hand-edited file) is a
        ConfigError, not a game silently dropped or counted for the wrong engine."""
        try:
            done = read_games(self.jsonl)
        except RecordsError as exc:
            raise ConfigError(str(exc)) from None
        names = self.config.names
        for record in done:
            if not 0 <= record.id < len(self.games):
                raise ConfigError(
                    f"{self.jsonl}: game id {record.id} is not in the schedule of {CONFIG_FILE} "
                    f"(ids 0 to {len(self.games) - 1})"
                )
            p1, p2 = self.games.players(record.id)
            if (record.p1_index, record.p2_index, record.p1, record.p2) != (
                p1,
                p2,
                names[p1],
                names[p2],
            ):
                raise ConfigError(
                    f"{self.jsonl}: game id {record.id} is {shown(record.p1)} vs "
                    f"{shown(record.p2)}; the schedule of {CONFIG_FILE} has {names[p1]} vs "
                    f"{names[p2]}"
                )
            # The rest of the match must be played on the same game (checked here too for a
            # folder of an earlier version, whose config.json keeps no digest of its settings).
            if record.variant != self.rules.describe():
                raise ConfigError(
                    f"{self.jsonl}: game id {record.id} was played on {shown(record.variant)}; "
                    f"{CONFIG_FILE} has {self.rules.describe()}"
                )
        return done

    # --- output ------------------------------------------------------------------------------
    def _guarded_emit(self, line: str) -> None:
        """Print a line; if the output cannot take it (``| head`` closed the pipe, a full
        disk), stop the match as on Ctrl-C and print nothing more: no traceback."""
        if self.output_lost:
            return
        try:
            self._emit(line)
        except OSError as exc:
            self.output_lost = True
            if exc.errno == errno.EPIPE:
                self._abort_with(ExitReason.INTERRUPTED, "the output was closed (broken pipe)")
            else:
                self._abort_with(
                    ExitReason.WRITE_FAILED, f"cannot write the output: {exc.strerror or exc}"
                )

    def _abort_with(self, reason: ExitReason, text: str) -> None:
        """Stop at once (the main loop stops every engine): nothing more can be kept."""
        with self.lock:
            self._stop(reason, text)
        self.abort.set()

    def _write_failed(self, what: str, exc: OSError) -> None:
        self._abort_with(ExitReason.WRITE_FAILED, f"cannot write {what}: {exc.strerror or exc}")

    def _log(self, line: str) -> None:
        if self._traffic is not None:
            with self.lock:
                if self._traffic is None:  # closed by a failed write meanwhile
                    return
                try:
                    self._traffic.write(f"{time.monotonic():.6f} {line}\n")
                    self._traffic.flush()
                except OSError as exc:
                    traffic, self._traffic = self._traffic, None
                    _close_quietly(traffic)
                    self._write_failed(str(self.out_dir / TRAFFIC_FILE), exc)

    def _stop(self, reason: ExitReason, text: str) -> None:
        """Record why the match stops (the first reason, unless a later one ranks higher)."""
        if self.stopped is None or _RANK[reason] > _RANK[self.stopped.reason]:
            self.stopped = Stop(reason, text)
        self.stop.set()

    def halt(self, reason: ExitReason, text: str) -> None:
        """Stop the match for ``reason`` (an executor's call: a lost cluster, an interrupt)."""
        with self.lock:
            self._stop(reason, text)

    # --- running -----------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Play the missing games; returns why the run ended and the summary (also written).

        While it plays, this process is a child subreaper (see :mod:`tools.referee.process_tree`);
        processes an earlier run in the folder left are stopped first, and any process of the
        match still running at the end is stopped. A first Ctrl-C, SIGTERM or SIGHUP stops
        the match; a second one kills the engines at once, and the summary is still written.
        """
        previous = {}
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            try:
                previous[sig] = signal.signal(sig, self._on_signal)
            except ValueError:  # not the main thread (tests): leave signals alone
                pass
        try:
            with subreaper():
                return self._run()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _run(self) -> RunResult:
        clear_live(self.out_dir)
        leftovers = self.processes.sweep()
        if leftovers:
            self.output.emit(
                f"Stopped {len(leftovers)} process(es) an earlier run in {self.out_dir} left:"
                f" {' '.join(map(str, leftovers))}"
            )
        done = self.done
        for record in done:
            self.tally.add(record)
            self.output.count_outcome(record)
        finished = {r.id for r in done}
        # The schedule makes its games when asked: the pending ones are taken one by one.
        pending = (i for i in range(len(self.games)) if i not in finished)
        to_play = len(self.games) - len(finished)
        if done:
            self.output.emit(f"Resuming: {len(done)} games already played, {to_play} to play")
        try:
            # Rebuild both files from the complete records: drops a truncated last line and
            # any PGN text of a game whose JSON line was lost, so appends continue cleanly.
            rewrite_games(self.jsonl, self.pgn, done, self.config.site)
        except OSError as exc:
            self._write_failed(f"the games in {self.out_dir}", exc)
            to_play = 0
        if self.config.sprt is not None:
            verdict = self.tally.sprt(self.config.sprt).verdict
            if verdict:
                self._stop(ExitReason.SPRT_DECIDED, f"SPRT decided ({verdict}) before this run")
                to_play = 0
        started = time.monotonic()
        executor = self.executor
        self.output.begin(
            self.config.names,
            len(self.games),
            self.tally,
            self.config.rating_interval,
            self.config.outcome_interval,
        )
        interrupted = False
        try:
            executor.start(self, PendingGames(self, pending, to_play))
            while executor.join(0.1):
                if self.abort.is_set():
                    executor.interrupt()
                    break
        except KeyboardInterrupt:
            interrupted = True
            executor.interrupt()
        self.concluding = True
        self.processes.stop_all()
        clear_live(self.out_dir)
        reason = ExitReason.COMPLETED if self.stopped is None else self.stopped.reason
        if interrupted:
            reason = ExitReason.INTERRUPTED
        return self._conclude(reason, time.monotonic() - started)

    def _conclude(self, reason: ExitReason, wall: float) -> RunResult:
        """Write the summary, print the final table, close the logs."""
        extra: dict[str, Any] = {
            **self.executor.summary_fields(self),
            "games_this_run": self.played_now,
            "wall_s": wall,
            "stopped": None if self.stopped is None else self.stopped.text,
            "exit_reason": reason.name.lower(),
        }
        if self.played_now and wall > 0:
            extra["games_per_minute"] = self.played_now * 60 / wall
        data = summary(self.config, self.tally, len(self.games), extra)
        path = self.out_dir / SUMMARY_FILE
        try:
            write_atomic(str(path), json.dumps(data, indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            self._write_failed(str(path), exc)
            if self.stopped is not None and self.stopped.reason is ExitReason.WRITE_FAILED:
                reason = ExitReason.WRITE_FAILED
                data.update(stopped=self.stopped.text, exit_reason=reason.name.lower())
        self.output.end()
        sprt = None if self.config.sprt is None else self.tally.sprt(self.config.sprt)
        for line in self.output.final_lines(self.tally, sprt):
            self.output.emit(line)
        self.output.emit("")
        self.output.emit(summary_text(data))
        # Ctrl-C means "stop now", and a full disk has no room for a report.
        if reason not in (ExitReason.INTERRUPTED, ExitReason.WRITE_FAILED):
            self._report()
        if self.start_failure is not None:
            # Resuming would start the same command again: it must be corrected first.
            again = (
                "start again"
                if not self.tally.games
                else f"resume with: {resume_command(self.out_dir)}{self.executor.resume_args}"
            )
            self.output.emit(
                f"An engine could not be started ({self.start_failure}). Correct its command "
                f"(cmd=, dir=, arg=) and {again}."
            )
        elif reason is ExitReason.ENGINE_REJECTED and not self.tally.games:
            # --resume would replay the setting the engine refused: nothing to keep.
            self.output.emit(
                "No game played. Correct the setting and start again "
                f"(--out {shlex.quote(str(self.out_dir))} may be given again)."
            )
        elif reason not in (ExitReason.COMPLETED, ExitReason.SPRT_DECIDED):
            start = {
                ExitReason.INTERRUPTED: "Interrupted: ",
                ExitReason.CLUSTER_FAILURE: "Cluster failure: ",
            }.get(reason, "")
            self.output.emit(
                f"{start}{count_games(self.tally.games)} kept. Resume with: "
                f"{resume_command(self.out_dir)}{self.executor.resume_args}"
            )
        _close_quietly(self._stderr)
        for own in self._own_stderr.values():
            _close_quietly(own)
        with self.lock:
            traffic, self._traffic = self._traffic, None
        if traffic is not None:
            _close_quietly(traffic)
        return RunResult(reason, data, self.output_lost)

    def _report(self) -> None:
        """Write the match's HTML report (``zengine report DIR`` redraws it at any time)."""
        from zengine.tools.pictures.report import ReportError, write_report

        # Drawing takes seconds for a long match on a busy machine (a picture a ply): Ctrl-C
        # then skips it, since the summary and the records are already written.
        self.reporting = True
        try:
            self.output.emit(f"Report: {write_report(self.out_dir)}")
        except ReportError as error:
            self.output.emit(f"No report: {error}")
        except KeyboardInterrupt:
            self.output.emit(
                f"No report: interrupted (zengine report {shlex.quote(str(self.out_dir))} draws it)"
            )
        finally:
            self.reporting = False

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Ctrl-C, SIGTERM, SIGHUP. The first one stops the match (a KeyboardInterrupt in the
        main thread); a later one, or one while the summary is written, never interrupts the
        cleanup: it hurries it (every engine killed at once). One while the report is drawn
        skips the report."""
        if self.reporting:
            self.reporting = False  # once: a second signal must not break the lines after it
            raise KeyboardInterrupt
        if self.signalled or self.concluding:
            self.signalled = True
            self._hurry()
            return
        self.signalled = True
        raise KeyboardInterrupt

    def _hurry(self) -> None:
        """SIGKILL every engine's process group now; their closers reap (signal-handler safe:
        no lock, no wait)."""
        self.hurrying = True
        for engine in list(self.live):
            engine.hurry()

    def _interrupt(self, workers: list[threading.Thread]) -> None:
        """Ctrl-C: discard the games in progress, kill every engine, reap, keep finished games."""
        with self.lock:
            self.aborting = True
            self._stop(ExitReason.INTERRUPTED, "interrupted")
            live = list(self.live)
        # quit, SIGTERM, SIGKILL of the group and the descendants, for all engines at once (a
        # short grace, none once hurried: the games in progress are discarded anyway).
        closers = [
            threading.Thread(
                target=engine.close, args=(0.0 if self.hurrying else 0.3,), daemon=True
            )
            for engine in live
        ]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join(timeout=10)
        for w in workers:
            w.join(timeout=10)

    # --- engines (the start function the workers are given) -----------------------------------
    def _start_engine(self, index: int) -> EngineProcess:
        engine = EngineProcess(
            self.config.engines[index],
            stderr=self._engine_stderr(index),
            log=self._log if self._traffic is not None else None,
            ledger=self.processes,
        )
        with self.lock:
            if self.aborting:
                engine.kill()
                raise EngineError(Termination.ABANDONED, engine.name, "was stopped: interrupted")
            self.live.add(engine)
        try:
            engine.handshake()
        except (EngineError, SettingRejected):
            self._retire(engine, grace=0.2)
            raise
        return engine

    def _engine_stderr(self, index: int) -> StderrLog:
        """The log an engine's stderr goes to: the match's, and its own file if it has one."""
        path = self.config.engines[index].stderr_file
        if path is None:
            return self._stderr
        with self.lock:
            own = self._own_stderr.get(path)
            if own is None:
                try:
                    own = self._own_stderr[path] = StderrLog(open(path, "ab"))
                except OSError as exc:
                    raise EngineError(
                        Termination.DISCONNECT,
                        self.config.engines[index].name,
                        f"cannot open its stderr= file {shown(path)}: {exc.strerror or exc}",
                    ) from None
        return StderrTee(self._stderr, own)

    def _retire(self, engine: EngineProcess, grace: float = 1.0) -> None:
        """Stop an engine for good."""
        with self.lock:
            self.live.discard(engine)
        engine.close(grace)

    # --- workers and the coordinator's side of each game ------------------------------------
    def _worker(self, next_game: Callable[[], ScheduledGame | None]) -> None:
        keeper = EngineKeeper(self._start_engine, self._retire, restarted(self.config))
        first = True
        try:
            while True:
                if not first and self.config.wait_ms and self.stop.wait(self.config.wait_ms / 1000):
                    return  # cutechess's -wait: a pause between games, cut short by a stop
                first = False
                game = next_game()
                if game is None:
                    return
                try:
                    report = play_scheduled_game(self.config, game, keeper.engine, self.live_dir)
                except SettingRejected as exc:  # the configuration's failure: stop, as usage
                    with self.lock:
                        self._stop(ExitReason.ENGINE_REJECTED, str(exc))
                    return
                except EngineNotStarted as exc:
                    self.not_started(exc)
                    return
                if self.aborting:
                    self._write_unfinished(report.record)
                    return
                self.finish(report, keeper.settle(report))
        except Exception as exc:  # a referee bug: stop the match, keep what was played
            traceback.print_exc(file=sys.stderr)
            with self.lock:
                self._stop(ExitReason.REFEREE_ERROR, f"referee error: {exc!r}")
        finally:
            keeper.close()

    def not_started(self, exc: EngineNotStarted) -> None:
        """An engine of a game never became ready (from an executor): the game is not recorded
        and the match stops, also with ``--recover`` (restarting an engine that cannot start
        would only forfeit every game left)."""
        with self.lock:
            if not self.aborting:
                self._stop(ExitReason.ENGINE_FAILURE, f"engine failure: {exc}")
                self.start_failure = str(exc)

    def finish(self, report: GameReport, failure: str | None) -> None:
        """One finished game (from an executor): record it, count it, print it, and stop the
        match if it must. ``failure`` is why an engine of the game is gone, if one is."""
        record = report.record
        with self.lock:
            if self.aborting:
                return
            try:
                append_game(self.jsonl, self.pgn, record, self.config.site)
            except OSError as exc:  # not kept: it is played again on resume
                self._write_failed(f"game {record.id + 1} to {self.jsonl}", exc)
                return
            self._write_copies(record)
            self.tally.add(record)
            self.played_now += 1
            if failure is not None and not self.config.recover:
                self._stop(
                    ExitReason.ENGINE_FAILURE,
                    f"engine failure: {failure} (without --recover the match stops)",
                )
            for note in report.notes:
                if note not in self._noted:
                    self._noted.add(note)
                    self.output.say(note)
            verdict = state = None
            if self.config.sprt is not None:
                state = self.tally.sprt(self.config.sprt)
                if state.verdict and not self.stop.is_set():
                    verdict = state.verdict
                    self._stop(ExitReason.SPRT_DECIDED, f"SPRT decided: {verdict} accepted")
            self.output.finished(record, state)
            if verdict:
                self.output.say(f"SPRT: {verdict} accepted, stopping the match")

    def _write_unfinished(self, record: GameRecord) -> None:
        """A game the match stopped in the middle of (Ctrl-C, a full disk): not recorded (it is
        played again on resume), but appended to ``-pgnout``'s file with result ``*``, as
        cutechess writes a game it stopped, unless ``fi`` (finished games only)."""
        pgnout = self.config.pgnout
        if pgnout is None or pgnout.fi:
            return
        with self.lock:
            why = "interrupted" if self.stopped is None else self.stopped.text
            text = pgn_text(
                record, self.config.site, pgnout.min, f"not finished: the match stopped ({why})"
            )
            try:
                append_line(pgnout.file, text + "\n")
            except OSError as exc:
                self._write_failed(pgnout.file, exc)

    def _write_copies(self, record: GameRecord) -> None:
        """The game in the user's own files: ``-pgnout`` (appended, as cutechess does) and
        ``-epdout`` (its final position). A failed write stops the match as a full disk does."""
        pgnout, epdout = self.config.pgnout, self.config.epdout
        try:
            if pgnout is not None:
                text = pgn_text(record, self.config.site, pgnout.min)
                append_line(pgnout.file, text + "\n")
            if epdout is not None:
                append_line(epdout, record.final_fen + "\n")
        except OSError as exc:
            where = epdout if pgnout is None or exc.filename == epdout else pgnout.file
            self._write_failed(str(where), exc)


def _close_quietly(handle: IO[Any] | StderrLog) -> None:
    """Close a log file whose last buffered bytes may not fit on a full disk."""
    try:
        handle.close()
    except OSError:
        pass
