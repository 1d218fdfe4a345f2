"""``zengine match --tables DIR``: a game that reaches a position of the endgame tables ends
there with the tables' exact result (as cutechess-cli's ``-tb``): termination
``adjudication``, ``lost by the tables, N plies from the end``.

Generic over the games (:mod:`zengine.engine.endgame`): a game or material without tables is
played on. Each process opens a folder once (every file is checked then).
"""

from __future__ import annotations

from zengine.engine.endgame import TableFolder
from zengine.engine.game import State
from zengine.engine.values import Result
from zengine.tools.referee.terminations import Ending, Termination

#: Folders opened in this process, by path.
_opened: dict[str, TableFolder] = {}


def table_folder(path: str) -> TableFolder:
    """The folder of tables at ``path``, opened once per process; raises
    :class:`~zengine.engine.endgame.TableError` with the reason."""
    folder = _opened.get(path)
    if folder is None:
        folder = _opened[path] = TableFolder(path)
    return folder


def table_ending(path: str, state: State) -> Ending | None:
    """The exact ending of a game at ``state`` if the tables hold it, else None."""
    tables = table_folder(path).for_rules(state.rules)
    plies = None if tables is None else tables.probe(state)
    if plies is None:
        return None
    side = state.side_to_move
    winner = side if plies % 2 else side ^ 1  # odd: the side to move wins
    # said of the loser in records: "B lost by the tables, 7 plies from the end"
    detail = f"lost by the tables, {plies} plies from the end"
    return Ending(Result.win_for(winner), Termination.ADJUDICATION, detail)
