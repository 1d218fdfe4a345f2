"""A brute-force minimax over the game interface: the oracle for wins that the search, the
threat test (``State.threatened``) and the win detection (``State.wins_at_once``) are checked
against. It plays every move, with no pruning, so it is only for a few plies."""

from __future__ import annotations

from zengine.engine.game import State


def wins_within(state: State, plies: int, side: int) -> bool:
    """Brute force: can ``side`` force a win within ``plies`` plies?"""
    outcome = state.outcome()
    if outcome is not None:
        return outcome.winner == side
    if plies == 0:
        return False
    results = []
    for move in state.legal_moves():
        state.play(move)
        results.append(wins_within(state, plies - 1, side))
        state.undo()
        if results[-1] == (state.side_to_move == side):
            break  # one win for the mover, or one escape for the defender, decides
    return any(results) if state.side_to_move == side else all(results)


def solve_exactly(
    state: State, memo: dict[int, tuple[bool, int]] | None = None
) -> tuple[bool, int]:
    """Brute force over every move to the end of the game (only for games that always end,
    and small positions): whether the side to move wins, and in how many plies the game ends
    under best play, the winner taking the shortest way and the loser the longest."""
    if memo is None:
        memo = {}
    key = state.key
    known = memo.get(key)
    if known is not None:
        return known
    outcome = state.outcome()
    if outcome is not None:
        found = (outcome.winner == state.side_to_move, 0)
    else:
        wins: list[int] = []
        losses: list[int] = []
        for move in state.legal_moves():
            state.play(move)
            won, plies = solve_exactly(state, memo)
            state.undo()
            (losses if won else wins).append(plies + 1)
        found = (True, min(wins)) if wins else (False, max(losses))
    memo[key] = found
    return found
