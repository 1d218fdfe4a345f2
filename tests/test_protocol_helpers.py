"""Helpers (no tests) shared by the protocol tests: an in-process session, the installed command."""

from __future__ import annotations

import os
import shutil
import sys
import threading

from protocol.session import Session


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
