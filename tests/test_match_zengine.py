"""Real matches: the built-in engine against itself on every variant, and the demonstration."""

import json
import subprocess
import sys

import pytest

from zengine.engine.variants import variant_names
from zengine.tools.match import EXIT_OK, builtin_engine, run_match


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
    assert result.exit_code == EXIT_OK, "\n".join(lines)
    games = [json.loads(line) for line in (tmp_path / "m" / "games.jsonl").read_text().splitlines()]
    assert len(games) == 2
    for game in games:
        # Only the rules or the ply limit may end a game between two sound engines.
        assert game["termination"] in ("normal", "max plies"), game["reason"]
        assert all(score is not None for score in game["scores"])  # info lines were read
    assert result.summary["engines"][0]["games"] == 2


def test_builtin_engine_is_this_installation():
    cmd = builtin_engine()
    done = subprocess.run(cmd, input="uci\nquit\n", capture_output=True, text=True, timeout=30)
    assert "uciok" in done.stdout


@pytest.mark.slow
def test_demonstration_match(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from zengine.protocol.cli import main; main()",
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
