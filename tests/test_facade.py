"""The protocol-agnostic engine facade: game, position, history, options, search worker."""

from __future__ import annotations

import threading
import weakref

import pytest

from zengine.engine import facade
from zengine.engine.facade import (
    BadOptionSyntax,
    BadOptionValue,
    Busy,
    CannotUndo,
    Engine,
    UnknownOption,
    options,
    pv_texts,
)
from zengine.engine.game import IllegalMoveError, InvalidMoveError, PositionError, UnknownGameError
from zengine.engine.perft import divide, perft
from zengine.engine.search import MAX_DEPTH
from zengine.engine.values import GoLimits, Info
from zengine.engine.variants import make_rules, variant_names

#: The variants as users know them (the registry's order), written out independently of it.
VARIANTS = ("zola", "zola-8", "zola-10", "zhadu", "zhadu-star")


def test_options_list_every_variant() -> None:
    variant = options()[0]
    assert (variant.name, variant.kind, variant.default) == ("UCI_Variant", "combo", "zola")
    assert variant.choices == VARIANTS
    for name in variant.choices:
        engine = Engine()
        engine.set_option("UCI_Variant", name.upper())
        assert engine.rules.name == name


@pytest.mark.parametrize(
    "value,error",
    [
        ("\u0661", BadOptionSyntax),  # an Arabic-Indic digit is no number here
        ("１６", BadOptionSyntax),  # nor are fullwidth digits
        ("1.5", BadOptionSyntax),
        ("9" * 5000, BadOptionValue),  # a clean range error, however long
        ("-" + "9" * 5000, BadOptionValue),
    ],
)
def test_spin_values_are_ascii_numbers_in_range(value: str, error: type) -> None:
    engine = Engine()
    with pytest.raises(error):
        engine.set_option("Hash", value)
    assert engine.option_value("Hash") == 16


def test_history_counts_position_moves_and_played_moves() -> None:
    engine = Engine()
    engine.set_position(None, ["a1xa2", "b1xa2"])
    engine.play(["c1xc2"])
    assert engine.state.history_length == 3
    with pytest.raises(CannotUndo):
        engine.undo(4)
    engine.undo(3)
    assert engine.position_text() == make_rules("zola").start().position_text()


def test_failed_changes_change_nothing() -> None:
    engine = Engine()
    engine.play(["a1xa2"])
    before = (engine.position_text(), engine.state.history_length, engine.rules)
    for call, error in [
        (lambda: engine.play(["b1xa2", "b1xa2"]), IllegalMoveError),
        (lambda: engine.setup("go"), UnknownGameError),
        (lambda: engine.set_option("Hash", "0"), BadOptionValue),
        (lambda: engine.set_option("Hash", "x"), BadOptionSyntax),
        (lambda: engine.set_option("Hash", None), BadOptionSyntax),
        (lambda: engine.set_option("Nope", "1"), UnknownOption),
        (lambda: engine.set_option("UCI_Variant", "chess"), BadOptionValue),
    ]:
        with pytest.raises(error):
            call()
        assert (engine.position_text(), engine.state.history_length, engine.rules) == before


@pytest.mark.parametrize(
    "fen,moves,error",
    [
        (None, ["a1xa2", "zz"], InvalidMoveError),
        (None, ["a1xa2", "a1xa2"], IllegalMoveError),
        ("6/6 r", [], PositionError),
        ("6/6/6/6/6/r\u0665 b", [], PositionError),
    ],
)
def test_a_failed_position_leaves_none(fen: str | None, moves: list[str], error: type) -> None:
    engine = Engine("zola-8")
    engine.set_option("Hash", "2")
    engine.play(["a1xa2"])
    with pytest.raises(error):
        engine.set_position(fen, moves)
    assert engine.state is None and not engine.has_position
    assert (engine.is_over(), engine.result(), engine.side_to_move()) == (True, "none", "p1")
    assert not engine.is_legal("a2xa3")
    for call in (
        engine.legal_moves,
        engine.position_text,
        engine.diagram,
        lambda: engine.play(["a2xa3"]),
        lambda: engine.undo(1),
        lambda: engine.perft(1, lambda text, count: None, lambda total, note: None),
    ):
        with pytest.raises(PositionError, match="no position"):
            call()
    done: list[str | None] = []
    engine.go(GoLimits(depth=3, searchmoves=("zz",)), lambda info: None, done.append)
    assert done == [None] and not engine.searching
    assert engine.rules.name == "zola-8" and engine.option_value("Hash") == 2
    engine.set_position(None, ["a1xa2"])
    assert engine.has_position and engine.state.history_length == 1


def test_a_busy_engine_keeps_its_position() -> None:
    engine = Engine()
    engine.go(GoLimits(infinite=True), lambda info: None, lambda best: None)
    for call in (lambda: engine.set_position(None, ["zz"]), engine.clear_position):
        with pytest.raises(Busy):
            call()
    engine.stop()
    assert engine.has_position


def test_the_history_is_capped(monkeypatch) -> None:
    monkeypatch.setattr(facade, "MAX_HISTORY", 4)
    engine = Engine()
    moves = ["a1xa2", "b1xa2", "c1xc2", "d1xc2"]
    engine.set_position(None, moves)
    with pytest.raises(PositionError, match="at most 4 plies"):
        engine.play(["e1xe2"])
    assert engine.state.history_length == 4  # the move that failed changed nothing
    engine.undo(1)
    engine.play(["d1xc2"])
    with pytest.raises(PositionError, match="at most 4 plies"):
        engine.set_position(None, [*moves, "e1xe2"])
    assert not engine.has_position
    engine.set_position(engine.rules.start().position_text(), moves)
    assert engine.state.history_length == 4


def test_the_history_is_compact_and_given_back() -> None:
    """The facade keeps the history's moves as 8-byte ints (not the texts the client sent, which
    held ~60 bytes a ply), and drops the old game's at once on a new game or position."""
    engine = Engine("zhadu")
    texts = "1@a0 1@h0 2@a1 2@h1 3@a2 3@h2 4@a3 4@h3 123@b0 123@g0 b0-b1 g0-g1".split()
    engine.set_position(None, texts)
    state = make_rules("zhadu").start()
    moves = []
    for text in texts:
        moves.append(state.parse_move(text))
        state.play(moves[-1])
    history = engine._history
    assert list(history) == moves and history.itemsize == 8
    old = weakref.ref(engine.state)
    engine.new_game()
    assert old() is None and len(engine._history) == 0


def test_pv_texts_stop_at_the_first_illegal_move() -> None:
    state = make_rules("zola").start()
    a, b = state.parse_move("a1xa2"), state.parse_move("b2xb3")
    assert pv_texts(state, [a, a, b]) == ["a1xa2"]
    assert state.history_length == 0


def run_search(engine: Engine, limits: GoLimits) -> tuple[list[Info], list[str | None], bool]:
    """Start a search; its infos, its bestmoves, and ``searching`` seen right after the bestmove."""
    infos: list[Info] = []
    done: list[str | None] = []
    reported = threading.Event()

    def on_done(best: str | None) -> None:
        done.append(best)
        reported.set()

    engine.go(limits, infos.append, on_done)
    assert reported.wait(60)
    # a client that has read the bestmove must find the engine idle
    searching_after = engine.searching
    engine.wait()
    return infos, done, searching_after


@pytest.mark.parametrize("variant", variant_names())
def test_search_reports_once_and_leaves_the_position(variant: str) -> None:
    engine = Engine(variant)
    before = engine.position_text()
    infos, done, searching_after = run_search(engine, GoLimits(depth=2))
    assert len(done) == 1 and done[0] in engine.legal_moves()
    assert [info.depth for info in infos] == [1, 2] and all(info.pv for info in infos)
    assert infos[-1].pv[0] == done[0]
    assert not searching_after and engine.position_text() == before


def test_busy_while_searching_and_stop_waits() -> None:
    engine = Engine()
    done: list[str | None] = []
    engine.go(GoLimits(infinite=True), lambda info: None, done.append)
    assert engine.searching and engine.search_unbounded
    for call in (
        lambda: engine.play(["a1xa2"]),
        lambda: engine.setup("zhadu"),
        lambda: engine.set_option("Hash", "2"),
        lambda: engine.undo(1),
        lambda: engine.new_game(),
        lambda: engine.perft(1, lambda text, count: None, lambda total, note: None),
        lambda: engine.bench(1, lambda line: None, lambda note: None),
    ):
        with pytest.raises(Busy):
            call()
    assert engine.legal_moves()[0] == "a1xa2" and engine.is_legal("a1xa2")
    engine.stop()
    assert len(done) == 1 and not engine.searching


def test_finished_game_reports_none_on_the_spot() -> None:
    engine = Engine()
    engine.set_position("6/6/6/6/6/r5 b", [])
    done: list[str | None] = []
    engine.go(GoLimits(), lambda info: None, done.append)
    assert done == [None] and not engine.searching


@pytest.mark.parametrize(
    "fen,limits",
    [
        ("6/6/6/6/b5/r5 b", GoLimits(p1time=1000)),  # Blue to move: only Red's clock is given
        ("6/6/6/6/b5/r5 r", GoLimits(p2time=100_000)),  # Red to move: only Blue's clock
    ],
)
def test_the_other_sides_clock_alone_is_unbounded(fen: str, limits: GoLimits) -> None:
    engine = Engine()
    engine.set_position(fen, [])
    deepest = threading.Event()
    done: list[str | None] = []

    def on_info(info: Info) -> None:
        if info.depth == MAX_DEPTH:
            deepest.set()

    engine.go(limits, on_info, done.append)
    assert engine.search_unbounded
    # The mate is proven long before MAX_DEPTH: a bounded search would have reported by now.
    assert deepest.wait(120)
    assert engine.searching and done == []
    engine.stop()
    assert len(done) == 1 and done[0] in engine.legal_moves() and not engine.searching


def test_searchmoves_texts_restrict_the_root() -> None:
    engine = Engine()
    infos, done, _ = run_search(engine, GoLimits(depth=2, searchmoves=("F6XE6", "f6xe6")))
    assert done == ["f6xe6"] and all(info.pv[0] == "f6xe6" for info in infos)
    for texts, error in [(("a1xa2", "zz"), InvalidMoveError), (("a1xb2",), IllegalMoveError)]:
        with pytest.raises(error):
            engine.go(GoLimits(depth=1, searchmoves=texts), lambda info: None, done.append)
        assert not engine.searching and len(done) == 1


def test_bugs_are_not_read_as_rejected_input(monkeypatch) -> None:
    # Only the project's own errors mean "no": any other exception is a bug and surfaces.
    class Bug(Exception):
        pass

    def broken(*args: object) -> None:
        raise Bug("a bug")

    engine = Engine()
    monkeypatch.setattr(engine.state, "parse_move", broken)
    with pytest.raises(Bug):
        engine.is_legal("a1xa2")

    engine = Engine()
    monkeypatch.setattr(type(engine.rules), "evaluation", broken)
    with pytest.raises(Bug):
        engine.prepare()

    engine = Engine("zhadu")
    monkeypatch.setattr(type(engine.rules), "start", broken)
    with pytest.raises(Bug):
        engine.set_option("Zhadu Quiet", "50")
    assert engine.rules.options["quiet"] == "100"


@pytest.mark.parametrize("command", ["setup", "position"])
def test_the_search_is_loaded_before_the_first_go(command: str) -> None:
    # A script that sends position and go without isready must not pay the loading of the
    # search inside the go's time: setup and position load it (prepare), no clock running.
    engine = Engine()
    assert engine._searcher is None
    if command == "setup":
        engine.setup("zhadu")
    else:
        engine.set_position(None, [])
    assert engine._searcher is not None
    assert engine.searcher() is engine._searcher


def test_options_reach_the_searcher() -> None:
    engine = Engine()
    searcher = engine.searcher()
    engine.set_option("hash", "2")
    engine.set_option("SEED", "42")
    engine.set_option("Move Overhead", "77")
    assert (searcher.hash_mb, searcher.seed, searcher.overhead_ms) == (2, 42, 77)
    fresh = Engine()
    fresh.set_option("Seed", "5")
    assert fresh.searcher().seed == 5


def run_perft(engine: Engine, depth: int) -> tuple[list[tuple[str, int]], int | None, str]:
    """A perft to its end: its rows, its total and its note."""
    rows: list[tuple[str, int]] = []
    done: list[tuple[int | None, str]] = []
    engine.perft(
        depth, lambda text, count: rows.append((text, count)), lambda *end: done.append(end)
    )
    engine.wait()
    assert len(done) == 1 and not engine.searching
    return rows, *done[0]


@pytest.mark.parametrize("variant", variant_names())
def test_perft_counts_in_the_background(variant: str) -> None:
    engine = Engine(variant)
    state = make_rules(variant).start()
    rows, total, note = run_perft(engine, 3)
    assert rows == divide(state, 3) and total == perft(state, 3) and note == ""
    assert run_perft(engine, 0) == ([], 1, "")


def test_stop_ends_a_perft_and_a_bench_with_what_was_given() -> None:
    engine = Engine("zola-10")
    rows: list[tuple[str, int]] = []
    ended: list[tuple[int | None, str]] = []
    engine.perft(64, lambda text, count: rows.append((text, count)), lambda *end: ended.append(end))
    assert engine.searching and not engine.search_unbounded
    engine.stop()
    assert ended == [(None, "stopped")] and rows == [] and not engine.searching
    lines: list[str] = []
    notes: list[str] = []
    engine.bench(64, lines.append, notes.append)
    engine.stop()
    assert notes == ["stopped"] and not engine.searching
    assert not any(line.split()[1:2] == ["nodes"] for line in lines)  # no total line
    assert engine.position_text() == make_rules("zola-10").start().position_text()


def test_a_bug_in_perft_is_reported_not_hidden(monkeypatch, capsys) -> None:
    def broken(*args: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(facade, "_count", broken)
    engine = Engine()
    assert run_perft(engine, 2) == ([], None, "failed")
    assert "RuntimeError: a bug" in capsys.readouterr().err
