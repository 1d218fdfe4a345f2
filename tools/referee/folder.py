"""The output folder of a match (``zengine match --out DIR``): its files, named once, and its
handling: the new folder, the checks before a match writes in it, its lock, its ``config.json``.

The referee writes the files (:mod:`tools.referee.runner`, :mod:`tools.referee.cluster`),
``--resume`` reads them back, and ``zengine report`` reads them to write its page;
docs/referee.md lists what each holds.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shlex
import socket
import stat
from datetime import UTC, datetime
from pathlib import Path

from zengine.engine.text import shown
from zengine.tools.referee.config import ConfigError, MatchConfig
from zengine.tools.referee.records import write_atomic

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
PGN_FILE = "games.pgn"
SUMMARY_FILE = "summary.json"
STDERR_FILE = "engines-stderr.log"
TRAFFIC_FILE = "traffic.log"
LOCK_FILE = "lock"
PROCESS_FILE = "engines.pids"
#: The page of ``zengine report DIR``, also written at the end of a match.
REPORT_FILE = "report.html"
#: The files the referee keeps in the folder: each must be a regular file if it exists.
FOLDER_FILES = (
    CONFIG_FILE,
    GAMES_FILE,
    PGN_FILE,
    SUMMARY_FILE,
    STDERR_FILE,
    TRAFFIC_FILE,
    LOCK_FILE,
    PROCESS_FILE,
)

#: A config.json is a few kilobytes; reading is capped (a wrong file must not fill the memory).
MAX_CONFIG_BYTES = 1024 * 1024


def resume_command(out_dir: Path) -> str:
    """The command that resumes a match, as a shell runs it (the folder quoted)."""
    return f"zengine match --resume {shlex.quote(str(out_dir))}"


class FolderLock:
    """The lock of an output folder: one referee writes a folder at a time.

    An advisory ``fcntl.flock`` on ``DIR/lock``, which names its holder (pid and host). The
    system releases it when the process ends, however it ends (SIGKILL too), so a stale lock
    cannot stop a resume. The file stays: removing it would let a third referee lock a new file
    while a second still waits on the old one. Engines do not inherit it (Python opens files
    non-inheritable), so an orphaned engine cannot hold it either."""

    def __init__(self, folder: Path) -> None:
        path = folder / LOCK_FILE
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise ConfigError(f"cannot write in {folder}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _lock_holder(fd)
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise ConfigError(
                    f"{folder} is in use by another zengine match ({holder}); "
                    "wait for it to end or stop it"
                ) from None
            raise ConfigError(f"cannot lock {path}: {exc.strerror or exc}") from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"pid {os.getpid()} on host {socket.gethostname()}\n".encode())
        except OSError:
            pass  # the name of the holder only helps the message: the lock is what counts
        self.fd: int | None = fd

    def release(self) -> None:
        """Unlock (closing the file releases the lock); once is enough, more is harmless."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _lock_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", errors="replace").strip()
    except OSError:
        text = ""
    # The holder may not have written its name yet.
    return shown(text, 80) if text else "its pid is not written yet"


def check_folder(out_dir: Path) -> None:
    """Each file the referee keeps in the folder is a regular file if it is there (a
    directory in place of ``games.jsonl`` is a damaged folder, said in one line)."""
    for name in FOLDER_FILES:
        path = out_dir / name
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise ConfigError(f"{path}: {exc.strerror or exc}") from None
        if not stat.S_ISREG(mode):
            raise ConfigError(f"{path} is not a regular file: the folder is damaged")
    for name in FOLDER_FILES:  # left by a referee killed mid-write
        try:
            os.unlink(out_dir / (name + ".tmp"))
        except OSError:
            pass


def new_out_dir(base: str | None) -> Path:
    """``--out DIR`` (created), or a new ``./matches/<UTC timestamp>`` directory."""
    if base:
        path = Path(base)
        if path.exists() and not path.is_dir():
            raise ConfigError(f"--out {base}: not a directory")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--out {base}: {exc.strerror or exc}") from None
        return path
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    root = Path("matches")
    for n in range(1000):
        path = root / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
        except OSError as exc:
            raise ConfigError(
                f"cannot create the output folder {path}: {exc.strerror or exc} (give --out DIR)"
            ) from None
    raise ConfigError("cannot create an output directory under ./matches (give --out DIR)")


def check_unused(out_dir: Path) -> None:
    """A new match may not write into a folder holding another's games (checked under the
    folder's lock, so that a match starting there meanwhile is seen)."""
    games = out_dir / GAMES_FILE
    try:
        used = games.stat().st_size > 0
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"{games}: {exc.strerror or exc}") from None
    if used:
        raise ConfigError(
            f"--out {out_dir}: it already holds games; use --resume {shlex.quote(str(out_dir))} "
            "to continue it"
        )


def check_not_foreign(out_dir: Path) -> None:
    """A new match may write into a folder of a match that ended before its first game, but
    does not overwrite files of any other origin (a games.pgn of cutechess's, say). Checked
    before the folder's lock is taken, so that a refused folder is left as it was."""
    try:
        read_config(out_dir)
        return
    except ConfigError:
        pass
    written = [name for name in (*FOLDER_FILES, REPORT_FILE) if name != LOCK_FILE]
    found = [name for name in written if os.path.lexists(out_dir / name)]
    if found:
        raise ConfigError(
            f"--out {out_dir}: it holds {', '.join(found)}, which a match would overwrite; "
            "give a new folder"
        )


def write_config(config: MatchConfig, out_dir: Path) -> None:
    """``DIR/config.json`` (atomically), what ``--resume`` reads back. An OSError is raised
    (no temporary file is left)."""
    write_atomic(
        str(out_dir / CONFIG_FILE), json.dumps(config.to_json(), indent=2, sort_keys=True) + "\n"
    )


def read_config(out_dir: Path) -> MatchConfig:
    """The configuration stored in ``DIR/config.json`` (ConfigError if there is none, or it
    is not a configuration)."""
    path = out_dir / CONFIG_FILE
    try:
        # Opened without waiting: a FIFO in its place is refused, not waited on.
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ConfigError(f"--resume {out_dir}: {path} is not a regular file")
            text = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"--resume {out_dir}: no {CONFIG_FILE}: not a match folder") from None
    except OSError as exc:
        raise ConfigError(f"--resume {out_dir}: {path}: {exc.strerror or exc}") from None
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(f"--resume {out_dir}: {path} is too large for a configuration")
    try:
        data = json.loads(text.decode("utf-8-sig"))  # a byte order mark an editor left is fine
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ConfigError(
            f"--resume {out_dir}: {path} is not JSON: the folder is damaged"
        ) from None
    try:
        return MatchConfig.from_json(data)
    except ConfigError as exc:
        raise ConfigError(f"--resume {out_dir}: {path}: {exc}") from None
