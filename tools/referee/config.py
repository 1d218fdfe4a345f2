"""The referee's configuration: typed, frozen dataclasses, each value checked once.

:class:`MatchConfig` is a whole match: its engines (:class:`EngineConfig` with
:class:`EngineLimits` and :class:`Timeouts`), the game, the schedule, the openings, the
adjudication and the SPRT. Every value is checked where its dataclass is built
(``__post_init__``), so the command line (:mod:`tools.referee.options`, one table of options)
and ``config.json`` (:meth:`MatchConfig.from_json`, for ``--resume``; written and read from the
fields by :mod:`tools.referee.datajson`, an earlier version's made today's by
:mod:`tools.referee.upgrade`) pass the same checks; the words people write are read
by :mod:`tools.referee.words`. Times are milliseconds inside, seconds in the text people write.
Everything here is plain, picklable data: a worker in another process can be handed a
:class:`MatchConfig`.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import re
import shlex
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from zengine.engine.game import GameError, Rules
from zengine.engine.text import shown
from zengine.engine.values import (
    MAX_DEPTH,
    MAX_MS,
    MAX_NODES,
    GoLimits,
)
from zengine.engine.variants import make_rules
from zengine.tools.referee import datajson
from zengine.tools.referee.datajson import Codec, json_field
from zengine.tools.referee.upgrade import drop_later_defaults, upgraded
from zengine.tools.referee.words import (
    ConfigError,
    key_values,
    ms_text,
    no_extra,
    plain_text,
    read_bool,
    read_int,
    read_real,
    read_seconds,
    within_range,
)

#: Games in one schedule at most: the schedule is a list held in memory.
MAX_GAMES = 1_000_000
#: Processes at once: each game runs two engines.
MAX_CONCURRENCY = 64
#: The longest deadline a timeout may set (a day, in seconds).
MAX_TIMEOUT_S = 86_400.0
#: The longest fixed time per move, ``st=`` (a day, in seconds).
MAX_MOVETIME_S = 86_400.0
#: Elo differences an SPRT may test (beyond this every game is won).
MAX_SPRT_ELO = 2000.0
#: Plies of a random opening.
MAX_OPENING_PLIES = 1000
#: Adjudication: moves in a streak, the move number a draw may start from, centipawns.
MAX_MOVECOUNT = 1000
MAX_MOVENUMBER = 100_000
MAX_CP = 100_000
#: The most pieces ``-tbpieces`` may name (the largest board has 100 squares).
MAX_TB_PIECES = 100
#: The longest wait between games (``-wait``): a minute, in milliseconds.
MAX_WAIT_MS = 60_000


# --- time controls and limits -------------------------------------------------------------------

#: ``[moves/]base[+inc]``, base ``S[.f]`` or ``M:SS[.f]``.
_TC_RE = re.compile(
    r"(?:([0-9]+)/)?([0-9]+(?:\.[0-9]+)?|[0-9]+:[0-9]{1,2}(?:\.[0-9]+)?)(?:\+([0-9]+(?:\.[0-9]+)?))?"
)


@dataclass(frozen=True)
class TimeControl:
    """``moves/base+inc``: ``moves`` per period (0 = the whole game), base and increment in ms."""

    base_ms: int
    inc_ms: int = 0
    moves: int = 0

    def __post_init__(self) -> None:
        if not (0 <= self.base_ms <= MAX_MS and 0 <= self.inc_ms <= MAX_MS):
            raise ConfigError(
                f"tc={self.text()}: the base and the increment must be at most "
                f"{ms_text(MAX_MS)} seconds"
            )
        if self.base_ms == 0 and self.inc_ms == 0:
            raise ConfigError(f"tc={self.text()}: no time at all (give a base or an increment)")
        if not 0 <= self.moves <= MAX_MS:
            raise ConfigError(f"tc={self.text()}: moves per period must be from 0 to {MAX_MS}")

    @staticmethod
    def parse(text: str) -> TimeControl:
        """Cutechess syntax: ``40/60``, ``10+0.1``, ``1:30+1``, ``40/5:00+2`` (seconds); ``0/``
        (or no ``moves/``): one period for the whole game."""
        written = f"tc={shown(text, 300)}"
        match = _TC_RE.fullmatch(text.strip())
        if not match:
            raise ConfigError(
                f"{written}: must be [moves/]base[+inc] in seconds, base maybe m:ss "
                "(e.g. 40/60, 10+0.1, 1:30+1), or inf"
            )
        moves, base, inc = match.groups()
        if len(base) > 12 or (inc and len(inc) > 12):
            raise ConfigError(
                f"{written}: the base and the increment must be at most {ms_text(MAX_MS)} seconds"
            )
        # 0/ is the whole game in one period, as cutechess reads it (tc=0/20+0.2).
        if moves is not None and (len(moves) > 10 or not 0 <= int(moves) <= MAX_MS):
            raise ConfigError(f"{written}: moves per period must be from 0 to {MAX_MS}")
        minutes, _, seconds = base.rpartition(":")
        if minutes and float(seconds) >= 60:
            raise ConfigError(f"{written}: the seconds of m:ss must be below 60")
        base_ms = round((int(minutes or 0) * 60 + float(seconds)) * 1000)
        inc_ms = round(float(inc) * 1000) if inc else 0
        return TimeControl(base_ms, inc_ms, int(moves) if moves else 0)

    def text(self) -> str:
        """The cutechess spelling (exact seconds), as in the PGN TimeControl tag."""
        out = ms_text(self.base_ms)
        if self.moves:
            out = f"{self.moves}/{out}"
        if self.inc_ms:
            out += f"+{ms_text(self.inc_ms)}"
        return out


@dataclass(frozen=True)
class EngineLimits:
    """How one engine is asked for its moves: a clock (``tc``), the fixed limits of every ``go``
    (``depth``, ``nodes``, ``movetime``: the shared :class:`GoLimits`) and the overrun a move
    may take before it loses on time (``timemargin``)."""

    tc: TimeControl | None = None
    search: GoLimits = field(default_factory=GoLimits)
    margin_ms: int = 0

    def __post_init__(self) -> None:
        s = self.search
        if replace(s, depth=None, nodes=None, movetime=None) != GoLimits():
            raise ConfigError("an engine's fixed limits are depth, nodes and st only")
        # The one rule of values.GoLimits: without a clock, a search bounded by nothing would
        # never end by itself.
        if self.tc is None and s.unbounded(0):
            raise ConfigError(
                "no limit: give tc=, st=, depth= or nodes= (per engine or with --each)"
            )
        if self.tc is not None and s.movetime is not None:
            raise ConfigError("tc= and st= exclude each other")
        if not 0 <= self.margin_ms <= MAX_MS:
            raise ConfigError(
                f"timemargin={self.margin_ms}: must be a whole number of milliseconds from 0 to {MAX_MS}"
            )

    @property
    def movetime_ms(self) -> int | None:
        """The fixed time per move (``st=``), if any."""
        return self.search.movetime

    def text(self) -> str:
        """The limits as the PGN TimeControl text (``10+0.1``, ``st=0.5``, ``depth=3``)."""
        parts = []
        if self.tc is not None:
            parts.append(self.tc.text())
        if self.search.movetime is not None:
            parts.append(f"st={ms_text(self.search.movetime)}")
        if self.search.depth is not None:
            parts.append(f"depth={self.search.depth}")
        if self.search.nodes is not None:
            parts.append(f"nodes={self.search.nodes}")
        return " ".join(parts) or "-"

    @staticmethod
    def parse(keys: Mapping[str, str]) -> EngineLimits:
        """The limits of an engine's ``tc st depth nodes timemargin`` keys."""
        tc_text = keys.get("tc")
        tc = None if tc_text in (None, "inf", "infinite") else TimeControl.parse(tc_text)
        st = keys.get("st")
        movetime = (
            None if st is None else round(read_seconds("st=", st, 0.001, MAX_MOVETIME_S) * 1000)
        )
        depth = keys.get("depth")
        nodes = keys.get("nodes")
        return EngineLimits(
            tc,
            GoLimits(
                depth=None if depth is None else read_int("depth=", depth, 1, MAX_DEPTH),
                nodes=None if nodes is None else read_int("nodes=", nodes, 1, MAX_NODES),
                movetime=movetime,
            ),
            read_int("timemargin=", keys.get("timemargin", "0"), 0, MAX_MS, " of milliseconds"),
        )

    def keys(self) -> dict[str, str]:
        """The ``key=value`` words :meth:`parse` reads back into these limits."""
        out: dict[str, str] = {}
        if self.tc is not None:
            out["tc"] = self.tc.text()
        if self.search.movetime is not None:
            out["st"] = ms_text(self.search.movetime)
        if self.search.depth is not None:
            out["depth"] = str(self.search.depth)
        if self.search.nodes is not None:
            out["nodes"] = str(self.search.nodes)
        if self.margin_ms:
            out["timemargin"] = str(self.margin_ms)
        return out


#: The shortest value of each timeout: a wait of no time would fail every engine.
_TIMEOUT_LOWEST = {"start": 0.001, "ready": 0.001, "move": 0.001, "grace": 0.0}


@dataclass(frozen=True)
class Timeouts:
    """Deadlines (seconds) of the waits that no clock bounds, for one engine."""

    #: ``uciok`` after the process starts (loading an engine may take a while).
    start: float = 10.0
    #: ``readyok`` after ``isready``: in the handshake, before each game, after a stall; and
    #: the ``bestmove`` that answers the ``stop`` of a ponder search. None: the same as ``start``.
    ready: float | None = None
    #: A ``bestmove`` when the limits are depth or nodes only.
    move: float = 60.0
    #: The wait past a clock before the referee stops waiting for a ``bestmove``.
    grace: float = 1.0

    KEYS = ("start", "ready", "move", "grace")

    def __post_init__(self) -> None:
        for name, low in _TIMEOUT_LOWEST.items():
            value = getattr(self, name)
            if value is None and name == "ready":
                continue
            if not (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and low <= value <= MAX_TIMEOUT_S  # also refuses nan
            ):
                raise ConfigError(
                    f"timeout {name}={value}: must be a finite number of seconds "
                    f"from {low:g} to {MAX_TIMEOUT_S:g}"
                )

    @property
    def ready_s(self) -> float:
        """The wait for ``readyok``."""
        return self.start if self.ready is None else self.ready

    def with_keys(self, keys: Mapping[str, str], prefix: str) -> Timeouts:
        """These timeouts with ``start= ready= move= grace=`` words (seconds) applied;
        ``prefix`` is how the words were written (``--timeout ``, ``timeout.``)."""
        unknown = sorted(set(keys) - set(self.KEYS))
        if unknown:
            raise ConfigError(
                f"{prefix.strip()}: unknown key {shown(unknown[0], 300)} (keys: {', '.join(self.KEYS)})"
            )
        values = {
            k: read_seconds(f"{prefix}{k}=", v, _TIMEOUT_LOWEST[k], MAX_TIMEOUT_S)
            for k, v in keys.items()
        }
        return replace(self, **values)


# --- engines ------------------------------------------------------------------------------------


class Proto(enum.Enum):
    """The protocol an engine speaks; the value is the word of ``proto=``."""

    UCI = "uci"
    UGI = "ugi"

    @property
    def hello(self) -> str:
        """The first command, ``uci`` or ``ugi``; its answer is this word plus ``ok``."""
        return self.value

    @property
    def new_game(self) -> str:
        return f"{self.value}newgame"


@dataclass(frozen=True)
class EngineConfig:
    """One engine: how to run it (``cmd``, ``dir``), talk to it (``proto``, ``option.NAME``),
    ask it for moves (``limits``) and how long to wait for it (``timeouts``)."""

    name: str
    #: How the engine is run, not what it plays: a resume may find it moved (:meth:`MatchConfig.games_digest`).
    cmd: tuple[str, ...] = field(metadata=json_field(run=True))
    #: Stored as the engine's ``key=value`` words (``tc``, ``st``, ...), as people write them.
    limits: EngineLimits = field(
        metadata=json_field(codec=Codec(EngineLimits.keys, EngineLimits.parse, Mapping[str, str]))
    )
    proto: Proto = Proto.UCI
    options: Mapping[str, str] = field(default_factory=dict)
    workdir: str | None = field(default=None, metadata=json_field("dir", run=True))
    timeouts: Timeouts = field(default=Timeouts(), metadata=json_field("timeout", run=True))
    #: Lines sent after ``uciok``, before the options (cutechess's ``initstr=``).
    init_strings: tuple[str, ...] = field(default=(), metadata=json_field("initstr"))
    #: A new process for every game (cutechess's ``restart=on``).
    restart: bool = field(default=False, metadata=json_field(run=True))
    #: The engine's stderr also appended to this file (cutechess's ``stderr=``).
    stderr_file: str | None = field(
        default=None, metadata=json_field("stderr", run=True, omit_none=True)
    )
    #: Its scores are from player 1's view, not the mover's (cutechess's ``whitepov``).
    whitepov: bool = False
    #: It thinks on its opponent's time, if it has the option ``Ponder`` (cutechess's
    #: ``ponder``; :mod:`tools.referee.game`).
    ponder: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise ConfigError("--engine: empty name=")
        if not self.cmd:
            raise ConfigError("--engine: empty cmd=")
        plain_text("name=", self.name)
        for word in self.cmd:
            plain_text("cmd=", word)
        for key, value in self.options.items():
            if not key.strip():
                raise ConfigError("option.NAME=VALUE: the option needs a name")
            plain_text("option.", key)
            plain_text(f"option.{key}=", value)
        if self.workdir is not None:
            plain_text("dir=", self.workdir)
        for line in self.init_strings:
            plain_text("initstr=", line)
        if self.stderr_file is not None:
            plain_text("stderr=", self.stderr_file)

    def describe(self) -> str:
        return f"{self.name} ({shlex.join(self.cmd)}, {self.proto.value})"


# --- openings, adjudication, SPRT ---------------------------------------------------------------


class OpeningsKind(enum.Enum):
    RANDOM = "random"
    FILE = "file"
    NONE = "none"


def _random(values: Mapping[str, Any]) -> bool:
    return values["kind"] is OpeningsKind.RANDOM


def _from_file(values: Mapping[str, Any]) -> bool:
    return values["kind"] is OpeningsKind.FILE


@dataclass(frozen=True)
class OpeningsConfig:
    """``--openings``: random lines of ``plies`` plies, the lines of a ``file`` (in ``order``
    from line ``start``, each line's moves cut to ``file_plies`` plies if given, as
    cutechess's ``plies=``), or none (every game from the start position)."""

    kind: OpeningsKind = field(default=OpeningsKind.RANDOM, metadata=json_field(required=True))
    plies: int = field(default=4, metadata=json_field(when=_random))
    file: str | None = field(default=None, metadata=json_field(when=_from_file))
    order: str = field(default="sequential", metadata=json_field(when=_from_file))
    start: int = field(default=1, metadata=json_field(when=_from_file))
    #: ``file=PATH plies=N``: at most N plies of each line's moves (None: the whole line).
    file_plies: int | None = field(
        default=None, metadata=json_field("plies", when=_from_file, omit_none=True)
    )
    #: The SHA-256 (hex) of the file's bytes when the match started (None: not known, as in
    #: the config.json of an earlier version); ``--resume`` refuses a file that changed.
    digest: str | None = field(default=None, metadata=json_field("sha256", omit_none=True))

    def __post_init__(self) -> None:
        for plies in (self.plies, self.file_plies):
            if plies is not None and not 0 <= plies <= MAX_OPENING_PLIES:
                raise ConfigError(
                    f"--openings plies={plies}: must be a whole number from 0 to {MAX_OPENING_PLIES}"
                )
        if self.kind is OpeningsKind.FILE and not self.file:
            raise ConfigError("--openings: file= needs a path")
        if self.digest is not None and re.fullmatch(r"[0-9a-f]{64}", self.digest) is None:
            raise ConfigError("openings sha256: must be 64 lowercase hexadecimal digits")
        if self.order not in ("sequential", "random"):
            raise ConfigError(
                f"--openings order={shown(self.order, 300)}: must be sequential or random"
            )
        if not 1 <= self.start <= MAX_GAMES:
            raise ConfigError(
                f"--openings start={self.start}: must be a whole number from 1 to {MAX_GAMES}"
            )

    @staticmethod
    def parse(words: list[str]) -> OpeningsConfig:
        kv = key_values("openings", words, bare=("random", "none", "startpos"))
        no_extra("openings", kv, {"random", "none", "startpos", "file", "plies", "order", "start"})
        plies = kv.get("plies")
        if "file" in kv:
            kinds = [k for k in ("random", "none", "startpos") if k in kv]
            if kinds:  # two kinds of openings: which one was meant is not ours to guess
                raise ConfigError(f"--openings: {kinds[0]} and file= do not go together")
            if not kv["file"].strip():  # it would name the current directory
                raise ConfigError("--openings file=: the file name is empty")
            return OpeningsConfig(
                OpeningsKind.FILE,
                file=str(Path(kv["file"]).absolute()),
                order=kv.get("order", "sequential"),
                start=read_int("--openings start=", kv.get("start", "1"), 1, MAX_GAMES),
                file_plies=None
                if plies is None
                else read_int("--openings plies=", plies, 0, MAX_OPENING_PLIES),
            )
        # A key that does not apply is refused, not ignored: the user meant something by it.
        none = "none" in kv or "startpos" in kv
        unused = [
            k for k in (("plies", "order", "start") if none else ("order", "start")) if k in kv
        ]
        if unused:
            kind = "none" if none else "random"
            raise ConfigError(
                f"--openings {kind}: {unused[0]}= does not apply (it is for "
                f"{'random or file' if unused[0] == 'plies' else 'file='} openings)"
            )
        if none:
            return OpeningsConfig(OpeningsKind.NONE)
        return OpeningsConfig(
            plies=read_int("--openings plies=", kv.get("plies", "4"), 0, MAX_OPENING_PLIES)
        )

    def text(self) -> str:
        if self.kind is OpeningsKind.RANDOM:
            return f"random plies={self.plies}"
        if self.kind is OpeningsKind.FILE:
            cut = "" if self.file_plies is None else f" plies={self.file_plies}"
            return f"file={self.file} order={self.order}{cut}"
        return "none (start position)"


@dataclass(frozen=True)
class ResignRule:
    """``--resign``: a side whose own score was <= -``score`` cp for its last ``movecount``
    moves loses (with ``twosided``, only if the other side's was >= ``score`` as long)."""

    movecount: int = 3
    score: int = 1000
    twosided: bool = False

    def __post_init__(self) -> None:
        within_range("--resign movecount=", self.movecount, 1, MAX_MOVECOUNT)
        within_range("--resign score=", self.score, 0, MAX_CP, " of centipawns")

    @staticmethod
    def parse(words: list[str]) -> ResignRule:
        """``movecount= score= twosided=`` words (the defaults for those not given)."""
        kv = key_values("resign", words)
        no_extra("resign", kv, {"movecount", "score", "twosided"})
        return ResignRule(
            read_int("--resign movecount=", kv.get("movecount", "3"), 1, MAX_MOVECOUNT),
            read_int("--resign score=", kv.get("score", "1000"), 0, MAX_CP, " of centipawns"),
            read_bool("--resign twosided=", kv.get("twosided", "false")),
        )


@dataclass(frozen=True)
class DrawRule:
    """``--draw``: from move ``movenumber`` on, a draw when both sides' last ``movecount``
    scores are within +-``score`` cp."""

    movenumber: int = 40
    movecount: int = 8
    score: int = 10

    def __post_init__(self) -> None:
        within_range("--draw movenumber=", self.movenumber, 0, MAX_MOVENUMBER)
        within_range("--draw movecount=", self.movecount, 1, MAX_MOVECOUNT)
        within_range("--draw score=", self.score, 0, MAX_CP, " of centipawns")

    @staticmethod
    def parse(words: list[str]) -> DrawRule:
        """``movenumber= movecount= score=`` words (the defaults for those not given)."""
        kv = key_values("draw", words)
        no_extra("draw", kv, {"movenumber", "movecount", "score"})
        return DrawRule(
            read_int("--draw movenumber=", kv.get("movenumber", "40"), 0, MAX_MOVENUMBER),
            read_int("--draw movecount=", kv.get("movecount", "8"), 1, MAX_MOVECOUNT),
            read_int("--draw score=", kv.get("score", "10"), 0, MAX_CP, " of centipawns"),
        )


@dataclass(frozen=True)
class Adjudication:
    """How the referee ends games the rules have not ended: by scores, or by a ply limit."""

    resign: ResignRule | None = None
    draw: DrawRule | None = None
    #: A draw after this many plies (0 = off).
    max_plies: int = field(default=1000, metadata=json_field("maxplies", required=True))
    #: ``--tables``: the folder of endgame tables that end a game they hold (None = off).
    tables: str | None = field(default=None, metadata=json_field(omit_none=True))
    #: ``-tbpieces N``: only positions of at most N pieces end a game by the tables.
    tb_pieces: int | None = field(default=None, metadata=json_field("tbpieces", omit_none=True))

    def __post_init__(self) -> None:
        within_range("--maxplies", self.max_plies, 0, MAX_GAMES)
        if self.tb_pieces is not None:
            within_range("-tbpieces", self.tb_pieces, 2, MAX_TB_PIECES)
        if self.tables is not None:
            from zengine.engine.endgame import TableError
            from zengine.tools.referee.tables import table_folder

            try:
                table_folder(self.tables)
            except TableError as exc:
                raise ConfigError(f"--tables: {exc}") from None


@dataclass(frozen=True)
class SprtConfig:
    """``--sprt``: stop the match when the SPRT of H1 (``elo1``) against H0 (``elo0``) decides,
    with error rates ``alpha`` (false H1) and ``beta`` (false H0)."""

    # Each one required in config.json: the command line stores all four.
    elo0: float = field(default=0.0, metadata=json_field(required=True))
    elo1: float = field(default=5.0, metadata=json_field(required=True))
    alpha: float = field(default=0.05, metadata=json_field(required=True))
    beta: float = field(default=0.05, metadata=json_field(required=True))

    def __post_init__(self) -> None:
        for key in ("elo0", "elo1"):
            read_real(f"--sprt {key}=", str(getattr(self, key)), -MAX_SPRT_ELO, MAX_SPRT_ELO)
        for key in ("alpha", "beta"):
            read_real(f"--sprt {key}=", str(getattr(self, key)), 0.0, 1.0, open_ends=True)
        if self.alpha + self.beta >= 1:
            raise ConfigError("--sprt: need alpha + beta < 1 (else the bounds cross)")
        if not self.elo0 < self.elo1:
            raise ConfigError("--sprt: need elo1 > elo0")

    KEYS = ("elo0", "elo1", "alpha", "beta")

    def to_json(self) -> dict[str, Any]:
        """The four settings, as config.json and summary.json hold them."""
        data: dict[str, Any] = datajson.to_json(self)
        return data

    @staticmethod
    def parse(words: list[str]) -> SprtConfig:
        """``elo0= elo1= alpha= beta=``: elo0 and elo1 together or neither (for the defaults);
        one alone would test against a default the user did not choose."""
        kv = key_values("sprt", words)
        no_extra("sprt", kv, set(SprtConfig.KEYS))
        if ("elo0" in kv) != ("elo1" in kv):
            raise ConfigError(
                "--sprt: give elo0= and elo1= together (or neither, for elo0=0 elo1=5)"
            )
        default = SprtConfig()
        limits = {"elo0": MAX_SPRT_ELO, "elo1": MAX_SPRT_ELO, "alpha": 1.0, "beta": 1.0}
        return SprtConfig(
            **{
                k: read_real(
                    f"--sprt {k}=",
                    kv[k],
                    -limits[k] if k.startswith("elo") else 0.0,
                    limits[k],
                    open_ends=not k.startswith("elo"),
                )
                if k in kv
                else getattr(default, k)
                for k in SprtConfig.KEYS
            }
        )


# --- the match ----------------------------------------------------------------------------------


class Tournament(enum.Enum):
    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"

    @staticmethod
    def parse(text: str) -> Tournament:
        try:
            return Tournament(text)
        except ValueError:
            pass
        if text in ("knockout", "pyramid"):
            # Who plays next would depend on results: the schedule here is a pure function of
            # the configuration and the seed, which is what makes --resume exact.
            raise ConfigError(
                f"--tournament {text}: not offered (its pairings depend on results, and a "
                "schedule here is fixed in advance so that --resume replays it exactly); "
                "use round-robin or gauntlet"
            )
        raise ConfigError(
            f"--tournament {shown(text, 300)}: must be round-robin or gauntlet"
        ) from None


@dataclass(frozen=True)
class PgnOut:
    """``-pgnout FILE [min] [fi]``: every game is also appended to ``file`` as cutechess
    appends, in cutechess's minimal PGN if ``min`` (the Seven Tag Roster and what replaying
    needs, no comments). A game the match stopped in the middle of (Ctrl-C) is appended too,
    with result ``*``, unless ``fi`` (finished games only)."""

    file: str
    min: bool = False
    fi: bool = False

    def __post_init__(self) -> None:
        if not self.file.strip():
            raise ConfigError("--pgnout: the file name is empty")
        plain_text("--pgnout", self.file)

    @staticmethod
    def parse(words: list[str], option: str = "pgnout") -> PgnOut:
        """cutechess's ``FILE [min] [fi]`` or fastchess's ``file=FILE [min=true]``."""
        kv = key_values(option, words, bare=("min", "fi"), positional="file")
        no_extra(option, kv, {"file", "min", "fi"})
        if "file" not in kv:
            raise ConfigError(f"--{option}: give the file (FILE or file=FILE)")
        return PgnOut(
            str(Path(kv["file"]).absolute()),
            kv.get("min") == "" or read_bool(f"--{option} min=", kv.get("min") or "false"),
            "fi" in kv,
        )


@dataclass(frozen=True)
class MatchConfig:
    """A whole match: its engines, the game, the schedule and the rules of the referee."""

    # A field tagged run=True says how the match is run, not what its games are: it may differ
    # on a resume, and it is left out of the games' digest (:meth:`games_digest`).
    engines: tuple[EngineConfig, ...]
    variant: str
    seed: int
    rules: Mapping[str, str] = field(default_factory=dict)
    games: int = field(default=2, metadata=json_field(required=True))
    rounds: int = field(default=1, metadata=json_field(required=True))
    tournament: Tournament = Tournament.ROUND_ROBIN
    concurrency: int = field(default=1, metadata=json_field(required=True, run=True))
    openings: OpeningsConfig = field(default=OpeningsConfig(), metadata=json_field(required=True))
    adjudication: Adjudication = field(default=Adjudication(), metadata=json_field(flatten=True))
    sprt: SprtConfig | None = None
    recover: bool = field(default=False, metadata=json_field(run=True))
    out: str | None = field(default=None, metadata=json_field(run=True))
    event: str = "zengine match"
    debug: bool = field(default=False, metadata=json_field(run=True))
    #: Games between the live Elo lines (``--ratinginterval``; 0 = none).
    rating_interval: int = field(default=10, metadata=json_field("ratinginterval", run=True))
    #: Games in a row on each opening (cutechess's ``-repeat N``); 2: the colour-swapped pair.
    repeat: int = 2
    #: Colours swapped between the games of an encounter (cutechess's ``-noswap`` clears it).
    swap: bool = True
    #: The second engine of each pairing plays first (cutechess's ``-reverse``).
    reverse: bool = False
    #: The Site tag of the PGN records.
    site: str = "?"
    #: ``-pgnout``: every game also appended to a PGN file of the user's.
    pgnout: PgnOut | None = field(default=None, metadata=json_field(run=True, omit_none=True))
    #: ``-epdout FILE``: each game's final position appended to FILE.
    epdout: str | None = field(default=None, metadata=json_field(run=True, omit_none=True))
    #: Milliseconds between the games a worker plays (cutechess's ``-wait``).
    wait_ms: int = field(default=0, metadata=json_field("wait", run=True))
    #: Games between the lines counting how games ended (``-outcomeinterval``; 0 = at the end).
    outcome_interval: int = field(default=0, metadata=json_field("outcomeinterval", run=True))
    #: The directory the match was started from (absolute; None in the config.json of an
    #: earlier version): relative commands and ``dir=`` were run from there, and a resume
    #: from elsewhere runs them from there again (:meth:`in_start_dir`).
    start_dir: str | None = field(default=None, metadata=json_field(run=True))
    #: :meth:`games_digest` when the match started (None: not yet, or an earlier version's
    #: folder); ``--resume`` refuses a folder whose settings changed since.
    digest: str | None = field(
        default=None, metadata=json_field("settings_sha256", omit_none=True, run=True)
    )

    def __post_init__(self) -> None:
        if len(self.engines) < 2:
            raise ConfigError("give at least two engines (or none for the demonstration)")
        names = Counter(e.name for e in self.engines)
        twice = [n for n, c in names.items() if c > 1]
        if twice:
            raise ConfigError(f"two engines are named '{twice[0]}'")
        if self.sprt is not None and len(self.engines) != 2:
            raise ConfigError("--sprt needs exactly two engines")
        within_range("--games", self.games, 1, MAX_GAMES)
        within_range("--rounds", self.rounds, 1, MAX_GAMES)
        encounters = len(self.engines) - 1
        if self.tournament is Tournament.ROUND_ROBIN:
            encounters = len(self.engines) * (len(self.engines) - 1) // 2
        if self.games * self.rounds * encounters > MAX_GAMES:
            raise ConfigError(
                f"{self.games * self.rounds * encounters} games in all: at most {MAX_GAMES} "
                "(--games x --rounds x encounters)"
            )
        within_range("--concurrency", self.concurrency, 1, MAX_CONCURRENCY)
        within_range("--seed", self.seed, 0, MAX_NODES)
        plain_text("--event", self.event)
        for key, value in self.rules.items():
            plain_text("--rule", f"{key}={value}")
        within_range("--ratinginterval", self.rating_interval, 0, MAX_GAMES)
        within_range("--outcomeinterval", self.outcome_interval, 0, MAX_GAMES)
        within_range("--repeat", self.repeat, 1, MAX_GAMES)
        within_range("--wait", self.wait_ms, 0, MAX_WAIT_MS, " of milliseconds")
        plain_text("--site", self.site)
        if self.epdout is not None:
            plain_text("--epdout", self.epdout)
            if not self.epdout.strip():
                raise ConfigError("--epdout: the file name is empty")
        if self.digest is not None and re.fullmatch(r"[0-9a-f]{64}", self.digest) is None:
            raise ConfigError("settings sha256: must be 64 lowercase hexadecimal digits")
        self.make_rules()

    def make_rules(self) -> Rules:
        """The rules of the games (checked when the configuration is made)."""
        try:
            return make_rules(self.variant, self.rules)
        except GameError as exc:
            raise ConfigError(f"--variant/--rule: {shown(str(exc), 300)}") from None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.engines)

    def to_json(self) -> dict[str, Any]:
        """``config.json``: :meth:`from_json` reads it back into an equal configuration."""
        data: dict[str, Any] = datajson.to_json(self)
        return data

    @staticmethod
    def from_json(data: Any) -> MatchConfig:
        """The configuration of ``config.json`` (also as older versions wrote it)."""
        try:
            return datajson.from_json(MatchConfig, upgraded(data), "configuration")
        except datajson.ShapeError as exc:
            raise ConfigError(str(exc)) from None

    def games_digest(self) -> str:
        """The SHA-256 (hex) of the settings that make the games what they are: all but those
        tagged ``run`` (concurrency, commands, timeouts, the output...). Kept in config.json
        when a match starts, so that a resume of an edited folder does not mix two matches."""
        shaping = datajson.to_json(self, keep=lambda f: not datajson.tag(f, "run"))
        drop_later_defaults(shaping)
        return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()

    def in_start_dir(self) -> MatchConfig:
        """The engines as run from the directory the match was started from (for a resume on
        this machine, from wherever it is run): each engine's working directory is that
        directory (or its ``dir=`` taken from there), so a relative ``cmd=`` or ``dir=``
        means what it meant at the start. Unchanged when the directory is not known (an
        earlier version's folder) or is gone."""
        start = self.start_dir
        if start is None or not os.path.isdir(start):
            return self
        engines = tuple(
            replace(e, workdir=os.path.join(start, e.workdir) if e.workdir else start)
            for e in self.engines
        )
        return replace(self, engines=engines)
