"""``zengine gui --watch DIR``: follow a ``zengine match --out DIR`` as it plays.

The referee writes what this needs as it plays: ``config.json`` (engines, game), the finished
games (``games.jsonl``) and one small live file per game in progress
(:mod:`tools.referee.progress`). The watcher looks at the folder a few times a second (a
``stat`` and a directory listing when nothing changed) and pushes the whole picture to the
pages when something did.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zengine.engine.game import GameError, Rules
from zengine.tools.referee.config import ConfigError
from zengine.tools.referee.folder import GAMES_FILE, read_config
from zengine.tools.referee.progress import LIVE_DIR, read_live
from zengine.tools.referee.records import GameRecord, read_games

#: How often the folder is looked at, in seconds.
LOOK_EVERY_S = 0.25
#: Finished games listed, the latest last.
FINISHED_SHOWN = 50
#: Width of the small boards, in pixels.
BOARD_SIZE = 300


class Watcher:
    """The match in a folder, as the pages show it."""

    def __init__(self, folder: str, publish: Callable[[dict[str, Any]], None]) -> None:
        self.folder = Path(folder)
        self.publish = publish
        self._seen: tuple[Any, ...] | None = None
        self._picture: dict[str, Any] = self._empty("waiting for the match to start")

    def _empty(self, status: str) -> dict[str, Any]:
        return {
            "type": "watch",
            "title": f"Match in {self.folder}",
            "status": status,
            "standings": [],
            "live": [],
            "finished": [],
        }

    def snapshot(self) -> dict[str, Any]:
        """What a page shows now."""
        return self._picture

    async def run(self) -> None:
        """Look at the folder until cancelled, pushing each change."""
        while True:
            seen = self._look()
            if seen != self._seen:
                self._seen = seen
                self._picture = await asyncio.to_thread(self._read)
                self.publish(self._picture)
            await asyncio.sleep(LOOK_EVERY_S)

    def _look(self) -> tuple[Any, ...]:
        """What tells a change: the games file's size and time, the live files' names and times."""
        marks: list[Any] = []
        for path in (self.folder / GAMES_FILE, self.folder / "config.json"):
            try:
                st = path.stat()
                marks.append((st.st_size, st.st_mtime_ns))
            except OSError:
                marks.append(None)
        live = self.folder / LIVE_DIR
        try:
            with os.scandir(live) as entries:
                for entry in entries:
                    if entry.name.endswith(".json"):
                        try:
                            marks.append((entry.name, entry.stat().st_mtime_ns))
                        except OSError:
                            pass
        except OSError:
            pass
        return tuple(sorted(marks, key=repr))

    def _read(self) -> dict[str, Any]:
        try:
            config = read_config(self.folder)
        except ConfigError:
            return self._empty(f"no match in {self.folder} yet (waiting for its config.json)")
        rules = config.make_rules()
        try:
            games = read_games(str(self.folder / GAMES_FILE))
        except (OSError, ValueError):
            games = []
        picture = self._empty("")
        picture["title"] = (
            f"Match in {self.folder}: {rules.describe()}, {' vs '.join(config.names)}"
        )
        picture["standings"] = _standings(config.names, games)
        live = [_live_game(rules, data) for data in read_live(self.folder)]
        picture["live"] = [g for g in live if g is not None]
        picture["finished"] = [
            {"id": g.id, "p1": g.p1, "p2": g.p2, "result": g.result.pgn, "reason": g.reason}
            for g in games[-FINISHED_SHOWN:]
        ]
        picture["status"] = f"{len(games)} games finished, {len(picture['live'])} in progress"
        return picture


def _standings(names: tuple[str, ...], games: list[GameRecord]) -> list[dict[str, Any]]:
    rows = []
    for index, name in enumerate(names):
        played = [g for g in games if index in (g.p1_index, g.p2_index)]
        points = sum(g.score_of(index) for g in played)
        percent = f"{100 * points / len(played):.1f}%" if played else "-"
        rows.append({"name": name, "games": len(played), "points": points, "percent": percent})
    return rows


def _live_game(rules: Rules, data: dict[str, Any]) -> dict[str, Any] | None:
    """A live file as the page shows it (None for one that does not read)."""
    try:
        state = rules.parse_position(str(data["fen"]))
        last = None
        if isinstance(data.get("last"), str):
            try:
                last = state.parse_last_move(data["last"])
            except GameError:
                last = None
        sides = data["sides"]
        return {
            "id": int(data["id"]),
            "p1": str(sides[0]["name"]),
            "p2": str(sides[1]["name"]),
            "ply": int(data["ply"]),
            "svg": state.svg(BOARD_SIZE, last),
            "sides": [
                {
                    "name": str(s["name"]),
                    "clock": s.get("clock"),
                    "score": s.get("score"),
                    "depth": s.get("depth"),
                }
                for s in sides
            ],
        }
    except (GameError, KeyError, IndexError, TypeError, ValueError):
        return None
