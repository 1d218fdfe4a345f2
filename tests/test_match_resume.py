"""Interrupting the referee (SIGINT, SIGKILL) and resuming: the same games, none twice."""

import hashlib
import json
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from fake_match import (
    FAKE,
    MATCH_CLI,
    fake,
    match_cli,
    pair,
    running,
    start_match,
    wait_for_games,
    wait_until_gone,
)

from zengine.tools.referee.records import read_games

GAMES = 12


def start(out: Path, *extra: str, games: int = GAMES) -> subprocess.Popen:
    def engine(seed: str) -> str:
        return fake("--delay", "15", "--seed", seed, "--log", str(out) + ".log")

    return start_match(
        *pair(engine("1"), engine("2"), names=("A", "B")),
        *("--each", "tc=20+0.2", "--games", str(games), "--maxplies", "30"),
        *("--concurrency", "2", "--seed", "5", "--out", str(out), *extra),
    )


def resume_and_check(out: Path) -> str:
    done = match_cli("--resume", str(out))
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
    assert running(out, fake_only=True) == []  # stopped and reaped by the referee
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
    assert wait_until_gone(out, seconds=10, fake_only=True) == []
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
    bad = match_cli("--resume", str(out), "--games", "4", timeout=None)
    assert bad.returncode == 2 and "drop --games" in bad.stderr


EACH = ("--each", "depth=1")


def test_out_refuses_a_folder_of_other_files_and_takes_one_of_a_match_without_games(tmp_path):
    # A cutechess user's games.pgn in the folder: refused, nothing written (it was overwritten).
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "games.pgn").write_text('[Event "mine"]\n\n1. e4 e5 *\n')
    (theirs / "summary.json").write_text('{"x": 1}\n')
    refused = match_cli(*pair(fake()), *EACH, "--games", "2", "--out", str(theirs))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip().splitlines() == [
        f"zengine match: error: --out {theirs}: it holds games.pgn, summary.json, which a match "
        "would overwrite; give a new folder"
    ]
    assert (theirs / "games.pgn").read_text() == '[Event "mine"]\n\n1. e4 e5 *\n'
    assert sorted(p.name for p in theirs.iterdir()) == ["games.pgn", "summary.json"]
    # A match that stopped before its first game (an option its engine refused): started
    # again there with the option mended.
    ours = tmp_path / "ours"
    first = match_cli(
        *pair(fake("--reject-options"), x_keys=("option.Hash=1",)),
        *EACH,
        *("--games", "2", "--out", str(ours)),
    )
    assert first.returncode != 0 and (ours / "config.json").exists()
    again = match_cli(*pair(fake()), *EACH, "--games", "2", "--out", str(ours))
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(read_games(str(ours / "games.jsonl"))) == 2


def test_resume_refuses_an_openings_file_changed_since_the_start(tmp_path):
    # config.json keeps only the file's path: an edited file would give the schedule other
    # openings, splitting pairs. Its digest is kept, and a resume checks it.
    book = tmp_path / "book.txt"
    lines = Path(__file__).parent.parent.joinpath("openings", "zola.txt").read_text().splitlines()
    book.write_text("\n".join(lines[1:3]) + "\n")
    out = tmp_path / "m"
    first = match_cli(
        *pair(fake()), *EACH, "--games", "2", "--openings", f"file={book}", "--out", str(out)
    )
    assert first.returncode == 0, first.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["openings"]["sha256"] == hashlib.sha256(book.read_bytes()).hexdigest()
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.name != "lock"}
    book.write_text("\n".join(lines[2:4]) + "\n")
    refused = match_cli("--resume", str(out))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip().splitlines() == [
        f"zengine match: error: openings file {book} changed since the match started; "
        f"restore it (sha256 {config['openings']['sha256']}) or start a new match"
    ]
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != "lock"} == before
    # A config.json of an earlier version has no digest (of the file, or of the settings):
    # no check, as before.
    del config["openings"]["sha256"], config["settings_sha256"]
    (out / "config.json").write_text(json.dumps(config))
    assert match_cli("--resume", str(out)).returncode == 0


def test_resume_from_another_directory_runs_relative_commands_from_the_start_one(tmp_path):
    # cmd=./eng.sh was resolved against the current directory: a resume from elsewhere
    # could not find it. It cannot start while ./broken exists (the match stops unplayed).
    start_dir, elsewhere = tmp_path / "start", tmp_path / "elsewhere"
    start_dir.mkdir()
    elsewhere.mkdir()
    (start_dir / "broken").touch()
    script = start_dir / "eng.sh"
    script.write_text(
        f"#!/bin/sh\n[ -e broken ] && exit 7\nexec {shlex.join([sys.executable, str(FAKE)])}\n"
    )
    script.chmod(0o755)
    engines = ("--engine", "cmd=./eng.sh", "name=A", "--engine", "cmd=./eng.sh", "name=B")

    def zengine(where: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*MATCH_CLI, *args], cwd=where, capture_output=True, text=True, timeout=120
        )

    first = zengine(start_dir, *engines, *EACH, "--games", "2", "--out", "m")
    assert first.returncode == 3, first.stdout + first.stderr
    (start_dir / "broken").unlink()
    done = zengine(elsewhere, "--resume", str(start_dir / "m"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(read_games(str(start_dir / "m" / "games.jsonl"))) == 2
    assert json.loads((start_dir / "m" / "config.json").read_text())["start_dir"] == str(start_dir)


def _interrupted(out: Path, games: int, kept: int) -> dict:
    """A match of ``games`` games with only the first ``kept`` recorded (as after Ctrl-C);
    its config.json."""
    done = match_cli(
        *pair(fake()), *EACH, "--games", str(games), "--maxplies", "20", "--seed", "3",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("".join(lines[:kept]))
    return json.loads((out / "config.json").read_text())


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.name != "lock"}


def test_resume_refuses_a_config_json_edited_since_the_games_were_played(tmp_path):
    # 7 of 10 games played on zola: a resume after variant=zhadu (or another seed, other
    # openings) played the rest under other settings, a pair split across both. Refused.
    out = tmp_path / "m"
    config = _interrupted(out, 10, 7)
    for change in ({"variant": "zhadu"}, {"seed": 4}, {"games": 12}, {"maxplies": 30}):
        (out / "config.json").write_text(json.dumps({**config, **change}))
        before = _files(out)
        refused = match_cli("--resume", str(out))
        assert refused.returncode == 2 and refused.stdout == "", (change, refused.stdout)
        assert refused.stderr.splitlines() == [
            f"zengine match: error: --resume {out}: config.json changed since the match "
            "started: its games were played with other settings (restore it, or start a "
            "new match)"
        ], change
        assert _files(out) == before
    # A folder of an earlier version keeps no digest of its settings: the records say which
    # variant (and rules) its games were played on.
    del config["settings_sha256"]
    (out / "config.json").write_text(json.dumps({**config, "variant": "zhadu"}))
    refused = match_cli("--resume", str(out))
    assert refused.returncode == 2 and refused.stderr.splitlines() == [
        f"zengine match: error: {out}/games.jsonl: game id 0 was played on zola size 6; "
        "config.json has zhadu links full quiet 100"
    ]
    # How the match is run may change: the concurrency, the engines' timeouts.
    config["concurrency"] = 2
    config["engines"][0]["timeout"]["move"] = 30.0
    (out / "config.json").write_text(json.dumps(config))
    done = match_cli("--resume", str(out))
    assert done.returncode == 0, done.stderr
    assert len(read_games(str(out / "games.jsonl"))) == 10


def test_resume_reads_a_config_json_with_a_byte_order_mark(tmp_path):
    out = tmp_path / "m"
    _interrupted(out, 4, 2)
    text = (out / "config.json").read_text()
    (out / "config.json").write_text("\ufeff" + text)
    done = match_cli("--resume", str(out))
    assert done.returncode == 0, done.stderr
    assert len(read_games(str(out / "games.jsonl"))) == 4
