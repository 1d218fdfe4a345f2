#!/usr/bin/env python3
"""A scriptable fake engine for the referee's tests: a legal UCI/UGI speaker that misbehaves
on request.

Usage: fake_engine.py [MODE] [--after N] [--delay MS] [--hold FILE] [--score CP] [--log PATH] [--seed N]
                      [--late MS] [--first] [--ponder GUESS] [--ponderhit-delay MS] [--premature]
                      [--deaf-stop] [FAULT FLAGS...]

It keeps the position with the rules core and plays a (seeded) random legal move, after
``--delay`` ms and not while the file ``--hold`` names exists (a test holds a match running as
long as it needs, however slow the machine). From its ``--after``-th ``go`` on (1-based;
default 1), MODE applies:

  normal      plays legally (the default)
  crash       dies at once with exit code 3 (no bestmove)
  exit-on-go  exits cleanly with code 0 (no bestmove)
  hang        stops answering anything (still reads its input)
  late        waits --late MS (default 3000) before its bestmove
  illegal     answers a well-formed move that is illegal here (or any move text if none)
  unparsable  answers 'bestmove !!garbage!!'
  none        answers 'bestmove (none)' while moves exist
  garbage     prints junk lines (and invalid UTF-8) before a legal bestmove
  no-uci      never answers uci/ugi (answers nothing at all)
  no-ready    answers uci but never isready (from the start)
  reject-go   answers 'error bad-value ...' instead of a move
  lines       offers the option MultiPV (1 to 16): each go prints, for depths 1 to 3, one
              'info ... multipv i ... pv <move>' line per line asked (distinct legal moves,
              scores falling); 'go infinite' then waits for 'stop' before its bestmove

Faults the referee must survive, combinable with any MODE:

  --stray-bestmove     prints each active bestmove twice (in one write)
  --early-bestmove     prints 'bestmove <a legal move>' with each readyok (in one write), unasked
  --no-read            stops reading its input after the readyok that follows the new-game
                       command of its --after-th game (it sleeps until killed)
  --flood-info BYTES   prints BYTES of info lines before each active bestmove (the last one
                       says 'score cp 77')
  --no-newline BYTES   prints BYTES without a newline before each active bestmove
  --stderr-flood BYTES writes BYTES of numbered lines to stderr at 'uci', then 'last words'
  --setsid-child TAG   starts a child that leaves the session (setsid) and sleeps; TAG is in
                       its command line, to be found
  --detached-child TAG starts a child that forks twice (its parent exits at once), calls
                       setsid, clears its environment, ignores SIGTERM and sleeps; TAG is
                       in its command line
  --short-child        starts a child that exits at once, and never waits for it (a zombie)
  --ignore-eof         keeps running at end of input (sleeps until killed)
  --ignore-quit        ignores 'quit' and SIGTERM
  --reject-options     answers every setoption with 'error unknown-option ...'
  --refuse-option NAME does not offer the option NAME (lower case; repeatable) and answers a
                       setoption of it with 'error unknown-option ...', as zengine does

``crash`` writes 'fake: crashing as asked' to stderr before it dies.

``--score CP`` reports ``info depth 1 score cp CP`` before each move. ``--log`` appends every
received line to a file (to check what the referee sends). ``--first`` plays the first legal
move (in the order of ``legalmoves``) instead of a random one.

Pondering: ``--ponder GUESS`` offers the option Ponder; set to true, each bestmove names a
reply (``bestmove M ponder R``): the first legal reply (GUESS ``first``), the last one
(``last``), or the first and the last in turn (``alternate``, the first first). ``go ponder``
is answered only at ``ponderhit`` (after ``--ponderhit-delay`` ms, a move as any ``go``'s) or
at ``stop`` (at once); ``--premature`` answers ``go ponder`` at once instead, and
``--deaf-stop`` never answers a ``stop`` of a ``go ponder``, as faulty engines would.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time

from zengine.engine.game import sorted_moves
from zengine.engine.variants import make_rules, resolve, rule_options, variant_names


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", nargs="?", default="normal")
    parser.add_argument("--after", type=int, default=1)
    parser.add_argument("--delay", type=int, default=0)
    parser.add_argument("--hold", default=None, help="answer no go while this file exists")
    parser.add_argument("--score", type=int, default=None)
    parser.add_argument("--log", default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--late", type=int, default=3000, help="ms that 'late' waits")
    parser.add_argument("--stray-bestmove", action="store_true")
    parser.add_argument("--early-bestmove", action="store_true")
    parser.add_argument("--no-read", action="store_true")
    parser.add_argument("--flood-info", type=int, default=0)
    parser.add_argument("--no-newline", type=int, default=0)
    parser.add_argument("--stderr-flood", type=int, default=0)
    parser.add_argument("--setsid-child", default=None)
    parser.add_argument("--detached-child", default=None)
    parser.add_argument("--short-child", action="store_true")
    parser.add_argument("--ignore-eof", action="store_true")
    parser.add_argument("--ignore-quit", action="store_true")
    parser.add_argument("--reject-options", action="store_true")
    parser.add_argument("--refuse-option", action="append", default=[])
    parser.add_argument("--first", action="store_true")
    parser.add_argument("--ponder", choices=("first", "last", "alternate"), default=None)
    parser.add_argument("--ponderhit-delay", type=int, default=0)
    parser.add_argument("--premature", action="store_true")
    parser.add_argument("--deaf-stop", action="store_true")
    args = parser.parse_args()
    if args.ignore_quit:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.short_child:
        os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], os.environ)
    if args.setsid_child:
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import os, time; os.setsid(); time.sleep(600)",
                args.setsid_child,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    if args.detached_child:
        subprocess.run([sys.executable, "-c", DETACH, args.detached_child], check=True)
    mode = args.mode
    rng = random.Random(args.seed)
    variants = variant_names()
    variant = variants[0]
    # Engine options that set rules (the registry's, e.g. "Zhadu Quiet"): name -> (game, rule).
    rule_option = {option.option.lower(): (game, option.rule) for game, option in rule_options()}
    rule_values: dict[str, str] = {}
    rules = make_rules(variant)
    state = rules.start()
    gos = 0
    new_games = 0
    multipv = 1
    waiting: str | None = None  # the bestmove a 'go infinite' gives at 'stop'
    ponder_on = False  # the option Ponder is true
    pondering = False  # a 'go ponder' waits for 'ponderhit' or 'stop'
    guesses = 0

    def choose(legal) -> str:
        """The move to play (--first or random) and, when pondering is on, the reply expected."""
        nonlocal guesses
        text, move = legal[0] if args.first else legal[rng.randrange(len(legal))]
        if not ponder_on:
            return text
        state.play(move)
        replies = sorted_moves(state)
        state.undo()
        if not replies:
            return text
        guesses += 1
        last = args.ponder == "last" or (args.ponder == "alternate" and guesses % 2 == 0)
        return f"{text} ponder {replies[-1 if last else 0][0]}"

    log = open(args.log, "a", encoding="utf-8") if args.log else None

    def out(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def sleep_forever() -> None:
        while True:
            time.sleep(3600)

    for raw in sys.stdin:
        line = raw.strip()
        if log:
            log.write(line + "\n")
            log.flush()
        if mode == "no-uci" or (mode == "hang" and gos >= args.after):
            continue
        tokens = line.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd in ("uci", "ugi"):
            if args.stderr_flood:
                _stderr_flood(args.stderr_flood)
            out("id name fake")
            choices = " ".join(f"var {name}" for name in variants)
            out(f"option name UCI_Variant type combo default {variants[0]} {choices}")
            if mode == "lines" and "multipv" not in args.refuse_option:
                out("option name MultiPV type spin default 1 min 1 max 16")
            if args.ponder:
                out("option name Ponder type check default false")
            out("uciok" if cmd == "uci" else "ugiok")
        elif cmd == "isready":
            if mode != "no-ready":
                if args.early_bestmove and sorted_moves(state):
                    # One write: the line comes with readyok, not a moment later.
                    out(f"readyok\nbestmove {sorted_moves(state)[0][0]}")
                else:
                    out("readyok")
            if args.no_read and new_games >= args.after:
                sleep_forever()
        elif cmd == "setoption" and args.reject_options:
            out(f"error unknown-option fake rejects every option: '{' '.join(tokens[1:])}'")
        elif cmd == "setoption":
            text = " ".join(tokens[1:])
            name, _, value = text.partition(" value ")
            name = name.removeprefix("name ").strip().lower()
            if name in args.refuse_option:
                out(f"error unknown-option unknown option '{name}'")
                continue
            if name == "multipv" and mode == "lines":
                multipv = int(value)
                continue
            if name == "ponder" and args.ponder:
                ponder_on = value.strip().lower() == "true"
                continue
            if name == "uci_variant":
                variant = value.strip()
            elif name in rule_option:
                rule_values[name] = value.strip()
            game = resolve(variant)[0]
            rules = make_rules(
                variant,
                {rule_option[k][1]: v for k, v in rule_values.items() if rule_option[k][0] == game},
            )
            state = rules.start()
        elif cmd in ("ucinewgame", "uginewgame"):
            state = rules.start()
            new_games += 1
        elif cmd == "position":
            rest = line.split(None, 1)[1]
            head, _, moves = rest.partition(" moves ")
            if head.startswith("moves"):
                head, moves = "startpos", head[5:]
            head = head.strip()
            state = (
                rules.start()
                if head == "startpos"
                else rules.parse_position(head.removeprefix("fen ").strip())
            )
            for text in moves.split():
                state.play(state.parse_move(text))
        elif cmd == "go" and "ponder" in tokens and ponder_on:
            if args.premature and sorted_moves(state):
                out(f"bestmove {sorted_moves(state)[0][0]}")
            else:
                pondering = True
        elif cmd == "ponderhit" and pondering:
            pondering = False
            time.sleep(args.ponderhit_delay / 1000)
            legal = sorted_moves(state)
            out(f"bestmove {choose(legal)}" if legal else "bestmove (none)")
        elif cmd == "stop" and pondering and not args.deaf_stop:
            pondering = False
            legal = sorted_moves(state)
            out(f"bestmove {legal[0][0]}" if legal else "bestmove (none)")
        elif cmd == "go":
            gos += 1
            active = gos >= args.after
            if args.delay:
                time.sleep(args.delay / 1000)
            while args.hold and os.path.exists(args.hold):
                time.sleep(0.02)
            legal = sorted_moves(state)
            if active and mode == "crash":
                sys.stderr.write("fake: crashing as asked\n")
                sys.stderr.flush()
                os._exit(3)
            if active and mode == "exit-on-go":
                sys.exit(0)
            if active and mode == "hang":
                continue
            if active and mode == "late":
                time.sleep(args.late / 1000)
            if active and mode == "reject-go":
                out("error bad-value fake rejects this go")
                continue
            if active and args.flood_info:
                _flood_info(args.flood_info)
            if active and args.no_newline:
                _no_newline(args.no_newline)
            if active and mode == "garbage":
                sys.stdout.buffer.write(b"\xff\xfe junk \x00 line\n")
                out("info depth x score cp ?? pv")
                out("hello there")
                out("")
            if args.score is not None:
                out(f"info depth 1 seldepth 1 score cp {args.score} nodes 1 nps 1 time 0 pv")
            if mode == "lines" and legal:
                for depth in (1, 2, 3):
                    for i, (text, _) in enumerate(legal[:multipv]):
                        score = 50 - 10 * i + depth
                        out(f"info depth {depth} multipv {i + 1} score cp {score} pv {text}")
                if "infinite" in tokens:
                    waiting = legal[0][0]
                    continue
            if not legal:
                out("bestmove (none)")
                continue
            if active and mode == "illegal":
                out(f"bestmove {_illegal(state, legal)}")
            elif active and mode == "unparsable":
                out("bestmove !!garbage!!")
            elif active and mode == "none":
                out("bestmove (none)")
            else:
                answer = f"bestmove {choose(legal)}"
                # One write: the stray copy comes with the answer, not a moment later.
                out(f"{answer}\n{answer}" if active and args.stray_bestmove else answer)
        elif cmd == "stop" and waiting is not None:
            out(f"bestmove {waiting}")
            waiting = None
        elif cmd == "quit" and not args.ignore_quit:
            return
    if args.ignore_eof or args.ignore_quit:
        sleep_forever()


#: Run by --detached-child: what an engine's helper does to get away from it for good.
DETACH = """
import os, signal, sys
if os.fork():
    os._exit(0)
os.setsid()
if os.fork():
    os._exit(0)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
code = "import time; time.sleep(600)"
os.execve(sys.executable, [sys.executable, "-c", code, sys.argv[1]], {})
"""


def _write_all(data: bytes, stream=None) -> None:
    stream = stream or sys.stdout
    stream.flush()
    stream.buffer.write(data)
    stream.buffer.flush()


def _flood_info(size: int) -> None:
    """``size`` bytes of info lines, in large writes; the last one's score is cp 77."""
    line = b"info depth 9 seldepth 12 score cp 5 nodes 123456 nps 1000000 time 123 pv a1-a2 b1-b2\n"
    last = b"info depth 10 seldepth 14 score cp 77 nodes 234567 nps 1000000 time 234 pv a1-a2\n"
    block = line * max(1, 65536 // len(line))
    left = max(0, size - len(last))
    while left > 0:
        _write_all(block[:left])
        left -= len(block)
    _write_all(last)


def _no_newline(size: int) -> None:
    """``size`` bytes of one line without its newline (ended by a newline after them)."""
    block = b"x" * 65536
    left = size
    while left > 0:
        _write_all(block[:left])
        left -= len(block)
    _write_all(b"\n")


def _stderr_flood(size: int) -> None:
    """``size`` bytes of numbered lines on stderr (a block written again and again), then
    'last words'."""
    block = "".join(f"noise line {n} " + "." * 50 + "\n" for n in range(16384)).encode()
    left = size
    part = b"\n"
    while left > 0:
        part = block[:left]
        sys.stderr.buffer.write(part)
        left -= len(part)
    sys.stderr.buffer.write(b"last words\n" if part.endswith(b"\n") else b"\nlast words\n")
    sys.stderr.flush()


def _illegal(state, legal) -> str:
    """A well-formed move of this game that is not legal here."""
    legal_texts = {text for text, _ in legal}
    for _text, move in legal:
        state.play(move)
        for other, _ in sorted_moves(state):
            if other not in legal_texts and other != "pass":
                state.undo()
                return other
        state.undo()
    return "pass" if "pass" not in legal_texts else legal[0][0]


if __name__ == "__main__":
    main()
