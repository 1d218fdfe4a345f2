"""The referee's pure parts: time controls and the clock, the schedule and openings, records,
and the command line."""

import json

import pytest

from zengine.engine.variants import make_rules, variant_names
from zengine.tools import match as m
from zengine.tools.records import pgn_text, read_games, rewrite_games
from zengine.tools.schedule import (
    Opening,
    openings_for,
    parse_opening_line,
    read_openings,
    schedule,
)
from zengine.tools.tc import Clock, Limits, TimeControl, TimeControlError, go_command


# --- time controls ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,base,inc,moves",
    [
        ("10+0.1", 10000, 100, 0),
        ("40/60", 60000, 0, 40),
        ("1:30+1", 90000, 1000, 0),
        ("40/5:00+2", 300000, 2000, 40),
        ("0.5", 500, 0, 0),
        ("0:01.5+0.01", 1500, 10, 0),
    ],
)
def test_tc_parse(text, base, inc, moves):
    assert TimeControl.parse(text) == TimeControl(base, inc, moves)


@pytest.mark.parametrize("text", ["", "abc", "10+", "+1", "1:75", "0/10", "0", "10+x", "1:2:3"])
def test_tc_parse_rejects(text):
    with pytest.raises(TimeControlError):
        TimeControl.parse(text)


def test_clock_increment_period_and_forfeit():
    clock = Clock(Limits(tc=TimeControl(1000, 100, 2), margin_ms=50))
    assert clock.movestogo() == 2 and clock.allowed_ms() == 1050
    assert clock.spend(300)  # 1000 - 300 + 100
    assert clock.remaining_ms == 800 and clock.movestogo() == 1
    assert clock.spend(200)  # 800 - 200 + 100, then a new period: + 1000
    assert clock.remaining_ms == 1700 and clock.movestogo() == 2
    assert clock.spend(1750)  # within the margin: 1700 + 50
    assert clock.remaining_ms == 50
    assert not clock.spend(101)  # 50 + 50 allowed


def test_clock_movetime():
    clock = Clock(Limits(movetime_ms=200, margin_ms=10))
    assert clock.spend(210) and not clock.spend(211)
    assert Clock(Limits(depth=3)).allowed_ms() is None


def test_go_commands():
    tc = Limits(tc=TimeControl(60000, 500, 40))
    clocks = (Clock(tc), Clock(Limits(tc=TimeControl(30000, 0))))
    assert go_command("uci", 0, clocks) == "go wtime 60000 btime 30000 winc 500 binc 0 movestogo 40"
    assert go_command("ugi", 1, clocks) == "go p1time 60000 p2time 30000 p1inc 500 p2inc 0"
    fixed = (Clock(Limits(movetime_ms=250, depth=4)), Clock(Limits(nodes=1000)))
    assert go_command("uci", 0, fixed) == "go movetime 250 depth 4"
    assert go_command("uci", 1, fixed) == "go nodes 1000"


def test_limits_need_a_bound():
    with pytest.raises(ValueError):
        Limits().validate()


# --- schedule and openings -------------------------------------------------------------------
def test_schedule_pairs_swap_colours():
    games = schedule(2, "round-robin", 2, 4)
    assert len(games) == 8
    assert [(g.p1, g.p2) for g in games[:4]] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert [g.opening_index for g in games] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [g.id for g in games] == list(range(8))


def test_round_robin_and_gauntlet():
    assert {g.encounter for g in schedule(4, "round-robin", 1, 2)} == {
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 2),
        (1, 3),
        (2, 3),
    }
    assert {g.encounter for g in schedule(4, "gauntlet", 1, 2)} == {(0, 1), (0, 2), (0, 3)}


@pytest.mark.parametrize("variant", variant_names())
def test_random_openings_are_a_function_of_the_seed(variant):
    rules = make_rules(variant)
    a = openings_for(rules, {"kind": "random", "plies": "6"}, 5, 42)
    b = openings_for(rules, {"kind": "random", "plies": "6"}, 5, 42)
    c = openings_for(rules, {"kind": "random", "plies": "6"}, 5, 43)
    assert a == b and a != c
    for opening in a:
        assert len(opening.moves) == 6 and not opening.state(rules).is_over()
    # The i-th opening does not depend on how many are drawn.
    assert openings_for(rules, {"kind": "random", "plies": "6"}, 2, 42) == a[:2]


def test_openings_file(tmp_path):
    rules = make_rules("zola")
    finished = "6/6/6/6/6/r5 b"  # Blue has no checker: the game is over
    path = tmp_path / "book.txt"
    path.write_text(
        "# comment\n\n"
        "a1xa2 b1xa2\n"
        "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r\n"
        f"{finished}\n"
        "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r moves a1xa2\n"
    )
    book, skipped = read_openings(rules, str(path))
    assert skipped == 1
    assert book == [
        Opening(None, ("a1xa2", "b1xa2")),
        Opening("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r", ()),
        Opening("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r", ("a1xa2",)),
    ]
    cycled = openings_for(
        rules, {"kind": "file", "file": str(path), "order": "sequential", "start": "2"}, 4, 1
    )
    assert cycled == [book[1], book[2], book[0], book[1]]


def test_openings_file_bad_line(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text("a1xa2\nnonsense here\n")
    with pytest.raises(ValueError, match=r"book.txt:2"):
        read_openings(make_rules("zola"), str(path))


def test_opening_line_kinds():
    rules = make_rules("zhadu")
    assert parse_opening_line(rules, "1@a0 2@h0").moves == ("1@a0", "2@h0")
    assert parse_opening_line(rules, "-/- w -/- 0 0 moves 1@a0").fen == "-/- w -/- 0 0"


# --- records ---------------------------------------------------------------------------------
def _record(**kw):
    base = {
        "id": 0,
        "round": 0,
        "variant": "zola size 6",
        "p1": "A",
        "p2": "B",
        "result": "1-0",
        "termination": "normal",
        "reason": "every Blue checker captured",
        "opening": "a1xa2",
        "opening_moves": ["a1xa2"],
        "start_fen": "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r",
        "time_control": "10+0.1",
        "start_side": 0,
        "moves": ["b2xa2", "c1xb1"],
        "times_ms": [120, 5],
        "scores": ["cp -35", None],
        "depths": [4, None],
    }
    base.update(kw)
    return base


def test_pgn_text():
    text = pgn_text(_record())
    assert '[Variant "zola size 6"]' in text and '[Termination "normal"]' in text
    assert (
        '[TimeControl "10+0.1"]' in text and '[FEN "brbrbr/' in text and '[Opening "a1xa2"]' in text
    )
    assert "1. a1xa2 {opening} b2xa2 {0.120s -35/4} 2. c1xb1 {0.005s} 1-0" in text


def test_read_games_ignores_truncated_and_duplicate_lines(tmp_path):
    jsonl, pgn = tmp_path / "g.jsonl", tmp_path / "g.pgn"
    rewrite_games(str(jsonl), str(pgn), [_record(id=0), _record(id=1)])
    with open(jsonl, "a") as handle:
        handle.write(json.dumps(_record(id=1)) + "\n")  # a duplicate
        handle.write(json.dumps(_record(id=2))[:40])  # a crash mid-write
    assert [g["id"] for g in read_games(str(jsonl))] == [0, 1]
    assert pgn.read_text().count("[Event ") == 2


# --- command line ----------------------------------------------------------------------------
def test_command_line_engines_each_and_options():
    cfg = m.parse_command_line(
        [
            "--engine",
            "cmd=foo --x",
            "name=A",
            "option.Hash=32",
            "depth=3",
            "--engine",
            "cmd=bar",
            "proto=ugi",
            "tc=40/1:00+0.5",
            "--each",
            "timemargin=50",
            "option.Move Overhead=10",
            "depth=7",
            "--variant",
            "zhadu",
            "--rule",
            "quiet=50",
            "--games",
            "6",
            "--seed",
            "9",
            "--openings",
            "random",
            "plies=3",
            "--resign",
            "movecount=3",
            "score=600",
            "--draw",
            "movenumber=20",
            "movecount=4",
            "score=5",
            "--sprt",
            "elo0=0",
            "elo1=10",
        ]
    )
    a, b = cfg["engines"]
    assert a["cmd"] == ["foo", "--x"] and a["name"] == "A" and a["proto"] == "uci"
    assert a["options"] == {"Hash": "32", "Move Overhead": "10"}
    assert a["limits"] == {"depth": "3", "timemargin": "50"}  # an engine's own keys win over --each
    assert b["proto"] == "ugi" and b["limits"]["tc"] == "40/1:00+0.5" and b["name"] == "bar"
    assert b["limits"]["depth"] == "7"
    assert cfg["rules"] == {"quiet": "50"} and cfg["games"] == 6 and cfg["seed"] == 9
    assert cfg["openings"] == {"kind": "random", "plies": "3"}
    assert cfg["resign"] == {"movecount": 3, "score": 600, "twosided": False}
    assert cfg["draw"] == {"movenumber": 20, "movecount": 4, "score": 5}
    assert cfg["sprt"] == {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}


def test_command_line_demo_defaults():
    cfg = m.parse_command_line([])
    assert len(cfg["engines"]) == 2 and cfg["variant"] == "zola" and cfg["games"] == m.DEMO_GAMES
    assert all(e["limits"] for e in cfg["engines"])
    assert cfg["engines"][0]["name"] != cfg["engines"][1]["name"]
    assert isinstance(cfg["seed"], int)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--engine", "cmd=x", "depth=1"], "at least two"),
        (["--engine", "cmd=x", "--engine", "cmd=y"], "no limit"),
        (["--bogus"], "unknown option"),
        (["--variant", "chess"], "unknown game"),
        (["--rule", "quiet=-1", "--variant", "zhadu"], "--rule"),
        (["--games", "x"], "whole number"),
        (["--each", "tc=abc"], "bad time control"),
        (
            [
                "--engine",
                "cmd=x",
                "depth=1",
                "--engine",
                "cmd=y",
                "depth=1",
                "--engine",
                "cmd=z",
                "depth=1",
                "--sprt",
                "elo0=0",
                "elo1=5",
            ],
            "exactly two",
        ),
        (
            ["--engine", "cmd=x", "flavour=1", "depth=1", "--engine", "cmd=y", "depth=1"],
            "unknown key",
        ),
        (["--sprt", "elo0=5", "elo1=0"], "elo1 > elo0"),
        (["--engine", "cmd=x", "proto=xboard", "depth=1", "--engine", "cmd=y", "depth=1"], "proto"),
    ],
)
def test_command_line_errors(args, message):
    with pytest.raises(m.ConfigError, match=message):
        m.parse_command_line(args)


def test_summary_statistics():
    recs = []
    for i, (result, p1) in enumerate([("1-0", 0), ("1-0", 1), ("1/2-1/2", 0), ("0-1", 1)]):
        recs.append(
            {
                "id": i,
                "round": 0,
                "pair": i // 2,
                "result": result,
                "termination": "normal",
                "p1_index": p1,
                "p2_index": 1 - p1,
            }
        )
    cfg = {
        "engines": [{"name": "A"}, {"name": "B"}],
        "variant": "zola",
        "rules": {},
        "seed": 1,
        "sprt": {"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05},
    }
    data = m.summary(cfg, recs, 4, {})
    a, b = data["engines"]
    # A: win as p1, loss as p2 (game 2), draw as p1, win as p2 (game 4).
    assert (a["wins"], a["draws"], a["losses"], a["points"]) == (2, 1, 1, 2.5)
    assert a["as_p1"] == {"wins": 1, "draws": 1, "losses": 0} and a["as_p2"] == {
        "wins": 1,
        "draws": 0,
        "losses": 1,
    }
    assert b["points"] == 1.5
    enc = data["encounters"][0]
    assert enc["pentanomial"] == [0, 0, 1, 1, 0]  # pair 1: 1 + 0, pair 2: 1/2 + 1
    assert data["sprt"]["verdict"] is None
    assert "Elo" in m.summary_text(data)
