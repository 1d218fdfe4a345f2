"""Openings and the game schedule: a pure function of the configuration and the seed.

An opening is a start position (a position string, or None for the variant's start) plus
moves. The games of an encounter are counted over its rounds, as cutechess-cli counts them:
game ``n`` of an encounter takes opening ``n // repeat`` (each opening ``repeat`` games in a
row, cutechess's ``-repeat``), and the colours alternate from one game of the encounter to the
next (unless ``-noswap``), so games ``2k`` and ``2k + 1`` form a *pair*, also across a round's
end when a round has an odd number of games. Openings that end the game are skipped. A
:class:`ScheduledGame` carries its opening, so it is all a worker needs to know of the schedule.
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import overload

from zengine.engine.game import GameError, Rules, State, play_texts, sorted_moves
from zengine.tools.referee.config import MatchConfig, OpeningsConfig, OpeningsKind, Tournament


class OpeningError(ValueError):
    """An openings file or setting that cannot be used."""


@dataclass(frozen=True)
class Opening:
    """A start position string (None = the variant's start) and moves played from it."""

    fen: str | None
    moves: tuple[str, ...]

    def text(self) -> str:
        """For the Opening tag: the moves, or the position string with them."""
        moves = " ".join(self.moves)
        if self.fen is None:
            return moves or "startpos"
        return f"{self.fen}{' moves ' + moves if moves else ''}"

    def state(self, rules: Rules) -> State:
        """The position after the opening (moves kept in the history, so repetitions count)."""
        state = rules.parse_position(self.fen) if self.fen is not None else rules.start()
        play_texts(state, self.moves)
        return state


def random_opening(rules: Rules, plies: int, rng: random.Random, attempts: int = 1000) -> Opening:
    """``plies`` uniformly random legal moves from the start; lines that end the game are redrawn."""
    for _ in range(attempts):
        state = rules.start()
        moves: list[str] = []
        for _ in range(plies):
            legal = sorted_moves(state)  # code-point order: the draw depends only on the seed
            if not legal:
                break
            text, move = legal[rng.randrange(len(legal))]
            state.play(move)
            moves.append(text)
        if not state.is_over():
            return Opening(None, tuple(moves))
    raise OpeningError(f"no random opening of {plies} plies that leaves the game unfinished")


def parse_opening_line(rules: Rules, line: str) -> Opening:
    """A line of an openings file: a position string, moves from the start, or
    ``<position string> moves <m>...``. Raises GameError/OpeningError if it is unusable."""
    text = line.strip()
    if " moves " in f" {text} ":
        head, _, tail = f" {text} ".partition(" moves ")
        head, moves = head.strip(), tuple(tail.split())
        if head in ("", "startpos"):
            opening = Opening(None, moves)
        else:
            opening = Opening(head, moves)
        opening.state(rules)
        return opening
    try:
        rules.parse_position(text)
        return Opening(text, ())
    except GameError as position_error:
        moves = tuple(text.split())
        try:
            opening = Opening(None, moves)
            opening.state(rules)
            return opening
        except GameError as move_error:
            index = getattr(move_error, "index", None)  # set by play_texts: the failing move
            if index is None or index == 0:
                # Its first word is no move either: most likely a position string (of any
                # number of fields: Zola's has 2, Zhadu's 5), whose own error says more.
                raise OpeningError(
                    f"neither a position string ({position_error}) nor legal moves from the start"
                ) from None
            # A line of moves with one wrong: name it, not the position string it is not.
            raise OpeningError(
                f"move {index + 1} of the line: {move_error}; nor is the line a position string"
            ) from None


#: An openings file larger than this is refused (a book of a few hundred thousand lines fits);
#: so are longer lines (a legal 20,000-ply Zhadu line is about 120 KB, so a line may be long).
#: Reading is capped, so a wrong path (a log, a disk image) fails at once.
MAX_OPENINGS_BYTES = 64 * 1024 * 1024
MAX_OPENING_LINE = 1_000_000


def openings_digest(path: str) -> str:
    """The SHA-256 (hex) of an openings file's bytes, stored in ``config.json`` when a match
    starts: the schedule is a function of the file's lines, so a resume with an edited file
    would pair games across different openings. OpeningError if it cannot be read."""
    return hashlib.sha256(_book_bytes(path)).hexdigest()


def _book_bytes(path: str) -> bytes:
    """An openings file's bytes, read with a size cap; OpeningError says why not."""
    try:
        # Opened without waiting (a FIFO would wait for a writer), then checked on the open
        # file: a FIFO or a device (/dev/zero) is refused unread.
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise OpeningError(f"openings file '{path}' is not a regular file")
            data = handle.read(MAX_OPENINGS_BYTES + 1)
    except OSError as exc:
        raise OpeningError(f"cannot read openings file '{path}': {exc.strerror}") from None
    if len(data) > MAX_OPENINGS_BYTES:
        raise OpeningError(
            f"openings file '{path}' is larger than {MAX_OPENINGS_BYTES // 2**20} MiB"
        )
    return data


def _book_lines(path: str) -> list[str]:
    """The lines of an openings file, read with a size cap; OpeningError says why not."""
    data = _book_bytes(path)
    lines = data.split(b"\n")
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_OPENING_LINE:
            raise OpeningError(f"{path}:{number}: a line longer than {MAX_OPENING_LINE} characters")
    try:
        # A byte order mark (some editors write one) is no part of the first line.
        return data.decode("utf-8").removeprefix("\ufeff").split("\n")
    except UnicodeDecodeError as exc:
        number = data.count(b"\n", 0, exc.start) + 1
        raise OpeningError(f"{path}:{number}: not UTF-8 text") from None


def read_openings(rules: Rules, path: str, plies: int | None = None) -> tuple[list[Opening], int]:
    """The usable openings of a file (blank and ``#`` lines ignored) and how many ended the game.

    A line that is no position and no legal move sequence is an error (with its line number):
    a typo should not silently shrink the opening book. With ``plies``, each line's moves are
    cut to that many (cutechess's ``plies=``; the whole line is checked first, so a typo past
    the cut is still an error).
    """
    openings: list[Opening] = []
    finished = 0
    for number, line in enumerate(_book_lines(path), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            opening = parse_opening_line(rules, line)
        except (GameError, OpeningError) as exc:
            raise OpeningError(f"{path}:{number}: {exc}") from None
        if plies is not None and len(opening.moves) > plies:
            opening = Opening(opening.fen, opening.moves[:plies])
        if opening.state(rules).is_over():
            finished += 1
            continue
        openings.append(opening)
    if not openings:
        raise OpeningError(
            f"{path}: no usable opening (every line ends the game or the file is empty)"
        )
    return openings, finished


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule. ``id`` is its index; ``p1``/``p2`` are engine indices;
    ``opening`` is opening number ``opening_index`` of the match. Its pair is the
    ``pair``-th of the encounter's pairs that begin in round ``pair_round`` (the game's own
    round, unless the pair began at the end of the round before)."""

    id: int
    round: int
    encounter: tuple[int, int]
    pair: int
    opening_index: int
    p1: int
    p2: int
    opening: Opening
    pair_round: int | None = None  # None: the game's own round


def encounters(engines: int, tournament: Tournament) -> list[tuple[int, int]]:
    """The pairings: one for a match, all pairs for round-robin, engine 0 vs each for gauntlet."""
    if engines < 2:
        raise ValueError("a match needs at least two engines")
    if tournament is Tournament.GAUNTLET:
        return [(0, j) for j in range(1, engines)]
    return [(i, j) for i in range(engines) for j in range(i + 1, engines)]


def openings_needed(rounds: int, games: int, repeat: int = 2) -> int:
    """How many openings a schedule uses: one every ``repeat`` games of an encounter."""
    return -(-rounds * games // repeat)


class Schedule(Sequence[ScheduledGame]):
    """Every game of a match in playing order, made when asked for: per round, per encounter,
    ``games`` games. Game ``n`` of an encounter, counted over the rounds as cutechess-cli
    counts (``n = round * games + g``), takes opening ``n // repeat``, the same for every
    encounter, so each pairing meets the same openings; its colours are swapped when ``n`` is
    odd (with ``swap``), so games ``2k`` and ``2k + 1`` are a pair. ``opening(i)`` gives
    opening ``i``.

    Nothing is drawn ahead: a schedule of a million games costs nothing until its games are
    played (drawing them all took over a minute before the first game could start)."""

    def __init__(
        self,
        engines: int,
        tournament: Tournament,
        rounds: int,
        games: int,
        opening: Callable[[int], Opening],
        repeat: int = 2,
        swap: bool = True,
        reverse: bool = False,
    ) -> None:
        self.pairings = encounters(engines, tournament)
        self.rounds = rounds
        self.games = games
        self.opening = opening
        #: Games in a row on one opening (cutechess's ``-repeat``).
        self.repeat = repeat
        #: Colours swapped between an encounter's games (cutechess's ``-noswap`` clears it);
        #: ``reverse``: the second engine of each pairing moves first (``-reverse``).
        self.swap = swap
        self.reverse = reverse

    def __len__(self) -> int:
        return self.rounds * len(self.pairings) * self.games

    def _place(self, index: int) -> tuple[int, int, int]:
        """``(round, pairing, n)`` of game ``index``: ``n`` is its number in its encounter,
        counted over the rounds."""
        rnd, rest = divmod(index, len(self.pairings) * self.games)
        pairing, g = divmod(rest, self.games)
        return rnd, pairing, rnd * self.games + g

    def players(self, index: int) -> tuple[int, int]:
        """``(p1, p2)`` of game ``index``, without its opening."""
        _rnd, pairing, n = self._place(index)
        a, b = self.pairings[pairing]
        flipped = (self.swap and n % 2 == 1) != self.reverse
        return (b, a) if flipped else (a, b)

    @overload
    def __getitem__(self, index: int) -> ScheduledGame: ...

    @overload
    def __getitem__(self, index: slice) -> list[ScheduledGame]: ...

    def __getitem__(self, index: int | slice) -> ScheduledGame | list[ScheduledGame]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        rnd, pairing, n = self._place(index)
        # The pair's first game may be the last of the round before (an odd number of games
        # a round): the pair is numbered among those that begin in that round.
        pair_round = (n - n % 2) // self.games
        pair = n // 2 - -(-pair_round * self.games // 2)
        opening_index = n // self.repeat
        p1, p2 = self.players(index)
        return ScheduledGame(
            index,
            rnd,
            self.pairings[pairing],
            pair,
            opening_index,
            p1,
            p2,
            self.opening(opening_index),
            None if pair_round == rnd else pair_round,
        )


def schedule(
    engines: int, tournament: Tournament, rounds: int, games: int, openings: Sequence[Opening]
) -> list[ScheduledGame]:
    """Every game in playing order (:class:`Schedule`, each opening twice; ``openings`` has
    at least :func:`openings_needed` of them)."""
    return list(Schedule(engines, tournament, rounds, games, openings.__getitem__))


def match_schedule(config: MatchConfig, rules: Rules) -> Schedule:
    """The schedule of a match (raises OpeningError for unusable openings).

    The first opening is made at once, so that a setting no opening can meet fails before
    anything is played; the others when their games are played."""
    opening = opening_source(rules, config.openings, config.seed)
    try:
        opening(0)
    except GameError as exc:
        raise OpeningError(str(exc)) from None
    return Schedule(
        len(config.engines),
        config.tournament,
        config.rounds,
        config.games,
        opening,
        config.repeat,
        config.swap,
        config.reverse,
    )


def opening_source(rules: Rules, setting: OpeningsConfig, seed: int) -> Callable[[int], Opening]:
    """Opening ``i`` of the ``--openings`` setting and the seed, as a function of ``i``.

    None: the start position. Random: random lines of ``plies`` plies, the i-th from
    ``Random(f"{seed}:{i}")`` (independent of how many are drawn; the last few are kept, as
    the two games of a pair and the encounters of a round ask for the same one). File: the
    file's lines from line ``start`` (1-based), cycled; ``order=random`` shuffles them with
    the seed (the file is read here, once); ``plies=`` cuts each line's moves.
    """
    if setting.kind is OpeningsKind.NONE:
        start = Opening(None, ())
        return lambda i: start
    if setting.kind is OpeningsKind.RANDOM:

        @functools.lru_cache(maxsize=256)
        def drawn(i: int) -> Opening:
            return random_opening(rules, setting.plies, random.Random(f"{seed}:{i}"))

        return drawn
    assert setting.file is not None  # OpeningsConfig checks it
    book, _ = read_openings(rules, setting.file, setting.file_plies)
    if setting.order == "random":
        random.Random(f"{seed}:book").shuffle(book)
    first = setting.start - 1
    return lambda i: book[(first + i) % len(book)]


def openings_for(rules: Rules, setting: OpeningsConfig, count: int, seed: int) -> list[Opening]:
    """The first ``count`` openings of :func:`opening_source`."""
    opening = opening_source(rules, setting, seed)
    return [opening(i) for i in range(count)]
