"""Generic conformance tests, run over every registered variant through the interface only.

Random playouts to the end; at every position: legal moves non-empty iff the game is not over,
unique and sorted as text, count and capture lists agree, ``is_legal_move`` agrees with them
for any int, moves and position strings round-trip, make/unmake restores position and hash,
a null move (where the game allows one) only hands over the move, and ``wins_at_once`` is a
win in one move. Position keys differ between rule sets of a game. New games get these for
free; the test game of tests/hexapawn.py runs them too, proving that the interface is all a
game needs.
"""

from __future__ import annotations

import pickle
import random

import hexapawn
import pytest
from brute_force import wins_within

from zengine.engine.game import PositionError, Rules, State, legal_moves_text, sorted_moves
from zengine.engine.values import Outcome
from zengine.engine.variants import make_rules, variant_names

#: Every registered variant and those of the test game (tests/hexapawn.py), which the
#: ``third_game`` fixture registers for each test.
VARIANTS = variant_names() + list(hexapawn.HexapawnRules.VARIANTS)
pytestmark = pytest.mark.usefixtures("third_game")
MAX_PLIES = 5000


def _snapshot(state: State) -> tuple:
    return (
        state.position_text(),
        state.key,
        state.side_to_move,
        state.outcome(),
        state.history_length,
    )


def _check_position(state: State) -> None:
    moves = state.legal_moves()
    outcome = state.outcome()
    assert bool(moves) == (outcome is None), state.position_text()
    assert state.is_over() == (outcome is not None)
    assert state.count_moves() == len(moves)
    assert state.count_replies() == State.count_replies(state), "perft 2 differs from the generic"
    texts = [state.move_text(m) for m in moves]
    assert len(set(texts)) == len(texts) == len(set(moves)), "duplicate moves"
    assert legal_moves_text(state) == sorted(texts)
    assert [m for _, m in sorted_moves(state)] == [m for _, m in sorted(zip(texts, moves))]
    assert set(state.captures()) == {m for m in moves if state.is_capture(m)}
    for move, text in zip(moves, texts):
        assert state.parse_move(text) == move
        assert state.parse_move(text.upper()) == move
    # position string round trip: same text, same hash, same moves
    text = state.position_text()
    parsed = state.rules.parse_position(text)
    assert parsed.position_text() == text
    assert parsed.key == state.key, "incremental hash differs from a fresh one"
    assert parsed.side_to_move == state.side_to_move
    if outcome is None:
        assert legal_moves_text(parsed) == sorted(texts)


def _check_is_legal_move(state: State, rng: random.Random, seen: list[int]) -> None:
    """``is_legal_move`` is exactly membership in ``legal_moves`` for any int: the legal moves,
    moves of other positions, near misses (one bit flipped) and random ints."""
    moves = state.legal_moves()
    legal = set(moves)
    candidates = list(moves)
    candidates += rng.sample(seen, min(len(seen), 20))
    candidates += [m ^ 1 << rng.randrange(24) for m in moves[:10]]
    candidates += [rng.getrandbits(rng.choice((4, 8, 12, 16, 24, 64))) for _ in range(10)]
    candidates += [0, -1, -rng.getrandbits(16), 1 << 100]
    for move in candidates:
        assert state.is_legal_move(move) == (move in legal), (state.position_text(), move)
    seen.extend(moves[:5])


def _check_move_stages(state: State) -> None:
    """``captures`` then ``quiet_moves`` are ``legal_moves`` split in two, each in the order
    ``legal_moves`` gives it (a search that tries captures first relies on both)."""
    moves = state.legal_moves()
    captures = state.captures()
    assert captures == [m for m in moves if state.is_capture(m)], state.position_text()
    assert state.quiet_moves() == [m for m in moves if not state.is_capture(m)]


def _check_undo(state: State, rng: random.Random) -> None:
    before = _snapshot(state)
    moves = state.legal_moves()
    for move in rng.sample(moves, min(len(moves), 6)):
        state.play(move)
        assert state.key != before[1] or state.position_text() == before[0]
        assert state.history_length == before[4] + 1
        state.undo()
        assert _snapshot(state) == before


def _check_null_move(state: State) -> None:
    """Where the game allows a null move, it hands over the move and nothing else: the position
    string and key are those of the same position with the other side to move, and
    ``undo_null`` restores everything."""
    if not state.null_move_allowed():
        return
    before = _snapshot(state)
    state.play_null()
    assert state.side_to_move == 1 - before[2]
    assert state.key != before[1]
    assert state.history_length == before[4]
    parsed = state.rules.parse_position(state.position_text())
    assert parsed.key == state.key, "null move: incremental hash differs from a fresh one"
    assert legal_moves_text(parsed) == legal_moves_text(state)
    state.undo_null()
    assert _snapshot(state) == before


def _check_wins_at_once(state: State) -> None:
    """``wins_at_once`` only where a legal move ends the game won by the side to move, and
    wherever one does if the game's search asks it (``win_detection``): the search scores
    such a node as won without searching it."""
    wins = not state.is_over() and wins_within(state, 1, state.side_to_move)
    if state.rules.search_parameters().win_detection:
        assert state.wins_at_once() == wins, state.position_text()
    else:
        assert not state.wins_at_once() or wins, state.position_text()


def _check_expected_moves_left(state: State) -> None:
    """``expected_moves_left`` is None (the game cannot tell) or a positive number of moves,
    and asking it changes nothing: the search plans its clock with it at every search."""
    before = _snapshot(state)
    expected = state.expected_moves_left()
    assert expected is None or (isinstance(expected, int) and expected >= 1), expected
    assert _snapshot(state) == before


def _playout(variant: str, seed: int) -> int:
    rng = random.Random(seed)
    rules = make_rules(variant)
    state = rules.start()
    start = _snapshot(state)
    plies = 0
    seen: list[int] = []
    while True:
        _check_position(state)
        _check_is_legal_move(state, rng, seen)
        _check_move_stages(state)
        _check_undo(state, rng)
        _check_null_move(state)
        _check_wins_at_once(state)
        _check_expected_moves_left(state)
        moves = state.legal_moves()
        if not moves:
            break
        state.play(rng.choice(moves))
        plies += 1
        assert plies < MAX_PLIES, f"{variant}: game did not end"
    assert isinstance(state.outcome(), Outcome)
    copy = state.copy()
    for _ in range(plies):
        state.undo()
    assert _snapshot(state) == start, "undoing the whole game does not restore the start"
    assert copy.history_length == plies and copy.is_over()
    return plies


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(3))
def test_random_playouts(variant: str, seed: int) -> None:
    assert _playout(variant, seed) > 0


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_many_random_playouts(variant: str) -> None:
    for seed in range(100, 160):
        _playout(variant, seed)


@pytest.mark.parametrize("variant", VARIANTS)
def test_copy_is_independent(variant: str) -> None:
    state = make_rules(variant).start()
    copy = state.copy()
    copy.play(copy.legal_moves()[0])
    assert state.history_length == 0 and copy.history_length == 1
    assert state.position_text() == make_rules(variant).start().position_text()


@pytest.mark.parametrize("variant", VARIANTS)
def test_states_and_rules_survive_pickling(variant: str) -> None:
    # Processes (perft --jobs, the cluster) may be handed rules and states; a compiled rules
    # core has no pickling of its own, so the games give theirs.
    rules = make_rules(variant)
    state = rules.start()
    rng = random.Random(5)
    for _ in range(14):
        moves = state.legal_moves()
        if not moves:
            break
        state.play(rng.choice(moves))
    again = pickle.loads(pickle.dumps(state))
    assert pickle.loads(pickle.dumps(rules)) == rules and again.rules == rules
    assert _snapshot(again) == _snapshot(state)
    assert again.history_length == state.history_length
    while again.history_length:
        again.undo()
        state.undo()
        assert _snapshot(again) == _snapshot(state)


@pytest.mark.parametrize("variant", VARIANTS)
def test_registry_names_round_trip(variant: str) -> None:
    rules = make_rules(variant)
    assert rules.name == variant
    assert make_rules(rules.game, rules.options) == rules
    assert make_rules(variant.upper()).name == variant


def _other_rule_sets(rules: Rules) -> list[Rules]:
    """The same game with one rule at a time set to each other value it declares (for a range:
    its ends)."""
    others = []
    for rule in type(rules).RULES:
        values = rule.choices or (str(rule.low), str(rule.high))
        for value in values:
            if value != rules.options[rule.name]:
                others.append(type(rules).from_options({**rules.options, rule.name: value}))
    return others


@pytest.mark.parametrize("variant", VARIANTS)
def test_keys_are_salted_per_rule_set(variant: str) -> None:
    # The same position string under other rules is another position for a search table.
    rules = make_rules(variant)
    compared = 0
    for seed, other in enumerate(_other_rule_sets(rules)):
        rng = random.Random(seed)
        state = rules.start()
        while not state.is_over() and state.history_length < 40:
            try:
                twin = other.parse_position(state.position_text())
            except PositionError:
                break  # a rule that changes the board (Zola's size): no shared strings
            assert twin.key != state.key, (other, state.position_text())
            compared += 1
            for move in twin.legal_moves()[:3]:
                before = twin.key
                twin.play(move)
                twin.undo()
                assert twin.key == before
            state.play(rng.choice(state.legal_moves()))
    if not compared:
        pytest.skip(f"no other rule set of {variant} reads its position strings")
