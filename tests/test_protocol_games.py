"""A whole game of every variant played through the command, checked ply by ply against the
rules core: legal moves, position string, side to move, game over and result."""

from __future__ import annotations

import random

import pytest
from test_protocol_helpers import Pipe

from zengine.engine.game import legal_moves_text
from zengine.engine.variants import make_rules, variant_names

#: Zhadu games end by the quiet rule at the latest; a short limit keeps random games short.
RULES = {"zhadu": {"quiet": "30"}, "zhadu-star": {"quiet": "30"}}


def check_position(engine: Pipe, state) -> None:
    """The engine's view of the position equals the rules core's."""
    assert engine.ask("legalmoves") == " ".join(["legalmoves", *legal_moves_text(state)])
    assert engine.ask("query fen") == f"response {state.position_text()}"
    assert (
        engine.ask("query p1turn") == f"response {'true' if state.side_to_move == 0 else 'false'}"
    )
    outcome = state.outcome()
    assert engine.ask("query gameover") == f"response {'true' if outcome else 'false'}"
    assert engine.ask("query result") == f"response {outcome.result.value if outcome else 'none'}"


@pytest.mark.parametrize("variant", variant_names())
def test_whole_game(variant: str) -> None:
    rng = random.Random(f"game {variant}")
    rules_options = RULES.get(variant, {})
    rules = make_rules(variant, rules_options)
    state = rules.start()
    engine = Pipe()
    setup = " ".join([variant, *(f"{k} {v}" for k, v in rules_options.items())])
    engine.send(f"setup {setup}", "ucinewgame")
    played: list[str] = []
    while not state.is_over():
        check_position(engine, state)
        if state.side_to_move == 0:
            engine.send("go nodes 200")
            reply = engine.until("bestmove ")
            assert reply[0].startswith("info depth ")
            move = reply[-1].split()[1]
            assert move in legal_moves_text(state)
        else:
            move = rng.choice(legal_moves_text(state))
        state.play(state.parse_move(move))
        played.append(move)
        if len(played) % 7 == 0:
            # the same position by another road: the start position and every move so far
            engine.send(f"position startpos moves {' '.join(played)}")
        elif len(played) % 11 == 0:
            engine.send(f"move {move}", "undo", f"play {move}")
        else:
            engine.send(f"move {move}")
        assert len(played) < 3000, "the game does not end"
    check_position(engine, state)
    assert engine.ask("go depth 3") == "bestmove (none)"
    assert engine.ask(f"query islegal {played[-1]}") == "response false"
    assert engine.ask(f"move {played[-1]}").startswith("error illegal-move ")
    engine.send("d")
    lines = engine.until("result ")
    assert lines[-3:] == [
        f"fen {state.position_text()}",
        f"turn {'p1' if state.side_to_move == 0 else 'p2'}",
        f"result {state.outcome().result.value}",
    ]
    assert engine.close() == (0, b"")
