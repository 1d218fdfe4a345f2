"""The processes of a match, found and stopped for sure: no engine, and nothing an engine
started, outlives the referee's wish.

An engine may start processes of its own, and one that calls ``setsid()`` leaves the engine's
process group, so a group kill misses it. Three things find them (Linux, through ``/proc``):

- every engine's environment carries :data:`TAG_VARIABLE` = ``<token>:<n>`` (the token of the
  match folder, the engine's number), which its descendants inherit, whatever session or
  parent they end up with;
- the referee is a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``) while it plays: a
  descendant whose parent dies is re-parented to the referee, not to init, so the referee can
  reap what it kills;
- each engine is started with ``PR_SET_PDEATHSIG`` = SIGKILL: if the referee is killed
  (``kill -9``), its engines die with it.

What a SIGKILL of the referee can still leave running is a process an engine started (its
parent-death signal covers only the engine itself): :class:`ProcessLedger` records the match's
token in the folder, and the next run in that folder (``--resume``) stops what it can prove is
left from it: a process that carries the token, a member of a session such a process leads, and
their descendants, never a process on the folder's word alone. Elsewhere than on Linux these helpers
find nothing and do nothing; the process-group kill of :mod:`tools.referee.engine_client` remains.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

#: The environment variable that marks an engine and everything it starts.
TAG_VARIABLE = "ZENGINE_REFEREE_TAG"

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37


def _load_prctl() -> Callable[..., int] | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):  # no C library to load, or no prctl in it (not Linux)
        return None


# Looked up once, here: the function given to a forked child must not load anything.
_prctl = _load_prctl()


def set_subreaper(on: bool) -> bool:
    """Make this process a child subreaper (or stop being one); returns the previous state."""
    if _prctl is None:
        return False
    before = ctypes.c_int(0)
    _prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(before), 0, 0, 0)
    _prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)
    return bool(before.value)


def is_subreaper() -> bool:
    """Whether this process is a child subreaper now."""
    if _prctl is None:
        return False
    now = ctypes.c_int(0)
    _prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(now), 0, 0, 0)
    return bool(now.value)


@contextmanager
def subreaper() -> Iterator[None]:
    """This process is a child subreaper inside the block (as it was before, after it); at the
    block's end, what it adopted meanwhile is stopped (:func:`stop_adopted`)."""
    before = set_subreaper(True)
    me = os.getpid()
    own = {(proc.pid, proc.start) for proc in all_procs() if proc.ppid == me}
    try:
        yield
    finally:
        stop_adopted(own)
        set_subreaper(before)


def stop_adopted(own: set[tuple[int, int]]) -> list[int]:
    """SIGKILL the children of this process (a subreaper) that are not in ``own`` (pid, start
    time) nor ``multiprocessing``'s, with their descendants, then reap; returns the pids.

    A process whose parent died below a subreaper is re-parented to it, however it left its
    session and environment (``setsid``, an empty environment, SIGTERM ignored): once the
    engines are stopped, every child the block did not start itself is such an orphan."""
    me = os.getpid()
    spawned = {child.pid for child in multiprocessing.active_children()}
    killed: dict[int, Proc] = {}
    for _ in range(5):  # again until nothing is left: a process may start another meanwhile
        procs = all_procs()
        adopted = {
            proc.pid
            for proc in procs
            if proc.ppid == me and (proc.pid, proc.start) not in own and proc.pid not in spawned
        }
        wanted = adopted | _descendants(procs, adopted)
        found = {p.pid: p for p in procs if p.pid in wanted and p.pid not in killed}
        if not found:
            break
        kill_processes({pid: proc for pid, proc in found.items() if proc.state != "Z"})
        killed.update(found)
    reap(killed)
    return sorted(killed)


def die_with_parent(parent: int) -> Callable[[], None]:
    """The function a child runs between fork and exec: SIGKILL when its parent thread dies.

    ``parent`` is the referee's pid: if it died before the child asked, the child exits."""

    def preexec() -> None:
        if _prctl is not None:
            _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


# --- /proc ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    """A process as ``/proc/PID/stat`` shows it; ``start`` is its start time (clock ticks after
    boot), which with the pid names one process for good (pids are reused)."""

    pid: int
    state: str
    ppid: int
    pgrp: int
    session: int
    start: int


def read_proc(pid: int) -> Proc | None:
    """The process ``pid``, or None if there is none (or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:  # gone, or not Linux
        return None
    fields = text[text.rfind(b")") + 2 :].split()
    try:
        return Proc(
            pid, fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])
        )
    except (IndexError, ValueError):
        return None


def all_procs() -> list[Proc]:
    """Every process that ``/proc`` shows (none without ``/proc``)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.isdigit():
            proc = read_proc(int(entry))
            if proc is not None:
                found.append(proc)
    return found


def tag_of(pid: int) -> str | None:
    """The value of :data:`TAG_VARIABLE` in the environment ``pid`` started with, if any."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            data = handle.read()
    except OSError:  # gone, another user's, or not Linux
        return None
    key = TAG_VARIABLE.encode() + b"="
    at = data.find(b"\0" + key)
    if at >= 0:
        at += 1
    elif data.startswith(key):
        at = 0
    else:
        return None
    end = data.find(b"\0", at)
    return data[at + len(key) : end if end >= 0 else len(data)].decode(errors="replace")


def _descendants(procs: Iterable[Proc], roots: Iterable[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for proc in procs:
        children.setdefault(proc.ppid, []).append(proc.pid)
    found: set[int] = set()
    stack = list(roots)
    while stack:
        pid = stack.pop()
        for child in children.get(pid, ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def find_processes(
    tag: str, root: int | None = None, prefix: bool = False, everywhere: bool = True
) -> dict[int, Proc]:
    """The processes carrying ``tag`` (every tag starting with it if ``prefix``), the members of
    the sessions they lead, and the descendants of all these and of ``root`` (a process of ours
    not yet reaped, whose session is searched too: its pid is still its own). The tag is looked
    for in every process, or (not ``everywhere``) only among the descendants of this process,
    which is never among them.

    A session is joined only by forking inside it, so its members descend from its leader: one
    that cleared its environment is still found if it stayed in a tagged leader's session. (A
    live process's pid is never another session's id, so ``session in leaders`` means led.)"""
    procs = all_procs()
    me = os.getpid()
    if everywhere:
        candidates = procs
    else:
        mine = _descendants(procs, [me])
        candidates = [proc for proc in procs if proc.pid in mine]
    marked = set()
    for proc in candidates:
        if proc.pid == me or proc.state == "Z":
            continue
        found = tag_of(proc.pid)
        if found is not None and (found.startswith(tag) if prefix else found == tag):
            marked.add(proc.pid)
    leaders = marked | ({root} if root is not None else set())
    roots = leaders | {proc.pid for proc in procs if proc.session in leaders}
    wanted = roots | _descendants(procs, roots)
    wanted.discard(me)
    return {p.pid: p for p in procs if p.pid in wanted}


def kill_processes(found: dict[int, Proc], sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to each process that is still the one found (same pid and start time)."""
    for pid, proc in found.items():
        now = read_proc(pid)
        if now is None or now.start != proc.start:
            continue
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def reap(found: dict[int, Proc], timeout: float = 5.0) -> None:
    """Wait until the processes found are gone; those re-parented to this process (a
    subreaper) are reaped here, so no zombie is left."""
    me = os.getpid()
    pending = dict(found)
    end = time.monotonic() + timeout
    while pending:
        for pid, proc in list(pending.items()):
            now = read_proc(pid)
            if now is None or now.start != proc.start:
                del pending[pid]
            elif now.ppid == me:
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:  # reaped meanwhile by someone else
                    done = pid
                if done:
                    del pending[pid]
            elif now.state == "Z":  # another parent's zombie: the parent reaps it
                del pending[pid]
        if not pending or time.monotonic() > end:
            return
        time.sleep(0.01)


def reap_zombies(session: int, exclude: int) -> None:
    """Reap the zombies re-parented to this process (a subreaper) from ``session`` (an
    engine's: it leads its own), but ``exclude`` (the engine, which its Popen reaps): they died
    before anyone looked for them."""
    me = os.getpid()
    for proc in all_procs():
        if proc.state == "Z" and proc.ppid == me and proc.session == session:
            if proc.pid != exclude:
                try:
                    os.waitpid(proc.pid, os.WNOHANG)
                except ChildProcessError:  # reaped meanwhile
                    pass


def stop_processes(
    tag: str, root: int | None = None, prefix: bool = False, everywhere: bool = True
) -> list[int]:
    """SIGKILL everything :func:`find_processes` finds (again, until nothing is left: a
    process may start another meanwhile), then reap; returns the pids killed."""
    killed: dict[int, Proc] = {}
    for _ in range(5):
        found = {
            pid: proc
            for pid, proc in find_processes(tag, root, prefix, everywhere).items()
            if proc.state != "Z" and pid not in killed
        }
        if not found:
            break
        kill_processes(found)
        killed.update(found)
    if root is not None:
        killed.pop(root, None)  # the engine itself: its Popen reaps it
    reap(killed)
    return sorted(killed)


# --- the folder's record -----------------------------------------------------------------------


class ProcessLedger:
    """The tag token of a match folder, kept in the folder so that the next run there can find
    what an earlier one left.

    The file (``path``; None keeps it in memory) holds ``token <hex>``. :meth:`sweep` stops
    the processes that carry the token and what they provably brought (see
    :func:`find_processes`); nothing else, whatever the file says: a pid written there by
    anyone else names any process, its start time being public. Writing is best effort: a
    folder that cannot be written loses only this safety net, not the match.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._count = 0
        token = None
        if path is not None:
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                lines = []
            for line in lines:
                words = line.split()
                if len(words) == 2 and words[0] == "token" and _is_token(words[1]):
                    token = words[1]
                    break
        self.token = token or secrets.token_hex(12)

    def sweep(self) -> list[int]:
        """Stop the processes an earlier run in this folder left (see the class); start the
        record afresh. Returns the pids stopped."""
        stopped = stop_processes(self.token + ":", prefix=True)
        self._write(f"token {self.token}\n", "w")
        return stopped

    def new_tag(self) -> str:
        """The tag of the next engine: ``<token>:<n>``."""
        with self._lock:
            self._count += 1
            return f"{self.token}:{self._count}"

    def stop_all(self) -> list[int]:
        """Stop every process that carries this ledger's token (at the end of a run)."""
        return stop_processes(self.token + ":", prefix=True)

    def _write(self, text: str, mode: str) -> None:
        if self.path is None:
            return
        with self._lock:
            try:
                with open(self.path, mode, encoding="utf-8") as handle:
                    handle.write(text)
            except OSError:  # best effort (see the class)
                pass


def _is_token(text: str) -> bool:
    """Whether ``text`` is a token as :class:`ProcessLedger` makes them (24 hex digits): no
    shorter prefix of other tags passes for one."""
    return len(text) == 24 and all(c in "0123456789abcdef" for c in text)


# --- the referee in a session of its own --------------------------------------------------------


def autogroups_on() -> bool:
    """Whether Linux groups processes by session for scheduling (``sched_autogroup``): only
    then does a session of its own shield the referee from the rest of the user's session."""
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:  # not Linux, or a kernel without autogroups
        return False


#: Signals the parent passes on to the child in its own session: the terminal sends Ctrl-C,
#: hang-up and window-size changes only to its foreground process group, which is the parent.
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGWINCH, signal.SIGCONT)


def run_in_own_session(argv: list[str], env: dict[str, str]) -> int:
    """Run ``argv`` in a new session and wait for it: signals are passed on (Ctrl-Z stops
    both), the child dies with this process, and the child's exit status is returned (one
    killed by a signal kills this process the same way).

    stdin, stdout and stderr are inherited: the child writes where this process would."""
    child: subprocess.Popen[bytes] | None = None
    early: list[int] = []

    def forward(signum: int, frame: FrameType | None) -> None:
        if child is None:
            early.append(signum)  # before Popen returned: sent once it has
        else:
            _send(child.pid, signum)

    def suspend(signum: int, frame: FrameType | None) -> None:
        # Ctrl-Z: the child is in no terminal's foreground group, so it is stopped by hand.
        if child is not None:
            _send(child.pid, signal.SIGSTOP)
        os.kill(os.getpid(), signal.SIGSTOP)

    handlers = {sig: forward for sig in FORWARDED}
    handlers[signal.SIGTSTP] = suspend
    previous = {sig: signal.signal(sig, handler) for sig, handler in handlers.items()}
    try:
        child = subprocess.Popen(
            argv, env=env, start_new_session=True, preexec_fn=die_with_parent(os.getpid())
        )
        for signum in early:
            _send(child.pid, signum)
        code = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if code < 0:  # killed by a signal: end the same way, as a shell reports it
        if -code not in (signal.SIGKILL, signal.SIGSTOP):  # the two no handler can take
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code


def _send(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:  # ended meanwhile; wait() collects it
        pass
