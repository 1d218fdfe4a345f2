"""Openings and the game schedule: a pure function of the configuration and the seed.

An opening is a start position (a position string, or None for the variant's start) plus
moves. Each opening is played twice, back to back, with colours swapped: games ``2k`` and
``2k + 1`` of an encounter form a *pair*. Openings that end the game are skipped. A
:class:`ScheduledGame` carries its opening, so it is all a worker needs to know of the schedule.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from zengine.engine.game import GameError, Rules, State, play_texts, sorted_moves
from zengine.tools.config import MatchConfig, OpeningsConfig, OpeningsKind, Tournament


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
        try:
            opening = Opening(None, tuple(text.split()))
            opening.state(rules)
            return opening
        except GameError:
            raise OpeningError(
                f"neither a position string ({position_error}) nor legal moves from the start"
            ) from None


def read_openings(rules: Rules, path: str) -> tuple[list[Opening], int]:
    """The usable openings of a file (blank and ``#`` lines ignored) and how many ended the game.

    A line that is no position and no legal move sequence is an error (with its line number):
    a typo should not silently shrink the opening book.
    """
    openings: list[Opening] = []
    finished = 0
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
    except OSError as exc:
        raise OpeningError(f"cannot read openings file '{path}': {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            opening = parse_opening_line(rules, line)
        except (GameError, OpeningError) as exc:
            raise OpeningError(f"{path}:{number}: {exc}") from None
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
    ``opening`` is opening number ``opening_index`` of the match."""

    id: int
    round: int
    encounter: tuple[int, int]
    pair: int  # index of the pair within the encounter and round
    opening_index: int
    p1: int
    p2: int
    opening: Opening


def encounters(engines: int, tournament: Tournament) -> list[tuple[int, int]]:
    """The pairings: one for a match, all pairs for round-robin, engine 0 vs each for gauntlet."""
    if engines < 2:
        raise ValueError("a match needs at least two engines")
    if tournament is Tournament.GAUNTLET:
        return [(0, j) for j in range(1, engines)]
    return [(i, j) for i in range(engines) for j in range(i + 1, engines)]


def openings_needed(rounds: int, games: int) -> int:
    """How many openings a schedule uses: one per pair of each round."""
    return rounds * ((games + 1) // 2)


def schedule(
    engines: int, tournament: Tournament, rounds: int, games: int, openings: Sequence[Opening]
) -> list[ScheduledGame]:
    """Every game in playing order: per round, per encounter, ``games`` games in colour-swapped
    pairs. The k-th pair of a round uses opening ``round * ceil(games / 2) + k`` for every
    encounter, so each pairing meets the same openings (``openings`` has at least
    :func:`openings_needed` of them)."""
    out: list[ScheduledGame] = []
    pairs_per_round = (games + 1) // 2
    for rnd in range(rounds):
        for a, b in encounters(engines, tournament):
            for g in range(games):
                pair = g // 2
                p1, p2 = (a, b) if g % 2 == 0 else (b, a)
                index = rnd * pairs_per_round + pair
                out.append(
                    ScheduledGame(len(out), rnd, (a, b), pair, index, p1, p2, openings[index])
                )
    return out


def match_schedule(config: MatchConfig, rules: Rules) -> list[ScheduledGame]:
    """The schedule of a match, openings drawn (raises OpeningError for unusable openings)."""
    count = openings_needed(config.rounds, config.games)
    try:
        openings = openings_for(rules, config.openings, count, config.seed)
    except GameError as exc:
        raise OpeningError(str(exc)) from None
    return schedule(len(config.engines), config.tournament, config.rounds, config.games, openings)


def openings_for(rules: Rules, setting: OpeningsConfig, count: int, seed: int) -> list[Opening]:
    """``count`` openings from the ``--openings`` setting and the seed.

    None: the start position. Random: random lines of ``plies`` plies, the i-th from
    ``Random(f"{seed}:{i}")`` (independent of how many are drawn). File: the file's lines from
    line ``start`` (1-based), cycled; ``order=random`` shuffles them with the seed.
    """
    if setting.kind is OpeningsKind.NONE:
        return [Opening(None, ())] * count
    if setting.kind is OpeningsKind.RANDOM:
        return [
            random_opening(rules, setting.plies, random.Random(f"{seed}:{i}")) for i in range(count)
        ]
    assert setting.file is not None  # OpeningsConfig checks it
    book, _ = read_openings(rules, setting.file)
    if setting.order == "random":
        random.Random(f"{seed}:book").shuffle(book)
    start = setting.start - 1
    return [book[(start + i) % len(book)] for i in range(count)]
