"""Speed of several zengine builds side by side, in one run: perft, bench and time-to-depth.

    python scripts/compare_builds.py --rounds=2 base="$(scripts/baseline)" \\
        pure=.venv/bin/zengine compiled=.venv-compiled/bin/zengine

Each measurement is taken for every build in turn before the next one starts, so the builds share
the machine's load of the moment, and the best of the rounds is kept (load only ever slows a
run; on a shared machine the ratios are what to read, not the absolute figures). Prints one
Markdown table: perft leaves/s and bench nodes/s per variant, and the depth reached by
``go movetime 100`` and ``go movetime 1000`` from fresh engine processes.
"""

from __future__ import annotations

import re
import subprocess
import sys

ZHADU_PLAY = "1a0,2a1,3a2,4a3,123b0/1h0,2h1,3h2,4h3,123g0 w -/- 0 10"

#: (label, variant, position string or None for the start, depth): a few seconds each.
PERFTS = [
    ("zola", "zola", None, 4),
    ("zola-8", "zola-8", None, 3),
    ("zola-10", "zola-10", None, 3),
    ("zhadu play", "zhadu", ZHADU_PLAY, 4),
    ("zhadu-star", "zhadu-star", None, 3),
]

#: (label, variant, position string or None for the start).
SEARCHES = [
    ("zola start", "zola", None),
    ("zola-8 start", "zola-8", None),
    ("zhadu start", "zhadu", None),
    ("zhadu play", "zhadu", ZHADU_PLAY),
]


def perft_nps(engine: str, variant: str, fen: str | None, depth: int) -> int:
    """Leaves per second of ``zengine perft`` (its own clock: start-up not counted)."""
    command = [engine, "perft", "--variant", variant, str(depth)]
    if fen:
        command[4:4] = ["--fen", fen]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    match = re.search(r"Nodes/second: (\d+)", out)
    assert match, out
    return int(match.group(1))


def bench(engine: str) -> dict[str, int]:
    """Nodes per second of ``zengine bench`` per variant, and ``total``; the node count too."""
    out = subprocess.run([engine, "bench"], capture_output=True, text=True, check=True).stdout
    figures: dict[str, int] = {}
    for line in out.splitlines():
        if match := re.fullmatch(r"(\S+): (\d+) nodes (\d+) nps", line):
            figures[match.group(1)] = int(match.group(3))
        elif match := re.fullmatch(r"(\d+) nodes (\d+) nps", line):
            figures["total"] = int(match.group(2))
            figures["nodes"] = int(match.group(1))
    return figures


def depth_reached(engine: str, variant: str, fen: str | None, movetime: int) -> int:
    """The last ``info depth`` of ``go movetime`` from a position, in a fresh engine process."""
    position = f"position fen {fen}" if fen else "position startpos"
    script = f"setup {variant}\n{position}\ngo movetime {movetime}\n"
    out = subprocess.run(
        [engine], input=script, capture_output=True, text=True, check=True, timeout=120
    ).stdout
    depths = [int(d) for d in re.findall(r"^info depth (\d+)", out, re.MULTILINE)]
    return depths[-1] if depths else 0


def main(argv: list[str]) -> None:
    rounds = 1
    if argv and argv[0].startswith("--rounds="):
        rounds = int(argv.pop(0).removeprefix("--rounds="))
    builds = dict(arg.split("=", 1) for arg in argv)
    names = list(builds)
    engines = list(builds.values())
    # label -> per build, the figures of every round; the best is kept (load only slows a run).
    figures: dict[str, list[list[int]]] = {}

    def take(label: str, values: list[int]) -> None:
        for seen, value in zip(figures.setdefault(label, [[] for _ in engines]), values):
            seen.append(value)
        print(label, values, file=sys.stderr, flush=True)

    for _ in range(rounds):
        for label, variant, fen, depth in PERFTS:
            take(
                f"perft {depth} {label}, leaves/s",
                [perft_nps(e, variant, fen, depth) for e in engines],
            )
        benches = [bench(e) for e in engines]
        for variant in [k for k in benches[0] if k != "nodes"]:
            take(f"bench {variant}, nodes/s", [b.get(variant, 0) for b in benches])
        take("bench nodes", [b["nodes"] for b in benches])
        for movetime in (100, 1000):
            for label, variant, fen in SEARCHES:
                take(
                    f"depth at movetime {movetime}, {label}",
                    [depth_reached(e, variant, fen, movetime) for e in engines],
                )

    header = ["measure", *names, *[f"{n}/{names[0]}" for n in names[1:]]]
    print(f"best of {rounds} round(s)")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, seen in figures.items():
        best = [max(values) for values in seen]
        cells = [f"{v:,}" for v in best]
        if "/s" in label and best[0]:
            cells += [f"{v / best[0]:.2f}x" for v in best[1:]]
        else:
            cells += [""] * (len(names) - 1)
        print("| " + " | ".join([label, *cells]) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
