"""Running match statistics: counters updated once per finished game.

A match adds each record once (:meth:`MatchTally.add`, O(1) in the number of records so far);
W/D/L per engine and colour, per encounter the pentanomial counts of complete pairs, Elo, LOS
and the SPRT's LLR are read from the counters. The functions of :mod:`tools.referee.stats` do the
arithmetic; this module only counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

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
        self._open: dict[Hashable, float] = {}
        self._llr_for: tuple[tuple[int, ...], SprtConfig] | None = None
        self._llr = 0.0

    def add(self, record: GameRecord) -> None:
        self.add_score(record.p1_index, record.score_of(record.p1_index), record.pair_key)

    def add_score(self, p1: int, p1_score: float, pair: Hashable | None) -> None:
        """Count one game: engine ``p1`` (``a`` or ``b``) played first and scored ``p1_score``.
        A game of ``pair`` waits for its twin; a game of no pair (a record of another tool)
        counts as a pair of two such games."""
        score = p1_score if p1 == self.a else 1.0 - p1_score
        if p1 == self.a:
            self.as_p1 += stats.wdl_of_score(score)
        else:
            self.as_p2 += stats.wdl_of_score(score)
        if pair is None:
            self.pentanomial[round(score * 4)] += 1
            return
        first = self._open.pop(pair, None)
        if first is None:
            self._open[pair] = score
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
        return stats.sprt_state(self._llr, config.alpha, config.beta)


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
        p1 = record.p1_index
        self.add_score(p1, record.p2_index, record.score_of(p1), record.pair_key)
        self.terminations[record.termination] += 1
        if record.overhead_moves:
            self.overhead_moves += record.overhead_moves
            self.overhead_ms_sum += record.overhead_ms * record.overhead_moves
            self.overhead_ms_max = max(self.overhead_ms_max, record.overhead_ms)

    def add_score(self, p1: int, p2: int, p1_score: float, pair: Hashable | None) -> None:
        """Count the score of one game between engines ``p1`` and ``p2`` (the report counts
        records of any origin this way; ``pair``: see :meth:`EncounterTally.add_score`)."""
        self.as_p1[p1] += stats.wdl_of_score(p1_score)
        self.as_p2[p2] += stats.wdl_of_score(1.0 - p1_score)
        key = (min(p1, p2), max(p1, p2))
        encounter = self.encounters.get(key)
        if encounter is None:
            encounter = self.encounters[key] = EncounterTally(*key)
        encounter.add_score(p1, p1_score, pair)
        self.games += 1

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
