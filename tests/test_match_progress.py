"""The referee's live files (tools/referee/progress.py): one per game in progress, for those
who follow a match (``zengine gui --watch``), gone when the game ends."""

from __future__ import annotations

import json
import time

from fake_match import fake, pair, start_match, wait_for_games

from zengine.engine.variants import make_rules
from zengine.tools.referee.progress import clear_live, read_live


def test_a_game_in_progress_has_its_live_file_until_it_ends(tmp_path):
    hold = tmp_path / "hold"
    hold.write_text("")
    out = tmp_path / "m"
    engines = pair(fake("--hold", str(hold)), fake("--hold", str(hold)), names=("A", "B"))
    proc = start_match(
        *engines,
        *("--each", "tc=60+1", "--games", "2", "--concurrency", "2", "--openings", "none"),
        *("--out", str(out), "--seed", "5"),
    )
    try:
        deadline = time.monotonic() + 120
        live: list[dict] = []
        while time.monotonic() < deadline and len(live) < 2 and proc.poll() is None:
            live = read_live(out)
            time.sleep(0.05)
        assert [g["id"] for g in live] == [0, 1]
        start = make_rules("zola").start().position_text()
        for game in live:
            assert game["variant"] == "zola" and game["fen"] == start
            assert game["ply"] == 0 and game["last"] is None
            assert sorted(s["name"] for s in game["sides"]) == ["A", "B"]
            assert [s["clock"] for s in game["sides"]] == [60000, 60000]
            assert all(s["score"] is None and s["depth"] is None for s in game["sides"])
        hold.unlink()
        wait_for_games(out, 2, proc)
        assert proc.wait(120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not (out / "live").exists()
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2


def test_files_left_by_a_killed_run_are_cleared(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    (live / "3.json").write_text('{"id": 3}')
    (live / "3.tmp").write_text("{")
    assert [g["id"] for g in read_live(tmp_path)] == [3]
    clear_live(tmp_path)
    assert not live.exists() and read_live(tmp_path) == []
