"""What a move is made of (``State.move_squares``, ``State.move_stone``): what ``zengine gui``
asks the rules so that a click on the board makes a move, in every game."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from zengine.engine.variants import make_rules, variant_names


def clicks(state, move):
    stone = state.move_stone(move)
    return (() if stone is None else ("@" + stone,)) + state.move_squares(move)


def picture_names(state):
    root = ET.fromstring(state.svg().encode("utf-8"))
    squares = {e.get("data-square") for e in root.iter() if e.get("data-square")}
    stones = {e.get("data-stone") for e in root.iter() if "hand-stone" in e.get("class", "")}
    return squares, stones


@pytest.mark.parametrize("variant", variant_names())
def test_every_move_is_clicked_on_what_the_picture_names(variant):
    """Along random games: each legal move has its own clicks, made of squares and stones in
    hand that the picture tags; a move made of no square is the pass, alone."""
    rules = make_rules(variant)
    chooser = random.Random(variant)
    for _ in range(3):
        state = rules.start()
        for _ in range(200):
            moves = state.legal_moves()
            if not moves:
                break
            squares, stones = picture_names(state)
            seen = {}
            for move in moves:
                picked = clicks(state, move)
                assert picked not in seen, (state.move_text(move), state.move_text(seen[picked]))
                seen[picked] = move
                for name in picked:
                    if name.startswith("@"):
                        assert name[1:] in stones, (state.move_text(move), stones)
                    else:
                        assert name in squares, (state.move_text(move), name)
                if not picked:
                    assert state.move_text(move) == "pass" and len(moves) == 1
            state.play(chooser.choice(moves))


def test_the_squares_follow_the_move_text():
    zola = make_rules("zola").start()
    move = zola.parse_move("a1xa2")
    assert zola.move_squares(move) == ("a1", "a2") and zola.move_stone(move) is None
    zhadu = make_rules("zhadu").start()
    placement = zhadu.parse_move("123@b0")
    assert zhadu.move_squares(placement) == ("b0",) and zhadu.move_stone(placement) == "123"


def test_a_game_that_knows_nothing_of_it_gets_the_default(third_game):
    """The toy third game declares neither method: the default reads its move text."""
    state = make_rules("hexapawn").start()
    for move in state.legal_moves():
        text = state.move_text(move)
        assert state.move_squares(move) == (text[:2], text[3:5])
        assert state.move_stone(move) is None
