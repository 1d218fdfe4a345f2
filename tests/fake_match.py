"""Helpers shared by the referee's tests (tests/test_match_*.py): the fake engine's command,
the usual pair of engines, the referee run in this process (``run``, ``cli``) or as a command
(``match_cli``, ``start_match``), and the checks that no engine process is left behind. One
copy here, so that the test files say only what they test."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from zengine.cli import main
from zengine.tools.referee.match import run_match
from zengine.tools.referee.records import read_games

TESTS = Path(__file__).parent
#: The scripted fake engine (its modes and fault flags: see the file).
FAKE = TESTS / "fake_engines" / "fake_engine.py"
DATA = TESTS / "data"
#: ``zengine match`` as a command of its own, run by this interpreter (no PATH lookup).
MATCH_CLI = [sys.executable, "-c", "from zengine.cli import main; main()", "match"]

#: Untimed games: a sound fake engine answers at once; nothing waits for a slow machine.
EASY = ("--each", "depth=1")
#: Short deadlines for the misbehaving engine X only, for waits it never answers: isready
#: (before a game, after a stall), a move without a clock, past its clock. Its start (the
#: wait for uciok, which a sound process start must meet) keeps the generous default.
X_DEADLINES = ("timeout.ready=0.5", "timeout.grace=0.2", "timeout.move=0.5")


def unique(word: str) -> str:
    """A process marker for one test of one run: ``word`` and a random suffix. A name built
    from ``tmp_path.name`` is the same in every run, and a run of the suite from another
    checkout at the same time would find this one's processes (or this one its)."""
    return f"{word}-{uuid.uuid4().hex}"


def fake(*args: str) -> str:
    """The ``cmd=...`` engine argument that runs the fake engine with ``args``."""
    return "cmd=" + shlex.join([sys.executable, str(FAKE), *args])


def pair(
    x: str,
    n: str | None = None,
    x_keys: tuple[str, ...] = (),
    n_keys: tuple[str, ...] = (),
    names: tuple[str, str] = ("X", "N"),
) -> tuple[str, ...]:
    """The arguments of two engines: ``x`` (a ``cmd=...``, named ``X``, with ``x_keys``) then
    ``n`` (a sound fake engine unless given, named ``N``, with ``n_keys``). Most tests race
    a misbehaving X against a sound N; ``names`` renames them."""
    return (
        *("--engine", x, f"name={names[0]}", *x_keys),
        *("--engine", fake() if n is None else n, f"name={names[1]}", *n_keys),
    )


def children() -> list[str]:
    """Our child processes (zombies included): there must be none after a match."""
    me = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[1] == me:
            found.append(f"{entry} {fields[0]} {stat.split('(')[1].split(')')[0]}")
    return found


def running(marker: str | Path, fake_only: bool = False) -> list[str]:
    """Live processes (zombies have no command line) whose command line contains ``marker``,
    as ``pid command line``; with ``fake_only``, fake engines only."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if str(marker).encode() in cmdline and (not fake_only or b"fake_engine" in cmdline):
                found.append(f"{entry} {cmdline.decode(errors='replace')}")
    return found


def wait_until_gone(
    marker: str | Path, seconds: float = 20.0, fake_only: bool = False
) -> list[str]:
    """``running(marker, fake_only)`` once it is empty or ``seconds`` have passed: orphaned
    engines see the end of their input and exit by themselves, given time."""
    deadline = time.monotonic() + seconds
    while running(marker, fake_only) and time.monotonic() < deadline:
        time.sleep(0.05)
    return running(marker, fake_only)


def run(
    tmp_path: Path, *args: str, out: str = "m", missing_ok: bool = False
) -> tuple[Any, list[dict], str]:
    """``run_match(args)`` in this process into ``tmp_path/out`` (seed 11): its result, the
    games of its games.jsonl and its printed lines, once checked that no child is left. With
    ``missing_ok``, a match that stopped before its first game (no games.jsonl) has no games;
    without, that is an error."""
    lines: list[str] = []
    result = run_match(
        [*args, "--out", str(tmp_path / out), "--seed", "11"], emit=lines.append, progress=False
    )
    path = tmp_path / out / "games.jsonl"
    if missing_ok and not path.exists():
        games = []
    else:
        games = [json.loads(line) for line in path.read_text().splitlines()]
    assert children() == []
    return result, games, "\n".join(lines)


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``zengine match <args>`` run in this process."""
    with pytest.raises(SystemExit) as exit_info:
        main.main(["match", *args], prog_name="zengine")
    out, err = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 1), out, err


def match_cli(
    *args: str, timeout: float | None = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``zengine match args`` run to its end as a command: exit code, stdout, stderr."""
    return subprocess.run(
        [*MATCH_CLI, *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def start_match(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``zengine match args`` started as a command (stdout and stderr in one pipe), for a
    test to interrupt."""
    return subprocess.Popen(
        [*MATCH_CLI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


def wait_for_games(out: Path, count: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    """Return once the match ``proc`` writing into ``out`` has recorded ``count`` games."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        if len(read_games(str(out / "games.jsonl"))) >= count:
            return
        time.sleep(0.05)
    raise AssertionError("the match did not get going")
