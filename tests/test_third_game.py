"""A third game, Hexapawn (tests/hexapawn.py), known to nothing outside the tests: registered
in-process by the ``third_game`` fixture, or installed as a plugin distribution for zengine
processes. It goes through perft (hand counts and a brute-force oracle), the search, the
protocol and a referee's match, with no change outside tests/. The generic conformance tests
(tests/test_conformance.py) run over it too.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from test_protocol_helpers import Pipe, Script

from zengine.engine.game import legal_moves_text
from zengine.engine.perft import divide, perft
from zengine.engine.variants import make_rules

pytestmark = pytest.mark.usefixtures("third_game")

#: Generous: these only bound a hung process on a loaded machine.
TIMEOUT = 300
BLOCKED = "1b1/1w1/3 w"  # White's b2 can neither step (b3) nor capture (a3, c3 are empty)


# --- a brute-force oracle, written from the rules in tests/hexapawn.py only --------------------
def naive_position(text: str) -> tuple[int, dict[str, set[tuple[int, int]]], str]:
    """(size, side -> {(file, rank)}, side to move) of a position string."""
    board, side = text.split()
    ranks = board.split("/")
    n = len(ranks)
    pawns: dict[str, set[tuple[int, int]]] = {"w": set(), "b": set()}
    for i, row in enumerate(ranks):
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
            else:
                pawns[char].add((file, n - i))
                file += 1
    return n, pawns, side


def naive_moves(n: int, pawns: dict[str, set[tuple[int, int]]], side: str) -> list[tuple]:
    other = "b" if side == "w" else "w"
    ahead = 1 if side == "w" else -1
    moves = []
    for file, rank in pawns[side]:
        if (file, rank + ahead) not in pawns["w"] | pawns["b"]:
            moves.append(((file, rank), (file, rank + ahead)))
        for aside in (-1, 1):
            if (file + aside, rank + ahead) in pawns[other]:
                moves.append(((file, rank), (file + aside, rank + ahead)))
    return moves


def naive_perft(n: int, pawns: dict[str, set[tuple[int, int]]], side: str, depth: int) -> int:
    mover = "b" if side == "w" else "w"
    far = n if mover == "w" else 1
    if any(rank == far for _, rank in pawns[mover]) or not pawns[side]:
        return 0 if depth else 1
    moves = naive_moves(n, pawns, side)
    if depth == 0 or not moves:
        return 0 if depth else 1
    total = 0
    for fr, to in moves:
        after = {s: set(p) for s, p in pawns.items()}
        after[side] = after[side] - {fr} | {to}
        after[mover].discard(to)
        total += naive_perft(n, after, mover, depth - 1)
    return total


# --- perft ---------------------------------------------------------------------------------------
def test_perft_hand_counts() -> None:
    # White's three pawns each step forward (3); then Black answers a1-a2 or c1-c2 with the two
    # free steps and the capture of the advanced pawn (3 each), and b1-b2 with two steps and two
    # captures (4): 3 + 4 + 3 = 10.
    state = make_rules("hexapawn").start()
    assert [perft(state, depth) for depth in (0, 1, 2)] == [1, 3, 10]
    assert divide(state, 2) == [("a1-a2", 3), ("b1-b2", 4), ("c1-c2", 3)]


@pytest.mark.parametrize(
    "variant,rules,depths",
    [
        ("hexapawn", {}, range(10)),  # the whole tree: every game is over within 7 plies
        ("hexapawn", {"stalemate": "draw"}, range(10)),
        ("octapawn", {}, range(7)),
    ],
)
def test_perft_against_brute_force(variant: str, rules: dict[str, str], depths: range) -> None:
    state = make_rules(variant, rules).start()
    n, pawns, side = naive_position(state.position_text())
    for depth in depths:
        assert perft(state, depth) == naive_perft(n, pawns, side, depth), depth


def test_perft_of_random_positions_against_brute_force() -> None:
    rng = random.Random(5)
    rules = make_rules("octapawn")
    for _ in range(30):
        state = rules.start()
        for _ in range(rng.randrange(1, 8)):
            if state.is_over():
                break
            state.play(rng.choice(state.legal_moves()))
        text = state.position_text()
        state = rules.parse_position(text)
        assert perft(state, 3) == naive_perft(*naive_position(text), 3), text


def test_blocked_side_loses_or_draws_by_the_stalemate_rule() -> None:
    lost = make_rules("hexapawn").parse_position(BLOCKED).outcome()
    drawn = make_rules("hexapawn", {"stalemate": "draw"}).parse_position(BLOCKED).outcome()
    assert lost is not None and lost.winner == 1 and lost.detail == "blocked"
    assert drawn is not None and drawn.winner is None and drawn.detail == "blocked"


# --- search and protocol, in-process -------------------------------------------------------------
def test_handshake_lists_the_variants_and_setup_plays() -> None:
    script = Script()
    reply = script.send("uci")
    assert (
        "option name UCI_Variant type combo default zola var zola var zola-8 var zola-10"
        " var zhadu var zhadu-star var hexapawn var octapawn"
    ) in reply
    assert script.send("setup hexapawn", "position startpos") == []
    lines = script.search("go depth 2")
    best = lines[-1].split()
    assert best[0] == "bestmove" and best[1] in legal_moves_text(make_rules("hexapawn").start())
    assert script.one("query fen") == "response bbb/3/www w"
    assert script.send("setup octapawn stalemate draw", "position startpos moves a1-a2") == []
    assert script.one("query fen") == "response bbbb/4/w3/1www b"
    assert script.one("setup hexapawn size 5").startswith("error bad-value ")
    assert script.one("setup hexapawn speed 5").startswith("error unknown-option ")


def test_search_finds_the_win_in_one() -> None:
    # b2xa3 reaches the far rank; a1-a2, the only other move, does not.
    script = Script()
    assert script.send("setup hexapawn", "position fen bb1/1w1/w2 w") == []
    lines = script.search("go depth 3")
    assert lines[-1] == "bestmove b2xa3"
    assert "score mate 1" in lines[-2]
    assert script.send("move b2xa3") == [] and script.one("query result") == "response p1win"


def test_bench_searches_the_declared_positions() -> None:
    from zengine.engine.bench import bench_variant

    states = make_rules("octapawn").bench_states()
    assert [s.position_text() for s in states] == ["bbbb/4/4/wwww w", "bbbb/4/1ww1/w2w b"]
    assert len(make_rules("hexapawn").bench_states()) == 1  # none declared: the start
    nodes, _ = bench_variant("octapawn", 2)
    assert nodes > 0


# --- as an installed plugin, in zengine processes ---------------------------------------------
@pytest.fixture
def plugin_env(make_plugin) -> dict[str, str]:
    """An environment in which zengine processes find the test game as an installed plugin."""
    where = make_plugin({"hexapawn": "hexapawn:HexapawnRules"}, "hexapawn.py")
    path = [str(where), *filter(None, [os.environ.get("PYTHONPATH")])]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path))


def zengine(*args: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "zengine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
    )


def test_plugin_reaches_the_protocol_and_perft(plugin_env: dict[str, str], monkeypatch) -> None:
    env = plugin_env
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    engine = Pipe(timeout=TIMEOUT)
    engine.send("uci")
    assert any(line.endswith(" var hexapawn var octapawn") for line in engine.until("uciok"))
    engine.send("setup octapawn", "position startpos", "go depth 2")
    best = engine.until("bestmove")[-1].split()[1]
    assert best in legal_moves_text(make_rules("octapawn").start())
    code, errors = engine.close()
    assert code == 0, errors
    done = zengine("perft", "3", "--variant", "octapawn", env=env)
    assert done.returncode == 0 and "Nodes searched: 66" in done.stdout, done.stderr
    # Without the plugin the name is unknown: it came from the distribution only.
    monkeypatch.delenv("PYTHONPATH")
    done = zengine("perft", "1", "--variant", "octapawn", env=dict(os.environ))
    assert done.returncode == 2 and "unknown game 'octapawn'" in done.stderr


def test_match_between_two_zengines(tmp_path: Path, plugin_env: dict[str, str]) -> None:
    env = plugin_env
    engine = f"cmd={sys.executable} -m zengine"
    out = tmp_path / "match"
    done = zengine(
        "match",
        "--variant",
        "hexapawn",
        "--engine",
        engine,
        "name=A",
        "depth=1",
        "--engine",
        engine,
        "name=B",
        "depth=3",
        "--games",
        "2",
        "--openings",
        "none",
        "--seed",
        "1",
        "--out",
        str(out),
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(games) == 2
    rules = make_rules("hexapawn")
    for game in games:
        assert game["termination"] == "normal", game
        state = rules.start()
        for text in game["moves"]:
            state.play(state.parse_move(text))  # every move was legal
        outcome = state.outcome()
        assert outcome is not None and game["result"] == outcome.result.pgn


def test_the_tuner_refuses_a_game_without_weights_in_one_line(tmp_path: Path) -> None:
    """The tuner asks the game for its weights (``Rules.tuning``); Hexapawn offers none, so
    it is refused by name, never treated as another game."""
    from click.testing import CliRunner

    from zengine.tools.dev.tune import tune_command

    out = tmp_path / "hexapawn.data"
    for args in (
        ["play", "--variant", "hexapawn", "--games", "1", "--out", str(out)],
        ["fit", "--variant", "hexapawn", str(out)],
    ):
        result = CliRunner().invoke(tune_command, args)
        assert result.exit_code == 2, result.output
        assert "the game 'hexapawn' offers no evaluation weights to tune" in result.output
        assert not out.exists()


def test_the_openings_builder_asks_the_game_for_its_settings() -> None:
    """A game without opening settings needs all three given (no silent fallback to another
    game's); given, it builds openings of that game."""
    from click.testing import CliRunner

    from zengine.tools.dev.openings import openings_command

    refused = CliRunner().invoke(openings_command, ["--variant", "hexapawn", "--count", "2"])
    assert refused.exit_code == 2
    assert "the game 'hexapawn' has no opening settings for 'hexapawn'" in refused.output
    args = ["--variant", "hexapawn", "--count", "2", "--moves", "1", "--depth", "1"]
    built = CliRunner().invoke(openings_command, [*args, "--window", "10000"])
    assert built.exit_code == 0, built.output
    rules = make_rules("hexapawn")
    lines = [line for line in built.output.splitlines() if not line.startswith("#")]
    assert len(lines) == 2
    for line in lines:
        state = rules.start()
        for text in line.split():
            state.play(state.parse_move(text))
