"""Seeded fuzzing of every text parser of the rules cores, over every registered variant.

Valid position strings, move texts and rule options are mutated (characters inserted, replaced,
deleted, case swapped; a pool of other scripts' digits and letters, whitespace of every kind,
separators, runs of 5,000 digits) and thrown at ``parse_position``, ``parse_move``,
``parse_last_move`` and ``make_rules``. Whatever the text:

* only the project's own errors come out (``PositionError``, ``MoveError``, ``RulesError``),
  each with one printable line of reasonable length: never a ``ValueError`` of ``int()``;
* what is accepted is ASCII apart from whitespace between fields, so no digit of another
  script (``²``, ``١``, ``１``) ever reads as a number;
* what is accepted is case-insensitive and round-trips: the canonical text of the parsed
  position (move, rules) reads back as the same position with the same key;
* whether a move text is well-formed does not depend on the position it is read in.
"""

from __future__ import annotations

import random

import pytest

from zengine.engine.game import (
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    Rules,
    RulesError,
    State,
)
from zengine.engine.variants import make_rules, variant_names

#: Digits of other scripts and forms (Arabic-Indic, fullwidth, Extended Arabic-Indic,
#: Devanagari, Thai, mathematical bold, superscript, subscript) and numerals that are no digits.
FOREIGN_DIGITS = ["²", "١", "١٢", "１", "٣", "٠", "۳", "३", "๓", "𝟙", "³", "₂", "½", "Ⅻ"]
#: Letters of other scripts, some looking like ASCII ones or lower-casing to them (the Kelvin
#: sign to ``k``, the dotted capital I to ``i`` and a combining dot).
FOREIGN_LETTERS = ["а", "е", "о", "р", "х", "с", "в", "ß", "İ", "ı", "K", "Å", "ﬁ", "é", "中"]
#: Whitespace of the kinds ``str.split`` splits on, and characters it does not split on (a
#: zero-width space, a byte-order mark, control characters).
WHITESPACE = [" ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2003"]
NOT_WHITESPACE = ["\u200b", "\ufeff", "\x00", "\x7f"]
SEPARATORS = list("/,-x@+.:;_") + ["--", "//", ",,"]
HUGE = ["9" * 5000, "1" * 5000, "0" * 5000, "1" + "0" * 4999]
ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

POSITION_CASES = 500
MOVE_CASES = 120  # per position
RULE_CASES = 150
#: Error messages are one line for people; this is far above any real one.
MESSAGE_LIMIT = 300


def _piece(rng: random.Random) -> str:
    kind = rng.randrange(7)
    if kind == 0:
        return rng.choice(FOREIGN_DIGITS)
    if kind == 1:
        return rng.choice(FOREIGN_LETTERS)
    if kind == 2:
        return rng.choice(WHITESPACE + NOT_WHITESPACE)
    if kind == 3:
        return rng.choice(SEPARATORS)
    if kind == 4 and rng.random() < 0.3:
        return rng.choice(HUGE)
    return "".join(rng.choice(ASCII) for _ in range(rng.randint(1, 3)))


#: Mutations and their weights: most keep the fields, so the checks behind the field count run.
_OPERATIONS = ("insert", "replace", "delete", "case", "repeat", "digit", "space", "cut", "whole")
_WEIGHTS = (4, 4, 2, 2, 1, 2, 2, 1, 1)
#: Zeros of other scripts: Arabic-Indic, fullwidth, Devanagari, Extended Arabic-Indic.
_ZEROS = ("\u0660", "\uff10", "\u0966", "\u06f0")


def _mutate_once(rng: random.Random, text: str) -> str:
    at = rng.randint(0, len(text))
    end = min(len(text), at + rng.randint(1, 4))
    op = rng.choices(_OPERATIONS, _WEIGHTS)[0]
    if op == "insert":
        return text[:at] + _piece(rng) + text[at:]
    if op == "replace":
        return text[:at] + _piece(rng) + text[end:]
    if op == "delete":
        return text[:at] + text[end:]
    if op == "case":
        return text[:at] + text[at:end].swapcase() + text[end:]
    if op == "repeat":
        return text[:end] + text[at:end] + text[end:]
    if op == "digit":  # an ASCII digit replaced by another script's digit of the same value
        digits = [i for i, c in enumerate(text) if c in "0123456789"]
        if not digits:
            return text
        i = rng.choice(digits)
        return text[:i] + chr(ord(rng.choice(_ZEROS)) + int(text[i])) + text[i + 1 :]
    if op == "space":  # the spaces between fields replaced by other whitespace
        return "".join(rng.choice(WHITESPACE) if c == " " else c for c in text)
    if op == "cut":
        return text[:at]
    return rng.choice(("", " ", text.upper(), text + text, _piece(rng)))


def mutations(rng: random.Random, seeds: list[str], count: int) -> list[str]:
    """``count`` texts, each a seed with one to three mutations."""
    texts = []
    for _ in range(count):
        text = rng.choice(seeds)
        for _ in range(rng.choices((1, 2, 3), (6, 3, 1))[0]):
            text = _mutate_once(rng, text)
        texts.append(text)
    return texts


def positions(rules: Rules, rng: random.Random) -> list[State]:
    """The start, a few plies in, the bench positions and a finished game."""
    found: list[State] = [rules.start(), *rules.bench_states()]
    state = rules.start()
    while not state.is_over() and state.history_length < 5000:
        if state.history_length in (3, 12, 40):
            found.append(rules.parse_position(state.position_text()))
        state.play(rng.choice(state.legal_moves()))
    found.append(rules.parse_position(state.position_text()))
    return found


def short(text: str) -> str:
    """``text`` for a failure report: its repr, cut (a run of 5,000 digits reads badly)."""
    return repr(text) if len(text) <= 120 else repr(text[:100]) + f"... ({len(text)} chars)"


def check_message(error: Exception, text: str) -> None:
    """A rejection is one printable line for people, however long or strange the text."""
    message = str(error)
    assert message and message.isprintable(), f"{short(text)} -> {short(message)}"
    assert len(message) <= MESSAGE_LIMIT, f"{short(text)} -> {short(message)}"


def check_ascii(text: str) -> None:
    """Accepted text is ASCII but for whitespace (between fields, around the whole)."""
    foreign = [c for c in text if not c.isascii() and not c.isspace()]
    assert not foreign, f"accepted {short(text)} with {foreign}"


@pytest.mark.parametrize("variant", variant_names())
def test_position_strings(variant: str) -> None:
    rng = random.Random(f"positions {variant}")
    rules = make_rules(variant)
    seeds = [state.position_text() for state in positions(rules, rng)]
    accepted = 0
    for text in mutations(rng, seeds, POSITION_CASES):
        try:
            state = rules.parse_position(text)
        except PositionError as exc:
            check_message(exc, text)
            continue
        accepted += 1
        check_ascii(text)
        canonical = state.position_text()
        again = rules.parse_position(canonical)
        assert (again.position_text(), again.key) == (canonical, state.key), short(text)
        assert rules.parse_position(text.swapcase()).key == state.key, short(text)
    assert accepted, "no mutation was a position string: the oracles checked nothing"


@pytest.mark.parametrize("variant", variant_names())
def test_move_texts(variant: str) -> None:
    rng = random.Random(f"moves {variant}")
    rules = make_rules(variant)
    states = positions(rules, rng)
    seeds = sorted({s.move_text(m) for s in states for m in s.legal_moves()} | {"pass"})
    seeds = rng.sample(seeds, min(len(seeds), 40))
    accepted = 0
    for text in mutations(rng, seeds, MOVE_CASES * len(states)):
        well_formed = set()
        for state in states:
            for parse in (state.parse_move, state.parse_last_move):
                try:
                    move = parse(text)
                except InvalidMoveError as exc:
                    check_message(exc, text)
                    well_formed.add(False)
                    continue
                except IllegalMoveError as exc:
                    check_message(exc, text)
                    well_formed.add(True)
                    continue
                accepted += 1
                well_formed.add(True)
                check_ascii(text)
                assert len(text.split()) == 1, f"accepted {short(text)}: a move is one token"
                if parse == state.parse_move:
                    assert move in state.legal_moves(), short(text)
                    assert state.parse_move(state.move_text(move)) == move, short(text)
                    assert state.parse_move(text.swapcase()) == move, short(text)
        assert len(well_formed) == 1, f"{short(text)} is well-formed in some positions only"
    assert accepted, "no mutation was a move: the oracles checked nothing"


@pytest.mark.parametrize("variant", variant_names())
def test_rule_options(variant: str) -> None:
    rng = random.Random(f"rules {variant}")
    declared = type(make_rules(variant)).RULES
    names = [rule.name for rule in declared]
    values = [v for rule in declared for v in rule.choices or (str(rule.low), str(rule.high))]
    accepted = 0
    for _ in range(RULE_CASES):
        key, value = rng.choice(names), rng.choice(values)
        if rng.random() < 0.5:
            value = mutations(rng, [value], 1)[0]
        else:
            key = mutations(rng, [key], 1)[0]
        try:
            rules = make_rules(variant, {key: value})
        except RulesError as exc:
            check_message(exc, f"{key} {value}")
            continue
        accepted += 1
        check_ascii(key + value)
        assert make_rules(variant, rules.options) == rules, (short(key), short(value))
        swapped = {key.swapcase(): value.swapcase()}
        assert make_rules(variant, swapped) == rules, (short(key), short(value))
    assert accepted, "no mutation was a rule option: the oracles checked nothing"
