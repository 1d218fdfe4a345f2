"""Robustness: thousands of random and mutated lines (seeded) never kill the engine.

After each batch ``isready`` must be answered; every failing command prints exactly one
``error <code> <detail>`` line with a code of the spec; every other line starts with a reply
word of the spec (``d``, ``help`` and ``perft`` print free text and are checked apart).

Every place the protocol reads a number is fuzzed apart (:data:`NUMERIC_FIELDS`): huge,
negative, signed, zero-padded, float, empty, and other scripts' digits, each with the exact
code the documentation's table gives, never ``internal``.
"""

from __future__ import annotations

import queue
import random
import re
import subprocess
import threading
from dataclasses import dataclass

import pytest
from test_protocol_helpers import INFO_RE, Script, zengine_path

from zengine.engine.game import legal_moves_text
from zengine.engine.variants import make_rules, variant_names
from zengine.protocol.session import BY_NAME, CODES, REPLY_WORDS

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
    "9" * 5000,
    "-" + "1" * 4301,
    "\u00b2",
    "\uff13\uff12",
    "\u0966\u0967",
    "+-1",
    "1_000",
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
    """Lines that would take long or much memory: a new table size (up to 4 GB). Deep perfts
    and benches are welcome: they run in the background, and each batch ends with ``stop``."""
    return "hash" in [token.lower() for token in line.split()]


#: The lines a search, perft or bench prints in the background, whichever command comes next.
BACKGROUND = re.compile(
    r"(info |bestmove ).*|\S+: \d+( nodes \d+ nps)?|Nodes searched: \d+|\d+ nodes \d+ nps|"
)


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
            reply = [x for x in script.out[before:] if not BACKGROUND.fullmatch(x)]
            errors = [x for x in reply if x.startswith("error ")]
            assert len(errors) <= 1, (line, reply)
            if errors:
                assert reply == errors and errors[0].split()[1] in CODES, (line, reply)
                assert len(errors[0].split()) >= 3 and errors[0].isprintable()
                continue
            if word == "go" and "perft" not in [t.lower() for t in tokens]:
                searches += 1
            if word in ("d", "show", "display"):
                if reply != ["no position"]:
                    assert [x.split()[0] for x in reply[-3:]] == ["fen", "turn", "result"], line
            elif word not in ("help", "perft", "go"):
                assert all(x.split()[0] in REPLY_WORDS for x in reply), (line, reply)
            if (
                searching
                and script.engine.searching
                and word not in ("go", "", "quit")
                and not (word in BY_NAME and BY_NAME[word].during_search)
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


# --- every numeric field ------------------------------------------------------------------------
MAX_MS = 2**31 - 1
MAX_I64 = 2**63 - 1


@dataclass(frozen=True)
class Field:
    """A place in a command where a number is read.

    ``kind`` says which code the documentation gives to a value it refuses: ``int`` (a number
    of ``low..high``: ``syntax`` for text that is no number, ``bad-value`` out of range),
    ``rule`` (a rule value: ``bad-value`` for anything the rule does not allow), ``position``
    (inside a position string: ``bad-position``) and ``move`` (inside a move: ``syntax`` when
    the text is no move, ``illegal-move`` when it is one not allowed here). ``empty`` is what
    the line gives with the value left out (``ok``: no error).
    """

    template: str
    kind: str
    game: str = "zola"
    low: int = 0
    high: int = 0
    empty: str = "syntax"


NUMERIC_FIELDS = [
    Field("perft {}", "int", low=0, high=64),
    Field("go perft {}", "int", low=0, high=64),
    Field("bench {}", "int", low=1, high=64, empty="ok"),
    Field("undo {}", "int", low=1, high=MAX_I64, empty="cannot-undo"),
    Field("go depth {}", "int", low=1, high=1000),
    Field("go nodes {}", "int", low=1, high=MAX_I64),
    Field("go movetime {}", "int", low=0, high=MAX_MS),
    *(Field(f"go {w} {{}}", "int", low=-MAX_MS, high=MAX_MS) for w in ("wtime", "p2time")),
    *(Field(f"go {w} {{}}", "int", low=0, high=MAX_MS) for w in ("winc", "binc", "p1inc")),
    Field("go wtime 100 movestogo {}", "int", low=1, high=MAX_MS),
    Field("go depth 2 nodes {} movetime 50", "int", low=1, high=MAX_I64),
    Field("setoption name Hash value {}", "int", low=1, high=4096),
    Field("setoption name Seed value {}", "int", low=0, high=MAX_MS),
    Field("setoption name Threads value {}", "int", low=1, high=1),
    Field("setoption name Move Overhead value {}", "int", low=0, high=5000),
    Field("setoption name Zhadu Quiet value {}", "int", "zhadu", 0, 100_000),
    Field("setup zhadu quiet {}", "rule", "zhadu", 0, 100_000),
    Field("newgame zhadu-star quiet {} links full", "rule", "zhadu", 0, 100_000),
    Field("setup zola size {}", "rule", low=6, high=10),
    Field("position fen -/- w -/- 0 {}", "position", "zhadu", empty="bad-position"),
    Field("position fen -/- w -/- {} 0", "position", "zhadu", empty="bad-position"),
    Field("position fen {}r/6/6/6/6/r5 b", "position", empty="bad-position"),
    Field("position fen 6/6/6/6/b5/r{} r moves a1xa2", "position", empty="bad-position"),
    Field("position startpos moves {}@a0", "move", "zhadu"),
    Field("move 1@a0 4@h3 {}@a1", "move", "zhadu"),
    Field("move a1xa{}", "move"),
    Field("query islegal b{}xb3", "islegal", empty="ok"),
]

#: Digits and number-like characters of other scripts (never numbers here).
OTHER_DIGITS = (
    "\u0660\u0661\u0665\u06f1\u0966\u0967\u09e8\u0e51\uff10\uff11\uff19"
    "\U0001d7ce\U0001d7d1\u00b2\u00b3\u00b9\u2081\u2460\u216b\u4e00"
)


def number_text(rng: random.Random, field: Field) -> str | None:
    """A value for the field: None for none at all, else a number or something like one."""
    kind = rng.randrange(9)
    if kind == 0:
        return None
    if kind == 1:  # at and beyond the bounds
        return str(rng.choice([field.low - 1, field.low, field.high, field.high + 1]))
    if kind == 2:
        return str(rng.randrange(-20, 120))
    if kind == 3:  # huge, past int()'s 4,300-digit limit too
        digits = rng.choice([19, 20, 24, 25, 100, 4300, 4301, 5000, 30000])
        text = str(rng.randrange(1, 10)) + "".join(rng.choices("0123456789", k=digits - 1))
        return rng.choice(["", "-", "+"]) + text
    if kind == 4:
        return rng.choice(["+", "-", "-0", "+0", "+-1", "--1", "++2", "+007", "-00"])
    if kind == 5:
        return "0" * rng.randrange(1, 40) + str(rng.randrange(0, 100))
    if kind == 6:
        return rng.choice(["1.5", "1e3", ".5", "5.", "inf", "-nan", "1_000", "0x10", "0b1", "1/2"])
    if kind == 7:  # other scripts' digits, alone or among ASCII ones
        chars = rng.choices(OTHER_DIGITS + "0123456789", k=rng.randrange(1, 5))
        if all(c in "0123456789" for c in chars):
            chars[0] = rng.choice(OTHER_DIGITS)
        return "".join(chars)
    return rng.choice(["x", "\u212a", "one", "\u2603", "\x00", "\\", "%d"])


def allowed(field: Field, value: str | None) -> set[str]:
    """The outcomes (error codes, or ``ok`` for no error) the documentation allows."""
    if value is None:
        return {field.empty}
    number = re.fullmatch(r"[+-]?[0-9]+", value) is not None
    digits = value.lstrip("+-").lstrip("0") or "0"  # as many zeros in front as you like
    inside = False
    if number and len(digits) <= 30:
        inside = field.low <= int(digits) * (-1 if value.startswith("-") else 1) <= field.high
    if field.kind == "int":
        if not number:
            return {"syntax"}
        return {"ok", "cannot-undo"} if inside else {"bad-value"}
    if field.kind == "rule":
        return {"ok", "bad-value"} if inside else {"bad-value"}
    if field.kind == "position":
        return {"ok", "bad-position"} if number else {"bad-position"}
    if field.kind == "move":
        return {"ok", "syntax", "illegal-move"} if number else {"syntax"}
    return {"ok"}  # query islegal: any text is a question


def outcome(script: Script, field: Field, value: str | None) -> tuple[str, list[str]]:
    """Send the line on a fresh game; its outcome and what it printed (all of it: any search,
    perft or bench it started is stopped first)."""
    script.send(f"setup {field.game}")
    line = field.template.format("" if value is None else value)
    reply = script.send(line) + script.send("stop") + script.finish()
    errors = [x for x in reply if x.startswith("error ")]
    assert len(errors) <= 1 and all(x.isprintable() for x in errors), (line[:80], reply)
    return (errors[0].split()[1] if errors else "ok"), reply


@pytest.mark.parametrize("field", NUMERIC_FIELDS, ids=[f.template for f in NUMERIC_FIELDS])
def test_every_numeric_field_gives_the_documented_code(field: Field) -> None:
    rng = random.Random(f"{SEED} {field.template}")
    script = Script()
    for _ in range(60):
        value = number_text(rng, field)
        if "Hash" in field.template and value is not None and value.isascii() and value.isdigit():
            if 16 < len(value) or 16 < int(value) <= 4096:
                continue  # a table of up to 4 GB: the range is checked by the values around
        code, reply = outcome(script, field, value)
        shown = None if value is None else value[:40]
        assert code in allowed(field, value), (field.template, shown, reply[:3])
        assert code == "ok" or code in CODES
        if code != "ok":
            detail = next(x for x in reply if x.startswith("error "))
            if field.kind == "int" and code == "bad-value":  # the detail states the range
                assert f"({field.low} to {field.high})" in detail, detail
            assert len(detail) <= 220, detail  # one short line, however long the value
    assert script.send("isready") == ["readyok"]
