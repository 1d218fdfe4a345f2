"""The command line of ``zengine match``: one table, :data:`OPTIONS`, a row per option.

A row gives the option's spellings, how many words it takes, how they are read, the setting
they go to and whether ``--resume`` takes it, with its line of the help. An option is written
with two dashes or one, as cutechess-cli writes them (``--games``, ``-games``): both find the
same row, and so does any other spelling a row lists. A new option is one row here and, when
it is part of the match, one field of :class:`MatchConfig` of the same name as its target.

:func:`split_options` cuts the words into options; :func:`read_options` reads each one's words
into its setting; :func:`parse_command_line` makes the :class:`MatchConfig` of a new match,
:func:`resume_settings` the few settings a resume may change.
"""

from __future__ import annotations

import secrets
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from zengine.engine.text import shown
from zengine.engine.values import MAX_NODES
from zengine.engine.variants import variant_names
from zengine.tools.referee.config import (
    MAX_CONCURRENCY,
    MAX_GAMES,
    Adjudication,
    DrawRule,
    EngineConfig,
    EngineLimits,
    MatchConfig,
    OpeningsConfig,
    Proto,
    ResignRule,
    SprtConfig,
    Timeouts,
    Tournament,
    builtin_engine,
)
from zengine.tools.referee.words import ConfigError, key_values, plain_text, read_int, utf8_text

#: The demonstration: the built-in engine against itself when no engine is given.
DEMO_GAMES = 4
DEMO_LIMITS = {"tc": "2+0.05"}

#: The words that ask for the help.
HELP_WORDS = ("-h", "--help", "-help")

#: Reads an option's words, given the value its setting has so far (None: not set yet).
Reader = Callable[[list[str], Any], Any]


@dataclass(frozen=True)
class Option:
    """One row of the command line."""

    #: The spellings, without their dashes (the first one is the option's name in messages).
    names: tuple[str, ...]
    #: The words it takes: a number, or None for ``key=value`` words up to the next option.
    arity: int | None
    #: The setting it sets: a field of :class:`MatchConfig`, or one of :data:`WORDS_OF`.
    target: str
    read: Reader
    #: Whether ``--resume`` takes it: it changes how the match is run, not its games.
    resume: bool
    #: The help: what follows the option (``N``, ``key=value...``) and what it does.
    args: str
    help: str

    @property
    def name(self) -> str:
        return self.names[0]


def _one(read: Callable[[str], Any]) -> Reader:
    """The reader of an option of one word (a later one wins)."""
    return lambda words, _old: read(words[0])


def _number(option: str, low: int, high: int) -> Reader:
    return _one(lambda text: read_int(f"--{option}", text, low, high))


def _added(words: list[str], old: Any, option: str) -> dict[str, str]:
    return {**(old or {}), **key_values(option, words)}


def _flag(_words: list[str], _old: Any) -> bool:
    return True


OPTIONS: tuple[Option, ...] = (
    Option(
        ("engine",), None, "engines",
        lambda words, old: [*(old or []), key_values("engine", words)],
        False, "key=value...",
        "an engine (repeat): cmd= name= proto=uci|ugi option.NAME=V\n"
        "tc=[moves/]base[+inc] st=S depth=N nodes=N timemargin=MS dir=\n"
        "timeout.start=S timeout.ready=S timeout.move=S timeout.grace=S",
    ),
    Option(
        ("each",), None, "each", lambda words, old: _added(words, old, "each"),
        False, "key=value...", "keys for every engine",
    ),
    Option(("variant",), 1, "variant", _one(str), False, "V", "{variants} (default: the first)"),
    Option(
        ("rule",), None, "rules",
        lambda words, old: {k.lower(): v for k, v in _added(words, old, "rule").items()},
        False, "KEY=VALUE...", "a rule of the variant (e.g. quiet=50 for zhadu)",
    ),
    Option(
        ("games",), 1, "games", _number("games", 1, MAX_GAMES), False, "N",
        "games per encounter per round (pairs, colours swapped)",
    ),
    Option(("rounds",), 1, "rounds", _number("rounds", 1, MAX_GAMES), False, "N", "rounds (default 1)"),
    Option(
        ("tournament",), 1, "tournament", _one(Tournament.parse), False, "T",
        "round-robin (default) or gauntlet (first engine vs the others)",
    ),
    Option(
        ("concurrency",), 1, "concurrency", _number("concurrency", 1, MAX_CONCURRENCY),
        True, "N", "games at once, each with its own engine processes",
    ),
    Option(
        ("openings",), None, "openings", lambda words, _old: OpeningsConfig.parse(words),
        False, "random plies=N | file=PATH [order=sequential|random] [start=K]",
        "[plies=N] (at most N plies of each line) | none",
    ),
    Option(
        ("seed",), 1, "seed", _number("seed", 0, MAX_NODES), False, "N",
        "the schedule's seed (drawn and printed if absent)",
    ),
    Option(
        ("ratinginterval",), 1, "rating_interval", _number("ratinginterval", 0, MAX_GAMES),
        True, "N", "an Elo line every N games (default 10, 0 = none)",
    ),
    Option(
        ("maxplies",), 1, "max_plies", _number("maxplies", 0, MAX_GAMES), False, "N",
        "draw after N plies (default 1000, 0 = off)",
    ),
    Option(
        ("resign",), None, "resign", lambda words, _old: ResignRule.parse(words), False,
        "movecount=N score=CP [twosided=true]", "(defaults movecount=3 score=1000)",
    ),
    Option(
        ("draw",), None, "draw", lambda words, _old: DrawRule.parse(words), False,
        "movenumber=N movecount=N score=CP", "(defaults movenumber=40 movecount=8 score=10)",
    ),
    Option(
        ("sprt",), None, "sprt", lambda words, _old: SprtConfig.parse(words), False,
        "elo0=E0 elo1=E1 alpha=A beta=B", "stop when decided (two engines)",
    ),
    Option(("recover",), 0, "recover", _flag, False, "", "restart a crashed engine and go on"),
    Option(
        ("timeout",), None, "timeouts",
        lambda words, old: (old or Timeouts()).with_keys(key_values("timeout", words), "--timeout "),
        False, "start=S ready=S move=S grace=S", "uciok, readyok, untimed move, clock grace",
    ),
    Option(("out",), 1, "out", _one(lambda text: utf8_text("--out", text)), False, "DIR", "the output folder (default: a new ./matches/<UTC time>)"),
    Option(
        ("resume",), 1, "resume", _one(lambda text: utf8_text("--resume", text)), True, "DIR",
        "continue the match of DIR (with it only\n{resumable})",
    ),
    Option(("event",), 1, "event", _one(str), False, "NAME", "the Event tag"),
    Option(("debug",), 0, "debug", _flag, False, "", "all traffic to DIR/traffic.log"),
    # Where the games are played, not what the match is: tools/referee/match.py reads it.
    Option(
        ("cluster",), 1, "cluster", _one(str), True, "tcp://HOST:PORT | local:N",
        "play the games on a Dask cluster (one game\n"
        "per worker thread; needs pip install 'zengine[cluster]')",
    ),
)  # fmt: skip

#: Option spelling -> row.
_BY_NAME = {name: option for option in OPTIONS for name in option.names}

#: Targets that are words of the command line, not fields of :class:`MatchConfig`: they are
#: made into the engines and the adjudication, or read by the caller (``resume``, ``cluster``).
WORDS_OF = ("engines", "each", "timeouts", "resign", "draw", "max_plies", "resume", "cluster")


def split_options(args: list[str]) -> list[tuple[Option | None, list[str]]]:
    """``--opt word word --opt2 ...`` -> ``[(row, words)]`` (``-opt`` works too, as in
    cutechess); ``-h``, ``--help`` (where an option may stand) give ``(None, [])``: the caller
    prints the help. Only a whole word is an option: ``--resume -dir`` is the folder ``-dir``;
    the ``key=value`` words of an option end at a word that starts with a dash and is not one
    (a misspelt option is an unknown option wherever it stands)."""
    out: list[tuple[Option | None, list[str]]] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token.lower() in HELP_WORDS:
            out.append((None, []))
            i += 1
            continue
        if not token.startswith("-") or token in ("-", "--"):
            raise ConfigError(f"unexpected argument '{shown(token, 300)}' (options start with --)")
        option = _BY_NAME.get(token.lstrip("-").lower())
        if option is None:
            raise ConfigError(
                f"unknown option '{shown(token, 300)}' "
                f"(known: {', '.join('--' + o.name for o in OPTIONS)})"
            )
        arity = option.arity
        i += 1
        words: list[str] = []
        while i < len(args) and (arity is None or len(words) < arity):
            word = args[i]
            if word.startswith("--") or (
                arity is None and word.startswith("-") and "=" not in word
            ):
                break
            words.append(word)
            i += 1
        if arity is not None and len(words) != arity:
            raise ConfigError(f"--{option.name} needs {arity} value{'s' if arity > 1 else ''}")
        out.append((option, words))
    return out


def read_options(options: list[tuple[Option | None, list[str]]]) -> dict[str, Any]:
    """Each option's words read into its setting: ``{target: value}`` (help words skipped)."""
    settings: dict[str, Any] = {}
    for option, words in options:
        if option is not None:
            settings[option.target] = option.read(words, settings.get(option.target))
    return settings


def resume_refusal(option: Option) -> str:
    """Why ``--resume`` does not take ``option`` (the rule: a row's ``resume``)."""
    takes = [f"--{o.name}" for o in OPTIONS if o.resume and o.target != "resume"]
    return (
        f"--resume takes the stored configuration; drop --{option.name} "
        f"(it takes only {', '.join(takes[:-1])} and {takes[-1]})"
    )


def resume_settings(options: list[tuple[Option | None, list[str]]]) -> dict[str, Any] | None:
    """With ``--resume``: the settings given beside it (``resume``, and the fields of
    :class:`MatchConfig` a resume may change); None without it. ConfigError for an option
    ``--resume`` does not take."""
    if not any(option is not None and option.target == "resume" for option, _ in options):
        return None
    for option, _words in options:
        if option is not None and not option.resume:
            raise ConfigError(resume_refusal(option))
    return read_options(options)


def help_lines(variants: list[str]) -> str:
    """The options' part of the help, a line per row (continued lines indented)."""
    takes = [f"--{o.name}" for o in OPTIONS if o.resume and o.target != "resume"]
    lines = []
    for option in OPTIONS:
        left = f"--{option.name} {option.args}".rstrip()
        text = option.help.format(variants=" ".join(variants), resumable=", ".join(takes))
        first, *rest = text.split("\n")
        if len(left) < 24:
            lines.append(f"{left:<24}{first}".rstrip())
        else:
            lines += [left, f"{'':24}{first}"]
        lines += [f"{'':24}{line}" for line in rest]
    return "\n".join(lines)


# --- a new match ----------------------------------------------------------------------------------

#: Keys of ``--engine`` (besides ``option.NAME`` and ``timeout.KEY``).
ENGINE_KEYS = ("cmd", "name", "proto", "tc", "st", "depth", "nodes", "timemargin", "dir")
_LIMIT_KEYS = ("tc", "st", "depth", "nodes", "timemargin")


def parse_command_line(args: list[str]) -> MatchConfig:
    """The command line of a new match as a validated configuration (the seed is drawn if
    absent); ``--resume`` makes none (:func:`resume_settings`)."""
    options = split_options(args)
    if resume_settings(options) is not None:
        raise ConfigError("--resume DIR continues the match of DIR: it makes no new one")
    return config_of(read_options(options))


def config_of(settings: Mapping[str, Any]) -> MatchConfig:
    """The configuration of a new match from the settings of :func:`read_options`."""
    engines: list[dict[str, str]] = settings.get("engines", [])
    each: dict[str, str] = settings.get("each", {})
    matched = {k: v for k, v in settings.items() if k not in WORDS_OF}
    if not engines:  # the demonstration
        engines = [{}, {}]
        if not any(k in each for k in ("tc", "st", "depth", "nodes")):
            each = {**DEMO_LIMITS, **each}
        matched.setdefault("games", DEMO_GAMES)
    if len(engines) == 1:
        raise ConfigError("one --engine given: give at least two (or none for the demonstration)")
    merged = [{**each, **e} for e in engines]
    configs = [engine_config(keys, settings.get("timeouts", Timeouts())) for keys in merged]
    names = _dedupe([c.name for c in configs], [bool(keys.get("name")) for keys in merged])
    adjudication = Adjudication(
        settings.get("resign"),
        settings.get("draw"),
        settings.get("max_plies", Adjudication().max_plies),
    )
    return MatchConfig(
        engines=tuple(replace(c, name=n) for c, n in zip(configs, names)),
        variant=matched.pop("variant", variant_names()[0]),
        seed=matched.pop("seed") if "seed" in matched else secrets.randbelow(2**31),
        adjudication=adjudication,
        **matched,
    )


def engine_config(keys: Mapping[str, str], defaults: Timeouts) -> EngineConfig:
    """An engine from its ``--engine`` (and ``--each``) words."""
    unknown = [
        k
        for k in keys
        if k not in ENGINE_KEYS and not k.startswith("option.") and not k.startswith("timeout.")
    ]
    if unknown:
        raise ConfigError(
            f"--engine: unknown key '{shown(unknown[0], 300)}' (keys: {', '.join(sorted(ENGINE_KEYS))}, "
            "option.NAME, timeout.start|ready|move|grace)"
        )
    given = keys.get("cmd")
    if given in (None, "", "zengine"):
        # The installation's own script, also when it is not on PATH.
        cmd = builtin_engine()
    else:
        # Checked before splitting, where a line break would pass for a space.
        plain_text("--engine cmd=", given)
        try:
            cmd = shlex.split(given)
        except ValueError as exc:
            raise ConfigError(f"--engine cmd={shown(given, 300)}: {exc}") from None
    if not cmd:
        raise ConfigError("--engine: empty cmd=")
    name = keys.get("name") or (
        Path(cmd[-1]).stem if cmd[0] == sys.executable else Path(cmd[0]).name
    )
    try:
        return EngineConfig(
            name=name,
            cmd=tuple(cmd),
            limits=EngineLimits.parse({k: keys[k] for k in _LIMIT_KEYS if k in keys}),
            proto=_proto(keys.get("proto", "uci")),
            options={k[len("option.") :]: v for k, v in keys.items() if k.startswith("option.")},
            workdir=keys.get("dir") or None,
            timeouts=defaults.with_keys(
                {k[len("timeout.") :]: v for k, v in keys.items() if k.startswith("timeout.")},
                "timeout.",
            ),
        )
    except ConfigError as exc:
        raise ConfigError(f"--engine {shown(name, 300)}: {exc}") from None


def _proto(text: str) -> Proto:
    try:
        return Proto(text.lower())
    except ValueError:
        raise ConfigError(f"proto={shown(text, 300)}: must be uci or ugi") from None


def _dedupe(names: list[str], explicit: list[bool]) -> list[str]:
    """Names that tell engines apart in records. An automatic name (from the command, no
    ``name=``) shared with another engine is numbered: ``zengine, zengine`` -> ``zengine-1,
    zengine-2`` (skipping any name another engine has). A ``name=`` the user gave is kept
    as it is, and given twice it is refused, as fastchess does: renaming it would put a name
    in the records that the user never wrote (and ``--each name=`` names every engine alike)."""
    given = Counter(n for n, e in zip(names, explicit) if e)
    twice = [n for n, count in given.items() if count > 1]
    if twice:
        raise ConfigError(
            f"--engine name={shown(twice[0], 300)}: two engines are named so (give each its own name=)"
        )
    counts = Counter(names)
    # Every name that stays as it is: the given ones and the automatic ones used once (an
    # engine whose command is ./x-1 is named x-1 too).
    taken = set(given) | {n for n, e in zip(names, explicit) if not e and counts[n] == 1}
    seen: Counter[str] = Counter()
    out = []
    for name, own in zip(names, explicit):
        if not own and counts[name] > 1:
            seen[name] += 1
            while f"{name}-{seen[name]}" in taken:
                seen[name] += 1
            name = f"{name}-{seen[name]}"
            taken.add(name)
        out.append(name)
    return out
