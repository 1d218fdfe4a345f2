"""Helpers (no tests) shared by the protocol tests: an in-process session, the installed command."""

from __future__ import annotations

import os
import re
import shutil
import sys
import threading

from zengine.protocol.session import Session

#: A search's ``info`` line as the spec writes it (``multipv`` only with the option above 1).
INFO_RE = re.compile(
    r"^info depth \d+ seldepth \d+( multipv \d+)? score (cp -?\d+|mate -?\d+) nodes \d+ nps \d+ time \d+"
    r"( hashfull \d+)?( tbhits \d+)?( pv( \S+)+)?$"
)


class Script:
    """An in-process protocol session: send lines, get back the lines they printed."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self._lock = threading.Lock()
        self.session = Session(self._emit)

    def _emit(self, lines: list[str]) -> None:
        with self._lock:
            self.out.extend(lines)

    def send(self, *lines: str) -> list[str]:
        """Handle lines in order; the lines printed meanwhile (a search may add more later)."""
        start = len(self.out)
        for line in lines:
            assert self.session.handle(line), f"{line!r} ended the session"
        with self._lock:
            return self.out[start:]

    def mark(self) -> int:
        """Where the lines printed from now on start (for :meth:`since`)."""
        with self._lock:
            return len(self.out)

    def since(self, start: int) -> list[str]:
        """Every line printed since :meth:`mark` gave ``start``."""
        with self._lock:
            return self.out[start:]

    def finish(self) -> list[str]:
        """End of input: wait for (or stop an infinite) search; every line printed since."""
        start = len(self.out)
        self.session.finish()
        with self._lock:
            return self.out[start:]

    def search(self, line: str) -> list[str]:
        """Send a ``go`` line and return everything it printed up to its bestmove."""
        start = len(self.out)
        assert self.session.handle(line)
        self.session.finish()
        with self._lock:
            return self.out[start:]

    def one(self, line: str) -> str:
        """The single line a command prints."""
        reply = self.send(line)
        assert len(reply) == 1, (line, reply)
        return reply[0]

    @property
    def engine(self):
        return self.session.engine


def zengine_path() -> str:
    """The installed ``zengine`` command (the venv's, next to the running interpreter)."""
    local = os.path.join(os.path.dirname(sys.executable), "zengine")
    if os.path.exists(local):
        return local
    found = shutil.which("zengine")
    assert found, "the zengine command is not installed"
    return found


class Pipe:
    """The installed command over pipes, read line by line with a deadline."""

    def __init__(self, timeout: float = 60.0) -> None:
        import queue
        import subprocess

        self.timeout = timeout
        self.proc = subprocess.Popen(
            [zengine_path()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        for raw in self.proc.stdout:  # type: ignore[union-attr]
            self._lines.put(raw.decode("utf-8").rstrip("\n"))
        self._lines.put(None)

    def send(self, *lines: str) -> None:
        self.proc.stdin.write("".join(f"{line}\n" for line in lines).encode())  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def line(self) -> str:
        line = self._lines.get(timeout=self.timeout)
        assert line is not None, "the engine closed its output"
        return line

    def ask(self, line: str) -> str:
        """Send a command that prints one line; that line."""
        self.send(line)
        return self.line()

    def until(self, prefix: str) -> list[str]:
        """Every line up to and including the first that starts with ``prefix``."""
        lines = []
        while True:
            lines.append(self.line())
            if lines[-1].startswith(prefix):
                return lines

    def close(self) -> tuple[int, bytes]:
        """End of input; the exit code and what went to stderr."""
        self.proc.stdin.close()  # type: ignore[union-attr]
        code = self.proc.wait(timeout=self.timeout)
        return code, self.proc.stderr.read()  # type: ignore[union-attr]
