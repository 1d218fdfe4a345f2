"""Game records: typed in memory, JSON lines on disk (the authority, used by ``--resume``), and
PGN for rating tools and people.

Each finished game is one JSON object on one line, appended with flush + fsync. A referee
killed mid-write leaves at most a truncated last line, which :func:`read_games` ignores (and
a resume cuts off by rewriting the files). The PGN file is derived: it can always be rebuilt
from the JSON lines (:func:`pgn_text`), which is what a resume does, so the two never disagree.

This is where the sentence of how a game ended is made (:func:`reason_text`); everywhere
else an ending is a :class:`~zengine.tools.referee.terminations.Ending`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from zengine.engine.game import GameError, Rules
from zengine.engine.text import REPLACEMENT, writable
from zengine.engine.values import Result, Score, TextError
from zengine.engine.variants import resolve, rules_class
from zengine.tools.referee.config import MatchConfig
from zengine.tools.referee.game import PlayedGame
from zengine.tools.referee.schedule import ScheduledGame
from zengine.tools.referee.terminations import Ending, Termination


class RecordError(ValueError):
    """A JSON record that is not a complete game record (skipped: the game is played again)."""


def reason_text(outcome: Ending, names: tuple[str, str]) -> str:
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
    the address of the cluster worker that played it (None: this machine, not written);
    ``pair_round`` the round its pair began in when that is the round before its own (a pair
    across a round's end; None otherwise, not written)."""

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
    #: Protocol warnings: what an engine did wrong without losing for it, in words naming it.
    warnings: tuple[str, ...] = ()
    worker: str | None = None
    pair_round: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``games.jsonl`` (result ``1-0``, termination the PGN word;
        ``warnings`` only when there are some)."""
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
            warnings=list(self.warnings),
        )
        if self.worker is None:
            del data["worker"]
        if self.pair_round is None:
            del data["pair_round"]
        if not self.warnings:  # kept out when there are none: most records have none
            del data["warnings"]
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
                warnings=tuple(_list(data, "warnings", str)) if "warnings" in data else (),
                worker=_get(data, "worker", str) if data.get("worker") is not None else None,
                pair_round=_get(data, "pair_round", int)
                if data.get("pair_round") is not None
                else None,
            )
        except TextError as exc:
            raise RecordError(str(exc)) from None
        if len(record.encounter) != 2 or not (
            len(record.moves) == len(record.times_ms) == len(record.scores) == len(record.depths)
        ):
            raise RecordError("inconsistent lengths")
        return record

    @property
    def pair_key(self) -> tuple[int, int]:
        """The pair of the game (the round it began in, its number among that round's pairs):
        two games in a row of one encounter, colours swapped."""
        return (self.round if self.pair_round is None else self.pair_round, self.pair)

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
        warnings=played.warnings,
        pair_round=game.pair_round,
    )


# --- files ----------------------------------------------------------------------------------------
#
# A write that fails (a full disk, a quota) leaves the files as they were before it: an append
# is cut back to the old length, a rewrite goes to a temporary file that is removed. The caller
# decides what a failure means (the referee stops the match, keeping the games written).


class RecordsError(ValueError):
    """A games file that cannot be used: unreadable, not a file, or a complete line in it that
    is no game record (a damaged or foreign file; resuming would silently drop games)."""


def append_line(path: str, text: str) -> int:
    """Append text durably (flush + fsync) so a crash right after loses nothing; returns the
    file's length before. If the write fails, the file is cut back to that length (no partial
    line stays, to be glued to the next one) and the OSError is raised."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        size = os.fstat(fd).st_size
        try:
            data = memoryview(text.encode("utf-8"))
            while data:
                data = data[os.write(fd, data) :]
            os.fsync(fd)
        except OSError:
            _cut(fd, size)
            raise
    finally:
        os.close(fd)
    return size


def _cut(fd: int, size: int) -> None:
    """Cut a file back to ``size`` bytes after a failed write (best effort: truncating frees
    space, so it works on a full disk; if it fails too, the reader still skips a line cut short)."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass


def append_game(jsonl_path: str, pgn_path: str, record: GameRecord, site: str = "?") -> None:
    """Append one game: the JSON line first (the authority), then its PGN text. A game is kept
    only if both are written: if the PGN text fails, the JSON line is cut off again."""
    size = append_line(jsonl_path, json.dumps(record.to_json(), sort_keys=True) + "\n")
    try:
        append_line(pgn_path, pgn_text(record, site) + "\n")
    except OSError:
        fd = os.open(jsonl_path, os.O_WRONLY)
        try:
            _cut(fd, size)
        finally:
            os.close(fd)
        raise


def write_atomic(path: str, text: str) -> None:
    """Replace a file's content all at once (temporary file, fsync, rename): a crash or a full
    disk leaves the old content, and no temporary file (it is removed if the write fails)."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_bytes(path: str) -> bytes | None:
    """The bytes of a file of the folder, None if there is none; :class:`RecordsError` if it
    cannot be read or is not a regular file (a FIFO in its place is refused, not waited on)."""
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise RecordsError(f"{path}: not a regular file")
            return handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RecordsError(f"{path}: {exc.strerror or exc}") from None


#: A JSON escape of a surrogate code point (``\ud800``-``\udfff``): only such an escape can
#: bring one into decoded text (encoded surrogates are not UTF-8), and alone it is no character.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def json_value(data: bytes) -> Any:
    """The JSON value of a file's or a line's bytes; :class:`RecordError` if they are not
    UTF-8, not JSON, or hold a lone surrogate (``"\\ud800"``: valid JSON, but text no file,
    page or terminal can carry: the report could not be written)."""
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError("not UTF-8 text") from None
    except (json.JSONDecodeError, RecursionError):  # RecursionError: absurdly deep nesting
        raise RecordError("not JSON") from None
    if _SURROGATE_ESCAPE.search(data):  # rare; an escaped pair (one character) is fine
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except (UnicodeEncodeError, RecursionError):
            raise RecordError("a lone surrogate, not Unicode text") from None
    return value


def _lines(jsonl_path: str) -> tuple[list[tuple[int, bytes]], int]:
    """The non-blank lines of a JSON-lines file with their numbers, and the number of the
    last line (one without its line break, if the file does not end with one)."""
    data = read_bytes(jsonl_path)
    lines = [] if data is None else data.split(b"\n")
    return [(n, line) for n, line in enumerate(lines, 1) if line.strip()], len(lines)


def read_games(jsonl_path: str) -> list[GameRecord]:
    """The game records of a JSON-lines file, in file order (none if there is no file).

    A last line without its line break (a crash mid-write) is skipped unless it is a complete
    record; so is a second record of the same id. Any other line that is not a record (text
    that is not UTF-8 or holds a lone surrogate included) means the file is damaged or not
    ours: :class:`RecordsError` naming the line, not a silent skip that would play those
    games again.
    """
    games: list[GameRecord] = []
    seen: set[int] = set()
    lines, last = _lines(jsonl_path)
    for number, line in lines:
        try:
            record = GameRecord.from_json(json_value(line))
        except RecordError as exc:
            if number == last:  # cut short by a crash
                continue
            raise RecordsError(f"{jsonl_path}:{number}: not a game record ({exc})") from None
        if record.id in seen:
            continue
        seen.add(record.id)
        games.append(record)
    return games


@dataclass
class RecordObjects:
    """A games file as a reader that shows damage instead of refusing it (the report) sees
    it: each record's JSON object (the first of its id) in file order, and how many lines
    were left out as damaged (no JSON object with an integer ``id``, text that is not UTF-8
    or holds a lone surrogate) or as a repeated id."""

    objects: list[dict[str, Any]]
    damaged: int
    repeated: int


def read_record_objects(jsonl_path: str) -> RecordObjects:
    """The record objects of a JSON-lines file (:class:`RecordObjects`); the fields of each
    are not checked. :class:`RecordsError` if the file cannot be read."""
    read = RecordObjects([], 0, 0)
    seen: set[int] = set()
    for _number, line in _lines(jsonl_path)[0]:
        try:
            data = json_value(line)
        except RecordError:
            data = None
        game_id = data.get("id") if isinstance(data, dict) else None
        if not isinstance(game_id, int) or isinstance(game_id, bool):
            read.damaged += 1
        elif game_id in seen:
            read.repeated += 1
        else:
            seen.add(game_id)
            read.objects.append(data)
    return read


def rewrite_games(
    jsonl_path: str, pgn_path: str, games: Iterable[GameRecord], site: str = "?"
) -> None:
    """Rewrite both files from complete records (each atomically: temporary file + rename)."""
    games = list(games)
    write_atomic(jsonl_path, "".join(json.dumps(g.to_json(), sort_keys=True) + "\n" for g in games))
    write_atomic(pgn_path, "".join(pgn_text(g, site) + "\n" for g in games))


# --- PGN --------------------------------------------------------------------------------------------
#
# What rating tools (Ordo, BayesElo) and cutechess users expect: the Seven Tag Roster first,
# White = the game's player 1 and Black = player 2 whatever the game calls its colours,
# cutechess's time-control tags and move comments, tag values escaped per the PGN standard,
# movetext lines under 80 columns.

#: The widest movetext line: PGN export format keeps lines under 80 columns.
PGN_WIDTH = 79


def tag_value(text: str) -> str:
    """A PGN tag's string: backslash and double quote escaped by a backslash (the standard's
    only escapes), unwritable characters replaced, so the tag is one well-formed line."""
    return writable(text).replace("\\", "\\\\").replace('"', '\\"')


def _tag(name: str, value: Any) -> str:
    return f'[{name} "{tag_value(str(value))}"]'


def _comment_text(text: str) -> str:
    """Text for a ``{...}`` comment, which ends at the first ``}``: braces are replaced too
    (some readers, cutechess's among them, count nested ``{`` as well)."""
    return writable(text).replace("}", REPLACEMENT).replace("{", REPLACEMENT)


def _seconds(ms: int) -> str:
    """Think time as cutechess writes it: more decimals for shorter times, ``0s`` for none."""
    if ms == 0:
        return "0s"
    decimals = 3 if ms < 100 else 2 if ms < 1000 else 1 if ms < 10_000 else 0
    return f"{ms / 1000:.{decimals}f}s"


def move_comment(time_ms: int, score: Score | None, depth: int | None) -> str:
    """A move's comment as cutechess writes it: ``+0.46/3 0.47s`` (score in pawns from the
    mover's view, ``+M3``/``-M3`` for mates, depth, think time); ``0.47s`` without a score."""
    if score is None:
        return _seconds(time_ms)
    text = score.pawns_text()
    if depth is not None:
        text += f"/{depth}"
    return f"{text} {_seconds(time_ms)}"


@functools.lru_cache(maxsize=64)
def _colours(variant_name: str) -> tuple[str, str] | None:
    """The game's names of its two players (``Red``, ``Blue``), None if the game is unknown
    here (a record of a game no longer installed still gets its PGN)."""
    try:
        game, _options = resolve(variant_name)
        return rules_class(game).player_names
    except GameError:
        return None


@dataclass(frozen=True)
class SideLimits:
    """One engine's limits as the PGN tags show them: the clock as cutechess writes it
    (``40/60+0.5``, ``0.5/move`` for a fixed time per move, ``-`` for none) and the fixed
    depth and node limits."""

    clock: str = "-"
    depth: str | None = None
    nodes: str | None = None

    @staticmethod
    def parse(text: str) -> SideLimits:
        """The limits of one engine's part of a record's ``time_control`` (the words of
        ``EngineLimits.text()``: ``10+0.1 depth=3``, ``st=0.5``, ``nodes=500``, ``-``)."""
        clock, depth, nodes = "-", None, None
        for word in text.split():
            key, sep, value = word.partition("=")
            if not sep:
                clock = word if word != "-" else clock
            elif key == "st":
                clock = f"{value}/move"
            elif key == "depth":
                depth = value
            elif key == "nodes":
                nodes = value
        return SideLimits(clock, depth, nodes)


def limit_tags(time_control: str) -> list[tuple[str, str]]:
    """``TimeControl`` (or cutechess's ``WhiteTimeControl``/``BlackTimeControl`` when the two
    engines' clocks differ), then ``Depth``/``Nodes`` (or ``White...``/``Black...``) for fixed
    search limits. ``time_control`` is a record's: one engine's limits, or ``p1 : p2``."""
    parts = time_control.split(" : ")
    white = SideLimits.parse(parts[0])
    black = SideLimits.parse(parts[1]) if len(parts) == 2 else white
    tags: list[tuple[str, str]] = []
    for name in ("clock", "depth", "nodes"):
        tag = "TimeControl" if name == "clock" else name.capitalize()
        mine, theirs = getattr(white, name), getattr(black, name)
        if mine == theirs:
            if mine is not None:
                tags.append((tag, mine))
            continue
        for side, value in (("White", mine), ("Black", theirs)):
            if value is not None:
                tags.append((side + tag, value))
    return tags


#: The tags of cutechess's minimal PGN (``-pgnout FILE min``), in its order: the Seven Tag
#: Roster, then what replaying the game needs (cutechess's ``PgnGame::write``, Minimal mode).
MINIMAL_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "FEN", "SetUp",
                "Variant")  # fmt: skip
#: The result of a game that did not finish, as PGN writes it.
UNFINISHED = "*"


def pgn_tags(
    record: GameRecord, site: str = "?", abandoned: str | None = None
) -> list[tuple[str, str]]:
    """A record's tag pairs, the Seven Tag Roster first, in the order they are written. With
    ``abandoned`` (why), the game did not finish: result ``*``, termination ``abandoned``."""
    result, termination, reason = record.result.pgn, record.termination.value, record.reason
    if abandoned is not None:
        result, termination, reason = UNFINISHED, Termination.ABANDONED.value, abandoned
    tags = [
        ("Event", record.event),
        ("Site", site),
        ("Date", record.date),
        ("Round", f"{record.round + 1}.{record.id + 1}"),
        ("White", record.p1),
        ("Black", record.p2),
        ("Result", result),
        ("Variant", record.variant),
        ("P1", record.p1),
        ("P2", record.p2),
    ]
    colours = _colours(record.variant_name)
    if colours is not None and colours != ("White", "Black"):
        tags += [("WhiteColour", colours[0]), ("BlackColour", colours[1])]
    tags += [
        ("Termination", termination),
        ("Reason", reason),
        ("Opening", record.opening),
        ("SetUp", "1"),
        ("FEN", record.start_fen),
        *limit_tags(record.time_control),
        ("PlyCount", str(len(record.opening_moves) + len(record.moves))),
        ("GameId", str(record.id)),
    ]
    return tags


def _comment_words(text: str) -> list[str]:
    """A comment as wrappable tokens (a brace comment may span lines); a word too long for a
    line is cut, which only a comment may suffer."""
    words = []
    for word in f"{{{_comment_text(text)}}}".split():
        while len(word) >= PGN_WIDTH:  # room for the indent of _wrap
            words.append(word[: PGN_WIDTH - 1])
            word = word[PGN_WIDTH - 1 :]
        words.append(word)
    return words


def _wrap(tokens: Iterable[str]) -> list[str]:
    """Tokens joined by spaces into lines of at most :data:`PGN_WIDTH` characters. A line never
    starts with ``%`` (the standard's escape: the line would be skipped) or ``[`` (a reader
    would take it for a tag): such a token is indented by one space."""
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) <= PGN_WIDTH:
            line = f"{line} {token}"
            continue
        if line:
            lines.append(line)
        line = f" {token}" if token[0] in "%[" else token
    lines.append(line)
    return lines


def pgn_text(
    record: GameRecord, site: str = "?", minimal: bool = False, abandoned: str | None = None
) -> str:
    """A game record as PGN: tags, then the numbered moves in the game's own notation, each
    with cutechess's comment (``{book}`` for the opening's moves), then the reason the game
    ended as a comment and the result.

    Move numbers count full moves from the game's start position, as PGN does (``1. a1xa2
    b3xb2 2. ...``; ``1...`` first when player 2 moves first). ``minimal`` is cutechess's
    ``-pgnout FILE min``: the tags of :data:`MINIMAL_TAGS` and the moves alone, no comment.
    With ``abandoned`` (why), the game did not finish: its moves so far, result ``*``.
    """
    comments = not minimal
    tokens: list[str] = []
    side = record.start_side
    number = 1
    played = zip(record.moves, zip(record.times_ms, record.scores, record.depths))
    moves: list[tuple[str, tuple[int, Score | None, int | None] | None]] = [
        *((m, None) for m in record.opening_moves),
        *played,
    ]
    for i, (move, info) in enumerate(moves):
        if side == 0:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        tokens.append(move)
        if comments:
            tokens += _comment_words("book" if info is None else move_comment(*info))
        if side == 1:
            number += 1
        side ^= 1
    tags = pgn_tags(record, site, abandoned)
    by_name = dict(tags)
    if by_name["Reason"] and comments:
        tokens += _comment_words(by_name["Reason"])
    tokens.append(by_name["Result"])
    if minimal:
        tags = [(name, by_name[name]) for name in MINIMAL_TAGS]
    head = "\n".join(_tag(name, value) for name, value in tags)
    return head + "\n\n" + "\n".join(_wrap(tokens)) + "\n"
