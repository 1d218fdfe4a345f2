"""What a match prints while it runs: the lines cutechess-cli prints, and a progress bar.

Lines (on stdout, through ``emit``), as cutechess-cli words them so that what users grep for
is there::

    Started game 3 of 20 (A vs B)
    Finished game 3 (A vs B): 1-0 {every Blue checker captured}
    Score of A vs B: 2 - 1 - 0  [0.667] 3
    Elo difference: 31.4 +/- 45.2, LOS: 91.3 %, DrawRatio: 20.0 %

``Score of`` follows every game of a two-engine match; every ``rating_interval`` games (0 =
never) comes the Elo line and, with an SPRT, its ``SPRT: llr ...`` line (also at once when the
SPRT decides), or for a tournament a ranking of the engines against the field; every
``outcome_interval`` games, how each engine's games ended. When the match ends, the ranking
(or Elo line) and the outcomes, unless just printed, then ``Finished match``.

The progress bar is drawn on stderr only when stderr is a terminal (never into a pipe or a
log), by tqdm: the games done, the elapsed time, an estimate of the time left, the games in
progress and the score. A timer redraws it twice a second, so the clock moves during long
games; its text is chosen to fit the terminal's width at each redraw (tqdm cuts what is still
too long), so it never wraps. A line printed while the bar is shown clears it first and
redraws it after (tqdm's ``external_write_mode``).
"""

from __future__ import annotations

import os
import sys
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tqdm import tqdm
from tqdm.utils import disp_len

from zengine.tools.referee import stats
from zengine.tools.referee.records import GameRecord
from zengine.tools.referee.summary import elo_line
from zengine.tools.referee.tally import MatchTally


def print_line(line: str) -> None:
    """Print and flush: live lines must not wait in a pipe's buffer."""
    print(line, flush=True)


if TYPE_CHECKING:  # the stubs make tqdm generic in its items; at run time it is not
    _Tqdm = tqdm[None]
else:
    _Tqdm = tqdm


class _Bar(_Tqdm):
    """tqdm without its monitor thread: our own timer redraws the bar."""

    monitor_interval = 0


#: The narrowest bar worth drawing, in columns; below it the bar is left out.
MIN_BAR = 5


def _columns() -> int:
    """The width of the terminal stderr is on (80 if it cannot be told)."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError):
        return 80


def sprt_line(state: stats.SprtState) -> str:
    """cutechess's line: ``SPRT: llr 1.23 (41.8%), lbound -2.94, ubound 2.94``, with ``- H1
    was accepted`` once decided."""
    text = (
        f"SPRT: llr {state.llr:.3g} ({state.llr / state.upper * 100:.1f}%), "
        f"lbound {state.lower:.3g}, ubound {state.upper:.3g}"
    )
    if state.verdict:
        text += f" - {state.verdict} was accepted"
    return text


class LiveOutput:
    """The lines of a running match, through ``emit``; the bar only if ``progress`` (by
    default: if stderr is a terminal). ``refresh_s`` is the bar's redraw period."""

    def __init__(
        self,
        emit: Callable[[str], None] = print_line,
        progress: bool | None = None,
        refresh_s: float = 0.5,
    ) -> None:
        self.emit = emit
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.refresh_s = refresh_s
        self.rating_interval = 0
        #: Games between the outcome lists (``-outcomeinterval``; 0: at the end only).
        self.outcome_interval = 0
        self._outcomes: dict[int, Counter[str]] = {}
        #: Games started and not yet finished (or discarded).
        self.running = 0
        #: Redraws of the bar by the timer (what shows the clock moving).
        self.ticks = 0
        self._told_decision = False
        self._names: tuple[str, ...] = ()
        self._total = 0
        self._tally = MatchTally(0)
        self._lock = threading.RLock()
        self._bar: _Bar | None = None
        self._ticker: threading.Thread | None = None
        self._stopping = threading.Event()

    # --- the lines ---------------------------------------------------------------------------
    def score_line(self, names: Sequence[str], tally: MatchTally) -> str:
        """``A 3 - 2 B`` for a match, ``A 4, C 3, B 1`` (best first) for a tournament."""
        points = [tally.points(i) for i in range(len(names))]
        if len(names) == 2:
            return f"{names[0]} {points[0]:g} - {points[1]:g} {names[1]}"
        ranked = sorted(range(len(names)), key=lambda i: -points[i])
        return ", ".join(f"{names[i]} {points[i]:g}" for i in ranked)

    def rating_lines(self, tally: MatchTally, sprt: stats.SprtState | None) -> list[str]:
        """The Elo line (two engines; with the SPRT's line) or the ranking (more engines)."""
        names = self._names
        if len(names) == 2:
            encounter = tally.encounters.get((0, 1))
            if encounter is None:
                return [elo_line(None, stats.WDL())]
            lines = [elo_line(encounter.elo(), encounter.wdl)]
            return lines + ([sprt_line(sprt)] if sprt is not None else [])
        width = max(4, *(len(n) for n in names))
        lines = [
            f"Rank {'Name':<{width}} {'Elo':>7} {'+/-':>7} {'Games':>6} {'Score':>7} {'Draws':>7}"
            f" {'Points':>7}"
        ]
        # As cutechess ranks: by score ratio, engines with no game last.
        ranked = sorted(
            range(len(names)),
            key=lambda i: -tally.points(i) / tally.wdl(i).games if tally.wdl(i).games else 1,
        )
        for rank, i in enumerate(ranked, 1):
            wdl = tally.wdl(i)
            estimate = stats.elo_estimate(tally.pentanomial_of(i))
            elo, margin = ("-", "-")
            if estimate is not None:
                elo, margin = stats.format_elo(estimate.elo), f"{estimate.margin:.1f}"
            score = f"{100 * wdl.points / wdl.games:.1f}%" if wdl.games else "-"
            draws = f"{100 * wdl.draws / wdl.games:.1f}%" if wdl.games else "-"
            lines.append(
                f"{rank:>4} {names[i]:<{width}} {elo:>7} {margin:>7} {wdl.games:>6} {score:>7} {draws:>7}"
                f" {wdl.points:>7g}"
            )
        return lines

    def count_outcome(self, record: GameRecord) -> None:
        """Count how a game ended, for each of its two engines (``-outcomeinterval``)."""
        text = f"{record.result.pgn} {{{record.reason}}}"
        for index in (record.p1_index, record.p2_index):
            self._outcomes.setdefault(index, Counter())[text] += 1

    def outcome_lines(self) -> list[str]:
        """How the games ended, per engine, as cutechess's ``-outcomeinterval`` lists them."""
        lines = []
        for index, name in enumerate(self._names):
            lines.append(f"Player: {name}")
            counts = self._outcomes.get(index, Counter())
            lines += [f'   "{text}": {count}' for text, count in sorted(counts.items())]
        return lines

    def final_lines(self, tally: MatchTally, sprt: stats.SprtState | None) -> list[str]:
        """What cutechess prints when a match ends: the ranking and the outcomes (unless the
        last game just printed them), then ``Finished match``."""
        lines = []
        games = tally.games
        if games and not (self.rating_interval and games % self.rating_interval == 0):
            lines += self.rating_lines(tally, sprt)
        if games and not (self.outcome_interval and games % self.outcome_interval == 0):
            lines += self.outcome_lines()
        return [*lines, "Finished match"]

    def finished_lines(
        self, record: GameRecord, tally: MatchTally, sprt: stats.SprtState | None = None
    ) -> list[str]:
        """The lines of a finished game, ``tally`` already counting it."""
        lines = [
            f"Finished game {record.id + 1} ({record.p1} vs {record.p2}): "
            f"{record.result.pgn} {{{record.reason}}}"
        ]
        if len(self._names) == 2:
            encounter = tally.encounters.get((0, 1))
            wdl = encounter.wdl if encounter is not None else stats.WDL()
            ratio = wdl.points / wdl.games if wdl.games else 0.5
            lines.append(
                f"Score of {self._names[0]} vs {self._names[1]}: "
                f"{wdl.wins} - {wdl.losses} - {wdl.draws}  [{ratio:.3f}] {wdl.games}"
            )
        self.count_outcome(record)
        interval = bool(self.rating_interval) and tally.games % self.rating_interval == 0
        # The SPRT's decision is told at once (once), with the Elo it was reached at.
        decided = sprt is not None and sprt.verdict is not None and not self._told_decision
        if interval or decided:
            lines += self.rating_lines(tally, sprt)
            self._told_decision = self._told_decision or decided
        if self.outcome_interval and tally.games % self.outcome_interval == 0:
            lines += self.outcome_lines()
        return lines

    # --- the run -----------------------------------------------------------------------------
    def begin(
        self,
        names: Sequence[str],
        total: int,
        tally: MatchTally,
        rating_interval: int = 10,
        outcome_interval: int = 0,
    ) -> None:
        """A run starts: ``total`` games in the schedule, ``tally`` counts those finished (also
        before this run); the bar and its timer start if wanted."""
        with self._lock:
            self._names = tuple(names)
            self._total = total
            self._tally = tally
            self.rating_interval = rating_interval
            self.outcome_interval = outcome_interval
            if not self.progress or self._bar is not None:
                return
            self._bar = _Bar(
                total=total,
                initial=tally.games,
                file=sys.stderr,
                dynamic_ncols=True,
                leave=False,
                smoothing=0,  # the time left from the mean rate of this run's games
                mininterval=0,
                bar_format=self._bar_format(),
            )
            self._stopping.clear()
            self._ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._ticker.start()

    def started(self, game_id: int, p1: int, p2: int) -> None:
        """A game is handed to a worker."""
        with self._lock:
            self.running += 1
            self.say(
                f"Started game {game_id + 1} of {self._total} ({self._names[p1]} vs {self._names[p2]})"
            )

    def finished(self, record: GameRecord, sprt: stats.SprtState | None = None) -> None:
        """A game finished and was counted in the tally given to :meth:`begin`."""
        with self._lock:
            self.running = max(0, self.running - 1)
            for line in self.finished_lines(record, self._tally, sprt):
                self.say(line)
            if self._bar is not None:
                self._bar.n = self._tally.games
                self._redraw()

    def say(self, text: str) -> None:
        """A line of its own (the bar, if shown, is cleared first and redrawn after)."""
        with self._lock:
            if self._bar is None:
                self.emit(text)
                return
            with _Bar.external_write_mode(file=sys.stdout):
                self.emit(text)

    def end(self) -> None:
        """The run is over: stop the timer and erase the bar (the summary follows)."""
        self._stopping.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None

    # --- the bar -----------------------------------------------------------------------------
    def _tick(self) -> None:
        while not self._stopping.wait(self.refresh_s):
            with self._lock:
                if self._bar is not None:
                    self._redraw()
                    self.ticks += 1

    def _bar_format(self, columns: int = 80) -> str:
        """The longest of the bar's layouts that fits ``columns`` with a bar of at least
        :data:`MIN_BAR` columns (the last one, with no bar, is cut by tqdm if need be)."""
        running = f"{self.running} running"
        layouts = [
            f"{{n_fmt}}/{{total_fmt}} |{{bar}}| {{elapsed}} elapsed, {{remaining}} left, {running}{{postfix}}",
            f"{{n_fmt}}/{{total_fmt}} |{{bar}}| {{elapsed}} elapsed, {{remaining}} left, {running}",
            f"{{n_fmt}}/{{total_fmt}} |{{bar}}| {{elapsed}}<{{remaining}}, {running}",
            f"{{n_fmt}}/{{total_fmt}} {{elapsed}}<{{remaining}}, {running}",
        ]
        if self._bar is None:
            return layouts[0]
        values = self._bar.format_dict
        for layout in layouts[:-1]:
            text = _Bar.format_meter(
                **{**values, "ncols": None, "bar_format": layout.replace("|{bar}|", "")}
            )
            if disp_len(text) + 2 + MIN_BAR <= columns - 1:  # tqdm leaves the last column free
                return layout
        return layouts[-1]

    def _redraw(self) -> None:
        bar = self._bar
        if bar is None:
            return
        bar.set_postfix_str(self.score_line(self._names, self._tally), refresh=False)
        bar.bar_format = self._bar_format(_columns())
        bar.refresh()
