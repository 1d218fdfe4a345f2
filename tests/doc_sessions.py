"""Helpers (no tests): the example sessions of the documentation, read, replayed, rewritten.

An example session is a fenced block whose lines starting with ``> `` are typed commands and
whose other lines are the engine's replies; a ``$ printf '...' | zengine`` line followed by its
output is one too. tests/test_docs.py replays them and compares; after a change that alters
real output (a new search, another message), refresh them from the engine with

    python tests/doc_sessions.py docs/protocol.md docs/zola.md docs/zhadu.md README.md

and read the diff before committing it.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from test_protocol_helpers import Script, zengine_path

ROOT = Path(__file__).resolve().parents[1]


def fenced_blocks(path: str) -> list[tuple[int, list[str]]]:
    """``(line number of the first line inside, lines)`` of every fenced block of a file."""
    blocks: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    start = 0
    for number, line in enumerate((ROOT / path).read_text().splitlines(), 1):
        if line.startswith("```"):
            if current is None:
                current, start = [], number + 1
            else:
                blocks.append((start, current))
                current = None
        elif current is not None:
            current.append(line)
    return blocks


@dataclass
class Step:
    """One typed command and the reply lines the documentation shows for it."""

    command: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Example:
    """One example session: where it is (``path:line``), and its steps."""

    where: str
    steps: list[Step]


def sessions(paths: list[str]) -> list[Example]:
    """Every ``> `` session in the files."""
    found = []
    for path in paths:
        for start, lines in fenced_blocks(path):
            if not lines or not lines[0].startswith("> "):
                continue
            steps: list[Step] = []
            for line in lines:
                if line.startswith("> "):
                    steps.append(Step(line[2:]))
                else:
                    steps[-1].expected.append(line)
            found.append(Example(f"{path}:{start}", steps))
    return found


def shell_examples(paths: list[str], program: str) -> list[tuple[str, str, list[str]]]:
    """``(path:line, command, output lines)`` of every ``$ <command>`` example of ``program``
    (``pipe`` for ``printf ... | zengine``, else a ``zengine`` subcommand such as ``perft``);
    the line is the command's last one, so its output starts at that 0-based index."""
    found = []
    for path in paths:
        for start, lines in fenced_blocks(path):
            for i, line in enumerate(lines):
                if not line.startswith("$ "):
                    continue
                command, end = line[2:], i
                while command.endswith("\\"):
                    end += 1
                    command = command[:-1] + lines[end].strip()
                output = []
                for later in lines[end + 1 :]:
                    if later.startswith("$ "):
                        break
                    output.append(later)
                words = shlex.split(command)
                piped = words[0] == "printf" and words[-1] == "zengine"
                if (program == "pipe" and piped) or words[:2] == ["zengine", program]:
                    found.append((f"{path}:{start + end}", command, output))
    return found


@dataclass
class Reply:
    """What one command printed, and what is needed to judge it."""

    lines: list[str]
    #: A ``go`` whose lines are the same on every machine (see :func:`fixed_search`).
    fixed: bool = False
    #: For a ``go``: the legal moves when it was sent (for a ``stop``: those of its ``go``).
    legal: set[str] = field(default_factory=set)
    #: For a ``go`` that only ``stop`` ends: its ``info`` lines up to the deepest one the
    #: documentation shows (the same on every machine: the replay waits for that depth before
    #: the next command), and the index of the step of its ``stop``.
    settled: list[str] | None = None
    until: int = 0


def fixed_search(command: str) -> bool:
    """Whether a ``go`` prints the same lines on every machine: bounded by depth or nodes only
    (with Seed 0 such a search is a function of position, limits and table)."""
    words = set(command.lower().split()[1:])
    timed = {"movetime", "wtime", "btime", "p1time", "p2time", "infinite", "ponder"}
    return bool({"depth", "nodes"} & words) and not timed & words


_TIMED = re.compile(r" (nps|time) \d+")


def normal(line: str, fixed: bool) -> str | None:
    """A reply line with what varies by machine or install removed (None: left out entirely).

    ``nps`` and ``time`` of ``info`` lines; the ``info`` lines and the ``bestmove`` of a search
    that is not ``fixed``; the version and author of the handshake. An ``error`` line is kept
    whole: the pages say their sessions are exactly what the engine prints, and no error detail
    they show depends on the machine (when only the code was compared, two details of
    docs/protocol.md had gone stale unnoticed).
    """
    if line.startswith("info depth "):
        return _TIMED.sub(r" \1 _", line) if fixed else None
    if line.startswith("id name zengine "):
        return "id name zengine _"
    if line.startswith("id author "):
        return "id author _"
    if line.startswith("bestmove ") and not fixed:
        return "bestmove _"
    return line


def same(shown: list[str], got: list[str], fixed: bool) -> bool:
    """Whether the lines shown are the lines printed, up to what :func:`normal` leaves out."""
    want = [n for n in (normal(line, fixed) for line in shown) if n is not None]
    return want == [n for n in (normal(line, fixed) for line in got) if n is not None]


def info_depth(line: str) -> int | None:
    """The depth of an ``info depth`` line (None for another line)."""
    words = line.split()
    return int(words[2]) if words[:2] == ["info", "depth"] else None


def open_range(example: Example, first: int) -> tuple[int, int]:
    """For the ``go`` of step ``first`` that only ``stop`` ends: the index of the step of that
    ``stop`` (the last step if none), and the deepest ``info`` line shown up to it (0: none)."""
    until = len(example.steps) - 1
    for index in range(first + 1, len(example.steps)):
        if example.steps[index].command.split()[:1] == ["stop"]:
            until = index
            break
    depths = [
        depth
        for step in example.steps[first : until + 1]
        for line in step.expected
        if (depth := info_depth(line)) is not None
    ]
    return until, max(depths, default=0)


def wait_for_depth(script: Script, start: int, depth: int) -> None:
    """Return once the search started at ``start`` printed its ``info depth`` line of
    ``depth`` (a search that only stop ends reaches any depth a page shows in moments)."""
    deadline = time.monotonic() + 300
    while not any((info_depth(line) or 0) >= depth for line in script.since(start)):
        assert time.monotonic() < deadline, f"the search never reached depth {depth}"
        time.sleep(0.005)


def replay(example: Example) -> list[Reply]:
    """Type the session's commands into a fresh engine; what each printed.

    A search bounded by depth, nodes or time (or a ``perft``, or a ``bench``) is waited for
    before the next command, as a person waits for ``bestmove``. One that only ``stop`` ends
    runs on meanwhile: its lines may show up in the reply of any command up to the ``stop``,
    and how deep it gets depends on the machine, but its iterations do not: the replay waits
    until it printed the deepest ``info`` line shown, and those lines are the ``go``'s
    ``settled`` ones. A ``go ponder``
    runs on until ``stop``, or until ``ponderhit`` bounds it, and is then waited for.
    """
    script = Script()
    replies: list[Reply] = []
    open_search = False
    # A search the clock ended leaves a table that depends on the machine's speed: the open
    # searches after it in the session are no longer the same on every machine.
    timed = False
    opened = (0, 0, 0)  # the open search's step, first line and deepest line shown
    open_legal: set[str] = set()
    for index, step in enumerate(example.steps):
        words = step.command.split()
        word = words[0].lower() if words else ""
        if word == "quit":
            script.session.quit()
            replies.append(Reply([]))
            break
        legal = set(script.engine.legal_moves()) if word == "go" and not open_search else set()
        fixed = word == "go" and fixed_search(step.command) and not open_search
        # Every line from the command on, however fast or slow the machine: a bounded search
        # may end before send() returns or just after (both were once read as an open one).
        start = script.mark()
        script.send(step.command)
        if script.engine.search_unbounded and not open_search:
            open_search = True  # only a stop ends it
            _, depth = open_range(example, index)
            opened, open_legal = (index, start, depth), legal
            wait_for_depth(script, start, depth)
        elif not open_search:
            script.finish()  # a bounded search, a perft, a bench: to its last line
            timed = timed or (word == "go" and not fixed)
        if open_search and word == "ponderhit" and not script.engine.search_unbounded:
            script.finish()  # a ponder search bounded from the ponderhit on: to its bestmove
            open_search = False
            fixed = False
            timed = True
        lines = script.since(start)
        if open_search:
            fixed = False
            if word == "stop":
                open_search = False
                legal = open_legal
                if not timed:
                    _settle(replies, opened, script, index)
        replies.append(Reply(lines, fixed, legal))
    script.finish()
    if open_search and not timed:  # the end of input stopped the open search
        _settle(replies, opened, script, len(replies) - 1)
    return replies


def _settle(replies: list[Reply], opened: tuple[int, int, int], script: Script, until: int) -> None:
    """Give the ``go`` of an open search its settled lines, once it is stopped."""
    first, begin, depth = opened
    replies[first].settled = [
        line for line in script.since(begin) if (info_depth(line) or depth + 1) <= depth
    ]
    replies[first].until = until


def settled_same(example: Example, index: int, reply: Reply) -> bool:
    """Whether the ``info`` lines shown for the open search of step ``index`` (up to its
    ``stop``) are its settled lines, up to ``nps`` and ``time``."""
    steps = example.steps[index : reply.until + 1]
    shown = [line for step in steps for line in step.expected if line.startswith("info ")]
    assert reply.settled is not None
    return [normal(line, True) for line in shown] == [normal(line, True) for line in reply.settled]


def run_pipe(command: str) -> subprocess.CompletedProcess[str]:
    """Run a ``printf ... | zengine`` example with the installed ``zengine``."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(zengine_path()) + os.pathsep + env.get("PATH", "")
    return subprocess.run(
        command, shell=True, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def searches_fixed(command: str) -> bool:
    """Whether every ``go`` of a ``printf ... | zengine`` example is a fixed search."""
    go = [line for line in command.split("\\n") if line.split()[:1] == ["go"]]
    return all(fixed_search(line) for line in go)


def rewrite(path: str) -> int:
    """Replace the replies that are no longer the real ones, in every session and piped example
    of a file, with real output; how many examples changed. (Replies that differ only in what
    varies from run to run are kept, so a refresh touches only what is stale.)"""
    lines = (ROOT / path).read_text().splitlines()
    changed = 0
    # From the end, so earlier line numbers stay valid while later blocks change length.
    for where, command, shown in reversed(shell_examples([path], "pipe")):
        first = int(where.split(":")[1])  # the line after the command's last line
        got = run_pipe(command).stdout.splitlines()
        if not same(shown, got, searches_fixed(command)):
            lines[first : first + len(shown)] = got
            changed += 1
    for example in reversed(sessions([path])):
        start = int(example.where.split(":")[1]) - 1
        end = start + sum(1 + len(step.expected) for step in example.steps)
        fresh, stale = [], False
        replies = replay(example)
        renewed = set()  # the steps of an open search whose settled lines are stale
        for index, reply in enumerate(replies):
            if reply.settled is not None and not settled_same(example, index, reply):
                renewed.update(range(index, reply.until + 1))
        for index, (step, reply) in enumerate(zip(example.steps, replies)):
            kept = index not in renewed and same(step.expected, reply.lines, reply.fixed)
            stale = stale or not kept
            fresh += [f"> {step.command}", *(step.expected if kept else reply.lines)]
        if stale:
            lines[start:end] = fresh
            changed += 1
    (ROOT / path).write_text("\n".join(lines) + "\n")
    return changed


def main(paths: list[str]) -> int:
    """Rewrite the given files (paths from the repository root); exit status."""
    if not paths:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python tests/doc_sessions.py FILE...", file=sys.stderr)
        return 2
    for path in paths:
        print(f"{path}: {rewrite(path)} example(s) refreshed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
