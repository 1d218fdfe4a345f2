"""Game records: typed in memory, JSON lines on disk (the authority, used by ``--resume``), and a
PGN-like text.

Each finished game is one JSON object on one line, appended with flush + fsync. A referee
killed mid-write leaves at most a truncated last line, which :func:`read_games` ignores (and
a resume cuts off by rewriting the files). The PGN file is derived: it can always be rebuilt
from the JSON lines (:func:`pgn_text`), which is what a resume does, so the two never disagree.

This is where the sentence of how a game ended is made (:func:`reason_text`); everywhere
else an ending is a :class:`values.Outcome`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from zengine.engine.game import Rules
from zengine.engine.values import Outcome, Result, Score, Termination, TextError
from zengine.tools.config import MatchConfig
from zengine.tools.referee import PlayedGame
from zengine.tools.schedule import ScheduledGame


class RecordError(ValueError):
    """A JSON record that is not a complete game record (skipped: the game is played again)."""


def reason_text(outcome: Outcome, names: tuple[str, str]) -> str:
    """How a game ended, in words: the rule's own word for an ending by the rules; otherwise
    the referee's detail, said of the side that lost (``X lost on time: ...``) if one did."""
    if outcome.termination is Termination.RULES:
        return outcome.reason()
    winner = outcome.winner
    if winner is None:
        return outcome.detail or outcome.termination.value
    return f"{names[1 - winner]} {outcome.detail}".rstrip()


@dataclass(frozen=True)
class GameRecord:
    """One finished game as the files keep it. ``p1_index``/``p2_index`` are engine numbers of
    the configuration; ``scores`` are what the mover reported (None: no score); ``worker`` is
    the address of the cluster worker that played it (None: this machine, not written)."""

    id: int
    round: int
    pair: int
    encounter: tuple[int, int]
    opening_index: int
    event: str
    date: str
    variant: str
    variant_name: str
    p1: str
    p2: str
    p1_index: int
    p2_index: int
    result: Result
    termination: Termination
    reason: str
    opening: str
    opening_moves: tuple[str, ...]
    start_fen: str
    final_fen: str
    start_side: int
    moves: tuple[str, ...]
    times_ms: tuple[int, ...]
    scores: tuple[Score | None, ...]
    depths: tuple[int | None, ...]
    time_control: str
    overhead_ms: float
    overhead_moves: int
    worker: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``games.jsonl`` (result ``1-0``, termination the PGN word)."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data.update(
            encounter=list(self.encounter),
            result=self.result.pgn,
            termination=self.termination.value,
            opening_moves=list(self.opening_moves),
            moves=list(self.moves),
            times_ms=list(self.times_ms),
            scores=[None if s is None else s.format() for s in self.scores],
            depths=list(self.depths),
        )
        if self.worker is None:
            del data["worker"]
        return data

    @staticmethod
    def from_json(data: Any) -> GameRecord:
        """The record of a JSON object; :class:`RecordError` if it is not a complete one."""
        if not isinstance(data, Mapping):
            raise RecordError("not an object")
        try:
            moves = _list(data, "moves", str)
            scores = tuple(
                None if s is None else Score.parse(s) for s in _list(data, "scores", str, True)
            )
            record = GameRecord(
                id=_get(data, "id", int),
                round=_get(data, "round", int),
                pair=_get(data, "pair", int),
                encounter=tuple(_list(data, "encounter", int)),
                opening_index=_get(data, "opening_index", int),
                event=str(data.get("event", "zengine match")),
                date=str(data.get("date", "????.??.??")),
                variant=_get(data, "variant", str),
                variant_name=str(data.get("variant_name", "")),
                p1=_get(data, "p1", str),
                p2=_get(data, "p2", str),
                p1_index=_get(data, "p1_index", int),
                p2_index=_get(data, "p2_index", int),
                result=_result(_get(data, "result", str)),
                termination=_termination(_get(data, "termination", str)),
                reason=_get(data, "reason", str),
                opening=_get(data, "opening", str),
                opening_moves=tuple(_list(data, "opening_moves", str)),
                start_fen=_get(data, "start_fen", str),
                final_fen=str(data.get("final_fen", "")),
                start_side=_get(data, "start_side", int, 0),
                moves=tuple(moves),
                times_ms=tuple(_list(data, "times_ms", int)),
                scores=scores,
                depths=tuple(_list(data, "depths", int, True))
                if "depths" in data
                else (None,) * len(moves),
                time_control=_get(data, "time_control", str),
                overhead_ms=float(_get(data, "overhead_ms", int | float, 0.0)),
                overhead_moves=_get(data, "overhead_moves", int, 0),
                worker=_get(data, "worker", str) if data.get("worker") is not None else None,
            )
        except TextError as exc:
            raise RecordError(str(exc)) from None
        if len(record.encounter) != 2 or not (
            len(record.moves) == len(record.times_ms) == len(record.scores) == len(record.depths)
        ):
            raise RecordError("inconsistent lengths")
        return record

    def score_of(self, engine: int) -> float:
        """The points (1, 1/2, 0) engine number ``engine`` made in this game."""
        winner = self.result.winner
        if winner is None:
            return 0.5
        return 1.0 if (self.p1_index, self.p2_index)[winner] == engine else 0.0


_MISSING = object()


def _get(data: Mapping[str, Any], key: str, kind: Any, default: Any = _MISSING) -> Any:
    """``data[key]`` of type ``kind`` (``default`` if absent and given); RecordError otherwise."""
    value = data.get(key, default)
    if value is _MISSING or not isinstance(value, kind) or isinstance(value, bool):
        raise RecordError(f"'{key}' is missing or of the wrong type")
    return value


def _result(text: str) -> Result:
    try:
        return Result.from_pgn(text)
    except ValueError as exc:  # from_pgn's own error: not a result
        raise RecordError(str(exc)) from None


def _termination(text: str) -> Termination:
    try:
        return Termination.from_tag(text)
    except ValueError as exc:  # from_tag's own error: not a termination
        raise RecordError(str(exc)) from None


def _list(data: Mapping[str, Any], key: str, kind: type, nullable: bool = False) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list) or not all(
        (v is None and nullable) or (isinstance(v, kind) and not isinstance(v, bool)) for v in value
    ):
        raise RecordError(f"'{key}' is missing or not a list of {kind.__name__}s")
    return value


def make_record(
    config: MatchConfig, game: ScheduledGame, rules: Rules, played: PlayedGame
) -> GameRecord:
    """The record of a scheduled game as it was played."""
    names = (config.engines[game.p1].name, config.engines[game.p2].name)
    limits = (config.engines[game.p1].limits, config.engines[game.p2].limits)
    overhead = played.overhead_s
    opening = game.opening
    start = rules.parse_position(opening.fen) if opening.fen is not None else rules.start()
    return GameRecord(
        id=game.id,
        round=game.round,
        pair=game.pair,
        encounter=game.encounter,
        opening_index=game.opening_index,
        event=config.event,
        date=datetime.now(UTC).strftime("%Y.%m.%d"),
        variant=rules.describe(),
        variant_name=rules.name,
        p1=names[0],
        p2=names[1],
        p1_index=game.p1,
        p2_index=game.p2,
        result=played.outcome.result,
        termination=played.outcome.termination,
        reason=reason_text(played.outcome, names),
        opening=opening.text(),
        opening_moves=opening.moves,
        start_fen=played.start_fen,
        final_fen=played.final_fen,
        start_side=start.side_to_move,
        moves=played.moves,
        times_ms=played.times_ms,
        scores=played.scores,
        depths=played.depths,
        time_control=(
            limits[0].text()
            if limits[0] == limits[1]
            else f"{limits[0].text()} : {limits[1].text()}"
        ),
        overhead_ms=(sum(overhead) / len(overhead) * 1000) if overhead else 0.0,
        overhead_moves=len(overhead),
    )


# --- files ----------------------------------------------------------------------------------------


def append_line(path: str, text: str) -> None:
    """Append text durably (flush + fsync) so a crash right after loses nothing."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def append_game(jsonl_path: str, pgn_path: str, record: GameRecord) -> None:
    """Append one game: the JSON line first (the authority), then its PGN text."""
    append_line(jsonl_path, json.dumps(record.to_json(), sort_keys=True) + "\n")
    append_line(pgn_path, pgn_text(record) + "\n")


def read_games(jsonl_path: str) -> list[GameRecord]:
    """The complete game records of a JSON-lines file, in file order; a truncated or
    unreadable line (a crash mid-write) is skipped, as is a second record of the same id."""
    games: list[GameRecord] = []
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
            record = GameRecord.from_json(json.loads(line))
        except (json.JSONDecodeError, RecordError):
            continue
        if record.id in seen:
            continue
        seen.add(record.id)
        games.append(record)
    return games


def rewrite_games(jsonl_path: str, pgn_path: str, games: Iterable[GameRecord]) -> None:
    """Rewrite both files from complete records (atomically: temp file + rename)."""
    games = list(games)
    for path, body in (
        (jsonl_path, "".join(json.dumps(g.to_json(), sort_keys=True) + "\n" for g in games)),
        (pgn_path, "".join(pgn_text(g) + "\n" for g in games)),
    ):
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)


# --- PGN --------------------------------------------------------------------------------------------


def _tag(name: str, value: Any) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _comment(time_ms: int, score: Score | None, depth: int | None) -> str:
    """``{0.123s +35/4}``: think time, score from the mover's view (``#3`` a mate), depth."""
    parts = [f"{time_ms / 1000:.3f}s"]
    if score is not None:
        text = f"#{score.mate}" if score.mate is not None else f"{score.cp:+d}"
        if depth is not None:
            text += f"/{depth}"
        parts.append(text)
    return "{" + " ".join(parts) + "}"


def pgn_text(record: GameRecord) -> str:
    """A game record as PGN-like text: tags, then numbered moves with ``{time score}`` comments.

    Move numbers count full moves from the game's start position (the opening moves are in the
    Opening tag and also played out, marked by a comment ``{opening}`` after them).
    """
    tags = [
        ("Event", record.event),
        ("Round", f"{record.round + 1}.{record.id + 1}"),
        ("Date", record.date),
        ("Variant", record.variant),
        ("P1", record.p1),
        ("P2", record.p2),
        ("Result", record.result.pgn),
        ("Termination", record.termination.value),
        ("Reason", record.reason),
        ("Opening", record.opening),
        ("FEN", record.start_fen),
        ("TimeControl", record.time_control),
        ("PlyCount", len(record.opening_moves) + len(record.moves)),
        ("GameId", record.id),
    ]
    lines = [_tag(k, v) for k, v in tags]
    tokens: list[str] = []
    side = record.start_side
    number = 1
    moves: list[tuple[str, tuple[int, Score | None, int | None] | None]] = [
        (m, None) for m in record.opening_moves
    ]
    moves += list(zip(record.moves, zip(record.times_ms, record.scores, record.depths)))
    for i, (move, info) in enumerate(moves):
        if side == 0:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        tokens.append(move)
        if info is not None:
            tokens.append(_comment(*info))
        elif i == len(record.opening_moves) - 1:
            tokens.append("{opening}")
        if side == 1:
            number += 1
        side ^= 1
    tokens.append(record.result.pgn)
    body, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > 79:
            body.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"
