"""The engine behind the protocol: game, position, history, options and the search worker.

Protocol-agnostic: it knows nothing of command words or reply lines. The protocol layer
(``protocol/``) parses text into calls on :class:`Engine` (limits as
:class:`~zengine.engine.values.GoLimits`) and formats what comes back (search progress as
:class:`~zengine.engine.values.Info`); the game's errors (:class:`~zengine.engine.game.GameError`),
:class:`~zengine.engine.values.TextError` and the errors below tell it what went wrong. Nothing
else is caught here: any other exception is a bug and surfaces (on the search thread, with its
traceback on stderr, before the bestmove the client waits for).

The search, ``perft`` and ``bench`` run on a worker thread (over a *copy* of the position), so
the session's position can be read (``d``, ``legalmoves``, ``query``) and ``stop`` heard while
they run; every command that would change the session is refused with :class:`Busy` until the
work has ended.

After a failed :meth:`Engine.set_position` the engine has *no position* (:attr:`Engine.state` is
None) until a position is set again: the readers then answer as for a finished game without a
result, and everything that needs a position raises :class:`PositionError` (``no position``).
"""

from __future__ import annotations

import functools
import gc
import sys
import threading
import time
import traceback
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from zengine.engine.game import (
    GameError,
    IllegalMoveError,
    PositionError,
    Rules,
    State,
    fold_case,
    legal_moves_text,
    sorted_moves,
)
from zengine.engine.values import MAX_MULTIPV, GoLimits, Info, TextError, parse_int
from zengine.engine.variants import make_rules, resolve, rule_options, variant_names

if TYPE_CHECKING:  # the search and the tables are imported on first use (a fast start)
    from zengine.engine.endgame import TableFolder
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
    kind: str  # "spin", "combo", "check" (true or false) or "string"
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
    fold_case(option.option): (game, option.rule) for game, option in rule_options()
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
        Option("Ponder", "check", "false"),
        Option("MultiPV", "spin", 1, 1, MAX_MULTIPV),
        Option(TABLE_PATH, "string", ""),
    ]


#: The option of the folder of endgame tables (as UCI's SyzygyPath), and the word for none.
TABLE_PATH = "TablePath"
EMPTY = "<empty>"

InfoCallback = Callable[[Info], None]
DoneCallback = Callable[[str | None], None]
#: ``perft``: called per root move with its text and count, as each is counted.
RowCallback = Callable[[str, int], None]
#: The end of a ``perft``: its total, or None and why not (``stopped``, or ``failed`` on a bug,
#: whose traceback went to stderr).
PerftDone = Callable[[int | None, str], None]
#: The end of a ``bench``: ``""`` when complete, else ``stopped`` or ``failed``.
BenchDone = Callable[[str], None]

#: The longest history (plies since the last ``setup``, ``newgame`` or ``position``) the engine
#: keeps: a ``position`` or ``move`` that would make it longer is refused. The games keep an
#: undo record and a repetition count per ply (~250 bytes a ply measured in Zhadu), so this
#: bounds them at some 25 MB; real games are far shorter (the referee adjudicates at 1,000 plies
#: by default), and a ``position`` line of the protocol's longest (1 MiB) holds at most ~175,000.
MAX_HISTORY = 100_000

#: ``perft`` counts subtrees this many plies deep without a look at ``stop``: measured at most
#: ~5 ms each (zola-10 midgame; depth 3 took up to 0.3 s), so ``stop`` is heard at once, and the
#: look costs nothing beside the counting.
PERFT_GRAIN = 2


class _Stopped(Exception):
    """Raised inside a stopped ``perft`` to leave its recursion."""


def _count(state: State, depth: int, stop: threading.Event) -> int:
    """:func:`~zengine.engine.perft.perft`, giving up (:class:`_Stopped`) once ``stop`` is set."""
    from zengine.engine.perft import perft

    if depth <= PERFT_GRAIN:
        return perft(state, depth)
    if stop.is_set():
        raise _Stopped
    total = 0
    for move in state.legal_moves():
        state.play(move)
        total += _count(state, depth - 1, stop)
        state.undo()
    return total


class Engine:
    """One engine session: the game and its rules, the position with its history, the options,
    and at most one search (or ``perft``, or ``bench``) in the background."""

    def __init__(self, variant: str | None = None) -> None:
        self._values: dict[str, int | str] = {fold_case(o.name): o.default for o in options()}
        self._searcher: Searcher | None = None
        #: The folder of the TablePath option (None: no tables).
        self._tables: TableFolder | None = None
        #: The thread of :meth:`load_in_background`, until :meth:`_loaded` has waited for it.
        self._loader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        self._searching = False
        self._unbounded = False
        #: While a ``go ponder`` ponders: set by ``ponderhit`` or ``stop`` to end that phase.
        self._pondering: threading.Event | None = None
        self._ponderhit_at: float | None = None
        #: The reply the last search expects to its best move (with the option Ponder on).
        self.ponder_move: str | None = None
        self.debug = False
        #: Called with a line of diagnostics (the protocol makes ``info string`` of them).
        self.on_debug: Callable[[str], None] = lambda text: None
        #: The position, or None after a failed :meth:`set_position` (no position).
        self.state: State | None = None
        self._setup(variant or DEFAULT_VARIANT, {})

    # --- game and position ----------------------------------------------------------------------
    def _setup(self, name: str, rules: dict[str, str]) -> None:
        explicit = {fold_case(k): fold_case(v) for k, v in rules.items()}
        new_rules = self._make_rules(name, explicit)
        self.rules = new_rules
        self._variant = fold_case(name)
        self._explicit = explicit
        self._set_state(new_rules.start(), None, array("q"))

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
        self.prepare()

    def new_game(self, name: str | None = None, rules: dict[str, str] | None = None) -> None:
        """A new game: of another game if named, else of the current one; clears search state."""
        self._idle()
        if name is not None:
            self._setup(name, rules or {})
        else:
            self._set_state(self.rules.start(), None, array("q"))
        self._clear_search()

    def _set_state(self, state: State | None, base: str | None, history: array[int]) -> None:
        # The old position and its history go at once (``ucinewgame`` gives their memory back).
        self.state, self._base, self._history = state, base, history

    def set_position(self, fen: str | None, moves: list[str]) -> None:
        """The start position (``fen`` None) or a position string, then moves.

        On any failure (a bad string, a bad or illegal move, too long a history) the engine is
        left with no position (:attr:`state` None), so that nothing answers about the position
        the client meant to leave; a :class:`Busy` engine is left as it was.
        """
        self._idle()
        self.clear_position()
        state = self.rules.start() if fen is None else self.rules.parse_position(fen)
        history = array("q")
        self._play(state, moves, history)
        self._set_state(state, fen, history)
        self.prepare()

    def clear_position(self) -> None:
        """Drop the position: no position until a ``setup``, ``newgame`` or position is set."""
        self._idle()
        self._set_state(None, None, array("q"))

    @property
    def has_position(self) -> bool:
        """Whether there is a position (none after a failed :meth:`set_position`)."""
        return self.state is not None

    def _position(self) -> State:
        state = self.state
        if state is None:
            raise PositionError("no position (a position command failed; send a new one)")
        return state

    def _play(self, state: State, texts: Iterable[str], history: array[int]) -> None:
        """Play move texts on ``state``, recording their moves in ``history``: all or none."""
        played = 0
        try:
            for text in texts:
                if len(history) >= MAX_HISTORY:
                    raise PositionError(
                        f"too many moves: the history holds at most {MAX_HISTORY} plies"
                    )
                move = state.parse_move(text)
                state.play(move)
                history.append(move)
                played += 1
        except GameError:
            for _ in range(played):
                state.undo()
                history.pop()
            raise

    def play(self, moves: list[str]) -> None:
        """Play moves on the current position, in order, all or none."""
        self._idle()
        self._play(self._position(), moves, self._history)

    def undo(self, plies: int = 1) -> None:
        """Take back ``plies`` moves of the history."""
        self._idle()
        state = self._position()
        if plies < 1:
            raise BadOptionValue(f"undo needs at least 1 ply, got {plies}")
        if plies > state.history_length:
            raise CannotUndo(f"cannot undo {plies}: the history has {state.history_length} plies")
        for _ in range(plies):
            state.undo()
            if self._history:
                self._history.pop()

    # --- reading the position (also during a search) ---------------------------------------
    def legal_moves(self) -> list[str]:
        """The legal moves as canonical text, in code-point order (empty once the game is over)."""
        return legal_moves_text(self._position())

    def is_over(self) -> bool:
        """Whether the game has ended (with no position: yes, nothing can be played)."""
        return self.state is None or self.state.is_over()

    def result(self) -> str:
        """``p1win``, ``p2win``, ``draw`` or ``none`` (also with no position)."""
        outcome = None if self.state is None else self.state.outcome()
        return "none" if outcome is None else outcome.result.value

    def side_to_move(self) -> str:
        """``p1`` or ``p2`` (``p1`` with no position)."""
        return "p2" if self.state is not None and self.state.side_to_move else "p1"

    def position_text(self) -> str:
        """The position string of the current position."""
        return self._position().position_text()

    def is_legal(self, text: str) -> bool:
        """Whether a text names a legal move here (text that is no move is not; with no
        position nothing is)."""
        if self.state is None:
            return False
        try:
            self.state.parse_move(text)
        except GameError:
            return False
        return True

    def diagram(self) -> str:
        """The board picture for people."""
        return self._position().diagram()

    # --- options ----------------------------------------------------------------------------
    def option_value(self, name: str) -> int | str:
        """The current value of an option (case-insensitive name)."""
        try:
            return self._values[fold_case(name)]
        except KeyError:
            raise UnknownOption(f"unknown option '{name}'") from None

    def set_option(self, name: str, value: str | None) -> None:
        """Set an option by name (case-insensitive) from its text value."""
        self._idle()
        spec = {fold_case(o.name): o for o in options()}.get(fold_case(name))
        if spec is None:
            known = ", ".join(o.name for o in options())
            raise UnknownOption(f"unknown option '{name}' (options: {known})")
        if value is None:
            raise BadOptionSyntax(f"option '{spec.name}' needs a value")
        key = fold_case(spec.name)
        if spec.kind == "string":
            self._apply_string(key, value)
            return
        if spec.kind == "check":
            flag = fold_case(value)
            if flag not in ("true", "false"):
                raise BadOptionValue(
                    f"bad value '{value}' for option '{spec.name}' (true or false)"
                )
            self._values[key] = flag
            return
        if spec.kind == "combo":
            choice = fold_case(value)
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

    def _apply_string(self, key: str, value: str) -> None:
        """``TablePath``: a folder of endgame tables, every file checked now (``<empty>``:
        none)."""
        from zengine.engine.endgame import TableError, TableFolder

        folder = None
        if value not in ("", EMPTY):
            try:
                folder = TableFolder(value)
                folder.for_rules(self.rules)
            except TableError as exc:
                raise BadOptionValue(str(exc)) from None
        self._tables = folder
        self._values[key] = "" if folder is None else value

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
            elif key == "multipv":
                searcher.multipv = number

    def _follow_rule_default(self, key: str, number: int) -> None:
        """Apply a changed rule default to the current game, unless its rule was given."""
        game, rule = RULE_DEFAULT_OPTIONS[key]
        _, implied = resolve(self._variant)
        if self.rules.game != game or rule in self._explicit or rule in implied:
            return
        rules = make_rules(self._variant, {**self._explicit, rule: str(number)})
        if rules == self.rules:
            return
        if self.state is None:  # no position to carry over: the game alone follows
            self.rules = rules
            return
        try:
            state = rules.start() if self._base is None else rules.parse_position(self._base)
            for move in self._history:
                if not state.is_legal_move(move):
                    raise IllegalMoveError(f"move {state.history_length + 1} is no longer legal")
                state.play(move)
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
                multipv=int(self._values["multipv"]),
            )
        return self._searcher

    def prepare(self) -> None:
        """Load the search and the game's evaluation now (at ``isready``, ``setup`` and each
        position) rather than inside the first ``go``'s time; then set what is loaded aside from
        the garbage collector.

        A script that sends ``position`` and ``go`` without ``isready`` would otherwise pay the
        loading on the clock: measured on a busy machine, a fresh process's ``go movetime 100``
        spent 40-60 ms of its 100 importing the search and stopped after depth 1 (the
        baseline engine, which imported it at start-up, reached depth 4)."""
        if self.searching:
            return
        self._loaded()
        self.searcher()
        self.rules.evaluation()
        if self._tables is not None:
            self._tables.for_rules(self.rules)  # made now, not on the clock
        freeze_startup()

    def load_in_background(self) -> None:
        """Start loading what :meth:`prepare` loads (the search, the current game's evaluation)
        on a thread of its own, while the reader waits for the client's first lines.

        Loading at ``setup`` or ``position`` is too late for a script that sends ``go`` right
        after them: its ``go`` line has arrived, and its clock runs, while they load (measured,
        a fresh process's ``go movetime 150`` sent with them took up to 172 ms on a busy
        machine). Loading at start-up on the reader's thread would delay every session's first
        reply by the same ~25 ms. The thread is not a daemon: a process that ends meanwhile
        waits for it rather than tearing down modules it is importing."""
        if self._loader is None and self._searcher is None:
            self._loader = threading.Thread(
                target=_load_search, args=(self.rules,), name="zengine-loader"
            )
            self._loader.start()

    def _loaded(self) -> None:
        """Wait for :meth:`load_in_background`, if started: what needs the search finds it
        loaded, and nothing is loaded or frozen twice at the same time."""
        if self._loader is not None:
            self._loader.join()
            self._loader = None

    def _clear_search(self) -> None:
        if self._searcher is not None:
            self._searcher.clear()

    @property
    def searching(self) -> bool:
        """Whether a search, ``perft`` or ``bench`` is running (its last line not yet reported).

        Taken under the lock the worker holds while it reports, so a client that has read the
        bestmove never finds the engine still busy.
        """
        with self._lock:
            return self._searching

    def _idle(self) -> None:
        if self.searching:
            raise Busy("a search, perft or bench is running (send stop first)")

    def _search_moves(self, state: State, texts: tuple[str, ...]) -> list[int]:
        """The moves of ``searchmoves`` texts, each checked legal here (duplicates dropped)."""
        moves: list[int] = []
        for text in texts:
            move = state.parse_move(text)
            if move not in moves:
                moves.append(move)
        return moves

    def _start(self, work: Callable[..., None], *args: object, unbounded: bool = False) -> None:
        """Run ``work(stop, *args)`` on the worker thread; it must end by :meth:`_report`."""
        if self._worker is not None:
            self._worker.join()  # it has reported already; only its last instructions remain
        self._stop = threading.Event()
        self._unbounded = unbounded
        self._searching = True
        self._worker = threading.Thread(
            target=work, args=(self._stop, *args), name="zengine-worker", daemon=True
        )
        self._worker.start()

    def _report(self, report: Callable[[], None]) -> None:
        """The worker's last act: its final report, then the engine is idle again (under the
        lock, so that whoever reads the report finds the engine idle)."""
        with self._lock:
            try:
                report()
            finally:
                self._searching = False

    def go(self, limits: GoLimits, on_info: InfoCallback, on_done: DoneCallback) -> None:
        """Start a search of the current position in the background.

        ``limits.searchmoves`` are checked here first (a text that is no legal move raises the
        game's error and starts nothing). ``on_info(info)`` is called for every iteration
        (with the option MultiPV above 1, once for each of its lines, the best first),
        ``on_done(best)`` exactly once, with the best move's text, or None (at once, on this
        thread) if the game is over or there is no position. A search unbounded for the side to
        move (:meth:`GoLimits.unbounded`) reports only when stopped. The time limits count from
        the call (the ``go`` line's arrival); the cyclic garbage collector is paused from here
        until the best move is reported.
        """
        received = time.perf_counter()
        self._idle()
        state = self.state
        if state is None:
            on_done(None)
            return
        self._loaded()  # on the clock: the time counts from the go line's arrival
        moves = self._search_moves(state, limits.searchmoves) if limits.searchmoves else None
        if state.is_over():
            on_done(None)
            return
        searcher = self.searcher()
        searcher.tables = None if self._tables is None else self._tables.for_rules(self.rules)
        evaluate = self.rules.evaluation()
        root = state.copy()
        resume_gc = pause_gc()
        self._pondering = threading.Event() if limits.ponder else None
        self._ponderhit_at = None
        self.ponder_move = None
        self._start(
            functools.partial(
                self._search, received=received, resume_gc=resume_gc, pondering=self._pondering
            ),
            searcher,
            root,
            limits,
            evaluate,
            moves,
            on_info,
            on_done,
            unbounded=limits.unbounded(root.side_to_move),
        )

    def _search(
        self,
        stop: threading.Event,
        searcher: Searcher,
        root: State,
        limits: GoLimits,
        evaluate: Callable[[State], int],
        moves: list[int] | None,
        on_info: InfoCallback,
        on_done: DoneCallback,
        *,
        received: float,
        resume_gc: bool,
        pondering: threading.Event | None = None,
    ) -> None:
        """The worker thread: search, then report the best move exactly once; the garbage
        collector (if ``resume_gc``) runs again only once the best move is out.

        ``go ponder`` (``pondering`` given) first searches without limit until ``ponderhit``
        or ``stop`` ends that phase; after ``ponderhit`` the search starts again on the
        ``go``'s limits, timed from the ``ponderhit``: what the pondering found is in the
        table, so its first iterations come at once (time pondered is thinking done)."""
        texts_of = root.copy()  # the search moves about on ``root``; pv texts come from this one
        best: str | None = None
        line: list[str] = []

        def report(info: SearchInfo) -> None:
            texts = pv_texts(texts_of, info.pv)
            if info.multipv is None or info.multipv == 1:
                line[:] = texts  # the best line: its second move is the reply to ponder on
            on_info(info_of(info, texts))

        try:
            if pondering is not None:
                wide = replace(limits, ponder=False, infinite=True)
                result = searcher.search(
                    root,
                    wide,
                    evaluate,
                    moves=moves,
                    stop=pondering,
                    on_info=report,
                    start=received,
                )
                hit = self._ponderhit_at
                if hit is not None and not stop.is_set():
                    result = searcher.search(
                        root,
                        replace(limits, ponder=False),
                        evaluate,
                        moves=moves,
                        stop=stop,
                        on_info=report,
                        start=hit,
                    )
            else:
                result = searcher.search(
                    root, limits, evaluate, moves=moves, stop=stop, on_info=report, start=received
                )
            if result.best is not None and texts_of.is_legal_move(result.best):
                best = texts_of.move_text(result.best)
            if best is not None and len(line) > 1 and line[0] == best:
                self.ponder_move = line[1] if self._values["ponder"] == "true" else None
            if self.debug:
                spent = (time.perf_counter() - received) * 1000
                self.on_debug(
                    f"search done: depth {result.depth} nodes {result.nodes} time {spent:.1f} ms"
                    f" limits {result.soft_ms}/{result.hard_ms} ms"
                    f" stall margin next {searcher.stall_ms:.1f} ms"
                    f" latency {searcher.latency_ms:.1f} ms"
                )
        except Exception as exc:
            # The last resort of the worker thread, as the session's catch-all is of the reader:
            # a bug in the search is printed with its traceback, and the client still gets the
            # bestmove it waits for (a legal one) instead of an engine busy forever.
            traceback.print_exc(file=sys.stderr)
            self.on_debug(f"search failed: {type(exc).__name__}: {exc}")
        if best is None:
            best = legal_moves_text(texts_of)[0]
        chosen = best
        self._report(lambda: on_done(chosen))
        if resume_gc:
            gc.enable()

    @property
    def search_unbounded(self) -> bool:
        """Whether the running search ends only when stopped (:meth:`GoLimits.unbounded`)."""
        return self._searching and self._unbounded

    def stop(self, timeout: float | None = None) -> None:
        """Stop the search (or ``perft``, or ``bench``), if any, and wait until it has reported."""
        self._stop.set()
        pondering = self._pondering
        if pondering is not None:
            pondering.set()
        self.wait(timeout)

    def ponderhit(self) -> None:
        """The move pondered on was played: the ``go ponder`` search goes on as a normal
        search on its limits, timed from now. Nothing happens without one."""
        now = time.perf_counter()
        pondering = self._pondering
        if pondering is None or pondering.is_set() or not self.searching:
            return
        self._ponderhit_at = now
        self._unbounded = False
        pondering.set()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the work in the background, if any, to end by itself."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
            if not worker.is_alive():
                self._worker = None

    # --- perft and bench: in the background too, so that ``stop`` and ``quit`` are heard ------
    def perft(self, depth: int, on_row: RowCallback, on_done: PerftDone) -> None:
        """Count the move sequences of ``depth`` plies from the position, in the background.

        ``on_row(text, count)`` for each legal move in code-point order of its text, as it is
        counted (none at depth 0), then ``on_done(total, "")``; if stopped first,
        ``on_done(None, "stopped")`` instead (the rows already given stand).
        """
        self._idle()
        state = self._position().copy()
        self._start(self._perft, state, depth, on_row, on_done)

    def _perft(
        self,
        stop: threading.Event,
        state: State,
        depth: int,
        on_row: RowCallback,
        on_done: PerftDone,
    ) -> None:
        total: int | None = None
        note = ""
        try:
            if depth <= 0:
                total = 1
            else:
                total = 0
                for text, move in sorted_moves(state):
                    state.play(move)
                    count = _count(state, depth - 1, stop)
                    state.undo()
                    if stop.is_set():
                        raise _Stopped
                    on_row(text, count)
                    total += count
        except _Stopped:
            total, note = None, "stopped"
        except Exception as exc:  # the worker's last resort, as in _search
            traceback.print_exc(file=sys.stderr)
            self.on_debug(f"perft failed: {type(exc).__name__}: {exc}")
            total, note = None, "failed"
        counted = total
        self._report(lambda: on_done(counted, note))

    def bench(self, depth: int | None, emit: Callable[[str], None], on_done: BenchDone) -> None:
        """The fixed benchmark in the background (the session's state is left as it was):
        ``emit`` gets its lines, then ``on_done("")``, or ``on_done("stopped")`` if stopped."""
        self._idle()
        self._start(self._bench, depth, emit, on_done)

    def _bench(
        self,
        stop: threading.Event,
        depth: int | None,
        emit: Callable[[str], None],
        on_done: BenchDone,
    ) -> None:
        from zengine.engine.bench import run_bench

        note = ""
        # Each line is printed once the next one comes, the last one by the final report:
        # the total is the client's sign that the bench is over, so the engine must be idle
        # when it appears (as after perft's last line).
        held: list[str] = []

        def hold_last(line: str) -> None:
            if held:
                emit(held.pop())
            held.append(line)

        def finish() -> None:
            for line in held:
                emit(line)
            on_done(note)

        try:
            if run_bench(depth, hold_last, stop) is None:
                note = "stopped"
        except Exception as exc:  # the worker's last resort, as in _search
            traceback.print_exc(file=sys.stderr)
            self.on_debug(f"bench failed: {type(exc).__name__}: {exc}")
            note = "failed"
        self._report(finish)


def _load_search(rules: Rules) -> None:
    """The work of :meth:`Engine.load_in_background`."""
    try:
        import zengine.engine.search  # noqa: F401 (the import is the loading)

        rules.evaluation()
        freeze_startup()
    except Exception:
        # Nothing is reported from this thread: prepare() or go() loads the same again on the
        # reader's thread, where a failure becomes the error line of the command that needs it.
        pass


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
        tbhits=info.tbhits,
        multipv=info.multipv,
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
