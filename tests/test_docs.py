"""The documentation is checked against the engine: every example session in the rules and
protocol pages is replayed, every perft figure they quote is in the perft tables, and the
Zhadu step table of docs/zhadu.md is the board the engine builds.

An example session is a fenced block whose lines starting with ``> `` are typed commands and
whose other lines are the engine's replies; a ``$ printf '...' | zengine`` line is a session
too. Replies are compared exactly, except what varies by machine or install: ``nps`` and
``time`` in ``info`` lines, the search lines of searches bounded by time or ``stop`` (only
their form and a legal ``bestmove`` are checked), the version and author of the handshake,
and the human-readable detail after ``error <code>``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import perft_table
import pytest
from naive_zhadu import table_adjacency
from test_protocol_helpers import INFO_RE, Script, zengine_path

from zengine.engine.zhadu import GEOMETRY, POINT_NAMES, build_steps

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ["README.md", "docs/protocol.md", "docs/zola.md", "docs/zhadu.md"]
#: Perft examples with more leaves than this are not rerun here: their figure must be in a
#: perft table of tests/data (the deep rows there are slow tests).
RERUN_PERFT_UP_TO = 2_000_000


def fenced_blocks(path: str) -> list[tuple[int, list[str]]]:
    """``(first line number, lines)`` of every fenced code block of a file."""
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
    """One example session: where it is, and its steps."""

    where: str
    steps: list[Step]


def sessions() -> list[Example]:
    """Every ``> `` session in the checked files."""
    found = []
    for path in CHECKED:
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


def shell_examples(program: str) -> list[tuple[str, str, list[str]]]:
    """``(where, command, output lines)`` of every ``$ <command>`` example running ``program``
    (``printf`` pipes into ``zengine``, or a ``zengine`` subcommand)."""
    found = []
    for path in CHECKED:
        for start, lines in fenced_blocks(path):
            for i, line in enumerate(lines):
                if not line.startswith("$ "):
                    continue
                command = line[2:]
                while command.endswith("\\"):
                    i += 1
                    command = command[:-1] + lines[i].strip()
                output = []
                for later in lines[i + 1 :]:
                    if later.startswith("$ "):
                        break
                    output.append(later)
                words = shlex.split(command)
                if program == "pipe" and words[0] == "printf" and words[-1] == "zengine":
                    found.append((f"{path}:{start + i}", command, output))
                elif program != "pipe" and words[:2] == ["zengine", program]:
                    found.append((f"{path}:{start + i}", command, output))
    return found


# --- comparing replies ------------------------------------------------------------------------
_TIMED = re.compile(r" (nps|time) \d+")


def fixed_search(command: str) -> bool:
    """Whether a ``go`` gives the same lines on every machine: bounded by depth or nodes only
    (Seed 0 makes such a search a function of position, limits and table)."""
    words = command.lower().split()[1:]
    timed = {"movetime", "wtime", "btime", "p1time", "p2time", "infinite"}
    return bool({"depth", "nodes"} & set(words)) and not timed & set(words)


def normal(line: str, fixed: bool) -> str | None:
    """A reply line with what varies removed; None to leave it out of the comparison."""
    if line.startswith("info depth "):
        return _TIMED.sub(r" \1 _", line) if fixed else None
    if line.startswith("id name zengine "):
        return "id name zengine _"
    if line.startswith("id author "):
        return "id author _"
    if line.startswith("error "):
        return " ".join(line.split()[:2])
    if line.startswith("bestmove ") and not fixed:
        return "bestmove _"
    return line


def compare(where: str, command: str, shown: list[str], got: list[str], fixed: bool) -> None:
    """The shown replies are the real ones, up to what :func:`normal` leaves out."""
    for line in got:
        if line.startswith("info depth "):
            assert INFO_RE.match(line), f"{where}: '{command}' printed a malformed '{line}'"
    for line in shown:
        if line.startswith("info depth "):
            assert INFO_RE.match(line), f"{where}: the documentation shows a malformed '{line}'"
    want = [n for n in (normal(line, fixed) for line in shown) if n is not None]
    have = [n for n in (normal(line, fixed) for line in got) if n is not None]
    assert have == want, f"{where}: '{command}' printed\n" + "\n".join(got)


def replay(example: Example) -> None:
    """Type the session's commands into a fresh engine and compare every reply.

    A search bounded by depth, nodes or time is waited for before the next command, as a
    person waits for ``bestmove``; a search that only ``stop`` ends runs on meanwhile.
    """
    script = Script()
    open_search = False
    for step in example.steps:
        words = step.command.split()
        word = words[0].lower() if words else ""
        if word == "quit":
            assert not step.expected, f"{example.where}: quit prints nothing"
            script.session.quit()
            return
        fixed = word == "go" and fixed_search(step.command) and not open_search
        legal = set(script.engine.legal_moves()) if word == "go" else set()
        got = script.send(step.command)
        if word == "go" and not script.engine.search_unbounded:
            got += script.finish()
        elif word == "go":
            open_search = True
        if open_search:
            fixed = False
            if word == "stop":
                open_search = False
        for line in got:
            if line.startswith("bestmove ") and line != "bestmove (none)":
                assert line.split()[1] in legal or not legal, f"{example.where}: {line}"
        compare(example.where, step.command, step.expected, got, fixed)
    script.finish()


@pytest.mark.parametrize("example", sessions(), ids=lambda e: e.where)
def test_example_sessions_are_real(example: Example) -> None:
    replay(example)


def test_the_pages_have_example_sessions() -> None:
    where = {e.where.split(":")[0] for e in sessions()}
    assert where >= {"docs/protocol.md", "docs/zola.md", "docs/zhadu.md"}
    assert shell_examples("pipe") and shell_examples("perft")


@pytest.mark.parametrize(
    "where,command,shown", shell_examples("pipe"), ids=[e[0] for e in shell_examples("pipe")]
)
def test_piped_examples_are_real(where: str, command: str, shown: list[str]) -> None:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(zengine_path()) + os.pathsep + env.get("PATH", "")
    done = subprocess.run(
        command, shell=True, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    go = [line for line in command.split("\\n") if line.split()[:1] == ["go"]]
    fixed = all(fixed_search(line) for line in go)
    compare(where, command, shown, done.stdout.splitlines(), fixed)


def _table_figures() -> set[tuple[str, str, int, int]]:
    rows = set()
    for name in ("zola_perft.txt", "zhadu_perft.txt"):
        for param in perft_table.load(name):
            case = param.values[0]
            rows.add((case.variant, case.position, case.depth, case.nodes))
    return rows


@pytest.mark.parametrize(
    "where,command,shown", shell_examples("perft"), ids=[e[0] for e in shell_examples("perft")]
)
def test_perft_examples_are_real(where: str, command: str, shown: list[str]) -> None:
    from click.testing import CliRunner

    from zengine.engine.perft import perft_command

    args = shlex.split(command)[2:]
    total = [line for line in shown if line.startswith("Nodes searched: ")]
    assert len(total) == 1, f"{where}: one 'Nodes searched' line"
    nodes = int(total[0].split()[-1])
    if nodes > RERUN_PERFT_UP_TO:
        variant = args[args.index("--variant") + 1] if "--variant" in args else "zola"
        fen = args[args.index("--fen") + 1] if "--fen" in args else "startpos"
        depth = int(next(a for a in args if a.isdigit()))
        assert (variant, fen, depth, nodes) in _table_figures(), f"{where}: not in tests/data"
        return
    result = CliRunner().invoke(perft_command, args)
    assert result.exit_code == 0, result.output
    assert total[0] in result.output.splitlines(), f"{where}: {result.output}"


# --- the perft figures the rules pages quote ------------------------------------------------
_PERFT_ROW = re.compile(r"^\| `([a-z0-9-]+)` \| `([^`]+)` \| (\d+) \| ([\d,]+) \|$")


def quoted_perft(path: str) -> list[tuple[str, str, int, int]]:
    """The rows ``| `variant` | `position` | depth | nodes |`` of a page's perft table."""
    rows = []
    for line in (ROOT / path).read_text().splitlines():
        match = _PERFT_ROW.match(line)
        if match:
            variant, position, depth, nodes = match.groups()
            rows.append((variant, position, int(depth), int(nodes.replace(",", ""))))
    return rows


@pytest.mark.parametrize("path", ["docs/zola.md", "docs/zhadu.md"])
def test_quoted_perft_figures_are_in_the_tables(path: str) -> None:
    quoted = quoted_perft(path)
    assert len(quoted) >= 10, f"{path} has a perft table"
    missing = [row for row in quoted if row not in _table_figures()]
    assert not missing, f"{path} quotes figures the perft tables of tests/data lack: {missing}"


# --- the Zhadu board as the rules page draws it -----------------------------------------------
_STEP_ROW = re.compile(r"^\| `([a-h][0-3])` \| ([a-h0-3 ]+) \| ([a-h0-3 ]+) \|$")


def documented_steps() -> dict[str, dict[str, set[str]]]:
    """``{"full": {point: neighbours}, "star": {...}}`` from docs/zhadu.md's step table."""
    table: dict[str, dict[str, set[str]]] = {"full": {}, "star": {}}
    for line in (ROOT / "docs/zhadu.md").read_text().splitlines():
        match = _STEP_ROW.match(line)
        if match:
            point, full, star = match.groups()
            table["full"][point] = set(full.split())
            table["star"][point] = set(star.split())
    return table


@pytest.mark.parametrize("links", ["full", "star"])
def test_documented_zhadu_steps_are_the_engine_board(links: str) -> None:
    documented = documented_steps()[links]
    assert sorted(documented) == sorted(POINT_NAMES)
    steps = GEOMETRY[links].steps
    for point, neighbours in documented.items():
        built = {POINT_NAMES[i] for i in range(32) if steps[POINT_NAMES.index(point)] >> i & 1}
        assert built == neighbours, point
    assert sum(len(n) for n in documented.values()) == 2 * len(build_steps(links))


def test_documented_zhadu_steps_are_the_naive_referee_table() -> None:
    assert documented_steps()["full"] == table_adjacency()


def test_readme_bench_example_has_the_recorded_signature() -> None:
    shown = [e for e in shell_examples("bench") if e[1] == "zengine bench"]
    assert len(shown) == 1, "README.md shows one 'zengine bench'"
    where, _, lines = shown[0]
    counts = [int(line.split(": ")[-1].split()[0]) for line in lines if ": " in line]
    total = int(lines[-1].split()[0])
    recorded = int((ROOT / "tests/data/bench_nodes.txt").read_text().strip())
    assert total == recorded == sum(counts), where
