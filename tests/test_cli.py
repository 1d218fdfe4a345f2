"""The ``zengine`` command line as people use it: help, bad command lines, Ctrl-C.

Bad command lines run in this process (``main`` exits as the command would); Ctrl-C runs the
real command on a pseudo-terminal (pexpect), presses Ctrl-C once it has demonstrably started
(its worker processes exist, or it has used more processor time than starting takes) and checks
it ends within a generous deadline, says so in one line, and leaves no process of its session.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pexpect
import pytest

from zengine.cli import SUBCOMMANDS, main
from zengine.engine import parallel
from zengine.engine.bench import DEFAULT_DEPTH
from zengine.engine.game import GameError

#: Generous: a command stops in well under a second, but CI machines can be loaded.
DEADLINE = 20.0
ZENGINE = [sys.executable, "-m", "zengine"]

linux_only = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``zengine <args>`` run in this process."""
    with pytest.raises(SystemExit) as exit_info:
        main.main(args, prog_name="zengine")
    out, err = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 1), out, err


# --- help ------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("command", [[], *([name] for name in sorted(SUBCOMMANDS))])
def test_help_everywhere(command: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*command, flag], capsys)
    assert code == 0
    assert out.startswith(f"Usage: {' '.join(['zengine', *command])} ")
    assert err == ""


def test_help_states_depths(capsys: pytest.CaptureFixture[str]) -> None:
    _, bench_help, _ = run(["bench", "--help"], capsys)
    assert f"default {DEFAULT_DEPTH}" in bench_help
    assert "1 to 64" in bench_help
    _, perft_help, _ = run(["perft", "-h"], capsys)
    assert "0 to 64" in perft_help


# --- bad command lines -----------------------------------------------------------------------

HUGE = "9" * 5000

#: (command line, what the one error line must contain)
BAD_COMMAND_LINES = [
    (["perft", "-1"], "zengine perft: error: depth must be an integer from 0 to 64, got '-1'"),
    (["perft", "abc"], "depth must be an integer from 0 to 64, got 'abc'"),
    (["perft", "65"], "depth must be an integer from 0 to 64, got '65'"),
    (["perft", HUGE], "depth must be an integer from 0 to 64, got '999"),
    (["perft", "３"], "got '３'"),  # fullwidth digit three
    (["perft", "٣"], "got '٣'"),  # Arabic-Indic digit three
    (["perft", "+-1"], "depth must be an integer"),
    (["perft", "2.5"], "depth must be an integer"),
    (["perft"], "zengine perft: error: missing argument 'DEPTH'"),
    (["perft", "1", "2"], "unexpected extra argument"),
    (["perft", "-v", "zola", "-3"], "got '-3'"),
    (["perft", "--variant=zola", "-3", "--divide"], "got '-3'"),
    (["perft", "--", "-3"], "got '-3'"),
    (["perft", "-j2", "-3"], "got '-3'"),
    (["perft", "--divide", "-1", "-j", "2"], "got '-1'"),
    (["perft", "-j", "2", "1", "-2"], "unexpected extra argument (-2)"),
    (["perft", "1", "--jobs", "0"], "--jobs must be an integer from 1 to 256, got '0'"),
    (["perft", "--jobs", "-1", "1"], "--jobs must be an integer from 1 to 256, got '-1'"),
    (["perft", "1", "-j", HUGE], "--jobs must be an integer from 1 to 256"),
    (["perft", "1", "--jobs"], "--jobs"),
    (["perft", "-1", "--frob"], "no such option '--frob'"),
    (["perft", "1", "-x"], "no such option '-x'"),
    (["perft", "1", "--variant", "chess"], "unknown game 'chess'"),
    (["perft", "1", "--rule", "quiet"], "'quiet' is not KEY=VALUE"),
    (["perft", "1", "--variant", "zhadu", "--rule", "colour=green"], "zengine perft: error:"),
    (["perft", "1", "--fen", "not a position"], "zengine perft: error:"),
    (["bench", "0"], "zengine bench: error: depth must be an integer from 1 to 64, got '0'"),
    (["bench", "-2"], "depth must be an integer from 1 to 64, got '-2'"),
    (["bench", "65"], "got '65'"),
    (["bench", HUGE], "depth must be an integer from 1 to 64"),
    (["bench", "three"], "got 'three'"),
    (["bench", "1", "2"], "unexpected extra argument"),
    (["strength", "--games", "1"], "--games must be an integer from 2 to 100000, got '1'"),
    (["strength", "--games", HUGE], "--games must be an integer from 2 to 100000"),
    (["strength", "--movetime", "-5"], "--movetime must be an integer from 1 to"),
    (["strength", "-j", "0"], "--jobs must be an integer from 1 to 256"),
    (["strength", "--variant", "chess"], "unknown game 'chess'"),
    (["strength", "--pairing", "chess"], "--pairing"),
    (["strength", "extra"], "unexpected extra argument"),
    # An empty position string is one (it was the start position).
    (["perft", "3", "--fen", ""], "zengine perft: error: a zola position string has 2 fields"),
    (["svg", "--fen", ""], "zengine svg: error: a zola position string has 2 fields"),
    # An option without its value names the subcommand as every other line (it did not).
    (["perft", "1", "--fen"], "zengine perft: error: option '--fen' requires an argument"),
    (["perft", "1", "--jobs"], "zengine perft: error: option '--jobs' requires an argument"),
    (["svg", "--moves"], "zengine svg: error: option '--moves' requires an argument"),
    (["perft", "1", "--divide=3"], "zengine perft: error: option '--divide' does not take a value"),
    (["perfft"], "zengine: error: no such command 'perfft' (did you mean 'perft'?)"),
    (["xyzzy"], "zengine: error: no such command 'xyzzy'"),
    (["--frob"], "zengine: error: no such option '--frob'"),
    (["-1"], "zengine: error: no such option '-1'"),
]


@pytest.mark.parametrize(("args", "expected"), BAD_COMMAND_LINES)
def test_bad_command_line_is_one_line_and_exit_2(
    args: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(args, capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith("zengine")
    assert ": error: " in err
    assert expected in err
    assert len(err) < 300  # a huge token is cut, not echoed whole


@pytest.mark.parametrize(
    "args",
    [
        ["perft", "-1"],
        ["perft", HUGE],
        ["perft", b"\xff\xfe".decode("utf-8", "surrogateescape")],
        ["bench", "x"],
        ["strength", "--games", "1"],
        ["nothing"],
    ],
)
def test_bad_command_line_of_the_real_command(args: list[str]) -> None:
    """The same, through the interpreter's start-up (console encoding, undecodable bytes)."""
    argv = [os.fsencode(arg) for arg in args]
    proc = subprocess.run(
        [*ZENGINE, *argv], capture_output=True, timeout=DEADLINE, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.count(b"\n") == 1 and proc.stderr.startswith(b"zengine")
    assert b"Traceback" not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["perft", "2"], ["perft", "2", "--divide"], ["bench", "1"]])
def test_output_to_a_full_disk_is_one_line(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [*ZENGINE, *args], stdout=full, stderr=subprocess.PIPE, timeout=DEADLINE, text=True
        )
    assert proc.returncode == 1
    assert proc.stderr == f"zengine {args[0]}: error: no space left on device\n"


def _close(fd: int) -> Callable[[], None]:
    """In the child before exec: start it without descriptor ``fd`` (the shell's ``>&-``)."""
    return lambda: os.close(fd)


def test_version_names_the_distribution() -> None:
    """``--version`` asks for the version of this project's distribution (zengine.DISTRIBUTION),
    not of the index's unrelated ``zengine``."""
    import importlib.metadata

    from zengine import DISTRIBUTION

    proc = subprocess.run([*ZENGINE, "--version"], capture_output=True, text=True, timeout=DEADLINE)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == f"zengine, version {importlib.metadata.version(DISTRIBUTION)}\n"


@pytest.mark.parametrize(
    "args",
    [
        ["perft", "1"],
        ["perft", "1", "--divide"],
        ["bench", "1"],
        ["svg"],
        ["strength", "--games", "2", "--pairing", "random", "--variant", "zola", "--movetime", "1"],
        [],
        ["--help"],
        ["--version"],
        ["perft", "--help"],
    ],
)
def test_closed_stdout_is_one_line(args: list[str]) -> None:
    # It was a traceback (perft, strength, the protocol), or exit 0 with the output lost
    # (bench, svg): click drops what it is given to print when Python has no sys.stdout.
    proc = subprocess.run(
        [*ZENGINE, *args],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_close(1),
        timeout=DEADLINE,
        text=True,
    )
    # --help and --version print while click parses, before any command runs (a traceback).
    where = " ".join(["zengine", *[arg for arg in args[:1] if not arg.startswith("-")]])
    assert (proc.returncode, proc.stderr) == (1, f"{where}: error: standard output is closed\n")


def test_closed_stdout_of_a_match_is_one_line(tmp_path) -> None:
    # The match stopped as on a full disk, and said so only on the stdout that was closed.
    folder = tmp_path / "m"
    proc = subprocess.run(
        [*ZENGINE, "match", "--engine", "depth=1", "--engine", "depth=1", "--games", "2"]
        + ["--out", str(folder)],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_close(1),
        timeout=DEADLINE,
        text=True,
    )
    assert (proc.returncode, proc.stderr) == (
        1,
        "zengine match: error: cannot write the output: standard output is closed\n",
    )


def test_closed_stdin_of_the_protocol_is_one_line() -> None:
    proc = subprocess.run(ZENGINE, capture_output=True, preexec_fn=_close(0), text=True)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == "zengine: error: standard input is closed\n"


def test_closed_stdout_leaves_a_file_output_alone(tmp_path) -> None:
    # Only a command that writes to stdout needs it; stderr closed keeps the exit code.
    picture = tmp_path / "p.svg"
    proc = subprocess.run([*ZENGINE, "svg", "-o", str(picture)], preexec_fn=_close(1))
    assert proc.returncode == 0
    assert "<svg" in picture.read_text()
    proc = subprocess.run([*ZENGINE, "perft", "1", "--fen", "x"], preexec_fn=_close(2))
    assert proc.returncode == 2


# --- perft at the edges ----------------------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--divide"], ["--jobs", "2"], ["--divide", "-j", "2"]])
def test_perft_0_is_one_leaf(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["perft", "0", *extra], capsys)
    assert code == 0
    assert out.splitlines()[0] == "Nodes searched: 1"  # as the protocol's perft 0


@pytest.mark.parametrize("variant", ["zola", "zhadu"])
def test_parallel_divide_equals_divide(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    _, serial, _ = run(["perft", "3", "--divide", "--variant", variant], capsys)
    _, spread, _ = run(["perft", "3", "--divide", "--variant", variant, "--jobs", "3"], capsys)
    rows, _, summary = serial.partition("\n\n")
    assert len(rows.splitlines()) > 1
    assert spread.partition("\n\n")[0] == rows
    total = sum(int(line.rsplit(": ", 1)[1]) for line in rows.splitlines())
    assert summary.splitlines()[0] == f"Nodes searched: {total}"
    assert spread.partition("\n\n")[2].splitlines()[0] == f"Nodes searched: {total}"


# --- worker processes ------------------------------------------------------------------------


def square(n: int) -> int:
    return n * n


def refuse_seven(n: int) -> int:
    if n == 7:
        raise GameError("seven")
    time.sleep(0.01 * (n % 3))  # finish out of order
    return n


@linux_only
def test_parallel_map_keeps_order_and_reaps() -> None:
    assert parallel.parallel_map(square, range(50), 3) == [n * n for n in range(50)]
    assert parallel.parallel_map(square, [4], 3) == [16]
    assert parallel.parallel_map(square, [], 3) == []
    assert living_children() == []


@linux_only
def test_parallel_map_raises_a_worker_error_and_stops_the_others() -> None:
    with pytest.raises(GameError, match="seven"):
        parallel.parallel_map(refuse_seven, range(40), 3)
    assert living_children() == []


def slow_square(n: int) -> int:
    time.sleep(0.05)
    return n * n


@linux_only
@pytest.mark.usefixtures("sigint_raises")
def test_a_ctrl_c_while_the_workers_start_stops_parallel_map(monkeypatch) -> None:
    """A Ctrl-C that arrives while the workers are being forked waits (SIGINT is blocked
    there) and is raised as soon as they exist, before any work is handed out to them."""
    process_class = type(parallel.get_context("fork").Process())
    start = process_class.start
    sent: list[bool] = []

    def start_then_interrupt(self) -> None:  # type: ignore[no-untyped-def]
        start(self)
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(process_class, "start", start_then_interrupt)
    hand_out = parallel._hand_out
    handed: list[int] = []

    def counted(conn, pending):  # type: ignore[no-untyped-def]
        handed.append(1)
        return hand_out(conn, pending)

    monkeypatch.setattr(parallel, "_hand_out", counted)
    with pytest.raises(KeyboardInterrupt):
        parallel.parallel_map(slow_square, range(200), 3)
    # Work done, not time taken, shows it stopped at once: a few items at most were handed out.
    assert len(handed) < 10
    assert sent
    assert living_children() == []


class InterruptedFinaliser:
    """An object whose ``__del__`` takes a Ctrl-C: Python prints the KeyboardInterrupt raised
    there as "Exception ignored" and carries on (any object freed at the wrong moment)."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs at a check in this loop, inside __del__
            pass


@linux_only
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.usefixtures("sigint_raises")
def test_a_ctrl_c_swallowed_by_a_finaliser_still_stops_parallel_map(monkeypatch) -> None:
    """Python raises a Ctrl-C wherever the main thread is, a ``__del__`` included, which
    swallows it; parallel_map notices the Ctrl-C all the same and stops at once (CI once saw
    ``perft --divide -j 3`` go on computing after one, under load)."""
    hand_out = parallel._hand_out
    calls: list[int] = []

    def hand_out_then_free(conn, pending):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 10:
            InterruptedFinaliser()  # freed at once: its __del__ runs here
        return hand_out(conn, pending)

    monkeypatch.setattr(parallel, "_hand_out", hand_out_then_free)
    with pytest.raises(KeyboardInterrupt):
        parallel.parallel_map(slow_square, range(200), 3)
    assert len(calls) < 30  # stopped at once: of 200 items, few were handed out
    assert living_children() == []


# --- Ctrl-C ----------------------------------------------------------------------------------


def proc_stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first), or None."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            data = handle.read()
    except OSError:
        return None
    return data[data.rindex(")") + 2 :].split()


def living(select: Callable[[list[str]], bool]) -> list[int]:
    """Pids of the processes (not zombies) whose stat fields ``select`` accepts."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = proc_stat(int(name))
            if fields is not None and fields[0] != "Z" and select(fields):
                found.append(int(name))
    return found


def living_children() -> list[int]:
    me = str(os.getpid())
    return living(lambda fields: fields[1] == me)


def session(pid: int) -> list[int]:
    """Processes of the session ``pid`` leads (pexpect starts each command in its own)."""
    return living(lambda fields: fields[3] == str(pid))


def cpu_seconds(pid: int) -> float:
    fields = proc_stat(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.02)


def working(child: pexpect.spawn) -> None:
    """Past start-up (about 0.15 s of processor time) and computing."""
    wait_until(lambda: cpu_seconds(child.pid) > 0.8, "computed")


def with_workers(count: int) -> Callable[[pexpect.spawn], None]:
    def started(child: pexpect.spawn) -> None:
        wait_until(lambda: len(session(child.pid)) >= 1 + count, f"started {count} workers")

    return started


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(args: list[str], **options: object) -> pexpect.spawn:
    """``zengine <args>`` on a pseudo-terminal, with Ctrl-C doing what it does at a shell prompt.

    A test run started in the background of a script (``pytest ... &``, or a CI runner doing
    so) has SIGINT ignored, and a program started so keeps ignoring it, as POSIX shells mean
    it to: the child gets the default action back, as a command typed at a terminal has.
    """
    return pexpect.spawn(
        ZENGINE[0], [*ZENGINE[1:], *args], timeout=DEADLINE, preexec_fn=default_sigint, **options
    )


def interrupt(
    args: list[str], started: Callable[[pexpect.spawn], None], presses: int = 1, tty: bool = True
) -> tuple[pexpect.spawn, str]:
    """Run ``zengine <args>``, press Ctrl-C once started; the ended child and its output."""
    child = spawn(args, encoding="utf-8")
    try:
        started(child)
        for _ in range(presses):
            if tty:
                child.sendintr()
            else:
                os.kill(child.pid, signal.SIGINT)
            time.sleep(0.05)
        child.expect(pexpect.EOF, timeout=DEADLINE)
        child.close()
    finally:
        if child.isalive():
            child.close(force=True)
    # A worker the kernel kills with its parent may take a moment to be gone.
    wait_until(lambda: session(child.pid) == [], "ended every process of the command")
    return child, child.before or ""


def assert_interrupted(child: pexpect.spawn, output: str, command: str) -> None:
    assert child.exitstatus == 130, output
    assert f"{command}: interrupted" in output
    assert "Traceback" not in output
    assert "Error" not in output


@linux_only
@pytest.mark.parametrize(
    ("args", "started"),
    [
        (["perft", "64"], working),
        (["perft", "7", "--jobs", "2"], with_workers(2)),
        (["perft", "7", "--divide", "-j", "3"], with_workers(3)),
        (["bench", "64"], working),
        (["strength", "--games", "4"], working),
        (["strength", "--games", "4", "-j", "2"], with_workers(2)),
    ],
    ids=["perft", "perft-jobs", "perft-divide-jobs", "bench", "strength", "strength-jobs"],
)
def test_ctrl_c_stops_the_command(
    args: list[str], started: Callable[[pexpect.spawn], None]
) -> None:
    child, output = interrupt(args, started)
    assert_interrupted(child, output, f"zengine {args[0]}")


@pytest.mark.parametrize("interrupted", [True, False])
def test_an_error_left_by_ctrl_c_ends_as_the_interrupt(interrupted: bool, monkeypatch) -> None:
    """Ctrl-C can land inside a move's play; the undo in a ``finally`` then fails on the
    half-made move (``zengine bench`` interrupted at random moments: 5 of 600 runs ended in
    a ``KeyError``). Such an error is the interrupt's: exit 130 and one line. The same error
    without an interrupt is a bug and keeps its traceback."""
    from click.testing import CliRunner

    from zengine.tools import engine_commands

    def undo_fails(*args: object, **kwargs: object) -> None:
        played: list[int] = []
        try:
            if interrupted:
                raise KeyboardInterrupt
        finally:
            played.pop()  # the undo of a move whose play never finished

    monkeypatch.setattr(engine_commands, "run_bench", undo_fails)
    result = CliRunner().invoke(main, ["bench"], prog_name="zengine")
    if interrupted:
        assert result.exit_code == 130
        assert result.stderr == "zengine bench: interrupted\n"
    else:
        assert isinstance(result.exception, IndexError)


@linux_only
def test_ctrl_c_twice_stops_the_workers_quietly() -> None:
    child, output = interrupt(["perft", "7", "-j", "2"], with_workers(2), presses=3)
    assert_interrupted(child, output, "zengine perft")


@linux_only
def test_sigint_to_the_parent_alone_stops_the_workers() -> None:
    """As ``kill -INT`` from a script: the workers get no signal, the parent ends them."""
    child, output = interrupt(["perft", "7", "-j", "2"], with_workers(2), tty=False)
    assert_interrupted(child, output, "zengine perft")


@linux_only
def test_workers_die_with_a_killed_parent() -> None:
    child = spawn(["perft", "7", "-j", "2"])
    try:
        with_workers(2)(child)
        child.kill(signal.SIGKILL)
        child.expect(pexpect.EOF, timeout=DEADLINE)
    finally:
        child.close(force=True)
    wait_until(lambda: session(child.pid) == [], "ended the workers of a killed parent")


@linux_only
def test_ctrl_c_ends_the_protocol_quietly() -> None:
    def searching(child: pexpect.spawn) -> None:
        child.sendline("uci")
        child.expect_exact("uciok")
        child.sendline("go infinite")
        child.expect_exact("info depth")

    def waiting(child: pexpect.spawn) -> None:
        child.sendline("isready")
        child.expect_exact("readyok")

    for started in (searching, waiting):
        child, output = interrupt([], started)
        assert child.signalstatus is None
        assert_interrupted(child, output, "zengine")
        assert "bestmove" not in output


@pytest.mark.parametrize("command", ["isready", "go infinite"])
def test_ctrl_c_in_the_protocol_exits_130(command: str, monkeypatch) -> None:
    """Ctrl-C while the protocol waits for a line (a search running or not) ends it as every
    command: ``zengine: interrupted`` on stderr, exit code 130 (it once exited 0, silently, as
    the help's "exit code 130" does not say); nothing more on stdout, no search left running."""
    import threading

    from click.testing import CliRunner

    from zengine.protocol import loop

    def lines_then_ctrl_c(stream: object, max_line: int = 0) -> Iterator[tuple[str, None]]:
        yield f"{command}\n", None
        raise KeyboardInterrupt

    monkeypatch.setattr(loop, "read_lines", lines_then_ctrl_c)
    handler = signal.getsignal(signal.SIGINT)
    try:
        result = CliRunner().invoke(main, [], prog_name="zengine")
    finally:
        signal.signal(signal.SIGINT, handler)  # ``interrupted`` ignores a second Ctrl-C
    assert result.exit_code == 130, result.output
    assert result.stderr == "zengine: interrupted\n"
    assert "bestmove" not in result.stdout
    assert result.stdout == "readyok\n" or command != "isready"
    assert not any(t.name == "zengine-worker" and t.is_alive() for t in threading.enumerate())
