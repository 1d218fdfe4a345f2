"""The installed ``zengine`` command over pipes: sessions as GUIs and cutegames run them."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pexpect
import pexpect.popen_spawn
import pytest
from test_protocol_helpers import INFO_RE, Pipe, zengine_path

from zengine.engine.game import legal_moves_text, play_texts
from zengine.engine.search import MAX_DEPTH
from zengine.engine.variants import make_rules

TIMEOUT = 60


def spawn() -> pexpect.popen_spawn.PopenSpawn:
    return pexpect.popen_spawn.PopenSpawn([zengine_path()], encoding="utf-8", timeout=TIMEOUT)


def read_line(child) -> str:
    child.expect("\n")
    return child.before.rstrip("\r")


def read_search(child) -> tuple[list[str], str]:
    """The info lines and the move of the bestmove that ends a search."""
    infos = []
    while True:
        line = read_line(child)
        if line.startswith("bestmove "):
            return infos, line.split()[1]
        assert INFO_RE.match(line), line
        infos.append(line)


def expect_info(child) -> None:
    """Read whole lines up to the first info line of a search."""
    while not read_line(child).startswith("info depth "):
        pass


def finish(child, quit_first: bool = True) -> int:
    if quit_first:
        child.sendline("quit")
    child.expect(pexpect.EOF)
    child.wait()
    return child.exitstatus


def test_uci_session() -> None:
    child = spawn()
    child.sendline("uci")
    child.expect_exact("uciok\n")
    assert "id name zengine " in child.before and "option name Hash" in child.before
    child.sendline("setoption name Hash value 8")
    child.sendline("setoption name Move Overhead value 10")
    child.sendline("isready")
    assert read_line(child) == "readyok"
    state = make_rules("zola").start()
    moves: list[str] = []
    child.sendline("ucinewgame")
    for go in (
        "go depth 2",
        "go nodes 400",
        "go movetime 200",
        "go wtime 3000 btime 3000 winc 100 binc 100",
        "go wtime 2000 btime 1500 movestogo 5",
    ):
        child.sendline(f"position startpos moves {' '.join(moves)}".rstrip())
        child.sendline(go)
        infos, best = read_search(child)
        assert infos and best in legal_moves_text(state)
        play_texts(state, [best])
        moves.append(best)
        child.sendline("isready")
        assert read_line(child) == "readyok"
    child.sendline(f"position startpos moves {' '.join(moves)}")
    child.sendline("query fen")
    assert read_line(child) == f"response {state.position_text()}"
    assert finish(child) == 0


def test_ugi_session_as_cutegames_runs_it() -> None:
    child = spawn()
    child.sendline("ugi")
    child.expect_exact("ugiok\n")
    child.sendline("setoption name UCI_Variant value zhadu")
    child.sendline("isready")
    assert read_line(child) == "readyok"
    child.sendline("uginewgame")
    rules = make_rules("zhadu")
    start = rules.start().position_text()
    state = rules.start()
    moves: list[str] = []
    clocks = [4000, 4000]
    for _ in range(14):
        child.sendline(f"position fen {start} moves {' '.join(moves)}".rstrip())
        child.sendline("query p1turn")
        assert read_line(child) == f"response {'true' if state.side_to_move == 0 else 'false'}"
        child.sendline("query gameover")
        over = read_line(child) == "response true"
        assert over == state.is_over()
        if over:
            break
        child.sendline(f"go p1time {clocks[0]} p2time {clocks[1]} p1inc 100 p2inc 100")
        started = time.monotonic()
        infos, best = read_search(child)
        clocks[state.side_to_move] -= int((time.monotonic() - started) * 1000) - 100
        assert infos and best in legal_moves_text(state)
        play_texts(state, [best])
        moves.append(best)
    child.sendline("query result")
    result = read_line(child)
    outcome = state.outcome()
    assert result == f"response {'none' if outcome is None else outcome.result.value}"
    assert finish(child) == 0


def test_stop_ends_an_infinite_search_before_the_next_command() -> None:
    child = spawn()
    child.sendline("go infinite")
    expect_info(child)
    child.sendline("stop")
    child.sendline("query p1turn")
    _infos, best = read_search(child)
    assert best in legal_moves_text(make_rules("zola").start())
    assert read_line(child) == "response true"
    child.sendline("stop")  # silent when idle
    child.sendline("isready")
    assert read_line(child) == "readyok"
    assert finish(child) == 0


def test_commands_answered_during_a_search() -> None:
    child = spawn()
    child.sendline("go infinite")
    expect_info(child)
    lines = [
        "isready",
        "legalmoves",
        "query fen",
        "query islegal a1xa2",
        "d",
        "help",
        "position startpos",
        "go depth 1",
        "setoption name Hash value 2",
        "undo",
    ]
    for line in lines:
        child.sendline(line)
    child.sendline("isready")
    seen: list[str] = []
    while len([x for x in seen if x == "readyok"]) < 2:
        line = read_line(child)
        if not line.startswith("info "):
            seen.append(line)
    assert seen[0] == "readyok"
    assert seen[1].startswith("legalmoves a1xa2 ")
    assert seen[2] == "response brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r"
    assert seen[3] == "response true"
    assert "result none" in seen and any(line.startswith("  help") for line in seen)
    busy = [line for line in seen if line.startswith("error ")]
    assert len(busy) == 4 and all(line.startswith("error busy ") for line in busy)
    assert not any(line.startswith("bestmove") for line in seen)
    child.sendline("stop")
    _, best = read_search(child)
    assert best in legal_moves_text(make_rules("zola").start())
    assert finish(child) == 0


@pytest.mark.parametrize("go", ["go depth 2", "go infinite", "go"])
def test_end_of_input_mid_search_prints_its_bestmove(go: str) -> None:
    child = spawn()
    child.sendline(go)
    child.sendeof()
    infos, best = read_search(child)
    assert infos and best in legal_moves_text(make_rules("zola").start())
    child.expect(pexpect.EOF)
    assert child.before.strip() == ""
    child.wait()
    assert child.exitstatus == 0


@pytest.mark.parametrize(
    "fen,go",
    [
        ("6/6/6/6/b5/r5 b", "go p1time 1000"),  # Blue to move: Red's clock bounds nothing
        ("6/6/6/6/b5/r5 r", "go btime 100000"),  # Red to move: Blue's clock bounds nothing
    ],
)
def test_end_of_input_stops_a_search_unbounded_for_the_side_to_move(fen: str, go: str) -> None:
    child = spawn()
    child.sendline(f"position fen {fen}")
    child.sendline(go)
    # The mate is proven by depth 3; the search goes on to its deepest iteration and waits.
    while True:
        line = read_line(child)
        assert INFO_RE.match(line), line  # no bestmove before it is stopped
        if line.startswith(f"info depth {MAX_DEPTH} "):
            break
    child.sendeof()
    infos, best = read_search(child)
    assert infos == [] and best in legal_moves_text(make_rules("zola").parse_position(fen))
    assert finish(child, quit_first=False) == 0


def test_quit_mid_search_prints_nothing_more() -> None:
    child = spawn()
    child.sendline("go infinite")
    expect_info(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert "bestmove" not in child.before
    child.wait()
    assert child.exitstatus == 0


def run_shell(script: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run(script, shell=True, capture_output=True, timeout=timeout)


def test_shell_pipe_prints_a_move() -> None:
    done = run_shell(f"printf 'setup zhadu\\ngo depth 3\\n' | '{zengine_path()}'")
    assert done.returncode == 0 and done.stderr == b""
    lines = done.stdout.decode().splitlines()
    assert lines[-1].split()[0] == "bestmove" and lines[-1].split()[1] in legal_moves_text(
        make_rules("zhadu").start()
    )
    assert all(INFO_RE.match(line) for line in lines[:-1]) and lines[:-1]


def test_finished_game_gives_bestmove_none_at_once() -> None:
    done = run_shell(
        f"printf 'position fen 6/6/6/6/6/r5 b\\ngo depth 5\\ngo infinite\\n' | '{zengine_path()}'"
    )
    assert done.returncode == 0 and done.stdout.decode().splitlines() == [
        "bestmove (none)",
        "bestmove (none)",
    ]


def test_bad_bytes_and_long_lines() -> None:
    data = (
        b"\xff\xfe\xfd\n"
        + b"isready\n"
        + b"a" * (3 << 20)
        + b"\n"
        + b"isready\n"
        + "\u2603\u00e9 \u4e2d\n".encode()
        + b"\x00\x07\x1b\n"
        + b"isready\n"
        + b"a" * 5000
    )
    done = subprocess.run([zengine_path()], input=data, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0 and done.stderr == b""
    lines = done.stdout.decode("utf-8").splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["error", "syntax"],
        ["readyok"],
        ["error", "syntax"],
        ["readyok"],
        ["error", "unknown-command"],
        ["error", "unknown-command"],
        ["readyok"],
        ["error", "unknown-command"],
    ]


def test_reader_gone_is_no_traceback() -> None:
    done = run_shell(
        f"(printf 'uci\\n'; sleep 1; printf 'uci\\nuci\\n') | '{zengine_path()}' | head -1"
    )
    assert done.returncode == 0 and done.stdout.decode().startswith("id name zengine")
    assert b"Traceback" not in done.stderr and b"Error" not in done.stderr


# --- perft and bench run in the background: stop, quit and the end of input are heard --------
@pytest.mark.parametrize("line", ["perft 64", "go perft 64", "bench 64"])
def test_stop_and_quit_end_a_deep_perft_or_bench(line: str) -> None:
    child = spawn()
    child.sendline("setup zhadu")
    child.sendline(line)
    child.sendline("isready")
    child.expect_exact("readyok\n")  # answered while it counts
    child.sendline("query gameover")
    child.expect_exact("response false\n")
    child.sendline("stop")
    word = line.split()[-2]
    child.expect_exact(f"info string {word} stopped\n")
    assert "Nodes searched" not in child.before
    child.sendline(line)
    child.sendline("isready")
    child.expect_exact("readyok\n")
    assert finish(child) == 0  # quit: at once, in the middle of the count


def test_end_of_input_lets_perft_finish() -> None:
    done = run_shell(f"printf 'setup zola-8\\nperft 3\\n' | '{zengine_path()}'")
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0 and done.stderr == b""
    assert lines[-1] == f"Nodes searched: {sum(int(x.split()[1]) for x in lines[:-2])}"
    assert len(lines) == len(make_rules("zola-8").start().legal_moves()) + 2


@pytest.mark.parametrize("line", ["perft 64", "bench 64", "go depth 1000"])
def test_end_of_input_with_nobody_reading_ends_the_work(line: str) -> None:
    # A client that went away closes both pipes: the engine stops what it was doing and exits
    # instead of running for ever.
    proc = subprocess.Popen(
        [zengine_path()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdin.write(f"setup zola-10\n{line}\nisready\n".encode())  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    # The work's first lines (a search's depth 1) may come before the readyok.
    while (reply := proc.stdout.readline()) != b"readyok\n":  # type: ignore[union-attr]
        assert reply.startswith(b"info "), reply
    proc.stdout.close()  # type: ignore[union-attr]
    proc.stdin.close()  # type: ignore[union-attr]
    try:
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert b"Traceback" not in proc.stderr.read()  # type: ignore[union-attr]


# --- no position -----------------------------------------------------------------------------
def test_no_position_through_the_command() -> None:
    child = spawn()
    child.sendline("position startpos moves 1@a0")  # a Zhadu opening; the game is Zola
    assert read_line(child).startswith("error syntax ")
    for line, reply in [
        ("d", "no position"),
        ("query gameover", "response true"),
        ("query result", "response draw"),
        ("query p1turn", "response true"),
        ("query fen", "error bad-position no position"),
        ("legalmoves", "error bad-position no position"),
        ("go wtime 1000 btime 1000", "bestmove (none)"),
        ("move a1xa2", "error bad-position no position"),
        ("perft 1", "error bad-position no position"),
        ("quit now", "error syntax "),
        ("isready", "readyok"),
    ]:
        child.sendline(line)
        assert read_line(child).startswith(reply), line
    child.sendline("position startpos")
    child.sendline("query gameover")
    assert read_line(child) == "response false"
    assert finish(child) == 0


def test_cutegames_loop_ends_when_the_position_fails() -> None:
    """The loop of a runner that never checks moves nor reads ``error`` lines: it asks whether
    the game is over, else has the engine move, and goes on. The Zhadu opening is sent to an
    engine left at Zola (no ``setup``): the first answer ends the game."""
    child = spawn()
    child.sendline("ugi")
    child.expect_exact("ugiok\n")
    moves = ["1@a0", "4@h3", "2@a1"]
    rounds = 0
    while rounds < 20:
        rounds += 1
        child.sendline("uginewgame")
        child.sendline("position startpos moves " + " ".join(moves))
        child.sendline("query gameover")
        replies = [read_line(child)]
        while not replies[-1].startswith("response "):
            replies.append(read_line(child))  # the error line the runner does not read
        if replies[-1] == "response true":
            break
        child.sendline("go p1time 1000 p2time 1000")
        _, best = read_search(child)
        moves.append(best)
    assert rounds == 1
    child.sendline("query result")
    assert read_line(child) == "response draw"
    assert finish(child) == 0


def test_a_runner_that_asks_only_for_the_result_ends_when_the_position_fails() -> None:
    """The loop of a runner that ends a game only once ``query result`` is not ``none``, and
    plays whatever ``go`` answers, ``(none)`` included (one such played it 14,000 times). The
    Zhadu opening is sent to an engine left at Zola: the first answer ends the game."""
    child = spawn()
    child.sendline("ugi")
    child.expect_exact("ugiok\n")
    moves = ["1@a0", "4@h3", "2@a1"]
    rounds = 0
    while rounds < 20:
        rounds += 1
        child.sendline("uginewgame")
        child.sendline("position startpos moves " + " ".join(moves))
        child.sendline("query result")
        replies = [read_line(child)]
        while not replies[-1].startswith("response "):
            replies.append(read_line(child))  # the error line the runner does not read
        if replies[-1] != "response none":
            break
        child.sendline("go p1time 1000 p2time 1000")
        _, best = read_search(child)
        moves.append(best)
    assert rounds == 1 and replies[-1] == "response draw"
    assert finish(child) == 0


def test_the_engine_is_idle_once_bench_printed_its_total() -> None:
    """The total is the client's sign that the bench is over (docs/protocol.md): a command
    sent at once must not find the engine busy. Before the fix the total was printed before
    the engine was idle again, and a ``go`` right after it was refused in up to 19 of 20
    tries."""
    total = re.compile(r"\d+ nodes \d+ nps$")
    pipe = Pipe()
    try:
        for _ in range(20):
            pipe.send("bench 1")
            while not total.match(pipe.line()):
                pass
            pipe.send("go depth 1")
            first = pipe.line()
            assert not first.startswith("error"), first
            pipe.until("bestmove")
    finally:
        code, err = pipe.close()
    assert code == 0 and err == b""


#: A fresh interpreter runs the protocol loop on a stdin whose first read waits (up to a
#: generous deadline) for the search to be loaded and frozen, then prints whether it was: the
#: loading must not wait for a command.
_LOADS_WHILE_WAITING = """
import gc, io, sys, time
from zengine.protocol.loop import serve

def loaded():
    return "zengine.engine.search" in sys.modules and gc.get_freeze_count() > 0

class FirstReadWaits(io.RawIOBase):
    def readable(self):
        return True

    def readinto(self, buffer):
        deadline = time.monotonic() + 10
        while not loaded() and time.monotonic() < deadline:
            time.sleep(0.01)
        print("loaded" if loaded() else "not loaded")
        return 0  # end of input

sys.exit(serve(io.BufferedReader(FirstReadWaits()), io.BytesIO()))
"""


def test_the_search_loads_while_the_engine_waits_for_its_first_line() -> None:
    """A fresh process loads the search (and sets it aside from the garbage collector) as soon
    as the protocol starts, before any command: a script that sends ``position`` and ``go``
    right after the handshake once waited for that loading inside the ``go``'s time (``go
    movetime 150`` answered after up to 172 ms)."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADS_WHILE_WAITING],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "loaded\n", "")
