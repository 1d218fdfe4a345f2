"""What a match prints while it runs: a line per finished game with the running score, and a
progress bar on stderr when stderr is a terminal (plain lines otherwise: pipes, logs)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from zengine.tools.records import GameRecord
from zengine.tools.tally import MatchTally


def print_line(line: str) -> None:
    """Print and flush: live lines must not wait in a pipe's buffer."""
    print(line, flush=True)


class LiveOutput:
    """The lines of a running match, through ``emit``; the bar only if ``progress``."""

    def __init__(
        self, emit: Callable[[str], None] = print_line, progress: bool | None = None
    ) -> None:
        self.emit = emit
        self.progress = sys.stderr.isatty() if progress is None else progress

    def score_line(self, names: Sequence[str], tally: MatchTally) -> str:
        """``A 3 - 2 B`` for a match, ``A 4, C 3, B 1`` (best first) for a tournament."""
        points = [tally.points(i) for i in range(len(names))]
        if len(names) == 2:
            return f"{names[0]} {points[0]:g} - {points[1]:g} {names[1]}"
        ranked = sorted(range(len(names)), key=lambda i: -points[i])
        return ", ".join(f"{names[i]} {points[i]:g}" for i in ranked)

    def game_line(self, record: GameRecord, done: int, total: int, score: str) -> str:
        return (
            f"[{done:>{len(str(total))}}/{total}] game {record.id + 1}: {record.p1} vs {record.p2}: "
            f"{record.result.pgn} ({record.termination.value}: {record.reason}), "
            f"{len(record.moves)} plies  | {score}"
        )

    def bar(self, done: int, total: int, score: str) -> None:
        """Redraw the progress bar (nothing unless ``progress``)."""
        if not self.progress:
            return
        filled = int(30 * done / total) if total else 30
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total}  {score}\033[K")
        sys.stderr.flush()

    def clear_bar(self) -> None:
        if self.progress:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()

    def say(self, text: str) -> None:
        """A line of its own (the bar is cleared first; the caller redraws it)."""
        self.clear_bar()
        self.emit(text)
