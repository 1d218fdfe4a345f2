"""The running match counters against the statistics computed from scratch over every record.

The oracle below recomputes everything from the list of records, the way the referee did
before it kept counters: it shares only the arithmetic of tools/referee/stats.py (tested by hand in
test_stats.py) with the code under test, not the counting.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from zengine.engine.values import Result
from zengine.tools.referee import stats
from zengine.tools.referee.config import MatchConfig, SprtConfig
from zengine.tools.referee.options import parse_command_line
from zengine.tools.referee.records import GameRecord
from zengine.tools.referee.summary import count_games, summary
from zengine.tools.referee.tally import MatchTally
from zengine.tools.referee.terminations import Termination

NAMES = ("A", "B", "C")


def random_records(rng: random.Random, count: int) -> list[GameRecord]:
    """Games of a 3-engine round robin in a random finishing order, some pairs incomplete."""
    records = []
    encounters = [(0, 1), (0, 2), (1, 2)]
    game_id = 0
    for rnd in range(count // 12 + 1):
        for a, b in encounters:
            for g in range(4):
                p1, p2 = (a, b) if g % 2 == 0 else (b, a)
                records.append(
                    GameRecord(
                        id=game_id,
                        round=rnd,
                        pair=g // 2,
                        encounter=(a, b),
                        opening_index=g // 2,
                        event="e",
                        date="d",
                        variant="zola size 6",
                        variant_name="zola",
                        p1=NAMES[p1],
                        p2=NAMES[p2],
                        p1_index=p1,
                        p2_index=p2,
                        result=rng.choice(list(Result)),
                        termination=rng.choice(list(Termination)),
                        reason="r",
                        opening="",
                        opening_moves=(),
                        start_fen="",
                        final_fen="",
                        start_side=0,
                        moves=(),
                        times_ms=(),
                        scores=(),
                        depths=(),
                        time_control="-",
                        overhead_ms=rng.random(),
                        overhead_moves=rng.randrange(0, 50),
                    )
                )
                game_id += 1
    rng.shuffle(records)
    return records[:count]  # cutting the shuffled list leaves pairs with one game only


def from_scratch(records: list[GameRecord], a: int, b: int) -> tuple[stats.WDL, list[int]]:
    """a against b: W/D/L and the pentanomial of complete pairs, from every record."""
    games = [r for r in records if {r.p1_index, r.p2_index} == {a, b}]
    scores = [stats.game_score(r.result, 0 if r.p1_index == a else 1) for r in games]
    by_pair: dict[tuple[int, int], list[float]] = {}
    for record, score in zip(games, scores):
        by_pair.setdefault((record.round, record.pair), []).append(score)
    pairs = [(p[0], p[1]) for p in by_pair.values() if len(p) == 2]
    return stats.wdl_of_scores(scores), stats.pentanomial(pairs)


@pytest.mark.parametrize("seed", range(4))
def test_running_counters_equal_the_statistics_from_scratch(seed):
    rng = random.Random(seed)
    records = random_records(rng, rng.randrange(200, 400))
    sprt = SprtConfig(elo0=-10, elo1=10)
    tally = MatchTally(len(NAMES))
    seen: list[GameRecord] = []
    checkpoints = {len(records) // 3, len(records) - 1}
    for i, record in enumerate(records):
        tally.add(record)
        seen.append(record)
        if i not in checkpoints:
            continue
        assert tally.games == len(seen)
        for engine in range(len(NAMES)):
            for side, counts in ((0, tally.as_p1[engine]), (1, tally.as_p2[engine])):
                mine = [r for r in seen if (r.p1_index, r.p2_index)[side] == engine]
                expected = stats.wdl_of_scores(stats.game_score(r.result, side) for r in mine)
                assert counts == expected
        for (a, b), encounter in tally.encounters.items():
            wdl, penta = from_scratch(seen, a, b)
            assert encounter.wdl == wdl and encounter.pentanomial == penta
            as_p1 = [r for r in seen if r.p1_index == a and r.p2_index == b]
            assert encounter.as_p1 == stats.wdl_of_scores(
                stats.game_score(r.result, 0) for r in as_p1
            )
            assert encounter.elo() == stats.elo_estimate(penta)
        assert set(tally.encounters) == {
            (min(r.p1_index, r.p2_index), max(r.p1_index, r.p2_index)) for r in seen
        }
        _, penta01 = from_scratch(seen, 0, 1)
        state = tally.sprt(sprt)
        assert state.llr == stats.sprt_llr(penta01, sprt.elo0, sprt.elo1)
        assert state == stats.sprt(penta01, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta)
        assert tally.terminations == Counter(r.termination for r in seen)
        moves = sum(r.overhead_moves for r in seen)
        assert tally.overhead_moves == moves
        assert math.isclose(
            tally.overhead_ms_sum, sum(r.overhead_ms * r.overhead_moves for r in seen)
        )


def test_scores_of_games_with_and_without_pairs():
    """add_score (the report's way in, for records of any origin): paired games wait for their
    twin; a game of no pair counts as a pair of two such games."""
    rng = random.Random(5)
    for _ in range(100):
        tally = MatchTally(2)
        pairs = []
        for index in range(rng.randrange(0, 12)):
            first, second = rng.choice((0.0, 0.5, 1.0)), rng.choice((0.0, 0.5, 1.0))
            pairs.append((first, second))
            tally.add_score(0, 1, first, (1, index))
            tally.add_score(1, 0, 1.0 - second, (1, index))
        lone = rng.choice((0.0, 0.5, 1.0))
        tally.add_score(1, 0, lone, None)
        pairs.append((1.0 - lone, 1.0 - lone))
        assert tally.pentanomial_of(0) == stats.pentanomial(pairs)
        assert tally.pentanomial_of(1) == stats.pentanomial(pairs)[::-1]
        wdl = stats.wdl_of_scores([s for pair in pairs[:-1] for s in pair] + [1.0 - lone])
        assert tally.wdl(0) == wdl and tally.games == 2 * len(pairs) - 1


def test_summary_of_the_counters():
    cfg: MatchConfig = parse_command_line(
        ["--engine", "cmd=a", "name=A", "depth=1", "--engine", "cmd=b", "name=B", "depth=1"]
        + ["--sprt", "elo0=0", "elo1=10", "--seed", "1"]
    )
    rng = random.Random(9)
    template = random_records(rng, 24)[0]
    tally = MatchTally(2)
    results = [(Result.P1_WIN, 0), (Result.P1_WIN, 1), (Result.DRAW, 0), (Result.P2_WIN, 1)]
    for i, (result, p1) in enumerate(results):
        tally.add(
            GameRecord(
                **{
                    **template.__dict__,
                    "id": i,
                    "round": 0,
                    "pair": i // 2,
                    "result": result,
                    "termination": Termination.RULES,
                    "p1_index": p1,
                    "p2_index": 1 - p1,
                }
            )
        )
    data = summary(cfg, tally, 4, {})
    a, b = data["engines"]
    # A: win as p1, loss as p2 (game 2), draw as p1, win as p2 (game 4).
    assert (a["wins"], a["draws"], a["losses"], a["points"]) == (2, 1, 1, 2.5)
    assert a["as_p1"] == {"wins": 1, "draws": 1, "losses": 0}
    assert a["as_p2"] == {"wins": 1, "draws": 0, "losses": 1}
    assert b["points"] == 1.5
    enc = data["encounters"][0]
    assert enc["pentanomial"] == [0, 0, 1, 1, 0]  # pair 1: 1 + 0, pair 2: 1/2 + 1
    assert data["sprt"]["verdict"] is None and data["terminations"] == {"normal": 4}


def test_a_count_of_games_is_said_in_the_singular_for_one() -> None:
    assert [count_games(n) for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
