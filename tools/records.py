"""Game records: JSON lines (the authority, used by ``--resume``) and a PGN-like text.

Each finished game is one JSON object on one line, appended with flush + fsync. A referee
killed mid-write leaves at most a truncated last line, which :func:`read_games` ignores (and
:func:`repair_jsonl` cuts off). The PGN file is derived: it can always be rebuilt from the JSON
lines (:func:`pgn_text`), which is what a resume does, so the two never disagree.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any


def append_line(path: str, text: str) -> None:
    """Append text durably (flush + fsync) so a crash right after loses nothing."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def append_game(jsonl_path: str, pgn_path: str, record: dict[str, Any]) -> None:
    """Append one game: the JSON line first (the authority), then its PGN text."""
    append_line(jsonl_path, json.dumps(record, sort_keys=True) + "\n")
    append_line(pgn_path, pgn_text(record) + "\n")


def read_games(jsonl_path: str) -> list[dict[str, Any]]:
    """The complete game records of a JSON-lines file, in file order; a truncated or
    unparsable line (a crash mid-write) is skipped, as is a second record of the same id."""
    games: list[dict[str, Any]] = []
    seen: set[int] = set()
    try:
        with open(jsonl_path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().split("\n")
    except FileNotFoundError:
        return games
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if (
            not isinstance(record, dict)
            or not isinstance(record.get("id"), int)
            or record["id"] in seen
        ):
            continue
        seen.add(record["id"])
        games.append(record)
    return games


def rewrite_games(jsonl_path: str, pgn_path: str, games: Iterable[dict[str, Any]]) -> None:
    """Rewrite both files from complete records (atomically: temp file + rename)."""
    games = list(games)
    for path, body in (
        (jsonl_path, "".join(json.dumps(g, sort_keys=True) + "\n" for g in games)),
        (pgn_path, "".join(pgn_text(g) + "\n" for g in games)),
    ):
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)


def _tag(name: str, value: Any) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _comment(time_ms: int, score: str | None, depth: int | None) -> str:
    """``{0.123s +35/4}``: think time, score from the mover's view, depth."""
    parts = [f"{time_ms / 1000:.3f}s"]
    if score is not None:
        kind, _, value = score.partition(" ")
        n = int(value)
        text = f"{n:+d}" if kind == "cp" else f"#{n}"
        if depth is not None:
            text += f"/{depth}"
        parts.append(text)
    return "{" + " ".join(parts) + "}"


def pgn_text(record: dict[str, Any]) -> str:
    """A game record as PGN-like text: tags, then numbered moves with ``{time score}`` comments.

    Move numbers count full moves from the game's start position (the opening moves are in the
    Opening tag and also played out, marked by a comment ``{opening}`` after them).
    """
    tags = [
        ("Event", record.get("event", "zengine match")),
        ("Round", f"{record['round'] + 1}.{record['id'] + 1}"),
        ("Date", record.get("date", "????.??.??")),
        ("Variant", record["variant"]),
        ("P1", record["p1"]),
        ("P2", record["p2"]),
        ("Result", record["result"]),
        ("Termination", record["termination"]),
        ("Reason", record["reason"]),
        ("Opening", record["opening"]),
        ("FEN", record["start_fen"]),
        ("TimeControl", record["time_control"]),
        ("PlyCount", len(record["opening_moves"]) + len(record["moves"])),
        ("GameId", record["id"]),
    ]
    lines = [_tag(k, v) for k, v in tags]
    tokens: list[str] = []
    side = record.get("start_side", 0)
    number = 1
    moves = [(m, None) for m in record["opening_moves"]] + list(
        zip(
            record["moves"],
            zip(
                record["times_ms"],
                record["scores"],
                record.get("depths", [None] * len(record["moves"])),
            ),
        )
    )
    for i, (move, info) in enumerate(moves):
        if side == 0:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        tokens.append(move)
        if info is not None:
            tokens.append(_comment(*info))
        elif i == len(record["opening_moves"]) - 1:
            tokens.append("{opening}")
        if side == 1:
            number += 1
        side ^= 1
    tokens.append(record["result"])
    body, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > 79:
            body.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"
