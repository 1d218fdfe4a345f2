"""The referee's output folder: locked, checked, kept whole when the disk is full, and left
cleanly when the output goes away.

Every case ends in one line and a known exit code, with no traceback; no finished game is
lost or recorded twice; no temporary file is left. The full disk is a real one where the
tests may mount a small tmpfs (root, as in CI), and a simulated ``ENOSPC`` otherwise. The
printed resume hint is run as it is, through ``bash -c``, from a folder whose name needs
quoting. Engines are the fake engine at ``depth=1`` (it answers at once); deadlines are
generous: a loaded machine only makes the tests slower.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_match import FAKE, cli, fake, pair, running

from zengine.tools.referee import records, runner
from zengine.tools.referee.config import ConfigError
from zengine.tools.referee.folder import FolderLock
from zengine.tools.referee.match import run_match
from zengine.tools.referee.process_tree import all_procs, autogroups_on, read_proc
from zengine.tools.referee.records import append_line, read_games, write_atomic
from zengine.tools.referee.runner import ExitReason
from zengine.tools.referee.summary import count_games

#: Generous: each wait is for something a sound machine does in well under a second.
DEADLINE = 60


def engines(marker: Path, delay: int = 0, hold: Path | None = None) -> list[str]:
    """Two fake engines (their command lines name ``marker``, to find them in /proc); they
    answer no ``go`` while the file ``hold`` exists."""
    extra = ["--delay", str(delay)] if delay else []
    extra += ["--hold", str(hold)] if hold else []
    return [
        *pair(
            fake("--log", str(marker), *extra),
            fake("--seed", "2", "--log", str(marker), *extra),
            names=("A", "B"),
        ),
        "--each",
        "depth=1",
        "--maxplies",
        "20",
        "--seed",
        "4",
    ]


@pytest.fixture
def shim(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a ``zengine`` of this checkout first: a printed hint
    ``zengine match --resume ...`` runs as a user's shell would run it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "zengine"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m zengine "$@"\n')
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


def zengine(*args: str) -> list[str]:
    return [sys.executable, "-m", "zengine", *args]


def one_error_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("zengine match: error: "), err
    return err.removeprefix("zengine match: error: ").rstrip("\n")


def ids(folder: Path) -> list[int]:
    return [json.loads(line)["id"] for line in (folder / "games.jsonl").read_text().splitlines()]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# --- where the folder is ------------------------------------------------------------------------


def test_out_on_a_file_or_where_nothing_may_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ["--each", "depth=1", "--games", "2"]
    afile = tmp_path / "afile"
    afile.write_text("")
    code, out, err = cli([*base, "--out", str(afile)], capsys)
    assert code == 2 and out == "" and one_error_line(err) == f"--out {afile}: not a directory"
    if not os.path.isdir("/sys/class"):
        pytest.skip("no sysfs here")
    # sysfs refuses new folders even to root.
    code, out, err = cli([*base, "--out", "/sys/zz"], capsys)
    assert code == 2 and out == ""
    assert one_error_line(err) == "--out /sys/zz: Operation not permitted"
    monkeypatch.chdir("/sys")  # the default folder ./matches/<time> cannot be made
    code, out, err = cli(base, capsys)
    assert code == 2 and out == ""
    line = one_error_line(err)
    assert line.startswith("cannot create the output folder matches/")
    assert line.endswith(": Operation not permitted (give --out DIR)")


# --- the lock -----------------------------------------------------------------------------------


def test_a_locked_folder_is_refused_naming_its_holder(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    held = FolderLock(folder)
    try:
        assert (folder / "lock").read_text() == f"pid {os.getpid()} on host {os.uname()[1]}\n"
        with pytest.raises(
            ConfigError, match=rf"is in use by another zengine match \(pid {os.getpid()} on host "
        ):
            run_match(
                [*engines(tmp_path / "log"), "--games", "2", "--out", str(folder)], emit=print
            )
        with pytest.raises(ConfigError, match="in use by another zengine match"):
            FolderLock(folder)
    finally:
        held.release()
    FolderLock(folder).release()  # free again once released


def test_the_lock_goes_with_its_process(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from zengine.tools.referee.folder import FolderLock;"
            "FolderLock(Path(sys.argv[1])); print('locked', flush=True); time.sleep(120)",
            str(folder),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        with pytest.raises(ConfigError, match=f"pid {holder.pid} on host"):
            FolderLock(folder)
    finally:
        holder.kill()  # SIGKILL: no cleanup runs, the system drops the lock
        holder.wait(timeout=DEADLINE)
    FolderLock(folder).release()


def referee_of(pid: int) -> int:
    """The referee of the ``zengine match`` command ``pid``: the command itself, or the child
    it re-ran in a session of its own."""
    for proc in all_procs():
        if proc.ppid == pid:
            try:
                argv = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv[1:4] == [b"-m", b"zengine", b"match"]:
                return proc.pid
    return pid


def test_a_second_referee_cannot_write_into_a_running_match(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    marker = tmp_path / "engines.log"
    # The first match is held (its engines answer no go) until both refusals are seen: a fixed
    # delay let it finish first on a loaded machine, and --resume then rightly ran.
    hold = tmp_path / "hold"
    hold.touch()
    first = subprocess.Popen(
        zengine(
            "match",
            *engines(marker, hold=hold),
            *("--games", "4", "--timeout", "move=600", "--out", str(folder)),
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(
            lambda: (
                (folder / "lock").exists()
                and referee_of(first.pid) == int((folder / "lock").read_text().split()[1])
            ),
            "the first referee's lock",
        )
        for args in (
            ["match", *engines(marker), "--games", "4", "--out", str(folder)],
            ["match", "--resume", str(folder)],
        ):
            second = subprocess.run(
                zengine(*args), capture_output=True, text=True, timeout=DEADLINE
            )
            assert second.returncode == 2 and second.stdout == ""
            assert one_error_line(second.stderr) == (
                f"{folder} is in use by another zengine match (pid {referee_of(first.pid)} on host "
                f"{os.uname()[1]}); wait for it to end or stop it"
            )
        hold.unlink()
        out, err = first.communicate(timeout=DEADLINE)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, out + err
    assert ids(folder) == [0, 1, 2, 3]  # every game once, by the one referee


# --- a damaged folder: one line naming the file, nothing changed ---------------------------------


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished match of two games."""
    folder = tmp_path_factory.mktemp("played") / "m"
    result = run_match(
        [*engines(folder.parent / "log"), "--games", "2", "--out", str(folder)],
        emit=lambda line: None,
        progress=False,
    )
    assert result.reason is ExitReason.COMPLETED
    return folder


def _line(folder: Path, **change: Any) -> str:
    record = json.loads((folder / "games.jsonl").read_text().splitlines()[0])
    return json.dumps({**record, **change}) + "\n"


def _append(name: str, text: str | bytes) -> Any:
    def damage(folder: Path) -> None:
        with open(folder / name, "ab") as handle:
            handle.write(text.encode() if isinstance(text, str) else text)

    return damage


def _replace(name: str, text: str | None) -> Any:
    """``name`` with ``text`` in it, or a directory in its place (None)."""

    def damage(folder: Path) -> None:
        (folder / name).unlink()
        if text is None:
            (folder / name).mkdir()
        else:
            (folder / name).write_text(text)

    return damage


DAMAGES = {
    "config.json not JSON": (
        _replace("config.json", "{"),
        "m/config.json is not JSON: the folder is damaged",
    ),
    "config.json empty": (_replace("config.json", ""), "m/config.json is not JSON"),
    "config.json a list": (
        _replace("config.json", "[]"),
        "m/config.json: the configuration is not a JSON object",
    ),
    "config.json wrong engines": (
        _replace("config.json", '{"engines": [{"name": "a"}, {"name": "b"}]}'),
        "m/config.json: configuration: 'cmd' is not a list of strings",
    ),
    "config.json a directory": (
        _replace("config.json", None),
        "m/config.json: Is a directory",
    ),
    "a record {id: 7}": (
        _append("games.jsonl", '{"id": 7}\n'),
        "m/games.jsonl:3: not a game record",
    ),
    "a line of junk": (
        _append("games.jsonl", "junk\n"),
        "m/games.jsonl:3: not a game record (not JSON)",
    ),
    "a line not UTF-8": (
        _append("games.jsonl", b"\xff\xfe\n"),
        "m/games.jsonl:3: not a game record (not UTF-8 text)",
    ),
    "games.jsonl a directory": (
        _replace("games.jsonl", None),
        "m/games.jsonl is not a regular file: the folder is damaged",
    ),
    "games.pgn a directory": (
        _replace("games.pgn", None),
        "m/games.pgn is not a regular file: the folder is damaged",
    ),
    "summary.json a directory": (
        _replace("summary.json", None),
        "m/summary.json is not a regular file",
    ),
}


@pytest.mark.parametrize("case", sorted(DAMAGES))
def test_a_damaged_folder_is_one_line_naming_the_file(
    case: str, played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage, message = DAMAGES[case]
    folder = tmp_path / "m"
    shutil.copytree(played, folder)
    damage(folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    code, out, err = cli(["--resume", str(folder)], capsys)
    assert code == 2 and out == "", err
    assert message in one_error_line(err)
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert {k: v for k, v in after.items() if k != "lock"} == {
        k: v for k, v in before.items() if k != "lock"
    }


@pytest.mark.parametrize(
    "change,message",
    [
        (
            {"id": 99},
            "m/games.jsonl: game id 99 is not in the schedule of config.json (ids 0 to 1)",
        ),
        (
            {"p1_index": 1, "p2_index": 0, "p1": "B", "p2": "A"},
            "m/games.jsonl: game id 0 is B vs A; the schedule of config.json has A vs B",
        ),
        ({"p1": "C"}, "m/games.jsonl: game id 0 is C vs B; the schedule of config.json has A vs B"),
    ],
)
def test_a_game_the_schedule_does_not_have_is_refused(
    change: dict[str, Any],
    message: str,
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "m"
    shutil.copytree(played, folder)
    (folder / "games.jsonl").write_text(_line(folder, **change))
    code, out, err = cli(["--resume", str(folder)], capsys)
    assert code == 2 and out == ""
    assert one_error_line(err).endswith(message)


def test_a_cut_last_line_and_stale_temporary_files_are_what_a_crash_leaves(
    played: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "m"
    shutil.copytree(played, folder)
    whole = (folder / "games.jsonl").read_text()
    (folder / "games.jsonl").write_text(whole.splitlines(keepends=True)[0] + whole[:50])
    (folder / "games.jsonl.tmp").write_text("a rewrite cut short")
    lines: list[str] = []
    result = run_match(["--resume", str(folder)], emit=lines.append, progress=False)
    assert result.reason is ExitReason.COMPLETED
    assert "Resuming: 1 games already played, 1 to play" in lines
    assert ids(folder) == [0, 1] and leftovers(folder) == []


def test_resume_of_a_folder_that_is_not_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(["--resume", str(tmp_path / "none")], capsys)
    assert code == 2 and out == ""
    assert one_error_line(err) == f"--resume {tmp_path}/none: no such folder"
    code, out, err = cli(["--resume", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert one_error_line(err) == f"--resume {tmp_path}: no config.json: not a match folder"


# --- writes that fail: the files stay as they were ------------------------------------------------


def _no_space(*args: Any) -> Any:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_append_is_cut_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text("first\n")
    real_write = os.write

    def half_then_full(fd: int, data: Any) -> int:
        monkeypatch.setattr(records.os, "write", _no_space)
        return real_write(fd, bytes(data[: len(data) // 2]))  # a short write, then no space

    monkeypatch.setattr(records.os, "write", half_then_full)
    with pytest.raises(OSError, match="No space left"):
        append_line(str(path), "second line\n")
    monkeypatch.setattr(records.os, "write", real_write)
    assert path.read_text() == "first\n"
    monkeypatch.setattr(records.os, "fsync", _no_space)  # a write the disk refused later
    with pytest.raises(OSError, match="No space left"):
        append_line(str(path), "third\n")
    assert path.read_text() == "first\n"


def test_a_failed_rewrite_keeps_the_old_content_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "summary.json"
    path.write_text("old\n")
    monkeypatch.setattr(records.os, "fsync", _no_space)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(str(path), "new\n")
    assert path.read_text() == "old\n" and leftovers(tmp_path) == []


def test_a_game_that_cannot_be_written_stops_the_match_keeping_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = []
    real = runner.append_game

    def append_two(*args: Any) -> None:
        if len(written) == 2:
            _no_space()
        real(*args)
        written.append(args)

    monkeypatch.setattr(runner, "append_game", append_two)
    folder = tmp_path / "m"
    lines: list[str] = []
    result = run_match(
        [*engines(tmp_path / "log"), "--games", "8", "--concurrency", "2", "--out", str(folder)],
        emit=lines.append,
        progress=False,
    )
    assert result.reason is ExitReason.WRITE_FAILED and result.exit_code == 1
    assert len(ids(folder)) == 2 and result.summary["games_played"] == 2
    text = "\n".join(lines)
    stopped = [line for line in text.splitlines() if line.startswith("Stopped: ")]
    # The third game to finish (which one depends on timing: two are played at once).
    assert len(stopped) == 1 and re.fullmatch(
        rf"Stopped: cannot write game [0-9]+ to {re.escape(str(folder))}/games.jsonl: "
        "No space left on device",
        stopped[0],
    )
    assert lines[-1] == f"2 games kept. Resume with: zengine match --resume {folder}"
    assert leftovers(folder) == [] and running(tmp_path / "log", fake_only=True) == []


# --- a real full disk: a small tmpfs -------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 28 KiB tmpfs (seven pages: config.json, the lock, engines.pids, a page of each games
    file, the live folder and the live file of the game in progress)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=28k", "tmpfs", str(disk)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_full_disk_mid_match_stops_cleanly_and_resumes(
    small_disk: Path, tmp_path: Path, shim: dict[str, str]
) -> None:
    folder = small_disk / "it's a match"  # needs quoting in the hint
    marker = tmp_path / "engines.log"
    games = 6
    done = subprocess.run(
        ["zengine", "match", *engines(marker), "--games", str(games), "--out", str(folder)],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        env=shim,
    )
    assert done.returncode == ExitReason.WRITE_FAILED.code, done.stdout + done.stderr
    assert done.stderr == ""
    kept = ids(folder)
    assert 1 <= len(kept) < games and kept == list(range(len(kept)))
    assert (folder / "games.pgn").read_text().count("[Event ") == len(kept)
    assert leftovers(folder) == [] and running(marker, fake_only=True) == []
    assert "Stopped: cannot write game " in done.stdout and "No space left on device" in done.stdout
    hint = done.stdout.splitlines()[-1]
    assert (
        hint
        == f"{count_games(len(kept))} kept. Resume with: zengine match --resume {shlex.quote(str(folder))}"
    )
    command = hint.split("Resume with: ", 1)[1]

    # Still full: the resume cannot rewrite the files; it says so and changes nothing.
    before = (folder / "games.jsonl").read_bytes()
    again = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, timeout=DEADLINE, env=shim
    )
    assert again.returncode == 1 and again.stderr == "", again.stdout + again.stderr
    assert f"Stopped: cannot write the games in {folder}: No space left on device" in again.stdout
    assert (folder / "games.jsonl").read_bytes() == before and leftovers(folder) == []

    # Room made: the same hint finishes the match, every game once.
    subprocess.run(["mount", "-o", "remount,size=1m", str(small_disk)], check=True)
    final = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, timeout=DEADLINE, env=shim
    )
    assert final.returncode == 0, final.stdout + final.stderr
    assert (
        f"Resuming: {len(kept)} games already played, {games - len(kept)} to play" in final.stdout
    )
    assert ids(folder) == list(range(games))
    assert json.loads((folder / "summary.json").read_text())["games_played"] == games
    assert leftovers(folder) == []


def test_a_full_disk_at_start_is_one_line(
    small_disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (small_disk / "filler").write_bytes(b"x" * (24 * 1024))
    folder = small_disk / "m"
    code, out, err = cli([*engines(tmp_path / "log"), "--games", "2", "--out", str(folder)], capsys)
    assert code == ExitReason.WRITE_FAILED.code and out == ""
    assert one_error_line(err) == f"cannot write {folder}/config.json: No space left on device"
    assert leftovers(folder) == [] and not (folder / "config.json").exists()


# --- the output goes away ---------------------------------------------------------------------------


def test_a_closed_pipe_ends_the_match_quietly(tmp_path: Path, shim: dict[str, str]) -> None:
    folder = tmp_path / "m"
    marker = tmp_path / "engines.log"
    err = tmp_path / "stderr"
    args = shlex.join(
        ["zengine", "match", *engines(marker, delay=10), "--games", "40", "--out", str(folder)]
    )
    done = subprocess.run(
        ["bash", "-c", f"{args} 2>{shlex.quote(str(err))} | head -1; exit ${{PIPESTATUS[0]}}"],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        env=shim,
    )
    assert done.stdout.startswith("Match: A (") and done.stdout.count("\n") == 1
    assert err.read_text() == ""  # no traceback, no line: the reader left on purpose
    assert done.returncode == ExitReason.INTERRUPTED.code
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["stopped"] == "the output was closed (broken pipe)"
    assert summary["games_played"] < 40 and len(ids(folder)) == summary["games_played"]
    wait_until(lambda: running(marker, fake_only=True) == [], "the engines to be gone")


def test_ctrl_c_while_the_report_is_drawn_skips_it(tmp_path: Path, monkeypatch) -> None:
    """Drawing a long match's report takes a while: Ctrl-C then ends the command at once
    (it used to spin on for minutes, ignoring every signal), the summary already written."""
    from zengine.tools.pictures import report

    def slow_report(out_dir: Path, boards: int = 0) -> Path:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(DEADLINE)  # the signal's KeyboardInterrupt ends this at once
        raise AssertionError("the report was not interrupted")

    monkeypatch.setattr(report, "write_report", slow_report)
    folder = tmp_path / "m"
    lines: list[str] = []
    before = signal.getsignal(signal.SIGINT)
    result = run_match(
        [*engines(tmp_path / "engines.log"), "--games", "2", "--out", str(folder)],
        emit=lines.append,
        progress=False,
    )
    assert result.reason is ExitReason.COMPLETED
    assert lines[-1] == f"No report: interrupted (zengine report {folder} draws it)"
    assert json.loads((folder / "summary.json").read_text())["games_played"] == 2
    assert signal.getsignal(signal.SIGINT) is before


def test_the_resume_hint_runs_as_printed(tmp_path: Path, shim: dict[str, str]) -> None:
    folder = tmp_path / "a b'c $HOME"
    lines: list[str] = []
    result = run_match(
        [*pair(fake("crash", "--after", "3")), "--each", "depth=1", "--games", "4"]
        + ["--out", str(folder)],
        emit=lines.append,
        progress=False,
    )
    assert result.reason is ExitReason.ENGINE_FAILURE
    hint = lines[-1].split("Resume with: ", 1)[1]
    assert hint == f"zengine match --resume {shlex.quote(str(folder))}"
    done = subprocess.run(
        ["bash", "-c", hint], capture_output=True, text=True, timeout=DEADLINE, env=shim
    )
    assert "Resuming: 1 games already played, 3 to play" in done.stdout, done.stdout + done.stderr
    assert done.returncode == ExitReason.ENGINE_FAILURE.code and ids(folder) == [0, 1]


def test_interrupted_hint_and_signal_keep_their_words(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    marker = tmp_path / "engines.log"
    proc = subprocess.Popen(
        zengine("match", *engines(marker, delay=20), "--games", "40", "--out", str(folder)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: len(read_games(str(folder / "games.jsonl"))) >= 1, "a first game")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 130 and err == ""
    kept = len(ids(folder))
    assert (
        out.splitlines()[-1]
        == f"Interrupted: {count_games(kept)} kept. Resume with: zengine match --resume {folder}"
    )


# --- the referee's session ------------------------------------------------------------------------


def engine_pids(marker: Path) -> list[int]:
    """The pids of the fake engines of this test (their command line names the marker)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            # an engine, not a referee whose command line names the engines
            if argv[1:2] == [str(FAKE).encode()] and str(marker).encode() in argv:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not autogroups_on(), reason="no scheduling autogroups: one session is kept")
@pytest.mark.parametrize("same", [False, True], ids=["own-session", "same-session"])
def test_the_referee_runs_in_a_session_of_its_own(tmp_path: Path, same: bool) -> None:
    """Linux schedules by session: the referee of ``zengine match`` is re-run in one of its own,
    out of the caller's (whatever else the caller's session runs must not delay its clock
    readings), unless ZENGINE_MATCH_SAME_SESSION=1. Ctrl-C and the exit code pass through."""
    folder = tmp_path / "m"
    marker = tmp_path / "engines.log"
    env = {**os.environ, "ZENGINE_MATCH_SAME_SESSION": "1" if same else ""}
    proc = subprocess.Popen(
        zengine("match", *engines(marker, delay=20), "--games", "40", "--out", str(folder)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        wait_until(lambda: len(read_games(str(folder / "games.jsonl"))) >= 1, "a first game")
        engine_parents = {p.ppid for pid in engine_pids(marker) if (p := read_proc(pid))}
        referee = read_proc(engine_parents.pop())
        assert engine_parents == set() and referee is not None
        if same:
            assert referee.pid == proc.pid and referee.session == os.getsid(proc.pid)
        else:
            assert referee.ppid == proc.pid and referee.session == referee.pid
            assert referee.session != os.getsid(proc.pid)
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 130 and err == "", out + err
    assert out.splitlines()[-1].startswith("Interrupted: ")
    wait_until(lambda: engine_pids(marker) == [] and read_proc(referee.pid) is None, "the end")


@pytest.mark.skipif(not autogroups_on(), reason="no scheduling autogroups: one session is kept")
def test_the_referee_dies_with_a_killed_command(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    marker = tmp_path / "engines.log"
    proc = subprocess.Popen(
        zengine("match", *engines(marker, delay=20), "--games", "40", "--out", str(folder)),
        stdout=subprocess.DEVNULL,
    )
    wait_until(lambda: len(read_games(str(folder / "games.jsonl"))) >= 1, "a first game")
    referees = [p.pid for p in all_procs() if p.ppid == proc.pid]
    assert len(referees) == 1
    proc.kill()
    proc.wait(timeout=DEADLINE)
    wait_until(lambda: engine_pids(marker) == [] and read_proc(referees[0]) is None, "the end")


@pytest.mark.skipif(not autogroups_on(), reason="no scheduling autogroups: one session is kept")
def test_a_killed_referee_ends_the_command_the_same_way(tmp_path: Path) -> None:
    """The referee killed by SIGKILL (as the kernel's out-of-memory killer does): the command
    dies of SIGKILL too, as a shell reports it, where it printed "invalid argument" (no handler
    can be set for SIGKILL) and exited 1."""
    folder = tmp_path / "m"
    marker = tmp_path / "engines.log"
    proc = subprocess.Popen(
        zengine("match", *engines(marker, delay=20), "--games", "40", "--out", str(folder)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: len(read_games(str(folder / "games.jsonl"))) >= 1, "a first game")
    referees = [p.pid for p in all_procs() if p.ppid == proc.pid]
    assert len(referees) == 1
    os.kill(referees[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == -signal.SIGKILL and err == ""
    wait_until(lambda: engine_pids(marker) == [], "the engines' end")
