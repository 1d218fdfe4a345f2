"""The referee against scripted fake engines (tests/fake_engines/fake_engine.py): every
failure gives the right result and reason; the match goes on, or stops cleanly without
--recover; no engine process is left behind.

No test races a well-behaved engine against a short deadline: the sound engines get
untimed limits (``depth=1``: the fake engine answers at once, the referee waits up to a
minute) or a generous clock, and only the misbehaving engine gets short deadlines, for an
event that is certain (it never answers, it answers too late by design)."""

import json
import pickle
import subprocess
import sys

import pytest
from fake_match import DATA, EASY, FAKE, X_DEADLINES, children, fake, pair, run, running

from zengine.tools.referee.match import run_match
from zengine.tools.referee.options import parse_command_line
from zengine.tools.referee.runner import ExitReason
from zengine.tools.referee.schedule import match_schedule
from zengine.tools.referee.terminations import Termination


@pytest.mark.parametrize(
    "mode,limits,termination,reason",
    [
        ("illegal", (), "illegal move", "X played an illegal move: '"),
        (
            "unparsable",
            (),
            "protocol error",
            "X played an unparsable move: 'bestmove !!garbage!!'",
        ),
        (
            "none",
            (),
            "protocol error",
            "X played no move ('bestmove (none)') while legal moves exist",
        ),
        # 800 ms late on a clock of 500 ms: lost on time however the machine is loaded.
        ("late", ("tc=0.5+0.05",), "time forfeit", "X lost on time: "),
    ],
)
def test_engine_errors_lose_and_the_match_goes_on(tmp_path, mode, limits, termination, reason):
    result, games, _ = run(
        tmp_path, *pair(fake(mode, "--late", "800"), x_keys=limits), "--games", "2", *EASY
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    for game in games:
        loser_side = 0 if game["p1"] == "X" else 1
        assert game["result"] == ("0-1" if loser_side == 0 else "1-0")
        assert game["termination"] == termination
        assert game["reason"].startswith(reason)


def test_garbage_output_is_ignored(tmp_path):
    result, games, _ = run(tmp_path, *pair(fake("garbage", "--score", "12")), "--games", "2", *EASY)
    assert result.reason is ExitReason.COMPLETED
    assert [g["termination"] for g in games] == ["normal", "normal"]
    # The junk info line before each score line leaves no trace; the real one is read.
    for game in games:
        assert set(game["scores"]) == {"cp 12", None} and set(game["depths"]) == {1, None}


@pytest.mark.parametrize(
    "mode,limits,termination,reason",
    [
        (
            "crash",
            (),
            "disconnect",
            "X disconnected (exit code 3) while the referee waited for bestmove",
        ),
        ("exit-on-go", (), "disconnect", "X disconnected (exit code 0)"),
        # X never answers its first go: its 300 ms clock and 200 ms grace run out for sure.
        ("hang", ("tc=0.3",), "time forfeit", "X lost on time: no bestmove after"),
    ],
)
def test_engine_failures_stop_cleanly_or_recover(tmp_path, mode, limits, termination, reason):
    after = "1" if mode == "hang" else "2"
    engines = pair(fake(mode, "--after", after), x_keys=(*limits, *X_DEADLINES))
    result, games, text = run(tmp_path, *engines, "--games", "4", *EASY, out="stop")
    assert result.reason is ExitReason.ENGINE_FAILURE
    assert len(games) == 1 and games[0]["result"] == "0-1"
    assert games[0]["termination"] == termination and reason in games[0]["reason"]
    assert "without --recover the match stops" in text
    # With --recover the engine is restarted and every game is played (and lost by X).
    result, games, _ = run(tmp_path, *engines, "--games", "2", "--recover", *EASY, out="recover")
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    for game in games:
        assert game["termination"] == termination and reason in game["reason"]
        assert game["result"] == ("0-1" if game["p1"] == "X" else "1-0")


@pytest.mark.parametrize(
    "mode,limits,stopped",
    [
        # Never a word: the wait for uciok may be short.
        ("no-uci", ("timeout.start=0.5",), "X gave no 'uciok' within 0.5 s (at start)"),
        ("no-ready", (), "X gave no 'readyok' within 0.5 s (at start)"),
    ],
)
@pytest.mark.parametrize("recover", [(), ("--recover",)])
def test_an_engine_that_never_becomes_ready_stops_the_match_unscored(
    tmp_path, mode, limits, stopped, recover
):
    # As cutechess and fastchess: a game no engine could start says nothing of strength, and
    # restarting (--recover) an engine that cannot start would forfeit every game left.
    engines = pair(fake(mode), x_keys=(*limits, *X_DEADLINES))
    result, games, text = run(tmp_path, *engines, "--games", "4", *recover, *EASY)
    assert result.reason is ExitReason.ENGINE_FAILURE and result.exit_code == 3
    assert games == []
    expected = f"engine failure: {stopped}; game 1 was not played"
    assert result.summary["stopped"] == expected
    assert f"Stopped: {expected}" in text


def test_depth_only_limit_stall_has_a_deadline(tmp_path):
    # X hangs on its first go; only X's own move deadline is short.
    result, games, _ = run(
        tmp_path,
        *pair(fake("hang"), x_keys=X_DEADLINES),
        "--each",
        "depth=2",
        "--games",
        "2",
        "--recover",
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    assert all(g["termination"] == "stalled connection" for g in games)
    assert all(g["reason"] == "X stalled: no bestmove within 0.5 s" for g in games)


def test_cannot_start_engine(tmp_path):
    # A missing program is refused before the match (tests/test_match_config.py); a file
    # marked executable that is no program gets past that check and fails to start.
    program = tmp_path / "not-a-program"
    program.write_text("this is no program\n")
    program.chmod(0o755)
    for recover in ((), ("--recover",)):
        out = f"m{len(recover)}"
        result, games, _ = run(
            tmp_path, *pair(f"cmd={program}"), "--games", "2", *recover, *EASY, out=out
        )
        assert result.reason is ExitReason.ENGINE_FAILURE and games == []
        stopped = result.summary["stopped"]
        assert stopped.startswith(f"engine failure: X cannot start: {program}: ")
        assert stopped.endswith(" (at start); game 1 was not played")


def test_what_the_referee_sends_uci_and_ugi(tmp_path):
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    result, games, _ = run(
        tmp_path,
        *pair(
            fake("--log", str(log_a)),
            fake("--log", str(log_b)),
            x_keys=("tc=40/10+0.25", "option.Hash=8"),
            # go movetime 500, but no loss on time on a loaded machine
            n_keys=("proto=ugi", "st=0.5", "timemargin=100000"),
            names=("A", "B"),
        ),
        "--variant",
        "zhadu",
        "--rule",
        "quiet=50",
        "--games",
        "2",
        "--openings",
        "random",
        "plies=2",
    )
    assert result.reason is ExitReason.COMPLETED
    a = log_a.read_text().splitlines()
    b = log_b.read_text().splitlines()
    assert a[:3] == ["uci", "setoption name Hash value 8", "isready"]
    assert b[:2] == ["ugi", "isready"]
    for log, newgame in ((a, "ucinewgame"), (b, "uginewgame")):
        i = log.index("setoption name UCI_Variant value zhadu")
        assert log[i + 1 : i + 4] == ["setoption name Zhadu Quiet value 50", newgame, "isready"]
    first = games[0]
    assert a[a.index("isready", 3) + 1] == "position startpos moves " + " ".join(
        first["opening_moves"]
    )
    go_a = [line for line in a if line.startswith("go")]
    assert go_a[0] == "go wtime 10000 btime 10000 winc 250 binc 250 movestogo 40"
    go_b = [line for line in b if line.startswith("go")]
    assert go_b and all(line == "go movetime 500" for line in go_b)
    assert first["variant"] == "zhadu links full quiet 50"


def test_adjudication_resign_and_draw(tmp_path):
    _result, games, _ = run(
        tmp_path,
        *pair(fake("--score", "-700"), fake("--score", "700")),
        "--games",
        "2",
        "--resign",
        "movecount=2",
        "score=600",
        *EASY,
        out="r",
    )
    assert len(games) == 2
    for game in games:
        assert game["termination"] == "adjudication"
        assert game["reason"] == "X resigns: score <= -600 cp for 2 moves"
        assert game["result"] == ("0-1" if game["p1"] == "X" else "1-0")
        assert len(game["moves"]) in (3, 4)  # X's second move ends it
    _result, games, _ = run(
        tmp_path,
        *pair(fake("--score", "3"), fake("--score", "-2")),
        "--games",
        "2",
        "--draw",
        "movenumber=3",
        "movecount=2",
        "score=5",
        *EASY,
        out="d",
    )
    assert len(games) == 2
    for game in games:
        assert (game["result"], game["termination"]) == ("1/2-1/2", "adjudication")
        assert len(game["moves"]) == 5  # move number 3 of the game reached, 2 scores each
    _result, games, _ = run(
        tmp_path, *pair(fake()), "--games", "2", "--maxplies", "7", *EASY, out="p"
    )
    assert len(games) == 2 and all(
        (g["result"], g["termination"], len(g["moves"])) == ("1/2-1/2", "max plies", 7)
        for g in games
    )


def test_sprt_stops_the_match_when_decided(tmp_path):
    result, games, text = run(
        tmp_path,
        *pair(fake(), fake("illegal"), names=("N", "X")),
        "--games",
        "400",
        "--sprt",
        "elo0=0",
        "elo1=50",
        *EASY,
    )
    assert result.reason is ExitReason.SPRT_DECIDED and result.exit_code == 0
    assert result.summary["sprt"]["verdict"] == "H1"
    assert 2 <= len(games) < 400 and len(games) % 2 == 0
    assert "SPRT: H1 accepted, stopping the match" in text


def test_concurrency_tournaments_and_cross_table(tmp_path):
    engines = []
    for name in "ABC":
        engines += ["--engine", fake("--seed", str(ord(name))), f"name={name}"]
    result, games, text = run(
        tmp_path, *engines, "--games", "2", "--rounds", "2", "--concurrency", "2", *EASY
    )
    assert sorted(g["id"] for g in games) == list(range(12))
    assert "Cross table" in text
    assert sum(e["games"] for e in result.summary["engines"]) == 24
    result, games, _ = run(
        tmp_path, *engines, "--games", "2", "--tournament", "gauntlet", *EASY, out="g"
    )
    assert {tuple(g["encounter"]) for g in games} == {(0, 1), (0, 2)}


def test_pgn_and_summary_files(tmp_path):
    _result, _games, text = run(
        tmp_path, *pair(fake(), fake("--seed", "3"), names=("A", "B")), "--games", "2", *EASY
    )
    out = tmp_path / "m"
    pgn = (out / "games.pgn").read_text()
    assert pgn.count("[Event ") == 2 and '[P1 "A"]' in pgn and '[P2 "B"]' in pgn
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games_played"] == 2 and summary["seed"] == 11
    assert json.loads((out / "config.json").read_text())["seed"] == 11
    assert "Referee overhead per move" in text


def test_rules_draws_come_from_the_game(tmp_path):
    # Zhadu with a quiet limit of 1: the first movement ply without a capture draws.
    result, games, _ = run(
        tmp_path,
        *pair(fake(), fake("--seed", "4"), names=("A", "B")),
        "--variant",
        "zhadu",
        "--rule",
        "quiet=1",
        "--games",
        "2",
        "--openings",
        "none",
        *EASY,
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    for game in games:
        assert game["termination"] == "normal"
        assert (game["result"], game["reason"]) == ("1/2-1/2", "quiet limit")
        assert len(game["moves"]) == 11  # ten placements, then one quiet move


def test_openings_file_positions_and_lines(tmp_path):
    book = tmp_path / "book.txt"
    fen = "6/6/br4/6/1b4/6 r"  # Red b4, Blue a4 and b2: a short game from a position
    book.write_text(f"# two openings\n{fen}\na1xa2 b1xa2\n6/6/6/6/6/r5 b\n")
    log = tmp_path / "a.log"
    _result, games, _ = run(
        tmp_path,
        *pair(fake("--log", str(log)), names=("A", "B")),
        "--openings",
        f"file={book}",
        "--games",
        "4",
        *EASY,
    )
    assert [g["opening"] for g in games] == [fen, fen, "a1xa2 b1xa2", "a1xa2 b1xa2"]
    assert [g["start_fen"] for g in games[:2]] == [fen, fen]
    sent = log.read_text().splitlines()
    assert any(line.startswith(f"position fen {fen}") for line in sent)
    assert any(line.startswith("position startpos moves a1xa2 b1xa2") for line in sent)
    pgn = (tmp_path / "m" / "games.pgn").read_text()
    assert f'[FEN "{fen}"]' in pgn and '[Opening "a1xa2 b1xa2"]' in pgn


def test_resume_after_an_engine_failure_continues_the_schedule(tmp_path):
    # X crashes at its first go (a new X at each game).
    engines = (*pair(fake("crash")), "--games", "4", *EASY)
    result, games, _ = run(tmp_path, *engines)
    assert result.reason is ExitReason.ENGINE_FAILURE and [g["id"] for g in games] == [0]
    lines: list[str] = []
    result = run_match(["--resume", str(tmp_path / "m")], emit=lines.append, progress=False)
    games = [json.loads(line) for line in (tmp_path / "m" / "games.jsonl").read_text().splitlines()]
    assert result.reason is ExitReason.ENGINE_FAILURE and [g["id"] for g in games] == [0, 1]
    assert "Resuming: 1 games already played, 3 to play" in lines
    assert children() == []


def test_a_match_of_the_previous_version_resumes(tmp_path):
    # A folder the referee wrote before its configuration and records were typed: two of
    # three games played. Its engines are the fake engine of this checkout.
    out = tmp_path / "old"
    out.mkdir()
    config = json.loads((DATA / "old_match" / "config.json").read_text())
    for engine in config["engines"]:
        engine["cmd"] = [sys.executable, str(FAKE), *engine["cmd"][2:]]
    (out / "config.json").write_text(json.dumps(config))
    old_lines = (DATA / "old_match" / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join(old_lines) + "\n")
    lines: list[str] = []
    result = run_match(["--resume", str(out)], emit=lines.append, progress=False)
    assert result.reason is ExitReason.COMPLETED, "\n".join(lines)
    assert "Resuming: 2 games already played, 1 to play" in lines
    now = (out / "games.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in now[:2]] == [json.loads(line) for line in old_lines]
    assert [json.loads(line)["id"] for line in now] == [0, 1, 2]
    assert (out / "games.pgn").read_text().count("[Event ") == 3
    assert result.summary["games_played"] == 3 and "sprt" in result.summary
    assert children() == []


#: What a worker of a distributed match does, in a fresh interpreter: its own engines, one
#: scheduled game; configuration and game come in pickled, the report goes out pickled.
WORKER = """
import pickle, sys
from zengine.tools.referee.engine_client import EngineProcess
from zengine.tools.referee.play import EngineKeeper, play_scheduled_game

config, game = pickle.load(sys.stdin.buffer)


def start(index):
    engine = EngineProcess(config.engines[index])
    engine.handshake()
    return engine


keeper = EngineKeeper(start, lambda engine, grace: engine.close(grace))
try:
    report = play_scheduled_game(config, game, keeper.engine)
finally:
    keeper.close()
sys.stdout.buffer.write(pickle.dumps(report))
"""


def test_a_scheduled_game_plays_in_another_process(tmp_path):
    config = parse_command_line(
        [
            *pair(
                fake("--log", str(tmp_path / "a.log")),
                fake("--seed", "2", "--log", str(tmp_path / "b.log")),
                names=("A", "B"),
            ),
            *("--each", "depth=1", "--variant", "zhadu", "--games", "2", "--seed", "3"),
        ]
    )
    rules = config.make_rules()
    games = match_schedule(config, rules)
    for game in games:
        done = subprocess.run(
            [sys.executable, "-c", WORKER],
            input=pickle.dumps((config, game)),
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        report = pickle.loads(done.stdout)
        record = report.record
        assert report.failed == ()
        assert (record.id, record.p1, record.p2) == (
            game.id,
            ("A", "B")[game.p1],
            ("A", "B")[game.p2],
        )
        assert record.opening_moves == game.opening.moves
        # The moves are the game's own: they replay legally to the recorded end.
        state = game.opening.state(rules)
        for move in record.moves:
            state.play(state.parse_move(move))
        assert state.position_text() == record.final_fen
        if record.termination is Termination.RULES:
            assert state.outcome() is not None and state.outcome().result is record.result
    assert running(str(tmp_path)) == []  # the worker stopped its engines
