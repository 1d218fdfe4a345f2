"""The registry of games: names and rule options to :class:`~engine.game.Rules` objects.

A game registers one line in :data:`GAMES`: its name, the class implementing its rules, and its
evaluation function (used by the search). The rules class lists its variant names and rule
options itself (``VARIANTS``, ``from_options``). Everything else (protocol, search, referee)
finds games only through this module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

from zengine.engine.game import RuleOption, Rules, State, UnknownGameError


@dataclass(frozen=True)
class GameEntry:
    """Where a game's code lives, as ``module:attribute`` paths (imported on first use)."""

    rules: str
    evaluation: str


#: Registered games, in the order their variants are listed to users.
GAMES: dict[str, GameEntry] = {
    "zola": GameEntry("zengine.engine.zola:ZolaRules", "zengine.engine.zola_eval:evaluate"),
    "zhadu": GameEntry("zengine.engine.zhadu:ZhaduRules", "zengine.engine.zhadu_eval:evaluate"),
}


def _load(path: str):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


@cache
def rules_class(game: str) -> type:
    """The Rules class of a registered game."""
    try:
        entry = GAMES[game]
    except KeyError:
        raise UnknownGameError(f"unknown game '{game}'") from None
    return _load(entry.rules)


def variant_names() -> list[str]:
    """Every variant name (``zola``, ``zola-8``, ...), in registry order."""
    names: list[str] = []
    for game in GAMES:
        names.extend(rules_class(game).VARIANTS)
    return names


def rule_options() -> list[tuple[str, RuleOption]]:
    """``(game, option)`` for every rule whose default is an engine option, in registry order."""
    return [(game, option) for game in GAMES for option in rules_class(game).ENGINE_OPTIONS]


def resolve(name: str) -> tuple[str, dict[str, str]]:
    """The game and the rule options a game or variant name stands for (case-insensitive)."""
    lowered = name.lower()
    for game in GAMES:
        variants: Mapping[str, Mapping[str, str]] = rules_class(game).VARIANTS
        if lowered in variants:
            return game, dict(variants[lowered])
    raise UnknownGameError(f"unknown game '{name}' (known: {', '.join(variant_names())})")


def make_rules(name: str, options: Mapping[str, str] | None = None) -> Rules:
    """The rules for a game or variant name plus explicit rule options.

    Options given explicitly override those the variant name implies
    (``make_rules("zhadu-star", {"quiet": "50"})``). Raises ``UnknownGameError``,
    ``UnknownRuleError`` or ``BadRuleValueError``.
    """
    game, implied = resolve(name)
    merged = dict(implied)
    for key, value in (options or {}).items():
        merged[key.lower()] = str(value)
    return rules_class(game).from_options(merged)


def start_state(name: str = "zola", options: Mapping[str, str] | None = None) -> State:
    """The start position of a variant: a convenience for tools and tests."""
    return make_rules(name, options).start()


@cache
def _evaluation(game: str) -> Callable[[State], int]:
    return _load(GAMES[game].evaluation)


def evaluation_for(rules: Rules) -> Callable[[State], int]:
    """The static evaluation of a game: ``f(state) -> centipawns for the side to move``."""
    return _evaluation(rules.game)
