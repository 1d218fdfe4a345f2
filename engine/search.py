"""The search: iterative deepening negamax alpha-beta over the game interface.

Generic over every game: it sees only :class:`~zengine.engine.game.State` (``legal_moves``,
``is_legal_move``, ``captures``, ``capture_value``, ``play``/``undo``, ``key``, ``outcome``),
the static evaluation its caller hands it (``rules.evaluation()``) and the game's settings
(``rules.search_parameters()``).

* Principal variation search with a transposition table (a fixed-size list indexed by
  ``key & mask``, sized from Hash MB), late move reductions, reverse futility pruning near the
  horizon, mate distance pruning, an aspiration window at the root.
* Move ordering: table move (checked legal before it is played), captures by
  ``capture_value``, two killers per ply, history.
* Quiescence over ``captures()`` with stand-pat, bounded in depth.
* Scores are centipawns from the side to move; won/lost positions score ``MATE - ply`` so the
  shortest win and the longest loss are preferred; draws (the rules' own, and a repetition of a
  position on the current search path) score 0.
* Limits (:class:`~zengine.engine.values.GoLimits`, a stop event, a restricted root) are checked
  every few nodes; the node limit is exact once depth 1 is complete (depth 1 always completes).
  An unbounded search (:meth:`GoLimits.unbounded`) reports only once it is told to stop.
* MultiPV (``Searcher.multipv`` lines above 1): each iteration searches the root again for
  every further line with the first moves of the lines before it left out, each in a window of
  its own, as Stockfish does; the exclusion is at the root only, so the tree below is the
  search's own.

:class:`Searcher` keeps what outlives one search (table, killers, history); each ``search``
makes a :class:`_Search` that holds one search's state and runs it.
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, cast

from zengine.engine.endgame import (
    EndgameTables,
    after_move,
    best_line,
    table_line,
)
from zengine.engine.game import State
from zengine.engine.movepick import sort_captures, staged_moves
from zengine.engine.timeman import (
    LATENCY_WINDOW,
    STALL_WINDOW,
    budget,
    latency,
    latency_sample,
    planned_moves,
    stall_margin,
    start_iteration,
)
from zengine.engine.tt import BOUND, DEPTH, EXACT, LOWER, MOVE, SCORE, UPPER, Table
from zengine.engine.values import GoLimits, Outcome, Score

#: A game's static evaluation: centipawns for the side to move.
Evaluation = Callable[[State], int]

# The constants are Final: compiled, a module name that is not is looked up in the module's
# dict at every use (a dozen lookups per node of negamax).
#: Score of a win found at the root itself; a win ``p`` plies away scores ``MATE - p``.
MATE: Final = 1_000_000
#: Scores beyond this are wins or losses, not evaluations.
MATE_BOUND: Final = MATE - 10_000
INF: Final = MATE + 1
#: The deepest iteration and search path the search ever goes to.
MAX_DEPTH: Final = 100
MAX_PLY: Final = 160
#: A mate ``p`` plies away counts as proven (a bounded search then ends) once an iteration
#: ``p + MATE_PROOF_PLIES`` deep has found it.
MATE_PROOF_PLIES: Final = 2
#: Nodes between two looks at the clock and the stop event, at first; then the interval is
#: halved (down to ``CHECK_MIN``) while more than ``CHECK_SECONDS`` pass between two looks and
#: doubled (up to ``CHECK_MAX``) while less than a quarter of it does. A node takes 12-20 us
#: on an idle core (bench: 50-86k nps), up to ~150 us in a 10x10 Zola quiescence leaf and
#: several times that on a loaded machine: a fixed 128 nodes could leave 10-40 ms between looks.
CHECK_INTERVAL: Final = 64
CHECK_MIN: Final = 8
CHECK_MAX: Final = 512
CHECK_SECONDS: Final = 0.001

#: Late move reductions, from this remaining depth on: the move index (0-based, table move
#: included) from which quiet moves and captures are reduced by a ply; quiet moves from index
#: ``LMR_DEEP_FROM`` on at depth ``LMR_DEEP_DEPTH`` or more lose a second ply.
LMR_DEPTH: Final = 3
LMR_QUIET_FROM: Final = 3
LMR_CAPTURE_FROM: Final = 5
LMR_DEEP_FROM: Final = 8
LMR_DEEP_DEPTH: Final = 5
#: With ``history_lmr``, a late quiet move whose history exceeds ``HISTORY_LMR`` depth squared
#: (it refuted several nodes as deep) is reduced a ply less.
HISTORY_LMR: Final = 4
#: Reverse futility pruning at non-PV nodes up to this depth, with this margin per ply (cp).
RFP_DEPTH: Final = 2
RFP_MARGIN: Final = 120
#: Null-move pruning at non-PV nodes from this remaining depth on, where the static evaluation is
#: at least beta and the game allows it (``State.null_move_allowed``): the opponent moving twice
#: in a row, searched ``NULL_REDUCTION`` plies shallower (one more per ``NULL_DEPTH_STEP``
#: plies of depth), still fails to reach beta.
NULL_DEPTH: Final = 2
NULL_REDUCTION: Final = 2
NULL_DEPTH_STEP: Final = 6
#: Half-width of the root's aspiration window (cp) and the first depth that uses it: scores of
#: successive iterations differ by ~20-40 cp in Zola (odd/even), so 60 rarely fails.
ASPIRATION: Final = 60
ASPIRATION_DEPTH: Final = 4

#: History counts are divided by ``2**HISTORY_AGING`` at the start of each search, so that old
#: searches count less.
HISTORY_AGING: Final = 2

#: Static evaluations remembered by position key (cleared when full, ~10 MB): a third of the
#: quiescence leaves of a Zola search are transpositions (measured at bench depth 4: 84,891
#: evaluations of 56,987 positions), and an evaluation costs ~100 dict lookups.
EVAL_CACHE_ENTRIES: Final = 1 << 16

#: The principal variation is read from the table up to this many plies beyond the depth.
PV_EXTRA_PLIES: Final = 8
#: Mixes the Seed option with the position key into the root shuffle's seed.
SEED_MIX: Final = 1_000_003


@dataclass
class SearchInfo:
    """One finished iteration: what an ``info`` line reports (moves as ints of the root)."""

    depth: int
    seldepth: int
    score: Score
    nodes: int
    nps: int
    time_ms: int
    hashfull: int | None
    pv: list[int] = field(default_factory=list)
    #: Positions found in the endgame tables (None: the search has none).
    tbhits: int | None = None
    #: The line's rank among the iteration's lines (1: the best), or None when the search
    #: reports one line per iteration (MultiPV 1: the line says nothing of it).
    multipv: int | None = None


@dataclass
class SearchResult:
    """What a search found: ``best`` is None only when the game is over."""

    best: int | None
    score: Score
    depth: int
    nodes: int
    pv: list[int] = field(default_factory=list)
    #: The time limits the search had (ms from the go; None: none), for diagnostics.
    soft_ms: int | None = None
    hard_ms: int | None = None


def score_of(value: int) -> Score:
    """The :class:`Score` of an internal score (mate distances in moves of the side to move)."""
    if value > MATE_BOUND:
        return Score(mate=(MATE - value + 1) // 2)
    if value < -MATE_BOUND:
        return Score(mate=-((MATE + value) // 2))
    return Score(cp=value)


def to_table(value: int, ply: int) -> int:
    """A score as the table keeps it: a win or loss counted from the node, not the root."""
    if value > MATE_BOUND:
        return value + ply
    if value < -MATE_BOUND:
        return value - ply
    return value


def from_table(value: int, ply: int) -> int:
    """A table score as the search at ``ply`` counts it (see :func:`to_table`)."""
    if value > MATE_BOUND:
        return value - ply
    if value < -MATE_BOUND:
        return value + ply
    return value


def reduction(
    depth: int, index: int, move: int, state: State, history: defaultdict[int, int] | None
) -> int:
    """Late move reductions: the plies by which the ``index``-th move (0-based, the table move
    included) of a node ``depth`` plies deep is searched shallower first, as moves ordered
    late rarely matter. The caller asks only from depth ``LMR_DEPTH`` and index
    ``LMR_QUIET_FROM`` on, and never for a killer or the counter move (those tests before the
    call, in the order the search always made them, saved the compiled search a generic
    comparison per move). Quiet moves lose a ply (two when deep and late, one less with a good
    ``history``, the side's when the game asks for ``history_lmr``); captures, most moves in
    Zola, only from ``LMR_CAPTURE_FROM`` on."""
    if state.is_capture(move):
        return 1 if index >= LMR_CAPTURE_FROM else 0
    plies = 2 if index >= LMR_DEEP_FROM and depth >= LMR_DEEP_DEPTH else 1
    if history is not None and history[move] > HISTORY_LMR * depth * depth:
        plies -= 1
    return plies


class RootLine:
    """One of an iteration's lines under MultiPV: its first move, score, pv and seldepth."""

    __slots__ = ("move", "pv", "seldepth", "value")

    def __init__(self, move: int, value: int, pv: list[int], seldepth: int) -> None:
        self.move = move
        self.value = value
        self.pv = pv
        self.seldepth = seldepth


class _Abort(Exception):
    """Raised inside the tree when a limit is reached; unwinds to :meth:`_Search.iterate`."""


class Searcher:
    """The search with what outlives one search: transposition table, killers, history."""

    def __init__(
        self, hash_mb: int = 16, seed: int = 0, overhead_ms: int = 30, multipv: int = 1
    ) -> None:
        #: Seeds the shuffle of the root moves (0: no shuffle, the generation order decides).
        self.seed = seed
        #: The best lines reported per iteration (the MultiPV option), each with another
        #: first move; 1 is the plain search.
        self.multipv = multipv
        #: Milliseconds kept back from every time limit (the Move Overhead option).
        self.overhead_ms = overhead_ms
        #: The longest stall of each recent search (ms): the time between two looks at the
        #: clock in which the search thread did not run (a busy machine, another thread holding
        #: the interpreter).
        self.stalls: deque[float] = deque(maxlen=STALL_WINDOW)
        #: The stall margin (ms, :func:`~zengine.engine.timeman.stall_margin` of ``stalls``):
        #: kept back from every time limit besides the Move Overhead, since a stall can as well
        #: come after the last look.
        self.stall_ms = 0.0
        #: What each recent move under a clock cost beyond the search's own time (ms), and
        #: their :func:`~zengine.engine.timeman.latency`, planned for every move to come.
        self.latencies: deque[float] = deque(maxlen=LATENCY_WINDOW)
        self.latency_ms = 0.0
        #: Per side: the clock and increment of its last search and the time that took.
        self._last_clock: list[tuple[int, int, float] | None] = [None, None]
        self._table = Table(hash_mb)
        self._evaluation: Evaluation | None = None
        self._eval_cache: dict[int, int] = {}
        self._history: list[defaultdict[int, int]] = [defaultdict(int), defaultdict(int)]
        self._killers: list[list[int | None]] = []
        self._counters: list[dict[int, int]] = [{}, {}]
        #: The endgame tables of the game searched (the TablePath option), or None.
        self.tables: EndgameTables | None = None
        self._clear_heuristics()

    def _learn_latency(self, limits: GoLimits, side: int) -> None:
        """Compare the clock of this ``go`` with the last one of the same side (see
        :func:`~zengine.engine.timeman.latency_sample`)."""
        clock = limits.clock(side)[0]
        last = self._last_clock[side]
        self._last_clock[side] = None
        if clock is None or last is None or limits.infinite:
            return
        sample = latency_sample(last[0], last[1], last[2], clock)
        if sample is not None:
            self.latencies.append(sample)
            self.latency_ms = latency(self.latencies)

    @property
    def hash_mb(self) -> int:
        """The table's size in megabytes, as last set."""
        return self._table.megabytes

    def set_hash(self, mb: int) -> None:
        """Resize (and clear) the transposition table to about ``mb`` megabytes."""
        self._table.resize(mb)
        self._clear_heuristics()

    def clear(self) -> None:
        """Forget everything learnt (a new game): table, evaluations, killers, history."""
        self._table.clear()
        self._clear_heuristics()
        self._last_clock = [None, None]  # the next clocks are another game's

    def _clear_heuristics(self) -> None:
        self._eval_cache = {}
        self._history = [defaultdict(int), defaultdict(int)]
        self._killers = [[None, None] for _ in range(MAX_PLY + 2)]
        self._counters = [{}, {}]

    def hashfull(self) -> int:
        """Per mille of the first table slots in use (the UCI convention)."""
        return self._table.hashfull()

    def search(
        self,
        state: State,
        limits: GoLimits,
        evaluate: Evaluation,
        *,
        moves: list[int] | None = None,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
        start: float | None = None,
    ) -> SearchResult:
        """Search ``state`` within ``limits``; ``state`` is left as it was given.

        ``evaluate`` is the game's static evaluation (``state.rules.evaluation()``); ``moves``
        restricts the root to those of them that are legal (all moves if none is); ``stop``
        ends the search once set, and is needed when the limits are unbounded for the side to
        move (:meth:`GoLimits.unbounded`): such a search returns only after ``stop`` is set.
        ``on_info`` is called after every completed iteration (with :attr:`multipv` above 1,
        once per line, the best first, ``multipv`` 1, 2, ...), and for an aborted one whose
        best move is played (one line only): the result's ``best`` is always the first move of
        the last best line reported. ``start`` is the :func:`time.perf_counter` time the time
        limits count from (when the ``go`` arrived; default: now). ``limits.searchmoves`` is not
        read: the caller turns move texts into ``moves``.
        """
        unbounded = limits.unbounded(state.side_to_move)
        if unbounded and stop is None:
            raise ValueError("an unbounded search needs a stop event to end it")
        if start is None:
            start = time.perf_counter()
        root_moves = state.legal_moves()
        if not root_moves:
            return SearchResult(None, Score(cp=0), 0, 0, [])
        if moves:
            wanted = set(moves)
            chosen = [m for m in root_moves if m in wanted]
            if chosen:
                root_moves = chosen
        if self.seed:
            # Equal moves are chosen by their order (the first of equals is kept): shuffling the
            # root varies the choice, reproducibly for one seed and position.
            random.Random(self.seed * SEED_MIX ^ state.key).shuffle(root_moves)
        if evaluate is not self._evaluation:
            self._eval_cache = {}  # the cached values are another evaluation's
            self._evaluation = evaluate
        # Counts aged to 0 are dropped: ordering reads the history with ``__getitem__``,
        # which adds a 0 for every move it asks about (see ``_Search.quiescence``).
        self._history = [
            defaultdict(int, {m: c >> HISTORY_AGING for m, c in h.items() if c >> HISTORY_AGING})
            for h in self._history
        ]
        self._learn_latency(limits, state.side_to_move)
        if self.tables is not None:
            exact = self._from_tables(self.tables, state, root_moves, start, on_info)
            if exact is not None:
                if unbounded:
                    assert stop is not None
                    stop.wait()
                return exact
        search = _Search(self, state, limits, evaluate, root_moves, unbounded, stop, on_info, start)
        return search.iterate()

    def _from_tables(
        self,
        tables: EndgameTables,
        state: State,
        moves: list[int],
        start: float,
        on_info: Callable[[SearchInfo], None] | None,
    ) -> SearchResult | None:
        """At a position of the endgame tables: the move that keeps the exact distance to the
        end (the shortest win, else the longest loss; the first of equals in ``moves``), its
        score as a mate and the line of the tables; None if a move leads out of them. With
        :attr:`multipv` above 1, the next best moves are reported too, each with its line."""
        hits = tables.hits
        if tables.probe(state) is None:
            return None
        ranked: list[tuple[int, int]] = []  # (score, move)
        for move in moves:
            after = after_move(tables, state, move)
            if after is None:
                return None
            plies = after + 1
            ranked.append((MATE - plies if plies & 1 else plies - MATE, move))
        # Stable: equals keep their order in ``moves`` (a higher score is a shorter win or a
        # longer loss, as the tables rank moves).
        ranked.sort(key=lambda row: -row[0])
        count = min(self.multipv, len(ranked))
        lines = [
            (value, [move, *table_line(tables, state, move)]) for value, move in ranked[:count]
        ]
        elapsed = time.perf_counter() - start
        nodes = len(moves) + 1
        if on_info is not None:
            for rank in range(count):
                value, pv = lines[rank]
                on_info(
                    SearchInfo(
                        depth=1,
                        seldepth=len(pv),
                        score=score_of(value),
                        nodes=nodes,
                        nps=int(nodes / elapsed) if elapsed > 0 else 0,
                        time_ms=int(elapsed * 1000),
                        hashfull=self.hashfull(),
                        pv=pv,
                        tbhits=tables.hits - hits,
                        multipv=rank + 1 if self.multipv > 1 else None,
                    )
                )
        value, pv = lines[0]
        return SearchResult(pv[0], score_of(value), 1, nodes, pv)


class _Search:
    """One search (one ``go``): the position, the limits, the counters and the tables it uses.

    Scores are from the side to move at the node, in centipawns; ``MATE - p`` is a win ``p``
    plies from the root (``p - MATE`` a loss), so a score beyond ``MATE_BOUND`` is a forced
    result, not an evaluation. Every method that moves about the tree leaves ``state`` as it
    found it, also when it raises :class:`_Abort`.
    """

    __slots__ = (
        "cache_leaves",
        "captures_first",
        "check_every",
        "counter_moves",
        "counters",
        "equal_captures",
        "eval_cache",
        "evaluate",
        "extend_below",
        "found_move",
        "found_value",
        "hard_s",
        "history",
        "history_lmr",
        "killers",
        "last_check",
        "last_cpu",
        "limits",
        "max_depth",
        "max_qdepth",
        "may_abort",
        "multipv",
        "next_check",
        "node_limit",
        "nodes",
        "null_child",
        "on_info",
        "path",
        "played",
        "probe",
        "ranked",
        "root_moves",
        "searcher",
        "seldepth",
        "soft_s",
        "stall",
        "start",
        "state",
        "stop",
        "stop_set",
        "table",
        "tbhits_before",
        "threat_extension",
        "times",
        "unbounded",
        "win_detection",
    )

    def __init__(
        self,
        searcher: Searcher,
        state: State,
        limits: GoLimits,
        evaluate: Evaluation,
        root_moves: list[int],
        unbounded: bool,
        stop: threading.Event | None,
        on_info: Callable[[SearchInfo], None] | None,
        start: float,
    ) -> None:
        self.searcher = searcher
        self.state = state
        self.limits = limits
        self.evaluate = evaluate
        self.eval_cache = searcher._eval_cache
        self.table = searcher._table
        self.history = searcher._history
        self.killers = searcher._killers
        self.counters = searcher._counters
        tables = searcher.tables
        #: The endgame tables' probe (None without tables): a position in them is exact.
        self.probe = None if tables is None else tables.probe
        self.tbhits_before = 0 if tables is None else tables.hits
        #: Per ply: the move that led to the node there (None after a null move or at the root).
        self.played: list[int | None] = [None] * (MAX_PLY + 2)
        #: Keys of the positions on the current search path (a repetition there is a draw).
        self.path: set[int] = set()
        #: Per ply: whether the node there follows a null move (no second one in a row).
        self.null_child = [False] * (MAX_PLY + 2)
        self.root_moves = root_moves
        #: The lines each iteration reports (MultiPV, at most one per root move), and whether
        #: they are numbered (``multipv`` i: whenever MultiPV is above 1, also for one move).
        self.multipv = max(1, min(searcher.multipv, len(root_moves)))
        self.ranked = searcher.multipv > 1
        parameters = state.rules.search_parameters()
        self.max_qdepth = parameters.quiescence_depth
        self.equal_captures = parameters.equal_captures
        self.threat_extension = parameters.threat_extension
        self.win_detection = parameters.win_detection
        self.captures_first = parameters.captures_first
        self.cache_leaves = parameters.cache_leaf_evaluations
        self.counter_moves = parameters.counter_moves
        self.history_lmr = parameters.history_lmr
        #: Threatened nodes are extended only this many plies from the root (twice the depth of
        #: the iteration), so that a chain of threats cannot deepen a search without end.
        self.extend_below = 0
        self.max_depth = MAX_DEPTH if limits.depth is None else max(1, min(limits.depth, MAX_DEPTH))
        self.node_limit = limits.nodes
        overhead = searcher.overhead_ms + round(searcher.stall_ms)
        times = budget(
            limits,
            state.side_to_move,
            overhead,
            round(searcher.latency_ms),
            planned_moves(parameters.moves_to_go, state.expected_moves_left()),
        )
        self.times = times
        self.soft_s = None if times.soft_ms is None else times.soft_ms / 1000.0
        self.hard_s = None if times.hard_ms is None else times.hard_ms / 1000.0
        self.unbounded = unbounded
        self.stop = stop
        self.stop_set: Callable[[], bool] = stop.is_set if stop is not None else (lambda: False)
        self.on_info = on_info
        self.start = start
        self.nodes = 0
        self.seldepth = 0
        #: Nodes between two looks at the limits (adapted to the time between looks).
        self.check_every = CHECK_INTERVAL
        #: Wall and thread CPU time of the last look at the clock, and the longest stall
        #: between two looks (seconds).
        self.last_check = start
        self.last_cpu = time.thread_time()
        self.stall = 0.0
        self.next_check = CHECK_INTERVAL
        #: False during depth 1, which always completes whatever the limits.
        self.may_abort = False
        #: The best root move of the iteration in progress and its score (None before the
        #: first move has beaten alpha): what an aborted iteration still has to say.
        self.found_value = 0
        self.found_move: int | None = None

    # --- iterative deepening -----------------------------------------------------------------
    def iterate(self) -> SearchResult:
        """Search to ever greater depths until a limit ends it; the best move found.

        Depth 1 always completes (past the time limit or a stop, without quiescence: see
        :meth:`check`). A later iteration cut short by a limit still counts its best root move
        if that was searched to the end and beat the previous best (which is searched first);
        it is then reported like a completed iteration, so the move played is always the first
        of the last pv reported. Each root search is in an aspiration window (:meth:`aspire`).
        A bounded search ends by itself after its limits, a forced single move under a clock,
        or a proven mate; an unbounded one reports only once ``stop`` is set, however early it
        runs out of work.

        With MultiPV (:attr:`multipv` above 1) every completed iteration reports its lines
        (:meth:`more_lines`), ranked; an iteration cut short reports nothing, and the best move
        stays the first of the last lines reported.
        """
        st = self.state
        root_moves = self.root_moves  # reordered in place by each iteration
        best_move = root_moves[0]
        best_value = 0
        completed = 0
        pv: list[int] = [best_move]
        #: With MultiPV: the lines of the last completed iteration, best first.
        lines: list[RootLine] = []
        for depth in range(1, self.max_depth + 1):
            self.may_abort = depth > 1
            if depth > 1 and self.enough_before():
                break
            self.seldepth = 0
            self.extend_below = 2 * depth
            self.next_check = self.nodes + self.check_every
            if self.may_abort and self.node_limit is not None and self.next_check > self.node_limit:
                self.next_check = self.node_limit
            try:
                value = self.aspire(depth, best_value, root_moves)
                self.table.store(st.key, depth, EXACT, value, self.found_move)
                if self.multipv > 1:
                    lines = self.more_lines(depth, value, lines)
            except _Abort:
                found = self.found_move
                if self.multipv > 1:
                    break  # the lines of the last completed iteration stand, and their best
                if found is not None and found != best_move:
                    # A move searched to the end at this depth beat the previous best (searched
                    # first): it is played, so its line is reported first (bestmove is always
                    # the first move of the last pv printed).
                    best_move, best_value = found, self.found_value
                    pv = self.pv(best_move, depth)
                    self.report(depth, best_value, pv)
                break
            completed = depth
            if self.multipv > 1:
                value, best_move, pv = lines[0].value, lines[0].move, lines[0].pv
                best_value = value
                self.report_lines(depth, lines, self.ranked)
            else:
                assert self.found_move is not None  # the full window always finds a best move
                best_move, best_value = self.found_move, value
                pv = self.pv(best_move, depth)
                self.report(depth, value, pv)
            if (
                not self.unbounded
                and self.limits.depth is None
                and abs(value) > MATE_BOUND
                and depth >= MATE - abs(value) + MATE_PROOF_PLIES
            ):
                break  # a forced result is proven; deeper iterations would only repeat it
        searcher = self.searcher
        searcher.stalls.append(self.stall * 1000)
        searcher.stall_ms = stall_margin(searcher.stalls)
        side = self.state.side_to_move
        clock, inc = self.limits.clock(side)
        if clock is not None and not self.unbounded:
            own_ms = (time.perf_counter() - self.start) * 1000
            searcher._last_clock[side] = (clock, inc or 0, own_ms)
        if self.unbounded:
            assert self.stop is not None  # Searcher.search refuses an unbounded search without
            self.stop.wait()
        times = self.times
        return SearchResult(
            best_move,
            score_of(best_value),
            completed,
            self.nodes,
            pv,
            soft_ms=times.soft_ms,
            hard_ms=times.hard_ms,
        )

    def enough_before(self) -> bool:
        """Whether to start no further iteration: stopped, nodes spent, the time management
        says so (:func:`~zengine.engine.timeman.start_iteration`), or a single root move with
        a time limit (asked before every iteration after depth 1)."""
        if self.stop_set():
            return True
        if self.node_limit is not None and self.nodes >= self.node_limit:
            return True
        if self.soft_s is not None:
            if not self.unbounded and len(self.root_moves) == 1:
                return True  # a forced move needs no thought when the clock runs
            elapsed_ms = (time.perf_counter() - self.start) * 1000
            return not start_iteration(self.times, elapsed_ms)
        return False

    def report(self, depth: int, value: int, pv: list[int]) -> None:
        """Hand a completed iteration (its one line) to ``on_info``."""
        line = RootLine(pv[0], value, pv, max(self.seldepth, depth))
        self.report_lines(depth, [line], self.ranked)

    def report_lines(self, depth: int, lines: list[RootLine], ranked: bool) -> None:
        """Hand an iteration's lines to ``on_info``, in order, at one reading of the clock and
        the counters; ``ranked`` (MultiPV) numbers them ``multipv`` 1, 2, ..."""
        if self.on_info is None:
            return
        elapsed = time.perf_counter() - self.start
        nodes = self.nodes
        nps = int(nodes / elapsed) if elapsed > 0 else 0
        hashfull = self.searcher.hashfull()
        tables = self.searcher.tables
        tbhits = None if tables is None else tables.hits - self.tbhits_before
        for rank, line in enumerate(lines):
            self.on_info(
                SearchInfo(
                    depth=depth,
                    seldepth=line.seldepth,
                    score=score_of(line.value),
                    nodes=nodes,
                    nps=nps,
                    time_ms=int(elapsed * 1000),
                    hashfull=hashfull,
                    pv=line.pv,
                    tbhits=tbhits,
                    multipv=rank + 1 if ranked else None,
                )
            )

    def aspire(self, depth: int, previous: int, moves: list[int]) -> int:
        """The exact score of the best of ``moves`` at the root, ``depth`` plies deep (its move
        in ``found_move``). From ``ASPIRATION_DEPTH`` on, the window is ``ASPIRATION`` around
        ``previous`` (the score of the line at the last depth), widened to the full window on
        the side that failed. Raises :class:`_Abort`."""
        # Typed as the attribute, not as None: mypy would narrow the attribute to None past the
        # calls that set it, and a mypyc-compiled build trusts that narrowing.
        self.found_move = cast("int | None", None)
        if depth < ASPIRATION_DEPTH or abs(previous) >= MATE_BOUND:
            return self.root(depth, -INF, INF, moves)
        low, high = previous - ASPIRATION, previous + ASPIRATION
        while True:
            self.found_move = cast("int | None", None)
            value = self.root(depth, low, high, moves)
            if value <= low:
                low = -INF
            elif value >= high:
                high = INF
            else:
                return value

    def more_lines(self, depth: int, first: int, previous: list[RootLine]) -> list[RootLine]:
        """MultiPV: the iteration's lines, best first, once its best line is searched (its
        score ``first``, its move in ``found_move``). Each further line is the best root move
        not yet the first move of a line, searched in a window of its own around the score of
        the line of that rank at the last depth (``previous``); a line's pv is read from the
        table before the next line is searched. The root moves are then reordered: the lines'
        moves first, in the lines' order. Raises :class:`_Abort`."""
        best = self.found_move
        assert best is not None  # the full window always finds a best move
        lines = [RootLine(best, first, self.pv(best, depth), max(self.seldepth, depth))]
        taken = {best}
        root_moves = self.root_moves
        for rank in range(1, self.multipv):
            moves = [move for move in root_moves if move not in taken]
            self.seldepth = 0
            value = self.aspire(depth, previous[rank].value if previous else 0, moves)
            move = self.found_move
            assert move is not None
            lines.append(RootLine(move, value, self.pv(move, depth), max(self.seldepth, depth)))
            taken.add(move)
        # Stable: of equal scores, the line searched first stays first (the first is the best).
        lines.sort(key=lambda line: -line.value)
        rest = [move for move in root_moves if move not in taken]
        root_moves[:] = [line.move for line in lines] + rest
        return lines

    def check(self) -> None:
        """Look at the clock and the limits every ``check_every`` nodes (and exactly at the
        node limit); raise :class:`_Abort` once a limit is reached, never during depth 1.

        ``check_every`` follows the time between looks (see ``CHECK_SECONDS``): slow nodes or
        a busy machine make it smaller, so the hard limit is noticed within about a
        millisecond of the search's own running time. The wall time between two looks that
        the thread spent without the CPU is a stall (kept for ``Searcher.stall_ms``).
        """
        nodes = self.nodes
        now = time.perf_counter()
        cpu = time.thread_time()
        gap = now - self.last_check
        stall = gap - (cpu - self.last_cpu)
        if stall > self.stall:
            self.stall = stall
        self.last_check = now
        self.last_cpu = cpu
        every = self.check_every
        if gap > CHECK_SECONDS:
            if every > CHECK_MIN:
                every >>= 1
        elif gap < CHECK_SECONDS / 4 and every < CHECK_MAX:
            every <<= 1
        self.check_every = every
        next_check = nodes + every
        hard_s = self.hard_s
        if self.may_abort:
            node_limit = self.node_limit
            if node_limit is not None:
                if nodes >= node_limit:
                    raise _Abort
                if next_check > node_limit:
                    next_check = node_limit
            if self.stop_set():
                raise _Abort
            if hard_s is not None and now - self.start >= hard_s:
                raise _Abort
        elif self.max_qdepth and (
            self.stop_set() or (hard_s is not None and now - self.start >= hard_s)
        ):
            # Depth 1 always completes; past the time limit (or told to stop) the rest of it
            # evaluates its leaves without quiescence, about a node per root move. Measured
            # with 2 CPU burners beside a match: depth 1 of Zola took 300-1000 nodes and up to
            # 120 ms while the engine had ~7% of a core, the only cause of late moves left.
            self.max_qdepth = 0
        self.next_check = next_check

    # --- the tree ----------------------------------------------------------------------------
    def root(self, depth: int, alpha: int, beta: int, moves: list[int]) -> int:
        """One pass over the root moves ``moves`` (all of them, or those MultiPV leaves for a
        line), ``depth`` plies deep, in the window (alpha, beta).

        Returns the best score if a move beat ``alpha`` (at least ``beta`` on a fail high, the
        pass then ends early), else ``alpha`` itself (a fail low: every move scores at most
        ``alpha``). The best move and its score are kept in ``found_move``/``found_value`` as
        they are found, and the best move goes first in later passes. Raises :class:`_Abort`.
        """
        st = self.state
        play, undo, negamax = st.play, st.undo, self.negamax
        path = self.path
        played = self.played
        key = st.key
        path.add(key)
        try:
            for index, move in enumerate(moves):
                played[1] = move
                play(move)
                try:
                    if index == 0:
                        value = -negamax(depth - 1, -beta, -alpha, 1, True)
                    else:
                        value = -negamax(depth - 1, -alpha - 1, -alpha, 1, False)
                        if value > alpha:
                            value = -negamax(depth - 1, -beta, -alpha, 1, True)
                finally:
                    undo()
                if value > alpha:
                    alpha = value
                    self.found_value = value
                    self.found_move = move
                    if value >= beta:
                        break
        finally:
            path.discard(key)
        best_move = self.found_move
        if best_move is not None:
            moves.remove(best_move)
            moves.insert(0, best_move)
        return alpha

    def negamax(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> int:
        """The score of the position ``ply`` plies from the root, searched ``depth`` plies deep
        (then :meth:`quiescence`), in the window (alpha, beta); fail-soft.

        A score at most ``alpha`` is an upper bound (fail low), at least ``beta`` a lower bound
        (fail high), in between exact, as far as the reductions and pruning let it be. A
        finished game scores ``MATE - ply`` won, ``ply - MATE`` lost, 0 drawn; a position
        repeated on the search path scores 0. The result is stored in the table with the
        best move, and a cut-off move becomes a killer. Raises :class:`_Abort`.
        """
        if depth <= 0:
            return self.quiescence(alpha, beta, ply, 0)
        nodes = self.nodes
        if nodes >= self.next_check:
            self.check()
        self.nodes = nodes + 1
        st = self.state
        outcome = st.outcome()
        if outcome is not None:
            return self.terminal(outcome, ply)
        if self.probe is not None:
            plies = self.probe(st)
            if plies is not None:  # exact: odd, the side to move wins
                return MATE - ply - plies if plies & 1 else ply + plies - MATE
        key = st.key
        path = self.path
        if key in path:
            return 0  # a repetition on the search path: the side repeating gains nothing
        # Mate distance pruning: no score here can beat a shorter win already found.
        if alpha < ply - MATE:
            alpha = ply - MATE
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
        # A win next move is exact: no search of the node could score it higher. Most of
        # Zhadu's inner nodes are such (the moves of a threatened node that do not parry).
        if self.win_detection and st.wins_at_once():
            return MATE - ply - 1
        # Threat extension: a position where the opponent would win at once must be parried,
        # and the search looks a ply past the parry (as chess engines extend a check).
        threatened = self.threat_extension and ply < self.extend_below and st.threatened()
        if threatened:
            depth += 1

        entry = self.table.probe(key)
        tt_move = None
        if entry is not None:
            tt_move = entry[MOVE]
            if entry[DEPTH] >= depth and not pv_node:
                value = from_table(entry[SCORE], ply)
                bound = entry[BOUND]
                if bound == EXACT or (value >= beta if bound == LOWER else value <= alpha):
                    return value
        if not pv_node and not threatened and -MATE_BOUND < beta < MATE_BOUND:
            pruned = self.prune(depth, beta, ply, key)
            if pruned is not None:
                return pruned

        if tt_move is not None and not st.is_legal_move(tt_move):
            tt_move = None  # a key collision: the table never makes the search play it here
        side_history = self.history[st.side_to_move]
        lmr_history = side_history if self.history_lmr else None
        k1, k2 = self.killers[ply]
        counter = self.counter_move(ply)
        stages = staged_moves(
            st, tt_move, side_history, k1, k2, counter, self.captures_first, self.equal_captures
        )
        played = self.played
        # The children are searched by self.negamax, not a bound local as in root: compiled, it
        # is a native call (measured: 1.5% fewer instructions over the bench; pure, the same).
        play, undo = st.play, st.undo
        old_alpha = alpha
        best = -INF
        best_move = None
        index = 0
        path.add(key)
        try:
            for stage in stages:
                for move in stage:
                    played[ply + 1] = move
                    play(move)
                    try:
                        if index == 0:
                            value = -self.negamax(depth - 1, -beta, -alpha, ply + 1, pv_node)
                        else:
                            # A null window first, shallower by the move's reduction; the full
                            # search only for a move that beats alpha there.
                            r = 0
                            if (
                                depth >= LMR_DEPTH
                                and index >= LMR_QUIET_FROM
                                and move != k1
                                and move != k2
                                and move != counter
                            ):
                                r = reduction(depth, index, move, st, lmr_history)
                            value = -self.negamax(depth - 1 - r, -alpha - 1, -alpha, ply + 1, False)
                            if value > alpha and (r or value < beta):
                                value = -self.negamax(depth - 1, -beta, -alpha, ply + 1, pv_node)
                    finally:
                        undo()
                    index += 1
                    if value > best:
                        best = value
                        best_move = move
                        if value > alpha:
                            alpha = value
                            if value >= beta:
                                break
                if alpha >= beta:
                    break
        finally:
            path.discard(key)
        if best >= beta:
            assert best_move is not None  # a move was searched: the game is not over here
            self.cut_off(best_move, tt_move, depth, ply)
        bound = UPPER if best <= old_alpha else LOWER if best >= beta else EXACT
        self.table.store(key, depth, bound, to_table(best, ply), best_move)
        return best

    def counter_move(self, ply: int) -> int | None:
        """The move that last refuted the move leading to the node at ``ply`` (when the game
        asks for counter moves), unless it is one of the ply's killers, ordered before it."""
        previous = self.played[ply]
        if not self.counter_moves or previous is None:
            return None
        counter = self.counters[self.state.side_to_move].get(previous)
        k1, k2 = self.killers[ply]
        return None if counter == k1 or counter == k2 else counter

    def cut_off(self, move: int, tt_move: int | None, depth: int, ply: int) -> None:
        """Remember ``move``, which cut off the node at ``ply`` searched ``depth`` deep: the
        first killer there (unless it was the table move), history, and the counter move of
        the move that led there (a quiet one only)."""
        killer = self.killers[ply]
        if move != killer[0] and move != tt_move:
            killer[1] = killer[0]
            killer[0] = move
        side = self.state.side_to_move
        self.history[side][move] += depth * depth
        previous = self.played[ply]
        if self.counter_moves and previous is not None and not self.state.is_capture(move):
            self.counters[side][previous] = move

    def prune(self, depth: int, beta: int, ply: int, key: int) -> int | None:
        """The score of a non-PV node that need not be searched (at least ``beta``), or None:
        reverse futility near the horizon (the static evaluation far enough above beta is
        assumed to hold) and the null move (:meth:`null_search`)."""
        if depth <= RFP_DEPTH:
            stand = self.static_value(key)
            if stand - RFP_MARGIN * depth >= beta:
                return stand
        if depth >= NULL_DEPTH and not self.null_child[ply] and self.state.null_move_allowed():
            if self.static_value(key) >= beta:  # (a memo hit if read above)
                value = self.null_search(depth, beta, ply)
                if value >= beta:
                    return beta if value > MATE_BOUND else value
        return None

    def null_search(self, depth: int, beta: int, ply: int) -> int:
        """The score of letting the opponent move twice, a null window at ``beta``, searched
        :data:`NULL_REDUCTION` plies (and one per :data:`NULL_DEPTH_STEP`) shallower than
        the moves would be. Raises :class:`_Abort`."""
        st = self.state
        null_child = self.null_child
        reduction = NULL_REDUCTION + depth // NULL_DEPTH_STEP
        st.play_null()
        null_child[ply + 1] = True
        self.played[ply + 1] = None
        try:
            return -self.negamax(depth - 1 - reduction, -beta, 1 - beta, ply + 1, False)
        finally:
            null_child[ply + 1] = False
            st.undo_null()

    def quiescence(self, alpha: int, beta: int, ply: int, qdepth: int) -> int:
        """The score of a position beyond the horizon (``qdepth`` plies into quiescence):
        the static evaluation (stand pat) or better by a capture; fail-soft in (alpha, beta).

        At least ``beta`` is a lower bound, at most ``alpha`` an upper bound. A finished game
        scores as in :meth:`negamax`. Past ``max_qdepth`` plies (the game's
        ``quiescence_depth``) or ``MAX_PLY`` the evaluation is taken as it is. Raises
        :class:`_Abort`.
        """
        nodes = self.nodes
        if nodes >= self.next_check:
            self.check()
        self.nodes = nodes + 1
        if ply > self.seldepth:
            self.seldepth = ply
        st = self.state
        outcome = st.outcome()
        if outcome is not None:
            return self.terminal(outcome, ply)
        if self.probe is not None:
            plies = self.probe(st)
            if plies is not None:  # exact: odd, the side to move wins
                return MATE - ply - plies if plies & 1 else ply + plies - MATE
        stand = self.static_value(st.key)
        if stand >= beta or qdepth >= self.max_qdepth or ply >= MAX_PLY:
            return stand
        captures = st.captures()
        if not captures:
            return stand
        if stand > alpha:
            alpha = stand
        if len(captures) > 1:
            history = self.history[st.side_to_move]
            sort_captures(captures, st.capture_value, history, self.equal_captures)
        if qdepth + 1 >= self.max_qdepth or ply + 1 >= MAX_PLY:
            return self.leaves(captures, alpha, beta, ply + 1, stand)
        # self.quiescence, not a bound local: compiled, a native call (as in negamax).
        play, undo = st.play, st.undo
        best = stand
        for move in captures:
            play(move)
            try:
                value = -self.quiescence(-beta, -alpha, ply + 1, qdepth + 1)
            finally:
                undo()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        return best

    def leaves(self, moves: list[int], alpha: int, beta: int, ply: int, best: int) -> int:
        """The quiescence loop over ``moves`` when every child is a leaf that only stands pat
        (``ply`` is theirs): the children scored here as :meth:`quiescence` would score them,
        without a call each (two thirds of Zola's nodes are such leaves; measured with
        callgrind on bench depth 3 of zola and zhadu: 1.3% fewer instructions in all).

        ``best`` is the parent's stand pat, at least ``alpha``; returns the parent's score,
        fail-soft. Raises :class:`_Abort` (before a move is played, so ``state`` is intact).
        """
        if ply > self.seldepth:
            self.seldepth = ply
        st = self.state
        play, undo, outcome_of = st.play, st.undo, st.outcome
        eval_cache, evaluate, cache_leaves = self.eval_cache, self.evaluate, self.cache_leaves
        for move in moves:
            nodes = self.nodes
            if nodes >= self.next_check:
                self.check()
            self.nodes = nodes + 1
            play(move)
            outcome = outcome_of()
            if outcome is not None:
                value = -self.terminal(outcome, ply)
            elif not cache_leaves:
                value = -evaluate(st)
            else:
                key = st.key
                found = eval_cache.get(key)
                if found is None:
                    stand = evaluate(st)
                    if len(eval_cache) >= EVAL_CACHE_ENTRIES:
                        eval_cache.clear()
                    eval_cache[key] = stand
                    value = -stand
                else:
                    value = -found
            undo()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        return best

    def terminal(self, outcome: Outcome, ply: int) -> int:
        """The score of a finished game ``ply`` plies from the root, for the side to move."""
        winner = outcome.winner
        if winner is None:
            return 0
        return MATE - ply if winner == self.state.side_to_move else ply - MATE

    def static_value(self, key: int) -> int:
        """The static evaluation of the position (whose key is ``key``): from the memo, or
        evaluated and remembered. Returned as an int, never ``dict.get``'s ``int | None``:
        compiled, arithmetic on the latter is CPython's generic operation on objects."""
        found = self.eval_cache.get(key)
        return self.evaluate_and_cache(key) if found is None else found

    def evaluate_and_cache(self, key: int) -> int:
        """The static evaluation of the position (whose key is ``key``), remembered."""
        value = self.evaluate(self.state)
        eval_cache = self.eval_cache
        if len(eval_cache) >= EVAL_CACHE_ENTRIES:
            eval_cache.clear()
        eval_cache[key] = value
        return value

    def pv(self, best_move: int, depth: int) -> list[int]:
        """The principal variation: ``best_move``, then the table's moves, each checked legal,
        up to ``depth + PV_EXTRA_PLIES`` moves, the end of the game or a repeated position."""
        st = self.state
        table = self.table
        pv = [best_move]
        played = 1
        st.play(best_move)
        seen = {st.key}
        try:
            while len(pv) < max(depth, 1) + PV_EXTRA_PLIES:
                entry = table.probe(st.key)
                if entry is None or st.outcome() is not None:
                    break
                move = entry[MOVE]
                if move is None or not st.is_legal_move(move):
                    break
                st.play(move)
                played += 1
                pv.append(move)
                if st.key in seen:
                    break
                seen.add(st.key)
            tables = self.searcher.tables
            if tables is not None and st.outcome() is None and self.probe is not None:
                pv += best_line(tables, st)  # the table's own line from its leaf on
        finally:
            for _ in range(played):
                st.undo()
        return pv
