"""The referee against engines that misbehave as an attacker would (tests/fake_engines/
fake_engine.py's fault flags): every case ends in a classified result, with no traceback, no
hang, no process left behind and no game lost or doubled.

As in test_match_fake.py, sound engines play untimed or on generous clocks; only the faulty
engine gets short deadlines, for waits it never answers."""

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import fake_match
import pytest
from fake_match import (
    DATA,
    EASY,
    X_DEADLINES,
    fake,
    match_cli,
    pair,
    running,
    start_match,
    unique,
    wait_for_games,
    wait_until_gone,
)

from zengine.tools.referee.match import run_match
from zengine.tools.referee.process_tree import all_procs
from zengine.tools.referee.programs import builtin_engine
from zengine.tools.referee.runner import ExitReason

#: Some matches here stop before their first game: no games.jsonl is no games.
run = partial(fake_match.run, missing_ok=True)


def warnings_of(game: dict, name: str) -> list[str]:
    return [w for w in game.get("warnings", []) if w.startswith(f"{name}: ")]


def stray_count(game: dict, name: str) -> int:
    total = 0
    for warning in warnings_of(game, name):
        words = warning.split()
        if "'bestmove'" in words:
            total += int(words[1])
    return total


def moves_of(game: dict, name: str) -> int:
    first = 0 if game["p1"] == name else 1
    side = game["start_side"] ^ (len(game["opening_moves"]) % 2)
    return len(game["moves"][(first - side) % 2 :: 2])


# --- stray bestmove lines ---------------------------------------------------------------------


def test_a_second_bestmove_for_one_go_is_ignored_and_counted(tmp_path):
    result, games, _ = run(
        tmp_path,
        *pair(fake("--stray-bestmove")),
        *("--games", "2", "--maxplies", "20", *EASY),
    )
    assert result.reason is ExitReason.COMPLETED
    # Taken as the answer to the next go, the extra line was X's own move of the turn before:
    # an illegal move. Now every game runs to its end.
    assert [g["termination"] for g in games] == ["max plies", "max plies"]
    total = sum(stray_count(g, "X") for g in games)
    made = sum(moves_of(g, "X") for g in games)
    # Each of X's moves left one stray line; one may arrive after its game was closed.
    assert made - 1 <= total <= made
    assert all(stray_count(g, "N") == 0 for g in games)


def test_a_bestmove_before_go_is_ignored_and_counted(tmp_path):
    result, games, _ = run(
        tmp_path,
        *pair(fake("--early-bestmove")),
        *("--games", "2", "--maxplies", "12", "--openings", "none", *EASY),
    )
    assert result.reason is ExitReason.COMPLETED
    assert [g["termination"] for g in games] == ["max plies", "max plies"]
    # One unasked line after each readyok: the handshake's and each game's.
    assert all(stray_count(g, "X") >= 1 for g in games)


# --- an engine that does not read ------------------------------------------------------------


def test_an_engine_that_stops_reading_loses_by_stall(tmp_path):
    # A legal Zhadu line of 14,000 plies (84 KB: more than a pipe holds), made once by random
    # non-capturing moves (seed 1) that never end the game with the quiet rule off.
    book = DATA / "zhadu_long_line.txt"
    result, games, _ = run(
        tmp_path,
        *pair(fake("--no-read"), x_keys=X_DEADLINES),
        *("--variant", "zhadu", "--rule", "quiet=0", "--openings", f"file={book}"),
        *("--games", "1", *EASY),
    )
    assert result.reason is ExitReason.ENGINE_FAILURE and len(games) == 1
    game = games[0]
    assert (game["p1"], game["result"], game["termination"]) == ("X", "0-1", "stalled connection")
    assert game["reason"].startswith("X did not read its input: 'position startpos moves ")
    assert game["reason"].endswith(" bytes) not taken within 0.5 s")


# --- floods -------------------------------------------------------------------------------------


def test_a_flood_of_info_costs_the_engine_little_time(tmp_path):
    # 20 MB of info before each move, on a 30 s clock: read a byte per system call, this
    # lost on time; read in chunks it takes a fraction of a second, even on a loaded machine.
    result, games, _ = run(
        tmp_path,
        *pair(fake("--flood-info", "20000000"), x_keys=("tc=30",), n_keys=("depth=1",)),
        *("--games", "2", "--maxplies", "4"),
    )
    assert result.reason is ExitReason.COMPLETED
    for game in games:
        assert game["termination"] == "max plies"
        first = 0 if game["p1"] == "X" else 1
        side = game["start_side"] ^ (len(game["opening_moves"]) % 2)
        x_scores = game["scores"][(first - side) % 2 :: 2]
        x_depths = game["depths"][(first - side) % 2 :: 2]
        # The last info line before each bestmove is the one recorded.
        assert x_scores == ["cp 77"] * len(x_scores) and x_depths == [10] * len(x_depths)


def test_a_line_without_end_is_cut_and_counted(tmp_path):
    result, games, _ = run(
        tmp_path,
        *pair(fake("--no-newline", "5000000")),
        *("--games", "2", "--maxplies", "4", *EASY),
    )
    assert result.reason is ExitReason.COMPLETED
    for game in games:
        assert game["termination"] == "max plies"
        # The referee kept 64 K characters of each 5 MB line, not the line.
        assert warnings_of(game, "X") == [
            f"X: {moves_of(game, 'X')} line(s) over 65536 characters cut"
            f" ({moves_of(game, 'X') * (5_000_000 - 65536)} dropped)"
        ]


def test_engines_stderr_log_is_capped_and_labelled(tmp_path):
    result, _, _ = run(
        tmp_path,
        *pair(fake("--stderr-flood", "5000000")),
        *("--games", "2", *EASY),
    )
    assert result.reason is ExitReason.COMPLETED
    log = (tmp_path / "m" / "engines-stderr.log").read_bytes()
    assert len(log) < 2 * (1 << 20) + 200_000  # a head and a tail of 1 MB, labels, a marker
    lines = log.decode().splitlines()
    assert all(line.startswith(("X: ", "N: ")) for line in lines)
    assert lines[0] == "X: noise line 0 " + "." * 50
    assert any(line.startswith("X: ... ") and line.endswith(" bytes dropped ...") for line in lines)
    assert lines[-1] == "X: last words"


def test_a_disconnect_quotes_the_last_stderr_line(tmp_path):
    bogus = "cmd=" + shlex.join([*builtin_engine(), "--bogus"])
    result, games, _ = run(
        tmp_path,
        *pair(bogus),
        *("--games", "2", *EASY),
    )
    # It never became ready: no game is played, the Stopped line quotes it.
    assert result.reason is ExitReason.ENGINE_FAILURE and games == []
    stopped = result.summary["stopped"]
    assert stopped.startswith("engine failure: X disconnected (exit code 2) while the referee ")
    assert stopped.endswith(
        " (at start): zengine: error: no such option '--bogus'; game 1 was not played"
    )
    result, games, _ = run(
        tmp_path,
        *pair(fake("crash", "--after", "2")),
        *("--games", "2", *EASY),
        out="crash",
    )
    assert games[0]["reason"] == (
        "X disconnected (exit code 3) while the referee waited for bestmove:"
        " fake: crashing as asked"
    )


# --- rejected settings --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option,error",
    [
        ("option.Hsh=64", "error unknown-option unknown option 'Hsh'"),
        ("option.Hash=abc", "error syntax option 'Hash' needs a number, got 'abc'"),
        ("option.Hash=16 32", "error syntax option 'Hash': the value is one token"),
    ],
)
def test_a_rejected_option_stops_the_match_before_it_plays(tmp_path, option, error):
    result, games, text = run(
        tmp_path,
        *pair("cmd=zengine", x_keys=(option,)),
        *("--games", "2", *EASY),
    )
    assert result.reason is ExitReason.ENGINE_REJECTED and result.exit_code == 2
    assert games == []
    stopped = result.summary["stopped"]
    assert stopped.startswith(f"engine X rejected {option}: '{error}")
    assert f"Stopped: {stopped}" in text


def test_a_rejected_variant_stops_the_match(tmp_path):
    result, games, _ = run(
        tmp_path,
        *pair(fake("--reject-options")),
        *("--games", "2", "--variant", "zhadu", *EASY),
    )
    assert result.reason is ExitReason.ENGINE_REJECTED and games == []
    assert result.summary["stopped"] == (
        "engine X rejected the variant zhadu: 'error unknown-option fake rejects every option:"
        " 'name UCI_Variant value zhadu''"
    )


def test_an_error_instead_of_a_move_loses_quoted(tmp_path):
    result, games, _ = run(
        tmp_path,
        *pair(fake("reject-go")),
        *("--games", "2", *EASY),
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    for game in games:
        assert game["termination"] == "protocol error"
        assert game["result"] == ("0-1" if game["p1"] == "X" else "1-0")
        assert game["reason"] == (
            "X answered 'error bad-value fake rejects this go' instead of a move (to 'go depth 1')"
        )


# --- processes that escape -------------------------------------------------------------------


def test_a_descendant_that_left_the_session_is_stopped_with_its_engine(tmp_path):
    marker = unique("setsid-child")
    result, games, _ = run(
        tmp_path,
        *pair(fake("--setsid-child", marker)),
        *("--games", "2", *EASY),
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    assert running(marker) == []


def test_a_child_that_left_session_and_environment_is_gone_when_the_match_ends(tmp_path):
    # X's helper forks twice, calls setsid, clears its environment and ignores SIGTERM: no
    # tag, no session and no parent tie lead to it, but the referee (a subreaper) adopted it.
    marker = unique("detached")
    result, games, _ = run(
        tmp_path,
        *pair(fake("--detached-child", marker)),
        *("--games", "2", *EASY),
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    assert running(marker) == []


def test_a_descendant_that_died_unseen_is_reaped(tmp_path):
    # X's child exits at once and X never waits for it: when X is stopped, the zombie passes
    # to the referee (a subreaper), which reaps it (run() checks that no child is left).
    result, games, _ = run(
        tmp_path,
        *pair(fake("--short-child")),
        *("--games", "2", *EASY),
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2


def referee(out: Path, *engines: str, games: int = 8) -> subprocess.Popen:
    return start_match(
        *engines,
        *("--each", "tc=20+0.2", "--games", str(games), "--maxplies", "30"),
        *("--seed", "5", "--out", str(out)),
    )


def test_a_killed_referee_takes_its_engines_and_resume_stops_the_rest(tmp_path):
    out = tmp_path / "m"
    marker = unique("grandchild")
    engines = pair(
        fake("--ignore-eof", "--log", f"{out}.x", "--setsid-child", marker),
        # N thinks 100 ms a move: the three games after the first take seconds, so the match
        # is still on when it is killed (at full speed all four had ended before the kill, and
        # the match's own end stopped the grandchild).
        fake("--ignore-eof", "--delay", "100", "--log", f"{out}.n"),
    )
    proc = referee(out, *engines, games=4)
    wait_for_games(out, 1, proc)
    proc.kill()
    proc.communicate(timeout=30)
    # The engines ignore the end of their input: they die with the referee all the same.
    assert wait_until_gone(f"{out}.") == []
    # What an engine started and that left its session outlives a SIGKILL of the referee ...
    assert [p for p in running(marker) if "os.setsid" in p] != []
    done = match_cli("--resume", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    # ... until the next run in the folder stops it (it carries the folder's tag).
    assert "an earlier run in" in done.stdout
    assert running(marker) == [] and running(f"{out}.") == []
    ids = sorted(json.loads(line)["id"] for line in (out / "games.jsonl").read_text().splitlines())
    assert ids == [0, 1, 2, 3]


def test_a_second_signal_hurries_the_cleanup_and_the_summary_is_written(tmp_path):
    out = tmp_path / "m"
    # Engines that ignore quit and SIGTERM: the cleanup takes its full graces, unless hurried.
    proc = referee(
        out,
        *pair(
            fake("--ignore-quit", "--delay", "20", "--log", str(out) + ".a"),
            fake("--ignore-quit", "--delay", "20", "--log", str(out) + ".b"),
            names=("A", "B"),
        ),
        games=20,
    )
    wait_for_games(out, 1, proc)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    text, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, text
    assert "Traceback" not in text
    assert "Interrupted:" in text and "Resume with: zengine match --resume" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["exit_reason"] == "interrupted"
    assert wait_until_gone(str(out)) == []


def test_engine_errors_pickle():
    import pickle

    from zengine.tools.referee.engine_client import EngineError, SettingRejected
    from zengine.tools.referee.terminations import Termination

    error = EngineError(Termination.DISCONNECT, "X", "disconnected (exit code 2)", "bad", True)
    again = pickle.loads(pickle.dumps(error))
    assert (again.termination, again.name, again.detail, again.quote, again.writing) == (
        Termination.DISCONNECT,
        "X",
        "disconnected (exit code 2)",
        "bad",
        True,
    )
    assert str(again) == "X disconnected (exit code 2): bad"
    rejected = pickle.loads(pickle.dumps(SettingRejected("X", "option.A=1", "error e")))
    assert str(rejected) == "engine X rejected option.A=1: 'error e'"


#: A tagged session leader whose grandchild stays in its session, clears its environment and
#: is orphaned (its parent exits): found by its session only.
ORPHAN_IN_SESSION = """
import os, sys, time
if os.fork() == 0:
    if os.fork() == 0:
        os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)"], {})
    os._exit(0)
os.wait()
time.sleep(60)
"""


def test_the_ledger_stops_what_an_earlier_run_left_and_nothing_else(tmp_path):
    from zengine.tools.referee.process_tree import TAG_VARIABLE, ProcessLedger, read_proc

    path = tmp_path / "engines.pids"
    ledger = ProcessLedger(path)
    assert ledger.sweep() == []
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    tagged = subprocess.Popen(sleeper, env={**os.environ, TAG_VARIABLE: ledger.new_tag()})
    leader = subprocess.Popen(
        [sys.executable, "-c", ORPHAN_IN_SESSION],
        env={**os.environ, TAG_VARIABLE: ledger.new_tag()},
        start_new_session=True,
    )
    stranger = subprocess.Popen(sleeper)  # untagged, in our session: not the folder's
    try:
        deadline = time.monotonic() + 60
        # The orphan is the session's one other process once its parent (the leader's child,
        # which forked it and exits) is gone: it is then no longer the leader's child.
        while True:
            members = [p for p in all_procs() if p.session == leader.pid]
            others = [p for p in members if p.pid != leader.pid]
            if len(others) == 1 and others[0].ppid != leader.pid:
                break
            assert time.monotonic() < deadline, "the orphan did not start"
            time.sleep(0.02)
        orphan = others[0].pid
        again = ProcessLedger(path)
        assert again.token == ledger.token
        assert again.sweep() == sorted([tagged.pid, leader.pid, orphan])
        assert read_proc(tagged.pid) is None and read_proc(leader.pid) is None
        assert stranger.poll() is None
        assert path.read_text() == f"token {ledger.token}\n"
    finally:
        for proc in (tagged, leader, stranger):
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_a_forged_ledger_line_stops_nothing_on_resume(tmp_path):
    """A line of engines.pids naming a process of someone else (its start time is public)
    is no proof that the process belongs to the folder: a --resume leaves it running."""
    from zengine.tools.referee.process_tree import read_proc

    out = tmp_path / "m"
    result, games, _ = run(tmp_path, *pair(fake()), *("--games", "2", *EASY))
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    victim = subprocess.Popen(["sleep", "600"])
    try:
        start = read_proc(victim.pid).start
        with open(out / "engines.pids", "a") as handle:
            boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
            handle.write(f"engine {victim.pid} {start} {boot}\n")
        lines: list[str] = []
        run_match(["--resume", str(out)], emit=lines.append, progress=False)
        assert not [line for line in lines if "an earlier run in" in line]
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


# --- an engine's control characters ---------------------------------------------------------

#: A shell engine that answers ``go`` (or, with ``reject``, every ``setoption``) with a line
#: of escape sequences and a NUL: what it quotes must not act on the user's terminal.
ESCAPING_ENGINE = r"""#!/bin/sh
while read -r line; do
    case "$line" in
        uci) echo uciok ;;
        isready) echo readyok ;;
        setoption*) [ "$1" = reject ] && printf 'error \033[2J\033[H\000\n' ;;
        go*) [ "$1" = go-error ] && printf 'error \033[31mred\n' || printf 'bestmove \033[2J\033[H\000\n' ;;
        quit) exit 0 ;;
    esac
done
"""


@pytest.mark.parametrize(
    "mode,quoted",
    [
        ("move", "X played an unparsable move: 'bestmove ?[2J?[H?'"),
        ("go-error", "X answered 'error ?[31mred' instead of a move (to 'go depth 1')"),
    ],
)
def test_an_engines_control_characters_are_quoted_cleaned(tmp_path, mode, quoted):
    script = tmp_path / "escaping.sh"
    script.write_text(ESCAPING_ENGINE)
    script.chmod(0o755)
    result, games, text = run(
        tmp_path, *pair(f"cmd={shlex.join([str(script), mode])}"), *("--games", "2", *EASY)
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    assert [game["reason"] for game in games] == [quoted, quoted]
    assert f"{{{quoted}}}" in text
    assert not any(c in text for c in "\x1b\x00")
    assert "\x1b" not in (tmp_path / "m" / "games.pgn").read_text()


def test_a_rejected_setting_is_quoted_cleaned(tmp_path):
    script = tmp_path / "escaping.sh"
    script.write_text(ESCAPING_ENGINE)
    script.chmod(0o755)
    result, games, text = run(
        tmp_path, *pair(f"cmd={shlex.join([str(script), 'reject'])}"), *("--games", "2", *EASY)
    )
    assert result.reason is ExitReason.ENGINE_REJECTED and games == []
    assert result.summary["stopped"] == "engine X rejected the variant zola: 'error ?[2J?[H?'"
    assert not any(c in text for c in "\x1b\x00")
