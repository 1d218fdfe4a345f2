"""``zengine match --tables DIR``: a game that reaches a position of the endgame tables ends
there with the tables' exact result (as cutechess-cli's ``-tb``): termination
``adjudication``, ``lost by the tables, N plies from the end``.

Generic over the games (:mod:`zengine.engine.endgame`): a game or material without tables is
played on, and so is one of more pieces than ``-tbpieces`` allows. Each process opens a folder
once (every file is checked then).
"""

from __future__ import annotations

import os

from zengine.engine.endgame import TableError, TableFolder
from zengine.engine.game import State
from zengine.engine.text import shown
from zengine.engine.values import Result
from zengine.tools.referee.terminations import Ending, Termination
from zengine.tools.referee.words import ConfigError, utf8_text

#: The files of Syzygy's chess tables, which cutechess's ``-tb`` takes.
SYZYGY_SUFFIXES = (".rtbw", ".rtbz")
#: Folders opened in this process, by path.
_opened: dict[str, TableFolder] = {}


def table_folder(path: str) -> TableFolder:
    """The folder of tables at ``path``, opened once per process; raises
    :class:`~zengine.engine.endgame.TableError` with the reason."""
    folder = _opened.get(path)
    if folder is None:
        folder = _opened[path] = TableFolder(path)
    return folder


def table_ending(path: str, state: State, max_pieces: int | None = None) -> Ending | None:
    """The exact ending of a game at ``state`` if the tables hold it, else None; with
    ``max_pieces`` (cutechess's ``-tbpieces``), only a position of at most that many pieces
    on the board."""
    tables = table_folder(path).for_rules(state.rules)
    if tables is None:
        return None
    if max_pieces is not None:
        material = tables.codec.material(state)
        if material is None or tables.codec.pieces(material) > max_pieces:
            return None
    plies = tables.probe(state)
    if plies is None:
        return None
    side = state.side_to_move
    winner = side if plies % 2 else side ^ 1  # odd: the side to move wins
    # said of the loser in records: "B lost by the tables, 7 plies from the end"
    detail = f"lost by the tables, {plies} plies from the end"
    return Ending(Result.win_for(winner), Termination.ADJUDICATION, detail)


def table_option(option: str, text: str) -> str:
    """``--tables DIR`` or cutechess's ``-tb DIR``: the absolute path of a folder of zengine's
    endgame tables, every table checked (ConfigError naming ``option`` as written). A folder
    of Syzygy files, or a list of folders as cutechess's ``-tb`` takes them, is refused:
    those are chess's."""
    path = utf8_text(option, text)
    syzygy = (
        f"{option} {shown(text, 300)}: Syzygy tables are chess's (give a folder of zengine's "
        "own tables, made by zengine tables build)"
    )
    if not os.path.isdir(path) and any(separator in path for separator in ":;"):
        raise ConfigError(syzygy)
    try:
        names = os.listdir(path) if os.path.isdir(path) else []
    except OSError:
        names = []  # the check of the folder's tables says what is wrong with it
    if any(name.lower().endswith(SYZYGY_SUFFIXES) for name in names):
        raise ConfigError(syzygy)
    try:  # opened once per process: the configuration's own check finds it open
        table_folder(os.path.abspath(path))
    except TableError as exc:
        raise ConfigError(f"{option}: {exc}") from None
    return os.path.abspath(path)
