"""One engine process seen from the referee: start, talk line by line, and stop it for sure.

Every wait has a deadline. A reader thread stamps each line with the monotonic time it was
read (so think times do not include the referee's own delays) and queues it; EOF is queued as
``None``. Processes run in their own session (``start_new_session``): a Ctrl-C at the terminal
reaches only the referee, which then stops them itself: ``quit``, then SIGTERM, then SIGKILL of
the whole process group, always followed by ``wait`` (no zombies).
"""

from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO

from zengine.engine.values import Termination
from zengine.tools.config import EngineConfig


class EngineError(Exception):
    """An engine failed: ``termination`` is ``STALL`` (no answer in time) or ``DISCONNECT``
    (it exited, closed its output or could not be started); ``detail`` says how, without the
    engine's name (``gave no 'uciok' within 10 s``); ``str()`` is the sentence with it."""

    def __init__(self, termination: Termination, name: str, detail: str) -> None:
        super().__init__(f"{name} {detail}")
        self.termination = termination
        self.name = name
        self.detail = detail


Logger = Callable[[str], None]


class EngineProcess:
    """A running engine speaking UCI or UGI on stdin/stdout, as its configuration says."""

    def __init__(
        self, config: EngineConfig, stderr: IO | int | None = None, log: Logger | None = None
    ) -> None:
        self.config = config
        self.name = config.name
        self._log = log
        self._lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.eof = False
        try:
            self.proc = subprocess.Popen(
                config.cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr if stderr is not None else subprocess.DEVNULL,
                cwd=config.workdir,
                start_new_session=True,
                bufsize=0,
            )
        except OSError as exc:
            raise EngineError(
                Termination.DISCONNECT,
                self.name,
                f"cannot start: {shlex.join(config.cmd)}: {exc.strerror or exc}",
            ) from None
        self._reader = threading.Thread(target=self._read, name=f"read-{self.name}", daemon=True)
        self._reader.start()

    # --- raw I/O -----------------------------------------------------------------------------
    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            for raw in iter(stream.readline, b""):
                now = time.monotonic()
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if self._log:
                    self._log(f"{self.name} < {line}")
                self._lines.put((now, line))
        except (OSError, ValueError):
            pass
        self._lines.put((time.monotonic(), None))

    def send(self, line: str) -> float:
        """Write one line; returns the monotonic time right after the write."""
        if self._log:
            self._log(f"{self.name} > {line}")
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineError(
                Termination.DISCONNECT, self.name, f"disconnected{self._exit_text()}"
            ) from None
        return time.monotonic()

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

    def read_line(self, deadline: float, waiting_for: str, within: str = "") -> tuple[float, str]:
        """The next line and its read time; EngineError on EOF or when ``deadline`` passes.

        ``waiting_for`` (``'uciok'``) and ``within`` (``within 10 s``) word the error."""
        if self.eof:
            raise EngineError(Termination.DISCONNECT, self.name, f"disconnected{self._exit_text()}")
        timeout = deadline - time.monotonic()
        try:
            stamp, line = (
                self._lines.get(timeout=timeout) if timeout > 0 else self._lines.get_nowait()
            )
        except queue.Empty:
            raise EngineError(
                Termination.STALL, self.name, f"gave no {waiting_for} {within}".rstrip()
            ) from None
        if line is None:
            self.eof = True
            raise EngineError(
                Termination.DISCONNECT,
                self.name,
                f"disconnected{self._exit_text()} while the referee waited for {waiting_for}",
            )
        return stamp, line

    def wait_for(self, word: str, timeout: float | None = None) -> None:
        """Read lines until one whose first token is ``word`` (the others are ignored), for at
        most ``timeout`` seconds (the engine's start timeout by default)."""
        timeout = self.config.timeouts.start if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            _, line = self.read_line(deadline, f"'{word}'", f"within {timeout:g} s")
            tokens = line.split()
            if tokens and tokens[0] == word:
                return

    def drain(self) -> None:
        """Forget lines already read (stale output of an earlier search)."""
        while True:
            try:
                _, line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.eof = True
                return

    # --- protocol ------------------------------------------------------------------------------
    def handshake(self) -> None:
        """``uci``/``ugi`` -> ``uciok``/``ugiok``, the options, then ``isready`` -> ``readyok``."""
        proto = self.config.proto
        self.send(proto.hello)
        self.wait_for(f"{proto.hello}ok")
        for name, value in self.config.options.items():
            self.send(f"setoption name {name} value {value}")
        self.sync()

    def sync(self) -> None:
        """``isready`` -> ``readyok``: everything sent so far was processed."""
        self.send("isready")
        self.wait_for("readyok", self.config.timeouts.ready_s)

    def new_game(self, variant: str, extra_options: dict[str, str]) -> None:
        """Select the variant (and rule options), start a new game, and sync."""
        self.drain()
        if self.eof:
            raise EngineError(
                Termination.DISCONNECT,
                self.name,
                f"disconnected{self._exit_text()} before the game",
            )
        self.send(f"setoption name UCI_Variant value {variant}")
        for name, value in extra_options.items():
            self.send(f"setoption name {name} value {value}")
        self.send(self.config.proto.new_game)
        self.sync()

    def alive(self) -> bool:
        return not self.eof and self.proc.poll() is None

    def close(self, grace: float = 1.0) -> None:
        """Stop the process for sure: ``quit``, wait, SIGTERM, wait, SIGKILL the group; reap."""
        proc = self.proc
        if proc.poll() is None:
            try:
                if proc.stdin is not None:
                    proc.stdin.write(b"quit\n")
                    proc.stdin.flush()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    pass
        # Children the engine left behind die with its group.
        self._signal(signal.SIGKILL)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def kill(self) -> None:
        """Kill at once (used on Ctrl-C): SIGKILL to the process group, then reap."""
        self._signal(signal.SIGKILL)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
