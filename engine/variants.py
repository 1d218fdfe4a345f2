"""The registry of games: names and rule options to :class:`~zengine.engine.game.Rules` objects.

Everything else (protocol, search, referee, bench, perft) finds games only through this module;
each game's :class:`~zengine.engine.game.Rules` subclass declares the rest (its variant names,
rule options, engine options, bench positions, evaluation and search settings).

Built-in games are one line each in :data:`GAMES`, as ``module:attribute`` paths imported on
first use. A game from outside this package joins in one of two ways:

* **An installed plugin** (what a game's author ships): a distribution declares an entry point
  in the group ``zengine.games`` whose name is the game's name and whose value is its ``Rules``
  subclass. In the plugin's ``pyproject.toml``::

      [project.entry-points."zengine.games"]
      hexapawn = "zengine_hexapawn:HexapawnRules"

  Once the distribution is installed (``pip install zengine-hexapawn``), every zengine process
  finds the game: the protocol lists its variants under ``UCI_Variant`` and accepts ``setup
  hexapawn``, ``zengine perft``/``match`` take ``--variant hexapawn``, and a referee's engines
  (themselves zengine processes) know it too. Plugins are looked up once per process, on the
  registry's first use (measured: the look-up adds about 4 ms to a 250 ms protocol start-up,
  within the noise); they are listed after the built-in games, in order of their names.
* **A program** calls :func:`register_game` with the class before using the registry; this
  reaches only that process.

The first registered game's first variant is the default game (:func:`default_variant`). A
name already taken keeps its first registration: a plugin cannot replace a built-in game.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping

from zengine.engine.game import RuleOption, Rules, RulesError, UnknownGameError

#: The entry-point group plugins declare their games in.
ENTRY_POINT_GROUP = "zengine.games"

#: Registered games, in the order their variants are listed to users: game name -> its
#: ``Rules`` subclass, or a ``module:attribute`` path to it until first used.
GAMES: dict[str, type[Rules] | str] = {
    "zola": "zengine.engine.zola:ZolaRules",
    "zhadu": "zengine.engine.zhadu:ZhaduRules",
}

# Game and variant names are single lower-case protocol tokens.
_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_plugins_found = False


class GameRegistrationError(RulesError):
    """A game that cannot be registered or loaded (a plugin's fault, not the user's input)."""


def _find_plugins() -> None:
    """Add the games installed distributions declare (once per process)."""
    global _plugins_found
    if _plugins_found:
        return
    _plugins_found = True
    from importlib.metadata import entry_points  # ~50 ms to import: only where plugins matter

    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        GAMES.setdefault(point.name, point.value)


def _load(game: str, path: str) -> type[Rules]:
    module_name, _, attribute = path.partition(":")
    try:
        found: object = importlib.import_module(module_name.strip())
    except ImportError as exc:
        raise GameRegistrationError(f"game '{game}': cannot import '{path}': {exc}") from None
    for part in attribute.strip().split(".") if attribute else ():
        found = getattr(found, part, None)
    if not isinstance(found, type) or not issubclass(found, Rules):
        raise GameRegistrationError(f"game '{game}': '{path}' is no Rules class")
    if found.game != game:
        raise GameRegistrationError(
            f"game '{game}': '{path}' is the rules of '{found.game}', not of '{game}'"
        )
    return found


def _check(rules: type[Rules]) -> None:
    """Reject a class whose names the protocol could not carry or that ``setup <game>`` could
    not select (the game's own name must be one of its variants)."""
    if rules.game not in rules.VARIANTS:
        raise GameRegistrationError(f"game '{rules.game}': its name is not one of its VARIANTS")
    for name in (rules.game, *rules.VARIANTS):
        if not _NAME_RE.fullmatch(name):
            raise GameRegistrationError(
                f"game '{rules.game}': '{name}' is no game name (lower-case letters, digits, "
                "'-', '_', '.')"
            )


def register_game(rules: type[Rules]) -> None:
    """Add a game to this process's registry, after those already there.

    Raises :class:`GameRegistrationError` if ``rules`` is no ``Rules`` subclass or if its game
    or one of its variant names is already registered.
    """
    _find_plugins()
    if not isinstance(rules, type) or not issubclass(rules, Rules):
        raise GameRegistrationError(f"{rules!r} is no Rules class")
    _check(rules)
    if rules.game in GAMES:
        raise GameRegistrationError(f"a game '{rules.game}' is already registered")
    taken = set(variant_names()) & set(rules.VARIANTS)
    if taken:
        raise GameRegistrationError(
            f"game '{rules.game}': variant names already registered: {', '.join(sorted(taken))}"
        )
    GAMES[rules.game] = rules


def rules_class(game: str) -> type[Rules]:
    """The Rules class of a registered game (imported on first use)."""
    _find_plugins()
    try:
        entry = GAMES[game]
    except KeyError:
        raise UnknownGameError(f"unknown game '{game}'") from None
    if isinstance(entry, str):
        entry = _load(game, entry)
        _check(entry)
        GAMES[game] = entry
    return entry


def game_names() -> list[str]:
    """Every registered game's name, in registry order."""
    _find_plugins()
    return list(GAMES)


def _variants() -> dict[str, tuple[str, Mapping[str, str]]]:
    """Variant name -> (game, implied options), over every game in registry order."""
    table: dict[str, tuple[str, Mapping[str, str]]] = {}
    for game in game_names():
        for name, implied in rules_class(game).VARIANTS.items():
            if name in table:
                raise GameRegistrationError(
                    f"game '{game}': variant '{name}' is already a variant of '{table[name][0]}'"
                )
            table[name] = (game, implied)
    return table


def variant_names() -> list[str]:
    """Every variant name (``zola``, ``zola-8``, ...), in registry order."""
    return list(_variants())


def default_variant() -> str:
    """The game at start-up and wherever none is named: the first registered variant."""
    return variant_names()[0]


def rule_options() -> list[tuple[str, RuleOption]]:
    """``(game, option)`` for every rule whose default is an engine option, in registry order."""
    return [(game, option) for game in game_names() for option in rules_class(game).ENGINE_OPTIONS]


def resolve(name: str) -> tuple[str, dict[str, str]]:
    """The game and the rule options a game or variant name stands for (case-insensitive)."""
    variants = _variants()
    found = variants.get(name.lower())
    if found is None:
        raise UnknownGameError(f"unknown game '{name}' (known: {', '.join(variants)})")
    game, implied = found
    return game, dict(implied)


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
