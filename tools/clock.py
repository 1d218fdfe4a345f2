"""Time controls and the referee's clock: pure data and arithmetic, no real time.

A :class:`Limits` describes how one engine is asked to move (cutechess-cli's ``tc``, ``st``,
``depth``, ``nodes``, ``timemargin``); a :class:`Clock` is one player's remaining time during a
game. The referee measures the time itself (monotonic, from writing ``go`` to reading
``bestmove``) and feeds it to :meth:`Clock.spend`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TC_RE = re.compile(r"^(?:(\d+)/)?(\d+(?::\d{1,2}(?:\.\d+)?)?(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$")


class TimeControlError(ValueError):
    """A time control text that cannot be parsed."""


def _seconds(text: str) -> float:
    """``90``, ``1.5``, ``1:30`` or ``1:30.5`` as seconds."""
    if ":" in text:
        minutes, _, seconds = text.partition(":")
        if float(seconds) >= 60:
            raise TimeControlError(f"bad seconds in '{text}' (must be below 60)")
        return int(minutes) * 60 + float(seconds)
    return float(text)


@dataclass(frozen=True)
class TimeControl:
    """``moves/base+inc``: ``moves`` per period (0 = whole game), base and increment in ms."""

    base_ms: int
    inc_ms: int = 0
    moves: int = 0

    @staticmethod
    def parse(text: str) -> TimeControl:
        """Parse cutechess syntax: ``40/60``, ``10+0.1``, ``1:30+1``, ``40/5:00+2``."""
        match = _TC_RE.match(text.strip())
        if not match:
            raise TimeControlError(
                f"bad time control '{text}' (expected [moves/]base[+inc], base in s or m:ss, e.g. 10+0.1)"
            )
        moves, base, inc = match.groups()
        base_ms = round(_seconds(base) * 1000)
        inc_ms = round(float(inc) * 1000) if inc else 0
        if base_ms <= 0 and inc_ms <= 0:
            raise TimeControlError(f"bad time control '{text}': no time at all")
        if moves is not None and int(moves) <= 0:
            raise TimeControlError(f"bad time control '{text}': moves per period must be positive")
        return TimeControl(base_ms, inc_ms, int(moves) if moves else 0)

    def text(self) -> str:
        """The cutechess spelling (seconds), as in the PGN TimeControl tag."""

        def sec(ms: int) -> str:
            return f"{ms / 1000:g}"

        out = sec(self.base_ms)
        if self.moves:
            out = f"{self.moves}/{out}"
        if self.inc_ms:
            out += f"+{sec(self.inc_ms)}"
        return out


@dataclass(frozen=True)
class Limits:
    """How one engine is asked for its moves. At least one limit must be set."""

    tc: TimeControl | None = None
    movetime_ms: int | None = None  # st=: fixed time per move
    depth: int | None = None
    nodes: int | None = None
    margin_ms: int = 0  # timemargin=: overrun tolerated before a time loss

    def validate(self) -> None:
        """Raise ValueError unless some limit bounds every search."""
        if (
            self.tc is None
            and self.movetime_ms is None
            and self.depth is None
            and self.nodes is None
        ):
            raise ValueError(
                "no limit: give tc=, st=, depth= or nodes= (per engine or with --each)"
            )
        if self.tc is not None and self.movetime_ms is not None:
            raise ValueError("tc= and st= exclude each other")

    @property
    def timed(self) -> bool:
        """Whether the referee can forfeit on time (a clock or a fixed move time)."""
        return self.tc is not None or self.movetime_ms is not None

    def text(self) -> str:
        """The limits as the PGN TimeControl text (``10+0.1``, ``st=0.5``, ``depth=3``)."""
        parts = []
        if self.tc is not None:
            parts.append(self.tc.text())
        if self.movetime_ms is not None:
            parts.append(f"st={self.movetime_ms / 1000:g}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        return " ".join(parts) or "-"


@dataclass
class Clock:
    """One player's time during a game (only meaningful with a time control)."""

    limits: Limits
    remaining_ms: int = 0
    moves_made: int = 0
    history: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.limits.tc is not None:
            self.remaining_ms = self.limits.tc.base_ms

    def movestogo(self) -> int | None:
        """Moves left in the current period (None when the period is the whole game)."""
        tc = self.limits.tc
        if tc is None or not tc.moves:
            return None
        return tc.moves - self.moves_made % tc.moves

    def allowed_ms(self) -> int | None:
        """The most this move may take without a time loss (margin included); None = untimed."""
        if self.limits.tc is not None:
            return self.remaining_ms + self.limits.margin_ms
        if self.limits.movetime_ms is not None:
            return self.limits.movetime_ms + self.limits.margin_ms
        return None

    def spend(self, elapsed_ms: int) -> bool:
        """Charge a move's time; False if it was a time loss (the clock then stays as spent).

        With a clock: remaining -= elapsed (loss if below -margin), then + increment, then at
        the end of a period + base. With a fixed move time: loss if elapsed > st + margin.
        """
        allowed = self.allowed_ms()
        self.history.append(elapsed_ms)
        if allowed is not None and elapsed_ms > allowed:
            if self.limits.tc is not None:
                self.remaining_ms -= elapsed_ms
            return False
        tc = self.limits.tc
        if tc is not None:
            self.remaining_ms += tc.inc_ms - elapsed_ms
            self.moves_made += 1
            if tc.moves and self.moves_made % tc.moves == 0:
                self.remaining_ms += tc.base_ms
        else:
            self.moves_made += 1
        return True


def go_command(proto: str, side: int, clocks: tuple[Clock, Clock]) -> str:
    """The ``go`` line for the engine playing ``side`` (0 = p1), given both players' clocks.

    The mover's own limits decide what is sent: clocks (both players' remaining times, in the
    protocol's spelling), ``movestogo``, ``movetime``, ``depth``, ``nodes``.
    """
    own = clocks[side].limits
    parts = ["go"]
    if own.tc is not None:
        names = (
            ("p1time", "p2time", "p1inc", "p2inc")
            if proto == "ugi"
            else ("wtime", "btime", "winc", "binc")
        )
        times = []
        for clock in clocks:
            # The opponent may have no clock (e.g. depth-limited); report ours for both then.
            source = clock if clock.limits.tc is not None else clocks[side]
            times.append(max(source.remaining_ms, 1))
        incs = [(c.limits.tc.inc_ms if c.limits.tc is not None else own.tc.inc_ms) for c in clocks]
        parts += [names[0], str(times[0]), names[1], str(times[1])]
        parts += [names[2], str(incs[0]), names[3], str(incs[1])]
        mtg = clocks[side].movestogo()
        if mtg is not None:
            parts += ["movestogo", str(mtg)]
    if own.movetime_ms is not None:
        parts += ["movetime", str(own.movetime_ms)]
    if own.depth is not None:
        parts += ["depth", str(own.depth)]
    if own.nodes is not None:
        parts += ["nodes", str(own.nodes)]
    return " ".join(parts)
