"""How the engine spends its time: a measuring tool (not a test), figures for docs/search.md.

Two modes::

    python tests/time_usage.py go [--go "movetime 100"] [--variant zola] [--moves 300]
    python tests/time_usage.py games DIR [DIR...]

``go`` runs the engine as a process (``--engine``, default ``zengine``; in a session of its own,
as ``zengine match`` starts engines), has it play games against itself with the same ``go`` line for every move, and measures each move as a referee
does: from writing ``go`` to reading ``bestmove`` (monotonic clock). It prints the distribution
of the times and, under ``movetime``, of the overruns (time - movetime); with ``debug on``
the engine tells its own time from the ``go`` line to the ``bestmove`` (``info string search
done ... time X ms``), and the rest (pipes, scheduling) is printed as the latency outside it.
It also checks that every ``bestmove`` is the first move of the last ``info ... pv`` before it.

``games`` reads the ``games.jsonl`` of ``zengine match`` output folders with a time control and
replays each game's clocks: per move, the time used as a share of the mover's remaining clock
before the move, and the least time ever left on a clock.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

from zengine.engine.variants import make_rules


def percentile(values: list[float], share: float) -> float:
    """The value at ``share`` (0..1) of the sorted values (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))
    return ordered[index]


def spread(name: str, values: list[float], unit: str) -> str:
    """One line: count, p50, p90, p99 and max of ``values``."""
    if not values:
        return f"{name}: none"
    parts = [f"{label} {percentile(values, q):.3g}{unit}" for label, q in PERCENTILES]
    return f"{name} over {len(values)}: " + ", ".join(parts) + f", max {max(values):.3g}{unit}"


PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))


def go_mode(args: argparse.Namespace) -> int:
    """Self-play with one ``go`` line per move; times measured as the referee does."""
    go_line = "go " + args.go
    movetime = None
    words = args.go.split()
    if "movetime" in words:
        movetime = int(words[words.index("movetime") + 1])
    engine = subprocess.Popen(
        shlex.split(args.engine),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
        # As the referee starts engines: in a session of its own, so that Linux schedules it
        # as a group apart from this script's session (CPU burners started from the same
        # shell would otherwise share its CPU share: own time p99 590 ms at movetime 100).
        start_new_session=True,
    )
    assert engine.stdin is not None and engine.stdout is not None
    out, inp = engine.stdout, engine.stdin

    def send(line: str) -> float:
        inp.write(line + "\n")
        inp.flush()
        return time.monotonic()

    def read_until(word: str) -> tuple[float, list[str]]:
        lines = []
        while True:
            line = out.readline()
            stamp = time.monotonic()
            if not line:
                raise SystemExit(f"the engine ended before '{word}'")
            lines.append(line.strip())
            if line.split()[:1] == [word]:
                return stamp, lines

    rules = make_rules(args.variant)
    send("uci")
    read_until("uciok")
    send(f"setoption name UCI_Variant value {args.variant}")
    send("debug on")
    log = open(args.log, "w") if args.log else None
    times: list[float] = []
    outside: list[float] = []
    own: list[float] = []
    disagreements = 0
    games = 0
    while len(times) < args.moves:
        games += 1
        state = rules.start()
        history: list[str] = []
        send("ucinewgame")
        send("isready")
        read_until("readyok")
        while not state.is_over() and len(times) < args.moves:
            send("position startpos" + (" moves " + " ".join(history) if history else ""))
            sent = send(go_line)
            stamp, lines = read_until("bestmove")
            times.append((stamp - sent) * 1000)
            for line in lines:
                words = line.split()
                if "search done" in line and "time" in words:
                    own.append(float(words[words.index("time") + 1]))
                    outside.append(times[-1] - own[-1])
                    if log is not None:
                        log.write(f"{times[-1]:.1f} {line}\n")
            best = lines[-1].split()[1]
            pvs = [line.split(" pv ")[1].split() for line in lines if line.startswith("info depth")]
            if not pvs or pvs[-1][0] != best:
                disagreements += 1
                print(f"bestmove {best} is not the last pv's first move: {lines[-2:]}")
            move = state.parse_move(best)
            history.append(state.move_text(move))
            state.play(move)
    send("quit")
    engine.wait(10)
    if log is not None:
        log.close()
    print(f"{args.variant}, '{go_line}', {len(times)} moves in {games} games")
    print(spread("time (ms)", times, ""))
    if movetime is not None:
        overruns = [t - movetime for t in times]
        print(spread("overrun (ms)", overruns, ""))
        late = sum(1 for t in overruns if t > 0)
        print(f"beyond movetime: {late} of {len(times)}")
    if outside:
        print(spread("the engine's own time, go line to bestmove (ms)", own, ""))
        print(spread("outside the engine's own time (ms)", outside, ""))
    print(f"bestmove not the last pv's first move: {disagreements}")
    return 0


def parse_tc(text: str) -> tuple[int | None, int, int]:
    """``[moves/]base[+inc]`` in seconds as (moves, base ms, increment ms)."""
    moves = None
    if "/" in text:
        head, text = text.split("/", 1)
        moves = int(head)
    base, _, inc = text.partition("+")
    return moves, round(float(base) * 1000), round(float(inc or 0) * 1000)


def games_mode(args: argparse.Namespace) -> int:
    """Clock replay of recorded games: time used per move as a share of the remaining clock."""
    shares: list[float] = []
    used: list[float] = []
    least_left: int | None = None
    forfeits = 0
    count = 0
    for folder in args.dirs:
        for text in (Path(folder) / "games.jsonl").read_text().splitlines():
            game = json.loads(text)
            count += 1
            if game.get("termination") == "time forfeit":
                forfeits += 1
            tc = game.get("time_control", "")
            if "+" not in tc and not tc.replace(".", "").isdigit():
                continue  # st=, depth=, nodes=: no clock to replay
            period, base, inc = parse_tc(tc)
            words = game["variant"].split()
            rules = make_rules(words[0], dict(zip(words[1::2], words[2::2])))
            state = rules.parse_position(game["start_fen"])
            for move in game["opening_moves"]:
                state.play(state.parse_move(move))
            clocks, made = [base, base], [0, 0]
            for move, spent in zip(game["moves"], game["times_ms"]):
                side = state.side_to_move
                before = clocks[side]
                shares.append(spent / before if before > 0 else float("inf"))
                used.append(spent)
                clocks[side] += inc - spent
                made[side] += 1
                if period and made[side] % period == 0:
                    clocks[side] += base
                left = before - spent
                least_left = left if least_left is None else min(least_left, left)
                state.play(state.parse_move(move))
    print(f"{count} games, {forfeits} lost on time")
    print(spread("time per move (ms)", used, ""))
    print(spread("share of the remaining clock (%)", [100 * s for s in shares], ""))
    print(f"least time left after a move: {least_left} ms")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    go = sub.add_parser("go", help="self-play with one go line, timed as a referee does")
    go.add_argument("--engine", default="zengine", help="the engine command")
    go.add_argument("--go", default="movetime 100", help="what follows 'go' (default movetime 100)")
    go.add_argument("--variant", default="zola")
    go.add_argument("--moves", type=int, default=300, help="moves to measure")
    go.add_argument("--log", help="write each move's time and the engine's 'search done' here")
    games = sub.add_parser("games", help="clock replay of zengine match output folders")
    games.add_argument("dirs", nargs="+")
    args = parser.parse_args(argv)
    return go_mode(args) if args.mode == "go" else games_mode(args)


if __name__ == "__main__":
    sys.exit(main())
