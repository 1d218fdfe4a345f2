"""The engines of ``zengine gui``: processes driven only through the protocol, by the referee's
engine client (:class:`~zengine.tools.referee.engine_client.EngineProcess`), so that every wait
has a deadline and a stopped engine leaves no process behind.

Each engine named on the command line is an :class:`EngineSeat`, started on first use and
started again after a failure. A search runs on a worker thread (the client's reads block);
it reads in short slices so that a ``stop`` asked from the page goes out at once, and hands
every ``info`` line to a callback as it comes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from zengine.engine.text import quoted
from zengine.engine.values import Score, parse_info
from zengine.tools.referee.config import EngineConfig
from zengine.tools.referee.engine_client import EngineError, EngineProcess, SettingRejected
from zengine.tools.referee.terminations import Termination

#: How long one read waits before the stop flag is looked at again, in seconds.
SLICE_S = 0.05


@dataclass(frozen=True)
class Line:
    """One best line an engine reported: its rank (``multipv``, 1 = best), depth, score (the
    side to move's view) and moves."""

    rank: int
    depth: int | None
    score: Score | None
    pv: tuple[str, ...]
    nodes: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "depth": self.depth,
            "score": None if self.score is None else self.score.format(),
            "pv": list(self.pv),
            "nodes": self.nodes,
        }


@dataclass
class Search:
    """One search asked of an engine: the game (a new ``game_id`` starts a new game in the
    engine), the ``position`` and ``go`` lines, the longest wait for ``bestmove`` after ``go``
    (None: until stopped) and how many lines to report."""

    variant: str
    rule_options: dict[str, str]
    game_id: int
    position: str
    go: str
    wait_s: float | None
    lines: int = 1
    stop: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class Answer:
    """How a search ended: the move (None when stopped before one or on a failure), the
    time from writing ``go`` to reading ``bestmove`` and the read's monotonic time, the last
    best line, and on a failure its :class:`Termination` and a sentence naming the engine."""

    move: str | None
    elapsed_ms: int = 0
    stamp: float = 0.0
    best: Line | None = None
    termination: Termination | None = None
    fault: str | None = None


class EngineSeat:
    """One engine of the command line, one search at a time."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.name = config.name
        self._process: EngineProcess | None = None
        self._game_id: int | None = None
        self._lines = 1
        self._lines_refused = False
        self._lock = threading.Lock()
        #: Set for good by :meth:`shut` (the server stops): a search under way ends at once.
        self._shut = False

    def _ready(self) -> EngineProcess:
        process = self._process
        if process is not None and process.alive():
            return process
        self.close()
        if self._shut:
            raise EngineError(Termination.ABANDONED, self.name, "was stopped: the server stops")
        process = EngineProcess(self.config)
        self._process = process  # from now on close() stops it, even mid-handshake
        if self._shut:
            self.close()
        try:
            process.handshake()
        except (EngineError, SettingRejected):
            self.close()
            raise
        self._game_id = None
        self._lines = 1
        return process

    def search(
        self, job: Search, on_line: Callable[[Line], None], on_note: Callable[[str], None]
    ) -> Answer:
        """Run ``job`` (on a worker thread) and say how it ended; never raises for what the
        engine does: a failure is an :class:`Answer` with a fault, and the process is stopped
        (the next search starts it again). ``on_line`` gets each best line as it comes,
        ``on_note`` what people should know of the search (fewer lines than asked)."""
        with self._lock:
            try:
                return self._search(job, on_line, on_note)
            except SettingRejected as exc:
                self.close()
                return Answer(None, termination=Termination.PROTOCOL, fault=str(exc))
            except EngineError as exc:
                self.close()
                return Answer(None, termination=exc.termination, fault=str(exc))

    def _search(
        self, job: Search, on_line: Callable[[Line], None], on_note: Callable[[str], None]
    ) -> Answer:
        process = self._ready()
        if job.game_id != self._game_id:
            process.new_game(job.variant, job.rule_options)
            self._game_id = job.game_id
        if job.lines != self._lines and not (self._lines_refused and job.lines > 1):
            process.send(f"setoption name MultiPV value {job.lines}")
            try:
                process.sync(setting=f"MultiPV {job.lines}")
                self._lines = job.lines
            except SettingRejected:
                self._lines_refused = True
        if self._lines_refused and job.lines > 1:
            on_note(f"{self.name} shows one line only (it refused the option MultiPV)")
        process.send(job.position)
        error = process.discard_stale()
        if error is not None:
            self._game_id = None
            return Answer(
                None,
                termination=Termination.PROTOCOL,
                fault=f"{self.name} answered '{quoted(error)}' to '{quoted(job.position)}'",
            )
        sent = process.send(job.go)
        deadline = None if job.wait_s is None else sent + job.wait_s
        stopping = False
        best: Line | None = None
        while True:
            if self._shut:
                raise EngineError(Termination.ABANDONED, self.name, "was stopped: the server stops")
            if job.stop.is_set() and not stopping:
                process.stop_search()
                stopping = True
                stop_by = time.monotonic() + self.config.timeouts.ready_s
                deadline = stop_by if deadline is None else min(deadline, stop_by)
            now = time.monotonic()
            until = now + SLICE_S if deadline is None else min(deadline, now + SLICE_S)
            try:
                stamp, lines = process.read_batch(until, "'bestmove'")
            except EngineError as exc:
                if exc.termination is not Termination.STALL or (
                    deadline is not None and time.monotonic() >= deadline
                ):
                    if exc.termination is Termination.STALL:
                        waited = job.wait_s if not stopping else self.config.timeouts.ready_s
                        raise EngineError(
                            Termination.STALL, self.name, f"gave no 'bestmove' within {waited:g} s"
                        ) from None
                    raise
                continue
            for i, text in enumerate(lines):
                words = text.split()
                if not words:
                    continue
                if words[0] == "info":
                    line = _line(text)
                    if line is not None:
                        if line.rank == 1:
                            best = line
                        on_line(line)
                elif words[0] == "bestmove":
                    process.unread(stamp, lines[i + 1 :])
                    move = words[1] if len(words) > 1 else ""
                    elapsed = max(0, round((stamp - sent) * 1000))
                    return Answer(move, elapsed, stamp, best)
                elif words[0] == "error":
                    self._game_id = None
                    return Answer(
                        None,
                        termination=Termination.PROTOCOL,
                        fault=f"{self.name} answered '{quoted(text)}' instead of a move",
                    )

    def close(self) -> None:
        """Stop the process (quit, then signals): nothing of it is left running."""
        process, self._process = self._process, None
        if process is not None:
            process.close(0.5)

    def shut(self) -> None:
        """Stop for good (the server stops): a search under way ends, none starts again."""
        self._shut = True
        self.close()


def _line(text: str) -> Line | None:
    """The best line an ``info`` line reports (None for one without a ``pv`` or a score)."""
    info = parse_info(text)
    if info is None or not info.pv or info.score is None:
        return None
    words = text.split()
    rank = 1
    if "multipv" in words[: words.index("pv")]:
        after = words.index("multipv") + 1
        if after < len(words) and words[after].isdigit():
            rank = int(words[after])
    return Line(rank, info.depth, info.score, info.pv, info.nodes)
