"""tools/referee/stats.py against values computed by hand (the arithmetic is written out below)."""

import math

import pytest

from zengine.engine.values import Result
from zengine.tools.referee import stats


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


def _by_hand(counts: list[float]) -> tuple[float, float, float]:
    """mu, se and the Elo margin of (already regularised) pentanomial counts, written out."""
    n = sum(counts)
    scores = [0, 0.25, 0.5, 0.75, 1]
    mu = sum(c * a for c, a in zip(counts, scores)) / n
    var = sum(c * (a - mu) ** 2 for c, a in zip(counts, scores)) / n
    se = math.sqrt(var / n)
    # d elo / d mu = 400 / (ln 10 mu (1 - mu))
    return mu, se, 1.959964 * se * 400 / (math.log(10) * mu * (1 - mu))


def test_elo_interval_and_los_by_hand():
    # Pairs [LL, LD, LW+DD, DW, WW] = [1, 1, 4, 3, 1] plus the prior 0.2 in each cell:
    # [1.2, 1.2, 4.2, 3.2, 1.2], 11 pairs; per-game scores 0, .25, .5, .75, 1.
    # mu = (0.3 + 2.1 + 2.4 + 1.2) / 11 = 6 / 11 = 0.545454...
    est = stats.elo_estimate([1, 1, 4, 3, 1])
    mu, se, margin = _by_hand([1.2, 1.2, 4.2, 3.2, 1.2])
    assert mu == pytest.approx(6 / 11)
    assert est.score == pytest.approx(mu) and est.pairs == 10
    assert est.elo == pytest.approx(-400 * math.log10(1 / mu - 1))
    assert est.elo == pytest.approx(31.68, abs=0.01)
    assert (est.low, est.high) == (pytest.approx(est.elo - margin), pytest.approx(est.elo + margin))
    assert est.margin == pytest.approx(margin) and margin == pytest.approx(115.25, abs=0.01)
    # LOS = Phi((mu - 0.5) / se)
    assert est.los == pytest.approx(0.5 * (1 + math.erf((mu - 0.5) / (se * math.sqrt(2)))))
    assert est.los == pytest.approx(0.7060, abs=1e-4)
    # A large sample hardly feels the prior: the interval is then close to mapping
    # mu +- 1.96 se through the Elo function.
    big = stats.elo_estimate([100, 100, 400, 300, 100])
    assert big.elo == pytest.approx(stats.elo(0.55), abs=0.2)
    mu, se, _ = _by_hand([100, 100, 400, 300, 100])
    assert big.low == pytest.approx(stats.elo(mu - 1.959964 * se), abs=0.5)
    assert big.high == pytest.approx(stats.elo(mu + 1.959964 * se), abs=0.5)


@pytest.mark.parametrize(
    "penta,elo,margin",
    [
        # 2-0-2 in four games as two even pairs: the interval had zero width.
        ([0, 0, 2, 0, 0], 0.0, 160.5),
        # 2-0-2 as one pair won twice and one lost twice: the same score, more spread.
        ([1, 0, 0, 0, 1], 0.0, 358.9),
        # One 2-0 pair: was +inf (95%: +inf .. +inf).
        ([0, 0, 0, 0, 1], 190.8, 454.0),
        # All wins, all draws.
        ([0, 0, 0, 0, 10], 528.9, 423.4),
        ([0, 0, 10, 0, 0], 0.0, 43.8),
    ],
    ids=["2-0-2 even pairs", "2-0-2 split pairs", "2-0", "all wins", "all draws"],
)
def test_small_samples_give_finite_intervals_of_some_width(penta, elo, margin):
    est = stats.elo_estimate(penta)
    mu, _se, by_hand = _by_hand([c + 0.2 for c in penta])
    assert est.elo == pytest.approx(stats.elo(mu)) and est.margin == pytest.approx(by_hand)
    assert est.elo == pytest.approx(elo, abs=0.1) and est.margin == pytest.approx(margin, abs=0.1)
    assert math.isfinite(est.low) and math.isfinite(est.high) and est.low < est.elo < est.high


def test_no_pair_no_estimate():
    # 0-0-0: nothing to estimate (the prior alone is not a result).
    assert stats.elo_estimate([0, 0, 0, 0, 0]) is None and stats.los([0, 0, 0, 0, 0]) is None


def test_los_extremes():
    assert stats.los([0, 0, 5, 0, 0]) == 0.5
    assert stats.los([0, 0, 0, 0, 5]) > 0.99 and stats.los([5, 0, 0, 0, 0]) < 0.01
    assert stats.los([0, 0, 0, 0, 5]) == pytest.approx(1 - stats.los([5, 0, 0, 0, 0]))


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
    # The verdict at an LLR is the one stats.sprt gives for the counts of that LLR.
    for counts in ([0, 0, 10, 20, 200], [200, 20, 10, 0, 0], [3, 1, 4, 1, 5]):
        llr = stats.sprt_llr(counts, 0, 10)
        assert stats.sprt_state(llr, 0.05, 0.05) == stats.sprt(counts, 0, 10, 0.05, 0.05)
    assert stats.sprt_state(upper, 0.05, 0.05).verdict == "H1"
    assert stats.sprt_state(lower, 0.05, 0.05).verdict == "H0"
    assert stats.sprt_state(upper - 1e-9, 0.05, 0.05).verdict is None


@pytest.mark.parametrize(
    "value, options, text",
    [
        # cutechess's Elo line: one decimal, a sign only when negative, never -0.0
        (31.44, {}, "31.4"),
        (-5.0, {}, "-5.0"),
        (-0.04, {}, "0.0"),
        (math.inf, {}, "inf"),
        (-math.inf, {}, "-inf"),
        # the report's page: whole, always signed, a true minus sign
        (70.4, {"decimals": 0, "signed": True}, "+70"),
        (-0.4, {"decimals": 0, "signed": True}, "+0"),
        (-29.5, {"decimals": 0, "signed": True, "minus": "\u2212"}, "\u221230"),
        (math.inf, {"decimals": 0, "signed": True}, "+inf"),
        (-math.inf, {"decimals": 0, "signed": True, "minus": "\u2212"}, "\u2212inf"),
    ],
)
def test_format_elo(value, options, text):
    assert stats.format_elo(value, **options) == text
