"""The live output of ``zengine match``: cutechess's lines, the Elo line every
``--ratinginterval`` games, and the progress bar (only on a terminal, redrawn by a timer, never
wider than the terminal)."""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import pexpect
import pytest
from test_records_pgn import record

from zengine.engine.values import Result
from zengine.tools.referee.config import SprtConfig
from zengine.tools.referee.live import LiveOutput
from zengine.tools.referee.match import run_match
from zengine.tools.referee.options import parse_command_line
from zengine.tools.referee.tally import MatchTally
from zengine.tools.referee.terminations import Termination

FAKE = Path(__file__).parent / "fake_engines" / "fake_engine.py"


def fake(*args: str) -> str:
    return "cmd=" + shlex.join([sys.executable, str(FAKE), *args])


def games(results: list[Result], engines: int = 2) -> list:
    """Records of a match between engines 0 and 1, colours swapped each game (pairs)."""
    out = []
    for i, result in enumerate(results):
        p1, p2 = (0, 1) if i % 2 == 0 else (1, 0)
        out.append(
            record(
                id=i,
                pair=i // 2,
                p1=f"e{p1}",
                p2=f"e{p2}",
                p1_index=p1,
                p2_index=p2,
                result=result,
                termination=Termination.RULES,
                reason="every Blue checker captured" if result is Result.P1_WIN else "sharing",
            )
        )
    return out


def play(live: LiveOutput, records: list, names=("e0", "e1"), interval=2, sprt=None) -> list[str]:
    lines: list[str] = []
    live.emit = lines.append
    tally = MatchTally(len(names))
    live.begin(names, len(records), tally, interval)
    for r in records:
        live.started(r.id, r.p1_index, r.p2_index)
        tally.add(r)
        live.finished(r, None if sprt is None else tally.sprt(sprt))
    live.end()
    return lines


def test_the_lines_cutechess_users_grep_for():
    results = [Result.P1_WIN, Result.P1_WIN, Result.DRAW, Result.DRAW]
    lines = play(LiveOutput(progress=False), games(results))
    assert lines[:3] == [
        "Started game 1 of 4 (e0 vs e1)",
        "Finished game 1 (e0 vs e1): 1-0 {every Blue checker captured}",
        "Score of e0 vs e1: 1 - 0 - 0  [1.000] 1",
    ]
    # Game 2: e1 plays p1 and wins, so e0 lost it.
    assert lines[3:6] == [
        "Started game 2 of 4 (e1 vs e0)",
        "Finished game 2 (e1 vs e0): 1-0 {every Blue checker captured}",
        "Score of e0 vs e1: 1 - 1 - 0  [0.500] 2",
    ]
    elo = [line for line in lines if line.startswith("Elo difference:")]
    # Every 2 games: after the pair (1-0, 0-1) and after the two draws.
    assert len(elo) == 2 and lines[6] == elo[0]
    assert re.fullmatch(
        r"Elo difference: 0\.0 \+/- \d+\.\d, LOS: 50\.0 %, DrawRatio: 0\.0 %", elo[0]
    )
    assert elo[1].endswith("DrawRatio: 50.0 %")
    assert lines[-1] == elo[1]


def test_rating_interval_zero_prints_no_elo_line_and_sprt_comes_with_elo():
    results = [Result.P1_WIN, Result.P2_WIN] * 3
    lines = play(LiveOutput(progress=False), games(results), interval=0)
    assert not any("Elo difference" in line for line in lines)
    lines = play(LiveOutput(progress=False), games(results), interval=3, sprt=SprtConfig())
    sprt = [line for line in lines if line.startswith("SPRT: llr ")]
    assert len(sprt) == 2 and re.fullmatch(
        r"SPRT: llr -?[0-9.e+-]+ \(-?\d+\.\d%\), lbound -2\.94, ubound 2\.94", sprt[0]
    )
    # After 3 games only one pair is complete: its Elo, not the open game's.
    first = lines.index(sprt[0]) - 1
    assert lines[first].startswith("Elo difference: 190.8 +/- ")


def test_the_sprt_decision_is_told_at_once_with_its_elo():
    results = [Result.P1_WIN, Result.P2_WIN] * 30  # engine 0 wins every game
    sprt = SprtConfig(elo0=0, elo1=50)
    lines = play(LiveOutput(progress=False), games(results), interval=0, sprt=sprt)
    decided = [line for line in lines if line.startswith("SPRT: llr ")]
    assert len(decided) == 1 and decided[0].endswith(" - H1 was accepted")
    before = lines[lines.index(decided[0]) - 1]
    assert before.startswith("Elo difference: ") and "LOS: 100.0 %" in before


def test_no_complete_pair_yet_is_said():
    lines = play(LiveOutput(progress=False), games([Result.DRAW]), interval=1)
    assert lines[-1] == "Elo difference: - (no complete pair yet), LOS: -, DrawRatio: 100.0 %"


def test_a_tournament_prints_a_ranking():
    names = ("d1", "d2", "d3")
    records = [
        record(id=0, pair=0, encounter=(0, 1), p1="d1", p2="d2", p1_index=0, p2_index=1),
        record(id=1, pair=0, encounter=(0, 1), p1="d2", p2="d1", p1_index=1, p2_index=0),
        record(id=2, pair=0, encounter=(1, 2), p1="d2", p2="d3", p1_index=1, p2_index=2),
        record(id=3, pair=0, encounter=(1, 2), p1="d3", p2="d2", p1_index=2, p2_index=1),
        record(id=4, pair=0, encounter=(0, 2), p1="d1", p2="d3", p1_index=0, p2_index=2),
    ]
    lines = play(LiveOutput(progress=False), records, names=names, interval=5)
    assert not any(line.startswith("Score of") for line in lines)
    table = lines[lines.index(next(x for x in lines if x.startswith("Rank"))) :]
    assert table[0].split() == ["Rank", "Name", "Elo", "+/-", "Games", "Score", "Draws", "Points"]
    # Player 1 wins every game: d1 2 of 3, d2 2 of 4, d3 1 of 3; ranked by score ratio.
    rows = [row.split() for row in table[1:]]
    assert [row[:2] for row in rows] == [["1", "d1"], ["2", "d2"], ["3", "d3"]]
    assert [row[4:] for row in rows] == [
        ["3", "66.7%", "0.0%", "2"],
        ["4", "50.0%", "0.0%", "2"],
        ["3", "33.3%", "0.0%", "1"],
    ]
    # Elo against the field from complete pairs: d2's two pairs were even.
    assert rows[1][2] == "0.0" and float(rows[1][3]) > 0


def test_the_bar_is_redrawn_by_a_timer_between_games(monkeypatch):
    # No game ends while we wait: only the timer can redraw the bar.
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    live = LiveOutput(emit=lambda line: None, progress=True, refresh_s=0.02)
    tally = MatchTally(2)
    live.begin(("e0", "e1"), 10, tally)
    live.started(0, 0, 1)
    deadline = time.monotonic() + 60  # generous: a loaded machine still gets there
    while live.ticks < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    live.end()
    assert live.ticks >= 3
    assert "elapsed" in err.getvalue() and "1 running" in err.getvalue()
    ticks = live.ticks
    assert not any(t.name == "progress" for t in threading.enumerate())
    assert live.ticks == ticks


def test_no_bar_unless_asked_and_no_bar_into_a_pipe(tmp_path):
    args = ["--engine", fake(), "name=A", "--engine", fake("--seed", "3"), "name=B"]
    args += ["--each", "depth=1", "--games", "2", "--seed", "2", "--out", str(tmp_path / "m")]
    done = subprocess.run(
        [sys.executable, "-m", "zengine", "match", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        assert "\r" not in stream and "\x1b" not in stream
    assert "Finished game 2 (B vs A)" in done.stdout and "Score of A vs B" in done.stdout


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BAR = re.compile(r"\d+/\d+ .*running")


@pytest.mark.parametrize("width", [80, 40])
def test_the_bar_fits_the_terminal(tmp_path, width):
    args = ["--engine", fake("--score", "10"), "name=first-engine-name"]
    args += ["--engine", fake("--seed", "3"), "name=second-engine-name", "--each", "depth=1"]
    args += ["--games", "4", "--concurrency", "2", "--seed", "2", "--out", str(tmp_path / "m")]
    child = pexpect.spawn(
        sys.executable,
        ["-m", "zengine", "match", *args],
        dimensions=(24, width),
        encoding="utf-8",
        timeout=300,
        env={**os.environ, "COLUMNS": str(width)},
    )
    output = child.read()
    child.close()
    assert child.exitstatus == 0, output
    segments = [ANSI.sub("", s).rstrip() for s in re.split(r"[\r\n]", output)]
    bars = [s for s in segments if BAR.match(s)]
    assert bars, output  # the bar is drawn as it starts, before any game ends
    assert all(len(s) < width for s in bars), [s for s in bars if len(s) >= width]
    assert any("Finished game 4" in s for s in segments)


def test_config_takes_a_rating_interval():
    config = parse_command_line(["--ratinginterval", "0"])
    assert config.rating_interval == 0 and parse_command_line([]).rating_interval == 10
    assert type(config).from_json(config.to_json()) == config
    data = config.to_json()
    del data["ratinginterval"]  # a folder of an earlier version
    assert type(config).from_json(data).rating_interval == 10


def test_resume_takes_a_rating_interval(tmp_path):
    out = tmp_path / "m"
    args = ["--engine", fake(), "name=A", "--engine", fake("--seed", "3"), "name=B"]
    args += ["--each", "depth=1", "--games", "2", "--seed", "2", "--out", str(out)]
    run_match([*args, "--ratinginterval", "0"], emit=lambda line: None, progress=False)
    lines: list[str] = []
    result = run_match(
        ["--resume", str(out), "--ratinginterval", "1"], emit=lines.append, progress=False
    )
    assert result.exit_code == 0 and "Resuming: 2 games already played, 0 to play" in lines
