"""Speed of several zengine installs side by side, in one run: perft, bench and time-to-depth.

    python scripts/compare_builds.py --rounds=3 base="$(dirname "$(scripts/baseline)")/python" \\
        pure=.venv/bin/python compiled=.venv-compiled/bin/python

Each build is named by the Python interpreter of its install. Every measurement is taken for
each build in turn before the next one starts, and the best of the rounds is kept. The figures
are per second of the measuring process's own CPU time, so other programs on a shared machine
slow them far less than they slow a wall clock (only through shared caches and cores): the
ratios are what to read. Time-to-depth is the deepest iteration a search from a fresh table
completes within 0.1 s and 1 s of CPU time, the CPU-clock reading of ``go movetime 100`` and
``go movetime 1000``; ``--wall`` adds the depth that real ``go movetime`` commands reach on the
wall clock, which a loaded machine lowers. Which depth falls within a second depends on the
machine's speed, so the CPU seconds each build takes to complete each depth (within
``SEARCH_SECONDS``) follow in a second table: one build is a ply deeper within a budget wherever the
budget lies between its time to depth d + 1 and the other's, scaled by the machine's speed.
One position can mislead (a single tree's size moves with every change to the evaluation), so
``--openings N`` also searches the positions after the first N lines of openings/zola.txt and
openings/zhadu.txt (``OPENING_SECONDS`` each) and prints each build's mean depth within 0.1 s
and 1 s of CPU, in how many positions it is deeper than, level with or shallower than the
first build, and per depth its speed against the first build (the geometric mean of the
CPU-time ratios: a few per cent show there, where mean depths move by whole plies). ``--limit DIR`` also times the deep Zola perfts against the C perft of
``DIR/zola_perft`` (the yardstick of ../shared/limit, built with ``make``), which counts the
same leaves the same way (bulk at the last ply), and prints each build's CPU time as a
multiple of the C program's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import NoReturn, cast

ZHADU_PLAY = "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"

#: (label, variant, position string or None for the start, depth): about a second each.
PERFTS = [
    ("zola", "zola", None, 4),
    ("zola-8", "zola-8", None, 3),
    ("zola-10", "zola-10", None, 3),
    ("zhadu play", "zhadu", ZHADU_PLAY, 4),
]

#: (variant, board size, depth): the perfts ``--limit`` times against ``zola_perft N D --bulk``.
LIMIT_PERFTS = [("zola", 6, 5), ("zola-8", 8, 4)]

#: The leaves of those perfts, as zola_perft's ``make check`` verifies them (the first is also
#: a row of tests/data/zola_perft.txt).
LIMIT_LEAVES = {("zola", 5): 58_816_016, ("zola-8", 4): 16_938_676}

#: (label, variant, position string or None for the start).
SEARCHES = [
    ("zola start", "zola", None),
    ("zola-8 start", "zola-8", None),
    ("zhadu start", "zhadu", None),
    ("zhadu play", "zhadu", ZHADU_PLAY),
]

#: CPU seconds each time-to-depth search may run (enough for the baseline's depth 5 from the
#: Zola start and depth 7 after the Zhadu setup on a machine where either takes about 1.5 s).
SEARCH_SECONDS = 2.5

#: CPU seconds each search over an openings file may run (``--openings``): past the 1 s read.
OPENING_SECONDS = 1.2
#: The variants whose openings files ``--openings`` searches.
OPENING_VARIANTS = ("zola", "zhadu")

#: Run by each build's own interpreter: one measurement, printed as JSON.
PROBE = """
import importlib, json, sys, threading, time
what, variant, fen, depth = sys.argv[1], sys.argv[2], sys.argv[3] or None, int(sys.argv[4])
# The package is zengine.engine today; the frozen baseline's was a top-level engine.
try:
    pkg = importlib.import_module("zengine.engine")
except ImportError:
    pkg = importlib.import_module("engine")
name = pkg.__name__
rules = importlib.import_module(name + ".variants").make_rules(variant)
state = rules.parse_position(fen) if fen else rules.start()
if what == "perft":
    perft = importlib.import_module(name + ".perft").perft
    start = time.process_time()
    leaves = perft(state, depth)
    print(json.dumps(leaves / (time.process_time() - start)))
elif what == "bench":
    bench_variant = importlib.import_module(name + ".bench").bench_variant
    start = time.process_time()
    nodes, _ = bench_variant(variant, depth)
    print(json.dumps([nodes, nodes / (time.process_time() - start)]))
elif what == "fens":  # the positions after each opening line read from stdin
    fens = []
    for line in sys.stdin:
        state = rules.start()
        for text in line.split():
            state.play(state.parse_move(text))
        fens.append(state.position_text())
    print(json.dumps(fens))
else:
    search = importlib.import_module(name + ".search")
    seconds = float(sys.argv[5])  # the CPU time each search may take

    def to_depth(state):
        # (depth, CPU seconds) of each iteration a fresh search completes within seconds
        if hasattr(search, "Limits"):  # the baseline: the searcher finds the evaluation itself
            args = (state, search.Limits(depth=depth))
        else:
            values = importlib.import_module(name + ".values")
            args = (state, values.GoLimits(depth=depth), rules.evaluation())
        done, stop = [], threading.Event()
        start = time.process_time()

        def watch():  # ends the search after ``seconds`` of CPU time
            while time.process_time() - start < seconds and not stop.wait(0.01):
                pass
            stop.set()

        threading.Thread(target=watch, daemon=True).start()
        search.Searcher(hash_mb=16, seed=0).search(
            *args, stop=stop,
            on_info=lambda info: done.append((info.depth, time.process_time() - start)),
        )
        stop.set()
        return done

    if what == "depth":
        print(json.dumps(to_depth(state)))
    else:  # "depths": one search per position string read from stdin
        print(json.dumps([to_depth(rules.parse_position(line.strip())) for line in sys.stdin]))
"""


#: Run first in each build: its package imports (the name of today's, when neither does).
CHECK = """
import importlib
try:
    importlib.import_module("zengine.engine")
except ImportError as today:
    try:
        importlib.import_module("engine")
    except ImportError:
        raise today from None
"""


class BuildError(Exception):
    """A build's interpreter failed: ``reason`` is the last line it wrote on stderr."""

    def __init__(self, python: str, reason: str) -> None:
        super().__init__(python, reason)
        self.python = python
        self.reason = reason


def run_in(python: str, code: str, *args: object, stdin: str = "") -> str:
    """The output of ``code`` run by the interpreter ``python``; :class:`BuildError` if it fails."""
    # From the root folder: run in a checkout, ``-c`` would put its ``engine/`` folder first on
    # the path, ahead of the build's own install (the baseline then imported today's sources).
    try:
        done = subprocess.run(
            [python, "-c", code, *map(str, args)],
            input=stdin,
            capture_output=True,
            text=True,
            cwd="/",
        )
    except OSError as error:
        raise BuildError(python, error.strerror or str(error)) from None
    if done.returncode != 0:
        # The last line of a traceback says what went wrong; the command holds the whole probe.
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        raise BuildError(python, lines[-1] if lines else f"exit status {done.returncode}")
    return done.stdout


def probe(python: str, *args: object, stdin: str = "") -> object:
    """One measurement by the build whose interpreter is ``python``."""
    return json.loads(run_in(python, PROBE, *args, stdin=stdin))


class OneLineParser(argparse.ArgumentParser):
    """Errors as one line (argparse's own add the usage line first), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def opening_lines(variant: str, count: int) -> list[str]:
    """The first ``count`` lines of the committed openings file of ``variant``."""
    path = Path(__file__).resolve().parent.parent / "openings" / f"{variant}.txt"
    lines = [line.strip() for line in path.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("#")][:count]


def depth_within(done: Iterable[tuple[int, float]], budget: float) -> int:
    """The deepest iteration completed within ``budget`` CPU seconds (1 at least, as the
    engine always completes depth 1)."""
    return max([1, *(depth for depth, seconds in done if seconds <= budget)])


def keep_fastest(seen: dict[int, float], done: Iterable[tuple[int, float]]) -> None:
    """Record in ``seen`` (depth -> CPU seconds) the least time any round took to each depth."""
    for depth, spent in done:
        seen[depth] = min(spent, seen.get(depth, spent))


def limit_seconds(program: str, size: int, depth: int) -> float:
    """The C yardstick's time for perft ``depth`` on the ``size`` board: the lesser of its own
    reading of the count (a wall clock) and the CPU time of its whole process (which adds its
    start), so that the multiple of it a build takes is never flattered."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [program, str(size), str(depth), "--bulk"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = re.search(r"seconds=([0-9.]+)", out)
    if found is None:
        raise OSError(f"{program} printed no seconds= figure: {out.strip()[:80]!r}")
    return min(cpu, float(found[1]))


def wall_depth(python: str, variant: str, fen: str | None, movetime: int) -> int:
    """The last ``info depth`` of a real ``go movetime`` in a fresh engine process."""
    zengine = str(Path(python).with_name("zengine"))
    position = f"position fen {fen}" if fen else "position startpos"
    script = f"setup {variant}\n{position}\ngo movetime {movetime}\n"
    out = subprocess.run(
        [zengine], input=script, capture_output=True, text=True, check=True, timeout=120
    ).stdout
    depths = [int(d) for d in re.findall(r"^info depth (\d+)", out, re.MULTILINE)]
    return depths[-1] if depths else 0


def main(argv: list[str]) -> None:
    parser = OneLineParser(
        prog="compare_builds.py",
        description="perft, bench and time-to-depth of several zengine installs side by side",
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds; the best is kept")
    parser.add_argument("--wall", action="store_true", help="also real go movetime depths")
    parser.add_argument(
        "--openings",
        type=int,
        default=0,
        metavar="N",
        help="also time to depth after the first N lines of openings/zola.txt and zhadu.txt",
    )
    parser.add_argument(
        "--limit",
        metavar="DIR",
        help="also perft 5 zola and perft 4 zola-8 against DIR/zola_perft (the C yardstick)",
    )
    parser.add_argument("builds", nargs="+", metavar="NAME=PYTHON", help="a build's interpreter")
    args = parser.parse_args(argv)
    limit = None
    if args.limit is not None:
        limit = str(Path(args.limit, "zola_perft").absolute())
        if not os.access(limit, os.X_OK):
            parser.error(f"--limit: no program {limit} (make it with make -C {args.limit})")
    if args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    if args.openings < 0:
        parser.error("--openings must be 0 or more")
    if any(not all(b.partition("=")[::2]) for b in args.builds):
        parser.error("each build is NAME=PYTHON (the interpreter of its install)")
    rounds, wall = args.rounds, args.wall
    builds: dict[str, str] = {}
    for name, _, python in (arg.partition("=") for arg in args.builds):
        if name in builds:  # a dict would keep the last silently
            parser.error(f"build name '{name}' given twice")
        builds[name] = python
    names = list(builds)
    # Absolute, as the probes run from the root folder; not resolved, as a venv's python is a
    # link whose target lies outside the venv.
    pythons = [os.path.abspath(p) if os.sep in p else shutil.which(p) or p for p in builds.values()]
    # Before any measurement: a build that is no zengine install is a bad command line.
    for name, python in zip(names, pythons):
        try:
            run_in(python, CHECK)
        except BuildError as error:
            parser.error(f"build {name} ({python}): {error.reason}")
    # label -> per build, the figures of every round; the best is kept.
    figures: dict[str, list[list[float]]] = {}
    # position label -> per build, depth -> the least CPU seconds any round took to complete it.
    to_depth: dict[str, list[dict[int, float]]] = {}

    def take(label: str, values: list[float]) -> None:
        for seen, value in zip(figures.setdefault(label, [[] for _ in pythons]), values):
            seen.append(value)
        print(label, [round(v) for v in values], file=sys.stderr, flush=True)

    # variant -> per build, per position: depth -> the least CPU seconds any round took.
    after_openings: dict[str, list[list[dict[int, float]]]] = {}
    fens: dict[str, list[str]] = {}
    if args.openings:
        for variant in OPENING_VARIANTS:
            lines = "\n".join(opening_lines(variant, args.openings)) + "\n"
            fens[variant] = cast(
                "list[str]", probe(pythons[-1], "fens", variant, "", 0, stdin=lines)
            )
            after_openings[variant] = [[{} for _ in fens[variant]] for _ in pythons]

    # (variant, depth) -> the least CPU seconds of the C yardstick, then of each build.
    against_limit: dict[tuple[str, int], list[float]] = {}
    variants = ["zola", "zola-8", "zola-10", "zhadu", "zhadu-star"]
    for _ in range(rounds):
        if limit is not None:
            for variant, size, depth in LIMIT_PERFTS:
                times = [limit_seconds(limit, size, depth)]
                count = LIMIT_LEAVES[(variant, depth)]
                times += [
                    count / cast(float, probe(p, "perft", variant, "", depth)) for p in pythons
                ]
                kept = against_limit.setdefault((variant, depth), times)
                against_limit[(variant, depth)] = [min(a, b) for a, b in zip(kept, times)]
                print(
                    f"perft {depth} {variant} against C, CPU s", times, file=sys.stderr, flush=True
                )
        for label, variant, fen, depth in PERFTS:
            leaves = [probe(p, "perft", variant, fen or "", depth) for p in pythons]
            take(f"perft {depth} {label}, leaves/s", [float(v) for v in leaves])  # type: ignore[arg-type]
        per_build = [[probe(p, "bench", v, "", 3) for v in variants] for p in pythons]
        for i, variant in enumerate(variants):
            take(f"bench {variant}, nodes/s", [b[i][1] for b in per_build])  # type: ignore[index]
        totals = [sum(b[i][0] for i in range(len(variants))) for b in per_build]  # type: ignore[index]
        seconds = [sum(b[i][0] / b[i][1] for i in range(len(variants))) for b in per_build]  # type: ignore[index]
        take("bench total, nodes/s", [n / s for n, s in zip(totals, seconds)])
        take("bench nodes", [float(n) for n in totals])
        for label, variant, fen in SEARCHES:
            done = [
                cast(
                    "list[tuple[int, float]]",
                    probe(
                        p,
                        "depth",
                        variant,
                        fen or "",
                        30 if "zhadu" in variant else 12,
                        SEARCH_SECONDS,
                    ),
                )
                for p in pythons
            ]
            for build, completed in zip(to_depth.setdefault(label, [{} for _ in pythons]), done):
                keep_fastest(build, completed)
            for budget in (0.1, 1.0):
                take(
                    f"depth within {budget:g} s CPU, {label}",
                    [float(depth_within(d, budget)) for d in done],
                )
        for variant, positions in fens.items():
            stdin = "\n".join(positions) + "\n"
            for p, per_position in zip(pythons, after_openings[variant]):
                searched = probe(p, "depths", variant, "", 40, OPENING_SECONDS, stdin=stdin)
                for position, completed in zip(
                    per_position, cast("list[list[tuple[int, float]]]", searched)
                ):
                    keep_fastest(position, completed)
                print(f"openings {variant}: {p} searched", file=sys.stderr, flush=True)
        if wall:
            for movetime in (100, 1000):
                for label, variant, fen in SEARCHES:
                    take(
                        f"depth at go movetime {movetime}, {label}",
                        [float(wall_depth(p, variant, fen, movetime)) for p in pythons],
                    )

    header = ["measure", *names, *[f"{n}/{names[0]}" for n in names[1:]]]
    print(f"best of {rounds} round(s)")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, seen in figures.items():
        best = [max(values) for values in seen]
        cells = [f"{round(v):,}" for v in best]
        if "/s" in label and best[0]:
            cells += [f"{v / best[0]:.2f}x" for v in best[1:]]
        else:
            cells += [""] * (len(names) - 1)
        print("| " + " | ".join([label, *cells]) + " |")
    print(
        f"\nCPU seconds to complete each depth (best of {rounds}; '-': not within {SEARCH_SECONDS:g} s)"
    )
    print("| position, depth | " + " | ".join(names) + " |")
    print("|" + "---|" * (len(names) + 1))
    for label, builds_seen in to_depth.items():
        for depth in sorted(set().union(*builds_seen)):
            cells = [f"{b[depth]:.2f}" if depth in b else "-" for b in builds_seen]
            print(f"| {label}, {depth} | " + " | ".join(cells) + " |")
    if after_openings:
        print_openings(names, after_openings)
    if against_limit:
        print(f"\nAgainst the C yardstick ({limit}, --bulk): CPU seconds, best of {rounds}")
        print("| perft | C | " + " | ".join([*names, *(f"{n}/C" for n in names)]) + " |")
        print("|" + "---|" * (2 + 2 * len(names)))
        for (variant, depth), (c, *spent) in against_limit.items():
            cells = [f"{c:.4f}", *(f"{t:.3f}" for t in spent), *(f"{t / c:.1f}x" for t in spent)]
            print(f"| {depth} {variant} | " + " | ".join(cells) + " |")


#: Positions a depth needs (completed by the first build and another) for a speed-up row, and
#: the shortest time to depth that counts (a shorter one is within the CPU clock's grain).
SPEEDUP_POSITIONS = 5
SPEEDUP_SECONDS = 0.02


def depth_speedups(builds_seen: list[list[dict[int, float]]]) -> list[tuple[int, list[str]]]:
    """Per depth, each later build's speed against the first: the geometric mean, over the
    positions where both completed that depth (the first in at least ``SPEEDUP_SECONDS``), of
    the first build's CPU time to it over the other's, with the count of those positions.

    More telling than the mean depth within a budget, which moves by whole plies: a change
    that makes the search 5% faster shows here at every depth (side by side, one build per
    core, the figures of two runs agree within a few per cent)."""
    first, others = builds_seen[0], builds_seen[1:]
    depths = sorted({d for position in first for d in position})
    rows = []
    for depth in depths:
        cells = []
        for seen in others:
            ratios = [
                math.log(mine[depth] / theirs[depth])
                for mine, theirs in zip(first, seen)
                if mine.get(depth, 0) >= SPEEDUP_SECONDS and theirs.get(depth, 0) > 0
            ]
            if len(ratios) < SPEEDUP_POSITIONS:
                cells.append("")
            else:
                cells.append(f"{math.exp(sum(ratios) / len(ratios)):.2f}x ({len(ratios)})")
        if any(cells):
            rows.append((depth, cells))
    return rows


def print_openings(
    names: list[str], after_openings: dict[str, list[list[dict[int, float]]]]
) -> None:
    """The mean depth each build completes within 0.1 s and 1 s of CPU over the positions
    after the openings, and in how many positions each is deeper than, level with or
    shallower than the first build."""
    print("\nAfter the openings (best of the rounds per position): depth within a CPU budget")
    print("| openings, budget | " + " | ".join(names) + " |")
    print("|" + "---|" * (len(names) + 1))
    for variant, builds_seen in after_openings.items():
        count = len(builds_seen[0])
        for budget in (0.1, 1.0):
            depths = [
                [depth_within(position.items(), budget) for position in seen]
                for seen in builds_seen
            ]
            means = [f"{sum(d) / count:.2f}" for d in depths]
            print(f"| {variant} ({count}), {budget:g} s: mean depth | " + " | ".join(means) + " |")
            versus = []
            for d in depths[1:]:
                gaps = [x - y for x, y in zip(d, depths[0])]
                deeper, shallower = sum(g > 0 for g in gaps), sum(g < 0 for g in gaps)
                versus.append(f"{deeper} / {gaps.count(0)} / {shallower}")
            print(
                f"| {variant} ({count}), {budget:g} s: deeper / level / shallower than {names[0]} | "
                + " | ".join(["", *versus])
                + " |"
            )
    if len(names) < 2:
        return
    print(f"\nAfter the openings: speed to each depth against {names[0]}, geometric mean of the")
    print("CPU-time ratios over the positions both completed it in (their count)")
    print("| openings, depth | " + " | ".join(names[1:]) + " |")
    print("|" + "---|" * len(names))
    for variant, builds_seen in after_openings.items():
        for depth, cells in depth_speedups(builds_seen):
            print(f"| {variant}, {depth} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:
        sys.exit(130)
    except BuildError as error:
        sys.exit(f"compare_builds.py: error: {error.python}: {error.reason}")
    except (OSError, subprocess.SubprocessError) as error:
        sys.exit(f"compare_builds.py: {error}")
