"""Interrupting the referee (SIGINT, SIGKILL) and resuming: the same games, none twice."""

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from zengine.tools.records import read_games

FAKE = Path(__file__).parent / "fake_engines" / "fake_engine.py"
GAMES = 12


def start(out: Path, *extra: str, games: int = GAMES) -> subprocess.Popen:
    def engine(name: str, seed: str) -> list[str]:
        cmd = shlex.join(
            [sys.executable, str(FAKE), "--delay", "15", "--seed", seed, "--log", str(out) + ".log"]
        )
        return ["--engine", f"cmd={cmd}", f"name={name}"]

    args = [
        sys.executable,
        "-c",
        "from zengine.protocol.cli import main; main()",
        "match",
        *engine("A", "1"),
        *engine("B", "2"),
        "--each",
        "tc=20+0.2",
        "--games",
        str(games),
        "--maxplies",
        "30",
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--out",
        str(out),
        *extra,
    ]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_for_games(out: Path, count: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if len(read_games(str(out / "games.jsonl"))) >= count:
            return
        time.sleep(0.05)
    raise AssertionError("the match did not get going")


def engines_running(marker: str) -> list[str]:
    """Fake engines of this test still alive (their command line names the log file)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline and "fake_engine" in cmdline:
                found.append(cmdline)
    return found


def resume_and_check(out: Path) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from zengine.protocol.cli import main; main()",
            "match",
            "--resume",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in (out / "games.jsonl").read_text().splitlines()]
    ids = [json.loads(line)["id"] for line in lines]
    assert sorted(ids) == list(range(GAMES))  # every game once, no duplicate
    assert (out / "games.pgn").read_text().count("[Event ") == GAMES
    assert json.loads((out / "summary.json").read_text())["games_played"] == GAMES
    return done.stdout


def test_sigint_then_resume(tmp_path):
    out = tmp_path / "m"
    proc = start(out)
    wait_for_games(out, 2, proc)
    proc.send_signal(signal.SIGINT)
    text, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, text
    assert "Resume with: zengine match --resume" in text
    kept = len(read_games(str(out / "games.jsonl")))
    assert 2 <= kept < GAMES
    assert engines_running(str(out)) == []  # stopped and reaped by the referee
    stdout = resume_and_check(out)
    assert f"Resuming: {kept} games already played" in stdout


def test_sigkill_with_a_torn_last_line_then_resume(tmp_path):
    out = tmp_path / "m"
    proc = start(out)
    wait_for_games(out, 3, proc)
    proc.kill()
    proc.communicate(timeout=30)
    # A referee killed mid-write leaves half a line: simulate the worst case.
    with open(out / "games.jsonl", "a") as handle:
        handle.write('{"id": 11, "round": 0, "res')
    kept = len(read_games(str(out / "games.jsonl")))
    # Orphaned engines see end of input and exit by themselves.
    deadline = time.monotonic() + 10
    while engines_running(str(out)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engines_running(str(out)) == []
    stdout = resume_and_check(out)
    assert f"Resuming: {kept} games already played" in stdout


def test_resume_refuses_other_options_and_out_refuses_reuse(tmp_path):
    out = tmp_path / "m"
    proc = start(out, games=2)
    proc.communicate(timeout=120)
    assert proc.returncode == 0
    again = start(out, games=2)
    text, _ = again.communicate(timeout=30)
    assert again.returncode == 2 and "use --resume" in text
    bad = subprocess.run(
        [
            sys.executable,
            "-c",
            "from zengine.protocol.cli import main; main()",
            "match",
            "--resume",
            str(out),
            "--games",
            "4",
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "drop --games" in bad.stderr
