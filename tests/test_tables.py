"""Endgame tables: values against a brute-force solver, the file checks, the command line, and
the engine's use of them (``score mate N`` and the move that keeps the distance)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from brute_force import solve_exactly
from test_protocol_helpers import INFO_RE, Script

from zengine.cli import main
from zengine.engine import zola_tables
from zengine.engine.endgame import (
    NO_VALUE,
    EndgameTables,
    TableError,
    TableFolder,
    load_tables,
    mate_moves,
    read_table,
    table_name,
    write_table,
)
from zengine.engine.facade import BadOptionValue, Engine
from zengine.engine.values import GoLimits, Info, Score, parse_info
from zengine.engine.variants import make_rules
from zengine.engine.zola import ZolaState


def build(variant: str, pieces: int) -> dict[str, bytes]:
    """Every table of a variant up to ``pieces`` checkers, built in memory."""
    codec = make_rules(variant).table_codec()
    assert codec is not None
    tables: dict[str, bytes] = {}
    for stage in codec.plan(pieces):
        for group in stage:
            tables.update(codec.build(group, tables, lambda count: None))
    return tables


@pytest.fixture(scope="module")
def zola6() -> EndgameTables:
    rules = make_rules("zola")
    codec = rules.table_codec()
    assert codec is not None
    return EndgameTables(codec, build("zola", 4))


@pytest.fixture(scope="module")
def zola8() -> EndgameTables:
    rules = make_rules("zola-8")
    codec = rules.table_codec()
    assert codec is not None
    return EndgameTables(codec, build("zola-8", 3))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, zola6: EndgameTables) -> Path:
    """A folder with the 6x6 tables up to 4 checkers."""
    path = tmp_path_factory.mktemp("tables")
    for material, values in zola6.tables.items():
        write_table(path, zola6.codec, material, values)
    return path


def turned(n: int, board: int, symmetry: int) -> int:
    """A bitboard under one of the 8 symmetries of the board, written out here (not the
    builder's tables): x/y mirrors and the diagonal swap."""
    out = 0
    for sq in range(n * n):
        if board >> sq & 1:
            f, r = sq % n, sq // n
            if symmetry & 4:
                f, r = r, f
            if symmetry & 1:
                f = n - 1 - f
            if symmetry & 2:
                r = n - 1 - r
            out |= 1 << (r * n + f)
    return out


def random_positions(variant: str, material: str, count: int, seed: int) -> list[tuple[int, int]]:
    """``count`` random (to move, other) boards of a material."""
    n = make_rules(variant).size  # type: ignore[attr-defined]
    a, b = (int(x) for x in material.split("v"))
    rng = random.Random(f"{variant}{material}{seed}")
    boards = []
    for _ in range(count):
        squares = rng.sample(range(n * n), a + b)
        boards.append((sum(1 << s for s in squares[:a]), sum(1 << s for s in squares[a:])))
    return boards


def check_against_brute_force(variant: str, tables: EndgameTables, count: int) -> int:
    """Every material: random positions, each with both colours to move and in all 8
    symmetries, probed against the brute-force value of the position as given."""
    rules = make_rules(variant)
    n = rules.size  # type: ignore[attr-defined]
    memo: dict[int, tuple[bool, int]] = {}
    checked = 0
    for material in tables.materials():
        for own, opp in random_positions(variant, material, count, 1):
            won, plies = solve_exactly(ZolaState(rules, own, opp, 0), memo)  # type: ignore[arg-type]
            assert (plies % 2 == 1) == won  # no draws: the parity is the result
            for symmetry in range(8):
                own_t, opp_t = turned(n, own, symmetry), turned(n, opp, symmetry)
                for side in (0, 1):
                    red, blue = (own_t, opp_t) if side == 0 else (opp_t, own_t)
                    state = ZolaState(rules, red, blue, side)  # type: ignore[arg-type]
                    assert tables.probe(state) == plies, state.position_text()
                    checked += 1
    return checked


def test_6x6_tables_match_brute_force(zola6: EndgameTables) -> None:
    assert zola6.materials() == ["1v1", "1v2", "2v1", "1v3", "2v2", "3v1"]
    assert check_against_brute_force("zola", zola6, 12) == 6 * 12 * 16


def test_8x8_tables_match_brute_force(zola8: EndgameTables) -> None:
    assert zola8.materials() == ["1v1", "1v2", "2v1"]
    assert check_against_brute_force("zola-8", zola8, 12) == 3 * 12 * 16


@pytest.mark.slow
@pytest.mark.parametrize("variant,pieces", [("zola", 4), ("zola-8", 3), ("zola-10", 3)])
def test_tables_match_brute_force_widely(variant: str, pieces: int) -> None:
    rules = make_rules(variant)
    codec = rules.table_codec()
    assert codec is not None
    tables = EndgameTables(codec, build(variant, pieces))
    assert check_against_brute_force(variant, tables, 150) > 0


def test_every_index_is_a_position(zola6: EndgameTables) -> None:
    for material, values in zola6.tables.items():
        assert NO_VALUE not in values, material
        assert zola6.codec.entries(material) == len(values)


def test_the_tables_are_an_eighth_of_the_boards() -> None:
    codec = make_rules("zola").table_codec()
    assert codec is not None
    # 36 squares: 6 orbits of one square (the triangle a1 b2 c3 a2 a3 b3)
    assert codec.entries("1v1") == 6 * 35
    boards = (36 * 35 // 2) * (34 * 33 // 2)
    assert boards / 8 <= codec.entries("2v2") <= boards / 8 * 1.2


def test_a_position_where_nobody_can_move_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    codec = make_rules("zola").table_codec()
    assert codec is not None
    monkeypatch.setattr(zola_tables, "generate_moves", lambda g, own, opp: [])
    with pytest.raises(TableError, match="neither side can move in"):
        codec.build(("1v1",), {}, lambda count: None)


def test_a_group_needs_the_tables_before_it() -> None:
    codec = make_rules("zola").table_codec()
    assert codec is not None
    with pytest.raises(TableError, match="the table 1v1 is needed first"):
        codec.build(("1v2", "2v1"), {}, lambda count: None)


# --- files -----------------------------------------------------------------------------------


def damaged_copies(folder: Path, tmp_path: Path) -> list[tuple[str, Path]]:
    """Folders each holding the tables with one file damaged in one way."""
    source = folder / "zola-2v2.ztb"
    data = source.read_bytes()
    header_end = data.index(b"\n", len(b"zengine-table\n")) + 1
    flipped = bytearray(data)
    flipped[-10] ^= 0x40
    cases = {
        "flipped": bytes(flipped),
        "truncated": data[: len(data) // 2],
        "empty": b"",
        "not a table": b"hello\n",
        "header": data[:header_end].replace(b'"format": 1', b'"format": 2') + data[header_end:],
        "entries": data[:header_end].replace(b'"entries": ', b'"entries": 1') + data[header_end:],
        "numbering": data[:header_end].replace(b"(1)", b"(0)") + data[header_end:],
        "foreign": data[:header_end].replace(b'"size": "6"', b'"size": "8"') + data[header_end:],
    }
    folders = []
    for name, content in cases.items():
        copy = tmp_path / name.replace(" ", "-")
        copy.mkdir()
        for table in folder.glob("*.ztb"):
            (copy / table.name).write_bytes(table.read_bytes())
        (copy / source.name).write_bytes(content)
        folders.append((name, copy))
    return folders


def test_a_damaged_or_foreign_table_is_refused(folder: Path, tmp_path: Path) -> None:
    for name, copy in damaged_copies(folder, tmp_path):
        with pytest.raises(TableError, match=r"^table zola-2v2\.ztb: ") as refused:
            TableFolder(str(copy))
        assert "\n" not in str(refused.value), name
        engine = Engine()
        with pytest.raises(BadOptionValue, match=r"zola-2v2\.ztb"):
            engine.set_option("TablePath", str(copy))
        assert engine.option_value("TablePath") == ""


def test_a_table_read_back_is_the_table_written(folder: Path, zola6: EndgameTables) -> None:
    rules = make_rules("zola")
    header, values = read_table(folder / table_name(rules, "3v1"))
    assert (header.game, header.variant, header.material) == ("zola", "zola", "3v1")
    assert values == zola6.tables["3v1"]
    codec = rules.table_codec()
    assert codec is not None
    assert set(load_tables(folder, rules, codec, ["3v1", "1v4"])) == {"3v1"}


def test_a_file_under_another_material_s_name_is_refused(folder: Path, tmp_path: Path) -> None:
    rules = make_rules("zola")
    codec = rules.table_codec()
    assert codec is not None
    (tmp_path / "zola-1v3.ztb").write_bytes((folder / "zola-3v1.ztb").read_bytes())
    with pytest.raises(TableError, match="holds material 3v1"):
        load_tables(tmp_path, rules, codec, ["1v3"])


def test_a_folder_that_is_no_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="no such folder"):
        TableFolder(str(tmp_path / "missing"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(TableError, match="is not a folder"):
        TableFolder(str(tmp_path / "file"))
    empty = TableFolder(str(tmp_path))
    assert empty.count() == 0 and empty.for_rules(make_rules("zola")) is None


# --- the engine --------------------------------------------------------------------------------


def go(engine: Engine, limits: GoLimits) -> tuple[list[Info], str | None]:
    infos: list[Info] = []
    done: list[str | None] = []
    engine.go(limits, infos.append, done.append)
    engine.wait()
    return infos, done[0]


def test_the_engine_plays_the_exact_distance(folder: Path) -> None:
    """The contract: with 6x6 tables up to 4 checkers, ``go depth 1`` on any position of at
    most 4 checkers ends with an exact ``score mate N`` and a move that keeps the distance."""
    rules = make_rules("zola")
    engine = Engine()
    engine.set_option("TablePath", str(folder))
    memo: dict[int, tuple[bool, int]] = {}
    for material in ("1v1", "1v2", "2v1", "1v3", "2v2", "3v1"):
        for own, opp in random_positions("zola", material, 6, 2):
            for side in (0, 1):
                red, blue = (own, opp) if side == 0 else (opp, own)
                state = ZolaState(rules, red, blue, side)  # type: ignore[arg-type]
                won, plies = solve_exactly(state, memo)
                engine.set_position(state.position_text(), [])
                infos, best = go(engine, GoLimits(depth=1))
                assert infos[-1].score is not None
                assert infos[-1].score.mate == mate_moves(plies)
                assert infos[-1].tbhits is not None and infos[-1].tbhits > 0
                assert best is not None and infos[-1].pv[0] == best
                state.play(state.parse_move(best))
                after = solve_exactly(state, memo)
                assert after == (not won, plies - 1)


def test_inside_the_search_a_table_position_is_exact(folder: Path) -> None:
    # 5 checkers: not in the tables, every capture leads into them
    fen = "6/1r4/br4/6/1b3r/6 r"
    rules = make_rules("zola")
    won, plies = solve_exactly(rules.parse_position(fen))
    engine = Engine()
    engine.set_option("TablePath", str(folder))
    engine.set_position(fen, [])
    infos, best = go(engine, GoLimits(depth=3))
    assert infos[-1].score is not None and infos[-1].score.mate == mate_moves(plies) == 5
    assert won and infos[-1].tbhits
    assert best == "f2xb2"


def test_without_tables_for_the_game_the_search_is_as_before(folder: Path) -> None:
    plain, with_tables = Engine("zola-8"), Engine("zola-8")
    with_tables.set_option("TablePath", str(folder))
    fen = "8/8/8/8/8/b7/8/2r5 r"
    lines = []
    for engine in (plain, with_tables):
        engine.set_position(fen, [])
        infos, best = go(engine, GoLimits(depth=3))
        lines.append([(i.depth, i.score, i.nodes, i.pv, i.tbhits) for i in infos] + [best])
    assert lines[0] == lines[1]


def test_the_option_is_listed_set_and_cleared(folder: Path, tmp_path: Path) -> None:
    engine = Engine()
    engine.set_option("tablepath", str(folder))
    assert engine.option_value("TablePath") == str(folder)
    with pytest.raises(BadOptionValue, match="no such folder"):
        engine.set_option("TablePath", str(tmp_path / "nowhere"))
    assert engine.option_value("TablePath") == str(folder)
    engine.set_option("TablePath", "<empty>")
    assert engine.option_value("TablePath") == ""
    engine.set_position("6/6/br4/6/1b4/6 r", [])
    infos, _ = go(engine, GoLimits(depth=1))
    assert infos[-1].tbhits is None and infos[-1].score is not None
    assert infos[-1].score.cp is not None


def test_the_protocol_contract(folder: Path) -> None:
    """``setoption name TablePath`` then ``go depth 1``: an info line with the exact mate and
    tbhits, then the bestmove of its pv."""
    script = Script()
    assert (
        script.send(f"setoption name TablePath value {folder}", "position fen 6/6/br4/6/6/6 r")
        == []
    )
    lines = script.search("go depth 1")
    assert INFO_RE.match(lines[0]) and " score mate 2 " in lines[0] and " tbhits " in lines[0]
    assert lines[0].endswith(" pv b4-a5 pass a5xa4") and lines[-1] == "bestmove b4-a5"
    assert script.one("setoption name TablePath value /no/such/folder") == (
        "error bad-value no such folder '/no/such/folder'"
    )


def test_multipv_at_a_table_root_ranks_the_moves_by_the_tables(folder: Path) -> None:
    """MultiPV 5 where 3 moves are legal: one line per move, the exact mate first, each with
    the tables' line; the first line is the one MultiPV 1 prints."""
    script = Script()
    script.send(f"setoption name TablePath value {folder}", "position fen 6/6/br4/6/6/6 r")
    single = script.search("go depth 1")
    script.send("setoption name MultiPV value 5")
    lines = script.search("go depth 3")
    ranked = [parse_info(line) for line in lines[:-1]]
    assert [(i.depth, i.multipv, i.score) for i in ranked if i is not None] == [
        (1, 1, Score(mate=2)),
        (1, 2, Score(mate=-1)),
        (1, 3, Score(mate=-1)),
    ]
    assert [i.pv for i in ranked if i is not None] == [
        ("b4-a5", "pass", "a5xa4"),
        ("b4-b5", "a4xb5"),
        ("b4-a3", "a4xa3"),
    ]
    assert lines[0].replace(" multipv 1", "").split(" nps ")[0] == single[0].split(" nps ")[0]
    assert lines[-1] == single[-1] == "bestmove b4-a5"


def test_tbhits_travel_in_info_lines() -> None:
    line = Info(depth=1, nodes=5, tbhits=7, pv=("a1xa2",)).format()
    assert line == "info depth 1 nodes 5 tbhits 7 pv a1xa2"
    assert parse_info(line) == Info(depth=1, nodes=5, tbhits=7, pv=("a1xa2",))


# --- the command line -------------------------------------------------------------------------


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main.main(args, prog_name="zengine")
    out, err = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 1), out, err


def test_build_then_probe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["tables", "build", "--checkers", "3", "--dir", str(tmp_path)], capsys)
    assert code == 0
    assert "zola: 3 tables up to 3 checkers" in out and "3 built" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "zola-1v1.ztb",
        "zola-1v2.ztb",
        "zola-2v1.ztb",
    ]
    code, out, _ = run(["tables", "build", "--checkers", "3", "--dir", str(tmp_path)], capsys)
    assert code == 0 and "0 built" in out and "3 kept" in out
    code, out, _ = run(["tables", "probe", "--dir", str(tmp_path), "6/6/br4/6/6/6", "r"], capsys)
    assert code == 0
    # b4-a5 leaves Blue's a4 no move (a pass), and a5 takes it; after the other steps a4
    # takes b4
    assert out.splitlines() == [
        "value win 3 mate 2",
        "move b4-a5 win 3 mate 2",
        "move b4-a3 loss 2 mate -1",
        "move b4-b5 loss 2 mate -1",
    ]


@pytest.mark.parametrize(
    "args,message",
    [
        (["build", "--variant", "zhadu", "--checkers", "3", "--dir", "x"], "zhadu has no endgame"),
        (["build", "--variant", "chess", "--checkers", "3", "--dir", "x"], "unknown game"),
        (["build", "--checkers", "1", "--dir", "x"], "--checkers"),
        (["probe", "--dir", "/no/such", "6/6/6/6/6/r5", "b"], "no such folder"),
        (["probe", "6/6/6/6/6/r5 x"], "side to move"),
        ([], "give a command: build or probe"),
        (["build", "--checkers", "3", "--dir", "/dev/null"], "'/dev/null' is not a folder"),
    ],
)
def test_bad_command_lines_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["tables", *args], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err


def test_probe_of_a_position_without_table(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tables", "probe", "--dir", str(folder), "6/6/br4/6/1b3r/6 r"]
    assert run([*args[:4], "6/6/br4/6/1b3r/6 r"], capsys)[0] == 0
    code, _, err = run([*args[:4], "6/1r4/br4/6/1b3r/6 r"], capsys)
    assert code == 2 and "no table" in err


def test_ctrl_c_leaves_whole_tables_and_the_build_resumes(tmp_path: Path) -> None:
    """Interrupted while it builds the 5-checker tables: exit 130, no temporary file, every
    table there is whole; the next build keeps them."""
    command = [sys.executable, "-m", "zengine", "tables", "build", "--checkers", "5"]
    process = subprocess.Popen(
        [*command, "--dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a test run in the background of a script has SIGINT ignored: Ctrl-C's default back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "zola-2v2.ztb").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert err.strip().splitlines()[-1] == "zengine tables: interrupted"
    names = sorted(os.listdir(tmp_path))
    assert all(name.endswith(".ztb") and not name.startswith(".") for name in names), names
    assert "zola-2v2.ztb" in names
    folder = TableFolder(str(tmp_path))
    assert folder.count() == len(names)
    # the rest, resumed: 4 checkers asked, so the 5-checker tables are not started again
    result = subprocess.run(
        [*command[:-1], "4", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "0 built" in result.stdout and "6 kept" in result.stdout


# --- the referee ------------------------------------------------------------------------------


def test_the_referee_ends_a_game_at_a_table_position(folder: Path, tmp_path: Path) -> None:
    """``zengine match --tables``: each game stops at its first position of at most 4
    checkers, and the result is the brute-force one of that position."""
    engine = f"cmd={sys.executable} -m zengine"
    # Five checkers: the first capture brings the game into the tables. (From the start, a
    # game could end with five or more checkers left and never reach them: 5 against none.)
    openings = tmp_path / "five.txt"
    openings.write_text("5r/6/2b3/6/1r4/b4r r\n")
    done = subprocess.run(
        [sys.executable, "-m", "zengine", "match", "--each", "depth=1"]
        + ["--engine", engine, "name=a", "--engine", engine, "name=b"]
        + ["--openings", f"file={openings}"]
        + ["--games", "2", "--tables", str(folder), "--out", str(tmp_path / "m")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rules = make_rules("zola")
    records = [
        json.loads(line) for line in (tmp_path / "m" / "games.jsonl").read_text().splitlines()
    ]
    assert len(records) == 2
    for record in records:
        assert record["termination"] == "adjudication"
        assert "lost by the tables" in record["reason"]
        state = rules.parse_position(record["final_fen"])
        assert sum(state.checkers(side).bit_count() for side in (0, 1)) <= 4  # type: ignore[attr-defined]
        won, _ = solve_exactly(state)
        winner = state.side_to_move if won else 1 - state.side_to_move
        assert record["result"] == ("1-0" if winner == 0 else "0-1")


def test_tbpieces_limits_the_positions_that_end_a_game(folder: Path) -> None:
    """cutechess's ``-tbpieces N``: only a position of at most N checkers ends the game."""
    from zengine.tools.referee.tables import table_ending

    rules = make_rules("zola")
    for material, limit, ends in (("2v2", 4, True), ("2v2", 3, False), ("1v2", 3, True)):
        own, opp = random_positions("zola", material, 1, 5)[0]
        state = ZolaState(rules, own, opp, 0)  # type: ignore[arg-type]
        exact = table_ending(str(folder), state)
        assert exact is not None
        assert table_ending(str(folder), state, limit) == (exact if ends else None), material


def test_the_referee_refuses_a_bad_table_folder(tmp_path: Path) -> None:
    from zengine.tools.referee.config import ConfigError
    from zengine.tools.referee.options import parse_command_line

    with pytest.raises(ConfigError, match="--tables: no such folder"):
        parse_command_line(["--each", "depth=1", "--tables", str(tmp_path / "missing")])
    config = parse_command_line(["--each", "depth=1", "--tables", str(tmp_path)])
    assert config.adjudication.tables == str(tmp_path)
    assert type(config).from_json(config.to_json()) == config


def test_jobs_build_the_same_tables(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tables", "build", "--checkers", "4", "--jobs", "2", "--dir", str(tmp_path)]
    code, out, _ = run(args, capsys)
    assert code == 0 and "6 built" in out
    for table in folder.glob("*.ztb"):
        assert (tmp_path / table.name).read_bytes() == table.read_bytes(), table.name
