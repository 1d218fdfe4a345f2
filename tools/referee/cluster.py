"""``zengine match --cluster``: the games of a match played by the workers of a Dask cluster.

A game is one Dask task. :func:`play_task` runs on a worker: it starts the engines there (their
commands are resolved on the worker; the built-in engine is the worker's own ``zengine``),
plays the game with the referee's own code (:func:`tools.referee.play.play_scheduled_game`: its own
clock and adjudication) and returns the game's record, stamped with the worker's address. A
worker keeps its engines from one game of a run to the next, as a local worker thread does.

The coordinator is :class:`ClusterExecutor`, the :class:`tools.referee.runner.GameExecutor` of a
cluster: it keeps two tasks in flight per worker thread (the game played and the next), in the
order of the schedule, and hands each finished game to the match, which writes it, counts it
and decides whether to stop, exactly as for a local match. When the match stops (SPRT, engine
failure) the tasks still waiting for a worker are cancelled, and the games already running
finish and are counted.

Faults: Dask plays a task again, from its start, on another worker when its worker dies; the
coordinator writes a record once per game id. The scheduler going away stops the match
(``ExitReason.CLUSTER_FAILURE``) with the finished games kept.

Dask (``distributed``) is an optional dependency, imported only when a cluster is used: a
local match never loads it.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import queue
import re
import sys
import tempfile
import threading
import time
import traceback
import uuid
from concurrent.futures import CancelledError
from dataclasses import dataclass, replace
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any

from zengine import DISTRIBUTION
from zengine.engine.values import TextError, parse_int
from zengine.tools.referee.config import MAX_CONCURRENCY, ConfigError, MatchConfig
from zengine.tools.referee.engine_client import (
    EngineError,
    EngineProcess,
    StderrLog,
)
from zengine.tools.referee.folder import STDERR_FILE, TRAFFIC_FILE
from zengine.tools.referee.play import (
    EngineKeeper,
    EngineNotStarted,
    GameReport,
    play_scheduled_game,
    restarted,
)
from zengine.tools.referee.programs import builtin_engine
from zengine.tools.referee.runner import ExitReason, Match, PendingGames
from zengine.tools.referee.schedule import ScheduledGame

if TYPE_CHECKING:
    from distributed import Client, Future, LocalCluster

INSTALL_HINT = "pip install '.[cluster]' in zengine's source folder"
#: How long the coordinator waits for a scheduler to answer when it connects.
CONNECT_TIMEOUT_S = 20
#: How long ``local:N`` waits for its workers to start (a loaded machine is slow to start them).
LOCAL_START_TIMEOUT_S = 120
#: A worker closes the engines of a run after this long without a game of it (a coordinator
#: that died cannot tell it to).
IDLE_ENGINES_S = 60.0
#: Engine stderr shipped back with one game, at most (the rest is dropped, and said so).
STDERR_LIMIT = 1 << 20
#: Tasks in flight per worker thread: the game it plays and the next one, waiting, so that a
#: worker does not idle while a result travels back and the next task comes (measured on
#: local:2, 2-core machine: 30 ms a game idle with one task per thread, see docs/referee.md).
TASKS_PER_THREAD = 2

_ADDRESS = re.compile(r"tcp://([A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\]):([0-9]{1,5})")


@dataclass(frozen=True)
class ClusterSpec:
    """``--cluster``: the address of a running scheduler (``tcp://HOST:PORT``), or ``local:N``
    (a cluster of N single-thread worker processes on this machine, started for the match)."""

    text: str
    local_workers: int = 0


def parse_cluster(text: str) -> ClusterSpec:
    """``tcp://HOST:PORT`` or ``local:N``; ConfigError otherwise."""
    word = text.strip()
    if word.lower().startswith("local:"):
        try:
            workers = parse_int(word[len("local:") :], "--cluster local:N", 1, MAX_CONCURRENCY)
        except TextError as exc:
            raise ConfigError(exc.detail) from None
        return ClusterSpec(f"local:{workers}", workers)
    match = _ADDRESS.fullmatch(word)
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise ConfigError(
            f"--cluster: '{text}' is neither a scheduler address tcp://HOST:PORT nor local:N"
        )
    return ClusterSpec(word)


def _distributed() -> ModuleType:
    """Dask's ``distributed``, or a ConfigError saying how to install it."""
    try:
        import distributed
    except ModuleNotFoundError:
        raise ConfigError(f"--cluster needs Dask (distributed): {INSTALL_HINT}") from None
    return distributed


def _quiet() -> None:
    """Dask logs its own view of faults (a lost scheduler, a dead worker) with tracebacks, from
    loggers that its configuration sets one by one; the match reports them in its own words."""
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] == "distributed"]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def zengine_version() -> str:
    """The installed zengine's version: workers must run the coordinator's."""
    return importlib.metadata.version(DISTRIBUTION)


def connect(spec: ClusterSpec) -> ClusterExecutor:
    """Connect to the scheduler of ``spec`` (or start the local cluster); ConfigError if Dask is
    missing or the scheduler cannot be reached."""
    distributed = _distributed()
    _quiet()
    cluster: LocalCluster | None = None
    try:
        if spec.local_workers:
            cluster = distributed.LocalCluster(
                n_workers=spec.local_workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                # Its HTTP server on a free local port (8787 may be taken); no dashboard.
                dashboard_address="127.0.0.1:0",
                scheduler_kwargs={"dashboard": False},
                silence_logs=logging.CRITICAL,
            )
            client = distributed.Client(cluster, set_as_default=False)
            client.wait_for_workers(spec.local_workers, timeout=LOCAL_START_TIMEOUT_S)
        else:
            client = distributed.Client(spec.text, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except OSError as exc:
        if cluster is not None:
            cluster.close()
        raise ConfigError(f"--cluster {spec.text}: cannot reach the scheduler: {exc}") from None
    return ClusterExecutor(spec, client, cluster)


# --- the coordinator's side ----------------------------------------------------------------------


@dataclass(frozen=True)
class GameTask:
    """One game for a worker: the match, the game, which engines are the built-in one (run as
    the worker's own ``zengine``), the run it belongs to and the coordinator's version."""

    config: MatchConfig
    game: ScheduledGame
    builtin: tuple[int, ...]
    run: str
    version: str


@dataclass(frozen=True)
class TaskResult:
    """What a worker sends back: the game (None if the worker cannot play), why an engine is
    gone (``failure``), the engines' stderr and the traffic of the game, or a ``problem`` of
    the worker itself (another zengine version, a variant it does not know)."""

    worker: str
    report: GameReport | None = None
    failure: str | None = None
    stderr: bytes = b""
    traffic: tuple[str, ...] = ()
    problem: str | None = None
    #: An engine of the game never became ready: the game was not played.
    not_started: EngineNotStarted | None = None
    #: When the worker began and ended the game (its wall clock, seconds since the epoch).
    began: float = 0.0
    ended: float = 0.0


class ClusterExecutor:
    """The games of a match on a Dask cluster: TASKS_PER_THREAD tasks in flight per worker
    thread, their results recorded once per game id."""

    def __init__(self, spec: ClusterSpec, client: Client, cluster: LocalCluster | None) -> None:
        self.spec = spec
        self.client = client
        self.cluster = cluster
        self.resume_args = f" --cluster {spec.text}"
        self.run = uuid.uuid4().hex
        self.version = zengine_version()
        self.match: Match | None = None
        self.futures: dict[Future, ScheduledGame] = {}
        self.finished: queue.Queue[Future] = queue.Queue()
        self.recorded: set[int] = set()
        self.aborting = False
        self.lost = False
        self.threads = 0
        self.most_threads = 0
        self.workers_used: set[str] = set()
        self.withdrawn = False
        self._lock = threading.Lock()
        #: Seconds of the coordinator's own work on the games (submits; results arrived to
        #: records written), and (worker, began, ended) of each game recorded: the figures of
        #: docs/referee.md.
        self.busy_s = 0.0
        self.spans: list[tuple[str, float, float]] = []
        self._feeder: threading.Thread | None = None
        self._stderr: IO[bytes] | None = None
        self._traffic: IO[str] | None = None

    def describe(self) -> str:
        """``Cluster tcp://...: 3 workers, 3 threads`` (the header of the match)."""
        counts = self._count_threads()
        workers = len(counts)
        text = f"Cluster {self.spec.text}: {workers} worker(s), {sum(counts.values())} thread(s)"
        if not workers:
            text += "; the games wait for workers"
        return text

    def _count_threads(self) -> dict[str, int]:
        try:
            counts: dict[str, int] = self.client.nthreads()
        except OSError:  # the scheduler is gone: the futures say so
            return {}
        self.threads = sum(counts.values())
        self.most_threads = max(self.most_threads, self.threads)
        return counts

    # --- GameExecutor ----------------------------------------------------------------------------
    def start(self, match: Match, games: PendingGames) -> None:
        self.match = match
        self._stderr = open(match.out_dir / STDERR_FILE, "ab")
        if match.config.debug:
            self._traffic = open(match.out_dir / TRAFFIC_FILE, "a", encoding="utf-8")
        here = tuple(builtin_engine())
        builtin = tuple(i for i, e in enumerate(match.config.engines) if e.cmd == here)
        self._feeder = threading.Thread(
            target=self._feed, args=(match, games, builtin), name="cluster-feed", daemon=True
        )
        self._feeder.start()

    def join(self, timeout: float) -> bool:
        if self._feeder is None:
            return False
        self._feeder.join(timeout)
        return self._feeder.is_alive()

    def interrupt(self) -> None:
        """Ctrl-C: cancel every task, kill this run's engines on the workers, keep the records."""
        self.aborting = True
        match = self.match
        if match is not None:
            with match.lock:
                match.aborting = True
            match.halt(ExitReason.INTERRUPTED, "interrupted")
        with self._lock:
            futures = list(self.futures)
        try:
            self.client.cancel(futures)
        except OSError:
            pass
        self._release(kill=True)
        if self._feeder is not None:
            self._feeder.join(timeout=10)

    def summary_fields(self, match: Match) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "concurrency": self.most_threads,
            "cluster": self.spec.text,
            "cluster_workers": sorted(self.workers_used),
        }
        if self.spans:
            fields["cluster_overhead_ms"] = {
                "coordinator": self.busy_s / len(self.spans) * 1000,
                "worker_idle": self.idle_ms(),
                "games": len(self.spans),
            }
        return fields

    def idle_ms(self) -> float:
        """How long a worker waited between two games, on average (ms)."""
        last: dict[str, float] = {}
        gaps = []
        for worker, began, ended in sorted(self.spans, key=lambda span: span[1]):
            if worker in last:
                gaps.append(max(0.0, began - last[worker]))
            last[worker] = ended
        return sum(gaps) / len(gaps) * 1000 if gaps else 0.0

    def report(self) -> str | None:
        """``Cluster ...``: the workers that played and the cluster's cost per game, if any."""
        if not self.spans:
            return None
        work = self.busy_s / len(self.spans) * 1000
        return (
            f"Cluster {self.spec.text}: {len(self.spans)} games on {len(self.workers_used)} "
            f"worker(s); per game {work:.1f} ms of coordinator work, workers idle "
            f"{self.idle_ms():.1f} ms between games"
        )

    def close(self) -> None:
        """Close this run's engines on the workers, the connection, and a local cluster."""
        if not self.aborting and not self.lost:
            self._release(kill=False)
        for handle in (self._stderr, self._traffic):
            if handle is not None:
                handle.close()
        self.client.close(timeout=10)
        if self.cluster is not None:
            self.cluster.close(timeout=30)

    # --- the feeder thread ---------------------------------------------------------------------
    def _feed(self, match: Match, games: PendingGames, builtin: tuple[int, ...]) -> None:
        try:
            todo = games
            counted = 0.0
            while True:
                if match.stop.is_set() and not self.withdrawn and not self.aborting:
                    self._withdraw()
                if todo and not match.stop.is_set() and not self.aborting:
                    if time.monotonic() - counted > 1.0:
                        self._count_threads()
                        counted = time.monotonic()
                    while todo and len(self.futures) < max(self.threads, 1) * TASKS_PER_THREAD:
                        game = todo.popleft()
                        if game is None:
                            break
                        self._submit(match.config, game, builtin)
                if not self.futures:
                    return
                try:
                    batch = [self.finished.get(timeout=0.5)]
                except queue.Empty:
                    continue
                began = time.monotonic()
                while not self.finished.empty():
                    batch.append(self.finished.get())
                with self._lock:
                    ended = [(f, g) for f in batch if (g := self.futures.pop(f, None)) is not None]
                # The results of the games that ended come in one round trip: one
                # Future.result() is a round trip of its own (20 ms of waiting a game, when
                # measured on local:2 with short games on the loaded 2-core machine).
                done = [future for future, _ in ended if future.status == "finished"]
                try:
                    results = dict(zip(done, self.client.gather(done))) if done else {}
                except (OSError, CancelledError):
                    self._lose(match)
                    return
                for future, game in ended:
                    self._settle(match, future, game, results.get(future))
                    if self.lost:
                        return
                self.busy_s += time.monotonic() - began
        except Exception as exc:  # a referee bug: stop the match, keep what was played
            traceback.print_exc(file=sys.stderr)
            match.halt(ExitReason.REFEREE_ERROR, f"referee error: {exc!r}")

    def _submit(self, config: MatchConfig, game: ScheduledGame, builtin: tuple[int, ...]) -> None:
        began = time.monotonic()
        task = GameTask(config, game, builtin, self.run, self.version)
        future = self.client.submit(play_task, task, key=f"zengine-game-{game.id}-{self.run}")
        with self._lock:
            self.futures[future] = game
        future.add_done_callback(self.finished.put)
        self.busy_s += time.monotonic() - began

    def _withdraw(self) -> None:
        """The match stopped (SPRT, engine failure): cancel the tasks that wait for a worker
        thread; the games being played finish and are counted, as in a local match."""
        self.withdrawn = True
        try:
            running = self.client.run(_executing, on_error="ignore")
        except OSError:  # the scheduler is gone: the futures say so
            return
        keys = {key for keys in running.values() if isinstance(keys, list) for key in keys}
        with self._lock:
            waiting = [future for future in self.futures if future.key not in keys]
            for future in waiting:
                del self.futures[future]
        try:
            self.client.cancel(waiting)
        except OSError:
            pass

    def _settle(
        self, match: Match, future: Future, game: ScheduledGame, result: TaskResult | None
    ) -> None:
        """One task ended: record its game (once), or stop the match for why it did not end."""
        if future.status == "cancelled":
            if not self.aborting:  # not by us: the scheduler went away
                self._lose(match)
            return
        if future.status == "error" or result is None:
            self._fail(match, future, game)
            return
        self._relay(result)
        if result.problem is not None:
            match.halt(ExitReason.CLUSTER_FAILURE, f"worker {result.worker}: {result.problem}")
            return
        if result.not_started is not None:
            match.not_started(result.not_started)
            return
        if self.aborting or result.report is None or game.id in self.recorded:
            return
        self.recorded.add(game.id)
        self.workers_used.add(result.worker)
        match.finish(result.report, result.failure)
        self.spans.append((result.worker, result.began, result.ended))

    def _lose(self, match: Match) -> None:
        self.lost = True
        match.halt(ExitReason.CLUSTER_FAILURE, f"the scheduler at {self._address()} went away")

    def _address(self) -> str:
        if self.cluster is not None:
            return f"{self.cluster.scheduler_address} ({self.spec.text})"
        return self.spec.text

    def _fail(self, match: Match, future: Future, game: ScheduledGame) -> None:
        distributed = _distributed()
        exc = future.exception()
        if isinstance(exc, distributed.KilledWorker):
            match.halt(
                ExitReason.CLUSTER_FAILURE,
                f"game {game.id + 1}: Dask gave up on it, every worker that played it died ({exc})",
            )
            return
        # A bug in the referee's code on the worker: its traceback, as a local match shows it.
        assert exc is not None
        traceback.print_exception(type(exc), exc, future.traceback(), file=sys.stderr)
        match.halt(ExitReason.REFEREE_ERROR, f"referee error on a worker: {exc!r}")

    def _relay(self, result: TaskResult) -> None:
        """The engines' stderr and the traffic of a game, into the match's files."""
        if result.stderr and self._stderr is not None:
            self._stderr.write(result.stderr)
            self._stderr.flush()
        if result.traffic and self._traffic is not None:
            self._traffic.write("".join(f"{line}\n" for line in result.traffic))
            self._traffic.flush()

    def _release(self, kill: bool) -> None:
        """Close (or kill) this run's engines on every worker."""
        try:
            self.client.run(release_engines, self.run, kill, on_error="ignore")
        except OSError:  # the scheduler is gone; idle workers close them by themselves
            pass


# --- the worker's side ---------------------------------------------------------------------------


class _RunEngines:
    """The engine processes one worker thread keeps for one run of a match, their stderr (a
    file read back after each game) and, with ``--debug``, their traffic."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        fd, path = tempfile.mkstemp(prefix="zengine-stderr-")
        try:
            # The engines append through their own descriptor; this one reads at its own offset.
            self._write_fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            self._read = os.fdopen(fd, "rb")
            # The referee's stderr log (labelled lines, capped per engine) over that file.
            self._stderr_log = StderrLog(
                os.fdopen(self._write_fd, "ab", buffering=0, closefd=False)
            )
        finally:
            os.unlink(path)
        self.traffic: list[str] = []
        self.keeper = EngineKeeper(self._start, self._retire, restarted(config))
        self.live: set[EngineProcess] = set()
        self.busy = False
        self.retire_when_done = False
        self.used = time.monotonic()

    def _log(self, line: str) -> None:
        self.traffic.append(f"{time.monotonic():.6f} {line}")

    def _start(self, index: int) -> EngineProcess:
        engine = EngineProcess(
            self.config.engines[index],
            stderr=self._stderr_log,
            log=self._log if self.config.debug else None,
        )
        self.live.add(engine)
        try:
            engine.handshake()
        except EngineError:
            self._retire(engine, 0.2)
            raise
        return engine

    def _retire(self, engine: EngineProcess, grace: float = 1.0) -> None:
        self.live.discard(engine)
        engine.close(grace)

    def take_stderr(self) -> bytes:
        data = self._read.read(STDERR_LIMIT)
        rest = len(self._read.read())
        if rest:
            data += f"[{rest} more bytes of engine stderr dropped on the worker]\n".encode()
        return data

    def take_traffic(self) -> tuple[str, ...]:
        lines, self.traffic = self.traffic, []
        return tuple(lines)

    def kill(self) -> None:
        """Kill every engine at once (an interrupted match): a game in progress ends."""
        for engine in list(self.live):
            engine.kill()

    def close(self) -> None:
        self.keeper.close()
        for engine in list(self.live):
            self._retire(engine, 0.2)
        os.close(self._write_fd)
        self._read.close()


#: (thread, run) -> the engines that worker thread keeps for that run.
_RUNS: dict[tuple[int, str], _RunEngines] = {}
_RUNS_LOCK = threading.Lock()
_reaper: threading.Thread | None = None


def _reap() -> None:
    """Close the engines of runs idle for IDLE_ENGINES_S (their coordinator may be gone)."""
    while True:
        time.sleep(5.0)
        now = time.monotonic()
        with _RUNS_LOCK:
            idle = [
                key
                for key, run in _RUNS.items()
                if not run.busy and now - run.used > IDLE_ENGINES_S
            ]
            stale = [_RUNS.pop(key) for key in idle]
        for run in stale:
            run.close()


def _engines_for(task: GameTask) -> _RunEngines:
    global _reaper
    key = (threading.get_ident(), task.run)
    with _RUNS_LOCK:
        run = _RUNS.get(key)
        if run is None:
            run = _RUNS[key] = _RunEngines(on_this_worker(task.config, task.builtin))
        run.busy = True
        if _reaper is None:
            _reaper = threading.Thread(target=_reap, name="zengine-reaper", daemon=True)
            _reaper.start()
    return run


def on_this_worker(config: MatchConfig, builtin: tuple[int, ...]) -> MatchConfig:
    """The configuration with the built-in engine as this machine's own ``zengine``."""
    if not builtin:
        return config
    here = tuple(builtin_engine())
    engines = tuple(
        replace(e, cmd=here) if i in builtin else e for i, e in enumerate(config.engines)
    )
    return replace(config, engines=engines)


_VERSION: list[str] = []


def play_task(task: GameTask) -> TaskResult:
    """Play one game of a match on this worker (the Dask task): the record, stamped with the
    worker's address, and the worker's engines kept for the next game of the run."""
    from distributed import get_worker

    worker: str = get_worker().address
    if not _VERSION:
        _VERSION.append(zengine_version())
    if task.version != _VERSION[0]:
        return TaskResult(
            worker,
            problem=f"runs zengine {_VERSION[0]}, the coordinator {task.version}: install "
            "the same version on every worker",
        )
    try:
        run = _engines_for(task)
    except ConfigError as exc:  # a variant (a plugin game) this worker does not have
        return TaskResult(worker, problem=str(exc))
    began = time.time()
    report: GameReport | None = None
    failure = None
    not_started = None
    try:
        try:
            report = play_scheduled_game(run.config, task.game, run.keeper.engine)
            failure = run.keeper.settle(report)
        except EngineNotStarted as exc:
            not_started = exc
    finally:
        with _RUNS_LOCK:
            run.busy = False
            run.used = time.monotonic()
            done = run.retire_when_done
            if done:
                _RUNS.pop((threading.get_ident(), task.run), None)
    result = TaskResult(
        worker,
        None if report is None else replace(report, record=replace(report.record, worker=worker)),
        failure,
        run.take_stderr(),
        run.take_traffic(),
        not_started=not_started,
        began=began,
        ended=time.time(),
    )
    if done:
        run.close()
    return result


def _executing(dask_worker: Any) -> list[str]:
    """The keys of the tasks this worker is running now (Dask's ``client.run`` passes it)."""
    return [str(task.key) for task in dask_worker.state.executing]


def release_engines(run: str, kill: bool) -> int:
    """Close this worker's engines of ``run`` (the match ended); those of a game still being
    played close when it ends, or at once with ``kill`` (an interrupted match). Returns how
    many threads' engines were released."""
    with _RUNS_LOCK:
        mine = [key for key in _RUNS if key[1] == run]
        idle = [_RUNS.pop(key) for key in mine if not _RUNS[key].busy]
        busy = [_RUNS[key] for key in mine if key in _RUNS]
        for engines in busy:
            engines.retire_when_done = True
    for engines in idle:
        engines.close()
    if kill:
        for engines in busy:
            engines.kill()
    return len(mine)
