"""The games in progress of a match, for those who follow it (``zengine gui --watch DIR``).

While a game is played the referee keeps one small file ``DIR/live/<game id>.json``: the
position the engine to move is thinking on, the last move, both clocks and each engine's last
score and depth. It is handed over right after the ``go`` and written by a thread of its own
(:class:`LiveWriter`), whole each time through a rename, so a reader never sees half of it;
no fsync (a file left by a crash says only that a game was on, and the next run clears the
folder). Why a thread: a rename over an existing file took 0.9 to 1.7 ms on this machine's ext4
(measured), time the referee would lose reading the engine's answer, which it stamps and
charges to the engine's clock. The writer keeps only each game's newest state, so a slow disk
delays the followers, never the match. The file goes when the game ends: the finished game is in
``games.jsonl``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The folder of the files, inside the match's folder.
LIVE_DIR = "live"
#: The writer writes at most this often, in seconds (followers look some four times a second).
WRITE_EVERY_S = 0.2
#: The largest live file read, in bytes (a few hundred are written).
MAX_LIVE_BYTES = 64 * 1024


class LiveWriter:
    """The thread that writes the live files: the newest state of each game, or its removal."""

    def __init__(self) -> None:
        self._pending: dict[Path, dict[str, Any] | None] = {}
        self._busy = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def post(self, path: Path, data: dict[str, Any] | None) -> None:
        """Write ``data`` to ``path`` soon (None: remove it), replacing what waits for it."""
        with self._cond:
            self._pending[path] = data
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="live-files", daemon=True)
                self._thread.start()
            self._cond.notify()

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until everything posted is written (at most ``timeout`` seconds)."""
        with self._cond:
            self._cond.wait_for(lambda: not self._pending and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._pending))
                batch = list(self._pending.items())
                self._pending.clear()
                self._busy += 1
            try:
                for path, data in batch:
                    if data is None:
                        _remove(path)
                    else:
                        _write(path, data)
            finally:
                with self._cond:
                    self._busy -= 1
                    self._cond.notify_all()
            # The states posted meanwhile wait and are written together, newest only: the
            # thread wakes at most this often, whatever the pace of the games.
            time.sleep(WRITE_EVERY_S)


#: The one writer of this process.
WRITER = LiveWriter()


def _write(path: Path, data: dict[str, Any]) -> None:
    """Replace the file with ``data``; a failure is ignored (only followers would miss it)."""
    tmp = path.with_suffix(".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, separators=(",", ":")))
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _remove(path: Path) -> None:
    for name in (path, path.with_suffix(".tmp")):
        try:
            os.unlink(name)
        except OSError:
            pass


@dataclass
class Progress:
    """One game's live file (``None`` for a file not to be kept: no folder)."""

    path: Path

    @staticmethod
    def open(out_dir: Path | None, game_id: int) -> Progress | None:
        """The live file of game ``game_id`` in the match folder ``out_dir`` (None: none)."""
        if out_dir is None:
            return None
        folder = out_dir / LIVE_DIR
        try:
            folder.mkdir(exist_ok=True)
        except OSError:
            return None  # followers see less; the match itself goes on
        return Progress(folder / f"{game_id}.json")

    def write(self, data: dict[str, Any]) -> None:
        """Replace the file with ``data`` (by the writer's thread)."""
        WRITER.post(self.path, data)

    def remove(self) -> None:
        """The game ended: its file goes."""
        WRITER.post(self.path, None)


def clear_live(out_dir: Path) -> None:
    """Remove the live files an earlier run left (a match starts or ends), once the writer
    wrote what it had."""
    WRITER.flush()
    folder = out_dir / LIVE_DIR
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.endswith((".json", ".tmp")):
            try:
                os.unlink(folder / name)
            except OSError:
                pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def read_live(out_dir: Path) -> list[dict[str, Any]]:
    """The live files of a match folder, by game id; files that do not read are skipped."""
    folder = out_dir / LIVE_DIR
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    games = []
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            with open(folder / name, encoding="utf-8") as handle:
                data = json.loads(handle.read(MAX_LIVE_BYTES))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), int):
            games.append(data)
    return sorted(games, key=lambda g: g["id"])
