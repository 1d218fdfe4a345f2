"""The value types that engine, protocol and referee share: one vocabulary, written once.

* :class:`GoLimits` with :func:`parse_go` / :func:`format_go`: the limits of one ``go``
  command, in UCI (``wtime``) or UGI (``p1time``) spelling, and the one rule for when a search
  is unbounded (:meth:`GoLimits.unbounded`).
* :class:`Score` (``cp`` / ``mate``) and :class:`Info` (one ``info`` line): the line the
  engine writes is the line the referee reads (:meth:`Info.format` / :func:`parse_info`).
* :class:`Result` and :class:`Outcome`: how a game ended by its rules, as data.
* :func:`parse_int`: the one reading of a number in text (ASCII digits only, bounded length).

Everything here is text in, text out and plain data: no game, no process, no clock.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields

from zengine.engine.text import shown


class TextError(ValueError):
    """Text that does not read as the value asked for; ``code`` is the protocol's error code
    (``syntax`` for malformed text, ``bad-value`` for a well-formed value out of range)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


_INTEGER = re.compile(r"[+-]?[0-9]+")
#: Longer digit strings are out of every range we use (2**63 has 19 digits); checking the
#: length first keeps a 100,000-digit token from costing a quadratic conversion.
_MAX_DIGITS = 24


def parse_int(token: str, what: str, low: int | None = None, high: int | None = None) -> int:
    """``token`` as an integer in ``low..high`` (a bound of None is open).

    Only ASCII digits with an optional sign are numbers (no Arabic-Indic or fullwidth digits). Raises
    :class:`TextError` ``syntax`` for a non-number and ``bad-value`` (stating the bounds) for a
    number out of range, however many digits it has.
    """
    if _INTEGER.fullmatch(token) is None:
        raise TextError("syntax", f"{what} needs a number, got '{shown(token)}'")
    bounds = _bounds_text(low, high)
    digits = token.lstrip("+-").lstrip("0")  # leading zeros make no number longer
    if len(digits) > _MAX_DIGITS:
        raise TextError("bad-value", f"{what} {shown(token, 24)} out of range ({bounds})")
    value = -int(digits or "0") if token.startswith("-") else int(digits or "0")
    if (low is not None and value < low) or (high is not None and value > high):
        raise TextError("bad-value", f"{what} {value} out of range ({bounds})")
    return value


def _bounds_text(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"{low} to {high}"
    if low is not None:
        return f"at least {low}"
    return f"at most {high}" if high is not None else "any integer"


# --- limits of one search --------------------------------------------------------------------

#: Milliseconds and move counts fit a signed 32-bit int, as in UCI GUIs; nodes a signed 64-bit.
MAX_MS = 2**31 - 1
MAX_NODES = 2**63 - 1
MAX_DEPTH = 1000
#: The moves a clock without ``movestogo`` is planned for, unless the game plans for fewer
#: (``SearchParameters.moves_to_go``; measured in docs/search-experiments.md, time management).
DEFAULT_MOVES_TO_GO = 16
#: Deepest ``perft`` and ``bench`` accepted, by the protocol and the command line alike: counts
#: grow some thirtyfold a ply, so far shallower ones already run for ages (Ctrl-C stops them).
MAX_PERFT = 64
MAX_BENCH = 64
#: The most lines the MultiPV option asks a search for.
MAX_MULTIPV = 32


@dataclass(frozen=True)
class GoLimits:
    """What may stop one search: times in ms, ``None`` = not given.

    ``searchmoves`` are move texts (the facade turns them into moves of the position).
    """

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    p1time: int | None = None
    p2time: int | None = None
    p1inc: int | None = None
    p2inc: int | None = None
    movestogo: int | None = None
    infinite: bool = False
    #: ``go ponder``: search as ``infinite`` until ``ponderhit`` (then on these limits) or ``stop``.
    ponder: bool = False
    searchmoves: tuple[str, ...] | None = None

    def clock(self, side: int) -> tuple[int | None, int | None]:
        """The (time, increment) of ``side`` (0 = p1): only the mover's clock is ever used."""
        return (self.p1time, self.p1inc) if side == 0 else (self.p2time, self.p2inc)

    def unbounded(self, side: int) -> bool:
        """Whether only ``stop`` (or the end of the game) ends a search with ``side`` to move.

        The one rule, used by search, facade and protocol alike: ``infinite``, or no depth,
        nodes, movetime nor clock of the side to move (the opponent's clock bounds nothing).
        An unbounded search never stops by itself, not even after a proven mate.
        """
        return (
            self.infinite
            or self.ponder
            or (
                self.depth is None
                and self.nodes is None
                and self.movetime is None
                and self.clock(side)[0] is None
            )
        )


#: go token -> (GoLimits field, least value, greatest value). Negative clocks are accepted and
#: count as 0 (the engine then moves at once); both spellings of a field: the later one counts.
_GO_NUMBERS: dict[str, tuple[str, int | None, int]] = {
    "depth": ("depth", 1, MAX_DEPTH),
    "nodes": ("nodes", 1, MAX_NODES),
    "movetime": ("movetime", 0, MAX_MS),
    "wtime": ("p1time", -MAX_MS, MAX_MS),
    "btime": ("p2time", -MAX_MS, MAX_MS),
    "p1time": ("p1time", -MAX_MS, MAX_MS),
    "p2time": ("p2time", -MAX_MS, MAX_MS),
    "winc": ("p1inc", 0, MAX_MS),
    "binc": ("p2inc", 0, MAX_MS),
    "p1inc": ("p1inc", 0, MAX_MS),
    "p2inc": ("p2inc", 0, MAX_MS),
    "movestogo": ("movestogo", 1, MAX_MS),
}
_GO_WORDS = frozenset(_GO_NUMBERS) | {"searchmoves", "infinite", "ponder", "mate", "perft"}


def parse_go(tokens: Sequence[str]) -> GoLimits:
    """The limits of the tokens after ``go`` (words case-insensitive, either spelling).

    Raises :class:`TextError`: ``syntax`` for an unknown, unsupported (``mate``, ``perft``)
    or incomplete token, ``bad-value`` for a number out of range.
    """
    values: dict[str, object] = {}
    i = 0
    while i < len(tokens):
        word = tokens[i].lower()
        i += 1
        if word in _GO_NUMBERS:
            if i >= len(tokens):
                raise TextError("syntax", f"go {word} needs a number")
            name, low, high = _GO_NUMBERS[word]
            value = parse_int(tokens[i], f"go {word}", low, high)
            values[name] = max(value, 0)
            i += 1
        elif word in ("infinite", "ponder"):
            values[word] = True
        elif word == "searchmoves":
            moves: list[str] = []
            while i < len(tokens) and tokens[i].lower() not in _GO_WORDS:
                moves.append(tokens[i])
                i += 1
            if not moves:
                raise TextError("syntax", "go searchmoves needs at least one move")
            values["searchmoves"] = tuple(moves)
        elif word in ("mate", "perft"):
            raise TextError("syntax", f"go {word} is not supported here")
        else:
            raise TextError("syntax", f"unknown go token '{shown(tokens[i - 1])}'")
    return GoLimits(**values)  # type: ignore[arg-type]


_UCI_NAMES = {"p1time": "wtime", "p2time": "btime", "p1inc": "winc", "p2inc": "binc"}


def format_go(limits: GoLimits, proto: str = "uci") -> str:
    """The ``go`` line of ``limits``: clocks spelt ``wtime``... for ``uci``, ``p1time``... for
    ``ugi``; :func:`parse_go` of its tokens after ``go`` gives ``limits`` back."""
    parts = ["go"]
    for f in fields(GoLimits):
        value = getattr(limits, f.name)
        if value is None or value is False:
            continue
        if f.name in ("infinite", "ponder"):
            parts.append(f.name)
        elif f.name == "searchmoves":
            parts += ["searchmoves", *value]
        else:
            word = _UCI_NAMES.get(f.name, f.name) if proto == "uci" else f.name
            parts += [word, str(value)]
    return " ".join(parts)


# --- scores and info lines -------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """A score from the side to move's view: exactly one of ``cp`` and ``mate`` is set.

    ``mate n``: the side to move wins with its n-th move from here; ``mate -n``: it loses after
    the opponent's n-th move.
    """

    cp: int | None = None
    mate: int | None = None

    def __post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError("a Score has exactly one of cp and mate")

    def format(self) -> str:
        """``cp 35`` or ``mate -2``, as in ``info`` lines."""
        return f"mate {self.mate}" if self.mate is not None else f"cp {self.cp}"

    __str__ = format

    @staticmethod
    def parse(text: str) -> Score:
        """The score of ``cp N`` / ``mate N`` (:class:`TextError` otherwise)."""
        kind, _, value = text.strip().partition(" ")
        if kind not in ("cp", "mate"):
            raise TextError("syntax", f"a score is 'cp N' or 'mate N', got '{shown(text)}'")
        number = parse_int(value.strip(), f"score {kind}", -MAX_NODES, MAX_NODES)
        return Score(cp=number) if kind == "cp" else Score(mate=number)

    def centipawns(self, mate_cp: int = 100_000) -> int:
        """The score as a number to compare: a mate is ``mate_cp`` less its distance."""
        if self.mate is None:
            return self.cp  # type: ignore[return-value]
        distance = abs(self.mate)
        return mate_cp - distance if self.mate > 0 else -(mate_cp - distance)

    def pawns_text(self) -> str:
        """The score as PGN comments write it: ``+0.46``, ``-1.00``, ``+M3``, ``-M3``."""
        if self.mate is not None:
            return f"{'+' if self.mate > 0 else '-'}M{abs(self.mate)}"
        return f"{self.cp / 100:+.2f}"  # type: ignore[operator]


@dataclass(frozen=True)
class Info:
    """One search-progress line: ``info depth D seldepth S [multipv I] score ... nodes N nps N
    time MS [hashfull P] [tbhits N] pv M...``. Fields another engine leaves out are None."""

    depth: int | None = None
    seldepth: int | None = None
    score: Score | None = None
    nodes: int | None = None
    nps: int | None = None
    time_ms: int | None = None
    hashfull: int | None = None
    pv: tuple[str, ...] = ()
    #: Positions found in endgame tables (given only by an engine that has tables).
    tbhits: int | None = None
    #: The line's rank among an iteration's lines (1: the best), given only with MultiPV above 1.
    multipv: int | None = None

    def format(self) -> str:
        """The ``info`` line, fields in the protocol's order, absent ones left out."""
        parts = ["info"]
        for word, value in (
            ("depth", self.depth),
            ("seldepth", self.seldepth),
            ("multipv", self.multipv),
            ("score", self.score.format() if self.score is not None else None),
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("time", self.time_ms),
            ("hashfull", self.hashfull),
            ("tbhits", self.tbhits),
        ):
            if value is not None:
                parts += [word, str(value)]
        if self.pv:
            parts += ["pv", *self.pv]
        return " ".join(parts)


_INFO_INTS = {
    "depth": "depth",
    "seldepth": "seldepth",
    "nodes": "nodes",
    "nps": "nps",
    "time": "time_ms",
    "hashfull": "hashfull",
    "tbhits": "tbhits",
    "multipv": "multipv",
}
#: Words of other engines' info lines that take one value we do not use.
_INFO_SKIP_ONE = frozenset({"currmove", "currmovenumber", "cpuload", "sbhits", "wdl"})


def parse_info(line: str) -> Info | None:
    """The :class:`Info` of an ``info`` line, or None if it is no info line.

    Lenient as a referee must be with other engines: unknown words are skipped, a malformed
    value leaves its field None, ``string`` ends the line, ``lowerbound``/``upperbound`` after
    a score are ignored (the score is kept).
    """
    tokens = line.split()
    if not tokens or tokens[0] != "info":
        return None
    values: dict[str, object] = {}
    i = 1
    while i < len(tokens):
        word = tokens[i]
        i += 1
        if word == "string":
            break
        if word in _INFO_INTS and i < len(tokens):
            try:
                values[_INFO_INTS[word]] = parse_int(tokens[i], word, 0, MAX_NODES)
            except TextError:
                pass
            i += 1
        elif word == "score" and i + 1 < len(tokens):
            try:
                values["score"] = Score.parse(f"{tokens[i]} {tokens[i + 1]}")
            except TextError:
                pass
            i += 2
        elif word == "pv":
            values["pv"] = tuple(tokens[i:])
            break
        elif word in _INFO_SKIP_ONE:
            i += 1
    return Info(**values)  # type: ignore[arg-type]


# --- how a game ended ------------------------------------------------------------------------


class Result(enum.Enum):
    """The result of a finished game; the value is the word of ``query result``."""

    P1_WIN = "p1win"
    P2_WIN = "p2win"
    DRAW = "draw"

    @property
    def pgn(self) -> str:
        """The result as game records write it: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        return _PGN_RESULTS[self]

    @property
    def winner(self) -> int | None:
        """0 for p1, 1 for p2, None for a draw."""
        return None if self is Result.DRAW else (0 if self is Result.P1_WIN else 1)

    @staticmethod
    def win_for(side: int) -> Result:
        """The result in which ``side`` (0 = p1, 1 = p2) wins."""
        return Result.P1_WIN if side == 0 else Result.P2_WIN

    @staticmethod
    def from_pgn(text: str) -> Result:
        """The result of ``1-0`` / ``0-1`` / ``1/2-1/2`` (ValueError otherwise)."""
        for result, pgn in _PGN_RESULTS.items():
            if pgn == text:
                return result
        raise ValueError(f"'{shown(text)}' is no game result (1-0, 0-1, 1/2-1/2)")


_PGN_RESULTS = {Result.P1_WIN: "1-0", Result.P2_WIN: "0-1", Result.DRAW: "1/2-1/2"}


@dataclass(frozen=True)
class Outcome:
    """How a game ended by its rules: its result and the rule's own word (``sharing``,
    ``every Blue checker captured``). The referee's endings (time forfeit, adjudication, ...)
    are its own (:mod:`zengine.tools.referee.terminations`)."""

    result: Result
    detail: str = ""

    @property
    def winner(self) -> int | None:
        """0 for p1, 1 for p2, None for a draw."""
        return self.result.winner

    def reason(self) -> str:
        """The ending in words, for records and people."""
        return self.detail or "game over by the rules"
