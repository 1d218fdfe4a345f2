#!/usr/bin/env python3
"""A scriptable fake engine for the referee's tests: a legal UCI/UGI speaker that misbehaves
on request.

Usage: fake_engine.py [MODE] [--after N] [--delay MS] [--score CP] [--log PATH] [--seed N] [--late MS]

It keeps the position with the rules core and plays a (seeded) random legal move, after
``--delay`` ms. From its ``--after``-th ``go`` on (1-based; default 1), MODE applies:

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

``--score CP`` reports ``info depth 1 score cp CP`` before each move. ``--log`` appends every
received line to a file (to check what the referee sends).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from zengine.engine.game import sorted_moves
from zengine.engine.variants import make_rules, resolve, rule_options, variant_names


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", nargs="?", default="normal")
    parser.add_argument("--after", type=int, default=1)
    parser.add_argument("--delay", type=int, default=0)
    parser.add_argument("--score", type=int, default=None)
    parser.add_argument("--log", default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--late", type=int, default=3000, help="ms that 'late' waits")
    args = parser.parse_args()
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
    log = open(args.log, "a", encoding="utf-8") if args.log else None

    def out(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

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
            out("id name fake")
            choices = " ".join(f"var {name}" for name in variants)
            out(f"option name UCI_Variant type combo default {variants[0]} {choices}")
            out("uciok" if cmd == "uci" else "ugiok")
        elif cmd == "isready":
            if mode != "no-ready":
                out("readyok")
        elif cmd == "setoption":
            text = " ".join(tokens[1:])
            name, _, value = text.partition(" value ")
            name = name.removeprefix("name ").strip().lower()
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
        elif cmd == "go":
            gos += 1
            active = gos >= args.after
            if args.delay:
                time.sleep(args.delay / 1000)
            legal = sorted_moves(state)
            if active and mode == "crash":
                os._exit(3)
            if active and mode == "exit-on-go":
                sys.exit(0)
            if active and mode == "hang":
                continue
            if active and mode == "late":
                time.sleep(args.late / 1000)
            if active and mode == "garbage":
                sys.stdout.buffer.write(b"\xff\xfe junk \x00 line\n")
                out("info depth x score cp ?? pv")
                out("hello there")
                out("")
            if args.score is not None:
                out(f"info depth 1 seldepth 1 score cp {args.score} nodes 1 nps 1 time 0 pv")
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
                out(f"bestmove {legal[rng.randrange(len(legal))][0]}")
        elif cmd == "quit":
            break


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
