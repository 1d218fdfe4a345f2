"""The engines' programs before a match: :func:`check_commands` makes sure every engine's
program can be run (a typo is one line, not a forfeit of the first game); :func:`builtin_engine`
is the command of this installation's own engine."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from zengine.engine.text import shown
from zengine.tools.referee.config import EngineConfig
from zengine.tools.referee.words import ConfigError


def builtin_engine() -> list[str]:
    """The command of the built-in engine: the ``zengine`` script of this installation."""
    beside = Path(sys.executable).with_name("zengine")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("zengine")
    if found:
        return [found]
    return [sys.executable, "-m", "zengine"]


def check_commands(engines: Sequence[EngineConfig]) -> None:
    """Check that every engine's program exists and may be run (and its ``dir=`` exists), so
    that a typo is one line before the match starts, not a forfeit of the first game.

    The program is the first word of ``cmd``: a path (relative to ``dir=`` if given, as the
    process will be started there) or a name looked up on PATH."""
    for engine in engines:
        where = f"--engine {shown(engine.name, 300)}"
        workdir = engine.workdir
        if workdir is not None and not os.path.isdir(workdir):
            raise ConfigError(f"{where}: dir={shown(workdir, 300)}: no such directory")
        program = engine.cmd[0]
        if "/" not in program:
            if shutil.which(program) is None:
                raise ConfigError(
                    f"{where}: cmd={shown(program, 300)}: no such program on PATH (give its path)"
                )
            continue
        path = os.path.join(workdir or "", program)
        try:
            is_file = stat.S_ISREG(os.stat(path).st_mode)
        except OSError as exc:
            raise ConfigError(f"{where}: cmd={shown(program, 300)}: {exc.strerror}") from None
        if not is_file:
            raise ConfigError(f"{where}: cmd={shown(program, 300)}: not a file")
        if not os.access(path, os.X_OK):
            raise ConfigError(
                f"{where}: cmd={shown(program, 300)}: not executable (make it so, or run it "
                'through its interpreter: cmd="python3 engine.py")'
            )
