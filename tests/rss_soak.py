"""Memory of a long session: the resident set of one engine process over many short searches.

    python tests/rss_soak.py --variant zhadu --searches 30000 --nodes 200 --every 5000
    python tests/rss_soak.py --engine .baseline/f6ceabc/venv/bin/zengine ...   # an older build

It drives the engine through the protocol only (so any build, old or new, can be measured the
same way): seeded random games, and at every position ``go nodes N`` before the random move is
played; a finished game starts a new one. Every ``--every`` searches it prints the engine's
resident set size (``VmRSS`` of ``/proc/<pid>/status``: Linux only). Not a test (it runs for
minutes); docs/search.md quotes its figures under "Memory".
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys


def rss_kib(pid: int) -> int:
    """The process's resident set size in KiB, from /proc."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def soak(engine: str, variant: str, searches: int, nodes: int, every: int, seed: int) -> None:
    """Run the searches, printing ``searches RSS`` lines."""
    proc = subprocess.Popen(
        [engine],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    send, read = proc.stdin, proc.stdout

    def ask(command: str, answer: str) -> str:
        send.write(command + "\n")
        send.flush()
        while True:
            line = read.readline()
            if not line:
                raise RuntimeError(f"the engine ended after '{command}'")
            if line.startswith("error"):
                raise RuntimeError(f"'{command}': {line.strip()}")
            if line.startswith(answer):
                return line

    rng = random.Random(seed)
    ask(f"setup {variant}\nisready", "readyok")
    print(f"{variant}: {0:>6} searches, RSS {rss_kib(proc.pid) / 1024:6.1f} MiB", flush=True)
    done = games = 0
    while done < searches:
        moves = ask("legalmoves", "legalmoves").split()[1:]
        if not moves:
            games += 1
            ask("newgame\nisready", "readyok")
            continue
        ask(f"go nodes {nodes}", "bestmove")
        done += 1
        ask(f"move {rng.choice(moves)}\nisready", "readyok")
        if done % every == 0 or done == searches:
            rss = rss_kib(proc.pid) / 1024
            print(f"{variant}: {done:>6} searches, RSS {rss:6.1f} MiB ({games} games)", flush=True)
    send.write("quit\n")
    send.close()
    proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="zengine", help="the engine command")
    parser.add_argument("--variant", default="zhadu")
    parser.add_argument("--searches", type=int, default=30_000)
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--every", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        soak(args.engine, args.variant, args.searches, args.nodes, args.every, args.seed)
    except (OSError, RuntimeError) as exc:
        sys.exit(f"rss_soak: {exc}")


if __name__ == "__main__":
    main()
