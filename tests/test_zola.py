"""Zola rules core: perft tables, hand positions, the naive cross-check, and bad input."""

from __future__ import annotations

import random
import re
from pathlib import Path

import naive_zola
import perft_table
import pytest

from zengine.engine.game import (
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    legal_moves_text,
)
from zengine.engine.perft import perft
from zengine.engine.values import Result
from zengine.engine.variants import make_rules
from zengine.engine.zola import PASS, ZolaPosition, ZolaRules, ZolaState, ZolaWordState

DATA = Path(__file__).parent / "data"

#: Both forms of the rules, whichever this build runs (engine/zola_words.py): big ints and
#: machine words. Each build runs both, so the form it does not use is checked as well.
FORMS = pytest.mark.parametrize("form", [ZolaState, ZolaWordState], ids=["ints", "words"])


def in_form(state: ZolaPosition, form: type[ZolaPosition]) -> ZolaPosition:
    """The same position in the state class ``form``."""
    red, blue = state.boards
    return form(state.rules, red, blue, state.stm)  # type: ignore[call-arg]


@pytest.mark.parametrize("case", perft_table.load("zola_perft.txt"))
def test_perft_table(case: perft_table.PerftCase) -> None:
    perft_table.check(case)


@FORMS
@pytest.mark.parametrize("case", perft_table.load("zola_perft.txt"))
def test_perft_table_in_both_forms(case: perft_table.PerftCase, form: type[ZolaPosition]) -> None:
    state = in_form(case.state(), form)  # type: ignore[arg-type]
    assert perft(state, case.depth) == case.nodes


def _hand_positions():
    for line in (DATA / "zola_moves.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            variant, position, moves = (f.strip() for f in line.split("|"))
            yield pytest.param(variant, position, moves.split(), id=position)


@pytest.mark.parametrize("variant,position,expected", list(_hand_positions()))
def test_hand_positions(variant: str, position: str, expected: list[str]) -> None:
    state = make_rules(variant).parse_position(position)
    assert legal_moves_text(state) == expected


def test_start_moves_are_the_orthogonal_captures() -> None:
    state = ZolaRules(6).start()
    texts = legal_moves_text(state)
    assert len(texts) == 36 and all("x" in t for t in texts)
    assert texts[:3] == ["a1xa2", "a1xb1", "a3xa4"]
    assert len(ZolaRules(8).start().legal_moves()) == 64


def test_distance_ties_are_exact_on_8x8() -> None:
    # On 8x8, d2 = (2f-7)^2 + (2r-7)^2: d1 and e1 are both 50, c1 and a3 both 58, b1 is 74.
    rules = ZolaRules(8)
    lone = rules.parse_position("b7/8/8/8/8/8/8/3r4 r")  # a step must strictly increase d2
    assert "d1-e1" not in legal_moves_text(lone) and "d1-c1" in legal_moves_text(lone)
    state = rules.parse_position("8/8/8/8/8/8/8/1b1r4 r")
    assert "d1xb1" not in legal_moves_text(state)  # b1 is farther than d1
    state = rules.parse_position("8/8/8/8/8/8/8/1r1b4 r")
    assert "b1xd1" in legal_moves_text(state)  # d1 is nearer than b1
    state = rules.parse_position("8/8/8/8/8/b7/8/2r5 r")
    assert "c1xa3" in legal_moves_text(state)  # equal distance: a capture may keep it


def _random_positions(size: int, games: int, seed: int, form: type[ZolaPosition] | None = None):
    """Positions (as strings) from seeded random games, the finished ones included, in the
    state class ``form`` (the build's own by default)."""
    rng = random.Random(seed)
    rules = ZolaRules(size)
    for _ in range(games):
        state = rules.start() if form is None else in_form(rules.start(), form)
        while True:
            yield state.position_text(), state
            moves = state.legal_moves()
            if not moves:
                break
            state.play(rng.choice(moves))


@FORMS
@pytest.mark.parametrize("size,games", [(6, 40), (8, 20), (10, 10)])
def test_naive_generator_agrees_on_random_games(
    size: int, games: int, form: type[ZolaPosition]
) -> None:
    seen_pass = seen_end = checked = 0
    for position, state in _random_positions(size, games, seed=size, form=form):
        expected = naive_zola.legal_moves(position)
        assert legal_moves_text(state) == expected, position
        assert state.count_moves() == len(expected), position
        if expected == ["pass"]:
            seen_pass += 1
        if not expected:
            seen_end += 1
            assert state.outcome() is not None
        checked += 1
    assert checked > 1000 and seen_end == games
    if size == 6:
        assert seen_pass > 0, "the seeded games should include forced passes"


@pytest.mark.slow
@FORMS
@pytest.mark.parametrize("size", [6, 8, 10])
def test_naive_generator_agrees_on_many_random_games(size: int, form: type[ZolaPosition]) -> None:
    for position, state in _random_positions(size, 200, seed=1000 + size, form=form):
        assert legal_moves_text(state) == naive_zola.legal_moves(position), position


@pytest.mark.parametrize("size,games", [(6, 20), (8, 6), (10, 3)])
def test_both_forms_agree_move_by_move(size: int, games: int) -> None:
    # The same random games in both forms: the same moves in the same order (the search's
    # ties, hence the bench's node count, depend on it), the same keys, counts and undo.
    rng = random.Random(size)
    rules = ZolaRules(size)
    for _ in range(games):
        ints, words = in_form(rules.start(), ZolaState), in_form(rules.start(), ZolaWordState)
        played = 0
        while True:
            assert words.legal_moves() == ints.legal_moves()
            assert words.captures() == ints.captures()
            assert words.quiet_moves() == ints.quiet_moves()
            assert words.key == ints.key and words.boards == ints.boards
            assert words.count_moves() == ints.count_moves()
            assert words.count_replies() == ints.count_replies()
            assert words.outcome() == ints.outcome()
            moves = ints.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            ints.play(move)
            words.play(move)
            played += 1
            if rng.random() < 0.2:
                ints.undo()
                words.undo()
                played -= 1
                assert words.key == ints.key and words.boards == ints.boards
        assert words.history_length == ints.history_length == played
        copied = words.copy()
        assert copied.key == words.key and copied.history_length == played


@pytest.mark.slow
def test_naive_perft_depth_4() -> None:
    start = ZolaRules(6).start().position_text()
    assert naive_zola.perft(start, 4) == 1659272


def test_forced_pass() -> None:
    # Red's only checker is in a corner (no farther square) with no enemy on its lines.
    state = ZolaRules(6).parse_position("4b1/6/6/6/6/r5 r")
    assert legal_moves_text(state) == ["pass"]
    assert state.parse_move("PASS") == PASS
    state.play(PASS)
    assert state.side_to_move == 1 and state.outcome() is None
    with pytest.raises(IllegalMoveError, match="pass"):
        ZolaRules(6).start().parse_move("pass")


@pytest.mark.parametrize("size", [6, 8, 10])
def test_games_always_end_with_a_winner(size: int) -> None:
    rng = random.Random(size)
    for _ in range(5):
        state = ZolaRules(size).start()
        plies = 0
        while state.legal_moves():
            state.play(rng.choice(state.legal_moves()))
            plies += 1
            assert plies < 10_000
        assert state.outcome() is not None and state.outcome().result in (
            Result.P1_WIN,
            Result.P2_WIN,
        )
        loser = 1 - state.outcome().winner
        assert state.checkers(loser) == 0 and state.checkers(1 - loser) != 0


@pytest.mark.parametrize(
    "text,match",
    [
        ("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr r", "board size"),  # 5 ranks: odd
        ("brbr/rbrb/brbr/rbrb r", "board size"),  # 4x4: unsupported
        ("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbr r", "rank 1 has 5 squares"),  # ragged
        ("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrbr r", "rank 1"),  # too long
        ("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrq r", "unknown character 'q'"),
        ("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb", "2 fields"),
        ("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb r x", "2 fields"),
        ("brbrbr/rbrbrb/brbrbr/rbrbrb/brbrbr/rbrbrb w", "side to move"),
        ("6/6/6/6/6/6 r", "empty"),
        ("6/6/6/6/6/06 r", "empty-square count"),
        ("6/6/6/6/6/7 r", "empty-square count"),
        ("rrrrrr/rrrrrr/rrrrrr/rrrrrr/6/6 r", "at most 18"),
        ("8/8/8/8/8/8/8/rb6 r", "8x8 board"),  # an 8x8 string for a 6x6 game
        ("", "2 fields"),
        # numbers are ASCII digits only: another script's digit is an unknown character
        ("²r3r/6/6/6/6/r5 r", "unknown character '²' in rank 6"),  # int() rejects it
        ("٦/6/6/6/6/r4b r", "unknown character '٦' in rank 6"),  # int() reads it as 6
        ("6/6/6/6/6/r４b r", "unknown character '４' in rank 1"),  # fullwidth
        ("6/6/6/6/6/r5 ｒ", "side to move must be 'r' or 'b', got 'ｒ'"),
        ("6/6/6/6/6/r" + "9" * 5000 + " r", "bad empty-square count '9999999...' in rank 1"),
        ("6/6/6/6/6/rР4b r", "unknown character 'Р' in rank 1"),  # a Cyrillic capital
    ],
)
def test_bad_position_strings(text: str, match: str) -> None:
    with pytest.raises(PositionError, match=match):
        ZolaRules(6).parse_position(text)


def _documented_rejections() -> list[tuple[str, str]]:
    """``(string, message)`` of the rows of docs/zola.md's table of rejected position strings
    that give a literal string for the 6x6 game."""
    page = (Path(__file__).parents[1] / "docs" / "zola.md").read_text()
    table = page.split("A position string is rejected", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\|[^|]*\| `([^`]+)`(?: in a 6x6 game)? \| (.+) \|$", table, re.M)
    assert len(rows) >= 8, "the table of rejected position strings is gone from docs/zola.md"
    return rows


@pytest.mark.parametrize("text,message", _documented_rejections())
def test_documented_rejections(text: str, message: str) -> None:
    with pytest.raises(PositionError) as caught:
        ZolaRules(6).parse_position(text)
    assert str(caught.value) == message


def test_position_strings_are_case_insensitive() -> None:
    rules = ZolaRules(6)
    state = rules.parse_position("6/6/1B4/6/6/R5 B")
    assert state.position_text() == "6/6/1b4/6/6/r5 b"
    assert state.key == rules.parse_position("6/6/1b4/6/6/r5 b").key


def test_position_strings_round_trip_on_every_size() -> None:
    for size in (6, 8, 10):
        state = ZolaRules(size).start()
        text = state.position_text()
        assert ZolaRules(size).parse_position(text).key == state.key
    ten = ZolaRules(10).parse_position("10/10/10/10/10/10/10/10/10/r8b b")
    assert ten.position_text() == "10/10/10/10/10/10/10/10/10/r8b b"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a",
        "a1",
        "a1-",
        "a1--a2",
        "a1-a2-a3",
        "a1+a2",
        "z1-a2",
        "a7-a6",
        "g1-f1",
        "a0-a1",
        "a01-a2",
        "passs",
        "1a-2a",
        "é1-a2",
        "a١xa٢",  # Arabic-Indic digits (int() would read a1xa2)
        "a1xa２",  # a fullwidth digit
        "a¹xa²",
        "a1xа2",  # a Cyrillic a
        "a1xa2\u200b",  # a zero-width space is no whitespace
        "a1 xa2",
        "a1xa" + "2" * 5000,
    ],
)
def test_bad_move_syntax(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        ZolaRules(6).start().parse_move(text)


def test_lenient_move_input_and_illegal_moves() -> None:
    state = ZolaRules(6).start()
    capture = state.parse_move("a1xa2")
    for text in ("A1XA2", "a1a2", "a1-a2", " a1xa2 "):
        assert state.parse_move(text) == capture
    assert state.move_text(capture) == "a1xa2"
    for text in ("a1-b2", "a1xb2", "a1-a1", "a1xa3", "a2xa3", "pass"):
        with pytest.raises(IllegalMoveError):
            state.parse_move(text)
    over = ZolaRules(6).parse_position("6/6/6/6/6/r5 b")
    assert over.outcome().result is Result.P1_WIN and over.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="over"):
        over.parse_move("a1-b2")
