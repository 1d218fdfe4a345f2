"""The search: iterative deepening negamax alpha-beta over the game interface.

Generic over every game: it sees only :class:`~engine.game.State` (``legal_moves``,
``captures``, ``capture_value``, ``play``/``undo``, ``key``, ``outcome``) and the game's static
evaluation and search settings from its rules (``evaluation()``, ``search_parameters()``).

* Principal variation search with a transposition table (a fixed-size list indexed by
  ``key & mask``, sized from Hash MB), late move reductions for quiet moves, mate distance
  pruning.
* Move ordering: table move, captures by ``capture_value``, two killers per ply, history.
* Quiescence over ``captures()`` with stand-pat, bounded in depth.
* Scores are centipawns from the side to move; won/lost positions score ``MATE - ply`` so the
  shortest win and the longest loss are preferred; draws (the rules' own, and a repetition of a
  position on the current search path) score 0.
* Limits (depth, nodes, movetime, clocks, infinite, stop event, searchmoves) are checked every
  few nodes; the node limit is exact once depth 1 is complete (depth 1 always completes).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from zengine.engine.game import Rules, State
from zengine.engine.timeman import budget

#: Score of a win found at the root itself; a win ``p`` plies away scores ``MATE - p``.
MATE = 1_000_000
#: Scores beyond this are wins or losses, not evaluations.
MATE_BOUND = MATE - 10_000
INF = MATE + 1
#: The deepest iteration and search path the search ever goes to.
MAX_DEPTH = 100
MAX_PLY = 160
#: Nodes between two looks at the clock and the stop event (~5 ms at bench speed).
CHECK_INTERVAL = 128

#: Late move reductions: the move index (0-based, table move included) from which quiet moves
#: and captures are reduced by a ply.
LMR_QUIET_FROM = 3
LMR_CAPTURE_FROM = 5
#: Reverse futility pruning at non-PV nodes up to this depth, with this margin per ply (cp).
RFP_DEPTH = 2
RFP_MARGIN = 120
#: Half-width of the root's aspiration window (cp) and the first depth that uses it: scores of
#: successive iterations differ by ~20-40 cp in Zola (odd/even), so 60 rarely fails.
ASPIRATION = 60
ASPIRATION_DEPTH = 4

#: Static evaluations remembered by position key (cleared when full, ~10 MB): a third of the
#: quiescence leaves of a Zola search are transpositions (measured at bench depth 4: 84,891
#: evaluations of 56,987 positions), and an evaluation costs ~100 dict lookups.
EVAL_CACHE_ENTRIES = 1 << 16

EXACT, LOWER, UPPER = 0, 1, 2
#: Estimated bytes per table entry (a 5-tuple of ints plus its list slot; measured with
#: sys.getsizeof: 80 for the tuple, ~36 for the 64-bit key, 28-32 each for score/move, 8 slot).
ENTRY_BYTES = 192


@dataclass
class Limits:
    """What may stop a search; all times in ms, ``None`` = not given."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    p1time: int | None = None
    p2time: int | None = None
    p1inc: int | None = None
    p2inc: int | None = None
    movestogo: int | None = None
    infinite: bool = False
    searchmoves: list[int] | None = None

    def is_infinite(self) -> bool:
        """True when nothing but the stop event ends the search."""
        return self.infinite or (
            self.depth is None
            and self.nodes is None
            and self.movetime is None
            and self.p1time is None
            and self.p2time is None
        )


@dataclass
class Score:
    """A search score: exactly one of ``cp`` and ``mate`` is set."""

    cp: int | None = None
    mate: int | None = None

    def __str__(self) -> str:
        return f"mate {self.mate}" if self.mate is not None else f"cp {self.cp}"


@dataclass
class SearchInfo:
    """One ``info`` line."""

    depth: int
    seldepth: int
    score: Score
    nodes: int
    nps: int
    time_ms: int
    hashfull: int | None
    pv: list[int] = field(default_factory=list)


@dataclass
class SearchResult:
    """What a search found: ``best`` is None only when the game is over."""

    best: int | None
    score: Score
    depth: int
    nodes: int
    pv: list[int] = field(default_factory=list)


def score_of(value: int) -> Score:
    """The :class:`Score` of an internal score (mate distances in moves of the side to move)."""
    if value > MATE_BOUND:
        return Score(mate=(MATE - value + 1) // 2)
    if value < -MATE_BOUND:
        return Score(mate=-((MATE + value) // 2))
    return Score(cp=value)


class _Abort(Exception):
    """Raised inside the tree when a limit is reached; unwinds to the root."""


class Searcher:
    """A search with its persistent state (transposition table, killers, history)."""

    def __init__(self, hash_mb: int = 16, seed: int = 0, overhead_ms: int = 30) -> None:
        self.hash_mb = hash_mb
        self.seed = seed
        self.overhead_ms = overhead_ms
        self._table_mb = -1
        self._rules: Rules | None = None
        self._table: list = []
        self._mask = 0
        self._history: list[dict[int, int]] = [{}, {}]
        self._killers: list[list[int | None]] = []
        self.set_hash(hash_mb)

    # --- persistent state ----------------------------------------------------------------------
    def set_hash(self, mb: int) -> None:
        """Resize (and clear) the transposition table to about ``mb`` megabytes."""
        self.hash_mb = mb
        entries = max(1024, mb * (1 << 20) // ENTRY_BYTES)
        size = 1 << (entries.bit_length() - 1)  # a power of two, so key & mask indexes it
        self._table = [None] * size
        self._mask = size - 1
        self._table_mb = mb
        self._clear_heuristics()

    def clear(self) -> None:
        """Forget everything learnt (a new game): table, killers, history."""
        if self._table_mb != self.hash_mb:
            self.set_hash(self.hash_mb)
            return
        table = self._table
        table[:] = [None] * len(table)
        self._clear_heuristics()

    def _clear_heuristics(self) -> None:
        self._eval_cache: dict[int, int] = {}
        self._history = [{}, {}]
        self._killers = [[None, None] for _ in range(MAX_PLY + 2)]

    def hashfull(self) -> int:
        """Per mille of the first 1000 table slots in use (the UCI convention)."""
        sample = self._table[:1000]
        used = sum(1 for e in sample if e is not None)
        return used * 1000 // max(1, len(sample))

    # --- the search ------------------------------------------------------------------------------
    def search(
        self,
        state: State,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """Search ``state`` within ``limits``; ``state`` is left as it was given."""
        start = time.perf_counter()
        root_moves = state.legal_moves()
        if not root_moves:
            return SearchResult(None, Score(cp=0), 0, 0, [])
        if self._table_mb != self.hash_mb:
            self.set_hash(self.hash_mb)
        if state.rules != self._rules:
            # Variants share position keys (zhadu and zhadu-star have the same Zobrist keys but
            # different moves): what was learnt under other rules must not be used here.
            self.clear()
            self._rules = state.rules
        if limits.searchmoves:
            wanted = set(limits.searchmoves)
            chosen = [m for m in root_moves if m in wanted]
            if chosen:
                root_moves = chosen
        if self.seed:
            # Equal moves are chosen by their order (the first of equals is kept): shuffling the
            # root varies the choice, reproducibly for one seed and position.
            random.Random(self.seed * 1_000_003 ^ state.key).shuffle(root_moves)

        evaluate = state.rules.evaluation()
        max_qdepth = state.rules.search_parameters().quiescence_depth
        times = budget(limits, state.side_to_move, self.overhead_ms)
        soft_s = None if times.soft_ms is None else times.soft_ms / 1000.0
        hard_s = None if times.hard_ms is None else times.hard_ms / 1000.0
        infinite = limits.is_infinite()
        max_depth = MAX_DEPTH if limits.depth is None else max(1, min(limits.depth, MAX_DEPTH))
        node_limit = limits.nodes

        table = self._table
        mask = self._mask
        eval_cache = self._eval_cache
        eval_get = eval_cache.get

        def evaluate_and_cache(key: int) -> int:
            # Only the miss path is a call: hits stay inline in the hot loops below.
            value = evaluate(st)
            if len(eval_cache) >= EVAL_CACHE_ENTRIES:
                eval_cache.clear()
            eval_cache[key] = value
            return value

        killers = self._killers
        history = self._history
        for side_history in history:
            for move in side_history:
                side_history[move] >>= 2  # old searches count less
        st = state
        play = st.play
        undo = st.undo
        path: set[int] = set()
        perf = time.perf_counter
        stop_set = stop.is_set if stop is not None else (lambda: False)

        nodes = 0
        seldepth = 0
        next_check = CHECK_INTERVAL
        may_abort = False

        def check() -> None:
            """Look at the limits; raise _Abort once one is reached (never during depth 1)."""
            nonlocal next_check
            next_check = nodes + CHECK_INTERVAL
            if not may_abort:
                return
            if node_limit is not None:
                if nodes >= node_limit:
                    raise _Abort
                if next_check > node_limit:
                    next_check = node_limit
            if stop_set() or (hard_s is not None and perf() - start >= hard_s):
                raise _Abort

        def terminal(outcome, ply: int) -> int:
            winner = outcome.winner
            if winner is None:
                return 0
            return MATE - ply if winner == st.side_to_move else ply - MATE

        def qsearch(alpha: int, beta: int, ply: int, qdepth: int) -> int:
            nonlocal nodes, seldepth
            if nodes >= next_check:
                check()
            nodes += 1
            if ply > seldepth:
                seldepth = ply
            outcome = st.outcome()
            if outcome is not None:
                return terminal(outcome, ply)
            key = st.key
            stand = eval_get(key)
            if stand is None:
                stand = evaluate_and_cache(key)
            if stand >= beta or qdepth >= max_qdepth or ply >= MAX_PLY:
                return stand
            captures = st.captures()
            if not captures:
                return stand
            if stand > alpha:
                alpha = stand
            if len(captures) > 1:
                capture_value = st.capture_value
                hist_get = history[st.side_to_move].get
                captures.sort(key=lambda m: (capture_value(m) << 32) + hist_get(m, 0), reverse=True)
            best = stand
            for move in captures:
                play(move)
                try:
                    value = -qsearch(-beta, -alpha, ply + 1, qdepth + 1)
                finally:
                    undo()
                if value > best:
                    best = value
                    if value > alpha:
                        alpha = value
                        if value >= beta:
                            break
            return best

        def negamax(depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> int:
            nonlocal nodes
            if depth <= 0:
                return qsearch(alpha, beta, ply, 0)
            if nodes >= next_check:
                check()
            nodes += 1
            outcome = st.outcome()
            if outcome is not None:
                return terminal(outcome, ply)
            key = st.key
            if key in path:
                return 0  # a repetition on the search path: the side repeating gains nothing
            # Mate distance pruning: no score here can beat a shorter win already found.
            if alpha < ply - MATE:
                alpha = ply - MATE
            if beta > MATE - ply - 1:
                beta = MATE - ply - 1
            if alpha >= beta:
                return alpha

            entry = table[key & mask]
            tt_move = None
            if entry is not None and entry[0] == key:
                tt_move = entry[4]
                if entry[1] >= depth and not pv_node:
                    value = entry[3]
                    if value > MATE_BOUND:
                        value -= ply
                    elif value < -MATE_BOUND:
                        value += ply
                    flag = entry[2]
                    if flag == EXACT or (value >= beta if flag == LOWER else value <= alpha):
                        return value

            if not pv_node and depth <= RFP_DEPTH and -MATE_BOUND < beta < MATE_BOUND:
                # Reverse futility: far enough above beta near the horizon, assume it holds.
                stand = eval_get(key)
                if stand is None:
                    stand = evaluate_and_cache(key)
                if stand - RFP_MARGIN * depth >= beta:
                    return stand

            side_history = history[st.side_to_move]
            killer = killers[ply]
            k1, k2 = killer
            old_alpha = alpha
            best = -INF
            best_move = tt_move
            index = 0
            path.add(key)
            try:
                if tt_move is not None:
                    # The table move first, before generating the others: when it cuts off
                    # (most of the time at cut nodes), no generation and no sorting happen.
                    play(tt_move)
                    try:
                        best = -negamax(depth - 1, -beta, -alpha, ply + 1, pv_node)
                    finally:
                        undo()
                    if best > alpha:
                        alpha = best
                    index = 1
                if alpha < beta:
                    moves = st.legal_moves()
                    if tt_move is not None:
                        moves.remove(tt_move)
                    if len(moves) > 1:
                        capture_value = st.capture_value
                        hist_get = side_history.get

                        def order(move: int) -> int:
                            # Captures by value first; killers and history order within a
                            # class (in Zola almost every move is a capture of value 1).
                            value = capture_value(move) << 32
                            if move == k1:
                                return value + (1 << 31)
                            if move == k2:
                                return value + (1 << 30)
                            return value + hist_get(move, 0)

                        moves.sort(key=order, reverse=True)
                    is_capture = st.is_capture
                    for move in moves:
                        play(move)
                        try:
                            if index == 0:
                                value = -negamax(depth - 1, -beta, -alpha, ply + 1, pv_node)
                            else:
                                # Late move reductions: moves ordered late rarely matter;
                                # captures (most moves in Zola) only from the sixth on.
                                reduction = 0
                                if (
                                    depth >= 3
                                    and index >= LMR_QUIET_FROM
                                    and move != k1
                                    and move != k2
                                ):
                                    if not is_capture(move):
                                        reduction = 1 if index < 8 or depth < 5 else 2
                                    elif index >= LMR_CAPTURE_FROM:
                                        reduction = 1
                                value = -negamax(
                                    depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, False
                                )
                                if value > alpha and (reduction or value < beta):
                                    value = -negamax(depth - 1, -beta, -alpha, ply + 1, pv_node)
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
            finally:
                path.discard(key)
            if best >= beta:
                if best_move != k1 and best_move != tt_move:
                    killer[1] = k1
                    killer[0] = best_move
                side_history[best_move] = side_history.get(best_move, 0) + depth * depth

            flag = UPPER if best <= old_alpha else LOWER if best >= beta else EXACT
            stored = best
            if stored > MATE_BOUND:
                stored += ply
            elif stored < -MATE_BOUND:
                stored -= ply
            table[key & mask] = (key, depth, flag, stored, best_move)
            return best

        def root(depth: int, progress: list, alpha: int, beta: int) -> int:
            """One pass over the root moves in the window; ``progress``: [best score, best move].

            Returns the best score, or ``alpha`` if no move beat it (a fail low).
            """
            key = st.key
            path.add(key)
            try:
                for index, move in enumerate(root_moves):
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
                        progress[0] = value
                        progress[1] = move
                        if value >= beta:
                            break
            finally:
                path.discard(key)
            best_move = progress[1]
            if best_move is not None:
                root_moves.remove(best_move)
                root_moves.insert(0, best_move)
            return alpha

        def principal_variation(best_move: int, depth: int) -> list[int]:
            pv = [best_move]
            played = 1
            play(best_move)
            seen = {st.key}
            try:
                while len(pv) < max(depth, 1) + 8:
                    key = st.key
                    entry = table[key & mask]
                    if entry is None or entry[0] != key or st.outcome() is not None:
                        break
                    move = entry[4]
                    if move not in st.legal_moves():
                        break
                    play(move)
                    played += 1
                    pv.append(move)
                    if st.key in seen:
                        break
                    seen.add(st.key)
            finally:
                for _ in range(played):
                    undo()
            return pv

        best_move = root_moves[0]
        best_value = 0
        completed = 0
        pv: list[int] = [best_move]
        for depth in range(1, max_depth + 1):
            may_abort = depth > 1
            if depth > 1:
                elapsed = perf() - start
                if stop_set():
                    break
                if node_limit is not None and nodes >= node_limit:
                    break
                if soft_s is not None and elapsed >= soft_s:
                    break
                if not infinite and len(root_moves) == 1 and soft_s is not None:
                    break  # a forced move needs no thought when the clock runs
            progress: list = [None, None]
            seldepth = 0
            next_check = nodes + CHECK_INTERVAL
            if may_abort and node_limit is not None and next_check > node_limit:
                next_check = node_limit
            try:
                if depth >= ASPIRATION_DEPTH and abs(best_value) < MATE_BOUND:
                    # Aspiration: a narrow window around the last score, widened on failure.
                    low, high = best_value - ASPIRATION, best_value + ASPIRATION
                    while True:
                        progress[1] = None
                        value = root(depth, progress, low, high)
                        if value <= low:
                            low = -INF
                        elif value >= high:
                            high = INF
                        else:
                            break
                else:
                    value = root(depth, progress, -INF, INF)
                table[st.key & mask] = (st.key, depth, EXACT, value, progress[1])
            except _Abort:
                if progress[1] is not None:
                    # A root move searched to the end beat the previous best move searched first.
                    best_move, best_value = progress[1], progress[0]
                    pv = [best_move]
                break
            best_move, best_value = progress[1], value
            completed = depth
            pv = principal_variation(best_move, depth)
            if on_info is not None:
                elapsed = perf() - start
                on_info(
                    SearchInfo(
                        depth=depth,
                        seldepth=max(seldepth, depth),
                        score=score_of(value),
                        nodes=nodes,
                        nps=int(nodes / elapsed) if elapsed > 0 else 0,
                        time_ms=int(elapsed * 1000),
                        hashfull=self.hashfull(),
                        pv=pv,
                    )
                )
            if abs(value) > MATE_BOUND and limits.depth is None and not infinite:
                # A forced result is proven; deeper iterations would only repeat it.
                if depth >= MATE - abs(value) + 2:
                    break

        if infinite and stop is not None:
            stop.wait()  # an infinite search reports only when told to stop
        return SearchResult(best_move, score_of(best_value), completed, nodes, pv)
