"""The timing around a search: the clock counts from the go, the garbage collector waits.

No test here looks at a clock: time limits are made to have passed long ago or to lie far
ahead, and the collector's state is read from inside the search.
"""

from __future__ import annotations

import gc
import threading
import time

import pytest

from zengine.engine.facade import Engine
from zengine.engine.search import Searcher, SearchInfo
from zengine.engine.values import GoLimits, Info
from zengine.engine.variants import make_rules
from zengine.protocol.session import Session


def test_the_time_limits_count_from_the_given_start() -> None:
    state = make_rules("zola").start()
    evaluate = state.rules.evaluation()
    limits = GoLimits(movetime=60_000, nodes=3_000)
    long_ago = time.perf_counter() - 3_600
    result = Searcher().search(state, limits, evaluate, start=long_ago)
    assert result.depth == 1  # the minute was spent before the search began: depth 1 only
    assert result.best in state.legal_moves()
    # ... and past the time limit depth 1 hurries: its leaves lose their quiescence.
    full = Searcher().search(state, GoLimits(depth=1), evaluate)
    assert result.nodes < full.nodes
    far_ahead = time.perf_counter() + 3_600
    result = Searcher().search(state, limits, evaluate, start=far_ahead)
    assert result.nodes == 3_000  # the time never runs out: the node limit ends it


def run_go(engine: Engine, limits: GoLimits) -> tuple[list[bool], list[str | None]]:
    """A search through the facade; whether the collector was enabled at each info line."""
    during: list[bool] = []
    done: list[str | None] = []
    reported = threading.Event()

    def on_info(info: Info) -> None:
        during.append(gc.isenabled())

    def on_done(best: str | None) -> None:
        during.append(gc.isenabled())
        done.append(best)
        reported.set()

    engine.go(limits, on_info, on_done)
    assert reported.wait(60)
    engine.wait()
    return during, done


@pytest.fixture
def collector_state():
    """Restores the collector's state after the test, whatever it did."""
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_waits_for_the_bestmove(collector_state) -> None:
    engine = Engine("zhadu")
    gc.enable()
    during, done = run_go(engine, GoLimits(depth=3))
    assert len(done) == 1 and during and not any(during)
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled(collector_state) -> None:
    engine = Engine()
    gc.disable()
    during, done = run_go(engine, GoLimits(depth=2))
    assert len(done) == 1 and not any(during)
    assert not gc.isenabled()


def test_debug_tells_the_time_from_the_go() -> None:
    lines: list[str] = []
    session = Session(lines.extend)
    session.handle("debug on")
    session.handle("go depth 2")
    session.engine.wait()
    done = [line for line in lines if "search done" in line]
    assert len(done) == 1
    words = done[0].split()
    assert words[words.index("time") + 2] == "ms" and float(words[words.index("time") + 1]) >= 0
    assert words[words.index("latency") + 2] == "ms"
    assert lines[-1].startswith("bestmove")


def test_search_info_time_is_from_the_start() -> None:
    state = make_rules("zola").start()
    infos: list[SearchInfo] = []
    hour_ago = time.perf_counter() - 3_600
    Searcher().search(
        state, GoLimits(depth=1), state.rules.evaluation(), on_info=infos.append, start=hour_ago
    )
    assert infos[0].time_ms >= 3_600_000


def test_a_stall_is_measured_and_kept_back_from_later_limits() -> None:
    """A search whose thread sleeps 50 ms (as a busy machine would make it wait) measures a
    stall of at least that; the next searches keep it back from their time limits."""
    state = make_rules("zola").start()
    evaluate = state.rules.evaluation()
    slept: list[bool] = []

    def sleepy(position) -> int:
        if not slept:
            slept.append(True)
            time.sleep(0.05)
        return evaluate(position)

    searcher = Searcher(overhead_ms=0)
    searcher.search(state, GoLimits(depth=2), sleepy)
    assert searcher.stall_ms >= 50
    # A huge stall margin leaves no time: depth 1 only, though the node limit is far off.
    searcher.stall_ms = 1e9
    result = searcher.search(state, GoLimits(movetime=60_000, nodes=5_000), evaluate)
    assert result.depth == 1 and result.nodes < 5_000
    assert searcher.stall_ms < 1e9  # from the stalls measured, this search's included


def test_the_latency_is_learnt_from_the_clocks_of_one_game() -> None:
    """The clock of the next go of the same side tells what the last move cost in all; the
    part beyond the search's own time is a latency sample. Another game's clock is none."""
    state = make_rules("zola").start()
    evaluate = state.rules.evaluation()
    searcher = Searcher(overhead_ms=0)
    searcher.search(state, GoLimits(depth=1, p1time=5_000, p2time=5_000), evaluate)
    assert len(searcher.latencies) == 0
    searcher.search(state, GoLimits(depth=1, p1time=4_800, p2time=5_000), evaluate)
    assert len(searcher.latencies) == 1
    assert 0 <= searcher.latency_ms <= 200  # 200 ms charged, less the search's own time
    searcher.clear()  # a new game
    searcher.search(state, GoLimits(depth=1, p1time=4_700, p2time=5_000), evaluate)
    assert len(searcher.latencies) == 1
