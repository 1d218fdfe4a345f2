"""bestmove is always the first move of the last ``info ... pv`` printed before it.

Checked in every variant over many positions and limits (node limits that abort iterations at
many different points, depths, short move times, a stop while searching): in the search itself
(``on_info`` and the result) and on the protocol's output lines.
"""

from __future__ import annotations

import random
import threading

import pytest

from zengine.engine.game import State
from zengine.engine.search import Searcher, SearchInfo
from zengine.engine.values import GoLimits
from zengine.engine.variants import make_rules, variant_names
from zengine.protocol.session import Session


def positions(variant: str, count: int, seed: int = 7) -> list[State]:
    """The start and positions after seeded random plies (games not over)."""
    rng = random.Random(f"{variant}-{seed}")
    rules = make_rules(variant)
    found = [rules.start()]
    while len(found) < count:
        state = rules.start()
        for _ in range(rng.randrange(2, 30)):
            if state.is_over():
                break
            state.play(rng.choice(state.legal_moves()))
        if not state.is_over():
            found.append(state)
    return found


def check_search(searcher: Searcher, state: State, limits: GoLimits, **options) -> int:
    """Search; assert the result is the last reported pv's first move; the depth reported."""
    infos: list[SearchInfo] = []
    before = state.position_text()
    result = searcher.search(
        state, limits, state.rules.evaluation(), on_info=infos.append, **options
    )
    assert state.position_text() == before
    assert infos, "no info before the best move"
    assert result.best == infos[-1].pv[0], f"{limits}: best is not the last pv's first move"
    assert result.best in state.legal_moves()
    return infos[-1].depth


#: Nodes a first search of a position may take; the node limits then fall inside its last
#: completed iteration (or inside depth 2 if only depth 1 completes within it).
NODE_BUDGET = 4000
#: Node limits per position, evenly spaced inside that iteration.
POINTS = 6


@pytest.mark.parametrize("variant", variant_names())
def test_node_limits_abort_an_iteration_anywhere(variant: str) -> None:
    """From a cleared table a node-limited search is deterministic: limits spread over one
    iteration of it abort that iteration at every stage of its root moves (before, after and
    while a new best move is found)."""
    for state in positions(variant, 3):
        infos: list[SearchInfo] = []
        evaluate = state.rules.evaluation()
        Searcher(hash_mb=1).search(
            state, GoLimits(nodes=NODE_BUDGET), evaluate, on_info=infos.append
        )
        ends = [info.nodes for info in infos]
        low, high = (ends[-2], ends[-1]) if len(ends) >= 2 else (ends[0], NODE_BUDGET)
        for point in range(1, POINTS + 1):
            nodes = low + (high - low) * point // (POINTS + 1)
            check_search(Searcher(hash_mb=1), state, GoLimits(nodes=nodes))


@pytest.mark.parametrize("variant", variant_names())
def test_depths_move_times_and_stops(variant: str) -> None:
    searcher = Searcher(hash_mb=1, overhead_ms=0)
    for state in positions(variant, 3, seed=11):
        for depth in (1, 2):
            check_search(searcher, state, GoLimits(depth=depth))
        for movetime in (0, 3, 15):
            check_search(searcher, state, GoLimits(movetime=movetime))
        check_search(searcher, state, GoLimits(p1time=200, p2time=200, p1inc=5, p2inc=5))
        # A stop set from another thread while the search runs (wherever it happens to be).
        stop = threading.Event()
        timer = threading.Timer(0.01, stop.set)
        timer.start()
        try:
            check_search(searcher, state, GoLimits(infinite=True), stop=stop)
        finally:
            timer.cancel()


def protocol_lines(variant: str, commands: list[str]) -> list[str]:
    """The output of a session given ``commands`` (each ``go`` waited for before the next)."""
    lines: list[str] = []
    session = Session(lines.extend)
    session.handle(f"setup {variant}")
    for command in commands:
        session.handle(command)
        session.engine.wait()
    session.finish()
    return lines


@pytest.mark.parametrize("variant", variant_names())
def test_protocol_bestmove_is_the_last_pv_first_move(variant: str) -> None:
    rng = random.Random(variant)
    rules = make_rules(variant)
    commands: list[str] = []
    for _ in range(3):
        state = rules.start()
        texts = []
        for _ in range(rng.randrange(0, 20)):
            if state.is_over():
                break
            move = rng.choice(state.legal_moves())
            texts.append(state.move_text(move))
            state.play(move)
        if state.is_over():
            continue
        commands.append("position startpos" + (" moves " + " ".join(texts) if texts else ""))
        commands += [f"go nodes {rng.randrange(50, 3000)}", "go depth 2", "go movetime 5"]
    lines = protocol_lines(variant, commands)
    searches = 0
    last_pv: str | None = None
    for line in lines:
        words = line.split()
        assert words[0] in ("info", "bestmove"), line
        if words[0] == "info":
            last_pv = words[words.index("pv") + 1]
        else:
            assert last_pv is not None and words[1] == last_pv, line
            last_pv = None
            searches += 1
    assert searches == sum(1 for c in commands if c.startswith("go"))


def test_the_reported_case() -> None:
    """The integrator's position: depth 4 was cut by the node limit after a new best move was
    found, and bestmove a4xb5 followed the depth-3 line ``pv f4xe5``."""
    moves = (
        "c1xd1 c4xc3 a3xa4 e2xd2 f2xf3 d3-e2 b6xc6 b1xb2 a1xa2 c2-b1 a2xb1 e2-f2 e1xf2 d2-e1 "
        "f2xe1 e6xe5 f6xf5 e4xd4 b1xb2 b3-a2"
    )
    lines = protocol_lines("zola", [f"position startpos moves {moves}", "go nodes 10000"])
    info = [line for line in lines if line.startswith("info")]
    assert lines[-1].startswith("bestmove")
    assert lines[-1].split()[1] == info[-1].split(" pv ")[1].split()[0]
