"""Bench: fixed positions of every variant searched to a fixed depth.

The total node count identifies the search (any change to pruning, ordering or evaluation
changes it), so every functional change to the search states it (``Bench: <nodes>``); nps
measures speed. Each position is searched from a cleared table with Hash 16 and Seed 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import click

from zengine.engine.search import Searcher
from zengine.engine.values import GoLimits
from zengine.engine.variants import make_rules, variant_names

#: Default depth: the whole bench takes roughly 5-20 s on one core of the development machine.
DEFAULT_DEPTH = 3

#: Per variant, position strings (None = the start position): start, then mid-game positions
#: from seeded random playouts and, for Zhadu, from short engine games after random setups,
#: fixed here as text.
POSITIONS: dict[str, list[str | None]] = {
    "zola": [
        None,
        "1bbb1r/rbrbb1/br1rb1/rbbbrr/brrrr1/rb2rb r",
        "2rbb1/1b2rr/r1r1bb/4b1/5r/r1b1rb r",
        "1rbrr1/4bb/bbrrbb/rbb1r1/4bb/1rr1r1 r",
    ],
    "zola-8": [
        None,
        "br2r1br/rbrbrbrb/brbrbrbr/rrrbrbb1/b1brbrbr/rbrbbrrb/br1b2br/rbrbrbrb r",
        "b1rrbrb1/rbrrbr2/br1b1br1/r1b1bb2/b2b1rr1/brrbrb1r/r1rrb1br/1brbbrrb r",
    ],
    "zola-10": [
        None,
        "brbrbrbrbr/rb1brbr1rb/brrr2bb2/2rbrr1br1/1b1rr1brb1/rbbb1rrb1r/b1rrr1brbr/r1bbrbrbbb/b1rrbrb2r/rbrbrbrbrb r",
        "br1bbrbrr1/rbrbrbrbrb/brbrbrbrbr/rbrbrbb1rb/brbrbbbrbr/rbrbr1rbrb/bbbrbrbrbr/r1rrrbrbrb/brr1brbrbr/rb2rbrbrb r",
    ],
    "zhadu": [
        None,
        "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10",
        "1b0,2a2,3a1,4a0/1h0,2h3,3e1,4g1,123h1 w -/123 2 18",
        "1a2,2a3,3f1,4e0,123a0/1h0,2g0,3h3,4b1 w 123/- 11 26",
        "1a0,2a1,4b2,123b1/1g1,3g0,123h1 w 2/3 6 26",
    ],
    "zhadu-star": [
        None,
        "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10",
        "1b0,2c1,3a1,4a0,123d1/1h0,2d0,3g3,4h2,123h1 w -/- 8 18",
        "1a1,2d1,3c0,4c1,123b2/1h1,2h2,3h0,4f3,123f2 w -/- 16 26",
        "1a2,2d1,3b0,4c1/1f1,2h3,4b1,123g2 w 3/123 7 26",
        "1a2,2d1,3a1,4d2,123b1/1f3,2g2,3e2,4h3,123h2 w -/- 16 26",
    ],
}


def bench_variant(variant: str, depth: int) -> tuple[int, float]:
    """(nodes, seconds) of searching the variant's bench positions to ``depth``."""
    rules = make_rules(variant)
    searcher = Searcher(hash_mb=16, seed=0)
    evaluate = rules.evaluation()
    nodes = 0
    elapsed = 0.0
    for text in POSITIONS.get(variant, [None]):
        state = rules.start() if text is None else rules.parse_position(text)
        searcher.clear()
        start = time.perf_counter()
        result = searcher.search(state, GoLimits(depth=depth), evaluate)
        elapsed += time.perf_counter() - start
        nodes += result.nodes
    return nodes, elapsed


def run_bench(depth: int | None = None, emit: Callable[[str], None] = print) -> tuple[int, int]:
    """Search every variant's bench positions; emit a line per variant and the total.

    Returns ``(total nodes, nps)``. The node count is deterministic for a given depth.
    """
    depth = DEFAULT_DEPTH if depth is None else depth
    total_nodes = 0
    total_time = 0.0
    for variant in variant_names():
        nodes, elapsed = bench_variant(variant, depth)
        total_nodes += nodes
        total_time += elapsed
        emit(f"{variant}: {nodes} nodes {int(nodes / elapsed) if elapsed > 0 else 0} nps")
    nps = int(total_nodes / total_time) if total_time > 0 else 0
    emit(f"{total_nodes} nodes {nps} nps")
    return total_nodes, nps


@click.command("bench")
@click.argument("depth", type=click.IntRange(min=1), required=False)
def bench_command(depth: int | None) -> None:
    """Search fixed positions of every variant to DEPTH; print nodes and nps."""
    run_bench(depth, emit=lambda line: click.echo(line))
