"""The PGN records: what rating tools (Ordo, BayesElo) and cutechess users read.

python-chess's PGN reader (``chess.pgn.read_headers``) stands in for the rating tools: it reads
the tags of every game of a real match's ``games.pgn``; the tags agree with the JSON lines, and
the PGN rebuilt from the JSON lines by a resume is the one written live.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from pathlib import Path

import chess.pgn
import pytest
from sample_records import sample_record

from zengine.engine.values import Result, Score
from zengine.tools.referee.config import EngineLimits
from zengine.tools.referee.match import run_match
from zengine.tools.referee.records import (
    PGN_WIDTH,
    RecordsError,
    limit_tags,
    move_comment,
    pgn_tags,
    pgn_text,
    read_games,
    read_record_objects,
)

FAKE = Path(__file__).parent / "fake_engines" / "fake_engine.py"
SEVEN = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
#: A tag line of the PGN standard: a name, a string with only \\ and \" escaped.
TAG_LINE = re.compile(r'\[([A-Za-z0-9_]+) "((?:[^"\\]|\\["\\])*)"\]')


record = sample_record


def unescape(value: str) -> str:
    """A tag string's value, as the PGN standard defines its two escapes."""
    return re.sub(r"\\(.)", r"\1", value)


def split_game(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """A game's tag pairs (checked to be well-formed lines) and its movetext lines."""
    head, _, body = text.partition("\n\n")
    tags = []
    for line in head.split("\n"):
        match = TAG_LINE.fullmatch(line)
        assert match, line
        tags.append((match[1], unescape(match[2])))
    return tags, body.rstrip("\n").split("\n")


# --- tags ---------------------------------------------------------------------------------------


def test_the_seven_tag_roster_comes_first_with_player_1_as_white():
    tags, _ = split_game(pgn_text(record(p1="Alpha", p2="Beta", result=Result.P2_WIN)))
    names = [name for name, _ in tags]
    assert names[:7] == SEVEN
    values = dict(tags)
    assert (values["White"], values["Black"], values["Result"]) == ("Alpha", "Beta", "0-1")
    assert (values["P1"], values["P2"]) == ("Alpha", "Beta")
    # Zola calls its players Red and Blue: informational tags name them.
    assert (values["WhiteColour"], values["BlackColour"]) == ("Red", "Blue")
    assert names.index("SetUp") + 1 == names.index("FEN") and values["SetUp"] == "1"
    for name in ("Variant", "Termination", "Opening", "PlyCount", "GameId", "TimeControl"):
        assert name in values
    assert values["PlyCount"] == "4" and values["Date"] == "2026.11.29"


def test_a_game_with_white_and_black_players_has_no_colour_tags():
    tags = dict(pgn_tags(record(variant_name="zhadu", variant="zhadu")))
    assert "WhiteColour" not in tags and "BlackColour" not in tags


def test_a_game_no_longer_installed_still_gets_its_pgn():
    tags = dict(pgn_tags(record(variant_name="nonesuch", variant="nonesuch")))
    assert tags["White"] == "A" and "WhiteColour" not in tags


@pytest.mark.parametrize(
    "time_control,expected",
    [
        ("10+0.1", [("TimeControl", "10+0.1")]),
        ("40/60+0.5", [("TimeControl", "40/60+0.5")]),
        ("10+0.1 : 5+0.05", [("WhiteTimeControl", "10+0.1"), ("BlackTimeControl", "5+0.05")]),
        ("st=0.5", [("TimeControl", "0.5/move")]),
        ("depth=3", [("TimeControl", "-"), ("Depth", "3")]),
        ("depth=3 : depth=5", [("TimeControl", "-"), ("WhiteDepth", "3"), ("BlackDepth", "5")]),
        ("10+0.1 nodes=500 : 10+0.1", [("TimeControl", "10+0.1"), ("WhiteNodes", "500")]),
        (
            "st=1 : depth=2",
            [("WhiteTimeControl", "1/move"), ("BlackTimeControl", "-"), ("BlackDepth", "2")],
        ),
    ],
)
def test_time_control_tags(time_control, expected):
    assert limit_tags(time_control) == expected


@pytest.mark.parametrize(
    "keys,expected",
    [
        ({"tc": "1:30+1"}, [("TimeControl", "90+1")]),
        ({"tc": "40/5:00+2"}, [("TimeControl", "40/300+2")]),
        ({"st": "0.25"}, [("TimeControl", "0.25/move")]),
        (
            {"depth": "4", "nodes": "20000"},
            [("TimeControl", "-"), ("Depth", "4"), ("Nodes", "20000")],
        ),
    ],
)
def test_time_control_tags_of_the_command_line_limits(keys, expected):
    # What make_record stores (EngineLimits.text) reads back into the tags.
    assert limit_tags(EngineLimits.parse(keys).text()) == expected


HOSTILE = [
    'say "hi"',
    "back\\slash",
    "ends in a backslash\\",
    '"]',
    '\\"]',
    "new\nline",
    "carriage\rreturn",
    "tab\there",
    "nul\0byte",
    "line\u2028separator",
    "lone \ud800 surrogate",
    "} and {",
    "Ünïcödé 名前",
    "",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_any_name_gives_well_formed_tags_that_python_chess_reads(tmp_path, name):
    text = pgn_text(record(p1=name, event=name, opening=name, reason=name))
    path = tmp_path / "g.pgn"
    path.write_text(text + "\n" + text, encoding="utf-8")  # writable as UTF-8 at all
    tags, movetext = split_game(text)
    values = dict(tags)
    # Control characters, separators and surrogates become U+FFFD; the rest is kept.
    shown = re.sub(r"[\x00-\x1f\x7f\u2028\ud800]", "\ufffd", name)
    assert values["White"] == values["P1"] == values["Event"] == values["Opening"] == shown
    with open(path, encoding="utf-8") as handle:
        read = [chess.pgn.read_headers(handle) for _ in range(3)]
    assert read[2] is None
    for headers in read[:2]:
        assert headers is not None
        # python-chess keeps the escapes; the standard's unescaping gives the name back.
        assert unescape(headers["White"]) == shown and headers["Black"] == "B"
        assert headers["Result"] == "1-0"
    # The reason's comment is one comment, closed once, before the result.
    body = " ".join(movetext)
    assert body.endswith(" 1-0") and body.count("}") == body.count("{")


# --- movetext -------------------------------------------------------------------------------------


def test_movetext_numbers_comments_and_result():
    _, movetext = split_game(pgn_text(record()))
    assert " ".join(movetext) == (
        "1. a1xa2 {book} b2xa2 {-0.35/4 0.12s} 2. c1xb1 {0.005s} d1xc1 {+M3/9 0.007s} "
        "{every Blue checker captured} 1-0"
    )


def test_minimal_pgn_is_cutechess_s():
    # cutechess's -pgnout FILE min (PgnGame::write, Minimal): the Seven Tag Roster, then FEN,
    # SetUp and the Variant (never "standard" here), and the moves with no comment at all.
    tags, movetext = split_game(pgn_text(record(), site="lab", minimal=True))
    assert tags == [
        ("Event", "zengine match"), ("Site", "lab"), ("Date", "2026.11.29"), ("Round", "1.1"),
        ("White", "A"), ("Black", "B"), ("Result", "1-0"),
        ("FEN", "brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r"), ("SetUp", "1"),
        ("Variant", "zola size 6"),
    ]  # fmt: skip
    assert " ".join(movetext) == "1. a1xa2 b2xa2 2. c1xb1 d1xc1 1-0"


@pytest.mark.parametrize("minimal", [False, True])
def test_a_game_that_did_not_finish_has_the_result_of_none(minimal: bool) -> None:
    # The match stopped in its middle: its moves so far, result "*" (as cutechess writes it).
    text = pgn_text(record(), minimal=minimal, abandoned="not finished: the match stopped (x)")
    tags, movetext = split_game(text)
    values = dict(tags)
    assert values["Result"] == "*" and " ".join(movetext).endswith(" *")
    if minimal:
        assert " ".join(movetext) == "1. a1xa2 b2xa2 2. c1xb1 d1xc1 *"
    else:
        assert values["Termination"] == "abandoned"
        assert values["Reason"] == "not finished: the match stopped (x)"
        assert " ".join(movetext).endswith("{not finished: the match stopped (x)} *")
    headers = chess.pgn.read_headers(io.StringIO(text))
    assert headers is not None and headers["Result"] == "*"


def test_player_two_moving_first_starts_with_an_ellipsis():
    text = pgn_text(record(start_side=1, opening_moves=(), opening=""))
    _, movetext = split_game(text)
    assert " ".join(movetext).startswith("1... b2xa2 {-0.35/4 0.12s} 2. c1xb1 {0.005s} d1xc1")


@pytest.mark.parametrize(
    "ms,text", [(0, "0s"), (7, "0.007s"), (99, "0.099s"), (120, "0.12s"), (1234, "1.2s")]
)
def test_think_times_as_cutechess_writes_them(ms, text):
    assert move_comment(ms, None, None) == text
    assert move_comment(12_345, None, None) == "12s"


def test_move_comments():
    assert move_comment(470, Score(cp=46), 3) == "+0.46/3 0.47s"
    assert move_comment(470, Score(cp=-100), 12) == "-1.00/12 0.47s"
    assert move_comment(470, Score(mate=3), 5) == "+M3/5 0.47s"
    assert move_comment(470, Score(mate=-2), 5) == "-M2/5 0.47s"
    assert move_comment(470, Score(cp=0), None) == "+0.00 0.47s"


def test_movetext_lines_fit_and_never_start_with_an_escape():
    moves = ("b2xa2", "c1xb1", "d1xc1") * 40
    reason = "X played an unparsable move: 'bestmove %% [x] " + "y" * 200 + "' % [z"
    text = pgn_text(
        record(
            moves=moves,
            times_ms=(12_345,) * len(moves),
            scores=(Score(mate=-12),) * len(moves),
            depths=(99,) * len(moves),
            reason=reason,
        )
    )
    _, movetext = split_game(text)
    assert all(len(line) <= PGN_WIDTH for line in movetext)
    assert not any(line.startswith(("%", "[")) for line in movetext)
    body = " ".join(movetext)
    assert body.count("{") == body.count("}") == len(moves) + 2  # book, moves, the reason


# --- reading records back -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"p1": "\ud800"},
        {"reason": "lost \udfff on time"},
        {"date": "bad\udced\udca0\udc80name"},  # a name's invalid UTF-8, as Python's argv holds it
        {"opening_moves": ["a1\udc80"]},
        {"\udcff": 1},
    ],
    ids=["p1", "reason", "escaped-bytes", "in-a-list", "in-a-key"],
)
def test_a_record_holding_a_lone_surrogate_is_damaged(tmp_path, change):
    """A lone surrogate is valid JSON (``"\\ud800"``) but no text: a file, page or terminal
    cannot hold it. The record is damaged, refused in the line's one-line error."""
    good = json.dumps(sample_record(id=0).to_json())
    bad = json.dumps({**sample_record(id=1).to_json(), **change})
    path = tmp_path / "games.jsonl"
    path.write_text(f"{good}\n{bad}\n", encoding="ascii")  # json.dumps escapes the surrogate
    message = f"{path}:2: not a game record (a lone surrogate, not Unicode text)"
    with pytest.raises(RecordsError) as error:
        read_games(str(path))
    assert str(error.value) == message
    read = read_record_objects(str(path))  # the report's reading: the line is counted damaged
    assert [o["id"] for o in read.objects] == [0] and (read.damaged, read.repeated) == (1, 0)
    path.write_text(f"{good}\n{bad}", encoding="ascii")  # a last line cut short: skipped
    assert [g.id for g in read_games(str(path))] == [0]


def test_a_line_of_invalid_utf8_is_damaged(tmp_path):
    good = json.dumps(sample_record(id=0).to_json()).encode()
    bad = (
        json.dumps(sample_record(id=1, p1="b-d").to_json())
        .encode()
        .replace(b"b-d", b"b\xed\xa0\x80d")
    )
    path = tmp_path / "games.jsonl"
    path.write_bytes(bad + b"\n" + good + b"\n")
    with pytest.raises(RecordsError, match=r":1: not a game record \(not UTF-8 text\)$"):
        read_games(str(path))
    read = read_record_objects(str(path))
    assert [o["id"] for o in read.objects] == [0] and read.damaged == 1


def test_escaped_pairs_and_backslashes_are_text(tmp_path):
    """What looks like a surrogate escape but is none: a pair (one character) and an escaped
    backslash followed by ``ud800``."""
    path = tmp_path / "games.jsonl"
    record = sample_record(p1="\U0001f600", reason="\\ud800 \\uDFFF")
    path.write_text(json.dumps(record.to_json()) + "\n", encoding="ascii")
    assert "\\ud83d\\ude00" in path.read_text()
    assert read_games(str(path)) == [record]
    assert read_record_objects(str(path)).objects == [record.to_json()]


# --- a real match ---------------------------------------------------------------------------------


def fake(*args: str) -> str:
    return "cmd=" + shlex.join([sys.executable, str(FAKE), *args])


@pytest.mark.parametrize("variant", ["zola", "zhadu"])
def test_a_real_match_reads_back_and_resumes_to_the_same_pgn(tmp_path, variant):
    out = tmp_path / "m"
    args = ["--engine", fake("--score", "25"), "name=first engine", "--engine", fake("--seed", "3")]
    args += ["name=second", "--each", "depth=1", "--games", "4", "--variant", variant]
    lines: list[str] = []
    run_match([*args, "--seed", "5", "--out", str(out)], emit=lines.append, progress=False)
    live = (out / "games.pgn").read_text(encoding="utf-8")
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4

    handle = io.StringIO(live)
    headers = []
    while (found := chess.pgn.read_headers(handle)) is not None:
        headers.append(found)
    assert len(headers) == len(records)
    # Games are separated by a blank line.
    games = [split_game(block) for block in re.split(r"\n\n(?=\[Event )", live.strip("\n"))]
    for found, (tags, movetext), data in zip(headers, games, records):
        assert [name for name, _ in tags][:7] == SEVEN
        for name, value in tags:  # every tag, as written
            assert found[name] == value
        assert (found["White"], found["Black"]) == (data["p1"], data["p2"])
        assert found["Result"] == data["result"] and movetext[-1].endswith(data["result"])
        assert found["GameId"] == str(data["id"]) and found["Depth"] == "1"
        plies = len(data["opening_moves"]) + len(data["moves"])
        assert found["PlyCount"] == str(plies) and found["TimeControl"] == "-"
    assert {h["White"] for h in headers} == {"first engine", "second"}

    # A resume rebuilds games.pgn from the JSON lines: it is the same text.
    run_match(["--resume", str(out)], emit=lines.append, progress=False)
    assert (out / "games.pgn").read_text(encoding="utf-8") == live
