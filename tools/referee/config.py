"""The referee's configuration: dataclasses parsed once from the command line, validated once.

The command line follows cutechess-cli: an option takes ``key=value`` words up to the next
option (``-engine`` works as well as ``--engine``)::

    zengine match --engine cmd=zengine name=A depth=3 --engine cmd=zengine name=B depth=2 \\
        --each proto=uci tc=10+0.1 --variant zhadu --rule quiet=50 --games 20 --concurrency 2 \\
        --openings random plies=4 --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05

:func:`parse_command_line` gives a :class:`MatchConfig`. Every value is checked where its
dataclass is built (``__post_init__``), so a configuration read back from ``config.json``
(:meth:`MatchConfig.from_json`, for ``--resume``) passes the same checks as the command line.
Times are milliseconds inside, seconds in the text people write. Everything here is plain,
picklable data: a worker in another process can be handed a :class:`MatchConfig`.
"""

from __future__ import annotations

import enum
import math
import os
import re
import secrets
import shlex
import shutil
import stat
import sys
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from zengine.engine.game import GameError, Rules
from zengine.engine.text import shown
from zengine.engine.values import MAX_DEPTH, MAX_MS, MAX_NODES, GoLimits, TextError, parse_int
from zengine.engine.variants import make_rules, variant_names


class ConfigError(ValueError):
    """A bad command line or configuration: reported as one line, nothing is played."""


#: The demonstration: the built-in engine against itself when no engine is given.
DEMO_GAMES = 4
DEMO_LIMITS = {"tc": "2+0.05"}

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


# --- reading words ------------------------------------------------------------------------------
#
# Every number of the command line and of config.json is read here, and every message says the
# same thing: the option as written, then what it must be, with its unit and range, e.g.
# ``st=inf: must be a finite number of seconds from 0.001 to 86400``.


def _as_written(what: str, text: str) -> str:
    """``st=`` + ``inf`` -> ``st=inf``; ``--games`` + ``x`` -> ``--games x`` (text made safe to
    print: control characters escaped, cut if very long)."""
    space = what.startswith("--") and not what.endswith(("=", "."))
    return f"{what}{' ' if space else ''}{_shown(text)}"


def _shown(text: str) -> str:
    """A value for a message: escaped, and cut only if very long (paths stay whole)."""
    return shown(text, 300)


def _int(what: str, text: str, low: int, high: int, unit: str = "") -> int:
    """``text`` as an integer in ``low..high``; ConfigError naming ``what`` otherwise."""
    try:
        return parse_int(text.strip(), what, low, high)
    except TextError:
        raise ConfigError(
            f"{_as_written(what, text)}: must be a whole number{unit} from {low} to {high}"
        ) from None


_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def _seconds(what: str, text: str, low: float, high: float) -> float:
    """A plain decimal number of seconds in ``low..high`` (no sign, exponent, ``inf``, ``nan``)."""
    stripped = text.strip()
    if (
        len(stripped) > 24  # longer is out of range or a needless precision; cheap to refuse
        or _DECIMAL.fullmatch(stripped) is None
        or not low <= float(stripped) <= high
    ):
        raise ConfigError(
            f"{_as_written(what, text)}: must be a finite number of seconds from {low:g} to {high:g}"
        )
    return float(stripped)


def parse_concurrency(text: str) -> int:
    """``--concurrency N`` (also the one option ``--resume`` takes)."""
    return _int("--concurrency", text, 1, MAX_CONCURRENCY)


def parse_rating_interval(text: str) -> int:
    """``--ratinginterval N``: games between the live Elo lines, 0 = none (``--resume`` takes
    it too: it changes only what is printed)."""
    return _int("--ratinginterval", text, 0, MAX_GAMES)


def _real(what: str, text: str, low: float, high: float, open_ends: bool = False) -> float:
    """A finite real number in ``low..high`` (between them if ``open_ends``); a sign and an
    exponent are fine."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    inside = low < value < high if open_ends else low <= value <= high
    if not inside:  # also nan and the infinities
        where = f"between {low:g} and {high:g}" if open_ends else f"from {low:g} to {high:g}"
        raise ConfigError(f"{_as_written(what, text)}: must be a finite number {where}")
    return value


def plain_text(what: str, text: str) -> str:
    """``text`` if it holds no control character (a line break, an escape): names, the event,
    option names and values and commands end up in PGN tags and protocol lines, where a line
    break would inject a line of its own. ConfigError naming ``what`` otherwise."""
    for char in text:
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            raise ConfigError(
                f"{_as_written(what, text)}: must hold no control character "
                f"(it has U+{ord(char):04X})"
            )
    return text


def _within(what: str, value: int, low: int, high: int, unit: str = "") -> None:
    """The range check of a whole number already read (a dataclass field, from config.json)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(
            f"{_as_written(what, str(value))}: must be a whole number{unit} from {low} to {high}"
        )


def _bool(what: str, text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise ConfigError(f"{_as_written(what, text)}: must be true or false")


def _ms_text(ms: int) -> str:
    """Milliseconds as exact seconds text: ``1500`` -> ``1.5``, ``1234567`` -> ``1234.567``."""
    whole, frac = divmod(ms, 1000)
    return f"{whole}.{frac:03d}".rstrip("0").rstrip(".") if frac else str(whole)


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
                f"{_ms_text(MAX_MS)} seconds"
            )
        if self.base_ms == 0 and self.inc_ms == 0:
            raise ConfigError(f"tc={self.text()}: no time at all (give a base or an increment)")
        if not 0 <= self.moves <= MAX_MS:
            raise ConfigError(f"tc={self.text()}: moves per period must be from 1 to {MAX_MS}")

    @staticmethod
    def parse(text: str) -> TimeControl:
        """Cutechess syntax: ``40/60``, ``10+0.1``, ``1:30+1``, ``40/5:00+2`` (seconds)."""
        written = f"tc={_shown(text)}"
        match = _TC_RE.fullmatch(text.strip())
        if not match:
            raise ConfigError(
                f"{written}: must be [moves/]base[+inc] in seconds, base maybe m:ss "
                "(e.g. 40/60, 10+0.1, 1:30+1), or inf"
            )
        moves, base, inc = match.groups()
        if len(base) > 12 or (inc and len(inc) > 12):
            raise ConfigError(
                f"{written}: the base and the increment must be at most {_ms_text(MAX_MS)} seconds"
            )
        if moves is not None and (len(moves) > 10 or not 1 <= int(moves) <= MAX_MS):
            raise ConfigError(f"{written}: moves per period must be from 1 to {MAX_MS}")
        minutes, _, seconds = base.rpartition(":")
        if minutes and float(seconds) >= 60:
            raise ConfigError(f"{written}: the seconds of m:ss must be below 60")
        base_ms = round((int(minutes or 0) * 60 + float(seconds)) * 1000)
        inc_ms = round(float(inc) * 1000) if inc else 0
        return TimeControl(base_ms, inc_ms, int(moves) if moves else 0)

    def text(self) -> str:
        """The cutechess spelling (exact seconds), as in the PGN TimeControl tag."""
        out = _ms_text(self.base_ms)
        if self.moves:
            out = f"{self.moves}/{out}"
        if self.inc_ms:
            out += f"+{_ms_text(self.inc_ms)}"
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

    @property
    def timed(self) -> bool:
        """Whether the referee can forfeit on time (a clock or a fixed move time)."""
        return self.tc is not None or self.search.movetime is not None

    def text(self) -> str:
        """The limits as the PGN TimeControl text (``10+0.1``, ``st=0.5``, ``depth=3``)."""
        parts = []
        if self.tc is not None:
            parts.append(self.tc.text())
        if self.search.movetime is not None:
            parts.append(f"st={_ms_text(self.search.movetime)}")
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
        movetime = None if st is None else round(_seconds("st=", st, 0.001, MAX_MOVETIME_S) * 1000)
        depth = keys.get("depth")
        nodes = keys.get("nodes")
        return EngineLimits(
            tc,
            GoLimits(
                depth=None if depth is None else _int("depth=", depth, 1, MAX_DEPTH),
                nodes=None if nodes is None else _int("nodes=", nodes, 1, MAX_NODES),
                movetime=movetime,
            ),
            _int("timemargin=", keys.get("timemargin", "0"), 0, MAX_MS, " of milliseconds"),
        )

    def keys(self) -> dict[str, str]:
        """The ``key=value`` words :meth:`parse` reads back into these limits."""
        out: dict[str, str] = {}
        if self.tc is not None:
            out["tc"] = self.tc.text()
        if self.search.movetime is not None:
            out["st"] = _ms_text(self.search.movetime)
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
    #: ``readyok`` after ``isready``: in the handshake, before each game, after a stall.
    #: None: the same as ``start``.
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
                f"{prefix.strip()}: unknown key {_shown(unknown[0])} (keys: {', '.join(self.KEYS)})"
            )
        values = {
            k: _seconds(f"{prefix}{k}=", v, _TIMEOUT_LOWEST[k], MAX_TIMEOUT_S)
            for k, v in keys.items()
        }
        return replace(self, **values)

    def to_json(self) -> dict[str, float | None]:
        return {"start": self.start, "ready": self.ready, "move": self.move, "grace": self.grace}


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


#: Keys of ``--engine`` (besides ``option.NAME`` and ``timeout.KEY``).
ENGINE_KEYS = ("cmd", "name", "proto", "tc", "st", "depth", "nodes", "timemargin", "dir")
_LIMIT_KEYS = ("tc", "st", "depth", "nodes", "timemargin")


@dataclass(frozen=True)
class EngineConfig:
    """One engine: how to run it (``cmd``, ``dir``), talk to it (``proto``, ``option.NAME``),
    ask it for moves (``limits``) and how long to wait for it (``timeouts``)."""

    name: str
    cmd: tuple[str, ...]
    limits: EngineLimits
    proto: Proto = Proto.UCI
    options: Mapping[str, str] = field(default_factory=dict)
    workdir: str | None = None
    timeouts: Timeouts = Timeouts()

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

    def describe(self) -> str:
        return f"{self.name} ({shlex.join(self.cmd)}, {self.proto.value})"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "cmd": list(self.cmd),
            "proto": self.proto.value,
            "options": dict(self.options),
            "dir": self.workdir,
            "limits": self.limits.keys(),
            "timeout": self.timeouts.to_json(),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any], timeouts: Timeouts) -> EngineConfig:
        """An engine of ``config.json``; ``timeouts`` serves an older file that kept them
        only for the whole match."""
        limits = _mapping(data, "limits")
        timeout = data.get("timeout")
        own = timeouts if timeout is None else _timeouts_json(timeout)
        return EngineConfig(
            name=_text(data, "name"),
            cmd=tuple(_texts(data, "cmd")),
            limits=EngineLimits.parse({k: str(v) for k, v in limits.items()}),
            proto=_proto(str(data.get("proto", "uci"))),
            options={str(k): str(v) for k, v in _mapping(data, "options").items()},
            workdir=None if data.get("dir") is None else _text(data, "dir"),
            timeouts=own,
        )


def _proto(text: str) -> Proto:
    try:
        return Proto(text.lower())
    except ValueError:
        raise ConfigError(f"proto={_shown(text)}: must be uci or ugi") from None


def builtin_engine() -> list[str]:
    """The command of the built-in engine: the ``zengine`` script of this installation."""
    beside = Path(sys.executable).with_name("zengine")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("zengine")
    if found:
        return [found]
    return [sys.executable, "-m", "zengine"]


def engine_config(keys: Mapping[str, str], defaults: Timeouts) -> EngineConfig:
    """An engine from its ``--engine`` (and ``--each``) words."""
    unknown = [
        k
        for k in keys
        if k not in ENGINE_KEYS and not k.startswith("option.") and not k.startswith("timeout.")
    ]
    if unknown:
        raise ConfigError(
            f"--engine: unknown key '{_shown(unknown[0])}' (keys: {', '.join(sorted(ENGINE_KEYS))}, "
            "option.NAME, timeout.start|ready|move|grace)"
        )
    given = keys.get("cmd")
    if given in (None, "", "zengine"):
        # The installation's own script, also when it is not on PATH.
        cmd = builtin_engine()
    else:
        # Checked before splitting, where a line break would pass for a space.
        plain_text("--engine cmd=", given)
        try:
            cmd = shlex.split(given)
        except ValueError as exc:
            raise ConfigError(f"--engine cmd={_shown(given)}: {exc}") from None
    if not cmd:
        raise ConfigError("--engine: empty cmd=")
    name = keys.get("name") or (
        Path(cmd[-1]).stem if cmd[0] == sys.executable else Path(cmd[0]).name
    )
    try:
        return EngineConfig(
            name=name,
            cmd=tuple(cmd),
            limits=EngineLimits.parse({k: keys[k] for k in _LIMIT_KEYS if k in keys}),
            proto=_proto(keys.get("proto", "uci")),
            options={k[len("option.") :]: v for k, v in keys.items() if k.startswith("option.")},
            workdir=keys.get("dir") or None,
            timeouts=defaults.with_keys(
                {k[len("timeout.") :]: v for k, v in keys.items() if k.startswith("timeout.")},
                "timeout.",
            ),
        )
    except ConfigError as exc:
        raise ConfigError(f"--engine {_shown(name)}: {exc}") from None


def check_commands(engines: Sequence[EngineConfig]) -> None:
    """Check that every engine's program exists and may be run (and its ``dir=`` exists), so
    that a typo is one line before the match starts, not a forfeit of the first game.

    The program is the first word of ``cmd``: a path (relative to ``dir=`` if given, as the
    process will be started there) or a name looked up on PATH."""
    for engine in engines:
        where = f"--engine {_shown(engine.name)}"
        workdir = engine.workdir
        if workdir is not None and not os.path.isdir(workdir):
            raise ConfigError(f"{where}: dir={_shown(workdir)}: no such directory")
        program = engine.cmd[0]
        if "/" not in program:
            if shutil.which(program) is None:
                raise ConfigError(
                    f"{where}: cmd={_shown(program)}: no such program on PATH (give its path)"
                )
            continue
        path = os.path.join(workdir or "", program)
        try:
            is_file = stat.S_ISREG(os.stat(path).st_mode)
        except OSError as exc:
            raise ConfigError(f"{where}: cmd={_shown(program)}: {exc.strerror}") from None
        if not is_file:
            raise ConfigError(f"{where}: cmd={_shown(program)}: not a file")
        if not os.access(path, os.X_OK):
            raise ConfigError(
                f"{where}: cmd={_shown(program)}: not executable (make it so, or run it "
                'through its interpreter: cmd="python3 engine.py")'
            )


# --- openings, adjudication, SPRT ---------------------------------------------------------------


class OpeningsKind(enum.Enum):
    RANDOM = "random"
    FILE = "file"
    NONE = "none"


@dataclass(frozen=True)
class OpeningsConfig:
    """``--openings``: random lines of ``plies`` plies, the lines of a ``file`` (in ``order``
    from line ``start``, each line's moves cut to ``file_plies`` plies if given, as
    cutechess's ``plies=``), or none (every game from the start position)."""

    kind: OpeningsKind = OpeningsKind.RANDOM
    plies: int = 4
    file: str | None = None
    order: str = "sequential"
    start: int = 1
    #: ``file=PATH plies=N``: at most N plies of each line's moves (None: the whole line).
    file_plies: int | None = None
    #: The SHA-256 (hex) of the file's bytes when the match started (None: not known, as in
    #: the config.json of an earlier version); ``--resume`` refuses a file that changed.
    digest: str | None = None

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
                f"--openings order={_shown(self.order)}: must be sequential or random"
            )
        if not 1 <= self.start <= MAX_GAMES:
            raise ConfigError(
                f"--openings start={self.start}: must be a whole number from 1 to {MAX_GAMES}"
            )

    @staticmethod
    def parse(words: list[str]) -> OpeningsConfig:
        kv = key_values("openings", words, bare=("random", "none", "startpos"))
        _no_extra("openings", kv, {"random", "none", "startpos", "file", "plies", "order", "start"})
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
                start=_int("--openings start=", kv.get("start", "1"), 1, MAX_GAMES),
                file_plies=None
                if plies is None
                else _int("--openings plies=", plies, 0, MAX_OPENING_PLIES),
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
            plies=_int("--openings plies=", kv.get("plies", "4"), 0, MAX_OPENING_PLIES)
        )

    def text(self) -> str:
        if self.kind is OpeningsKind.RANDOM:
            return f"random plies={self.plies}"
        if self.kind is OpeningsKind.FILE:
            cut = "" if self.file_plies is None else f" plies={self.file_plies}"
            return f"file={self.file} order={self.order}{cut}"
        return "none (start position)"

    def to_json(self) -> dict[str, Any]:
        if self.kind is OpeningsKind.RANDOM:
            return {"kind": "random", "plies": self.plies}
        if self.kind is OpeningsKind.FILE:
            data: dict[str, Any] = {
                "kind": "file",
                "file": self.file,
                "order": self.order,
                "start": self.start,
            }
            if self.file_plies is not None:
                data["plies"] = self.file_plies
            if self.digest is not None:
                data["sha256"] = self.digest
            return data
        return {"kind": "none"}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> OpeningsConfig:
        try:
            kind = OpeningsKind(data.get("kind", "none"))
        except ValueError:
            raise ConfigError(f"unknown openings kind '{_shown(str(data.get('kind')))}'") from None
        # A file's "plies" cuts its lines (absent in older folders: whole lines).
        file_kind = kind is OpeningsKind.FILE
        plies = _int("openings plies=", str(data.get("plies", 4)), 0, MAX_OPENING_PLIES)
        return OpeningsConfig(
            kind,
            plies=4 if file_kind else plies,
            file=None if data.get("file") is None else str(data["file"]),
            order=str(data.get("order", "sequential")),
            start=_int("openings start=", str(data.get("start", 1)), 1, MAX_GAMES),
            file_plies=plies if file_kind and "plies" in data else None,
            digest=None if data.get("sha256") is None else str(data["sha256"]),
        )


@dataclass(frozen=True)
class ResignRule:
    """``--resign``: a side whose own score was <= -``score`` cp for its last ``movecount``
    moves loses (with ``twosided``, only if the other side's was >= ``score`` as long)."""

    movecount: int = 3
    score: int = 1000
    twosided: bool = False

    def __post_init__(self) -> None:
        _within("--resign movecount=", self.movecount, 1, MAX_MOVECOUNT)
        _within("--resign score=", self.score, 0, MAX_CP, " of centipawns")


@dataclass(frozen=True)
class DrawRule:
    """``--draw``: from move ``movenumber`` on, a draw when both sides' last ``movecount``
    scores are within +-``score`` cp."""

    movenumber: int = 40
    movecount: int = 8
    score: int = 10

    def __post_init__(self) -> None:
        _within("--draw movenumber=", self.movenumber, 0, MAX_MOVENUMBER)
        _within("--draw movecount=", self.movecount, 1, MAX_MOVECOUNT)
        _within("--draw score=", self.score, 0, MAX_CP, " of centipawns")


@dataclass(frozen=True)
class Adjudication:
    """How the referee ends games the rules have not ended: by scores, or by a ply limit."""

    resign: ResignRule | None = None
    draw: DrawRule | None = None
    #: A draw after this many plies (0 = off).
    max_plies: int = 1000

    def __post_init__(self) -> None:
        _within("--maxplies", self.max_plies, 0, MAX_GAMES)


@dataclass(frozen=True)
class SprtConfig:
    """``--sprt``: stop the match when the SPRT of H1 (``elo1``) against H0 (``elo0``) decides,
    with error rates ``alpha`` (false H1) and ``beta`` (false H0)."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for key in ("elo0", "elo1"):
            _real(f"--sprt {key}=", str(getattr(self, key)), -MAX_SPRT_ELO, MAX_SPRT_ELO)
        for key in ("alpha", "beta"):
            _real(f"--sprt {key}=", str(getattr(self, key)), 0.0, 1.0, open_ends=True)
        if self.alpha + self.beta >= 1:
            raise ConfigError("--sprt: need alpha + beta < 1 (else the bounds cross)")
        if not self.elo0 < self.elo1:
            raise ConfigError("--sprt: need elo1 > elo0")

    KEYS = ("elo0", "elo1", "alpha", "beta")

    @staticmethod
    def parse(words: list[str]) -> SprtConfig:
        """``elo0= elo1= alpha= beta=``: elo0 and elo1 together or neither (for the defaults);
        one alone would test against a default the user did not choose."""
        kv = key_values("sprt", words)
        _no_extra("sprt", kv, set(SprtConfig.KEYS))
        if ("elo0" in kv) != ("elo1" in kv):
            raise ConfigError(
                "--sprt: give elo0= and elo1= together (or neither, for elo0=0 elo1=5)"
            )
        default = SprtConfig()
        limits = {"elo0": MAX_SPRT_ELO, "elo1": MAX_SPRT_ELO, "alpha": 1.0, "beta": 1.0}
        return SprtConfig(
            **{
                k: _real(
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

    def to_json(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


# --- the match ----------------------------------------------------------------------------------


class Tournament(enum.Enum):
    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"


@dataclass(frozen=True)
class MatchConfig:
    """A whole match: its engines, the game, the schedule and the rules of the referee."""

    engines: tuple[EngineConfig, ...]
    variant: str
    seed: int
    rules: Mapping[str, str] = field(default_factory=dict)
    games: int = 2
    rounds: int = 1
    tournament: Tournament = Tournament.ROUND_ROBIN
    concurrency: int = 1
    openings: OpeningsConfig = OpeningsConfig()
    adjudication: Adjudication = Adjudication()
    sprt: SprtConfig | None = None
    recover: bool = False
    out: str | None = None
    event: str = "zengine match"
    debug: bool = False
    #: Games between the live Elo lines (``--ratinginterval``; 0 = none).
    rating_interval: int = 10
    #: The directory the match was started from (absolute; None in the config.json of an
    #: earlier version): relative commands and ``dir=`` were run from there, and a resume
    #: from elsewhere runs them from there again (:meth:`in_start_dir`).
    start_dir: str | None = None

    def __post_init__(self) -> None:
        if len(self.engines) < 2:
            raise ConfigError("give at least two engines (or none for the demonstration)")
        names = Counter(e.name for e in self.engines)
        twice = [n for n, c in names.items() if c > 1]
        if twice:
            raise ConfigError(f"two engines are named '{twice[0]}'")
        if self.sprt is not None and len(self.engines) != 2:
            raise ConfigError("--sprt needs exactly two engines")
        _within("--games", self.games, 1, MAX_GAMES)
        _within("--rounds", self.rounds, 1, MAX_GAMES)
        encounters = len(self.engines) - 1
        if self.tournament is Tournament.ROUND_ROBIN:
            encounters = len(self.engines) * (len(self.engines) - 1) // 2
        if self.games * self.rounds * encounters > MAX_GAMES:
            raise ConfigError(
                f"{self.games * self.rounds * encounters} games in all: at most {MAX_GAMES} "
                "(--games x --rounds x encounters)"
            )
        _within("--concurrency", self.concurrency, 1, MAX_CONCURRENCY)
        _within("--seed", self.seed, 0, MAX_NODES)
        plain_text("--event", self.event)
        for key, value in self.rules.items():
            plain_text("--rule", f"{key}={value}")
        _within("--ratinginterval", self.rating_interval, 0, MAX_GAMES)
        self.make_rules()

    def make_rules(self) -> Rules:
        """The rules of the games (checked when the configuration is made)."""
        try:
            return make_rules(self.variant, self.rules)
        except GameError as exc:
            raise ConfigError(f"--variant/--rule: {_shown(str(exc))}") from None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.engines)

    def to_json(self) -> dict[str, Any]:
        """``config.json``: :meth:`from_json` reads it back into an equal configuration."""
        adj = self.adjudication
        return {
            "engines": [e.to_json() for e in self.engines],
            "variant": self.variant,
            "rules": dict(self.rules),
            "seed": self.seed,
            "games": self.games,
            "rounds": self.rounds,
            "tournament": self.tournament.value,
            "concurrency": self.concurrency,
            "openings": self.openings.to_json(),
            "resign": None if adj.resign is None else asdict(adj.resign),
            "draw": None if adj.draw is None else asdict(adj.draw),
            "maxplies": adj.max_plies,
            "sprt": None if self.sprt is None else self.sprt.to_json(),
            "recover": self.recover,
            "out": self.out,
            "event": self.event,
            "debug": self.debug,
            "ratinginterval": self.rating_interval,
            "start_dir": self.start_dir,
        }

    @staticmethod
    def from_json(data: Any) -> MatchConfig:
        """The configuration of ``config.json`` (also as older versions wrote it)."""
        if not isinstance(data, Mapping):
            raise ConfigError("the configuration is not a JSON object")
        timeouts = _timeouts_json(data.get("timeout") or {})
        engines = data.get("engines")
        if not isinstance(engines, list) or not all(isinstance(e, Mapping) for e in engines):
            raise ConfigError("the configuration has no list of engines")
        resign, draw, sprt = data.get("resign"), data.get("draw"), data.get("sprt")
        try:
            tournament = Tournament(data.get("tournament", "round-robin"))
        except ValueError:
            raise ConfigError(f"unknown tournament '{data.get('tournament')}'") from None
        return MatchConfig(
            engines=tuple(EngineConfig.from_json(e, timeouts) for e in engines),
            variant=_text(data, "variant"),
            seed=_json_int(data, "seed"),
            rules={str(k): str(v) for k, v in _mapping(data, "rules").items()},
            games=_json_int(data, "games"),
            rounds=_json_int(data, "rounds"),
            tournament=tournament,
            concurrency=_json_int(data, "concurrency"),
            openings=OpeningsConfig.from_json(_mapping(data, "openings")),
            adjudication=Adjudication(
                resign=None
                if resign is None
                else ResignRule(**_json_ints(resign, "resign", ResignRule, bools=("twosided",))),
                draw=None if draw is None else DrawRule(**_json_ints(draw, "draw", DrawRule)),
                max_plies=_json_int(data, "maxplies"),
            ),
            sprt=None if sprt is None else SprtConfig(**_json_sprt(sprt)),
            recover=_json_bool(data, "recover"),
            out=None if data.get("out") is None else str(data["out"]),
            event=_text(data, "event") if "event" in data else "zengine match",
            debug=_json_bool(data, "debug"),
            # Older folders have none: the default.
            rating_interval=_json_int({"ratinginterval": 10, **data}, "ratinginterval"),
            start_dir=None if data.get("start_dir") is None else _text(data, "start_dir"),
        )

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


# --- config.json helpers: a wrong type is a ConfigError, never a TypeError ------------------------


def _mapping(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key) or {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"configuration: '{key}' is not an object")
    return value


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ConfigError(f"configuration: '{key}' is not a string")
    return value


def _texts(data: Mapping[str, Any], key: str) -> list[str]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"configuration: '{key}' is not a list of strings")
    return value


def _json_int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"configuration: '{key}' is not a whole number")
    return value


def _json_bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"configuration: '{key}' is not true or false")
    return value


def _json_ints(data: Any, key: str, kind: type, bools: tuple[str, ...] = ()) -> dict[str, Any]:
    """The fields of an adjudication rule (``kind``); a missing one keeps its default."""
    known = set(kind.__dataclass_fields__)  # type: ignore[attr-defined]
    if not isinstance(data, Mapping) or not set(data) <= known:
        raise ConfigError(f"configuration: '{key}' is not an object of {', '.join(sorted(known))}")
    return {k: _json_bool(data, k) if k in bools else _json_int(data, k) for k in data}


def _json_numbers(data: Any, key: str) -> dict[str, float]:
    if not isinstance(data, Mapping) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in data.values()
    ):
        raise ConfigError(f"configuration: '{key}' is not an object of numbers")
    return {str(k): float(v) for k, v in data.items()}


def _json_sprt(data: Any) -> dict[str, float]:
    """The SPRT's settings: all four, as the command line stores them."""
    numbers = _json_numbers(data, "sprt")
    if set(numbers) != set(SprtConfig.KEYS):
        raise ConfigError("configuration: 'sprt' is not an object of elo0, elo1, alpha, beta")
    return numbers


def _timeouts_json(data: Any) -> Timeouts:
    if not isinstance(data, Mapping) or not set(data) <= set(Timeouts.KEYS):
        raise ConfigError("configuration: 'timeout' is not an object of start, ready, move, grace")
    # An earlier version wrote no "ready": its isready waits were the start timeout (None).
    return Timeouts(**_json_numbers({k: v for k, v in data.items() if v is not None}, "timeout"))


# --- the command line ---------------------------------------------------------------------------

#: option -> number of value words: None = any number of words (up to the next option)
OPTIONS: dict[str, int | None] = {
    "engine": None,
    "each": None,
    "variant": 1,
    "rule": None,
    "games": 1,
    "rounds": 1,
    "tournament": 1,
    "concurrency": 1,
    "openings": None,
    "seed": 1,
    "maxplies": 1,
    "resign": None,
    "draw": None,
    "sprt": None,
    "recover": 0,
    "out": 1,
    "resume": 1,
    "timeout": None,
    "event": 1,
    "debug": 0,
    "ratinginterval": 1,
    # Where the games are played, not what the match is: tools/referee/match.py reads it.
    "cluster": 1,
}


#: The words that ask for the help.
HELP_WORDS = ("-h", "--help", "-help")


def split_options(args: list[str]) -> list[tuple[str, list[str]]]:
    """``--opt word word --opt2 ...`` -> ``[(opt, words)]`` (``-opt`` works too, as in cutechess).

    ``-h``, ``--help`` (where an option may stand) give ``("help", [])``: the caller prints the
    help. Only a whole word is an option: ``--resume -dir`` is the folder ``-dir``."""
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token.lower() in HELP_WORDS:
            out.append(("help", []))
            i += 1
            continue
        if not token.startswith("-") or token in ("-", "--"):
            raise ConfigError(f"unexpected argument '{_shown(token)}' (options start with --)")
        name = token.lstrip("-").lower()
        if name not in OPTIONS:
            raise ConfigError(_unknown_option(token))
        arity = OPTIONS[name]
        i += 1
        words: list[str] = []
        while i < len(args) and (arity is None or len(words) < arity):
            if args[i].startswith("--") or (arity is None and _is_option(args[i])):
                break
            words.append(args[i])
            i += 1
        if arity is not None and len(words) != arity:
            raise ConfigError(f"--{name} needs {arity} value{'s' if arity > 1 else ''}")
        out.append((name, words))
    return out


def _unknown_option(token: str) -> str:
    return f"unknown option '{_shown(token)}' (known: {', '.join('--' + o for o in OPTIONS)})"


def _is_option(token: str) -> bool:
    return token.lower() in HELP_WORDS or (
        token.startswith("-") and token.lstrip("-").lower() in OPTIONS
    )


def key_values(option: str, words: list[str], bare: tuple[str, ...] = ()) -> dict[str, str]:
    """``key=value`` words as a dict; words listed in ``bare`` may stand alone (value "")."""
    out: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            if word.lower() in bare:
                out[word.lower()] = ""
                continue
            if word.startswith("-"):  # an option misspelt: say so, as after other options
                raise ConfigError(_unknown_option(word))
            raise ConfigError(f"--{option}: '{_shown(word)}' is not key=value")
        if not key:
            raise ConfigError(f"--{option}: '{_shown(word)}' has no key")
        out[key if key.startswith("option.") else key.lower()] = value
    return out


def _no_extra(option: str, kv: Mapping[str, str], allowed: set[str]) -> None:
    extra = set(kv) - allowed
    if extra:
        raise ConfigError(
            f"--{option}: unknown key{'s' if len(extra) > 1 else ''} "
            f"{', '.join(_shown(k) for k in sorted(extra))} "
            f"(keys: {', '.join(sorted(allowed))})"
        )


def _dedupe(names: list[str], explicit: list[bool]) -> list[str]:
    """Names that tell engines apart in records. An automatic name (from the command, no
    ``name=``) shared with another engine is numbered: ``zengine, zengine`` -> ``zengine-1,
    zengine-2`` (skipping any name another engine has). A ``name=`` the user gave is kept
    as it is, and given twice it is refused, as fastchess does: renaming it would put a name
    in the records that the user never wrote (and ``--each name=`` names every engine alike)."""
    given = Counter(n for n, e in zip(names, explicit) if e)
    twice = [n for n, count in given.items() if count > 1]
    if twice:
        raise ConfigError(
            f"--engine name={_shown(twice[0])}: two engines are named so (give each its own name=)"
        )
    counts = Counter(names)
    # Every name that stays as it is: the given ones and the automatic ones used once (an
    # engine whose command is ./x-1 is named x-1 too).
    taken = set(given) | {n for n, e in zip(names, explicit) if not e and counts[n] == 1}
    seen: Counter[str] = Counter()
    out = []
    for name, own in zip(names, explicit):
        if not own and counts[name] > 1:
            seen[name] += 1
            while f"{name}-{seen[name]}" in taken:
                seen[name] += 1
            name = f"{name}-{seen[name]}"
            taken.add(name)
        out.append(name)
    return out


def parse_command_line(args: list[str]) -> MatchConfig:
    """The command line as a validated configuration (the seed is drawn if absent)."""
    engines: list[dict[str, str]] = []
    each: dict[str, str] = {}
    settings: dict[str, Any] = {}
    rules: dict[str, str] = {}
    timeouts = Timeouts()
    resign: ResignRule | None = None
    draw: DrawRule | None = None
    max_plies = Adjudication().max_plies
    for name, words in split_options(args):
        if name == "engine":
            engines.append(key_values(name, words))
        elif name == "each":
            each.update(key_values(name, words))
        elif name == "variant":
            settings["variant"] = words[0]
        elif name == "rule":
            rules.update({k.lower(): v for k, v in key_values(name, words).items()})
        elif name in ("games", "rounds"):
            settings[name] = _int(f"--{name}", words[0], 1, MAX_GAMES)
        elif name == "concurrency":
            settings[name] = parse_concurrency(words[0])
        elif name == "ratinginterval":
            settings["rating_interval"] = parse_rating_interval(words[0])
        elif name == "seed":
            settings[name] = _int("--seed", words[0], 0, MAX_NODES)
        elif name == "maxplies":
            max_plies = _int("--maxplies", words[0], 0, MAX_GAMES)
        elif name == "tournament":
            try:
                settings[name] = Tournament(words[0])
            except ValueError:
                raise ConfigError(
                    f"--tournament {_shown(words[0])}: must be round-robin or gauntlet"
                ) from None
        elif name == "openings":
            settings["openings"] = OpeningsConfig.parse(words)
        elif name == "resign":
            kv = key_values(name, words)
            _no_extra(name, kv, {"movecount", "score", "twosided"})
            resign = ResignRule(
                _int("--resign movecount=", kv.get("movecount", "3"), 1, MAX_MOVECOUNT),
                _int("--resign score=", kv.get("score", "1000"), 0, MAX_CP, " of centipawns"),
                _bool("--resign twosided=", kv.get("twosided", "false")),
            )
        elif name == "draw":
            kv = key_values(name, words)
            _no_extra(name, kv, {"movenumber", "movecount", "score"})
            draw = DrawRule(
                _int("--draw movenumber=", kv.get("movenumber", "40"), 0, MAX_MOVENUMBER),
                _int("--draw movecount=", kv.get("movecount", "8"), 1, MAX_MOVECOUNT),
                _int("--draw score=", kv.get("score", "10"), 0, MAX_CP, " of centipawns"),
            )
        elif name == "sprt":
            settings["sprt"] = SprtConfig.parse(words)
        elif name == "timeout":
            timeouts = timeouts.with_keys(key_values(name, words), "--timeout ")
        elif name in ("recover", "debug"):
            settings[name] = True
        elif name in ("out", "event"):
            settings[name] = words[0]
        elif name == "resume":
            raise ConfigError(
                "--resume DIR takes no other option except --concurrency and --ratinginterval"
            )

    if not engines:  # the demonstration
        engines = [{}, {}]
        if not any(k in each for k in ("tc", "st", "depth", "nodes")):
            each = {**DEMO_LIMITS, **each}
        settings.setdefault("games", DEMO_GAMES)
    if len(engines) == 1:
        raise ConfigError("one --engine given: give at least two (or none for the demonstration)")
    merged = [{**each, **e} for e in engines]
    configs = [engine_config(keys, timeouts) for keys in merged]
    names = _dedupe([c.name for c in configs], [bool(keys.get("name")) for keys in merged])
    return MatchConfig(
        engines=tuple(replace(c, name=n) for c, n in zip(configs, names)),
        variant=settings.pop("variant", variant_names()[0]),
        seed=settings.pop("seed") if "seed" in settings else secrets.randbelow(2**31),
        rules=rules,
        adjudication=Adjudication(resign, draw, max_plies),
        **settings,
    )
