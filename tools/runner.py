"""The coordinator of a match: schedule, worker threads, engine processes, resume, stopping.

Where the games are played is a :class:`GameExecutor`: worker threads of this process
(:class:`LocalThreads`, the default) that take scheduled games from a queue and play them with
:func:`tools.play.play_scheduled_game`, each keeping its own engine processes between games,
or the workers of a Dask cluster (:class:`tools.cluster.ClusterExecutor`, ``--cluster``).
Each finished game comes back here once, through :meth:`Match.finish`: it is appended to the
records, counted in the running statistics (:class:`tools.tally.MatchTally`, O(1) per game)
and printed; the match stops when the schedule is played, the SPRT decides, an engine fails
without ``--recover``, the referee fails, the cluster fails, or the user interrupts it. Why it
stopped is an :class:`ExitReason`, which carries the exit code.
"""

from __future__ import annotations

import enum
import json
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import IO, Any, Protocol

from zengine.engine.values import Termination
from zengine.tools.config import ConfigError, MatchConfig
from zengine.tools.engine_process import EngineError, EngineProcess
from zengine.tools.live import LiveOutput
from zengine.tools.play import EngineKeeper, GameReport, play_scheduled_game
from zengine.tools.records import append_game, read_games, rewrite_games
from zengine.tools.schedule import OpeningError, ScheduledGame, match_schedule
from zengine.tools.summary import summary, summary_text
from zengine.tools.tally import MatchTally

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
PGN_FILE = "games.pgn"
SUMMARY_FILE = "summary.json"
STDERR_FILE = "engines-stderr.log"
TRAFFIC_FILE = "traffic.log"


class ExitReason(enum.Enum):
    """Why ``zengine match`` ended: its exit code and what that means."""

    COMPLETED = (0, "the schedule was played")
    SPRT_DECIDED = (0, "the SPRT decided (games already running finished and were counted)")
    REFEREE_ERROR = (1, "a referee error: a traceback on stderr, finished games kept")
    USAGE = (2, "a bad command line or configuration: one line on stderr, nothing played")
    ENGINE_FAILURE = (3, "an engine failed without --recover: resume after fixing it")
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
#: error is reported even after an SPRT decision or an engine failure.
_RANK = {
    ExitReason.SPRT_DECIDED: 1,
    ExitReason.ENGINE_FAILURE: 1,
    ExitReason.REFEREE_ERROR: 2,
    ExitReason.CLUSTER_FAILURE: 2,
    ExitReason.INTERRUPTED: 3,
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

    def start(self, match: Match, games: list[ScheduledGame]) -> None:
        """Begin playing ``games`` (in this order as far as it can) for ``match``."""

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

    def start(self, match: Match, games: list[ScheduledGame]) -> None:
        self.match = match
        queue_lock = threading.Lock()
        todo = list(reversed(games))

        def next_game() -> ScheduledGame | None:
            with queue_lock:
                if match.stop.is_set() or not todo:
                    return None
                return todo.pop()

        self.workers = [
            threading.Thread(target=match._worker, args=(next_game,), name=f"game-{i}", daemon=True)
            for i in range(min(match.config.concurrency, max(len(games), 1)))
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


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


class Match:
    """A configured match with its output directory: plays the games still missing."""

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
        self.rules = config.make_rules()
        try:
            self.games = match_schedule(config, self.rules)
        except OpeningError as exc:
            raise ConfigError(f"--openings: {exc}") from None
        self.jsonl = str(out_dir / GAMES_FILE)
        self.pgn = str(out_dir / PGN_FILE)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.aborting = False
        self.stopped: Stop | None = None
        self.live: set[EngineProcess] = set()
        self.tally = MatchTally(len(config.engines))
        self.played_now = 0
        try:
            self._stderr = open(out_dir / STDERR_FILE, "ab")
            self._traffic: IO[str] | None = (
                open(out_dir / TRAFFIC_FILE, "a", encoding="utf-8") if config.debug else None
            )
        except OSError as exc:
            raise ConfigError(f"cannot write in {out_dir}: {exc.strerror or exc}") from None

    # --- output ------------------------------------------------------------------------------
    def _log(self, line: str) -> None:
        if self._traffic is not None:
            with self.lock:
                self._traffic.write(f"{time.monotonic():.6f} {line}\n")
                self._traffic.flush()

    def _score_line(self) -> str:
        return self.output.score_line(self.config.names, self.tally)

    def _bar(self) -> None:
        self.output.bar(self.tally.games, len(self.games), self._score_line())

    def _say(self, text: str) -> None:
        self.output.say(text)
        self._bar()

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
        """Play the missing games; returns why the run ended and the summary (also written)."""
        valid_ids = {g.id for g in self.games}
        done = [r for r in read_games(self.jsonl) if r.id in valid_ids]
        # Rebuild both files from the complete records: drops a truncated last line and any
        # PGN text of a game whose JSON line was lost, so appends continue cleanly.
        rewrite_games(self.jsonl, self.pgn, done)
        for record in done:
            self.tally.add(record)
        finished = {r.id for r in done}
        pending = [g for g in self.games if g.id not in finished]
        if done:
            self.output.emit(f"Resuming: {len(done)} games already played, {len(pending)} to play")
        if self.config.sprt is not None:
            verdict = self.tally.sprt(self.config.sprt).verdict
            if verdict:
                self._stop(ExitReason.SPRT_DECIDED, f"SPRT decided ({verdict}) before this run")
                pending = []
        started = time.monotonic()
        executor = self.executor
        self._bar()
        interrupted = False
        previous = {}
        try:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                try:
                    previous[sig] = signal.signal(sig, _raise_interrupt)
                except ValueError:  # not the main thread (tests): leave signals alone
                    pass
            executor.start(self, pending)
            while executor.join(0.1):
                pass
        except KeyboardInterrupt:
            interrupted = True
            executor.interrupt()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
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
        tmp = self.out_dir / (SUMMARY_FILE + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.out_dir / SUMMARY_FILE)
        self.output.clear_bar()
        self.output.emit("")
        self.output.emit(summary_text(data))
        if reason in (ExitReason.INTERRUPTED, ExitReason.CLUSTER_FAILURE):
            what = "Interrupted" if reason is ExitReason.INTERRUPTED else "Cluster failure"
            self.output.emit(
                f"{what}: {self.tally.games} games kept. Resume with: zengine match --resume "
                f"{self.out_dir}{self.executor.resume_args}"
            )
        self._stderr.close()
        if self._traffic is not None:
            self._traffic.close()
        return RunResult(reason, data)

    def _interrupt(self, workers: list[threading.Thread]) -> None:
        """Ctrl-C: discard the games in progress, kill every engine, reap, keep finished games."""
        # A second Ctrl-C during the cleanup must not leave processes behind.
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            with self.lock:
                self.aborting = True
                self._stop(ExitReason.INTERRUPTED, "interrupted")
                live = list(self.live)
            # quit, SIGTERM, SIGKILL of the group, for all engines at once (a short grace:
            # the games in progress are discarded anyway).
            closers = [
                threading.Thread(target=engine.close, args=(0.3,), daemon=True) for engine in live
            ]
            for closer in closers:
                closer.start()
            for closer in closers:
                closer.join(timeout=10)
            for w in workers:
                w.join(timeout=10)
        finally:
            signal.signal(signal.SIGINT, old)

    # --- engines (the start function the workers are given) -----------------------------------
    def _start_engine(self, index: int) -> EngineProcess:
        engine = EngineProcess(
            self.config.engines[index],
            stderr=self._stderr,
            log=self._log if self._traffic is not None else None,
        )
        with self.lock:
            if self.aborting:
                engine.kill()
                raise EngineError(Termination.ABANDONED, engine.name, "was stopped: interrupted")
            self.live.add(engine)
        try:
            engine.handshake()
        except EngineError:
            self._retire(engine, grace=0.2)
            raise
        return engine

    def _retire(self, engine: EngineProcess, grace: float = 1.0) -> None:
        """Stop an engine for good."""
        with self.lock:
            self.live.discard(engine)
        engine.close(grace)

    # --- workers and the coordinator's side of each game ------------------------------------
    def _worker(self, next_game: Callable[[], ScheduledGame | None]) -> None:
        keeper = EngineKeeper(self._start_engine, self._retire)
        try:
            while True:
                game = next_game()
                if game is None:
                    return
                report = play_scheduled_game(self.config, game, keeper.engine)
                if self.aborting:
                    return
                self.finish(report, keeper.settle(report))
        except Exception as exc:  # a referee bug: stop the match, keep what was played
            traceback.print_exc(file=sys.stderr)
            with self.lock:
                self._stop(ExitReason.REFEREE_ERROR, f"referee error: {exc!r}")
        finally:
            keeper.close()

    def finish(self, report: GameReport, failure: str | None) -> None:
        """One finished game (from an executor): record it, count it, print it, and stop the
        match if it must. ``failure`` is why an engine of the game is gone, if one is."""
        record = report.record
        with self.lock:
            if self.aborting:
                return
            append_game(self.jsonl, self.pgn, record)
            self.tally.add(record)
            self.played_now += 1
            if failure is not None and not self.config.recover:
                self._stop(
                    ExitReason.ENGINE_FAILURE,
                    f"engine failure: {failure} (without --recover the match stops; resume with --resume)",
                )
            line = self.output.game_line(
                record, self.tally.games, len(self.games), self._score_line()
            )
            verdict = None
            if self.config.sprt is not None:
                state = self.tally.sprt(self.config.sprt)
                line += f"  LLR {state.llr:.2f} ({state.lower:.2f}, {state.upper:.2f})"
                if state.verdict and not self.stop.is_set():
                    verdict = state.verdict
                    self._stop(ExitReason.SPRT_DECIDED, f"SPRT decided: {verdict} accepted")
            self._say(line)
            if verdict:
                self._say(f"SPRT: {verdict} accepted, stopping the match")


def new_out_dir(base: str | None) -> Path:
    """``--out DIR`` (created), or a new ``./matches/<UTC timestamp>`` directory."""
    if base:
        path = Path(base)
        if path.exists() and not path.is_dir():
            raise ConfigError(f"--out {base}: not a directory")
        if read_games(str(path / GAMES_FILE)):
            raise ConfigError(
                f"--out {base}: it already holds games; use --resume {base} to continue it"
            )
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--out {base}: {exc.strerror or exc}") from None
        return path
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    root = Path("matches")
    for n in range(1000):
        path = root / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
        except OSError as exc:
            raise ConfigError(f"cannot create {path}: {exc.strerror or exc}") from None
    raise ConfigError("cannot create an output directory under ./matches")


def write_config(config: MatchConfig, out_dir: Path) -> None:
    """``DIR/config.json`` (atomically), what ``--resume`` reads back."""
    tmp = out_dir / (CONFIG_FILE + ".tmp")
    try:
        tmp.write_text(
            json.dumps(config.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        os.replace(tmp, out_dir / CONFIG_FILE)
    except OSError as exc:
        raise ConfigError(f"cannot write {out_dir / CONFIG_FILE}: {exc.strerror or exc}") from None


def read_config(out_dir: Path) -> MatchConfig:
    """The configuration stored in ``DIR/config.json`` (ConfigError if there is none)."""
    try:
        data = json.loads((out_dir / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--resume {out_dir}: no readable {CONFIG_FILE} ({exc})") from None
    try:
        return MatchConfig.from_json(data)
    except ConfigError as exc:
        raise ConfigError(f"--resume {out_dir}: {CONFIG_FILE}: {exc}") from None
