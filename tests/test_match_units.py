"""The referee's pure parts: the configuration (command line and config.json), time controls and
the clock, the go line, the schedule and openings, records, adjudication, exit reasons."""

from __future__ import annotations

import dataclasses
import enum
import json
import pickle
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from sample_records import sample_record

from zengine.engine.values import GoLimits, Result, Score, format_go, parse_go
from zengine.engine.variants import make_rules, variant_names
from zengine.tools.referee import config as c
from zengine.tools.referee import options
from zengine.tools.referee.clock import Clock, go_limits
from zengine.tools.referee.config import (
    ConfigError,
    DrawRule,
    EngineLimits,
    MatchConfig,
    OpeningsConfig,
    OpeningsKind,
    ResignRule,
    SprtConfig,
    TimeControl,
    Tournament,
)
from zengine.tools.referee.datajson import Codec, ShapeError, from_json, json_field, to_json
from zengine.tools.referee.game import _last_report, adjudicate
from zengine.tools.referee.options import parse_command_line
from zengine.tools.referee.records import (
    GameRecord,
    RecordError,
    RecordsError,
    read_games,
    reason_text,
    rewrite_games,
)
from zengine.tools.referee.runner import ExitReason
from zengine.tools.referee.schedule import (
    Opening,
    match_schedule,
    openings_for,
    openings_needed,
    parse_opening_line,
    read_openings,
    schedule,
)
from zengine.tools.referee.terminations import Ending, Termination

DATA = Path(__file__).parent / "data"
DOCS = Path(__file__).parent.parent / "docs"


# --- time controls, limits, the clock and the go line -------------------------------------------
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
def test_tc_parse_and_text(text, base, inc, moves):
    tc = TimeControl.parse(text)
    assert tc == TimeControl(base, inc, moves)
    assert TimeControl.parse(tc.text()) == tc


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc",
        "10+",
        "+1",
        "1:75",
        "0",
        "10+x",
        "1:2:3",
        "1e3",
        "inf",
        "-5",
        "9" * 20,
        "1:3.5.5",
    ],
)
def test_tc_parse_rejects(text):
    with pytest.raises(ConfigError):
        TimeControl.parse(text)


def test_tc_text_is_exact():
    # Six significant digits would read 1234.57 s back as 1234570 ms.
    assert TimeControl(1234567, 1, 3).text() == "3/1234.567+0.001"


def test_clock_increment_period_and_forfeit():
    clock = Clock(EngineLimits(tc=TimeControl(1000, 100, 2), margin_ms=50))
    assert clock.movestogo() == 2 and clock.allowed_ms() == 1050
    assert clock.spend(300)  # 1000 - 300 + 100
    assert clock.remaining_ms == 800 and clock.movestogo() == 1
    assert clock.spend(200)  # 800 - 200 + 100, then a new period: + 1000
    assert clock.remaining_ms == 1700 and clock.movestogo() == 2
    assert clock.spend(1750)  # within the margin: 1700 + 50
    assert clock.remaining_ms == 50
    assert not clock.spend(101)  # 50 + 50 allowed


def test_clock_movetime():
    clock = Clock(EngineLimits(search=GoLimits(movetime=200), margin_ms=10))
    assert clock.spend(210) and not clock.spend(211)
    assert Clock(EngineLimits(search=GoLimits(depth=3))).allowed_ms() is None


def test_go_lines_are_the_shared_format():
    tc = EngineLimits(tc=TimeControl(60000, 500, 40))
    clocks = (Clock(tc), Clock(EngineLimits(tc=TimeControl(30000, 0))))
    first = go_limits(0, clocks)
    assert first == GoLimits(p1time=60000, p2time=30000, p1inc=500, p2inc=0, movestogo=40)
    assert format_go(first, "uci") == "go wtime 60000 btime 30000 winc 500 binc 0 movestogo 40"
    assert (
        format_go(go_limits(1, clocks), "ugi") == "go p1time 60000 p2time 30000 p1inc 500 p2inc 0"
    )
    fixed = (
        Clock(EngineLimits(search=GoLimits(movetime=250, depth=4))),
        Clock(EngineLimits(search=GoLimits(nodes=1000))),
    )
    assert format_go(go_limits(0, fixed), "uci") == "go depth 4 movetime 250"
    assert format_go(go_limits(1, fixed), "uci") == "go nodes 1000"
    # A clocked mover against an opponent without a clock reports its own clock for both.
    mixed = (Clock(tc), fixed[1])
    assert go_limits(0, mixed).p2time == 60000


def test_go_lines_of_random_clocks_read_back():
    rng = random.Random(5)
    for _ in range(200):
        limits = [
            EngineLimits(
                tc=TimeControl(
                    rng.randrange(1, 10**6), rng.randrange(0, 10**4), rng.randrange(0, 50)
                ),
                search=GoLimits(depth=rng.choice([None, rng.randrange(1, 30)])),
            ),
            EngineLimits(search=GoLimits(nodes=rng.randrange(1, 10**9))),
        ]
        rng.shuffle(limits)
        clocks = (Clock(limits[0]), Clock(limits[1]))
        for side in (0, 1):
            clocks[side].spend(rng.randrange(0, 2000))
            expected = go_limits(side, clocks)
            for proto in ("uci", "ugi"):
                assert parse_go(format_go(expected, proto).split()[1:]) == expected


def test_limits_need_a_bound_and_keep_apart():
    with pytest.raises(ConfigError, match="no limit"):
        EngineLimits()
    with pytest.raises(ConfigError, match="exclude"):
        EngineLimits(tc=TimeControl(1000), search=GoLimits(movetime=100))
    with pytest.raises(ConfigError, match="fixed limits"):
        EngineLimits(search=GoLimits(depth=2, p1time=5))


# --- the command line and config.json ----------------------------------------------------------
FULL = [
    "--engine",
    "cmd=foo --x",
    "name=A",
    "option.Hash=32",
    "depth=3",
    "timeout.start=0.25",
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
    "--timeout",
    "move=30",
]


def test_command_line_engines_each_and_options():
    cfg = parse_command_line(FULL)
    a, b = cfg.engines
    assert a.cmd == ("foo", "--x") and a.name == "A" and a.proto is c.Proto.UCI
    assert a.options == {"Hash": "32", "Move Overhead": "10"}
    # An engine's own keys win over --each.
    assert a.limits == EngineLimits(search=GoLimits(depth=3), margin_ms=50)
    assert a.timeouts == c.Timeouts(start=0.25, move=30.0)
    assert b.proto is c.Proto.UGI and b.name == "bar" and b.timeouts == c.Timeouts(move=30.0)
    assert b.limits == EngineLimits(TimeControl(60000, 500, 40), GoLimits(depth=7), 50)
    assert cfg.rules == {"quiet": "50"} and cfg.games == 6 and cfg.seed == 9
    assert cfg.openings == OpeningsConfig(OpeningsKind.RANDOM, plies=3)
    assert cfg.adjudication.resign == ResignRule(3, 600, False)
    assert cfg.adjudication.draw == DrawRule(20, 4, 5)
    assert cfg.sprt == SprtConfig(0.0, 10.0, 0.05, 0.05)


def test_same_automatic_names_are_told_apart():
    cfg = parse_command_line(["--engine", "cmd=x", "--engine", "cmd=x", "--each", "depth=1"])
    assert cfg.names == ("x-1", "x-2")
    with pytest.raises(ConfigError, match="named 'x-1'"):
        replace(cfg, engines=(cfg.engines[0], replace(cfg.engines[1], name="x-1")))
    # A name= given is kept; the automatic names step around it.
    cfg = parse_command_line(
        ["--engine", "cmd=x", "--engine", "cmd=y", "name=x-1", "--engine", "cmd=x"]
        + ["--each", "depth=1"]
    )
    assert cfg.names == ("x-2", "x-1", "x-3")
    cfg = parse_command_line(
        ["--engine", "cmd=y", "name=x", "--engine", "cmd=x", "--each", "depth=1"]
    )
    assert cfg.names == ("x", "x-1")
    # ... and around an automatic name used once that looks numbered (./x-1 is named x-1).
    cfg = parse_command_line(
        ["--engine", "cmd=x", "--engine", "cmd=x", "--engine", "cmd=./x-1", "--each", "depth=1"]
    )
    assert cfg.names == ("x-2", "x-3", "x-1")


@pytest.mark.parametrize(
    "args",
    [
        ["--engine", "cmd=x", "name=A", "--engine", "cmd=y", "name=A"],
        ["--engine", "cmd=x", "--engine", "cmd=y", "--each", "name=A"],
    ],
)
def test_a_name_given_twice_is_refused(args):
    # fastchess refuses it too: renaming it put names in the records nobody wrote.
    with pytest.raises(ConfigError) as error:
        parse_command_line([*args, "--each", "depth=1"])
    assert str(error.value) == (
        "--engine name=A: two engines are named so (give each its own name=)"
    )


def test_command_line_demo_defaults():
    cfg = parse_command_line([])
    assert len(cfg.engines) == 2 and cfg.variant == variant_names()[0]
    assert cfg.games == options.DEMO_GAMES
    assert cfg.engines[0].name != cfg.engines[1].name
    assert all(e.limits.tc == TimeControl.parse(options.DEMO_LIMITS["tc"]) for e in cfg.engines)
    assert isinstance(cfg.seed, int)
    assert parse_command_line(["--seed", "0"]).seed == 0


@pytest.mark.parametrize(
    "args,message",
    [
        (["--engine", "cmd=x", "depth=1"], "at least two"),
        (["--engine", "cmd=x", "--engine", "cmd=y"], "no limit"),
        (["--bogus"], "unknown option"),
        (
            ["--variant", "chess"],
            "unknown game 'chess' \\(known: " + " ".join(variant_names()).replace(" ", ", "),
        ),
        (["--rule", "quiet=-1", "--variant", "zhadu"], "--rule"),
        (["--games", "x"], "^--games x: must be a whole number from 1 to 1000000$"),
        (["--games", "0"], "--games 0: must be a whole number from 1 to"),
        (
            ["--games", "١٢"],
            "--games ١٢: must be a whole number",
        ),  # Arabic-Indic digits are no number here
        (["--concurrency", "65"], "--concurrency 65: must be a whole number from 1 to 64"),
        (["--each", "tc=abc"], "tc=abc: must be \\[moves/\\]base\\[\\+inc\\]"),
        (["--each", "st=nan"], "st=nan: must be a finite number of seconds from 0.001 to 86400$"),
        (["--each", "st=inf"], "st=inf: must be a finite number of seconds"),
        (["--each", "depth=0"], "depth=0: must be a whole number from 1 to 1000"),
        (["--engine", "cmd='unclosed", "depth=1", "--engine", "cmd=y", "depth=1"], "quotation"),
        (
            ["--engine", "cmd=x", "flavour=1", "depth=1", "--engine", "cmd=y", "depth=1"],
            "unknown key",
        ),
        (["--engine", "cmd=x", "proto=xboard", "depth=1", "--engine", "cmd=y", "depth=1"], "proto"),
        (
            ["--each", "depth=1", "timeout.start=-1"],
            "timeout.start=-1: must be a finite number of seconds",
        ),
        (
            ["--timeout", "start=0"],
            "--timeout start=0: must be a finite number of seconds from 0.001",
        ),
        (["--timeout", "bogus=1"], "unknown key"),
        (["--sprt", "elo0=5", "elo1=0"], "elo1 > elo0"),
        (["--sprt", "alpha=0.6", "beta=0.5"], "alpha \\+ beta < 1"),
        (["--sprt", "alpha=0"], "between 0 and 1"),
        (["--sprt", "beta=1"], "between 0 and 1"),
        (
            ["--sprt", "elo0=0", "elo1=nan"],
            "--sprt elo1=nan: must be a finite number from -2000 to 2000",
        ),
        (["--sprt", "elo0=0", "elo1=inf"], "--sprt elo1=inf: must be a finite number"),
        (["--sprt", "elo0=x", "elo1=1"], "--sprt elo0=x: must be a finite number"),
        (
            ["--resign", "movecount=0"],
            "--resign movecount=0: must be a whole number from 1 to 1000",
        ),
        (["--resign", "twosided=maybe"], "true or false"),
        (
            ["--openings", "plies=1001"],
            "--openings plies=1001: must be a whole number from 0 to 1000",
        ),
        (["--openings", "file=x", "order=shuffled"], "order="),
        (["--tournament", "swiss"], "round-robin or gauntlet"),
        (["--games", "1000000", "--rounds", "2"], "2000000 games in all: at most 1000000"),
    ],
)
def test_command_line_errors(args, message):
    with pytest.raises(ConfigError, match=message):
        parse_command_line(args)


@pytest.mark.parametrize(
    "engines",
    [
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
        ],
    ],
)
def test_sprt_needs_two_engines(engines):
    with pytest.raises(ConfigError, match="exactly two"):
        parse_command_line([*engines, "--sprt", "elo0=0", "elo1=5"])


def test_config_json_round_trip_and_pickle():
    cfg = parse_command_line([*FULL, "--recover", "--debug", "--event", "E", "--maxplies", "0"])
    text = json.dumps(cfg.to_json())
    assert MatchConfig.from_json(json.loads(text)) == cfg
    assert pickle.loads(pickle.dumps(cfg)) == cfg
    games = list(match_schedule(cfg, cfg.make_rules()))
    assert pickle.loads(pickle.dumps(games)) == games
    for words in (["--openings", "none"], ["--tournament", "gauntlet"], ["--each", "st=0.125"]):
        other = parse_command_line(["--seed", "1", *words])
        assert MatchConfig.from_json(json.loads(json.dumps(other.to_json()))) == other


def test_config_json_of_the_previous_version_reads():
    # Written by the referee before the configuration was typed: limits as text, timeouts for
    # the whole match, openings plies as text.
    data = json.loads((DATA / "old_match" / "config.json").read_text())
    cfg = MatchConfig.from_json(data)
    a, b = cfg.engines
    assert a.limits == EngineLimits(TimeControl(10000, 250, 40), margin_ms=20)
    assert b.limits == EngineLimits(search=GoLimits(movetime=500), margin_ms=20)
    assert b.proto is c.Proto.UGI and b.options == {"Hash": "8"}
    assert a.timeouts == b.timeouts == c.Timeouts(start=5.0)
    assert cfg.openings == OpeningsConfig(plies=2)
    assert cfg.sprt == SprtConfig(-5.0, 5.0) and cfg.adjudication.max_plies == 50
    assert cfg.adjudication.resign == ResignRule(3, 500) and cfg.adjudication.draw == DrawRule(
        30, 4, 5
    )


@pytest.mark.parametrize(
    "change,message",
    [
        ({"sprt": {"elo0": 0, "elo1": 5, "alpha": 0.7, "beta": 0.5}}, "alpha \\+ beta"),
        ({"games": "2"}, "whole number"),
        ({"engines": "x"}, "'engines' is not a list of objects"),
        ({"variant": "chess"}, "unknown game"),
        ({"timeout": {"start": -1}}, "timeout start=-1.0: must be a finite number of seconds"),
        ({"openings": {"kind": "lottery"}}, "openings kind"),
        ({"resign": {"movecount": "x"}}, "whole number"),
    ],
)
def test_config_json_errors_are_config_errors(change, message):
    data = json.loads((DATA / "old_match" / "config.json").read_text())
    data.update(change)
    with pytest.raises(ConfigError, match=message):
        MatchConfig.from_json(data)


# --- schedule and openings ---------------------------------------------------------------------
def test_schedule_pairs_swap_colours():
    book = [Opening(None, (str(i),)) for i in range(openings_needed(2, 4))]
    games = schedule(2, Tournament.ROUND_ROBIN, 2, 4, book)
    assert len(games) == 8
    assert [(g.p1, g.p2) for g in games[:4]] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert [g.opening_index for g in games] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [g.opening for g in games] == [book[g.opening_index] for g in games]
    assert [g.id for g in games] == list(range(8))


def test_round_robin_and_gauntlet():
    book = [Opening(None, ())]
    assert {g.encounter for g in schedule(4, Tournament.ROUND_ROBIN, 1, 2, book)} == {
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 2),
        (1, 3),
        (2, 3),
    }
    assert {g.encounter for g in schedule(4, Tournament.GAUNTLET, 1, 2, book)} == {
        (0, 1),
        (0, 2),
        (0, 3),
    }


@pytest.mark.parametrize("variant", variant_names())
def test_random_openings_are_a_function_of_the_seed(variant):
    rules = make_rules(variant)
    setting = OpeningsConfig(plies=6)
    a = openings_for(rules, setting, 5, 42)
    assert a == openings_for(rules, setting, 5, 42) and a != openings_for(rules, setting, 5, 43)
    for opening in a:
        assert len(opening.moves) == 6 and not opening.state(rules).is_over()
    # The i-th opening does not depend on how many are drawn.
    assert openings_for(rules, setting, 2, 42) == a[:2]


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
    setting = OpeningsConfig(OpeningsKind.FILE, file=str(path), start=2)
    assert openings_for(rules, setting, 4, 1) == [book[1], book[2], book[0], book[1]]


def test_openings_file_plies_cuts_each_line(tmp_path):
    # cutechess's plies=: at most N plies of each line; a position has no moves to cut.
    rules = make_rules("zola")
    start = "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r"
    path = tmp_path / "book.txt"
    path.write_text(f"b4xb3 f5xf4 a5xb5\n{start}\n{start} moves a1xa2 b1xa2\n")
    cfg = parse_command_line(
        ["--engine", "depth=1", "--engine", "depth=1", "--openings", f"file={path}", "plies=1"]
    )
    assert cfg.openings.file_plies == 1 and cfg.openings.text().endswith(" plies=1")
    assert MatchConfig.from_json(json.loads(json.dumps(cfg.to_json()))) == cfg
    assert openings_for(rules, cfg.openings, 3, 1) == [
        Opening(None, ("b4xb3",)),
        Opening(start, ()),
        Opening(start, ("a1xa2",)),
    ]
    # Without plies= (and in a config.json of an earlier version) the lines are whole.
    whole = replace(cfg.openings, file_plies=None)
    assert "plies" not in to_json(whole)
    assert from_json(OpeningsConfig, to_json(whole), "openings") == whole
    assert openings_for(rules, whole, 1, 1) == [Opening(None, ("b4xb3", "f5xf4", "a5xb5"))]


def test_openings_file_bad_line(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text("a1xa2\nnonsense here\n")
    with pytest.raises(ValueError, match=r"book.txt:2"):
        read_openings(make_rules("zola"), str(path))


def test_openings_file_with_a_byte_order_mark_or_a_wrong_move(tmp_path):
    rules = make_rules("zola")
    path = tmp_path / "book.txt"
    path.write_bytes("\ufeffb4xb3 f5xf4 a5xb5 c4xd4\n".encode())
    assert read_openings(rules, str(path))[0] == [
        Opening(None, ("b4xb3", "f5xf4", "a5xb5", "c4xd4"))
    ]
    # A line of moves with one wrong names that move, not the position string it is not.
    path.write_text("b4xb3 f5xf4 a5xb5 c4xd4\nb4xb3 f5xf4 zz9 c4xd4\n")
    with pytest.raises(ValueError) as error:
        read_openings(rules, str(path))
    assert str(error.value) == (
        f"{path}:2: move 3 of the line: 'zz9' is no zola move (expected e.g. c3-b2, a1xa2 or"
        " pass); nor is the line a position string"
    )
    path.write_text("b4xb3 f5xf4 b4xb3\n")
    with pytest.raises(ValueError, match=r"book.txt:1: move 3 of the line: illegal move 'b4xb3'"):
        read_openings(rules, str(path))
    # A Zhadu position string (5 fields) with one wrong keeps its own error.
    zhadu = tmp_path / "zhadu.txt"
    zhadu.write_text("-/- q -/- 0 0\n")
    with pytest.raises(ValueError, match=r"neither a position string \(.*'w' or 'b'"):
        read_openings(make_rules("zhadu"), str(zhadu))


def test_opening_line_kinds():
    rules = make_rules("zhadu")
    assert parse_opening_line(rules, "1@a0 2@h0").moves == ("1@a0", "2@h0")
    assert parse_opening_line(rules, "-/- w -/- 0 0 moves 1@a0").fen == "-/- w -/- 0 0"


# --- records ---------------------------------------------------------------------------------
_record = sample_record


def test_record_json_keeps_its_fields_and_reads_back():
    record = _record(termination=Termination.TIME_FORFEIT, result=Result.P2_WIN)
    data = record.to_json()
    assert data["result"] == "0-1" and data["termination"] == "time forfeit"
    assert data["scores"] == ["cp -35", None, "mate 3"] and data["encounter"] == [0, 1]
    assert GameRecord.from_json(json.loads(json.dumps(data))) == record


def test_records_of_the_previous_version_read_back_unchanged():
    lines = (DATA / "old_match" / "games.jsonl").read_text().splitlines()
    for line in lines:
        data = json.loads(line)
        assert GameRecord.from_json(data).to_json() == data


@pytest.mark.parametrize(
    "change",
    [
        {"result": "*"},
        {"termination": "gave up"},
        {"scores": ["cp x", None, None]},
        {"moves": ["a1"]},
        {"id": "0"},
        {"start_side": [0]},
        {"overhead_ms": "slow"},
    ],
)
def test_broken_records_are_record_errors(change):
    data = _record().to_json()
    data.update(change)
    with pytest.raises(RecordError):
        GameRecord.from_json(data)


def test_read_games_ignores_a_truncated_last_line_and_duplicates(tmp_path):
    jsonl, pgn = tmp_path / "g.jsonl", tmp_path / "g.pgn"
    rewrite_games(str(jsonl), str(pgn), [_record(id=0), _record(id=1)])
    with open(jsonl, "a") as handle:
        handle.write(json.dumps(_record(id=1).to_json()) + "\n")  # a duplicate
        handle.write(json.dumps(_record(id=2).to_json())[:40])  # a crash mid-write
    assert [g.id for g in read_games(str(jsonl))] == [0, 1]
    assert pgn.read_text().count("[Event ") == 2


def test_read_games_refuses_a_complete_line_that_is_no_record(tmp_path):
    jsonl, pgn = tmp_path / "g.jsonl", tmp_path / "g.pgn"
    rewrite_games(str(jsonl), str(pgn), [_record(id=0), _record(id=1)])
    with open(jsonl, "a") as handle:
        handle.write(json.dumps({**_record(id=3).to_json(), "result": "?"}) + "\n")
        handle.write(json.dumps(_record(id=2).to_json()) + "\n")
    with pytest.raises(
        RecordsError, match=r"g.jsonl:3: not a game record \('\?' is no game result"
    ):
        read_games(str(jsonl))


def test_reason_sentences():
    names = ("X", "Y")
    assert reason_text(Ending(Result.DRAW, Termination.RULES, "repetition"), names) == "repetition"
    assert (
        reason_text(
            Ending(
                Result.P2_WIN, Termination.TIME_FORFEIT, "lost on time: 9 ms used, 5 ms allowed"
            ),
            names,
        )
        == "X lost on time: 9 ms used, 5 ms allowed"
    )
    assert (
        reason_text(Ending(Result.P1_WIN, Termination.ADJUDICATION, "resigns: score"), names)
        == "Y resigns: score"
    )
    draw = Ending(Result.DRAW, Termination.MAX_PLIES, "draw: 8 plies played, the limit")
    assert reason_text(draw, names) == "draw: 8 plies played, the limit"


# --- adjudication --------------------------------------------------------------------------------
def test_resign_needs_the_streak_and_twosided_the_other_side():
    adj = c.Adjudication(resign=ResignRule(movecount=2, score=500))
    assert adjudicate(adj, ([-600, -499], [600, 600]), 0, 4) is None
    lost = adjudicate(adj, ([-600, -500], [0, 0]), 0, 4)
    assert lost is not None and lost.result is Result.P2_WIN
    assert lost.termination is Termination.ADJUDICATION
    two = replace(adj, resign=ResignRule(2, 500, twosided=True))
    assert adjudicate(two, ([-600, -600], [0, 600]), 0, 4) is None
    assert adjudicate(two, ([-600, -600], [600, 600]), 0, 4) is not None
    assert adjudicate(adj, ([-600, None], [600, 600]), 0, 4) is None  # no score: no streak


def test_draw_waits_for_its_move_number():
    adj = c.Adjudication(draw=DrawRule(movenumber=3, movecount=2, score=5))
    scores = ([3, -5], [0, 5])
    assert adjudicate(adj, scores, 1, 4) is None  # move 2
    drawn = adjudicate(adj, scores, 0, 5)  # move 3
    assert drawn is not None and drawn.result is Result.DRAW


# --- exit reasons ----------------------------------------------------------------------------------
def test_exit_reasons_are_documented():
    text = (DOCS / "referee.md").read_text()
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for reason in ExitReason:
        assert re.search(rf"\b{reason.code}\b", section), reason
    assert {r.code for r in ExitReason} == {0, 1, 2, 3, 4, 130}


# --- datajson: dataclasses to JSON and back from their fields ----------------------------------


class _Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass(frozen=True)
class _Inner:
    a: int = 1
    b: float = dataclasses.field(default=0.5, metadata=json_field("bee", required=True))


@dataclasses.dataclass(frozen=True)
class _Outer:
    name: str
    colour: _Colour = _Colour.RED
    shade: int = dataclasses.field(
        default=0, metadata=json_field(when=lambda v: v["colour"] is _Colour.BLUE)
    )
    note: str | None = dataclasses.field(default=None, metadata=json_field(omit_none=True))
    inner: _Inner = dataclasses.field(default=_Inner(), metadata=json_field(flatten=True))
    items: tuple[str, ...] = ()
    tc: TimeControl = dataclasses.field(
        default=TimeControl(1000),
        metadata=json_field(codec=Codec(TimeControl.text, TimeControl.parse, str)),
    )


def test_datajson_writes_and_reads_by_the_fields_metadata():
    blue = _Outer("x", _Colour.BLUE, 3, "n", _Inner(2, 1.5), ("p", "q"), TimeControl(2000, 100))
    data = to_json(blue)
    assert data == {
        "name": "x", "colour": "blue", "shade": 3, "note": "n", "a": 2, "bee": 1.5,
        "items": ["p", "q"], "tc": "2+0.1",
    }  # fmt: skip
    assert from_json(_Outer, data, "thing") == blue
    red = _Outer("y")  # shade does not apply, note is None: neither is written
    assert to_json(red) == {
        "name": "y",
        "colour": "red",
        "a": 1,
        "bee": 0.5,
        "items": [],
        "tc": "1",
    }
    assert from_json(_Outer, to_json(red), "thing") == red
    assert to_json(blue, keep=lambda f: f.name != "items").keys() == data.keys() - {"items"}
    for bad, message in [
        ([], "the thing is not a JSON object"),
        ({"name": 1}, "thing: 'name' is not a string"),
        (
            {"name": "x", "colour": "green", "bee": 1},
            'unknown colour "green" \\(one of: red, blue\\)',
        ),
        ({"name": "x", "items": ["p", 2], "bee": 1}, "thing: 'items' is not a list of strings"),
        ({"name": "x", "bee": True}, "thing: 'bee' is not a number"),
        ({"name": "x"}, "thing: 'bee' is not a number"),  # required though it has a default
        ({"name": "x", "bee": 1, "zz\n": 1}, 'the thing has an unknown key "zz\\\\n"'),
    ]:
        with pytest.raises(ShapeError, match=message):
            from_json(_Outer, bad, "thing")


def test_the_score_recorded_of_an_engine_with_several_lines_is_its_best_line_s() -> None:
    """An engine run with MultiPV above 1 prints its best line first: the record keeps that
    line's score and depth, not the last line's."""
    lines = [
        "info depth 4 seldepth 6 multipv 1 score cp 30 nodes 9 pv a1xa2",
        "info depth 5 seldepth 7 multipv 1 score cp 53 nodes 99 pv a1xa2 b1xa2",
        "info depth 5 seldepth 6 multipv 2 score cp 43 nodes 99 pv a1xb1",
        "info depth 5 seldepth 6 multipv 3 score mate -2 nodes 99 pv a3xa4",
        "bestmove a1xa2",
    ]
    assert _last_report(lines, 4, None, None) == (Score(cp=53), 5)
    plain = [line.replace(" multipv 1", "") for line in lines[:2]]
    assert _last_report(plain, 2, None, None) == (Score(cp=53), 5)
