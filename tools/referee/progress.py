"""The games in progress of a match, for those who follow it (``zengine gui --watch DIR``).

While a game is played the referee keeps one small file ``DIR/live/<game id>.json``: the
position the engine to move is thinking on, the last move, both clocks and each engine's last
score and depth. It is written right after the ``go`` (while the engine thinks, off the
referee's own time between a ``bestmove`` and the next ``go``), whole each time through a
rename, so a reader never sees half of it; no fsync (a file left by a crash says only that
a game was on, and the next run clears the folder). The file goes when the game ends: the
finished game is in ``games.jsonl``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The folder of the files, inside the match's folder.
LIVE_DIR = "live"
#: The largest live file read, in bytes (a few hundred are written).
MAX_LIVE_BYTES = 64 * 1024


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
        """Replace the file with ``data``; a failure is ignored (only followers would miss it)."""
        tmp = self.path.with_suffix(".tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(data, separators=(",", ":")))
            os.replace(tmp, self.path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass

    def remove(self) -> None:
        """The game ended: its file goes."""
        for path in (self.path, self.path.with_suffix(".tmp")):
            try:
                os.unlink(path)
            except OSError:
                pass


def clear_live(out_dir: Path) -> None:
    """Remove the live files an earlier run left (a match starts or ends)."""
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
