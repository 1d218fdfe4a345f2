"""The game interface every game implements (in the manner of OpenSpiel's Game/State).

Search, protocol and referee only ever talk to these two classes, never to a concrete game:

* :class:`Rules` is a game with its rule options fixed (a *variant*: ``zola-8``, ``zhadu-star``).
  It makes start positions and parses position strings. Its class declares everything the
  registry and the tools rely on: the game's name, its variant names (``VARIANTS``), its rule
  options (``RULES``) and which of them engine options set (``ENGINE_OPTIONS``), its bench
  positions (``BENCH_POSITIONS``), its evaluation (:meth:`Rules.evaluation`) and its search
  settings (:meth:`Rules.search_parameters`).
* :class:`State` is one position plus the history that matters for its rules (repetition
  counts, for instance). It is mutable: ``play``/``undo`` make and unmake moves in place.

Moves are small ints inside the engine (their encoding is the game's business); text appears
only through ``move_text``/``parse_move``. Wherever moves are listed as text they are sorted in
code-point order of the text (:func:`legal_moves_text`).
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar

from zengine.engine.svg import document, element
from zengine.engine.text import shown
from zengine.engine.values import DEFAULT_MOVES_TO_GO, Outcome, TextError, parse_int

if TYPE_CHECKING:  # the tables are loaded only by those who use them
    from zengine.engine.endgame import TableCodec


class GameError(ValueError):
    """Base class of every error the rules core raises for bad input."""


class MoveError(GameError):
    """A move text that cannot be played here."""


class InvalidMoveError(MoveError):
    """The text is no move in this game's notation (bad syntax, unknown square or stone)."""


class IllegalMoveError(MoveError):
    """The text is a well-formed move that is not legal in this position (or the game is over)."""


class PositionError(GameError):
    """A position string that is malformed, inconsistent, or for another board."""


class RulesError(GameError):
    """Base class of errors in choosing a game and its rules."""


class UnknownGameError(RulesError):
    """A name that is no game or variant."""


class UnknownRuleError(RulesError):
    """A rule option that the game does not have."""


class BadRuleValueError(RulesError):
    """A rule option with a value out of range or not in its list."""


# --- text: the one rule for every game's notation ---------------------------------------------
# Move texts, position strings and rule values are ASCII: letters are read in either case and
# written in lower case, numbers are ASCII digits only (another script's digits, superscripts
# and fullwidth forms are characters like any other, so they never read as numbers), and
# fields are separated by whitespace, as the protocol splits its tokens.

#: Bits of a position key. Not 64: compiled by mypyc, an int of up to 62 bits stays a machine
#: word, and a wider one is a Python object, made anew by every XOR and at every read of the key
#: (measured on the compiled Zola search: the 64-bit key's conversion was 8% of its time).
KEY_BITS = 62
KEY_MASK = (1 << KEY_BITS) - 1


def key_number(rng: random.Random) -> int:
    """A random number of a position key's width (:data:`KEY_BITS`) for a Zobrist table.

    The low bits of a 64-bit draw, so that the keys keep the low bits they had when they were 64
    bits wide: the search's table indexes by those, and the bench node count stays the same."""
    return rng.getrandbits(64) & KEY_MASK


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold_case(text: str) -> str:
    """``text`` with its ASCII letters in lower case, every other character unchanged.

    The games' notations are case-insensitive; ``str.lower`` would also turn characters of
    other scripts into ASCII ones (the Kelvin sign into ``k``), which are then no longer
    rejected as the strangers they are.
    """
    return text.translate(_ASCII_LOWER)


def parse_count(text: str, what: str, high: int, error: type[GameError]) -> int:
    """A count in a notation (a ply, a quiet count): ASCII digits only, no sign, ``0..high``.

    Raises ``error`` (a :class:`GameError`: :class:`PositionError` in a position string) with
    one line stating the bounds, however long or strange the text.
    """
    if text[:1] not in ("+", "-"):
        try:
            return parse_int(text, what, 0, high)
        except TextError:
            pass
    raise error(f"{what} must be an integer from 0 to {high}, got '{shown(text)}'")


@dataclass(frozen=True)
class Rule:
    """A rule option of a game (``setup zhadu quiet 50``): its name, its default and the values
    it allows, either the words in ``choices`` or the integers ``low..high``.

    Values are texts, kept in their canonical form (lower case; integers without sign or
    leading zeros) so that equal rules compare equal.
    """

    name: str
    default: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0

    def allowed(self) -> str:
        """The allowed values, for people (``6, 8 or 10``, ``an integer 0..100000``)."""
        if not self.choices:
            return f"an integer {self.low}..{self.high}"
        if len(self.choices) == 1:
            return self.choices[0]
        return f"{', '.join(self.choices[:-1])} or {self.choices[-1]}"

    def value(self, text: str) -> str:
        """The canonical text of a value of this rule; raises :class:`BadRuleValueError`.

        Words are case-insensitive; integers are numbers as the protocol writes them
        (:func:`~zengine.engine.values.parse_int`: ASCII digits, optionally signed).
        """
        word = fold_case(str(text).strip())
        if self.choices:
            if word in self.choices:
                return word
        else:
            try:
                return str(parse_int(word, f"rule '{self.name}'", self.low, self.high))
            except TextError:
                pass
        raise BadRuleValueError(
            f"bad value '{shown(str(text))}' for rule '{self.name}' ({self.allowed()})"
        )


@dataclass(frozen=True)
class RuleOption:
    """A rule whose default an engine option sets (a UCI ``spin`` such as ``Zhadu Quiet``).

    Games declare these so the protocol lists the option and the referee sends it, without
    either naming the game.
    """

    rule: str
    option: str
    default: int
    min: int
    max: int


@dataclass(frozen=True)
class SearchParameters:
    """Per-game settings the search reads from :meth:`Rules.search_parameters`."""

    #: Quiescence plies beyond the horizon.
    quiescence_depth: int = 8
    #: Every capture has the same ``capture_value`` (every piece is worth the same): the search
    #: then orders captures by its history alone, without asking each move its value.
    equal_captures: bool = False
    #: The moves a clock without ``movestogo`` is planned for (``timeman.budget``): a game whose
    #: games are short spends more of its clock a move.
    moves_to_go: int = DEFAULT_MOVES_TO_GO
    #: The search asks :meth:`State.threatened` at its inner nodes and searches a threatened
    #: position a ply deeper (as chess engines extend a check); off, it never asks.
    threat_extension: bool = False
    #: The search asks :meth:`State.wins_at_once` at its inner nodes and scores a node whose
    #: side to move can win at once as won next move, without searching it; off, it never asks.
    win_detection: bool = False
    #: The search tries the captures (:meth:`State.captures`) before it generates and sorts
    #: the quiet moves (:meth:`State.quiet_moves`), by the keys of all moves at once (the quiet
    #: moves read the history as it stands once the captures are searched): it pays where
    #: captures often cut off, and costs a second generation where they do not.
    captures_first: bool = False
    #: The search remembers, per side and per move of the opponent, the quiet move that last
    #: refuted it (a counter move), and tries it after the killers, unreduced.
    counter_moves: bool = False
    #: A quiet move whose history exceeds 4 depth squared (it refuted several nodes as deep)
    #: is reduced a ply less by the late move reductions.
    history_lmr: bool = False
    #: Quiescence's last ply (a leaf that only stands pat) looks its evaluation up in the
    #: search's memo of evaluations by key and stores it there: it pays where an evaluation
    #: costs more than the lookup, which is a cache miss in a large table (measured: the
    #: compiled Zola evaluation in words is 10-13% faster to depth 6-9 without it, the
    #: interpreted one 8-20% slower, and Zhadu's 2.5% slower without it compiled).
    cache_leaf_evaluations: bool = True


@dataclass(frozen=True)
class OpeningSettings:
    """How a variant's balanced openings are drawn and judged."""

    #: Random moves after the setup plies (if the game has any).
    moves: int
    #: Depth of the judging search.
    depth: int
    #: Largest absolute score (centipawns, side to move's view) of a kept opening.
    window: int


#: A tuned weight of an evaluation: a module constant, or (name, index) of an entry of a tuple.
Weight = tuple[str, int | None]


@dataclass(frozen=True)
class EvaluationTuning:
    """What the tuner (``zengine.tools.dev.tune``) may change in a game's evaluation."""

    #: The evaluation's module: the weights are its constants.
    module: ModuleType
    weights: tuple[Weight, ...]
    #: Called after the weights or the win constant change, to rebuild what is derived from
    #: them (tables, or the weights as native fields).
    refresh: Callable[[], None] = lambda: None
    #: A constant holding a "wins at once" score that is no weight: set apart (0) while the
    #: features are read, and positions it decides are left out.
    win_constant: str | None = None


class Rules(ABC):
    """A game with fixed rule options: the factory of its positions.

    A game subclasses this once; an instance is one rule set (``ZhaduRules("star", 50)``). The
    class attributes below are the game's declaration, read by the registry
    (:mod:`zengine.engine.variants`), the protocol, the referee and ``zengine bench``.
    """

    #: The game's name, e.g. ``"zola"``: what ``setup`` takes besides the variant names.
    game: ClassVar[str]
    #: Variant name -> the rule options it implies, the game's own name among them (first, with
    #: no options: ``{"zola": {}, "zola-8": {"size": "8"}}``). Listed to users in this order.
    VARIANTS: ClassVar[Mapping[str, Mapping[str, str]]]
    #: The rule options ``setup`` accepts, with their defaults and allowed values.
    RULES: ClassVar[tuple[Rule, ...]] = ()
    #: Rules whose default is an engine option, in the order the handshake lists them.
    ENGINE_OPTIONS: ClassVar[tuple[RuleOption, ...]] = ()
    #: Variant name -> position strings ``zengine bench`` searches (None: the start position).
    #: A variant not listed benches its start position only.
    BENCH_POSITIONS: ClassVar[Mapping[str, tuple[str | None, ...]]] = {}
    #: Variant name -> how its balanced openings are drawn and judged (the openings builder,
    #: ``zengine.tools.dev.openings``). A variant not listed has no defaults there.
    OPENING_SETTINGS: ClassVar[Mapping[str, OpeningSettings]] = {}
    #: Player names for people (``("Red", "Blue")``); p1 is index 0.
    player_names: ClassVar[tuple[str, str]]
    #: Plies of a placement phase before the stones move (0 if the game has none).
    setup_plies: ClassVar[int] = 0

    #: The canonical variant name, e.g. ``"zola-8"``; one of ``VARIANTS``.
    name: str
    #: Every rule option with its canonical text value, e.g. ``{"size": "8"}``.
    options: dict[str, str]

    @classmethod
    @abstractmethod
    def from_options(cls, options: Mapping[str, str]) -> Rules:
        """The rules for ``setup`` options (lower-case names, text values), the others at their
        defaults; raises :class:`UnknownRuleError` or :class:`BadRuleValueError`."""

    @classmethod
    def rule_values(cls, options: Mapping[str, str]) -> dict[str, str]:
        """Every declared rule's canonical value: those given checked, the others defaulted.

        The usual first step of :meth:`from_options`; raises :class:`UnknownRuleError` for a
        name not in ``RULES`` and :class:`BadRuleValueError` for a value it does not allow.
        """
        rules = {rule.name: rule for rule in cls.RULES}
        values = {rule.name: rule.default for rule in cls.RULES}
        for key, text in options.items():
            rule = rules.get(fold_case(key))
            if rule is None:
                known = ", ".join(rules) or "none"
                raise UnknownRuleError(
                    f"unknown rule '{shown(key)}' for {cls.game} (rules: {known})"
                )
            values[rule.name] = rule.value(text)
        return values

    @abstractmethod
    def start(self) -> State:
        """The start position of this variant."""

    @abstractmethod
    def parse_position(self, text: str) -> State:
        """The position a position string describes; raises :class:`PositionError`."""

    @abstractmethod
    def evaluation(self) -> Callable[[State], int]:
        """The game's static evaluation: ``f(state) -> centipawns for the side to move``.

        It is only ever given states of these rules. Games import it here, on first use, so
        that listing the games does not load every evaluation."""

    def tuning(self) -> EvaluationTuning | None:
        """The evaluation's tunable weights, or None when the game offers none."""
        return None

    def table_codec(self) -> TableCodec | None:
        """The game's endgame tables for these rules (:mod:`zengine.engine.endgame`), or None
        when the game offers none."""
        return None

    def opening_settings(self) -> OpeningSettings | None:
        """This variant's openings settings (``OPENING_SETTINGS``), or None."""
        return self.OPENING_SETTINGS.get(self.name)

    def search_parameters(self) -> SearchParameters:
        """The search settings this game's evaluation is tuned for (the defaults unless a game
        says otherwise)."""
        return SearchParameters()

    def bench_states(self) -> list[State]:
        """The positions ``zengine bench`` searches for this variant (``BENCH_POSITIONS``)."""
        texts = self.BENCH_POSITIONS.get(self.name, (None,))
        return [self.start() if text is None else self.parse_position(text) for text in texts]

    @cached_property
    def key_salt(self) -> int:
        """A number the game XORs into every position key of these rules (:data:`KEY_BITS`).

        Derived from the game and its rule options (not Python's per-process ``hash``), so the
        same rules give the same keys in every process, and equal boards under different rules
        (``zhadu`` and ``zhadu-star``, or another ``quiet``, which changes outcomes) never share
        a key in a search table."""
        # A text seed goes through SHA-512 (deterministic in every process); random is loaded
        # anyway, while importing hashlib measured ~10 ms of the protocol's start-up.
        return key_number(random.Random(self.describe()))

    def describe(self) -> str:
        """The game with its rules, as text for people and records
        (``zhadu links full quiet 50``)."""
        extra = " ".join(f"{k} {v}" for k, v in sorted(self.options.items()))
        return f"{self.game} {extra}".strip()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and (self.game, self.options) == (other.game, other.options)

    def __hash__(self) -> int:
        return hash((self.game, tuple(sorted(self.options.items()))))

    def __repr__(self) -> str:
        return f"<Rules {self.describe()}>"


class State(ABC):
    """One position of a game, with make/unmake.

    Implementations keep their hot data in plain ints; the methods below are the only
    contract. ``play`` must only be given moves from ``legal_moves`` (it does not check);
    ``parse_move`` is the checked entry point for text.
    """

    rules: Rules

    # --- moves -----------------------------------------------------------------------------
    @abstractmethod
    def legal_moves(self) -> list[int]:
        """Every legal move (``pass`` included when it is the only one); empty iff game over."""

    def captures(self) -> list[int]:
        """The legal moves that capture (for quiescence search); empty once the game is over."""
        return [m for m in self.legal_moves() if self.is_capture(m)]

    def quiet_moves(self) -> list[int]:
        """The legal moves that do not capture (``pass`` when it is the only move): with
        :meth:`captures`, every legal move (for a search that tries captures first)."""
        return [m for m in self.legal_moves() if not self.is_capture(m)]

    def count_moves(self) -> int:
        """``len(self.legal_moves())``, possibly faster: perft's bulk count at the leaves."""
        return len(self.legal_moves())

    def count_replies(self) -> int:
        """The sum of :meth:`count_moves` after each legal move (perft 2), possibly faster:
        perft's bulk count over its last two plies."""
        total = 0
        play, undo, count = self.play, self.undo, self.count_moves
        for move in self.legal_moves():
            play(move)
            total += count()
            undo()
        return total

    def is_legal_move(self, move: int) -> bool:
        """Whether ``move`` is one of :meth:`legal_moves`, for any int ``move`` (a table move
        from another position, or garbage): never raises.

        Games override this with a check cheaper than generating every move."""
        return move in self.legal_moves()

    @abstractmethod
    def is_capture(self, move: int) -> bool:
        """Whether the (legal) move captures a stone."""

    def capture_value(self, move: int) -> int:
        """A rough worth of what the move captures (0 if nothing), for move ordering."""
        return 1 if self.is_capture(move) else 0

    @abstractmethod
    def play(self, move: int) -> None:
        """Make a legal move in place."""

    @abstractmethod
    def undo(self) -> None:
        """Unmake the last move made with :meth:`play`; restores position, hash and counters."""

    def expected_moves_left(self) -> int | None:
        """How many more moves the side to move is expected to think about before the game is
        decided (the last moves of a decided game take no time), for planning a clock without
        ``movestogo`` (:func:`~zengine.engine.timeman.planned_moves`); None, the default: the
        game cannot tell, and the clock is planned for ``SearchParameters.moves_to_go``."""
        return None

    def threatened(self) -> bool:
        """Whether the opponent, were it to move now, would win at once: the side to move
        must parry (a check, in chess terms). Asked only where the game's
        ``SearchParameters.threat_extension`` is on; never threatened by default."""
        return False

    def wins_at_once(self) -> bool:
        """Whether the side to move has a move that wins the game at once (a mate in one).
        Asked only where the game's ``SearchParameters.win_detection`` is on; never by
        default."""
        return False

    def null_move_allowed(self) -> bool:
        """Whether the search may try a null move here (:meth:`play_null`): never by default.

        A game allows it where handing the opponent the move is almost never better than any
        move of one's own (no zugzwang), which lets the search prove a position good enough
        without a move of its own (null-move pruning)."""
        return False

    def play_null(self) -> None:
        """Hand the move to the opponent without moving (only where :meth:`null_move_allowed`);
        nothing else changes, and it is no move of the game: :meth:`undo_null` takes it back,
        :meth:`undo` and :attr:`history_length` do not see it."""
        raise NotImplementedError(f"{type(self).__name__} has no null move")

    def undo_null(self) -> None:
        """Take back :meth:`play_null`."""
        raise NotImplementedError(f"{type(self).__name__} has no null move")

    @abstractmethod
    def copy(self) -> State:
        """An independent copy, with the same history (so repetitions still count)."""

    # --- the game's state ------------------------------------------------------------------
    # Implementations keep three plain attributes that these accessors read: ``stm`` (0 if p1
    # is to move, 1 if p2), ``_key`` (the incrementally kept hash) and ``stack`` (one entry per
    # move that ``undo`` can take back).
    stm: int
    _key: int
    stack: list

    @property
    def side_to_move(self) -> int:
        """0 if p1 is to move, 1 if p2."""
        return self.stm

    @property
    def key(self) -> int:
        """A hash of everything that makes two positions the same for the rules, and of the
        rules themselves (:attr:`Rules.key_salt`): a non-negative int of :data:`KEY_BITS`
        bits."""
        return self._key

    @property
    def history_length(self) -> int:
        """How many moves :meth:`undo` can take back."""
        return len(self.stack)

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended (result and the rule's own word, such as ``repetition``) if it
        is over, else None."""

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome() is not None

    # --- text --------------------------------------------------------------------------------
    @abstractmethod
    def move_text(self, move: int) -> str:
        """The canonical text of a move (of this position)."""

    @abstractmethod
    def parse_move(self, text: str) -> int:
        """The legal move a text names.

        Raises :class:`InvalidMoveError` if the text is no move in the notation and
        :class:`IllegalMoveError` if it is one that is not legal here.
        """

    @abstractmethod
    def position_text(self) -> str:
        """The position string (the protocol's ``fen``)."""

    @abstractmethod
    def diagram(self) -> str:
        """A multi-line picture of the board for people (the protocol's ``d``)."""

    # --- what a move is made of (click-to-move in ``zengine gui``) ----------------------------
    def move_squares(self, move: int) -> tuple[str, ...]:
        """The squares or points a player picks, in order, to make ``move`` (its origin, then
        its destination), named as the game's notation and its picture (``data-square``)
        name them; ``()`` for a move made of none (a pass). A user interface asks this
        instead of knowing the rules. The default reads them off :meth:`move_text` (each letter
        followed by digits), which suits notations such as ``a1-b2``."""
        return tuple(_SQUARE_WORD.findall(self.move_text(move)))

    def move_stone(self, move: int) -> str | None:
        """The stone in hand that ``move`` places (as its picture's ``data-stone`` names it),
        picked before its point; None for a move of a piece already on the board (the
        default: games without placements)."""
        return None

    # --- pictures (``zengine svg``) ----------------------------------------------------------
    def svg(self, size: int = 480, last_move: int | None = None) -> str:
        """The position as a self-contained SVG file ``size`` pixels wide, with ``last_move``
        (the move that led here, as :meth:`parse_last_move` gives it) highlighted.

        Games override this with a drawing of their board; this default writes
        :meth:`diagram` as text, so every game has some picture.
        """
        lines = self.diagram().splitlines()
        if last_move is not None:
            before = self.copy()
            if before.history_length:
                before.undo()
            lines += ["", f"Last move: {before.move_text(last_move)}"]
        em, pad = 14.0, 10.0
        width = max(len(line) for line in lines) * 0.6 * em + 2 * pad
        height = len(lines) * 1.25 * em + 2 * pad
        text = [
            element(
                "text",
                text=line,
                x=pad,
                y=pad + (i + 0.8) * 1.25 * em,
                font_family="DejaVu Sans Mono, Menlo, Consolas, monospace",
                font_size=em,
                **{"xml:space": "preserve"},
            )
            for i, line in enumerate(lines)
        ]
        body = [element("rect", width="100%", height="100%", fill="#ffffff"), *text]
        return document(width, height, size, f"{self.rules.name}: {self.position_text()}", body)

    def parse_last_move(self, text: str) -> int:
        """The move a text names as the one just played to reach this position (to highlight
        it in a picture of a position given without its moves).

        Raises :class:`InvalidMoveError` for text that is no move in the notation and
        :class:`IllegalMoveError` for a move that cannot have led here. Games override this to
        check it against the position alone; this default needs the move in the history.
        """
        try:
            self.parse_move(text)  # bad notation is a syntax error wherever it is read
        except IllegalMoveError:
            pass
        if not self.history_length:
            raise IllegalMoveError(
                f"cannot tell whether '{shown(text)}' led to this position: give the moves instead"
            )
        before = self.copy()
        before.undo()
        move = before.parse_move(text)
        before.play(move)
        if before.key != self.key:
            raise IllegalMoveError(f"'{shown(text)}' is not the move that led to this position")
        return move

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.position_text()!r}>"


#: A square or point name in move text: a letter, then digits (``a1``, ``b10``; in ``a1xb2``
#: the ``x`` is followed by a letter, so it starts no name).
_SQUARE_WORD = re.compile(r"[a-z][0-9]+")


def sorted_moves(state: State) -> list[tuple[str, int]]:
    """The legal moves as ``(text, move)`` pairs in code-point order of the text."""
    return sorted((state.move_text(m), m) for m in state.legal_moves())


def legal_moves_text(state: State) -> list[str]:
    """The legal moves as canonical text, in code-point order."""
    return [text for text, _ in sorted_moves(state)]


def play_texts(state: State, texts: Iterable[str]) -> int:
    """Play move texts in order, all or none; returns how many were played.

    On an error the state is restored and the error is re-raised with the failing move's
    index in ``error.args``-independent attribute ``index``.
    """
    played = 0
    try:
        for text in texts:
            state.play(state.parse_move(text))
            played += 1
    except MoveError as exc:
        for _ in range(played):
            state.undo()
        exc.index = played  # type: ignore[attr-defined]
        raise
    return played
