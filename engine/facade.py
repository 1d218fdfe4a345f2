"""The engine behind the protocol: game, position, history, options and the search worker.

Protocol-agnostic: it knows nothing of command words or reply lines. The protocol layer
(``protocol/``) parses text into calls on :class:`Engine` (limits as
:class:`~zengine.engine.values.GoLimits`) and formats what comes back (search progress as
:class:`~zengine.engine.values.Info`); the game's errors (:class:`~zengine.engine.game.GameError`),
:class:`~zengine.engine.values.TextError` and the errors below tell it what went wrong. Nothing
else is caught here: any other exception is a bug and surfaces (on the search thread, with its
traceback on stderr, before the bestmove the client waits for).

The search runs on a worker thread over a *copy* of the position, so the session's position
can be read (``d``, ``legalmoves``, ``query``) while it runs, and every command that would
change the session is refused with :class:`Busy` until the search has ended.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine.engine.game import (
    GameError,
    Rules,
    State,
    legal_moves_text,
    play_texts,
)
from zengine.engine.values import GoLimits, Info, TextError, parse_int
from zengine.engine.variants import make_rules, resolve, rule_options, variant_names

if TYPE_CHECKING:  # the search is imported on first use, so the protocol starts fast
    from zengine.engine.search import Searcher, SearchInfo


class EngineError(Exception):
    """Base of the errors the facade itself raises (game errors come from ``engine.game``)."""


class Busy(EngineError):
    """The command needs the engine idle and a search is running."""


class CannotUndo(EngineError):
    """``undo n`` with fewer than n moves in the history."""


class UnknownOption(EngineError):
    """An option name the engine does not have."""


class BadOptionValue(EngineError):
    """An option value out of range or not in the option's list."""


class BadOptionSyntax(EngineError):
    """An option value missing, or not a number where a number is needed."""


@dataclass(frozen=True)
class Option:
    """One engine option, as the handshake lists it."""

    name: str
    kind: str  # "spin" or "combo"
    default: int | str
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()


#: The game at start-up: the registry's first variant.
DEFAULT_VARIANT = variant_names()[0]

#: Options that are the default of a game's rule option (declared by the games):
#: lower-case option name -> (game, rule). ``setup`` without that rule takes the option's
#: value; the current game follows a change at once.
RULE_DEFAULT_OPTIONS: dict[str, tuple[str, str]] = {
    option.option.lower(): (game, option.rule) for game, option in rule_options()
}


def options() -> list[Option]:
    """The engine's options, in the order the handshake lists them."""
    return [
        Option("UCI_Variant", "combo", DEFAULT_VARIANT, choices=tuple(variant_names())),
        *(Option(o.option, "spin", o.default, o.min, o.max) for _, o in rule_options()),
        Option("Hash", "spin", 16, 1, 4096),
        Option("Threads", "spin", 1, 1, 1),
        Option("Move Overhead", "spin", 30, 0, 5000),
        Option("Seed", "spin", 0, 0, 2147483647),
    ]


InfoCallback = Callable[[Info], None]
DoneCallback = Callable[[str | None], None]


class Engine:
    """One engine session: the game and its rules, the position with its history, the options,
    and at most one search in the background."""

    def __init__(self, variant: str | None = None) -> None:
        self._values: dict[str, int | str] = {o.name.lower(): o.default for o in options()}
        self._searcher: Searcher | None = None
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        self._searching = False
        self._unbounded = False
        self.debug = False
        #: Called with a line of diagnostics (the protocol makes ``info string`` of them).
        self.on_debug: Callable[[str], None] = lambda text: None
        self._setup(variant or DEFAULT_VARIANT, {})

    # --- game and position ----------------------------------------------------------------------
    def _setup(self, name: str, rules: dict[str, str]) -> None:
        explicit = {k.lower(): v.lower() for k, v in rules.items()}
        new_rules = self._make_rules(name, explicit)
        self.rules = new_rules
        self.state: State = new_rules.start()
        self._variant = name.lower()
        self._explicit = explicit
        self._base: str | None = None
        self._moves: list[str] = []

    def _make_rules(self, name: str, explicit: dict[str, str]) -> Rules:
        """The rules for a name and its explicit rules, rule-default options filled in."""
        game, implied = resolve(name)
        merged = dict(explicit)
        for option, (option_game, rule) in RULE_DEFAULT_OPTIONS.items():
            if game == option_game and rule not in merged and rule not in implied:
                merged[rule] = str(self._values[option])
        return make_rules(name, merged)

    def setup(self, name: str, rules: dict[str, str] | None = None) -> None:
        """Select a game (or variant) with rule options and set its start position."""
        self._idle()
        self._setup(name, rules or {})
        self._clear_search()

    def new_game(self, name: str | None = None, rules: dict[str, str] | None = None) -> None:
        """A new game: of another game if named, else of the current one; clears search state."""
        self._idle()
        if name is not None:
            self._setup(name, rules or {})
        else:
            self._set_state(self.rules.start(), None, [])
        self._clear_search()

    def _set_state(self, state: State, base: str | None, moves: list[str]) -> None:
        self.state, self._base, self._moves = state, base, moves

    def set_position(self, fen: str | None, moves: list[str]) -> None:
        """The start position (``fen`` None) or a position string, then moves; all or none."""
        self._idle()
        state = self.rules.start() if fen is None else self.rules.parse_position(fen)
        play_texts(state, moves)
        self._set_state(state, fen, list(moves))

    def play(self, moves: list[str]) -> None:
        """Play moves on the current position, in order, all or none."""
        self._idle()
        play_texts(self.state, moves)
        self._moves.extend(moves)

    def undo(self, plies: int = 1) -> None:
        """Take back ``plies`` moves of the history."""
        self._idle()
        if plies < 1:
            raise BadOptionValue(f"undo needs at least 1 ply, got {plies}")
        if plies > self.state.history_length:
            raise CannotUndo(
                f"cannot undo {plies}: the history has {self.state.history_length} plies"
            )
        for _ in range(plies):
            self.state.undo()
            if self._moves:
                self._moves.pop()

    # --- reading the position (also during a search) ---------------------------------------
    def legal_moves(self) -> list[str]:
        """The legal moves as canonical text, in code-point order (empty once the game is over)."""
        return legal_moves_text(self.state)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.state.is_over()

    def result(self) -> str:
        """``p1win``, ``p2win``, ``draw`` or ``none``."""
        outcome = self.state.outcome()
        return "none" if outcome is None else outcome.result.value

    def side_to_move(self) -> str:
        """``p1`` or ``p2``."""
        return "p1" if self.state.side_to_move == 0 else "p2"

    def position_text(self) -> str:
        """The position string of the current position."""
        return self.state.position_text()

    def is_legal(self, text: str) -> bool:
        """Whether a text names a legal move here (text that is no move is not)."""
        try:
            self.state.parse_move(text)
        except GameError:
            return False
        return True

    def diagram(self) -> str:
        """The board picture for people."""
        return self.state.diagram()

    def perft(self, depth: int) -> tuple[list[tuple[str, int]], int]:
        """Per legal move its perft of ``depth - 1`` (empty at depth 0), and the total."""
        self._idle()
        from zengine.engine.perft import divide

        if depth <= 0:
            return [], 1
        rows = divide(self.state.copy(), depth)
        return rows, sum(count for _, count in rows)

    # --- options ----------------------------------------------------------------------------
    def option_value(self, name: str) -> int | str:
        """The current value of an option (case-insensitive name)."""
        try:
            return self._values[name.lower()]
        except KeyError:
            raise UnknownOption(f"unknown option '{name}'") from None

    def set_option(self, name: str, value: str | None) -> None:
        """Set an option by name (case-insensitive) from its text value."""
        self._idle()
        spec = {o.name.lower(): o for o in options()}.get(name.lower())
        if spec is None:
            known = ", ".join(o.name for o in options())
            raise UnknownOption(f"unknown option '{name}' (options: {known})")
        if value is None:
            raise BadOptionSyntax(f"option '{spec.name}' needs a value")
        key = spec.name.lower()
        if spec.kind == "combo":
            choice = value.lower()
            if choice not in spec.choices:
                raise BadOptionValue(
                    f"bad value '{value}' for option '{spec.name}' (one of {', '.join(spec.choices)})"
                )
            self._apply_combo(key, choice)
            return
        try:
            number = parse_int(value, f"option '{spec.name}'", spec.min, spec.max)
        except TextError as exc:
            error = BadOptionSyntax if exc.code == "syntax" else BadOptionValue
            raise error(exc.detail) from None
        self._apply_spin(key, number)

    def _apply_combo(self, key: str, choice: str) -> None:
        if key == "uci_variant":
            self._setup(choice, {})
            self._clear_search()
        self._values[key] = choice

    def _apply_spin(self, key: str, number: int) -> None:
        if key in RULE_DEFAULT_OPTIONS:
            self._follow_rule_default(key, number)
        self._values[key] = number
        searcher = self._searcher
        if searcher is not None:
            if key == "hash" and number != searcher.hash_mb:
                searcher.set_hash(number)
            elif key == "seed":
                searcher.seed = number
            elif key == "move overhead":
                searcher.overhead_ms = number

    def _follow_rule_default(self, key: str, number: int) -> None:
        """Apply a changed rule default to the current game, unless its rule was given."""
        game, rule = RULE_DEFAULT_OPTIONS[key]
        _, implied = resolve(self._variant)
        if self.rules.game != game or rule in self._explicit or rule in implied:
            return
        rules = make_rules(self._variant, {**self._explicit, rule: str(number)})
        if rules == self.rules:
            return
        try:
            state = rules.start() if self._base is None else rules.parse_position(self._base)
            play_texts(state, self._moves)
        except GameError as exc:
            raise BadOptionValue(
                f"the current game cannot go on with {rule} {number}: {exc}"
            ) from None
        self.rules, self.state = rules, state

    # --- search -----------------------------------------------------------------------------
    def searcher(self) -> Searcher:
        """The search with its tables, made on first use with the current options."""
        if self._searcher is None:
            from zengine.engine.search import Searcher

            self._searcher = Searcher(
                hash_mb=int(self._values["hash"]),
                seed=int(self._values["seed"]),
                overhead_ms=int(self._values["move overhead"]),
            )
        return self._searcher

    def prepare(self) -> None:
        """Load the search and the game's evaluation now (at ``isready``) rather than inside the
        first ``go``'s time; then set what is loaded aside from the garbage collector."""
        if self.searching:
            return
        self.searcher()
        self.rules.evaluation()
        freeze_startup()

    def _clear_search(self) -> None:
        if self._searcher is not None:
            self._searcher.clear()

    @property
    def searching(self) -> bool:
        """Whether a search is running (its bestmove not yet reported).

        Taken under the lock the worker holds while it reports, so a client that has read the
        bestmove never finds the engine still busy.
        """
        with self._lock:
            return self._searching

    def _idle(self) -> None:
        if self.searching:
            raise Busy("a search is running (send stop first)")

    def _search_moves(self, texts: tuple[str, ...]) -> list[int]:
        """The moves of ``searchmoves`` texts, each checked legal here (duplicates dropped)."""
        moves: list[int] = []
        for text in texts:
            move = self.state.parse_move(text)
            if move not in moves:
                moves.append(move)
        return moves

    def go(self, limits: GoLimits, on_info: InfoCallback, on_done: DoneCallback) -> None:
        """Start a search of the current position in the background.

        ``limits.searchmoves`` are checked here first (a text that is no legal move raises the
        game's error and starts nothing). ``on_info(info)`` is called for every iteration,
        ``on_done(best)`` exactly once, with the best move's text, or None (at once, on this
        thread) if the game is over. A search unbounded for the side to move
        (:meth:`GoLimits.unbounded`) reports only when stopped. The time limits count from the
        call (the ``go`` line's arrival); the cyclic garbage collector is paused from here
        until the best move is reported.
        """
        received = time.perf_counter()
        self._idle()
        moves = self._search_moves(limits.searchmoves) if limits.searchmoves else None
        if self.state.is_over():
            on_done(None)
            return
        searcher = self.searcher()
        evaluate = self.rules.evaluation()
        root = self.state.copy()
        if self._worker is not None:
            self._worker.join()  # it has reported already; only its last instructions remain
        self._stop = threading.Event()
        self._unbounded = limits.unbounded(root.side_to_move)
        self._searching = True
        resume_gc = pause_gc()
        self._worker = threading.Thread(
            target=self._search,
            args=(searcher, root, limits, evaluate, moves, self._stop, on_info, on_done),
            kwargs={"received": received, "resume_gc": resume_gc},
            name="zengine-search",
            daemon=True,
        )
        self._worker.start()

    def _search(
        self,
        searcher: Searcher,
        root: State,
        limits: GoLimits,
        evaluate: Callable[[State], int],
        moves: list[int] | None,
        stop: threading.Event,
        on_info: InfoCallback,
        on_done: DoneCallback,
        *,
        received: float,
        resume_gc: bool,
    ) -> None:
        """The worker thread: search, then report the best move exactly once; the garbage
        collector (if ``resume_gc``) runs again only once the best move is out."""
        texts_of = root.copy()  # the search moves about on ``root``; pv texts come from this one
        best: str | None = None

        def report(info: SearchInfo) -> None:
            on_info(info_of(info, pv_texts(texts_of, info.pv)))

        try:
            result = searcher.search(
                root, limits, evaluate, moves=moves, stop=stop, on_info=report, start=received
            )
            if result.best is not None and texts_of.is_legal_move(result.best):
                best = texts_of.move_text(result.best)
            if self.debug:
                spent = (time.perf_counter() - received) * 1000
                self.on_debug(
                    f"search done: depth {result.depth} nodes {result.nodes} time {spent:.1f} ms"
                    f" limits {result.soft_ms}/{result.hard_ms} ms"
                    f" stall margin next {searcher.stall_ms:.1f} ms"
                )
        except Exception as exc:
            # The last resort of the worker thread, as the session's catch-all is of the reader:
            # a bug in the search is printed with its traceback, and the client still gets the
            # bestmove it waits for (a legal one) instead of an engine busy forever.
            traceback.print_exc(file=sys.stderr)
            self.on_debug(f"search failed: {type(exc).__name__}: {exc}")
        if best is None:
            best = legal_moves_text(texts_of)[0]
        with self._lock:
            try:
                on_done(best)
            finally:
                self._searching = False
                if resume_gc:
                    gc.enable()

    @property
    def search_unbounded(self) -> bool:
        """Whether the running search ends only when stopped (:meth:`GoLimits.unbounded`)."""
        return self._searching and self._unbounded

    def stop(self, timeout: float | None = None) -> None:
        """Stop the search, if any, and wait until it has reported its best move."""
        self._stop.set()
        self.wait(timeout)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the search, if any, to end by itself."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
            if not worker.is_alive():
                self._worker = None

    def bench(self, depth: int | None, emit: Callable[[str], None]) -> tuple[int, int]:
        """The fixed benchmark (the session's state is left as it was)."""
        self._idle()
        from zengine.engine.bench import run_bench

        return run_bench(depth, emit)


_frozen = False


def freeze_startup() -> None:
    """Move everything alive now (modules, tables, the game) to the garbage collector's
    permanent generation, once per process: later collections no longer traverse it (~17,000
    objects once the search and the evaluations are loaded)."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()


def pause_gc() -> bool:
    """Disable the cyclic garbage collector for a search; whether it was enabled (and so is to
    be enabled again after the search).

    A collection inside a search is a pause on the clock: measured (gc.callbacks, 60 moves at
    movetime 60), one of Zhadu's collections during the searches took 12 ms, and a young
    collection after a Zhadu search 10-18 ms, where a node takes ~15 us. The search makes no
    reference cycles (measured: ``gc.collect()`` found 0 unreachable objects after each of 20
    searches per game with the collector off), so the collector has nothing of the search's
    to find; with it paused, and what start-up loaded frozen, the collections left run after
    the bestmove and took at most 0.7 ms (same measurement).
    """
    enabled = gc.isenabled()
    gc.disable()
    return enabled


def info_of(info: SearchInfo, pv: list[str]) -> Info:
    """The protocol's :class:`Info` of a search iteration, with its pv as texts."""
    return Info(
        depth=info.depth,
        seldepth=info.seldepth,
        score=info.score,
        nodes=info.nodes,
        nps=info.nps,
        time_ms=info.time_ms,
        hashfull=info.hashfull,
        pv=tuple(pv),
    )


def pv_texts(state: State, pv: list[int]) -> list[str]:
    """The texts of a principal variation from ``state`` (cut at the first move not legal)."""
    texts: list[str] = []
    played = 0
    try:
        for move in pv:
            if not state.is_legal_move(move):
                break
            texts.append(state.move_text(move))
            state.play(move)
            played += 1
    finally:
        for _ in range(played):
            state.undo()
    return texts


__all__ = [
    "BadOptionSyntax",
    "BadOptionValue",
    "Busy",
    "CannotUndo",
    "Engine",
    "EngineError",
    "Option",
    "info_of",
    "options",
    "pv_texts",
]
