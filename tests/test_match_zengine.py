"""Real matches: the built-in engine against itself on every variant, and the demonstration."""

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from zengine import DISTRIBUTION
from zengine.engine.variants import make_rules, variant_names
from zengine.tools.referee.match import run_match
from zengine.tools.referee.programs import builtin_engine
from zengine.tools.referee.runner import ExitReason


@pytest.mark.parametrize("variant", variant_names())
def test_zengine_against_zengine(tmp_path, variant):
    lines: list[str] = []
    result = run_match(
        [
            "--engine",
            "cmd=zengine",
            "name=A",
            "depth=1",
            "--engine",
            "cmd=zengine",
            "name=B",
            "depth=2",
            "nodes=1000",
            "proto=ugi",
            "--variant",
            variant,
            "--games",
            "2",
            "--seed",
            "3",
            "--maxplies",
            "24",
            "--out",
            str(tmp_path / "m"),
        ],
        emit=lines.append,
        progress=False,
    )
    assert result.reason is ExitReason.COMPLETED, "\n".join(lines)
    games = [json.loads(line) for line in (tmp_path / "m" / "games.jsonl").read_text().splitlines()]
    assert len(games) == 2
    report = (tmp_path / "m" / "report.html").read_text()  # written at the end of every match
    assert all(f'id="game-row-{g["id"]}"' in report for g in games)
    for game in games:
        # Only the rules or the ply limit may end a game between two sound engines.
        assert game["termination"] in ("normal", "max plies"), game["reason"]
        assert all(score is not None for score in game["scores"])  # info lines were read
    assert result.summary["engines"][0]["games"] == 2


def test_builtin_engine_is_this_installation():
    cmd = builtin_engine()
    # This interpreter's script (or this interpreter running the package), not any zengine.
    assert Path(cmd[0]).parent == Path(sys.executable).parent
    variant = variant_names()[-1]
    done = subprocess.run(
        cmd,
        input=f"uci\nsetoption name UCI_Variant value {variant}\nposition startpos\ngo depth 1\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = done.stdout.splitlines()
    assert f"id name zengine {importlib.metadata.version(DISTRIBUTION)}" in lines
    assert "uciok" in lines
    best = [line.split() for line in lines if line.startswith("bestmove")]
    assert len(best) == 1 and len(best[0]) == 2, done.stdout
    # A legal move of the position it was given (parse_move raises for anything else).
    make_rules(variant).start().parse_move(best[0][1])


@pytest.mark.slow
def test_demonstration_match(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from zengine.cli import main; main()",
            "match",
            "--out",
            str(tmp_path / "demo"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "demo" / "summary.json").read_text())
    assert summary["games_played"] == 4
    assert set(summary["terminations"]) <= {"normal", "max plies"}
