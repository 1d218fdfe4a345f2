"""How a refereed game ended: by the rules, or by one of the referee's own reasons.

The rules know only their own endings (:class:`zengine.engine.values.Outcome`); a time
forfeit, a stalled engine or an adjudication is the referee's word, kept here with the
game's record (:class:`Ending`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from zengine.engine.text import shown
from zengine.engine.values import Outcome, Result


class Termination(enum.Enum):
    """Why a game ended; the value is the PGN ``Termination`` tag's word."""

    #: By the game's rules (the detail names the rule: ``sharing``, ``repetition``, ...).
    RULES = "normal"
    #: The referee's ply limit.
    MAX_PLIES = "max plies"
    #: The referee's resign or draw adjudication by reported scores.
    ADJUDICATION = "adjudication"
    TIME_FORFEIT = "time forfeit"
    ILLEGAL_MOVE = "illegal move"
    #: An engine that answered no ``bestmove`` (or not in time to be waited for further).
    STALL = "stalled connection"
    #: An engine that exited or closed its output.
    DISCONNECT = "disconnect"
    #: Output that is no move (``bestmove (none)`` in a live game, unparsable text) or an
    #: ``error`` line in answer to the referee.
    PROTOCOL = "protocol error"
    #: The match stopped before the game ended (Ctrl-C, lost cluster); such games are replayed.
    ABANDONED = "abandoned"

    @staticmethod
    def from_tag(text: str) -> Termination:
        """The termination of a PGN tag word (ValueError otherwise)."""
        for termination in Termination:
            if termination.value == text:
                return termination
        raise ValueError(f"'{shown(text)}' is no termination")


@dataclass(frozen=True)
class Ending:
    """How a refereed game ended: its result, why, and a detail (the rule's own word, or the
    referee's specifics such as ``3000 ms used, 2200 ms allowed``)."""

    result: Result
    termination: Termination = Termination.RULES
    detail: str = ""

    @classmethod
    def by_rules(cls, outcome: Outcome) -> Ending:
        """The ending of a game its rules ended."""
        return cls(outcome.result, Termination.RULES, outcome.detail)

    @property
    def winner(self) -> int | None:
        """0 for p1, 1 for p2, None for a draw."""
        return self.result.winner

    def reason(self) -> str:
        """The ending in words, for records and people."""
        if self.termination is Termination.RULES:
            return self.detail or "game over by the rules"
        return f"{self.termination.value}: {self.detail}" if self.detail else self.termination.value
