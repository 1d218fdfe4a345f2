"""tools/stats.py against values computed by hand (the arithmetic is written out below)."""

import math

import pytest

from zengine.engine.values import Result
from zengine.tools import stats


def test_elo_of_scores():
    assert stats.elo(0.5) == 0.0
    # 3:1 odds: 400 * log10(3)
    assert stats.elo(0.75) == pytest.approx(190.848501887865, abs=1e-9)
    assert stats.elo(0.25) == pytest.approx(-190.848501887865, abs=1e-9)
    assert stats.elo(1.0) == math.inf and stats.elo(0.0) == -math.inf
    assert stats.logistic(stats.elo(0.6)) == pytest.approx(0.6)


def test_game_scores_and_wdl():
    assert stats.game_score(Result.P1_WIN, 0) == 1 and stats.game_score(Result.P1_WIN, 1) == 0
    assert stats.game_score(Result.P2_WIN, 1) == 1 and stats.game_score(Result.DRAW, 0) == 0.5
    assert [stats.wdl_of_score(s) for s in (1, 0.5, 0)] == [
        stats.WDL(1, 0, 0),
        stats.WDL(0, 1, 0),
        stats.WDL(0, 0, 1),
    ]
    wdl = stats.wdl_of_scores([1, 1, 0.5, 0])
    assert (wdl.wins, wdl.draws, wdl.losses, wdl.points, wdl.games) == (2, 1, 1, 2.5, 4)


def test_pentanomial_counts():
    pairs = [(1, 1), (1, 0), (0.5, 0.5), (0, 0.5), (1, 0.5), (0, 0)]
    assert stats.pentanomial(pairs) == [1, 1, 2, 1, 1]


def test_elo_interval_and_los_by_hand():
    # Pairs [LL, LD, LW+DD, DW, WW] = [1, 1, 4, 3, 1]: per-game scores 0, .25, .5, .75, 1.
    # mu = (0.25 + 2 + 2.25 + 1) / 10 = 0.55
    # var = .1*.55^2 + .1*.3^2 + .4*.05^2 + .3*.2^2 + .1*.45^2 = 0.0725; se = sqrt(0.0725/10)
    est = stats.elo_estimate([1, 1, 4, 3, 1])
    se = math.sqrt(0.0725 / 10)
    assert est.score == pytest.approx(0.55)
    assert est.elo == pytest.approx(-400 * math.log10(1 / 0.55 - 1))  # 34.86
    assert est.elo == pytest.approx(34.860, abs=1e-3)
    assert est.low == pytest.approx(-400 * math.log10(1 / (0.55 - 1.959964 * se) - 1), abs=1e-3)
    assert est.high == pytest.approx(-400 * math.log10(1 / (0.55 + 1.959964 * se) - 1), abs=1e-3)
    assert (est.low, est.high) == (pytest.approx(-82.74, abs=0.05), pytest.approx(161.4, abs=0.1))
    # LOS = Phi(0.05 / se) = Phi(0.58722) = 0.72147
    assert est.los == pytest.approx(0.72147, abs=1e-4)
    assert stats.elo_estimate([0, 0, 0, 0, 0]) is None


def test_los_extremes():
    assert stats.los([0, 0, 5, 0, 0]) == 0.5
    assert stats.los([0, 0, 0, 0, 5]) == 1.0
    assert stats.los([5, 0, 0, 0, 0]) == 0.0


def test_sprt_llr_binomial_is_the_classical_sprt():
    # With two cells (loss, win) the tilted distributions are (1-s, s): the LLR is the
    # classical W log(s1/s0) + L log((1-s1)/(1-s0)). s0 = 0.5, s1 = logistic(10) = 0.514387.
    s1 = 1 / (1 + 10 ** (-10 / 400))
    expected = 50 * math.log(s1 / 0.5) + 30 * math.log((1 - s1) / 0.5)
    assert expected == pytest.approx(0.5426, abs=1e-3)
    assert stats.sprt_llr([30, 50], 0, 10) == pytest.approx(expected, rel=1e-9)


def test_sprt_llr_pentanomial_matches_normal_approximation():
    # For small Elo differences the GSPRT LLR is close to the normal approximation
    # N (s1 - s0) (2 mu - s0 - s1) / (2 var) (fishtest's LLR_alt2 reasoning).
    counts = [80, 500, 1500, 560, 90]
    n = sum(counts)
    pdf = [(i / 4, c / n) for i, c in enumerate(counts)]
    mu = sum(a * p for a, p in pdf)
    var = sum(p * (a - mu) ** 2 for a, p in pdf)
    s0, s1 = stats.logistic(0), stats.logistic(5)
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    llr = stats.sprt_llr(counts, 0, 5)
    assert llr == pytest.approx(approx, rel=0.02)
    assert llr > 0  # the sample scores above s1's midpoint


def test_sprt_llr_tilted_distributions_have_the_right_means():
    pdf = [(i / 4, c / 20) for i, c in enumerate([2, 3, 8, 5, 2])]
    for s in (0.45, 0.5, 0.53):
        tilted = stats._mle(pdf, s)
        assert sum(p for _, p in tilted) == pytest.approx(1.0, abs=1e-9)
        assert sum(a * p for a, p in tilted) == pytest.approx(s, abs=1e-9)


def test_sprt_bounds_and_verdicts():
    lower, upper = stats.sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(
        2.944439, abs=1e-6
    )
    assert stats.sprt([0, 0, 0, 0, 0], 0, 10, 0.05, 0.05).verdict is None
    assert stats.sprt([0, 0, 10, 20, 200], 0, 10, 0.05, 0.05).verdict == "H1"
    assert stats.sprt([200, 20, 10, 0, 0], 0, 10, 0.05, 0.05).verdict == "H0"
    # Zero cells are regularised (1e-3), so an all-draw sample still gives a finite LLR.
    assert math.isfinite(stats.sprt_llr([0, 0, 30, 0, 0], 0, 10))
