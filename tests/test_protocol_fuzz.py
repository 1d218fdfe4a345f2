"""Robustness: thousands of random and mutated lines (seeded) never kill the engine.

After each batch ``isready`` must be answered; every failing command prints exactly one
``error <code> <detail>`` line with a code of the spec; every other line starts with a reply
word of the spec (``d``, ``help`` and ``perft`` print free text and are checked apart).
"""

from __future__ import annotations

import queue
import random
import subprocess
import threading

from test_protocol_helpers import INFO_RE, Script, zengine_path

from zengine.engine.game import legal_moves_text
from zengine.engine.variants import make_rules, variant_names
from zengine.protocol.session import CODES, REPLY_WORDS

SEED = 20261129
BATCH = 40
WORDS = [
    "uci",
    "ugi",
    "isready",
    "setup",
    "setoption",
    "name",
    "value",
    "ucinewgame",
    "uginewgame",
    "newgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "move",
    "play",
    "undo",
    "legalmoves",
    "query",
    "gameover",
    "p1turn",
    "result",
    "islegal",
    "go",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "p1time",
    "p2time",
    "p1inc",
    "p2inc",
    "movestogo",
    "searchmoves",
    "infinite",
    "ponder",
    "mate",
    "stop",
    "perft",
    "d",
    "show",
    "display",
    "bench",
    "debug",
    "on",
    "off",
    "help",
    "size",
    "links",
    "quiet",
    "full",
    "star",
    "Hash",
    "Threads",
    "Seed",
    "Move",
    "Overhead",
    "UCI_Variant",
    "Zhadu",
    "Quiet",
    *variant_names(),
]
NUMBERS = [
    "0",
    "1",
    "2",
    "-1",
    "-0",
    "+3",
    "3.5",
    "1e3",
    "0x10",
    "99999999999999999999999",
    "-99999999999999999999",
    "007",
    "\u0661",
    "NaN",
    "",
    "10",
    "6",
    "8",
    "100000",
]
GARBAGE = [
    "\u2603",
    "\u00e9t\u00e9",
    "\u4e2d\u6587",
    "\U0001f600",
    "\u200b",
    "\u202e",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\ufeff",
    "\\",
    "'",
    '"',
    ";",
    "|",
    "$(ls)",
    "%s%n",
    "\u0085",
]


def random_game_lines(rng: random.Random) -> list[str]:
    """Valid lines of a random game of a random variant: setup, position, moves, queries."""
    variant = rng.choice(variant_names())
    rules = make_rules(variant)
    state = rules.start()
    texts: list[str] = []
    for _ in range(rng.randrange(0, 40)):
        moves = legal_moves_text(state)
        if not moves:
            break
        text = rng.choice(moves)
        state.play(state.parse_move(text))
        texts.append(text)
    cut = rng.randrange(0, len(texts) + 1)
    lines = [f"setup {variant}", f"position startpos moves {' '.join(texts[:cut])}".rstrip()]
    lines += [f"move {text}" for text in texts[cut:]]
    lines += [
        f"position fen {state.position_text()}",
        "legalmoves",
        "query fen",
        "d",
        f"query islegal {rng.choice(texts) if texts else 'pass'}",
        "undo",
        "undo 3",
        "go depth 1",
        "go nodes 50",
        "go movetime 5",
        "go infinite",
        "stop",
        "go wtime 50 btime 50",
        "go searchmoves " + " ".join(legal_moves_text(state)[:3]),
        "perft 1",
        "setoption name Seed value 3",
        "setoption name Hash value 2",
        "setoption name Zhadu Quiet value 30",
        "setoption name UCI_Variant value zola-8",
        "debug on",
        "debug off",
        "help",
        "uci",
        "ugi",
        "ucinewgame",
        "newgame",
    ]
    return lines


def mutate(rng: random.Random, line: str) -> str:
    """A line with one to three random changes."""
    for _ in range(rng.randrange(1, 4)):
        tokens = line.split(" ")
        kind = rng.randrange(8)
        if kind == 0 and tokens:
            del tokens[rng.randrange(len(tokens))]
        elif kind == 1:
            tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(WORDS + NUMBERS + GARBAGE))
        elif kind == 2 and len(tokens) > 1:
            i, j = rng.randrange(len(tokens)), rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif kind == 3 and line:
            i = rng.randrange(len(line))
            return line[:i] + rng.choice(GARBAGE + list("-x@/ 0123456789abcdefgh")) + line[i + 1 :]
        elif kind == 4:
            return line.upper()
        elif kind == 5 and tokens:
            tokens[rng.randrange(len(tokens))] = rng.choice(NUMBERS)
        elif kind == 6:
            return line + " " + rng.choice(WORDS)
        else:
            return line.replace(" ", rng.choice(["  ", "\t", " \r ", "\u00a0", "\u3000"]))
        line = " ".join(tokens)
    return line


def random_line(rng: random.Random) -> str:
    """Pure noise made of protocol words, numbers and garbage."""
    count = rng.randrange(0, 8)
    return " ".join(rng.choice(WORDS + NUMBERS + GARBAGE) for _ in range(count))


def slow(line: str) -> bool:
    """Lines that would run for long on the reader thread (deep perft or bench, huge tables)."""
    tokens = [token.lower() for token in line.split()]
    if "bench" in tokens[:1] or "hash" in tokens:
        return True
    if "perft" in tokens:
        return any(
            token.lstrip("+").isdigit() and int(token) > 2 for token in tokens if token.isascii()
        )
    return False


def fuzz_lines(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    corpus: list[str] = []
    lines: list[str] = []
    while len(lines) < count:
        if len(corpus) < 50 or rng.random() < 0.05:
            corpus.extend(random_game_lines(rng))
        roll = rng.random()
        line = (
            rng.choice(corpus)
            if roll < 0.35
            else mutate(rng, rng.choice(corpus))
            if roll < 0.85
            else random_line(rng)
        )
        if "\n" in line or "\r" in line.replace(" \r ", "") or slow(line):
            continue
        lines.append(line)
    return lines


def test_fuzz_lines_are_deterministic() -> None:
    assert fuzz_lines(SEED, 300) == fuzz_lines(SEED, 300)


def test_fuzz_in_process() -> None:
    script = Script()
    lines = fuzz_lines(SEED, 3000)
    searches = 0
    for start in range(0, len(lines), BATCH):
        for line in lines[start : start + BATCH]:
            tokens = line.split()
            word = tokens[0].lower() if tokens else ""
            searching = script.engine.searching
            before = len(script.out)
            assert script.session.handle(line) is True or word == "quit"
            reply = [x for x in script.out[before:] if not x.startswith(("info ", "bestmove "))]
            errors = [x for x in reply if x.startswith("error ")]
            assert len(errors) <= 1, (line, reply)
            if errors:
                assert reply == errors and errors[0].split()[1] in CODES, (line, reply)
                assert len(errors[0].split()) >= 3 and errors[0].isprintable()
                continue
            if word == "go" and "perft" not in [t.lower() for t in tokens]:
                searches += 1
            if word in ("d", "show", "display"):
                assert [x.split()[0] for x in reply[-3:]] == ["fen", "turn", "result"], line
            elif word not in ("help", "perft", "go"):
                assert all(x.split()[0] in REPLY_WORDS for x in reply), (line, reply)
            if (
                searching
                and script.engine.searching
                and word not in ("go", "", "quit")
                and word not in script.session.DURING_SEARCH
            ):
                raise AssertionError(f"{line!r} was accepted during a search")
        script.send("stop")
        assert script.send("isready")[-1] == "readyok"
    script.finish()
    bestmoves = [x for x in script.out if x.startswith("bestmove ")]
    assert len(bestmoves) == searches
    for line in script.out:
        if line.startswith("bestmove"):
            assert len(line.split()) == 2, line
        elif line.startswith("info"):
            assert INFO_RE.match(line) or line.startswith("info string "), line


def test_fuzz_against_the_command() -> None:
    lines = fuzz_lines(SEED + 1, 2000)
    proc = subprocess.Popen(
        [zengine_path()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out: queue.Queue[bytes] = queue.Queue()

    def pump() -> None:
        for raw in proc.stdout:  # type: ignore[union-attr]
            out.put(raw)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    seen: list[str] = []
    try:
        for start in range(0, len(lines), BATCH):
            batch = lines[start : start + BATCH] + ["stop", "isready"]
            data = "".join(
                f"{line}\n"
                for line in batch
                if line.split()[:1] != ["quit"] and line.lower().split()[:1] != ["quit"]
            )
            proc.stdin.write(data.encode("utf-8", "surrogatepass"))  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
            while True:
                line = out.get(timeout=60).decode("utf-8")
                seen.append(line)
                if line == "readyok\n":
                    break
        proc.stdin.close()  # type: ignore[union-attr]
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    assert proc.stderr.read() == b""  # type: ignore[union-attr]
    assert seen.count("readyok\n") >= len(range(0, len(lines), BATCH))
    assert all(line.endswith("\n") for line in seen)
