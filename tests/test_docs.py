"""The documentation is checked against the engine: every example session of the README and of
the protocol and rules pages is replayed, every perft figure they quote is in the perft tables,
and the Zhadu step table of docs/zhadu.md is the board the engine builds.

Replies are compared exactly, except what varies by machine or install: ``nps`` and ``time`` in
``info`` lines, the search lines of searches bounded by a clock (only their form and a legal
``bestmove`` are checked), how deep a search that ``stop`` ends got (its ``info`` lines up to
the deepest shown are compared, its ``bestmove`` is checked legal), and the version and author
of the handshake. Error lines
are compared whole, detail included. tests/doc_sessions.py refreshes the sessions from the
engine.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import perft_table
import pytest
from doc_sessions import (
    Example,
    Reply,
    replay,
    run_pipe,
    same,
    searches_fixed,
    sessions,
    settled_same,
    shell_examples,
)
from naive_zhadu import table_adjacency
from test_protocol_helpers import INFO_RE

from zengine.engine.zhadu import GEOMETRY, POINT_NAMES, build_steps

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ["README.md", "docs/protocol.md", "docs/zola.md", "docs/zhadu.md"]
#: Perft examples with more leaves than this are not rerun here: their figure must be in a
#: perft table of tests/data (the deep rows there are slow tests).
RERUN_PERFT_UP_TO = 2_000_000


# --- comparing replies ------------------------------------------------------------------------
def compare(where: str, command: str, shown: list[str], got: Reply) -> None:
    """The shown replies are the real ones, up to what ``doc_sessions.normal`` leaves out."""
    for line in got.lines:
        if line.startswith("info depth "):
            assert INFO_RE.match(line), f"{where}: '{command}' printed a malformed '{line}'"
        if line.startswith("bestmove ") and got.legal:
            assert line.split()[1] in got.legal, f"{where}: '{command}' printed '{line}'"
    for line in shown:
        if line.startswith("info depth "):
            assert INFO_RE.match(line), f"{where}: the documentation shows a malformed '{line}'"
        if line.startswith("bestmove ") and got.legal:
            assert line.split()[1] in got.legal, f"{where}: the documentation shows '{line}'"
    assert same(shown, got.lines, got.fixed), f"{where}: '{command}' printed\n" + "\n".join(
        got.lines
    )


def test_error_lines_are_compared_whole() -> None:
    """The detail of an error line is what the engine prints, not only its code: two details of
    docs/protocol.md's error session once differed from the engine's and passed."""
    shown = ["error bad-value bad value 5000 for option 'Hash' (1 to 4096)"]
    printed = ["error bad-value option 'Hash' 5000 out of range (1 to 4096)"]
    assert not same(shown, printed, fixed=False)
    assert same(printed, printed, fixed=False)


@pytest.mark.parametrize("example", sessions(CHECKED), ids=lambda e: e.where)
def test_example_sessions_are_real(example: Example) -> None:
    replies = replay(example)
    assert len(replies) == len(example.steps), f"{example.where}: commands after quit"
    for step, reply in zip(example.steps, replies):
        compare(example.where, step.command, step.expected, reply)
    for index, reply in enumerate(replies):
        if reply.settled is not None:
            # A search only stop ends: the iterations shown, up to the deepest, are exact.
            assert settled_same(example, index, reply), (
                f"{example.where}: '{example.steps[index].command}' printed\n"
                + "\n".join(reply.settled)
            )


def test_the_pages_have_example_sessions() -> None:
    where = {e.where.split(":")[0] for e in sessions(CHECKED)}
    assert where >= {"docs/protocol.md", "docs/zola.md", "docs/zhadu.md"}
    assert shell_examples(CHECKED, "pipe") and shell_examples(CHECKED, "perft")


_PIPES = shell_examples(CHECKED, "pipe")


@pytest.mark.parametrize("where,command,shown", _PIPES, ids=[e[0] for e in _PIPES])
def test_piped_examples_are_real(where: str, command: str, shown: list[str]) -> None:
    done = run_pipe(command)
    assert done.returncode == 0, done.stderr
    compare(where, command, shown, Reply(done.stdout.splitlines(), searches_fixed(command)))


def _table_figures() -> set[tuple[str, str, int, int]]:
    rows = set()
    for name in ("zola_perft.txt", "zhadu_perft.txt"):
        for param in perft_table.load(name):
            case = param.values[0]
            rows.add((case.variant, case.position, case.depth, case.nodes))
    return rows


@pytest.mark.parametrize(
    "where,command,shown",
    shell_examples(CHECKED, "perft"),
    ids=[e[0] for e in shell_examples(CHECKED, "perft")],
)
def test_perft_examples_are_real(where: str, command: str, shown: list[str]) -> None:
    from click.testing import CliRunner

    # Through the command line group, as the page's `zengine perft` runs it (invoking the
    # subcommand alone would also give click's default help options to later tests).
    from zengine.cli import main

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
    result = CliRunner().invoke(main, ["perft", *args])
    assert result.exit_code == 0, result.output
    assert total[0] in result.output.splitlines(), f"{where}: {result.output}"


# --- the referee's examples -------------------------------------------------------------------
REFEREE = "docs/referee.md"
#: The ``zengine match`` examples of docs/referee.md that cannot be replayed, by the start of
#: their command, and why. Every other one is replayed: a new example is one or the other.
NOT_REPLAYED = {
    "zengine match --seed 2024": "the demonstration plays on a clock: its games vary",
    "zengine match --engine cmd=zengine name=zengine depth=2 --engine cmd=": (
        "an SPRT at concurrency 2: how many games finish after it decides varies"
    ),
    "zengine match ... --games 20": "a Ctrl-C after 6 games",
    "zengine match --resume m": "the resume of that Ctrl-C",
    "zengine match --engine cmd=zengine name=new": "a cluster's scheduler on another machine",
}
_FOLDER = re.compile(r"matches/\d{8}-\d{6}")


def _referee_examples() -> list[tuple[str, str, list[str]]]:
    return [
        example
        for example in shell_examples([REFEREE], "match")
        if not any(example[1].startswith(start) for start in NOT_REPLAYED)
    ]


def test_every_unreplayed_referee_example_is_known() -> None:
    commands = [command for _, command, _ in shell_examples([REFEREE], "match")]
    for start in NOT_REPLAYED:
        assert any(command.startswith(start) for command in commands), start
    assert len(_referee_examples()) >= 3


@pytest.mark.parametrize(
    "where,command,shown", _referee_examples(), ids=[e[0] for e in _referee_examples()]
)
def test_referee_examples_are_real(
    where: str, command: str, shown: list[str], tmp_path: Path
) -> None:
    """Run in a folder of its own (``tests`` there is this one): every line shown but ``...``
    is printed, in that order; the folder's name (a time) is left out."""
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    done = subprocess.run(
        command,
        shell=True,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        check=False,
    )
    printed = iter(_FOLDER.sub("matches/_", line) for line in done.stdout.splitlines())
    for line in shown:
        if line != "...":
            want = _FOLDER.sub("matches/_", line)
            assert want in printed, f"{where}: '{line}' not printed (in order):\n{done.stdout}"


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
    shown = [e for e in shell_examples(CHECKED, "bench") if e[1] == "zengine bench"]
    assert len(shown) == 1, "README.md shows one 'zengine bench'"
    where, _, lines = shown[0]
    counts = [int(line.split(": ")[-1].split()[0]) for line in lines if ": " in line]
    total = int(lines[-1].split()[0])
    recorded = int((ROOT / "tests/data/bench_nodes.txt").read_text().strip())
    assert total == recorded == sum(counts), where
