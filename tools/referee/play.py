"""The worker's side of a match: play one scheduled game, and keep engines between games.

:func:`play_scheduled_game` is self-contained: from the configuration, the scheduled game
(which carries its opening) and a function that hands it a started engine, it plays the game
and returns its record. Its inputs are plain picklable data, so a worker in another process
can run it; writing records, counting statistics and deciding to stop belong to the
coordinator (:mod:`tools.referee.runner`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zengine.tools.referee.config import MatchConfig
from zengine.tools.referee.engine_client import EngineError, EngineProcess
from zengine.tools.referee.game import play_game
from zengine.tools.referee.progress import Progress
from zengine.tools.referee.records import GameRecord, make_record
from zengine.tools.referee.schedule import ScheduledGame

#: Engine number -> a process of that engine that completed its handshake (EngineError if
#: it cannot be had).
StartEngine = Callable[[int], EngineProcess]


class EngineNotStarted(Exception):
    """An engine of a game never became ready (it could not be run, exited, or gave no
    ``uciok``/``readyok`` in time): the game is not played, and the match stops, with or
    without ``--recover``. As cutechess and fastchess do: a game forfeited by an engine that
    never ran says nothing of its strength, and a broken command would otherwise be scored
    as a match of forfeits (an SPRT would even accept H0 on them). ``error`` is the
    :class:`EngineError`; ``str()`` is the sentence of the ``Stopped:`` line."""

    def __init__(self, game: int, error: EngineError) -> None:
        self.game = game
        self.error = error
        super().__init__(
            f"{error.name} {error.describe(' (at start)')}; game {game + 1} was not played"
        )

    def __reduce__(self) -> tuple[Any, ...]:  # picklable for workers in other processes
        return (type(self), (self.game, self.error))


@dataclass(frozen=True)
class GameReport:
    """A played game: its record, the engines (numbers) whose process failed in it, and
    what its engines' processes have to say once (an engine that cannot ponder)."""

    record: GameRecord
    failed: tuple[int, ...]
    notes: tuple[str, ...] = ()


def play_scheduled_game(
    config: MatchConfig,
    game: ScheduledGame,
    start_engine: StartEngine,
    live_dir: Path | None = None,
) -> GameReport:
    """Play ``game`` of the match ``config`` with engines from ``start_engine``.

    An engine that fails during the game loses it. An engine that cannot be had (it never
    became ready) raises :class:`EngineNotStarted`, and one that rejects a setting (an
    option, the variant) :class:`tools.referee.engine_client.SettingRejected`: neither is a game
    lost, and the game is not played. With ``live_dir`` (the match's folder), the game in
    progress is followed there (:mod:`tools.referee.progress`).
    """
    rules = config.make_rules()
    indices = (game.p1, game.p2)
    engines: list[EngineProcess] = []
    for index in indices:
        try:
            engines.append(start_engine(index))
        except EngineError as exc:
            raise EngineNotStarted(game.id, exc) from None
    live = Progress.open(live_dir, game.id)
    write = None
    if live is not None:
        head = {"id": game.id, "variant": rules.name}
        write = lambda data: live.write({**head, **data})  # noqa: E731
    try:
        played = play_game(
            rules, game.opening, (engines[0], engines[1]), config.adjudication, write
        )
    finally:
        if live is not None:
            live.remove()
    record = make_record(config, game, rules, played)
    notes = tuple(note for engine in engines for note in engine.take_notes())
    return GameReport(record, tuple(indices[side] for side in played.failed), notes)


def resync(engine: EngineProcess) -> bool:
    """After a failure: ``stop`` + ``isready``; whether the engine is alive and answered."""
    if not engine.alive():
        return False
    try:
        engine.stop_search()
        engine.sync()
        return True
    except EngineError:
        return False


def restarted(config: MatchConfig) -> frozenset[int]:
    """The engines of ``config`` started anew for every game (``restart=on``)."""
    return frozenset(i for i, e in enumerate(config.engines) if e.restart)


class EngineKeeper:
    """The engine processes of one worker, kept from one game to the next.

    ``start`` makes a new process (handshake done); ``retire`` stops one for good, with a
    grace in seconds for it to quit by itself.
    """

    def __init__(
        self,
        start: StartEngine,
        retire: Callable[[EngineProcess, float], None],
        restart: frozenset[int] = frozenset(),
    ) -> None:
        self._start = start
        self._retire = retire
        #: Engines started anew for every game (cutechess's ``restart=on``).
        self.restart = restart
        self.engines: dict[int, EngineProcess] = {}

    def engine(self, index: int) -> EngineProcess:
        """The kept process of engine ``index``, started if there is none (a StartEngine)."""
        engine = self.engines.get(index)
        if engine is None:
            engine = self.engines[index] = self._start(index)
        return engine

    def settle(self, report: GameReport) -> str | None:
        """After a game: an engine that failed is resynced and plays on if it answers; if not,
        it is retired and the reason the game ended is returned (an engine failure)."""
        failure = None
        for index in report.failed:
            engine = self.engines.get(index)
            if engine is not None and resync(engine):
                continue
            if engine is not None:
                del self.engines[index]
                # A short grace: it already did not answer.
                self._retire(engine, 0.2)
            failure = report.record.reason
        for index in self.restart & set(self.engines):
            self._retire(self.engines.pop(index), 1.0)
        return failure

    def close(self) -> None:
        """Retire every kept process."""
        for engine in self.engines.values():
            self._retire(engine, 1.0)
        self.engines.clear()
