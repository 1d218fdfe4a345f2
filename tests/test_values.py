"""The shared value types: go limits, scores, info lines, outcomes, numbers in text."""

from __future__ import annotations

import random
from dataclasses import fields

import pytest

from zengine.engine.values import (
    MAX_MS,
    GoLimits,
    Info,
    Result,
    Score,
    TextError,
    format_go,
    parse_go,
    parse_info,
    parse_int,
)
from zengine.tools.referee.terminations import Ending, Termination

EXAMPLE = GoLimits(
    depth=7,
    nodes=123456,
    movetime=250,
    p1time=60000,
    p2time=59000,
    p1inc=500,
    p2inc=400,
    movestogo=12,
    infinite=True,
    searchmoves=("a1xa2", "b0-c3"),
)


@pytest.mark.parametrize("proto", ["uci", "ugi"])
def test_format_then_parse_gives_every_field_back(proto: str) -> None:
    for f in fields(GoLimits):
        one = GoLimits(**{f.name: getattr(EXAMPLE, f.name)})
        line = format_go(one, proto)
        assert line.startswith("go")
        assert parse_go(line.split()[1:]) == one, line
    line = format_go(EXAMPLE, proto)
    assert parse_go(line.split()[1:]) == EXAMPLE
    assert ("wtime" in line) == (proto == "uci") and ("p1time" in line) == (proto == "ugi")


def test_random_limits_round_trip() -> None:
    rng = random.Random(5)
    for _ in range(300):
        values = {}
        for f in fields(GoLimits):
            if rng.random() < 0.5:
                continue
            if f.name in ("infinite", "ponder"):
                values[f.name] = True
            elif f.name == "searchmoves":
                values[f.name] = tuple(f"m{i}" for i in range(rng.randint(1, 3)))
            else:
                values[f.name] = rng.randint(1, 1000 if f.name == "depth" else MAX_MS)
        limits = GoLimits(**values)
        for proto in ("uci", "ugi"):
            assert parse_go(format_go(limits, proto).split()[1:]) == limits


def test_parse_go_spellings_and_clocks() -> None:
    assert parse_go("WTIME 10 btime 20 winc 1 binc 2".split()) == GoLimits(
        p1time=10, p2time=20, p1inc=1, p2inc=2
    )
    assert parse_go("wtime 10 p1time 30".split()).p1time == 30  # the later one counts
    assert parse_go("btime -50".split()).p2time == 0  # a negative clock counts as 0
    assert parse_go([]) == GoLimits()


@pytest.mark.parametrize(
    ("tokens", "code"),
    [
        ("depth", "syntax"),
        ("depth x", "syntax"),
        ("depth 0", "bad-value"),
        ("depth 1.5", "syntax"),
        ("nodes " + "9" * 5000, "bad-value"),
        ("movetime -1", "bad-value"),
        ("movetime ١٠٠", "syntax"),
        ("movetime １００", "syntax"),
        ("mate 3", "syntax"),
        ("searchmoves", "syntax"),
        ("bogus 3", "syntax"),
    ],
)
def test_parse_go_errors(tokens: str, code: str) -> None:
    with pytest.raises(TextError) as caught:
        parse_go(tokens.split())
    assert caught.value.code == code
    assert len(str(caught.value)) < 120


def test_unbounded_is_one_rule() -> None:
    assert GoLimits().unbounded(0) and GoLimits().unbounded(1)
    assert GoLimits(infinite=True, depth=3).unbounded(0)
    only_p1 = GoLimits(p1time=1000)
    assert not only_p1.unbounded(0) and only_p1.unbounded(1)
    for bounded in (GoLimits(depth=1), GoLimits(nodes=5), GoLimits(movetime=0)):
        assert not bounded.unbounded(0) and not bounded.unbounded(1)


def test_parse_int_bounds_and_digits() -> None:
    assert parse_int("+12", "n") == 12 and parse_int("-3", "n", -5, 5) == -3
    with pytest.raises(TextError, match=r"out of range \(1 to 5\)"):
        parse_int("6", "n", 1, 5)
    with pytest.raises(TextError, match="at least 0"):
        parse_int("-1", "n", 0)
    # zeros in front make no number longer, however many (int() refuses past 4,300 digits)
    assert parse_int("0" * 30 + "7", "n", 1, 9) == 7 and parse_int("-" + "0" * 5000, "n") == 0
    with pytest.raises(TextError, match=r"out of range \(1 to 9\)"):
        parse_int("0" * 5000 + "10", "n", 1, 9)
    for bad in ("", "1e3", "0x10", "١", "１", " 1", "1_000"):
        with pytest.raises(TextError) as caught:
            parse_int(bad, "n")
        assert caught.value.code == "syntax"


@pytest.mark.parametrize(
    ("text", "score"),
    [("cp 35", Score(cp=35)), ("cp -7", Score(cp=-7)), ("mate -2", Score(mate=-2))],
)
def test_score_text_both_ways(text: str, score: Score) -> None:
    assert Score.parse(text) == score and score.format() == text == str(score)


def test_score_views() -> None:
    assert Score(cp=46).pawns_text() == "+0.46" and Score(cp=-100).pawns_text() == "-1.00"
    assert Score(mate=3).pawns_text() == "+M3" and Score(mate=-3).pawns_text() == "-M3"
    assert Score(mate=2).centipawns() > Score(mate=3).centipawns() > Score(cp=5000).centipawns()
    assert Score(mate=-1).centipawns() < Score(mate=-4).centipawns() < Score(cp=-5000).centipawns()
    with pytest.raises(ValueError):
        Score()
    with pytest.raises(TextError):
        Score.parse("lowerbound 3")


def test_info_line_written_is_the_line_read() -> None:
    info = Info(
        depth=3,
        seldepth=7,
        score=Score(cp=36),
        nodes=5737,
        nps=63414,
        time_ms=90,
        hashfull=7,
        pv=("a3-d1", "h2-f1", "d1-c2"),
    )
    line = info.format()
    assert line == (
        "info depth 3 seldepth 7 score cp 36 nodes 5737 nps 63414 time 90 hashfull 7"
        " pv a3-d1 h2-f1 d1-c2"
    )
    assert parse_info(line) == info
    assert parse_info(Info(depth=1, score=Score(mate=-1)).format()) == Info(
        depth=1, score=Score(mate=-1)
    )


def test_info_lines_of_other_engines() -> None:
    line = "info depth 12 multipv 1 score cp 20 lowerbound wdl 1 2 3 nodes 99 currmove e2e4 pv e2e4"
    parsed = parse_info(line)
    assert parsed is not None
    assert (parsed.depth, parsed.score, parsed.nodes) == (12, Score(cp=20), 99)
    assert parse_info("info string depth 5 score cp 9") == Info()
    assert parse_info("info depth x score cp y nodes") == Info()
    assert parse_info("bestmove a1xa2") is None


def test_outcomes() -> None:
    assert [r.pgn for r in Result] == ["1-0", "0-1", "1/2-1/2"]
    assert all(Result.from_pgn(r.pgn) is r for r in Result)
    assert Result.win_for(0).winner == 0 and Result.win_for(1).winner == 1
    assert Result.DRAW.winner is None
    assert all(Termination.from_tag(t.value) is t for t in Termination)
    assert Ending(Result.DRAW, Termination.RULES, "repetition").reason() == "repetition"
    timed = Ending(Result.P2_WIN, Termination.TIME_FORFEIT, "445 ms used, 327 ms allowed")
    assert timed.reason() == "time forfeit: 445 ms used, 327 ms allowed" and timed.winner == 1
    with pytest.raises(ValueError):
        Result.from_pgn("1-1")
