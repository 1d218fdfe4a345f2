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
  registry's first use (measured: 2.5-9 ms, against ~190 ms of CPU for ``uci`` and ``quit``
  before and after, within the noise); they are listed after the built-in games, in order of
  their names.
* **A program** calls :func:`register_game` with the class before using the registry; this
  reaches only that process.

The first registered game's first variant is the default game (:func:`default_variant`). A
name already taken keeps its first registration: a plugin cannot replace a built-in game. A
plugin whose module cannot be imported, or whose entry is no proper ``Rules`` class, leaves
only its own game out (:func:`plugin_errors` says why; naming the game gives that reason as a
:class:`PluginError`): one broken installation never stops the other games.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import cast

from zengine.engine.game import RuleOption, Rules, UnknownGameError, fold_case

#: The entry-point group plugins declare their games in.
ENTRY_POINT_GROUP = "zengine.games"

#: Registered games, in the order their variants are listed to users: game name -> its
#: ``Rules`` subclass, or a ``module:attribute`` path to it until first used.
GAMES: dict[str, type[Rules] | str] = {
    "zola": "zengine.engine.zola:ZolaRules",
    "zhadu": "zengine.engine.zhadu:ZhaduRules",
}


class PluginError(UnknownGameError):
    """A plugin's game that cannot be loaded: its name is known but the game is not there.

    Only that game is missing: the others are listed and played as usual, and naming it
    (``setup <game>``, ``--variant <game>``) gives this error's one line."""


# Game and variant names are single lower-case protocol tokens.
_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_plugins_found = False
#: Games added from entry points, and why those that failed to load did.
_PLUGINS: set[str] = set()
_BROKEN: dict[str, PluginError] = {}


def _find_plugins() -> None:
    """Add the games installed distributions declare (once per process)."""
    global _plugins_found
    if _plugins_found:
        return
    _plugins_found = True
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        if point.name not in GAMES:
            GAMES[point.name] = point.value
            _PLUGINS.add(point.name)


def _problem(game: str, rules: object) -> str | None:
    """Why ``rules`` cannot be the registered class of ``game`` (None if it can): it must be a
    Rules subclass of that name whose names the protocol can carry and whose own name is one of
    its variants (so that ``setup <game>`` selects it)."""
    if not isinstance(rules, type) or not issubclass(rules, Rules):
        return f"game '{game}': {rules!r} is no Rules class"
    if rules.game != game:
        return f"game '{game}': {rules.__name__} is the rules of '{rules.game}'"
    if game not in rules.VARIANTS:
        return f"game '{game}': its name is not one of its VARIANTS"
    for name in (game, *rules.VARIANTS):
        if not _NAME_RE.fullmatch(name):
            return f"game '{game}': '{name}' is no name (lower-case letters, digits, - _ .)"
    return None


def _load(game: str, path: str) -> type[Rules]:
    module_name, _, attribute = path.partition(":")
    try:
        found: object = importlib.import_module(module_name.strip())
    except ImportError as exc:
        raise PluginError(f"game '{game}' cannot be loaded from '{path}': {exc}") from None
    for part in attribute.strip().split(".") if attribute else ():
        found = getattr(found, part, None)
    problem = _problem(game, found)
    if problem:
        raise PluginError(f"{problem} (loaded from '{path}')")
    return cast(type[Rules], found)


def register_game(rules: type[Rules]) -> None:
    """Add a game to this process's registry, after those already there (installed plugins
    included).

    A programming error raises: ``TypeError`` if ``rules`` is no ``Rules`` subclass,
    ``ValueError`` if its names are unusable or already registered.
    """
    if not isinstance(rules, type) or not issubclass(rules, Rules):
        raise TypeError(f"{rules!r} is no Rules class")
    problem = _problem(rules.game, rules)
    if problem:
        raise ValueError(problem)
    if rules.game in game_names():
        raise ValueError(f"a game '{rules.game}' is already registered")
    taken = sorted(set(variant_names()) & set(rules.VARIANTS))
    if taken:
        raise ValueError(f"game '{rules.game}': variant names already taken: {', '.join(taken)}")
    GAMES[rules.game] = rules


def rules_class(game: str) -> type[Rules]:
    """The Rules class of a registered game (imported on first use).

    Raises :class:`UnknownGameError` for a name not registered and :class:`PluginError` for a
    plugin's game that cannot be loaded."""
    _find_plugins()
    try:
        entry = GAMES[game]
    except KeyError:
        raise UnknownGameError(f"unknown game '{game}'") from None
    if isinstance(entry, str):
        if game in _BROKEN:
            raise _BROKEN[game]
        try:
            entry = _load(game, entry)
        except PluginError as exc:
            if game not in _PLUGINS:
                raise  # a built-in game's path: a bug in this package, never skipped
            _BROKEN[game] = exc
            raise
        GAMES[game] = entry
    return entry


def game_names() -> list[str]:
    """Every registered game's name, in registry order (plugins that fail to load included)."""
    _find_plugins()
    return list(GAMES)


def plugin_errors() -> list[str]:
    """Why each plugin game that failed to load did, one line each (for diagnostics)."""
    _variants()
    return [str(error) for error in _BROKEN.values()]


def _variants() -> dict[str, tuple[str, Mapping[str, str]]]:
    """Variant name -> (game, implied options), over every game that loads, in registry order;
    a variant name already taken is left to the game that has it first."""
    table: dict[str, tuple[str, Mapping[str, str]]] = {}
    for game in game_names():
        try:
            rules = rules_class(game)
        except PluginError:
            continue
        for name, implied in rules.VARIANTS.items():
            table.setdefault(name, (game, implied))
    return table


def variant_names() -> list[str]:
    """Every variant name (``zola``, ``zola-8``, ...), in registry order."""
    return list(_variants())


def default_variant() -> str:
    """The game at start-up and wherever none is named: the first registered variant."""
    return variant_names()[0]


def rule_options() -> list[tuple[str, RuleOption]]:
    """``(game, option)`` for every rule whose default is an engine option, in registry order."""
    return [(game, option) for game in game_names() for option in _engine_options(game)]


def _engine_options(game: str) -> tuple[RuleOption, ...]:
    try:
        return rules_class(game).ENGINE_OPTIONS
    except PluginError:
        return ()


def resolve(name: str) -> tuple[str, dict[str, str]]:
    """The game and the rule options a game or variant name stands for (case-insensitive).

    Raises :class:`UnknownGameError` (:class:`PluginError` for a plugin game that failed to
    load)."""
    lowered = fold_case(name)
    variants = _variants()
    found = variants.get(lowered)
    if found is None:
        if lowered in _BROKEN:
            raise _BROKEN[lowered]
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
        merged[fold_case(key)] = str(value)
    return rules_class(game).from_options(merged)
