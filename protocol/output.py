"""The engine's only writer: whole lines, flushed one by one, from any thread.

The reader thread and the search thread both write through one :class:`Writer`; its lock makes
every line (and every multi-line reply, such as ``d`` during a search) come out whole.
"""

from __future__ import annotations

import threading
from typing import BinaryIO


class Writer:
    """Lines to a binary stream, UTF-8, each one flushed as it is written."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._silent = False
        #: Set once the stream refused a write (the reader went away): nothing more is written.
        self.broken = False

    def line(self, text: str) -> None:
        """Write one line."""
        self.lines([text])

    def lines(self, texts: list[str]) -> None:
        """Write lines as one block: no other thread's line comes between them."""
        data = [f"{text}\n".encode("utf-8", "replace") for text in texts]
        with self._lock:
            if self._silent or self.broken:
                return
            try:
                for line in data:
                    self._stream.write(line)
                    self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.broken = True

    def silence(self) -> None:
        """Drop every later line (``quit``: nothing more is printed, whatever still runs)."""
        with self._lock:
            self._silent = True
