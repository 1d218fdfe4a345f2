"""One engine process seen from the referee: start, talk line by line, and stop it for sure.

Every wait has a deadline, writes included, and nothing an engine prints can make the referee
slow, big or confused:

- **Reading** is buffered: ``poll`` with the deadline, then ``os.read`` of up to 64 KB, split
  into lines, each batch stamped with the monotonic time of its read (think times do not
  include the referee's own delays). A line longer than :data:`MAX_LINE` characters is cut
  to its first :data:`MAX_LINE` (the rest is dropped, a warning is counted), so a line with
  no end costs no memory; an answer lost in such a line is no answer.
- **Writing** is non-blocking: an engine that does not read its input (a ``position`` line
  longer than the pipe holds) stalls by the deadline the caller gives, as a read would;
  meanwhile its output is read, so an engine that writes while the referee writes cannot
  deadlock with it.
- **Stale output**: :meth:`EngineProcess.discard_stale` (right before ``go``) forgets all the
  engine wrote until then, also what waits in the pipe; after the ``bestmove`` that answers a
  ``go``, anything up to the next ``go`` is stale too. ``bestmove`` lines that answer no
  ``go`` are counted as warnings (:meth:`EngineProcess.take_warnings`).
- **Pondering** (cutechess's ``ponder``): ``setoption name Ponder value true`` after the
  handshake if the engine offers the option (:attr:`EngineProcess.ponders`; otherwise a
  note, :meth:`EngineProcess.take_notes`); :meth:`EngineProcess.ponder_ended` and
  :meth:`EngineProcess.end_ponder` for the ends of a ``go ponder`` (the game's side of it is
  :mod:`tools.referee.game`).
- **Errors**: an ``error`` line before ``readyok`` after a setting (an option, the variant)
  raises :class:`SettingRejected`, a configuration error, not a game lost.
- **stderr** is read by a thread per engine into ``engines-stderr.log`` (:class:`StderrLog`),
  each line labelled with the engine's name; per engine the first and the last
  :data:`STDERR_KEEP` bytes are kept, with a ``... N bytes dropped ...`` line between. The
  last line is quoted when the engine disconnects.
- **Stopping**: processes run in their own session (a Ctrl-C at the terminal reaches only the
  referee), die with the referee (parent-death signal) and carry a tag in their environment
  (:mod:`tools.referee.process_tree`). :meth:`EngineProcess.close` is ``quit``, then SIGTERM, then
  SIGKILL of the process group and of every descendant found by parent or by tag, always
  followed by a wait (no zombies).
"""

from __future__ import annotations

import math
import os
import select
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import IO, Any

from zengine.engine.text import clipped, printable
from zengine.tools.referee.config import EngineConfig
from zengine.tools.referee.process_tree import (
    TAG_VARIABLE,
    ProcessLedger,
    die_with_parent,
    is_subreaper,
    reap_zombies,
    stop_processes,
)
from zengine.tools.referee.terminations import Termination

#: Longest line kept of an engine's output, in characters; the rest of a longer line is dropped.
MAX_LINE = 1 << 16
#: Bytes asked of each read.
CHUNK = 1 << 16
#: Output kept unread while a write waits for an engine that does not read (oldest dropped).
MAX_PENDING = 1 << 20
#: engines-stderr.log keeps this many bytes of the start and of the end of each engine's stderr.
STDERR_KEEP = 1 << 20
#: The longest stderr line quoted in a reason, in characters.
MAX_QUOTE = 200
#: Option names kept of an engine's ``option`` lines (only ``Ponder`` is looked for).
MAX_OPTIONS = 1000


class EngineError(Exception):
    """An engine failed: ``termination`` is ``STALL`` (no answer, or its input not read, in
    time) or ``DISCONNECT`` (it exited, closed its output or could not be started); ``detail``
    says how, without the engine's name (``gave no 'uciok' within 10 s``); ``quote`` is the
    last line it wrote to stderr before it disconnected, if any; ``writing`` says the referee
    was writing to it. ``str()`` is the sentence with the name."""

    def __init__(
        self,
        termination: Termination,
        name: str,
        detail: str,
        quote: str | None = None,
        writing: bool = False,
    ) -> None:
        self.termination = termination
        self.name = name
        self.detail = detail
        self.quote = quote
        self.writing = writing
        super().__init__(f"{name} {self.describe()}")

    def describe(self, suffix: str = "") -> str:
        """The detail, then ``suffix`` (`` (at start)``), then the quoted stderr line."""
        quote = f": {self.quote}" if self.quote else ""
        return f"{self.detail}{suffix}{quote}"

    def __reduce__(self) -> tuple[Any, ...]:  # picklable for workers in other processes
        return (
            type(self),
            (self.termination, self.name, self.detail, self.quote, self.writing),
        )


class SettingRejected(Exception):
    """An engine answered ``error`` to a setting of the configuration (``option.NAME=V``, the
    variant or a rule): not a failure of a game but of the configuration; the match stops
    before playing with settings the engine does not have."""

    def __init__(self, name: str, setting: str, error: str) -> None:
        self.name = name
        self.setting = setting
        self.error = error
        # The engine's line is quoted in the Stopped line: its control characters are not.
        super().__init__(f"engine {name} rejected {setting}: '{printable(error)}'")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.name, self.setting, self.error))


Logger = Callable[[str], None]


class StderrLog:
    """``engines-stderr.log``, shared by the engines of a match (writes under a lock)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):  # a full disk or a closed log costs only the log
                pass

    def close(self) -> None:
        with self._lock:
            self._stream.close()


class StderrTee(StderrLog):
    """The match's stderr log and an engine's own file (cutechess's ``stderr=``): each one
    is closed by its owner, not here."""

    def __init__(self, shared: StderrLog, own: StderrLog) -> None:
        self._logs = (shared, own)

    def write(self, data: bytes) -> None:
        for log in self._logs:
            log.write(data)

    def close(self) -> None:
        pass


def _first_word_is(line: str, word: str) -> bool:
    """Whether ``word`` is the first token of ``line``."""
    text = line.lstrip()
    return text.startswith(word) and text[len(word) : len(word) + 1] in ("", " ", "\t")


class EngineProcess:
    """A running engine speaking UCI or UGI on stdin/stdout, as its configuration says.

    ``stderr`` receives its labelled stderr (none: only the last line is kept, for reasons);
    ``log`` every line sent and read (``--debug``); ``ledger`` tags and records the process
    (:mod:`tools.referee.process_tree`).
    """

    def __init__(
        self,
        config: EngineConfig,
        stderr: StderrLog | None = None,
        log: Logger | None = None,
        ledger: ProcessLedger | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self._log = log
        self._stderr_log = stderr
        self.ledger = ledger if ledger is not None else _LOCAL
        self.tag = self.ledger.new_tag()
        self.eof = False
        #: A write did not go through in time: the engine's input holds part of a line.
        self.blocked = False
        #: Batches of lines read and not yet taken: (read time, lines, characters).
        self._batches: deque[tuple[float, list[str], int]] = deque()
        self._pending = 0
        self._partial = b""
        #: Inside a line that is being dropped: "cut" (too long) or "stale" (begun before go).
        self._skip: str | None = None
        self._skipped = 0
        self._stray = 0
        self._expected_bestmoves = 0
        self._cut_lines = 0
        self._cut_chars = 0
        self._dropped = 0
        self._premature = 0
        #: It ponders: its configuration asks for it and it has the option ``Ponder``.
        self.ponders = False
        #: What the match should say once about this engine (:meth:`take_notes`).
        self._notes: list[str] = []
        self.last_stderr: str | None = None
        # Reads and writes hold _io; close() takes it to close the pipes, so that no thread
        # ever uses a descriptor number after it was closed (and maybe reused).
        self._io = threading.Lock()
        self._close_lock = threading.Lock()
        self._closed = False
        env = dict(os.environ)
        env[TAG_VARIABLE] = self.tag
        try:
            self.proc = subprocess.Popen(
                config.cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=config.workdir,
                env=env,
                start_new_session=True,
                preexec_fn=die_with_parent(os.getpid()),
                bufsize=0,
            )
        except OSError as exc:
            raise EngineError(
                Termination.DISCONNECT,
                self.name,
                f"cannot start: {shlex.join(config.cmd)}: {exc.strerror or exc}",
            ) from None
        except subprocess.SubprocessError as exc:  # the child failed before exec
            raise EngineError(
                Termination.DISCONNECT, self.name, f"cannot start: {shlex.join(config.cmd)}: {exc}"
            ) from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._read_poll = select.poll()
        self._read_poll.register(self._out, select.POLLIN)
        self._write_poll = select.poll()
        self._write_poll.register(self._in, select.POLLOUT)
        self._write_poll.register(self._out, select.POLLIN)
        self._stderr_thread = threading.Thread(
            target=self._read_stderr, name=f"stderr-{self.name}", daemon=True
        )
        self._stderr_thread.start()

    # --- reading -----------------------------------------------------------------------------
    def _fill(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for output and read one chunk of it; False if none came."""
        if self.eof:
            return False
        with self._io:
            if self._closed:
                self.eof = True
                return True
            if not self._read_poll.poll(max(0, math.ceil(timeout * 1000))):
                return False
            self._read_chunk()
            return True

    def _read_chunk(self) -> None:
        try:
            data = os.read(self._out, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        now = time.monotonic()
        if not data:
            self._end(now)
        else:
            self._take(data, now)

    def _take(self, data: bytes, now: float) -> None:
        """Split a chunk into lines (one batch), minding a line left open by the last chunk."""
        lines: list[str] = []
        if self._skip is not None:
            newline = data.find(b"\n")
            if newline < 0:
                self._skipped += len(data)
                return
            self._skipped += newline
            self._close_skip(lines)
            data = data[newline + 1 :]
        buf = self._partial + data if self._partial else data
        last = buf.rfind(b"\n")
        if last >= 0:
            text = buf[:last].decode("utf-8", "replace")
            if "\r" in text:
                text = text.replace("\r", "")
            more = text.split("\n")
            if len(text) > MAX_LINE:
                more = [self._cut(line) if len(line) > MAX_LINE else line for line in more]
            lines += more
            buf = buf[last + 1 :]
        if len(buf) > MAX_LINE:
            self._skip, self._skipped, buf = "cut", len(buf) - MAX_LINE, buf[:MAX_LINE]
        self._partial = buf
        if lines:
            self._queue(now, lines)

    def _cut(self, line: str) -> str:
        self._cut_lines += 1
        self._cut_chars += len(line) - MAX_LINE
        return line[:MAX_LINE]

    def _close_skip(self, lines: list[str]) -> None:
        """The newline of a dropped line came: a cut line is kept (its start), a stale one not."""
        if self._skip == "cut":
            self._cut_lines += 1
            self._cut_chars += self._skipped
            lines.append(self._partial.decode("utf-8", "replace").replace("\r", ""))
        self._partial = b""
        self._skip = None
        self._skipped = 0

    def _end(self, now: float) -> None:
        """End of output: a last line without its newline still counts."""
        lines: list[str] = []
        if self._skip is not None:
            self._close_skip(lines)
        elif self._partial:
            lines.append(self._partial.decode("utf-8", "replace").replace("\r", ""))
            self._partial = b""
        if lines:
            self._queue(now, lines)
        self.eof = True
        self._write_poll.unregister(self._out)  # a closed output would wake every poll

    def _queue(self, now: float, lines: list[str]) -> None:
        if self._log is not None:
            for line in lines:
                self._log(f"{self.name} < {line}")
        size = sum(map(len, lines))
        self._batches.append((now, lines, size))
        self._pending += size

    def read_batch(
        self, deadline: float, waiting_for: str, within: str = ""
    ) -> tuple[float, list[str]]:
        """The lines read together next, with their read time; EngineError when the output
        ends or ``deadline`` passes first. ``waiting_for`` (``'uciok'``) and ``within``
        (``within 10 s``) word the error. Lines not used go back with :meth:`unread`."""
        while not self._batches:
            if self.eof:
                raise self._disconnected(f" while the referee waited for {waiting_for}")
            left = deadline - time.monotonic()
            if not self._fill(max(0.0, left)) and left <= 0:
                raise EngineError(
                    Termination.STALL, self.name, f"gave no {waiting_for} {within}".rstrip()
                )
        stamp, lines, size = self._batches.popleft()
        self._pending -= size
        return stamp, lines

    def unread(self, stamp: float, lines: list[str]) -> None:
        """Put back the lines of a batch that were not used, to be read first."""
        if lines:
            size = sum(map(len, lines))
            self._batches.appendleft((stamp, lines, size))
            self._pending += size

    def read_line(self, deadline: float, waiting_for: str, within: str = "") -> tuple[float, str]:
        """The next line and its read time (see :meth:`read_batch`)."""
        stamp, lines = self.read_batch(deadline, waiting_for, within)
        self.unread(stamp, lines[1:])
        return stamp, lines[0]

    def wait_for(
        self,
        word: str,
        timeout: float | None = None,
        setting: str | None = None,
        offered: set[str] | None = None,
    ) -> None:
        """Read lines until one whose first token is ``word`` (the others are ignored), for at
        most ``timeout`` seconds (the engine's start timeout by default). With ``setting``
        (what the commands before set, in words), an ``error`` line before ``word`` raises
        :class:`SettingRejected`, once ``word`` came. The names of the options that the
        ``option name ...`` lines before it offer are added to ``offered`` (lowercase)."""
        timeout = self.config.timeouts.start if timeout is None else timeout
        deadline = time.monotonic() + timeout
        error = None
        while True:
            stamp, lines = self.read_batch(deadline, f"'{word}'", f"within {timeout:g} s")
            for i, line in enumerate(lines):
                tokens = line.split(None, 1)
                if not tokens:
                    continue
                if offered is not None and tokens[0] == "option" and len(offered) < MAX_OPTIONS:
                    name = _option_name(line)
                    if name is not None:
                        offered.add(name)
                if tokens[0] == word:
                    self.unread(stamp, lines[i + 1 :])
                    if error is not None and setting is not None:
                        raise SettingRejected(self.name, setting, error)
                    return
                if tokens[0] == "error" and error is None:
                    error = line.strip()
                elif tokens[0] == "bestmove":
                    self._count_stray(1)

    def discard_stale(self) -> str | None:
        """Forget what the engine wrote until now (called right before ``go``): lines read and
        not used, what waits in the pipe, and a line begun but not ended. Its ``bestmove``
        lines answer no ``go`` of ours: they are counted (:meth:`take_warnings`). Returns
        the first ``error`` line among them, if any: the answer to a command just sent."""
        bestmoves, error = self._drop_stale()
        self._count_stray(bestmoves)
        return error

    def _drop_stale(self) -> tuple[int, str | None]:
        """Forget what the engine wrote until now (see :meth:`discard_stale`): the number of
        ``bestmove`` lines among it, and its first ``error`` line."""
        with self._io:
            for _ in range(16):  # what is in the pipe now; an engine writing on is not waited for
                if self.eof or self._closed or not self._read_poll.poll(0):
                    break
                self._read_chunk()
        strays = 0
        error = None
        for _, lines, _ in self._batches:
            strays += sum(1 for line in lines if _first_word_is(line, "bestmove"))
            if error is None:
                error = next((line for line in lines if _first_word_is(line, "error")), None)
        self._batches.clear()
        self._pending = 0
        if self._skip == "cut" or (self._partial and self._skip is None):
            # A line begun before now is stale as a whole.
            strays += _first_word_is(self._partial.decode("utf-8", "replace"), "bestmove")
            self._skip = "stale"
        return strays, None if error is None else error.strip()

    # --- pondering ---------------------------------------------------------------------------
    def ponder_ended(self) -> bool:
        """Whether its ponder search (``go ponder``) ended by itself: a ``bestmove`` or an
        ``error`` among what it wrote since (all of which is dropped, as stale). Such an
        engine would leave ``ponderhit`` unanswered; it is counted as a warning."""
        bestmoves, error = self._drop_stale()
        ended = bestmoves > 0 or error is not None
        self._premature += ended
        return ended

    def end_ponder(self, timeout: float) -> None:
        """End its ponder search: ``stop``, then its ``bestmove`` read and dropped (the
        ``stop`` is not sent to a search that already ended by itself). EngineError if the
        answer does not come within ``timeout`` seconds."""
        if self.ponder_ended():
            return
        self.send("stop", timeout)
        deadline = time.monotonic() + timeout
        while True:
            stamp, lines = self.read_batch(
                deadline, "'bestmove' after 'stop'", f"within {timeout:g} s"
            )
            for i, line in enumerate(lines):
                if _first_word_is(line, "bestmove") or _first_word_is(line, "error"):
                    self.unread(stamp, lines[i + 1 :])
                    return

    def take_notes(self) -> list[str]:
        """What the match says once about this engine (that it cannot ponder), since the
        last call."""
        notes, self._notes = self._notes, []
        return notes

    def _count_stray(self, count: int) -> None:
        expected = min(count, self._expected_bestmoves)
        self._expected_bestmoves -= expected
        self._stray += count - expected

    def take_warnings(self) -> list[str]:
        """What the engine did wrong without losing for it, since the last call, in words."""
        warnings = []
        if self._stray:
            warnings.append(f"{self._stray} 'bestmove' answering no 'go' (ignored)")
        if self._cut_lines:
            warnings.append(
                f"{self._cut_lines} line(s) over {MAX_LINE} characters cut"
                f" ({self._cut_chars} dropped)"
            )
        if self._dropped:
            warnings.append(f"{self._dropped} characters of output dropped while it did not read")
        if self._premature:
            warnings.append(
                f"{self._premature} ponder search(es) ended before 'ponderhit' or 'stop'"
                " (its move ignored)"
            )
        self._stray = self._cut_lines = self._cut_chars = self._dropped = self._premature = 0
        return warnings

    # --- writing -----------------------------------------------------------------------------
    def send(self, line: str, timeout: float | None = None) -> float:
        """Write one line within ``timeout`` seconds (the engine's ready timeout by default);
        returns the monotonic time right after the write. EngineError (a stall) if the engine
        does not take it in time, or (a disconnect) if its input is closed."""
        if self._log:
            self._log(f"{self.name} > {line}")
        timeout = self.config.timeouts.ready_s if timeout is None else timeout
        data = memoryview((line + "\n").encode())
        deadline = time.monotonic() + timeout
        with self._io:
            while data:
                try:
                    if self._closed:
                        raise BrokenPipeError
                    data = data[os.write(self._in, data) :]
                    continue
                except BlockingIOError:
                    pass
                except OSError:  # its input is closed: it exited, or closes it
                    raise self._disconnected(" while the referee wrote to it", True) from None
                left = deadline - time.monotonic()
                if left <= 0:
                    # Part of the line may be in its input: it cannot be talked to any more.
                    self.blocked = True
                    raise EngineError(
                        Termination.STALL,
                        self.name,
                        f"did not read its input: '{clipped(line)}' ({len(line) + 1} bytes)"
                        f" not taken within {timeout:g} s",
                        writing=True,
                    )
                for fd, _ in self._write_poll.poll(max(1, math.ceil(left * 1000))):
                    if fd == self._out and not self.eof:
                        self._read_chunk()
                        self._bound_pending()
        return time.monotonic()

    def _bound_pending(self) -> None:
        while self._pending > MAX_PENDING and len(self._batches) > 1:
            _, lines, size = self._batches.popleft()
            self._pending -= size
            self._dropped += size
            self._count_stray(sum(1 for line in lines if _first_word_is(line, "bestmove")))

    # --- failures ----------------------------------------------------------------------------
    def _disconnected(self, where: str, writing: bool = False) -> EngineError:
        exit_text = self._exit_text()
        self._stderr_thread.join(timeout=0.5)  # its last words, if it wrote any
        return EngineError(
            Termination.DISCONNECT,
            self.name,
            f"disconnected{exit_text}{where}",
            quote=self.last_stderr,
            writing=writing,
        )

    def _exit_text(self) -> str:
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return ""
        if code < 0:
            try:
                return f" (killed by {signal.Signals(-code).name})"
            except ValueError:
                return f" (killed by signal {-code})"
        return f" (exit code {code})"

    # --- stderr ------------------------------------------------------------------------------
    def _read_stderr(self) -> None:
        """The stderr thread: whole lines labelled, the head and the tail kept, the last
        line remembered."""
        stream = self.proc.stderr
        assert stream is not None
        fd = stream.fileno()
        prefix = self.name.encode("utf-8", "replace") + b": "
        log = self._stderr_log
        head_left = STDERR_KEEP
        held = b""  # the start of a line of the head, not yet ended
        tail: deque[bytes] = deque()
        tail_size = 0
        dropped = 0
        last = b""
        while True:
            try:
                data = os.read(fd, CHUNK)
            except OSError:
                data = b""
            if not data:
                break
            last = data[-4096:] if len(data) >= 4096 else (last + data)[-4096:]
            self._remember(last)
            if head_left > 0:
                part, data = data[:head_left], data[head_left:]
                head_left -= len(part)
                buf = held + part
                end = buf.rfind(b"\n") + 1
                if head_left == 0 or len(buf) - end > 4096:
                    end = len(buf)  # the head is full, or a long line: break it here
                held = buf[end:]
                if log is not None and end:
                    log.write(_label(buf[:end], prefix))
            if data:
                tail.append(data)
                tail_size += len(data)
                while tail_size - len(tail[0]) >= STDERR_KEEP:
                    dropped += len(tail[0])
                    tail_size -= len(tail.popleft())
        self._remember(last, final=True)
        if log is None:
            return
        rest = held + b"".join(tail)
        if dropped:
            newline = rest.find(b"\n")
            if newline >= 0:  # the tail starts with a line of its own
                dropped += newline + 1
                rest = rest[newline + 1 :]
            log.write(prefix + f"... {dropped} bytes dropped ...\n".encode())
        if rest:
            log.write(_label(rest, prefix))

    def _remember(self, last: bytes, final: bool = False) -> None:
        lines = last.split(b"\n")
        if not final:
            lines = lines[:-1]  # a line not yet ended may go on
        for raw in reversed(lines):
            text = raw.decode("utf-8", "replace").strip()
            if text:
                text = printable(text)
                self.last_stderr = text if len(text) <= MAX_QUOTE else text[:MAX_QUOTE] + "..."
                return

    # --- protocol ------------------------------------------------------------------------------
    def handshake(self) -> None:
        """``uci``/``ugi`` -> ``uciok``/``ugiok``, then each option, checked with ``isready``
        (an ``error`` before ``readyok`` raises :class:`SettingRejected`)."""
        proto = self.config.proto
        self.send(proto.hello, self.config.timeouts.start)
        offered: set[str] = set()
        self.wait_for(f"{proto.hello}ok", offered=offered)
        for line in self.config.init_strings:  # cutechess's initstr=, sent as written
            self.send(line)
        for name, value in self.config.options.items():
            self.send(f"setoption name {name} value {value}")
            self.sync(setting=f"option.{name}={value}")
        if self.config.ponder:
            if "ponder" in offered:
                self.send("setoption name Ponder value true")
                self.sync(setting="ponder (setoption name Ponder value true)")
                self.ponders = True
            else:  # as cutechess: it plays on, without pondering
                self._notes.append(
                    f"Warning: {self.name} has no option Ponder: it plays without pondering"
                )
        if not self.config.options and not self.ponders:
            self.sync()

    def sync(self, setting: str | None = None) -> None:
        """``isready`` -> ``readyok``: everything sent so far was processed (and, with
        ``setting``, accepted: see :meth:`wait_for`)."""
        self.send("isready")
        self.wait_for("readyok", self.config.timeouts.ready_s, setting)

    def stop_search(self) -> None:
        """``stop``: the ``bestmove`` it may print is expected, not a warning."""
        self._expected_bestmoves = 1
        self.send("stop")

    def new_game(self, variant: str, extra_options: dict[str, str]) -> None:
        """Select the variant (and rule options), start a new game, and sync (an ``error``
        before ``readyok`` raises :class:`SettingRejected`)."""
        self.discard_stale()
        if self.eof:
            raise self._disconnected(" before the game")
        self.send(f"setoption name UCI_Variant value {variant}")
        settings = [f"the variant {variant}"]
        for name, value in extra_options.items():
            self.send(f"setoption name {name} value {value}")
            settings.append(f"{name}={value}")
        self.send(self.config.proto.new_game)
        self.sync(setting=", ".join(settings))

    def alive(self) -> bool:
        """Whether it runs and can be talked to (its output open, no write stuck)."""
        return not self.eof and not self.blocked and self.proc.poll() is None

    # --- stopping ------------------------------------------------------------------------------
    def close(self, grace: float = 1.0) -> None:
        """Stop the process for sure: ``quit``, wait, SIGTERM, wait, SIGKILL of the group and of
        every descendant (by parent or by tag); reap them all; close the pipes. Any thread may
        call it, also while another one talks to the engine, and more than once."""
        with self._close_lock:
            if self._closed:
                return
            proc = self.proc
            if proc.poll() is None:
                try:
                    os.write(self._in, b"quit\n")  # the pipes are closed only below
                except OSError:  # full or closed: it is not listening, so no grace
                    grace = 0.0
                try:
                    proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    self._signal(signal.SIGTERM)
                    try:
                        proc.wait(timeout=grace)
                    except subprocess.TimeoutExpired:
                        pass
            self.kill()
            # Its processes are gone, so a read or write under way returns at once.
            if self._io.acquire(timeout=5):
                try:
                    self._closed = True
                    for stream in (proc.stdin, proc.stdout):
                        if stream is not None:
                            stream.close()
                finally:
                    self._io.release()
            self._stderr_thread.join(timeout=1.0)
            if not self._stderr_thread.is_alive() and proc.stderr is not None:
                proc.stderr.close()

    def kill(self) -> None:
        """Kill at once: SIGKILL to the process group and every descendant, then reap."""
        self.hurry()
        root = self.proc.pid if self.proc.returncode is None else None
        # A subreaper has every descendant of its engines below it: no need to look elsewhere.
        stop_processes(self.tag, root, everywhere=not is_subreaper())
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        reap_zombies(self.proc.pid, exclude=self.proc.pid)

    def hurry(self) -> None:
        """SIGKILL to the process group, without waiting (safe in a signal handler)."""
        if self.proc.returncode is None:
            self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


#: The ledger of engines started outside a match folder (tests, a worker of its own).
_LOCAL = ProcessLedger()


def _label(data: bytes, prefix: bytes) -> bytes:
    """``data`` as whole lines, each starting with ``prefix``."""
    if not data.endswith(b"\n"):
        data += b"\n"
    return prefix + data[:-1].replace(b"\n", b"\n" + prefix) + b"\n"


def _option_name(line: str) -> str | None:
    """The name (lowercase) of the option an ``option name <name> type ...`` line offers."""
    words = line[:MAX_QUOTE].split()
    if words[:2] != ["option", "name"] or "type" not in words[3:]:
        return None
    return " ".join(words[2 : words.index("type", 3)]).lower()
