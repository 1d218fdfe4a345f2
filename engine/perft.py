"""Perft: count the leaf positions of the legal-move tree, the rules core's correctness oracle.

Counting is generic over the game interface; at depth 1 it uses ``State.count_moves`` (bulk
counting, no make/unmake at the leaves), at depth 2 ``State.count_replies`` (which a game may
count without making its moves). ``--jobs`` splits the root moves over processes
(:func:`zengine.engine.parallel.parallel_map`: Ctrl-C stops them all at once).
"""

from __future__ import annotations

from zengine.engine.game import State, sorted_moves
from zengine.engine.parallel import parallel_map
from zengine.engine.variants import make_rules


def perft(state: State, depth: int) -> int:
    """The number of move sequences of length ``depth`` from ``state`` (1 at depth 0)."""
    if depth <= 1:
        return 1 if depth <= 0 else state.count_moves()
    if depth == 2:
        return state.count_replies()
    total = 0
    play, undo = state.play, state.undo
    for move in state.legal_moves():
        play(move)
        total += perft(state, depth - 1)
        undo()
    return total


def divide(state: State, depth: int) -> list[tuple[str, int]]:
    """Per legal move (in code-point order of its text): the perft of ``depth - 1`` after it."""
    result = []
    for text, move in sorted_moves(state):
        state.play(move)
        result.append((text, perft(state, depth - 1)))
        state.undo()
    return result


def _divide_one(args: tuple[str, dict[str, str], str, str, int]) -> tuple[str, int]:
    variant, options, fen, text, depth = args
    state = start_state(variant, options, fen)
    state.play(state.parse_move(text))
    return text, perft(state, depth - 1)


def parallel_divide(state: State, depth: int, jobs: int) -> list[tuple[str, int]]:
    """:func:`divide` with the root moves spread over ``jobs`` processes."""
    if jobs <= 1 or depth < 3:
        return divide(state, depth)
    rules = state.rules
    fen = state.position_text()
    work = [(rules.name, rules.options, fen, text, depth) for text, _ in sorted_moves(state)]
    return parallel_map(_divide_one, work, jobs)


def start_state(variant: str, options: dict[str, str], fen: str | None) -> State:
    rules = make_rules(variant, options)
    # An empty --fen is a position string too (a wrong one), not a request for the start.
    return rules.start() if fen is None else rules.parse_position(fen)
