"""Match statistics: pure functions over game and pair counts.

Scores are from one engine's point of view (win 1, draw 1/2, loss 0). Games are played in
pairs (one opening, colours swapped), so a pair scores 0, 1/2, 1, 3/2 or 2: the *pentanomial*
counts ``[LL, LD, LW+DD, DW, WW]``. Pairs of one opening are correlated; treating the pair as
the unit of the sample gives honest (narrower, correct) error bars, as fishtest does.

* :func:`elo_estimate`: logistic Elo of the mean score, with a 95% interval from the variance
  of the pair scores and the likelihood of superiority ``Phi((mu - 1/2) / se)``. The counts are
  regularised first by a prior of one pair spread evenly over the five pair scores
  (:data:`PRIOR`), so a small sample never gives an interval of zero width (2-0-2 as two even
  pairs) or an infinite one (one 2-0 pair); the interval is taken on the logit scale, so its
  ends stay finite.
* :func:`sprt_llr`: the generalised SPRT log-likelihood ratio of fishtest's logistic model
  (Michel Van den Bergh's GSPRT): the empirical pentanomial distribution is tilted by maximum
  likelihood to expectation ``s0`` and ``s1`` (the scores of ``elo0``/``elo1``) and the LLR is
  ``N * sum p_i log(p1_i / p0_i)``. Zero counts are regularised to 1e-3 as fishtest does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from zengine.engine.values import Result

#: Regularisation of empty pentanomial cells in the SPRT (fishtest's value).
EPSILON = 1e-3
#: Two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class WDL:
    """Wins, draws and losses of one engine."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    def __add__(self, other: WDL) -> WDL:
        return WDL(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)


def game_score(result: Result, side: int) -> float:
    """The score (1, 1/2, 0) of the player of ``side`` (0 = p1) in a game's result."""
    winner = result.winner
    if winner is None:
        return 0.5
    return 1.0 if winner == side else 0.0


def wdl_of_score(score: float) -> WDL:
    """One game of score 1, 1/2 or 0 as W/D/L counts."""
    return WDL(1, 0, 0) if score == 1.0 else WDL(0, 1, 0) if score == 0.5 else WDL(0, 0, 1)


def wdl_of_scores(scores: Iterable[float]) -> WDL:
    """Count wins, draws and losses of a sequence of game scores."""
    w = d = losses = 0
    for s in scores:
        if s == 1.0:
            w += 1
        elif s == 0.5:
            d += 1
        else:
            losses += 1
    return WDL(w, d, losses)


def pentanomial(pairs: Iterable[tuple[float, float]]) -> list[int]:
    """Pentanomial counts ``[0, 1/2, 1, 3/2, 2]`` of pairs of game scores of one engine."""
    counts = [0] * 5
    for a, b in pairs:
        counts[round((a + b) * 2)] += 1
    return counts


def logistic(elo_diff: float) -> float:
    """The expected score of an Elo difference: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))


def elo(score: float) -> float:
    """The logistic Elo difference of a mean score in [0, 1] (+-inf at the ends)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _pdf(counts: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """Total and ``(score, probability)`` pairs of a 3- or 5-cell count (scores in [0, 1])."""
    n = sum(counts)
    k = len(counts)
    return n, [(i / (k - 1), c / n) for i, c in enumerate(counts)]


def _mean_var(pdf: list[tuple[float, float]]) -> tuple[float, float]:
    mu = sum(a * p for a, p in pdf)
    var = sum(p * (a - mu) ** 2 for a, p in pdf)
    return mu, var


#: The prior added to the pentanomial counts before Elo, its interval and LOS are taken: one
#: pseudo-pair spread evenly over the pair scores 0, 1/2, 1, 3/2, 2. Its mean is an even score
#: and its variance (1/8 per pair mean) that of two independent coin-flip games, so it pulls a
#: handful of pairs towards "no difference, unknown spread" and is negligible after a few
#: dozen pairs.
PRIOR = (0.2, 0.2, 0.2, 0.2, 0.2)


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% interval and the likelihood of superiority, from the
    regularised pentanomial counts. ``score`` is the regularised mean score; ``pairs`` the
    number of real pairs."""

    elo: float
    low: float
    high: float
    los: float
    score: float
    pairs: int

    @property
    def margin(self) -> float:
        """Half the width of the 95% interval: the ``+/-`` of ``Elo difference: E +/- M``."""
        return (self.high - self.low) / 2


def elo_estimate(penta: Sequence[int]) -> EloEstimate | None:
    """Elo, 95% interval and LOS from pentanomial counts; None with no pair.

    :data:`PRIOR` is added to the counts. The per-game mean score is ``mu = E[pair score] / 2``;
    its standard error is ``se = sqrt(Var[pair score / 2] / N)``, N the pairs with the prior's
    one. The interval is ``elo(mu) +- 1.96 se * d elo / d mu`` (a normal interval of the log
    odds), finite because the prior keeps ``mu`` strictly between 0 and 1; close to
    ``elo(mu +- 1.96 se)`` for large samples, which goes infinite for small ones.
    """
    pairs = sum(penta)
    if pairs == 0:
        return None
    n, pdf = _pdf([c + p for c, p in zip(penta, PRIOR, strict=True)])
    mu, var = _mean_var(pdf)
    se = math.sqrt(var / n)
    centre = elo(mu)
    margin = Z95 * se * 400.0 / (math.log(10.0) * mu * (1.0 - mu))
    return EloEstimate(centre, centre - margin, centre + margin, los_of(mu, se), mu, pairs)


def los_of(mu: float, se: float) -> float:
    """Likelihood of superiority: the probability that the true mean score exceeds 1/2."""
    if se == 0.0:
        return 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
    return 0.5 * (1.0 + math.erf((mu - 0.5) / (se * math.sqrt(2.0))))


def los(penta: Sequence[int]) -> float | None:
    """LOS from the regularised pentanomial counts (None with no pair)."""
    estimate = elo_estimate(penta)
    return None if estimate is None else estimate.los


def _secular(pdf: list[tuple[float, float]]) -> float:
    """The root x of ``sum p_i a_i / (1 + x a_i) = 0`` with every ``1 + x a_i > 0``.

    Requires min a_i < 0 < max a_i. The function is strictly decreasing in x on the open
    interval ``(-1/max a, -1/min a)``, so bisection converges (no scipy needed).
    """
    lo_a = min(a for a, _ in pdf)
    hi_a = max(a for a, _ in pdf)
    lo, hi = -1.0 / hi_a, -1.0 / lo_a
    f = lambda x: sum(p * a / (1.0 + x * a) for a, p in pdf)  # noqa: E731
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid <= lo or mid >= hi:
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _mle(pdf: list[tuple[float, float]], s: float) -> list[tuple[float, float]]:
    """The distribution on the same scores closest (KL) to ``pdf`` with expectation ``s``."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [(a, p / (1.0 + x * (a - s))) for a, p in pdf]


def sprt_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0), logistic Elo.

    ``counts``: pentanomial pair counts (5 cells) or W/D/L as L, D, W (3 cells).
    0 with no data.
    """
    if sum(counts) == 0:
        return 0.0
    regular = [c if c > 0 else EPSILON for c in counts]
    n, pdf = _pdf(regular)
    s0, s1 = logistic(elo0), logistic(elo1)
    p0, p1 = _mle(pdf, s0), _mle(pdf, s1)
    return n * sum(p * math.log(q1 / q0) for (_, p), (_, q0), (_, q1) in zip(pdf, p0, p1))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The LLR bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


@dataclass(frozen=True)
class SprtState:
    """An SPRT's current LLR and verdict: ``"H0"`` (reject elo1), ``"H1"`` (accept), or None."""

    llr: float
    lower: float
    upper: float
    verdict: str | None


def sprt_state(llr: float, alpha: float, beta: float) -> SprtState:
    """The SPRT at ``llr``: its bounds and, once the LLR has left them, the verdict."""
    lower, upper = sprt_bounds(alpha, beta)
    verdict = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtState(llr, lower, upper, verdict)


def sprt(counts: Sequence[int], elo0: float, elo1: float, alpha: float, beta: float) -> SprtState:
    """The SPRT's state for pentanomial counts."""
    return sprt_state(sprt_llr(counts, elo0, elo1), alpha, beta)


def format_elo(value: float, decimals: int = 1, signed: bool = False, minus: str = "-") -> str:
    """Elo as text, rounded to ``decimals`` places, never ``-0``: a sign only when negative
    (cutechess's ``31.4``, ``-5.0``) or, if ``signed``, always (``+31``); infinities as
    ``inf``. ``minus`` is the minus sign written (the report's page uses U+2212)."""
    if math.isinf(value):
        text = ("+inf" if signed else "inf") if value > 0 else "-inf"
    else:
        text = f"{round(value, decimals) + 0.0:{'+' if signed else ''}.{decimals}f}"
    return text.replace("-", minus)
