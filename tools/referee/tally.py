"""Running match statistics: counters updated once per finished game.

A match adds each record once (:meth:`MatchTally.add`, O(1) in the number of records so far);
W/D/L per engine and colour, per encounter the pentanomial counts of complete pairs, Elo, LOS
and the SPRT's LLR are read from the counters. The functions of :mod:`tools.referee.stats` do the
arithmetic; this module only counts.
"""

from __future__ import annotations

from collections import Counter

from zengine.tools.referee import stats
from zengine.tools.referee.config import SprtConfig
from zengine.tools.referee.records import GameRecord
from zengine.tools.referee.terminations import Termination


class EncounterTally:
    """Engine ``a`` against engine ``b``, from ``a``'s view, game by game."""

    def __init__(self, a: int, b: int) -> None:
        self.a = a
        self.b = b
        #: a's results when it played p1 and p2.
        self.as_p1 = stats.WDL()
        self.as_p2 = stats.WDL()
        #: Complete pairs by a's pair score 0, 1/2, 1, 3/2, 2.
        self.pentanomial = [0, 0, 0, 0, 0]
        #: a's score in the first finished game of each (round, pair) still waiting for its twin.
        self._open: dict[tuple[int, int], float] = {}
        self._llr_for: tuple[tuple[int, ...], SprtConfig] | None = None
        self._llr = 0.0

    def add(self, record: GameRecord) -> None:
        score = record.score_of(self.a)
        if record.p1_index == self.a:
            self.as_p1 += stats.wdl_of_score(score)
        else:
            self.as_p2 += stats.wdl_of_score(score)
        key = (record.round, record.pair)
        first = self._open.pop(key, None)
        if first is None:
            self._open[key] = score
        else:
            self.pentanomial[round((first + score) * 2)] += 1

    @property
    def wdl(self) -> stats.WDL:
        return self.as_p1 + self.as_p2

    def elo(self) -> stats.EloEstimate | None:
        """Elo with its 95% interval and LOS, from the complete pairs (None before the first)."""
        return stats.elo_estimate(self.pentanomial)

    def sprt(self, config: SprtConfig) -> stats.SprtState:
        """The SPRT of ``a`` against ``b``; the LLR is recomputed only when a pair completes."""
        key = (tuple(self.pentanomial), config)
        if self._llr_for != key:
            self._llr = stats.sprt_llr(self.pentanomial, config.elo0, config.elo1)
            self._llr_for = key
        lower, upper = stats.sprt_bounds(config.alpha, config.beta)
        verdict = "H1" if self._llr >= upper else "H0" if self._llr <= lower else None
        return stats.SprtState(self._llr, lower, upper, verdict)


class MatchTally:
    """Every counter of a match: per engine, per encounter, terminations, referee overhead."""

    def __init__(self, engines: int) -> None:
        #: Per engine: its results as p1 and as p2.
        self.as_p1 = [stats.WDL() for _ in range(engines)]
        self.as_p2 = [stats.WDL() for _ in range(engines)]
        self.encounters: dict[tuple[int, int], EncounterTally] = {}
        self.terminations: Counter[Termination] = Counter()
        self.games = 0
        self.overhead_moves = 0
        self.overhead_ms_sum = 0.0
        self.overhead_ms_max = 0.0

    def add(self, record: GameRecord) -> None:
        """Count one finished game."""
        p1, p2 = record.p1_index, record.p2_index
        self.as_p1[p1] += stats.wdl_of_score(record.score_of(p1))
        self.as_p2[p2] += stats.wdl_of_score(record.score_of(p2))
        key = (min(p1, p2), max(p1, p2))
        encounter = self.encounters.get(key)
        if encounter is None:
            encounter = self.encounters[key] = EncounterTally(*key)
        encounter.add(record)
        self.terminations[record.termination] += 1
        self.games += 1
        if record.overhead_moves:
            self.overhead_moves += record.overhead_moves
            self.overhead_ms_sum += record.overhead_ms * record.overhead_moves
            self.overhead_ms_max = max(self.overhead_ms_max, record.overhead_ms)

    def wdl(self, engine: int) -> stats.WDL:
        return self.as_p1[engine] + self.as_p2[engine]

    def points(self, engine: int) -> float:
        return self.wdl(engine).points

    def pentanomial_of(self, engine: int) -> list[int]:
        """The complete pairs of ``engine`` against every opponent, from its view (for its Elo
        against the field in a tournament's ranking)."""
        counts = [0, 0, 0, 0, 0]
        for (a, b), encounter in self.encounters.items():
            if engine in (a, b):
                own = encounter.pentanomial if engine == a else encounter.pentanomial[::-1]
                counts = [c + d for c, d in zip(counts, own)]
        return counts

    def sprt(self, config: SprtConfig) -> stats.SprtState:
        """The SPRT of engine 0 against engine 1 (complete pairs only)."""
        encounter = self.encounters.get((0, 1)) or EncounterTally(0, 1)
        return encounter.sprt(config)
