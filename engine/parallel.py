"""Worker processes that stop when the command stops: a map over a few processes for tools.

:func:`parallel_map` runs ``func`` over items in forked worker processes, one item at a time per
worker (the longest items are unknown in advance, so small pieces keep every worker busy to the
end), and returns the results in item order. It is built for commands a person interrupts:

* workers ignore SIGINT: Ctrl-C at a terminal signals the whole process group, and only the
  parent acts on it (no worker traceback, however many times it is pressed);
* on any exception in the parent (KeyboardInterrupt included) every worker is killed and reaped
  before the exception goes on, so nothing is left running and nothing waits for a task to end;
* on Linux each worker asks the kernel to kill it when the parent dies (``PR_SET_PDEATHSIG``),
  so even a parent killed by SIGKILL leaves no worker computing on;
* a Ctrl-C is also noted by a signal handler and looked for every
  :data:`CTRL_C_POLL_SECONDS`: Python raises KeyboardInterrupt wherever the main thread is,
  and one raised inside an object's ``__del__`` is swallowed (printed as "Exception ignored"),
  which once left ``perft --divide -j 3`` computing on after a Ctrl-C on a loaded machine.

``concurrent.futures`` and ``multiprocessing.Pool`` offer neither: their shutdown waits for the
running tasks (10 s and more for a perft subtree) and their workers print a KeyboardInterrupt
traceback each.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from multiprocessing import connection, get_context
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")
Worker = tuple[BaseProcess, Connection]

#: ``prctl`` option number from <linux/prctl.h>.
_PR_SET_PDEATHSIG = 1

#: Seconds between two looks for a Ctrl-C that Python swallowed (see the module docstring).
CTRL_C_POLL_SECONDS = 0.1


def parallel_map(func: Callable[[T], R], items: Iterable[T], jobs: int) -> list[R]:
    """``[func(item) for item in items]`` computed by up to ``jobs`` worker processes.

    ``func`` must be a module-level function. An exception raised by ``func`` in a worker is
    raised here (the other workers are stopped first). With ``jobs <= 1`` or a single item the
    work runs in this process.
    """
    todo = list(items)
    if jobs <= 1 or len(todo) <= 1:
        return [func(item) for item in todo]
    results: list[Any] = [None] * len(todo)
    workers: list[Worker] = []
    pressed = threading.Event()
    restore = _note_ctrl_c(pressed)
    try:
        _start(func, min(jobs, len(todo)), workers)
        pending: Iterator[tuple[int, T]] = iter(enumerate(todo))
        busy: dict[Connection, BaseProcess] = {}
        for process, conn in workers:
            if _hand_out(conn, pending):
                busy[conn] = process
        while busy:
            ready_now = connection.wait(list(busy), timeout=CTRL_C_POLL_SECONDS)
            if pressed.is_set():
                raise KeyboardInterrupt  # one that a __del__ swallowed
            for ready in ready_now:
                assert isinstance(ready, Connection)
                try:
                    index, ok, value = ready.recv()
                except EOFError:
                    process = busy[ready]
                    process.join()
                    raise ChildProcessError(
                        f"worker process {process.pid} died (exit code {process.exitcode})"
                    ) from None
                if not ok:
                    raise value
                results[index] = value
                if not _hand_out(ready, pending):
                    del busy[ready]
        for _, conn in workers:
            conn.send(None)
        for process, _ in workers:
            process.join()
    except BaseException:
        _kill(workers)
        raise
    finally:
        restore()
        for _, conn in workers:
            conn.close()
    return results


def _note_ctrl_c(pressed: threading.Event) -> Callable[[], None]:
    """Have a SIGINT set ``pressed`` before the handler in place runs (the default one raises
    KeyboardInterrupt); returns what puts that handler back. Nothing to do outside the main
    thread, which alone receives signals, or where SIGINT is ignored or left to the system."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):
        return lambda: None

    def noted(signum: int, frame: Any) -> None:
        pressed.set()
        previous(signum, frame)

    def put_back() -> None:
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, noted)
    return put_back


def _hand_out(conn: Connection, pending: Iterator[tuple[int, Any]]) -> bool:
    """Send the next item to a worker; False when there is none left."""
    task = next(pending, None)
    if task is None:
        return False
    conn.send(task)
    return True


def _start(func: Callable[[Any], Any], count: int, workers: list[Worker]) -> None:
    """Fork ``count`` workers (appended to ``workers`` as they start)."""
    context = get_context("fork")
    parent = os.getpid()
    # SIGINT stays blocked from before the fork until the worker ignores it, so a Ctrl-C in
    # between cannot interrupt a worker; here it is delivered once the workers exist.
    blocked = _block_sigint()
    try:
        for _ in range(count):
            ours, theirs = context.Pipe()
            # The worker closes its copies of the parent's ends (its own and earlier workers'),
            # so it sees end-of-file once the parent's end closes.
            inherited = [conn for _, conn in workers] + [ours]
            process = context.Process(
                target=_work, args=(func, theirs, inherited, parent), daemon=True
            )
            process.start()
            theirs.close()
            workers.append((process, ours))
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _block_sigint() -> bool:
    """Block SIGINT in this thread; True if it was not blocked already."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    return signal.SIGINT not in before


def _kill(workers: list[Worker]) -> None:
    """Kill and reap every worker, at once: their work is being thrown away."""
    # A second Ctrl-C during the clean-up must not cut it short.
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
    try:
        for process, _ in workers:
            process.kill()
        for process, _ in workers:
            process.join()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _work(
    func: Callable[[Any], Any], conn: Connection, inherited: list[Connection], parent: int
) -> None:
    """A worker: items in, ``(index, ok, result or exception)`` out, until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _die_with(parent)
    for other in inherited:
        other.close()
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        index, item = task
        try:
            reply = (index, True, func(item))
        except Exception as exc:  # carried to the parent, which raises it there
            reply = (index, False, exc)
        conn.send(reply)


def _die_with(parent: int) -> None:
    """Have the kernel kill this process when ``parent`` exits (Linux); exit if it already has."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the closed pipe still ends an idle worker
        pass
    if os.getppid() != parent:
        os._exit(1)
