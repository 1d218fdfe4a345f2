"""The protocol's main loop: stdin lines in, a :class:`~zengine.protocol.session.Session` handles them.

Input is read as bytes and decoded line by line, so a line of bad UTF-8 is one error and the
next line is fine; a line longer than :data:`MAX_LINE` bytes is skipped whole with one error.
At end of input a search, ``perft`` or ``bench`` in progress finishes (an infinite search is
stopped) and reports, unless the output is closed meanwhile (:func:`output_closed`); ``quit``
ends at once and prints nothing more, and so does Ctrl-C, with the exit code 130 of every
command it interrupts.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Iterator
from typing import BinaryIO

from zengine.protocol.output import Writer
from zengine.protocol.session import Session

#: Longest input line, in bytes (a Zhadu game of 100,000 plies in ``position ... moves`` fits).
MAX_LINE = 1 << 20


def read_lines(
    stream: BinaryIO, max_line: int = MAX_LINE
) -> Iterator[tuple[str, None] | tuple[None, str]]:
    """Yield each input line as ``(text, None)`` or ``(None, error detail)``."""
    while True:
        raw = stream.readline(max_line + 1)
        if not raw:
            return
        if len(raw) > max_line and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the over-long line
                raw = stream.readline(max_line)
            yield None, f"line too long (over {max_line} bytes): ignored"
            continue
        try:
            yield raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            yield None, f"input line is not valid UTF-8 (byte {exc.start}): ignored"


def output_closed(stream: BinaryIO) -> bool:
    """Whether nobody is left to read ``stream``: a pipe whose reading end has closed (poll
    reports an error or hang-up on it). False for anything that cannot tell (a file, a test's
    buffer, a system without ``poll``)."""
    try:
        poller = select.poll()
        poller.register(stream.fileno(), 0)  # no events asked: errors and hang-ups come anyway
        events = poller.poll(0)
    except (AttributeError, OSError, ValueError):
        return False
    return any(mask & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _, mask in events)


def serve(stdin: BinaryIO, stdout: BinaryIO, session: Session | None = None) -> int:
    """Run a session from ``stdin`` to ``stdout`` until ``quit`` or end of input; exit code.

    Ctrl-C ends it as ``quit`` does (nothing more is printed, any search is stopped), then the
    ``KeyboardInterrupt`` goes on to the command line, which ends every command interrupted
    alike: one line on stderr and exit code 130.
    """
    writer = Writer(stdout)
    session = session or Session(writer.lines)
    # While the client's first lines are on their way, so that a go sent right after them
    # does not wait for it (docs/protocol.md, "Searching").
    session.engine.load_in_background()
    try:
        for line, problem in read_lines(stdin):
            if line is None:
                writer.line(f"error syntax {problem}")
            elif not session.handle(line):
                writer.silence()
                session.quit()
                return 0
            if writer.broken:
                session.quit()
                return 0
        session.finish(gone=lambda: writer.broken or output_closed(stdout))
    except KeyboardInterrupt:
        writer.silence()
        session.quit()
        raise
    return 0


def run() -> int:
    """The ``zengine`` command without a subcommand: the protocol on stdin/stdout."""
    try:
        return serve(sys.stdin.buffer, sys.stdout.buffer)
    finally:  # also on Ctrl-C, which the command line reports
        try:
            # Every line is flushed already; what a reader that went away left in the buffer
            # must not make the exit flush print a BrokenPipeError, so stdout now points at
            # nothing.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
