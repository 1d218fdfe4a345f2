"""Bench: fixed positions of every variant searched to a fixed depth.

The total node count identifies the search (any change to pruning, ordering or evaluation
changes it), so every functional change to the search states it (``Bench: <nodes>``); nps
measures speed. Each position is searched from a cleared table with Hash 16 and Seed 0. The
positions are the games' own (``Rules.BENCH_POSITIONS``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from zengine.engine.search import Searcher
from zengine.engine.values import GoLimits
from zengine.engine.variants import make_rules, variant_names

#: Default depth: the whole bench takes roughly 5-20 s on one core of the development machine.
DEFAULT_DEPTH = 3


def bench_variant(
    variant: str, depth: int, stop: threading.Event | None = None
) -> tuple[int, float]:
    """(nodes, seconds) of searching the variant's bench positions to ``depth``; once ``stop``
    is set, the search under way ends early and no other starts."""
    rules = make_rules(variant)
    searcher = Searcher(hash_mb=16, seed=0)
    evaluate = rules.evaluation()
    nodes = 0
    elapsed = 0.0
    for state in rules.bench_states():
        if stop is not None and stop.is_set():
            break
        searcher.clear()
        start = time.perf_counter()
        result = searcher.search(state, GoLimits(depth=depth), evaluate, stop=stop)
        elapsed += time.perf_counter() - start
        nodes += result.nodes
    return nodes, elapsed


def run_bench(
    depth: int | None = None,
    emit: Callable[[str], None] = print,
    stop: threading.Event | None = None,
) -> tuple[int, int] | None:
    """Search every variant's bench positions; emit a line per variant and the total.

    Returns ``(total nodes, nps)``. The node count is deterministic for a given depth. Once
    ``stop`` is set (the protocol's ``stop``) it returns None at once, with no line for the
    variant under way and no total.
    """
    depth = DEFAULT_DEPTH if depth is None else depth
    total_nodes = 0
    total_time = 0.0
    for variant in variant_names():
        nodes, elapsed = bench_variant(variant, depth, stop)
        if stop is not None and stop.is_set():
            return None
        total_nodes += nodes
        total_time += elapsed
        emit(f"{variant}: {nodes} nodes {int(nodes / elapsed) if elapsed > 0 else 0} nps")
    nps = int(total_nodes / total_time) if total_time > 0 else 0
    emit(f"{total_nodes} nodes {nps} nps")
    return total_nodes, nps
