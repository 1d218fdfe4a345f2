"""Pondering in ``zengine match`` (cutechess's engine key ``ponder``), with real processes: the
built-in engine and the fake engine (tests/fake_engines/fake_engine.py, ``--ponder``).

The traffic (``--debug``) is checked move by move: each ``go ponder`` is on the reply the
engine named, and is followed by ``ponderhit`` when the opponent played that reply and by
``stop`` when it did not (or when the game ended). The clock is checked by bookkeeping, not
by timing: the time charged for a move made after ``ponderhit`` is at most the span between
the ``ponderhit`` and the ``bestmove`` in the traffic, and at least the delay the fake engine
keeps after ``ponderhit``; the pondering before it lasts at least the opponent's own delay."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from fake_match import fake, run

from zengine.engine.game import sorted_moves
from zengine.engine.variants import make_rules
from zengine.tools.referee.game import _Pondering
from zengine.tools.referee.runner import ExitReason

#: Both guess the first and the last reply in turn and play the first move: hits and misses.
ALTERNATE = fake("--first", "--ponder", "alternate")


def traffic(folder: Path) -> list[tuple[float, str, str, str]]:
    """``traffic.log``: (time, engine, ``>`` sent or ``<`` read, the line)."""
    out = []
    for line in (folder / "traffic.log").read_text().splitlines():
        stamp, name, arrow, text = line.split(" ", 3)
        out.append((float(stamp), name, arrow, text))
    return out


def check_result(game: dict[str, Any]) -> None:
    """The game's moves replayed by the rules give its final position and its result."""
    state = make_rules(game["variant_name"]).parse_position(game["start_fen"])
    for text in [*game["opening_moves"], *game["moves"]]:
        state.play(state.parse_move(text))
    assert state.position_text() == game["final_fen"]
    outcome = state.outcome()
    if game["termination"] == "normal":
        assert outcome is not None and outcome.result.pgn == game["result"]
    else:
        assert outcome is None and game["termination"] == "max plies"


def ponder_exchanges(lines: list[tuple[float, str, str, str]]) -> list[dict[str, Any]]:
    """Each ``go ponder`` of the traffic: who, the reply pondered on, what ended it (the next
    line sent to that engine), the opponent's move before that, whether the engine's next
    ``bestmove`` came before anything else was sent to it, whether a ``position`` was sent
    to it next (the game went on), and the times of the ``go ponder``, of its end and of
    that ``bestmove``."""
    found = []
    for i, (stamp, name, arrow, text) in enumerate(lines):
        if arrow != ">" or not text.startswith("go ponder"):
            continue
        before = [t for _, n, a, t in lines[:i] if n == name and a == ">"]
        assert before[-1].startswith("position ")
        after = [(k, t) for k, (_, n, a, t) in enumerate(lines) if k > i and n == name and a == ">"]
        end_at, end = after[0]
        played = [
            t.split()[1]
            for _, n, a, t in lines[:end_at]
            if n != name and a == "<" and t.startswith("bestmove")
        ][-1]
        answer_at = next(
            k
            for k, (_, n, _a, t) in enumerate(lines)
            if k > end_at and n == name and t.startswith("bestmove")
        )
        found.append(
            {
                "engine": name,
                "reply": before[-1].split()[-1],
                "end": end,
                "played": played,
                "answered_first": len(after) == 1 or answer_at < after[1][0],
                "went_on": len(after) > 1 and after[1][1].startswith("position "),
                "go_ponder_at": stamp,
                "end_at": lines[end_at][0],
                "answer_at": lines[answer_at][0],
            }
        )
    return found


def check_exchange(e: dict[str, Any]) -> None:
    """A ponder search ends with ``ponderhit`` on a hit (then the engine's search goes on to
    its move), with ``stop`` on a miss or when the game ended (its answer dropped, then the
    real position)."""
    assert e["answered_first"]
    if e["end"] == "ponderhit":
        assert e["played"] == e["reply"]
    else:
        assert e["end"] == "stop" and (e["played"] != e["reply"] or not e["went_on"])


def pondering_match(tmp_path: Path, a: str, b: str, *each: str) -> tuple[list[dict], list, list]:
    """Engines ``a`` (named A) and ``b`` (B), both pondering, two games with the traffic log:
    the games, the traffic and the ponder exchanges, each game and exchange checked."""
    result, games, _ = run(
        tmp_path,
        *("--engine", a, "name=A", "--engine", b, "name=B"),
        *("--each", "ponder", *each, "--games", "2", "--debug"),
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    for game in games:
        check_result(game)
    lines = traffic(tmp_path / "m")
    exchanges = ponder_exchanges(lines)
    for e in exchanges:
        check_exchange(e)
    return games, lines, exchanges


def test_a_match_with_ponder_plays_to_the_end_and_the_traffic_shows_it(tmp_path: Path) -> None:
    games, lines, exchanges = pondering_match(tmp_path, ALTERNATE, ALTERNATE, "depth=1")
    assert all("warnings" not in game for game in games)
    for name in ("A", "B"):  # set once, after the handshake
        assert [t for _, n, a, t in lines if n == name and "Ponder value" in t] == [
            "setoption name Ponder value true"
        ]
    assert {e["end"] for e in exchanges} == {"ponderhit", "stop"}
    # Every game's last ponder search was stopped: the game ended during it.
    assert sum(not e["went_on"] and e["end"] == "stop" for e in exchanges) == 2


def test_the_builtin_engine_ponders(tmp_path: Path) -> None:
    games, _, exchanges = pondering_match(
        tmp_path, "cmd=zengine", "cmd=zengine", "depth=2", "--maxplies", "30"
    )
    for game in games:
        assert all(score is not None for score in game["scores"])
    assert exchanges


def test_after_a_ponder_hit_the_clock_runs_from_ponderhit(tmp_path: Path) -> None:
    # A always guesses B's move (the first legal one) and answers 300 ms after ponderhit; B
    # thinks 800 ms a move. Charged from 'go ponder', A's moves would cost 1100 ms or more.
    result, games, _ = run(
        tmp_path,
        *("--engine", fake("--ponder", "first", "--ponderhit-delay", "300"), "name=A", "ponder"),
        *("--engine", fake("--first", "--delay", "800"), "name=B"),
        *("--each", "tc=60", "--games", "1", "--maxplies", "9", "--debug"),
    )
    assert result.reason is ExitReason.COMPLETED
    (game,) = games
    check_result(game)
    lines = traffic(tmp_path / "m")
    exchanges = [e for e in ponder_exchanges(lines) if e["end"] == "ponderhit"]
    assert len(exchanges) == 4  # A's moves 2 to 5 (A plays plies 1, 3, 5, 7, 9)
    a_times = game["times_ms"][0::2]
    for e, charged in zip(exchanges, a_times[1:]):
        assert e["end_at"] - e["go_ponder_at"] >= 0.8  # it pondered while B thought
        assert 300 <= charged <= (e["answer_at"] - e["end_at"]) * 1000 + 1
    # The clock each 'go ponder' sends is A's clock as charged so far (60 s, no increment).
    gos = [t for _, n, a, t in lines if n == "A" and a == ">" and t.startswith("go ponder")]
    assert len(gos) == 4
    for moves_made, go in enumerate(gos, 1):
        assert f" wtime {60000 - sum(a_times[:moves_made])} " in go


def test_an_engine_without_the_option_plays_without_pondering(tmp_path: Path) -> None:
    result, games, text = run(
        tmp_path,
        *("--engine", fake(), "name=A", "--engine", fake("--first"), "name=B"),
        *("--each", "depth=1", "ponder", "--games", "2", "--debug"),
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    for name in ("A", "B"):  # said once, not once a game
        assert text.count(f"Warning: {name} has no option Ponder") == 1
    assert "Warning: A has no option Ponder: it plays without pondering" in text
    log = (tmp_path / "m" / "traffic.log").read_text()
    assert "setoption name Ponder" not in log and "go ponder" not in log


def test_a_ponder_search_that_ends_by_itself_is_a_warning(tmp_path: Path) -> None:
    # X answers 'go ponder' at once: a ponderhit would go unanswered, so it gets a 'go'. N
    # thinks 100 ms a move, so that X's early answer is there before N's move is (on a loaded
    # machine, with N answering at once, every one of a game's early answers came after it).
    result, games, _ = run(
        tmp_path,
        *("--engine", fake("--ponder", "first", "--premature"), "name=X", "ponder"),
        *("--engine", fake("--first", "--delay", "100"), "name=N"),
        *("--each", "depth=1", "--games", "2"),
    )
    assert result.reason is ExitReason.COMPLETED and len(games) == 2
    for game in games:
        check_result(game)
        (warning,) = game["warnings"]
        assert warning.startswith("X: ") and "ponder search(es) ended before 'ponderhit'" in warning


def test_an_engine_that_does_not_answer_stop_loses(tmp_path: Path) -> None:
    # X always guesses wrong (the last reply; N plays the first) and ignores the stop.
    result, games, _ = run(
        tmp_path,
        *("--engine", fake("--ponder", "last", "--deaf-stop"), "name=X", "ponder"),
        *("timeout.ready=0.5", "--engine", fake("--first"), "name=N"),
        *("--each", "depth=1", "--games", "1", "--recover"),
    )
    assert result.reason is ExitReason.COMPLETED
    (game,) = games
    assert game["result"] == ("0-1" if game["p1"] == "X" else "1-0")
    assert game["termination"] == "stalled connection"
    assert game["reason"] == "X gave no 'bestmove' after 'stop' within 0.5 s"


def ends(state: Any, move: int) -> bool:
    """Whether ``move`` ends the game."""
    state.play(move)
    over = state.outcome() is not None
    state.undo()
    return over


def test_only_a_legal_reply_that_does_not_end_the_game_is_pondered_on() -> None:
    # A game played to its end by first moves: its last move ends it.
    rules = make_rules("zola")
    state = rules.start()
    played = []
    while state.outcome() is None:
        text, move = sorted_moves(state)[0]
        state.play(move)
        played.append(text)
    state = rules.start()
    for text in played[:-1]:
        state.play(state.parse_move(text))
    mover = played[-2]
    engine = SimpleNamespace(ponders=True, name="X")
    pondering = _Pondering((engine, engine))  # type: ignore[arg-type]

    def expected(reply: str) -> str | None:
        pondering.expect(0, state, ["bestmove", mover, "ponder", reply])
        return pondering.expected[0]

    assert expected(played[-1]) is None  # it would end the game
    other = next(t for t, m in sorted_moves(state) if not ends(state, m))
    assert expected(other.upper()) == other  # read leniently, kept canonical
    assert expected("(none)") is None and pondering.warnings == []
    assert expected("zz9") is None
    assert pondering.warnings == [
        f"X: ponder move 'zz9' is not legal after '{mover}' (not pondered on)"
    ]
    engine.ponders = False  # an engine that does not ponder names replies in vain
    assert expected(other) is None
