"""``zengine report``: the HTML page of a match, checked against the records it comes from.

Real matches of the built-in engine (Zola, Zhadu, a three-engine tournament) are played once
per session. The page is read back as data: the script's JSON (every game, each ply's picture
as runs of a line table) and the tables' ``data-`` attributes. Oracles: the records
themselves, the referee's own summary.json (standings, Elo of the pairs), and ``State.svg`` of
the positions the records' moves reach. Damaged directories must give a page with notes or one
error line, never a traceback. The browser tests drive headless Chromium through the viewer.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_svg import READERS

from zengine.cli import main
from zengine.engine.game import State
from zengine.engine.variants import make_rules
from zengine.tools.pictures import report
from zengine.tools.pictures.boards import LineTable
from zengine.tools.pictures.report import (
    ReportError,
    load_match,
    render,
    standings,
    write_report,
)


# --- matches ------------------------------------------------------------------------------------
def play_match(out: Path, *args: str) -> Path:
    """A real match of the built-in engine through the command line, into ``out``."""
    command = [sys.executable, "-m", "zengine", "match", *args, "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.fixture(scope="session")
def zola_match(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("zola") / "m"
    return play_match(out, "--each", "depth=1", "--games", "4", "--seed", "11")


@pytest.fixture(scope="session")
def zhadu_match(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("zhadu") / "m"
    return play_match(
        out, "--each", "depth=1", "--variant", "zhadu", "--games", "4", "--seed", "12"
    )


@pytest.fixture(scope="session")
def tournament(tmp_path_factory) -> Path:
    """Three engines of different depths, a round robin of two games per encounter."""
    out = tmp_path_factory.mktemp("rr") / "m"
    engines = []
    for name, depth in (("shallow", 1), ("middle", 1), ("deep", 2)):
        engines += ["--engine", "cmd=zengine", f"name={name}", f"depth={depth}"]
    return play_match(
        out, *engines, "--variant", "zola", "--games", "2", "--seed", "13", "--maxplies", "40"
    )


@pytest.fixture(params=["zola_match", "zhadu_match"])
def match_dir(request) -> Path:
    return request.getfixturevalue(request.param)


def copy_match(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(source, target)
    (target / "report.html").unlink(missing_ok=True)
    return target


def records(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (directory / "games.jsonl").read_text().splitlines()]


# --- reading the page back ----------------------------------------------------------------------
class Page(HTMLParser):
    """The parts of the page the tests read: every element's attributes, the JSON data."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self._in_data = False
        self._data: list[str] = []
        self.feed(text)
        self.data: dict[str, Any] = json.loads("".join(self._data))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.elements.append((tag, values))
        self._in_data = values.get("id") == "report-data"

    def handle_endtag(self, tag: str) -> None:
        self._in_data = False

    def handle_data(self, data: str) -> None:
        if self._in_data:
            self._data.append(data)

    def with_attr(self, name: str) -> list[dict[str, str]]:
        return [attrs for _, attrs in self.elements if name in attrs]

    def picture(self, runs: list[int]) -> str:
        """A picture from its runs ``first, count, first, count, ...`` of the line table."""
        lines = self.data["lines"]
        pairs = zip(runs[::2], runs[1::2])
        return "\n".join(lines[i] for first, count in pairs for i in range(first, first + count))


def page_of(directory: Path, **kwargs: Any) -> Page:
    path = write_report(directory, **kwargs)
    assert path == directory / "report.html"
    return Page(path.read_text(encoding="utf-8"))


def replay(record: dict[str, Any]) -> tuple[State, int | None]:
    """The position a record's moves reach from its start, and the last move played."""
    rules = make_rules(record["variant_name"])
    state = rules.parse_position(record["start_fen"])
    move = None
    for text in record["opening_moves"] + record["moves"]:
        move = state.parse_move(text)
        state.play(move)
    return state, move


# --- the page against the records ---------------------------------------------------------------
def test_the_page_is_self_contained(match_dir):
    page = page_of(match_dir)
    external = re.compile(r"^\s*(https?:|//|[a-z]+://)", re.I)
    for tag, attrs in page.elements:
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
        for name in ("src", "href", "xlink:href", "action", "data"):
            assert not external.match(attrs.get(name, "")), (tag, attrs)
        if tag == "script":
            assert "src" not in attrs
    text = (match_dir / "report.html").read_text(encoding="utf-8")
    assert "@import" not in text
    assert not re.search(r"url\(\s*['\"]?\s*(https?:|//)", text)  # no fetched style
    for line in page.data["lines"]:  # the pictures' own text
        assert not re.search(r'(href|src)="(https?:|//)', line), line


def test_every_game_is_in_the_page_with_its_moves_times_and_scores(match_dir):
    page = page_of(match_dir)
    games = records(match_dir)
    assert [g["id"] for g in page.data["games"]] == [r["id"] for r in games]
    rows = [a["id"] for a in page.with_attr("id") if a["id"].startswith("game-row-")]
    assert rows == [f"game-row-{r['id']}" for r in games]
    for shown, record in zip(page.data["games"], games):
        assert (shown["p1"], shown["p2"], shown["result"]) == (
            record["p1"],
            record["p2"],
            record["result"],
        )
        plies = shown["plies"]
        assert [p[0] for p in plies] == record["opening_moves"] + record["moves"]
        engine_plies = plies[len(record["opening_moves"]) :]
        assert [p[1] for p in engine_plies] == record["times_ms"]
        for (_, _, score, _), raw, depth in zip(engine_plies, record["scores"], record["depths"]):
            kind, value = raw.split()
            assert score == (f"{int(value):+d}" if kind == "cp" else f"#{value}") + f"/{depth}"
        assert all(p[3] == 1 for p in plies[: len(record["opening_moves"])])


def test_each_final_board_is_state_svg_of_the_final_position(match_dir):
    page = page_of(match_dir)
    for shown, record in zip(page.data["games"], records(match_dir)):
        state, last = replay(record)
        assert state.position_text() == record["final_fen"]
        assert page.picture(shown["boards"][-1]) == state.svg(480, last)
        assert shown["fens"][-1] == record["final_fen"]
        assert len(shown["boards"]) == len(record["opening_moves"]) + len(record["moves"]) + 1


def test_every_board_is_state_svg_of_its_ply(zhadu_match):
    page = page_of(zhadu_match)
    shown, record = page.data["games"][0], records(zhadu_match)[0]
    state = make_rules(record["variant_name"]).parse_position(record["start_fen"])
    assert page.picture(shown["boards"][0]) == state.svg(480)
    for ply, text in enumerate(record["opening_moves"] + record["moves"], 1):
        move = state.parse_move(text)
        state.play(move)
        assert page.picture(shown["boards"][ply]) == state.svg(480, move)


def cross_table_from_records(games: list[dict[str, Any]]) -> dict[tuple[str, str], list[float]]:
    """Points and games of every engine against every other, counted directly."""
    cells: dict[tuple[str, str], list[float]] = {}
    points = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
    for g in games:
        for (me, other), got in zip(((g["p1"], g["p2"]), (g["p2"], g["p1"])), points[g["result"]]):
            cell = cells.setdefault((me, other), [0.0, 0])
            cell[0] += got
            cell[1] += 1
    return cells


@pytest.mark.parametrize("which", ["zola_match", "tournament"])
def test_cross_table_numbers_equal_the_records(request, which):
    directory = request.getfixturevalue(which)
    page = page_of(directory)
    expected = cross_table_from_records(records(directory))
    cells = {
        (a["data-row"], a["data-column"]): [float(a["data-points"]), int(a["data-games"])]
        for a in page.with_attr("data-points")
    }
    assert cells == expected
    names = {name for pair in expected for name in pair}
    assert len(names) == (3 if which == "tournament" else 2)


@pytest.mark.parametrize("which", ["zola_match", "zhadu_match", "tournament"])
def test_standings_equal_the_referees_summary(request, which):
    directory = request.getfixturevalue(which)
    summary = json.loads((directory / "summary.json").read_text())
    ours = {s.name: s for s in standings(load_match(directory))}
    for engine in summary["engines"]:
        line = ours[engine["name"]]
        assert (line.wdl.wins, line.wdl.draws, line.wdl.losses, line.wdl.points) == (
            engine["wins"],
            engine["draws"],
            engine["losses"],
            engine["points"],
        )
        for wdl, key in ((line.as_p1, "as_p1"), (line.as_p2, "as_p2")):
            assert [wdl.wins, wdl.draws, wdl.losses] == [
                engine[key][k] for k in ("wins", "draws", "losses")
            ]
    if len(summary["engines"]) == 2:  # one encounter: the Elo of its pairs is the engine's Elo
        (encounter,) = summary["encounters"]
        first = ours[summary["engines"][0]["name"]].elo
        assert first is not None
        for ours_value, theirs in (
            (first.elo, encounter["elo"]),
            (first.low, encounter["elo_low"]),
            (first.high, encounter["elo_high"]),
        ):
            if isinstance(theirs, str):  # "+inf" / "-inf"
                assert ours_value == float(theirs)
            else:
                assert ours_value == pytest.approx(theirs, abs=1e-6)


def test_a_game_of_an_engine_against_itself_is_a_win_and_a_loss(zola_match, tmp_path):
    """A damaged record naming one engine twice: its points are half its games (once it
    scored the game twice, as p1 and as p2)."""
    directory = copy_match(zola_match, tmp_path)
    games = records(directory)
    same = {**games[0], "id": 100, "p2": games[0]["p1"], "result": "1-0"}
    with open(directory / "games.jsonl", "a") as handle:
        handle.write(json.dumps(same) + "\n")
    before = {s.name: s for s in standings(load_match(copy_match(zola_match, tmp_path / "b")))}
    after = {s.name: s for s in standings(load_match(directory))}
    name = same["p1"]
    assert after[name].as_p1.wins == before[name].as_p1.wins + 1
    assert after[name].as_p2.losses == before[name].as_p2.losses + 1
    assert after[name].wdl.points == before[name].wdl.points + 1


def test_the_score_chart_has_a_point_after_each_game_of_each_engine(tournament):
    page_of(tournament)
    text = (tournament / "report.html").read_text(encoding="utf-8")
    score_chart = text[text.index('<svg class="chart"') :].split("</svg>")[0]
    lines = re.findall(
        r'<polyline class="series" data-engine="([^"]+)" points="([^"]+)"', score_chart
    )
    assert {name for name, _ in lines} == {"shallow", "middle", "deep"}
    games = records(tournament)
    for name, points in lines:
        assert len(points.split()) == len([g for g in games if name in (g["p1"], g["p2"])])


def test_line_table_round_trip():
    rng = random.Random(9)
    table = LineTable()
    pictures = []
    for _ in range(50):
        text = "\n".join(rng.choice(["<a/>", "<b/>", "", "<c x='1'/>", "</g>"]) for _ in range(30))
        pictures.append((text, table.runs(text)))
    for text, runs in pictures:
        assert table.picture(runs) == text
    assert len(table.lines) == 5


# --- limits and damaged input -------------------------------------------------------------------
def test_a_game_too_long_to_draw_lists_its_moves(zola_match, tmp_path, monkeypatch):
    directory = copy_match(zola_match, tmp_path)
    # The games' lengths depend on the engine (all four were 43 plies with one evaluation):
    # the first game cut two plies short makes the lengths differ whatever it plays.
    games = records(directory)
    for key in ("moves", "times_ms", "scores", "depths"):
        games[0][key] = games[0][key][:-2]
    (directory / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    lengths = [len(r["opening_moves"]) + len(r["moves"]) for r in records(directory)]
    cap = min(lengths)
    assert cap < max(lengths)
    monkeypatch.setattr(report, "MAX_DRAWN_PLIES", cap)
    page = page_of(directory)
    for length, game in zip(lengths, page.data["games"]):
        assert len(game["plies"]) == length
        if length > cap:
            assert "boards" not in game
            assert game["no_board"] == (
                f"a game of {length} plies: this report draws games of up to {cap} plies"
            )
        else:
            assert "boards" in game and "no_board" not in game


def test_boards_are_drawn_for_the_first_games_only(zola_match, tmp_path):
    directory = copy_match(zola_match, tmp_path)
    page = page_of(directory, boards=1)
    first, *others = page.data["games"]
    assert "boards" in first and "no_board" not in first
    for game in others:
        assert "boards" not in game
        assert "draws the first 1 games" in game["no_board"]
    # the moves are still all there
    assert [len(g["plies"]) for g in page.data["games"]] == [
        len(r["opening_moves"]) + len(r["moves"]) for r in records(directory)
    ]


def test_damaged_records_are_shown_with_notes(zola_match, tmp_path):
    directory = copy_match(zola_match, tmp_path)
    games = records(directory)
    unknown, illegal, odd = (dict(g) for g in games[:3])
    unknown.update(id=100, variant="chess", variant_name="chess")
    illegal.update(id=101, moves=[*illegal["moves"][:3], "a1-a1", *illegal["moves"][3:]])
    odd.update(id=102, moves=5, times_ms="x", scores=None, result=3, p1=7, start_side="w")
    lines = [json.dumps(g) for g in (*games, unknown, illegal, odd)]
    lines += ["{not json", "[1, 2]", '{"no": "id"}', json.dumps(games[0]), '{"id": 103, "mov']
    lines += ["[" * 100_000 + "]" * 100_000]  # nested beyond the parser's recursion limit
    (directory / "games.jsonl").write_text("\n".join(lines) + "\n")
    page = page_of(directory)
    shown = {g["id"]: g for g in page.data["games"]}
    assert sorted(shown) == sorted([g["id"] for g in games] + [100, 101, 102])
    assert "boards" not in shown[100] and "unknown game 'chess'" in shown[100]["no_board"]
    assert "boards" not in shown[101]
    assert shown[101]["no_board"].startswith("ply 8 'a1-a1': "), shown[101]["no_board"]
    assert [p[0] for p in shown[101]["plies"]][4:8] == illegal["moves"][:4]
    assert shown[102]["result"] == "?" and shown[102]["p1"] == "?"
    assert [p[0] for p in shown[102]["plies"]] == odd["opening_moves"]
    text = (directory / "report.html").read_text(encoding="utf-8")
    assert "5 lines of games.jsonl could not be read" in text
    assert "1 repeated game id left out" in text
    # the record without a result is left out of the standings, the others count
    played = sum(s.wdl.games for s in standings(load_match(directory))) // 2
    assert played == len(games) + 2


def test_damage_never_raises(zhadu_match, tmp_path):
    """Random damage to the records: a page is always written (the oracle: no exception)."""
    directory = copy_match(zhadu_match, tmp_path)
    original = records(directory)
    rng = random.Random(21)
    junk: list[Any] = [None, 3, -1, 2.5, "", "x", [], {}, [1, "a"], {"a": 1}, True, "1-0", "cp"]
    for _ in range(12):
        damaged = []
        for record in original:
            record = dict(record)
            for key in rng.sample(sorted(record), 3):
                if key != "id":
                    record[key] = rng.choice(junk)
            damaged.append(json.dumps(record))
        text = "\n".join(damaged)
        cut = rng.randrange(len(text))
        text = text[:cut] + rng.choice(["", "\x00\xff", "}{", "\n\n"]) + text[cut:]
        (directory / "games.jsonl").write_text(text, encoding="utf-8", errors="replace")
        page_of(directory)  # raises on failure
    (directory / "config.json").write_text("[]")
    (directory / "summary.json").write_text("{")
    page_of(directory)
    assert "config.json is unreadable" in (directory / "report.html").read_text()


def test_an_empty_match_gives_a_page(tmp_path):
    directory = tmp_path / "empty"
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps({"engines": [{"name": "A"}], "event": "E"}))
    page = page_of(directory)
    assert page.data["games"] == []
    assert "No games yet." in (directory / "report.html").read_text()
    (directory / "games.jsonl").write_text("")
    assert page_of(directory).data == {"lines": [], "games": []}


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(main, ["report", *args], prog_name="zengine")


def test_the_command_writes_the_page(zola_match, tmp_path):
    directory = copy_match(zola_match, tmp_path)
    result = run_cli(str(directory), "--boards", "2")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(str(directory / "report.html"))
    assert (directory / "report.html").exists()
    assert not (directory / "report.html.tmp").exists()


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda d: None, "no such directory"),
        (lambda d: d.write_text("{}"), "not a directory"),
        (lambda d: d.mkdir(), "not a match directory"),
        (lambda d: (d.mkdir(), (d / "games.jsonl").mkdir()), "cannot read"),
        (
            lambda d: (
                d.mkdir(),
                (d / "config.json").write_text("{}"),
                (d / "report.html.tmp").mkdir(),
            ),
            "cannot write",
        ),
    ],
    ids=["missing", "a-file", "not-a-match", "unreadable-games", "unwritable"],
)
def test_a_bad_directory_is_one_line_and_exit_2(tmp_path, setup, message):
    directory = tmp_path / "d"
    setup(directory)
    result = run_cli(str(directory))
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("zengine report: error: ")
    assert message in result.output
    assert "Traceback" not in result.output
    with pytest.raises(ReportError):
        write_report(directory)


def test_the_command_notes_damage_on_stderr(zola_match, tmp_path):
    directory = copy_match(zola_match, tmp_path)
    with open(directory / "games.jsonl", "a") as handle:
        handle.write('{"id": 99, "trunc')
    command = [sys.executable, "-m", "zengine", "report", str(directory)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "note: 1 line of games.jsonl could not be read\n"
    assert done.stdout.startswith(str(directory / "report.html"))


def zengine(*args: str | bytes) -> subprocess.CompletedProcess[str]:
    """The real command line, in a process of its own."""
    command = [sys.executable, "-m", "zengine", *args]
    return subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=300)


def write_lines(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


@pytest.mark.parametrize("damage", ["lone-surrogate", "invalid-utf8"])
def test_undecodable_text_in_a_record_is_a_damaged_line(zola_match, tmp_path, damage):
    """issue 36: a games.jsonl holding ``"\\ud800"`` (valid JSON, no text) made the page
    unwritable (UnicodeEncodeError, exit 1); invalid UTF-8 was read with its bytes replaced."""
    directory = copy_match(zola_match, tmp_path)
    games = records(directory)
    lines = [json.dumps(g).encode() for g in games]
    if damage == "lone-surrogate":
        lines[1] = json.dumps({**games[1], "p1": "\ud800"}).encode()
    else:
        lines[1] = lines[1].replace(b'"p1": "', b'"p1": "\xed\xa0\x80')
    write_lines(directory / "games.jsonl", lines)
    done = zengine("report", str(directory))
    assert done.returncode == 0, done.stderr
    assert done.stderr == "note: 1 line of games.jsonl could not be read\n"
    assert done.stdout.startswith(str(directory / "report.html"))
    page = Page((directory / "report.html").read_text(encoding="utf-8"))
    assert [g["id"] for g in page.data["games"]] == [g["id"] for g in games if g is not games[1]]


def test_a_folder_of_an_engine_named_in_invalid_utf8_gets_a_page_and_no_resume(
    zola_match, tmp_path
):
    """issue 36's folder: an engine's name of invalid UTF-8 bytes, as Python's argv holds them
    (surrogate escapes), in config.json and in every record."""
    directory = copy_match(zola_match, tmp_path)
    name = games_name = records(directory)[0]["p1"]
    bad = "bad\udced\udca0\udc80name"
    for file in ("config.json", "games.jsonl"):
        text = (directory / file).read_text(encoding="utf-8")
        (directory / file).write_text(text.replace(f'"{games_name}"', json.dumps(bad)))
    assert json.dumps(bad) in (directory / "config.json").read_text()
    done = zengine("report", str(directory))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "note: config.json is unreadable (a lone surrogate, not Unicode text)",
        f"note: {len(records(directory))} lines of games.jsonl could not be read",
    ]
    text = (directory / "report.html").read_text(encoding="utf-8")
    assert name not in text
    resumed = zengine("match", "--resume", str(directory))
    assert resumed.returncode == 2, resumed.stdout + resumed.stderr
    assert resumed.stderr.startswith("zengine match: error: ") and resumed.stderr.count("\n") == 1


def test_a_resume_refuses_a_record_holding_a_lone_surrogate(zola_match, tmp_path):
    """Before, --resume of such a folder played on and crashed writing its report (exit 1)."""
    directory = copy_match(zola_match, tmp_path)
    games = records(directory)
    lines = [
        json.dumps({**g, "date": "2026.\ud800"} if i == 0 else g).encode()
        for i, g in enumerate(games)
    ]
    write_lines(directory / "games.jsonl", lines)
    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    del before["lock"]  # a resume takes the folder's lock first, writing its pid there
    done = zengine("match", "--resume", str(directory))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == (
        f"zengine match: error: {directory / 'games.jsonl'}:1: not a game record "
        "(a lone surrogate, not Unicode text)\n"
    )
    after = {p.name: p.read_bytes() for p in directory.iterdir() if p.name != "lock"}
    assert after == before  # nothing changed


def test_a_folder_named_in_invalid_utf8_gets_its_page(zola_match, tmp_path):
    """The page's footer names the folder: bytes that are no UTF-8 are shown as U+FFFD (the
    page could not be written before)."""
    directory = tmp_path / "m\udcff"  # the name b"m\xff", as Python holds it
    shutil.copytree(copy_match(zola_match, tmp_path), directory)
    done = zengine("report", os.fsencode(directory))
    assert done.returncode == 0, done.stderr
    text = (directory / "report.html").read_text(encoding="utf-8")
    assert "from <code>m\ufffd</code>" in text


def test_a_fifo_in_place_of_config_json_is_refused_not_waited_on(zola_match, tmp_path):
    """The report reads the folder's files as --resume does: a FIFO (which the report's own
    reader used to wait on for ever) is a file that cannot be used, said in a note."""
    directory = copy_match(zola_match, tmp_path)
    (directory / "config.json").unlink()
    os.mkfifo(directory / "config.json")
    done = zengine("report", str(directory))
    assert done.returncode == 0, done.stderr
    config = directory / "config.json"
    assert done.stderr == f"note: config.json is unreadable ({config}: not a regular file)\n"


def test_the_page_is_written_whatever_text_reaches_it(zola_match, tmp_path):
    """The last guard: a lone surrogate that got past the readers (here put in by hand) is
    written as '?', not a page left unwritten."""
    match = load_match(copy_match(zola_match, tmp_path))
    match.games[0].opening = "x\ud800y"
    path = report.save(match)
    assert '"opening":"x?y"' in path.read_text(encoding="utf-8")


def test_a_bad_command_line_is_exit_2():
    assert run_cli().exit_code == 2
    assert run_cli("x", "--boards", "-1").exit_code == 2


def test_names_are_escaped(zola_match, tmp_path):
    directory = copy_match(zola_match, tmp_path)
    evil = "</script><script>alert(1)</script><b>"
    games = records(directory)
    for g in games:
        g["p1" if g["p1"] == "zengine-1" else "p2"] = evil
    (directory / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    page = page_of(directory)  # the JSON still parses: nothing closed its script element
    assert evil in {g["p1"] for g in page.data["games"]} | {g["p2"] for g in page.data["games"]}
    text = (directory / "report.html").read_text()
    assert "<script>alert" not in text
    assert text.count("<script") == 2


def test_without_boards_every_game_is_still_listed(zola_match):
    match = load_match(zola_match)
    assert render(match, boards=0).count('id="game-row-') == len(records(zola_match))


# --- in a real browser --------------------------------------------------------------------------
def _browser_binaries() -> tuple[str, str] | None:
    browser = next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p),
        None,
    )
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium through chromedriver; skipped where they are absent (CI installs
    them, so there a missing browser fails instead of silently skipping)."""
    missing = None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing = "selenium is not installed (pip install -e '.[test]')"
    binaries = _browser_binaries()
    if missing is None and binaries is None:
        missing = (
            "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
        )
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser test in CI: {missing}")
        pytest.skip(missing)
    assert binaries is not None
    options = webdriver.ChromeOptions()
    options.binary_location = binaries[0]
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(argument)
    # An explicit driver path: selenium then never tries to download one.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # to see script errors
    driver = webdriver.Chrome(service=Service(executable_path=binaries[1]), options=options)
    driver.set_page_load_timeout(120)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


PIECES_JS = """
return Array.from(document.querySelectorAll('#board .checker, #board .stone')).map(e =>
  [e.getAttribute('class'), e.getAttribute('data-square') || e.getAttribute('data-point'),
   e.getAttribute('data-stone') || '']).sort();
"""


def expected_pieces(picture: str) -> list[list[str]]:
    """The pieces a picture tags, as the page's script reads them from the drawn board."""
    root = ET.fromstring(picture.encode("utf-8"))
    found = []
    for e in root.iter():
        if {"checker", "stone"} & set(e.get("class", "").split()):
            found.append(
                [
                    e.get("class", ""),
                    e.get("data-square") or e.get("data-point"),
                    e.get("data-stone") or "",
                ]
            )
    return sorted(found)


def wait_for_ply(driver: Any, ply: int) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 60).until(
        lambda d: d.find_element("id", "viewer").get_attribute("data-ply") == str(ply)
    )


def artefact(driver: Any, tmp_path: Path, name: str) -> Path:
    """A screenshot, kept under pytest's tmp dir and copied to $ZENGINE_ARTEFACTS if set."""
    path = tmp_path / name
    assert driver.save_screenshot(str(path))
    target = os.environ.get("ZENGINE_ARTEFACTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(target) / name)
    return path


@pytest.fixture(scope="module", params=["zola_match", "zhadu_match"])
def shown_game(request, tmp_path_factory) -> dict[str, Any]:
    """A report of a real match, the game the browser tests step through (the shortest: each
    step is a browser round trip) and the pieces of its start and final positions."""
    directory = copy_match(request.getfixturevalue(request.param), tmp_path_factory.mktemp("b"))
    games = records(directory)
    record = min(games, key=lambda g: len(g["moves"]))
    rules = make_rules(record["variant_name"])
    state, last = replay(record)
    final = expected_pieces(state.svg(480, last))
    # the oracle's oracle: the pieces are the ones the final position string names
    assert {(p[1], p[0].split()[1], p[2]) for p in final} == READERS[rules.game](
        record["final_fen"]
    )
    return {
        "url": write_report(directory).as_uri(),
        "record": record,
        "other": next(g for g in games if g is not record),
        "plies": len(record["opening_moves"]) + len(record["moves"]),
        "start": expected_pieces(rules.parse_position(record["start_fen"]).svg(480)),
        "final": final,
        "game": rules.game,
        "directory": directory,
    }


def open_game(driver: Any, url: str, game_id: int) -> Any:
    """Open the page, pick a game in the games table; returns the viewer."""
    from selenium.webdriver.common.by import By

    driver.get("about:blank")  # else a page differing in its #fragment only would not reload
    driver.get(url)
    row = driver.find_element(By.ID, f"game-row-{game_id}")
    driver.execute_script("arguments[0].click();", row)
    viewer = driver.find_element(By.ID, "viewer")
    assert viewer.get_attribute("data-game") == str(game_id)
    wait_for_ply(driver, 0)
    return viewer


def no_script_errors(driver: Any) -> None:
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_the_next_button_steps_to_the_final_position(browser, shown_game, tmp_path):
    from selenium.webdriver.common.by import By

    plies, record = shown_game["plies"], shown_game["record"]
    open_game(browser, shown_game["url"], record["id"])
    assert browser.execute_script(PIECES_JS) == shown_game["start"]
    next_button = browser.find_element(By.ID, "next")
    checks = {1, plies // 2, plies}
    for ply in range(1, plies + 1):
        next_button.click()
        if ply in checks:  # one ply a click (checked at a few points: each check is a round trip)
            wait_for_ply(browser, ply)
    assert not next_button.is_enabled()
    assert browser.execute_script(PIECES_JS) == shown_game["final"]
    current = browser.find_element(By.CSS_SELECTOR, "#move-list tr.current")
    assert current.get_attribute("data-ply") == str(plies)
    assert record["moves"][-1] in current.text
    shot = artefact(browser, tmp_path, f"report-{shown_game['game']}-final.png")
    assert shot.stat().st_size > 10_000
    no_script_errors(browser)


def test_the_arrow_keys_step_and_a_move_click_jumps(browser, shown_game):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    plies, final = shown_game["plies"], shown_game["final"]
    open_game(browser, shown_game["url"], shown_game["record"]["id"])
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT * (plies // 2))
    wait_for_ply(browser, plies // 2)
    body.send_keys(Keys.ARROW_RIGHT * (plies - plies // 2 + 2))  # extra presses stay at the end
    wait_for_ply(browser, plies)
    assert browser.execute_script(PIECES_JS) == final
    body.send_keys(Keys.ARROW_LEFT)
    wait_for_ply(browser, plies - 1)
    assert browser.execute_script(PIECES_JS) != final
    body.send_keys(Keys.HOME)
    wait_for_ply(browser, 0)
    assert browser.execute_script(PIECES_JS) == shown_game["start"]
    body.send_keys(Keys.END)
    wait_for_ply(browser, plies)
    assert browser.execute_script(PIECES_JS) == final
    target = browser.find_element(By.CSS_SELECTOR, '#move-list tr[data-ply="3"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", target)
    target.click()
    wait_for_ply(browser, 3)
    assert "current" in (target.get_attribute("class") or "")

    viewer = browser.find_element(By.ID, "viewer")
    ids = [r["id"] for r in records(shown_game["directory"])]
    at = ids.index(shown_game["record"]["id"])
    after_n = ids[min(at + 1, len(ids) - 1)]  # the next game (the last one stays)
    body.send_keys("n")
    wait_for_ply(browser, 0)
    assert viewer.get_attribute("data-game") == str(after_n)
    body.send_keys("p")
    assert viewer.get_attribute("data-game") == str(ids[ids.index(after_n) - 1])

    # with the viewer off screen the keys scroll the page instead
    browser.execute_script("window.scrollTo(0, 0);")
    assert browser.execute_script("return arguments[0].getBoundingClientRect().top;", viewer) > (
        browser.execute_script("return window.innerHeight;")
    )
    ply = viewer.get_attribute("data-ply")
    body.send_keys(Keys.ARROW_RIGHT)
    assert viewer.get_attribute("data-ply") == ply
    no_script_errors(browser)


def test_a_game_without_a_board_steps_through_its_moves(browser, zola_match, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    directory = copy_match(zola_match, tmp_path)
    record = records(directory)[1]
    url = write_report(directory, boards=1).as_uri()
    browser.get("about:blank")
    browser.get(url + f"#game-{record['id']}")  # a link to one game
    viewer = browser.find_element(By.ID, "viewer")
    assert viewer.get_attribute("data-game") == str(record["id"])
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait_for_ply(browser, len(record["opening_moves"]) + len(record["moves"]))
    assert not browser.find_element(By.ID, "board").is_displayed()
    assert "draws the first 1 games" in browser.find_element(By.ID, "no-board").text
    rows = browser.find_elements(By.CSS_SELECTOR, "#move-list tr[data-ply]")
    assert [r.find_elements(By.CSS_SELECTOR, "td")[2].text for r in rows[1:]] == (
        record["opening_moves"] + record["moves"]
    )
    no_script_errors(browser)
