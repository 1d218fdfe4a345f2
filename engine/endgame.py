"""Endgame tables: the exact value of every position of a few pieces, for games that offer them.

Generic over the game interface: a game offers tables through :meth:`Rules.table_codec`, a
:class:`TableCodec` that names the materials (which pieces are on the board, from the side to
move's view), numbers their positions and builds their values. Everything else is here: the
file format, the folder of tables, the probe the search and the referee use, and the best
moves of a table position.

**Values.** A table holds one byte per position: the number of plies to the end of the game
under best play, the winner playing for the shortest, the loser for the longest end. The games
with tables have no draws, so the parity is the result: odd, the side to move wins; even, it
loses (a finished game is 0 plies from its end, lost for the side to move). :data:`NO_VALUE`
marks an index that is no position.

**Files.** ``<variant>-<material>.ztb``: a line ``zengine-table``, a line of JSON (format
version, game, variant and its rule options, material, number of entries, SHA-256 of the
values), then the values compressed with zlib. Every field and the checksum are checked when
a file is opened: a damaged or foreign file is one :class:`TableError` naming it and the reason,
never a wrong value. Files are written to a temporary name and renamed when complete.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zengine.engine.game import sorted_moves
from zengine.engine.text import shown

if TYPE_CHECKING:
    from zengine.engine.game import Rules, State

#: The version of the file format (a reader refuses others).
FORMAT_VERSION = 1
MAGIC = b"zengine-table\n"
SUFFIX = ".ztb"
#: The byte of an index that is no position (values are plies, at most 254).
NO_VALUE = 255
#: Where a file being written lives until it is complete (renamed then): ``.<name>.tmp-<pid>``.
TEMPORARY_MARK = ".tmp-"


class TableError(Exception):
    """A table folder or file that cannot be used, or a build that found the rules broken:
    one line saying which and why."""


@dataclass(frozen=True)
class Header:
    """What a table file says it holds."""

    game: str
    variant: str
    options: dict[str, str]
    material: str
    entries: int
    sha256: str
    numbering: str


class TableCodec(ABC):
    """A game's tables for one rule set: materials, position numbers and the builder.

    A *material* is a short text naming which pieces are on the board, the side to move's
    first (``3v1`` in Zola). Materials are built in stages (:meth:`plan`): a stage needs only
    tables of earlier stages; the materials of one *group* need each other and are built
    together."""

    rules: Rules
    #: How positions are numbered: stored in every file, and a file numbered otherwise is
    #: refused (its values would belong to other positions).
    numbering: str

    @abstractmethod
    def material(self, state: State) -> str | None:
        """The material of a position, or None once the game is over."""

    @abstractmethod
    def index(self, state: State) -> int:
        """The position's index in the table of its material (the game not over)."""

    @abstractmethod
    def prepare(self, materials: list[str]) -> None:
        """Make now what probing these materials needs (not inside a search's clock)."""

    @abstractmethod
    def entries(self, material: str) -> int:
        """How many values the table of ``material`` holds."""

    @abstractmethod
    def plan(self, pieces: int) -> list[list[tuple[str, ...]]]:
        """The stages of groups of materials with at most ``pieces`` pieces on the board."""

    @abstractmethod
    def build(
        self,
        group: tuple[str, ...],
        tables: Mapping[str, bytes],
        progress: Callable[[int], None],
    ) -> dict[str, bytes]:
        """The values of the materials of ``group``, given the tables of earlier stages
        (``tables``); ``progress(n)`` is told of every ``n`` positions solved. Raises
        :class:`TableError` for a position the game's rules say cannot occur."""

    @abstractmethod
    def pieces(self, material: str) -> int:
        """How many pieces a material has on the board (for ordering and reports)."""


def table_name(rules: Rules, material: str) -> str:
    """The file name of a material's table."""
    return f"{rules.name}-{material}{SUFFIX}"


def write_table(folder: Path, codec: TableCodec, material: str, values: bytes) -> Path:
    """Write a table file, complete or not at all (a temporary name, renamed when written)."""
    rules = codec.rules
    path = folder / table_name(rules, material)
    header = {
        "numbering": codec.numbering,
        "format": FORMAT_VERSION,
        "game": rules.game,
        "variant": rules.name,
        "options": dict(rules.options),
        "material": material,
        "entries": len(values),
        "sha256": hashlib.sha256(values).hexdigest(),
    }
    temporary = folder / f".{path.name}{TEMPORARY_MARK}{os.getpid()}"
    try:
        with open(temporary, "wb") as out:
            out.write(MAGIC)
            out.write(json.dumps(header, sort_keys=True).encode() + b"\n")
            out.write(zlib.compress(values, 9))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
    return path


def remove_temporaries(folder: Path) -> None:
    """Remove what interrupted writes left (files of processes that were killed)."""
    for path in folder.glob(f".*{SUFFIX}{TEMPORARY_MARK}*"):
        try:
            path.unlink()
        except OSError:
            pass


def read_table(path: Path) -> tuple[Header, bytes]:
    """A table file's header and values, every field checked; raises :class:`TableError`."""

    def bad(reason: str) -> TableError:
        return TableError(f"table {shown(path.name, 80)}: {reason}")

    try:
        with open(path, "rb") as stream:
            magic = stream.read(len(MAGIC))
            if magic != MAGIC:
                raise bad("not a zengine table (no 'zengine-table' first line)")
            line = stream.readline(4096)
            body = stream.read()
    except OSError as exc:
        raise bad(exc.strerror or str(exc)) from None
    try:
        fields: Any = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise bad("damaged header") from None
    expected = {
        "format": int,
        "game": str,
        "variant": str,
        "options": dict,
        "material": str,
        "entries": int,
        "sha256": str,
        "numbering": str,
    }
    if not isinstance(fields, dict) or any(
        not isinstance(fields.get(k), kind) for k, kind in expected.items()
    ):
        raise bad("damaged header")
    if fields["format"] != FORMAT_VERSION:
        raise bad(f"format {fields['format']}, this zengine reads format {FORMAT_VERSION}")
    try:
        values = zlib.decompress(body)
    except zlib.error:
        raise bad("damaged values (they do not decompress)") from None
    if len(values) != fields["entries"]:
        raise bad(f"{len(values)} values, the header says {fields['entries']}")
    if hashlib.sha256(values).hexdigest() != fields["sha256"]:
        raise bad("damaged values (checksum mismatch)")
    options = {str(k): str(v) for k, v in fields["options"].items()}
    header = Header(
        fields["game"],
        fields["variant"],
        options,
        fields["material"],
        len(values),
        fields["sha256"],
        fields["numbering"],
    )
    return header, values


def check_table(path: Path, header: Header, rules: Rules, codec: TableCodec) -> None:
    """Refuse a table that is not of ``rules`` or whose size is not its material's."""
    if (header.game, header.options) != (rules.game, dict(rules.options)):
        raise TableError(
            f"table {shown(path.name, 80)}: made for {header.variant}, not {rules.name}"
        )
    if header.numbering != codec.numbering:
        raise TableError(
            f"table {shown(path.name, 80)}: numbered '{shown(header.numbering, 80)}',"
            f" this zengine numbers '{codec.numbering}' (build the table again)"
        )
    try:
        entries = codec.entries(header.material)
    except ValueError:
        raise TableError(
            f"table {shown(path.name, 80)}: unknown material '{shown(header.material)}'"
        ) from None
    if entries != header.entries:
        raise TableError(
            f"table {shown(path.name, 80)}: {header.entries} values, material"
            f" {header.material} has {entries}"
        )


class EndgameTables:
    """The tables of one rule set: the probe of the search, the referee and the command."""

    def __init__(self, codec: TableCodec, tables: dict[str, bytes]) -> None:
        self.codec = codec
        self.tables = tables
        #: Positions found in a table since made (the protocol's ``tbhits``).
        self.hits = 0
        self._material = codec.material
        self._index = codec.index
        codec.prepare(list(tables))

    def probe(self, state: State) -> int | None:
        """Plies to the end under best play (odd: the side to move wins), or None if no table
        holds the position."""
        material = self._material(state)
        if material is None:
            return None
        values = self.tables.get(material)
        if values is None:
            return None
        value = values[self._index(state)]
        if value == NO_VALUE:
            return None
        self.hits += 1
        return value

    def materials(self) -> list[str]:
        """The materials present, fewest pieces first."""
        return sorted(self.tables, key=lambda m: (self.codec.pieces(m), m))


def after_move(tables: EndgameTables, state: State, move: int) -> int | None:
    """Plies to the end after ``move`` (0 if it ends the game), or None if not in a table."""
    state.play(move)
    try:
        if state.outcome() is not None:
            return 0
        return tables.probe(state)
    finally:
        state.undo()


def _order(after: int) -> tuple[int, int]:
    """How good a move is for its mover, by the plies to the end after it (less is better):
    the mover wins through a successor lost for the opponent (an even count), the shortest
    first; else it loses, the longest first."""
    return (1, -after) if after & 1 else (0, after)


def better_after(after: int, than: int) -> bool:
    """Whether a move leading ``after`` plies from the end is better for its mover than one
    leading ``than`` plies from it."""
    return _order(after) < _order(than)


def ranked_moves(tables: EndgameTables, state: State) -> list[tuple[int, int]]:
    """Every legal move with the plies to the end after it, best first for the side to move
    (the shortest win, else the longest loss), equals in code-point order of their text;
    empty if a successor is not in the tables."""
    rows = []
    for _, move in sorted_moves(state):
        after = after_move(tables, state, move)
        if after is None:
            return []
        rows.append((move, after))
    rows.sort(key=lambda row: _order(row[1]))  # stable: equals keep the order of their texts
    return rows


def table_line(tables: EndgameTables, state: State, move: int) -> list[int]:
    """The best play of the tables after ``move`` to the end of the game (cut where a position
    leaves them)."""
    state.play(move)
    try:
        return best_line(tables, state)
    finally:
        state.undo()


def best_line(tables: EndgameTables, state: State) -> list[int]:
    """The best play of the tables from ``state`` to the end of the game (empty if the
    position is not in them)."""
    line: list[int] = []
    try:
        while state.outcome() is None and len(line) < NO_VALUE:
            rows = ranked_moves(tables, state)
            if not rows:
                break
            line.append(rows[0][0])
            state.play(rows[0][0])
    finally:
        for _ in line:
            state.undo()
    return line


def mate_moves(plies: int) -> int:
    """A value as ``score mate N``: the winner's moves to the end, negative when the side to
    move loses."""
    return (plies + 1) // 2 if plies % 2 else -(plies // 2)


class TableFolder:
    """A folder of tables, every file checked when opened; tables per rule set on demand."""

    def __init__(self, folder: str) -> None:
        path = Path(folder)
        if not path.exists():
            raise TableError(f"no such folder '{shown(folder, 80)}'")
        if not path.is_dir():
            raise TableError(f"'{shown(folder, 80)}' is not a folder")
        self.path = path
        self._by_variant: dict[tuple[str, tuple[tuple[str, str], ...]], dict[str, bytes]] = {}
        self._opened: dict[Rules, EndgameTables | None] = {}
        try:
            names = sorted(path.glob(f"*{SUFFIX}"))
        except OSError as exc:
            raise TableError(f"'{shown(folder, 80)}': {exc.strerror or exc}") from None
        from zengine.engine.game import GameError
        from zengine.engine.variants import make_rules

        for file in names:
            header, values = read_table(file)
            try:
                rules = make_rules(header.variant, header.options)
            except GameError as exc:
                raise TableError(f"table {shown(file.name, 80)}: {exc}") from None
            codec = rules.table_codec()
            if codec is None:
                raise TableError(f"table {shown(file.name, 80)}: {rules.name} has no tables")
            check_table(file, header, rules, codec)
            key = (rules.game, tuple(sorted(rules.options.items())))
            self._by_variant.setdefault(key, {})[header.material] = values

    def count(self) -> int:
        """How many tables the folder holds."""
        return sum(len(tables) for tables in self._by_variant.values())

    def for_rules(self, rules: Rules) -> EndgameTables | None:
        """The tables of ``rules`` (None if the folder has none of them)."""
        if rules not in self._opened:
            tables = self._by_variant.get((rules.game, tuple(sorted(rules.options.items()))))
            codec = rules.table_codec() if tables else None
            self._opened[rules] = EndgameTables(codec, tables) if codec and tables else None
        return self._opened[rules]


def load_tables(
    folder: Path, rules: Rules, codec: TableCodec, materials: list[str]
) -> dict[str, bytes]:
    """The tables of ``materials`` read from ``folder`` (each checked); missing ones left out."""
    tables: dict[str, bytes] = {}
    for material in materials:
        path = folder / table_name(rules, material)
        if path.exists():
            header, values = read_table(path)
            check_table(path, header, rules, codec)
            if header.material != material:
                raise TableError(f"table {path.name}: holds material {header.material}")
            tables[material] = values
    return tables
