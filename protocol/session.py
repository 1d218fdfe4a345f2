"""The command dispatcher: one protocol line in, its reply lines out (``docs/protocol.md``).

Parses a line into a call on the :class:`~zengine.engine.facade.Engine` (``go`` with
:func:`~zengine.engine.values.parse_go`, numbers with :func:`~zengine.engine.values.parse_int`),
formats what comes back (``info`` lines are :meth:`~zengine.engine.values.Info.format`), and turns
every failure into exactly one ``error <code> <detail>`` line. It never names a game: all game
knowledge comes through the facade and the game interface.
"""

from __future__ import annotations

import importlib.metadata
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from zengine import DISTRIBUTION
from zengine.engine.facade import (
    BadOptionSyntax,
    BadOptionValue,
    Busy,
    CannotUndo,
    Engine,
    EngineError,
    Option,
    UnknownOption,
    options,
)
from zengine.engine.game import (
    BadRuleValueError,
    GameError,
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    UnknownGameError,
    UnknownRuleError,
    fold_case,
)
from zengine.engine.text import one_line
from zengine.engine.values import (
    MAX_BENCH,
    MAX_PERFT,
    Info,
    TextError,
    format_go,
    parse_go,
    parse_int,
)


class ProtocolError(Exception):
    """A command that failed: one ``error <code> <detail>`` line."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


#: The project's error classes -> error code, most specific first (every GameError and
#: EngineError finds its code here; TextError and ProtocolError carry theirs).
ERROR_CODES: list[tuple[type[BaseException], str]] = [
    (InvalidMoveError, "syntax"),
    (IllegalMoveError, "illegal-move"),
    (PositionError, "bad-position"),
    (UnknownGameError, "unknown-game"),
    (UnknownRuleError, "unknown-option"),
    (BadRuleValueError, "bad-value"),
    (Busy, "busy"),
    (CannotUndo, "cannot-undo"),
    (UnknownOption, "unknown-option"),
    (BadOptionValue, "bad-value"),
    (BadOptionSyntax, "syntax"),
    (GameError, "syntax"),
    (EngineError, "syntax"),
]

#: Every error code the protocol uses.
CODES = (
    "unknown-command",
    "syntax",
    "unknown-game",
    "unknown-option",
    "bad-value",
    "bad-position",
    "illegal-move",
    "cannot-undo",
    "busy",
)

#: The first words of every reply line (``d``, ``help`` and ``perft`` print free text too).
REPLY_WORDS = (
    "id",
    "option",
    "uciok",
    "ugiok",
    "readyok",
    "error",
    "legalmoves",
    "response",
    "info",
    "bestmove",
)

#: The greatest ``undo`` count accepted.
MAX_UNDO = 2**63 - 1


@dataclass(frozen=True)
class Command:
    """One protocol command: everything the dispatch, its checks and ``help`` know of it."""

    #: Its spellings (case-insensitive); the first is the one ``help`` lists first.
    names: tuple[str, ...]
    #: The :class:`Session` method that runs it (``None`` for ``quit``, which the loop ends).
    method: str | None
    #: ``help``'s two columns: how it is written (a line break continues it), and what it does.
    usage: str
    summary: str
    #: False: a token after it is ``error syntax`` (``quit x`` does not quit).
    takes_arguments: bool = True
    #: True: answered during a search, ``perft`` or ``bench``; any other is ``error busy`` then.
    during_search: bool = False


#: Every command, in the order ``help`` lists them; adding a command is one row and a method.
COMMANDS: tuple[Command, ...] = (
    Command(("uci",), "uci", "uci", "handshake: id, options, uciok", False),
    Command(("ugi",), "ugi", "ugi", "handshake: id, options, ugiok", False),
    Command(("isready",), "isready", "isready", "readyok (also during a search)", False, True),
    Command(("setup",), "setup", "setup <game> [<rule> <value>]...", "select a game: {games}"),
    Command(
        ("setoption",),
        "setoption",
        "setoption name <N> [value <V>]",
        "set an option (listed by uci)",
    ),
    Command(
        ("ucinewgame", "uginewgame"),
        "newgame_bare",
        "ucinewgame | uginewgame",
        "a new game: start position, search state cleared",
        False,
    ),
    Command(
        ("newgame",),
        "newgame",
        "newgame [<game> [<rule> <value>]...]",
        "a new game, of another game or rules if given",
    ),
    Command(
        ("position",),
        "position",
        "position startpos|fen <string> [moves <m>...]",
        "set the position",
    ),
    Command(
        ("move", "play"),
        "move",
        "move|play <m>...",
        "play moves on the current position (all or none)",
    ),
    Command(("undo",), "undo", "undo [n]", "take back n plies (default 1)"),
    Command(("legalmoves",), "legalmoves", "legalmoves", "the legal moves, sorted", False, True),
    Command(
        ("query",),
        "query",
        "query gameover|p1turn|result|fen|islegal <m>",
        "answer one question: response <answer>",
        True,
        True,
    ),
    Command(
        ("go",),
        "go",
        "go [depth N] [nodes N] [movetime MS] [wtime MS btime MS winc MS binc MS movestogo N]\n   [searchmoves <m>...] [infinite] [ponder]",
        "search; info lines, then bestmove",
    ),
    Command(("stop",), "stop", "stop", "end the search (or perft, or bench) now", False, True),
    Command(
        ("ponderhit",),
        "ponderhit",
        "ponderhit",
        "the move pondered on was played: search on the go's clock",
        False,
        True,
    ),
    Command(
        ("perft",),
        "perft",
        "perft N | go perft N",
        "count move paths N plies deep, per move (stop ends it)",
    ),
    Command(
        ("d", "show", "display"),
        "display",
        "d | show | display",
        "the board, fen, side to move, result",
        False,
        True,
    ),
    Command(("bench",), "bench", "bench [depth]", "the fixed benchmark (stop ends it)"),
    Command(("debug",), "set_debug", "debug on|off", "info string diagnostics"),
    Command(("help",), "help", "help", "this list", False, True),
    Command(("quit",), None, "quit", "exit at once", False, True),
)

#: Spelling -> command.
BY_NAME: dict[str, Command] = {name: command for command in COMMANDS for name in command.names}


def help_lines(games: str) -> list[str]:
    """``help``'s text, from :data:`COMMANDS`: the summary beside the usage's last line, or
    on a line of its own when that line is too long for the column."""
    lines = ["zengine speaks a UCI/UGI-style protocol; commands (case-insensitive):"]
    for command in COMMANDS:
        *first, last = (f"  {line}" for line in command.usage.split("\n"))
        summary = command.summary.format(games=games)
        lines += first
        if len(last) < HELP_COLUMN - 1:
            lines.append(f"{last:<{HELP_COLUMN}}{summary}")
        else:
            lines += [last, f"{'':<{HELP_COLUMN}}{summary}"]
    return lines


#: Where ``help``'s second column starts.
HELP_COLUMN = 38


def version() -> str:
    """The installed package's version."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def author() -> str:
    """The installed package's author."""
    try:
        authors = importlib.metadata.metadata(DISTRIBUTION).get_all("Author") or []
    except importlib.metadata.PackageNotFoundError:
        authors = []
    return authors[0] if authors else "zengine developers"


def option_line(option: Option) -> str:
    """The handshake line of one option."""
    line = f"option name {option.name} type {option.kind} default {option.default}"
    if option.kind == "spin":
        return f"{line} min {option.min} max {option.max}"
    return line + "".join(f" var {choice}" for choice in option.choices)


def no_more(args: list[str], command: str) -> None:
    """Refuse extra tokens."""
    if args:
        raise ProtocolError("syntax", f"unexpected '{one_line(args[0], 40)}' after {command}")


def rule_pairs(args: list[str], command: str) -> dict[str, str]:
    """``<rule> <value>`` pairs, as written: the rules core reads them (ASCII case folding, so
    no other script's letter or digit passes for an ASCII one)."""
    if len(args) % 2:
        raise ProtocolError("syntax", f"{command}: rule '{one_line(args[-1], 40)}' has no value")
    return {args[i]: args[i + 1] for i in range(0, len(args), 2)}


class Session:
    """One protocol session over an engine: ``handle`` each input line in order."""

    def __init__(
        self, emit_lines: Callable[[list[str]], None], engine: Engine | None = None
    ) -> None:
        self.emit_lines = emit_lines
        self.engine = engine or Engine()
        self.debug = False
        self.engine.on_debug = self._debug_line

    def emit(self, text: str) -> None:
        """Write one line."""
        self.emit_lines([text])

    def _debug_line(self, text: str) -> None:
        if self.debug:
            self.emit(f"info string {one_line(text)}")

    # --- dispatch ---------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Process one input line; False once the session should end (``quit``)."""
        tokens = line.split()
        if not tokens:
            return True
        word, args = fold_case(tokens[0]), tokens[1:]
        try:
            command = BY_NAME.get(word)
            if command is None:
                raise ProtocolError(
                    "unknown-command",
                    f"unknown command '{one_line(tokens[0], 40)}' (help lists the commands)",
                )
            if args and not command.takes_arguments:
                raise ProtocolError(
                    "syntax", f"unexpected '{one_line(args[0], 40)}': {word} takes no argument"
                )
            if command.method is None:
                return False
            if not command.during_search and self.engine.searching:
                raise ProtocolError(
                    "busy",
                    f"'{word}' needs the engine idle: a search, perft or bench is running"
                    " (send stop first)",
                )
            getattr(self, command.method)(args)
        except (ProtocolError, TextError) as exc:
            self.emit(f"error {exc.code} {one_line(exc.detail)}")
        except (GameError, EngineError) as exc:
            code = next(code for cls, code in ERROR_CODES if isinstance(exc, cls))
            self.emit(f"error {code} {one_line(str(exc)) or type(exc).__name__}")
        except Exception as exc:  # the last resort: a bug is one error line, never a crash
            traceback.print_exc(file=sys.stderr)
            self.emit(f"error internal {one_line(str(exc)) or type(exc).__name__}")
        return True

    def finish(self, gone: Callable[[], bool] = lambda: False) -> None:
        """End of input: a search, ``perft`` or ``bench`` in progress ends and reports (an
        infinite search is stopped), unless ``gone()`` finds the output closed meanwhile: then
        it is stopped, as nobody is left to read it."""
        engine = self.engine
        if engine.search_unbounded:
            engine.stop()
            return
        while engine.searching:
            if gone():
                engine.stop(timeout=5.0)
                return
            engine.wait(0.25)
        engine.wait()

    def quit(self) -> None:
        """``quit``: stop any search; the caller has silenced the output already."""
        self.engine.stop(timeout=5.0)

    # --- commands ---------------------------------------------------------------------------
    def uci(self, args: list[str]) -> None:
        self._handshake("uciok")

    def ugi(self, args: list[str]) -> None:
        self._handshake("ugiok")

    def _handshake(self, ok: str) -> None:
        lines = [f"id name zengine {version()}", f"id author {author()}"]
        lines += [option_line(option) for option in options()]
        lines.append(ok)
        self.emit_lines(lines)

    def isready(self, args: list[str]) -> None:
        self.engine.prepare()
        self.emit("readyok")

    def setup(self, args: list[str]) -> None:
        if not args:
            raise ProtocolError("syntax", "setup needs a game name")
        self.engine.setup(args[0], rule_pairs(args[1:], "setup"))

    def setoption(self, args: list[str]) -> None:
        if not args or fold_case(args[0]) != "name":
            raise ProtocolError("syntax", "expected 'setoption name <name> [value <value>]'")
        lowered = [fold_case(token) for token in args]
        split = lowered.index("value") if "value" in lowered[1:] else len(args)
        name = " ".join(args[1:split])
        if not name:
            raise ProtocolError("syntax", "setoption needs an option name")
        value_tokens = args[split + 1 :]
        if split < len(args) and not value_tokens:
            raise ProtocolError("syntax", f"option '{one_line(name, 40)}': 'value' without a value")
        if len(value_tokens) > 1:
            raise ProtocolError(
                "syntax",
                f"option '{one_line(name, 40)}': the value is one token,"
                f" got '{one_line(' '.join(value_tokens), 60)}'",
            )
        self.engine.set_option(name, value_tokens[0] if value_tokens else None)

    def newgame_bare(self, args: list[str]) -> None:
        self.engine.new_game()

    def newgame(self, args: list[str]) -> None:
        if not args:
            self.engine.new_game()
        else:
            self.engine.new_game(args[0], rule_pairs(args[1:], "newgame"))

    def position(self, args: list[str]) -> None:
        """``position``: on any failure the engine is left with no position (docs/protocol.md,
        "No position"), so that a client that overlooks the error line is not answered about
        the position it meant to replace."""
        try:
            self._position(args)
        except (ProtocolError, TextError, GameError):
            self.engine.clear_position()
            raise

    def _position(self, args: list[str]) -> None:
        if not args:
            raise ProtocolError("syntax", "expected 'position startpos|fen <string> [moves ...]'")
        split = next((i for i, token in enumerate(args) if fold_case(token) == "moves"), len(args))
        kind, body, moves = fold_case(args[0]), args[1:split], args[split + 1 :]
        if kind == "startpos":
            no_more(body, "position startpos")
            self.engine.set_position(None, moves)
        elif kind == "fen":
            if not body:
                raise ProtocolError("syntax", "position fen needs a position string")
            self.engine.set_position(" ".join(body), moves)
        else:
            raise ProtocolError(
                "syntax", f"expected startpos or fen, got '{one_line(args[0], 40)}'"
            )

    def move(self, args: list[str]) -> None:
        if not args:
            raise ProtocolError("syntax", "move needs at least one move")
        self.engine.play(args)

    def undo(self, args: list[str]) -> None:
        if len(args) > 1:
            no_more(args[1:], "undo n")
        plies = parse_int(args[0], "undo", 1, MAX_UNDO) if args else 1
        self.engine.undo(plies)

    def legalmoves(self, args: list[str]) -> None:
        self.emit(" ".join(["legalmoves", *self.engine.legal_moves()]))

    def query(self, args: list[str]) -> None:
        if not args:
            raise ProtocolError("syntax", "query needs gameover, p1turn, result, fen or islegal")
        what, rest = fold_case(args[0]), args[1:]
        engine = self.engine
        if what == "islegal":
            if len(rest) != 1:
                raise ProtocolError("syntax", "expected 'query islegal <move>'")
            answer = "true" if engine.is_legal(rest[0]) else "false"
        else:
            answers: dict[str, Callable[[], str]] = {
                "gameover": lambda: "true" if engine.is_over() else "false",
                "p1turn": lambda: "true" if engine.side_to_move() == "p1" else "false",
                # With no position, a drawn finished game: a runner that ends a game only on
                # a result would loop on `none` (docs/protocol.md, "No position").
                "result": lambda: engine.result() if engine.has_position else "draw",
                "fen": engine.position_text,
            }
            if what not in answers:
                raise ProtocolError(
                    "syntax",
                    f"unknown query '{one_line(args[0], 40)}' (gameover,"
                    " p1turn, result, fen, islegal)",
                )
            no_more(rest, f"query {what}")
            answer = answers[what]()
        self.emit(f"response {answer}")

    def go(self, args: list[str]) -> None:
        if args and fold_case(args[0]) == "perft":
            self.perft(args[1:])
            return
        limits = parse_go(args)
        if self.debug:
            self.emit(f"info string {one_line(format_go(limits, 'ugi'))}")
        self.engine.go(limits, self._info, self._bestmove)

    def _info(self, info: Info) -> None:
        self.emit(info.format())

    def _bestmove(self, best: str | None) -> None:
        ponder = self.engine.ponder_move
        tail = f" ponder {ponder}" if ponder is not None and best is not None else ""
        self.emit(f"bestmove {best if best is not None else '(none)'}{tail}")

    def stop(self, args: list[str]) -> None:
        self.engine.stop()

    def ponderhit(self, args: list[str]) -> None:
        self.engine.ponderhit()

    def perft(self, args: list[str]) -> None:
        """``perft N``: counted in the background like a search; a row per move as it is
        counted, then the total, or ``info string perft stopped`` after ``stop``."""
        if not args:
            raise ProtocolError("syntax", "perft needs a depth")
        no_more(args[1:], "perft N")
        depth = parse_int(args[0], "perft depth", 0, MAX_PERFT)

        def done(total: int | None, note: str) -> None:
            if total is None:
                self.emit(f"info string perft {note}")
            else:
                self.emit_lines([""] * (depth > 0) + [f"Nodes searched: {total}"])

        self.engine.perft(depth, lambda text, count: self.emit(f"{text}: {count}"), done)

    def display(self, args: list[str]) -> None:
        engine = self.engine
        if not engine.has_position:
            self.emit("no position")
            return
        self.emit_lines(
            [
                *engine.diagram().splitlines(),
                f"fen {engine.position_text()}",
                f"turn {engine.side_to_move()}",
                f"result {engine.result()}",
            ]
        )

    def bench(self, args: list[str]) -> None:
        """``bench [depth]``: in the background like a search; its lines as each variant is
        done, or ``info string bench stopped`` after ``stop``."""
        no_more(args[1:], "bench depth")
        depth = parse_int(args[0], "bench depth", 1, MAX_BENCH) if args else None

        def done(note: str) -> None:
            if note:
                self.emit(f"info string bench {note}")

        self.engine.bench(depth, self.emit, done)

    def set_debug(self, args: list[str]) -> None:
        if len(args) != 1 or fold_case(args[0]) not in ("on", "off"):
            raise ProtocolError("syntax", "expected 'debug on' or 'debug off'")
        self.debug = self.engine.debug = fold_case(args[0]) == "on"

    def help(self, args: list[str]) -> None:
        from zengine.engine.variants import variant_names

        self.emit_lines(help_lines(", ".join(variant_names())))
