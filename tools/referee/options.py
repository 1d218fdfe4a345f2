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

import difflib
import json
import os
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
    MAX_TB_PIECES,
    MAX_WAIT_MS,
    Adjudication,
    DrawRule,
    EngineConfig,
    EngineLimits,
    MatchConfig,
    OpeningsConfig,
    PgnOut,
    Proto,
    ResignRule,
    SprtConfig,
    Timeouts,
    Tournament,
)
from zengine.tools.referee.programs import builtin_engine
from zengine.tools.referee.tables import table_option
from zengine.tools.referee.words import (
    ConfigError,
    key_values,
    plain_text,
    read_bool,
    read_int,
    utf8_text,
)

#: The demonstration: the built-in engine against itself when no engine is given.
DEMO_GAMES = 4
DEMO_LIMITS = {"tc": "2+0.05"}
#: The counts of a command line in cutechess's spelling (an option with one dash), as
#: cutechess-cli's: one game per encounter, a new opening every game. With two dashes the
#: defaults are :class:`MatchConfig`'s: a colour-swapped pair on each opening.
CUTECHESS_DEFAULTS = {"games": 1, "repeat": 1}

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
    #: The setting it sets: a field of :class:`MatchConfig`, or one of :data:`NOT_FIELDS`.
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


#: Keys of an engine that stand alone (cutechess's ``ponder``, ``whitepov``).
ENGINE_FLAGS = ("ponder", "whitepov")


def engine_words(option: str, words: list[str]) -> dict[str, str]:
    """An ``--engine`` or ``--each``'s words: ``key=value`` (a key once; ``arg=`` as often as
    wanted, each one more word of the command), and the flags of :data:`ENGINE_FLAGS`."""
    return key_values(option, words, bare=ENGINE_FLAGS, many=("arg",))


def _each(words: list[str], old: Any) -> dict[str, str]:
    """``--each`` given again adds its keys (a later value wins; ``arg=`` words add up)."""
    keys = dict(old or {})
    for key, value in engine_words("each", words).items():
        if key == "arg" and "arg" in keys:
            value = f"{keys['arg']} {value}"
        keys[key] = value
    return keys


def _refused(reason: str) -> Reader:
    """The reader of an option that is known but not offered: it says why."""

    def read(_words: list[str], _old: Any) -> Any:
        raise ConfigError(reason)

    return read


#: cutechess's chess variants: named here, they are refused as chess, not as unknown words.
CHESS_VARIANTS = frozenset(
    "standard fischerandom chess960 crazyhouse atomic antichess losers horde kingofthehill "
    "3check 5check racingkings capablanca caparandom gothic janus berolina checkless "
    "extinction giveaway suicide twokings shatranj makruk".split()
)


def _variant(text: str) -> str:
    if text.lower() in CHESS_VARIANTS and text not in variant_names():
        raise ConfigError(
            f"--variant {shown(text, 300)}: a chess variant; this referee plays "
            f"{', '.join(variant_names())}"
        )
    return text


def _repeat(words: list[str], _old: Any) -> int:
    """cutechess's ``-repeat [N]``: each opening N times in a row (2 if N is not given)."""
    if len(words) > 1:
        raise ConfigError("--repeat takes at most one number")
    return read_int("--repeat", words[0], 1, MAX_GAMES) if words else 2


def _openings(words: list[str], _old: Any) -> OpeningsConfig:
    """``--openings``, also with cutechess's ``format=`` and ``policy=`` keys."""
    kept = []
    for word in words:
        key, _, value = word.partition("=")
        if key.lower() == "format":
            if value.lower() != "epd":
                raise ConfigError(
                    f"--openings format={shown(value, 300)}: PGN books hold chess games; "
                    "give format=epd (a file of position strings or move lines, one a line)"
                )
        elif key.lower() == "policy":
            if value.lower() != "default":
                raise ConfigError(
                    f"--openings policy={shown(value, 300)}: only policy=default (a new "
                    "opening every -repeat games, the same for every encounter of a round)"
                )
        else:
            kept.append(word)
    return OpeningsConfig.parse(kept)


def _sprt(words: list[str], _old: Any) -> SprtConfig:
    """``--sprt``, also with fastchess's ``model=logistic`` (the model used here)."""
    kv = key_values("sprt", words)
    model = kv.pop("model", "logistic").lower()
    if model != "logistic":
        raise ConfigError(
            f"--sprt model={shown(model, 300)}: the SPRT here uses the logistic model only "
            "(model=logistic)"
        )
    return SprtConfig.parse([f"{k}={v}" for k, v in kv.items()])


def _pgnout(option: str) -> Reader:
    return lambda words, _old: PgnOut.parse(words, option)


def _epdout(words: list[str], _old: Any) -> str:
    """cutechess's ``-epdout FILE`` or fastchess's ``-epdout file=FILE``."""
    kv = key_values("epdout", words, positional="file")
    if set(kv) != {"file"}:
        raise ConfigError("--epdout: give one file (FILE or file=FILE)")
    return str(Path(utf8_text("--epdout", kv["file"])).absolute())


def _report(words: list[str], _old: Any) -> bool:
    """fastchess's ``-report penta=true``: the statistics here are pentanomial already."""
    kv = key_values("report", words)
    if set(kv) - {"penta"}:
        raise ConfigError("--report: the only key is penta=")
    if not read_bool("--report penta=", kv.get("penta", "true")):
        raise ConfigError(
            "--report penta=false: the Elo and the SPRT here are computed from game pairs "
            "(pentanomial) only"
        )
    return True


def _output(words: list[str], _old: Any) -> str:
    """fastchess's ``-output format=cutechess``: the lines printed here are cutechess's."""
    kv = key_values("output", words)
    if kv != {"format": "cutechess"} and kv.get("format", "").lower() != "cutechess":
        raise ConfigError(
            "--output: the live lines here are cutechess-cli's (give format=cutechess, or leave "
            "-output out)"
        )
    return "cutechess"


def _config_file(words: list[str], _old: Any) -> str:
    """fastchess's ``-config file=DIR/config.json``: resume the match whose configuration
    that is (the folder of the file)."""
    kv = key_values("config", words, positional="file")
    if set(kv) != {"file"}:
        raise ConfigError(
            "--config: give file=DIR/config.json (a match folder's configuration) and no other key"
        )
    path = Path(utf8_text("--config", kv["file"]))
    return str(path.parent if path.name == "config.json" else path)


def _flag(_words: list[str], _old: Any) -> bool:
    return True


OPTIONS: tuple[Option, ...] = (
    Option(
        ("engine",), None, "engines",
        lambda words, old: [*(old or []), engine_words("engine", words)],
        False, "key=value...",
        "an engine (repeat): cmd= name= proto=uci|ugi option.NAME=V\n"
        "tc=[moves/]base[+inc] st=S depth=N nodes=N timemargin=MS dir=\n"
        "timeout.start=S timeout.ready=S timeout.move=S timeout.grace=S\n"
        "conf=NAME (from engines.json) arg=WORD initstr=TEXT\n"
        "restart=on|off|auto stderr=FILE whitepov\n"
        "ponder (think on the opponent's time, if it has the option Ponder)",
    ),
    Option(
        ("each",), None, "each", _each,
        False, "key=value...", "keys for every engine",
    ),
    Option(("variant",), 1, "variant", _one(_variant), False, "V", "{variants} (default: the first)"),
    Option(
        ("rule",), None, "rules",
        lambda words, old: {k.lower(): v for k, v in _added(words, old, "rule").items()},
        False, "KEY=VALUE...", "a rule of the variant (e.g. quiet=50 for zhadu)",
    ),
    Option(
        ("games",), 1, "games", _number("games", 1, MAX_GAMES), False, "N",
        "games per encounter per round (default 2; 1 in a\n"
        "command line of one-dash options, as cutechess)",
    ),
    Option(
        ("rounds",), 1, "rounds", _number("rounds", 1, MAX_GAMES), False, "N", "rounds (default 1)"
    ),
    Option(
        ("repeat",), None, "repeat", _repeat, False, "[N]",
        "each opening N times in a row (default 2; 1 in a\n"
        "command line of one-dash options; --repeat alone: 2)",
    ),
    Option(("noswap",), 0, "swap", lambda _w, _o: False, False, "", "no colour swap between an encounter's games"),
    Option(("reverse",), 0, "reverse", _flag, False, "", "every game with the colours the other way"),
    Option(
        ("tournament",), 1, "tournament", _one(Tournament.parse), False, "T",
        "round-robin (default) or gauntlet (first engine vs the others)",
    ),
    Option(
        ("concurrency",), 1, "concurrency", _number("concurrency", 1, MAX_CONCURRENCY),
        True, "N", "games at once, each with its own engine processes",
    ),
    Option(
        ("openings",), None, "openings", _openings,
        False, "random plies=N | file=PATH [order=sequential|random] [start=K]",
        "[plies=N] (at most N plies of each line) | none",
    ),
    Option(
        ("seed", "srand"), 1, "seed", _number("seed", 0, MAX_NODES), False, "N",
        "the schedule's seed (drawn and printed if absent; also -srand)",
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
        ("tables",), 1, "tables", _one(lambda text: table_option("--tables", text)), False, "DIR",
        "end a game at a position of these endgame tables, exactly",
    ),
    Option(
        ("tb",), 1, "tables", _one(lambda text: table_option("-tb", text)), False, "DIR",
        "= --tables DIR (cutechess's spelling; Syzygy's are chess's)",
    ),
    Option(
        ("tbpieces",), 1, "tb_pieces", _number("tbpieces", 2, MAX_TB_PIECES), False, "N",
        "only positions of at most N pieces end a game by the tables",
    ),
    Option(
        ("maxmoves",), 1, "max_plies",
        _one(lambda text: 2 * read_int("--maxmoves", text, 0, MAX_GAMES // 2)), False, "N",
        "draw after N full moves (= --maxplies 2N)",
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
        ("sprt",), None, "sprt", _sprt, False,
        "elo0=E0 elo1=E1 alpha=A beta=B", "stop when decided (two engines; model=logistic)",
    ),
    Option(("recover",), 0, "recover", _flag, False, "", "restart a crashed engine and go on"),
    Option(
        ("timeout",), None, "timeouts",
        lambda words, old: (old or Timeouts()).with_keys(key_values("timeout", words), "--timeout "),
        False, "start=S ready=S move=S grace=S", "uciok, readyok, untimed move, clock grace",
    ),
    Option(
        ("out",), 1, "out", _one(lambda text: utf8_text("--out", text)), False, "DIR",
        "the output folder (default: a new ./matches/<UTC time>)",
    ),
    Option(
        ("resume",), 1, "resume", _one(lambda text: utf8_text("--resume", text)), True, "DIR",
        "continue the match of DIR (with it only\n{resumable})",
    ),
    Option(("event",), 1, "event", _one(str), False, "NAME", "the Event tag"),
    Option(("site",), 1, "site", _one(str), False, "NAME", "the Site tag"),
    Option(
        ("pgnout",), None, "pgnout", _pgnout("pgnout"), False, "FILE [min] [fi]",
        "also append every game to FILE (min: cutechess's\n"
        "minimal PGN; fi: finished games only, no game stopped)",
    ),
    Option(("epdout",), None, "epdout", _epdout, False, "FILE", "append each game's final position to FILE"),
    Option(
        ("wait",), 1, "wait_ms", _number("wait", 0, MAX_WAIT_MS), True, "MS",
        "a pause between a worker's games, in milliseconds",
    ),
    Option(
        ("outcomeinterval",), 1, "outcome_interval", _number("outcomeinterval", 0, MAX_GAMES),
        True, "N", "how games ended, every N games (and at the end)",
    ),
    Option(("report",), None, "report", _report, True, "penta=true", "(fastchess) pentanomial statistics: always"),
    Option(("output",), None, "output", _output, True, "format=cutechess", "(fastchess) the lines printed: cutechess's"),
    Option(
        ("config",), None, "resume", _config_file, True, "file=DIR/config.json",
        "(fastchess) = --resume DIR",
    ),
    Option(("debug",), 0, "debug", _flag, False, "", "all traffic to DIR/traffic.log"),
    # Where the games are played, not what the match is: tools/referee/match.py reads it.
    Option(
        ("cluster",), 1, "cluster", _one(str), True, "tcp://HOST:PORT | local:N",
        "play the games on a Dask cluster (one game\n"
        "per worker thread; needs Dask: pip install '.[cluster]' from a clone)",
    ),
    # cutechess's chess-only options: known, and refused with the reason.
    *(
        Option((name,), None, "refused", _refused(f"-{name}: {why}"), False, "", "")
        for name, why in (
            ("tbignore50", "the tables here are exact under the game's own rules, which have "
             "no fifty-move rule to ignore (leave it out)"),
            ("tbadjudicate", "the tables here hold no draws: every position they hold ends the "
             "game (leave it out)"),
            ("epdin", "EPD positions are chess's (give --openings file= with position strings)"),
            ("bookmode", "Polyglot books are chess's (give --openings file=)"),
            ("pgnin", "PGN games are chess's (give --openings file= with move lines)"),
            ("seeds", "seeded players are for knockout tournaments, which are not offered"),
            ("resultformat", "the PGN result comments here are the rules' own words"),
        )
    ),
)  # fmt: skip

#: Option spelling -> row.
_BY_NAME = {name: option for option in OPTIONS for name in option.names}

#: The targets that are not fields of :class:`MatchConfig`: :func:`config_of` makes them into
#: the engines and the adjudication; the caller reads ``resume`` and ``cluster``.
NOT_FIELDS = (
    "engines", "each", "timeouts", "resign", "draw", "max_plies", "tables", "tb_pieces", "resume",
    "cluster", "report", "output", "refused",
)  # fmt: skip


def split_options(args: list[str]) -> list[tuple[Option | None, list[str]]]:
    """``--opt word word --opt2 ...`` -> ``[(row, words)]`` (``-opt`` works too, as in
    cutechess); ``-h``, ``--help`` (where an option may stand) give ``(None, [])``: the caller
    prints the help. Only a whole word is an option: ``--resume -dir`` is the folder ``-dir``;
    the ``key=value`` words of an option end at a word that starts with a dash and is not one
    (a misspelt option is an unknown option wherever it stands)."""
    return [(option, words) for _token, option, words in _split(args)]


def cutechess_spelled(args: list[str]) -> bool:
    """Whether the command line is written as cutechess-cli's: an option with one dash
    (``-games``). It then counts games as cutechess does (:data:`CUTECHESS_DEFAULTS`)."""
    return any(
        option is not None and not token.startswith("--") for token, option, _ in _split(args)
    )


def _split(args: list[str]) -> list[tuple[str, Option | None, list[str]]]:
    """:func:`split_options`, each option with the word it was written as."""
    out: list[tuple[str, Option | None, list[str]]] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token.lower() in HELP_WORDS:
            out.append((token, None, []))
            i += 1
            continue
        if not token.startswith("-") or token in ("-", "--"):
            raise ConfigError(f"unexpected argument '{shown(token, 300)}' (options start with --)")
        option = _BY_NAME.get(token.lstrip("-").lower())
        if option is None:
            raise ConfigError(unknown_option(token))
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
        out.append((token, option, words))
    return out


def unknown_option(token: str) -> str:
    """The message of an unknown option: the nearest known spelling (with the dashes the user
    wrote), or all of them."""
    dashes = "-" * min(2, len(token) - len(token.lstrip("-")))
    near = difflib.get_close_matches(token.lstrip("-").lower(), list(_BY_NAME), n=1, cutoff=0.6)
    if near:
        return f"unknown option '{shown(token, 300)}' (did you mean {dashes}{near[0]}?)"
    known = [o.name for o in OPTIONS if o.help]
    return f"unknown option '{shown(token, 300)}' (known: {', '.join('--' + n for n in known)})"


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
        if not option.help:  # a refused option: docs/referee.md says why
            continue
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
ENGINE_KEYS = (
    "cmd", "name", "proto", "tc", "st", "depth", "nodes", "timemargin", "dir",
    "conf", "arg", "initstr", "restart", "stderr", "whitepov", "ponder", "args", "plies",
)  # fmt: skip
_LIMIT_KEYS = ("tc", "st", "depth", "nodes", "timemargin")
#: cutechess's engine keys of chess alone, refused with the reason.
_CHESS_KEYS = {
    "book": "Polyglot opening books are chess's (give --openings file=)",
    "bookdepth": "Polyglot opening books are chess's (give --openings file=)",
    "tscale": "not offered (give each engine its own tc=)",
}
#: cutechess's ``engines.json``: read from the current directory, else from cutechess's own.
ENGINES_FILE = "engines.json"


def parse_command_line(args: list[str]) -> MatchConfig:
    """The command line of a new match as a validated configuration (the seed is drawn if
    absent); ``--resume`` makes none (:func:`resume_settings`)."""
    options = split_options(args)
    if resume_settings(options) is not None:
        raise ConfigError("--resume DIR continues the match of DIR: it makes no new one")
    return config_of(read_options(options), cutechess_spelled(args))


def config_of(settings: Mapping[str, Any], cutechess: bool = False) -> MatchConfig:
    """The configuration of a new match from the settings of :func:`read_options`; with
    ``cutechess`` (:func:`cutechess_spelled`), what is not given takes cutechess-cli's
    counts (the demonstration keeps its own)."""
    engines: list[dict[str, str]] = settings.get("engines", [])
    each: dict[str, str] = settings.get("each", {})
    matched = {k: v for k, v in settings.items() if k not in NOT_FIELDS}
    if not engines:  # the demonstration
        engines = [{}, {}]
        if not any(k in each for k in ("tc", "st", "depth", "nodes")):
            each = {**DEMO_LIMITS, **each}
        matched.setdefault("games", DEMO_GAMES)
    elif cutechess:
        matched = {**CUTECHESS_DEFAULTS, **matched}
    if "tb_pieces" in settings and "tables" not in settings:
        raise ConfigError(
            "-tbpieces limits the endgame tables' adjudication: give the tables too "
            "(-tb DIR or --tables DIR)"
        )
    if len(engines) == 1:
        raise ConfigError("one --engine given: give at least two (or none for the demonstration)")
    configs = [engine_config(keys, settings.get("timeouts", Timeouts()), each) for keys in engines]
    names = _dedupe(
        [c.name for c in configs], [bool(keys.get("name") or each.get("name")) for keys in engines]
    )
    adjudication = Adjudication(
        settings.get("resign"),
        settings.get("draw"),
        settings.get("max_plies", Adjudication().max_plies),
        settings.get("tables"),  # an absolute path: a resume from elsewhere finds it
        settings.get("tb_pieces"),
    )
    return MatchConfig(
        engines=tuple(replace(c, name=n) for c, n in zip(configs, names)),
        variant=matched.pop("variant", variant_names()[0]),
        seed=matched.pop("seed") if "seed" in matched else secrets.randbelow(2**31),
        adjudication=adjudication,
        **matched,
    )


def engines_file() -> Path | None:
    """The ``engines.json`` that ``conf=`` names engines of: in the current directory, else
    in cutechess's configuration folder (None if neither exists)."""
    home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    for path in (Path(ENGINES_FILE), Path(home) / "cutechess" / ENGINES_FILE):
        if path.is_file():
            return path
    return None


def conf_keys(name: str) -> dict[str, str]:
    """The ``--engine`` keys of the engine ``name`` of ``engines.json``, in cutechess's format
    (a list of objects: ``name``, ``command``, ``workingDirectory``, ``protocol``,
    ``initStrings``, ``stderrFile``, ``restart``, ``whitepov``, ``ponder``, ``options``)."""
    path = engines_file()
    if path is None:
        raise ConfigError(
            f"--engine conf={shown(name, 300)}: no {ENGINES_FILE} here or in ~/.config/cutechess"
        )
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read(MAX_ENGINES_BYTES + 1).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ConfigError(f"{path}: cannot be read as JSON ({shown(str(exc), 200)})") from None
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise ConfigError(f"{path}: must be a list of engines (objects), as cutechess writes it")
    found = [e for e in data if e.get("name") == name]
    if not found:
        known = ", ".join(str(e.get("name")) for e in data)
        raise ConfigError(f"--engine conf={shown(name, 300)}: not in {path} (it has: {known})")
    entry = found[0]
    keys = {"name": name}
    plain = {"command": "cmd", "workingDirectory": "dir", "protocol": "proto",
             "stderrFile": "stderr", "restart": "restart"}  # fmt: skip
    for field_name, key in plain.items():
        value = entry.get(field_name)
        if isinstance(value, str) and value:
            keys[key] = value
    if entry.get("initStrings"):
        keys["initstr"] = "\\n".join(map(str, entry["initStrings"]))
    for flag in ENGINE_FLAGS:
        if entry.get(flag) is True:
            keys[flag] = ""
    for option in entry.get("options") or []:
        if isinstance(option, dict) and "name" in option:
            value = option.get("value", option.get("default"))
            if value is not None:
                keys[f"option.{option['name']}"] = (
                    str(value).lower() if isinstance(value, bool) else str(value)
                )
    return keys


#: An engines.json is a few kilobytes; reading is capped.
MAX_ENGINES_BYTES = 4 * 1024 * 1024


def engine_config(
    own: Mapping[str, str], defaults: Timeouts, each: Mapping[str, str] | None = None
) -> EngineConfig:
    """An engine from its ``--engine`` words and the ``--each`` words (``conf=`` first, then
    ``--each``, then its own: a later one wins); an error names the option its key came from."""
    each = _depth_of_plies(each or {}, "--each")
    own = _depth_of_plies(own, "--engine")
    conf = own.get("conf", each.get("conf"))
    base = conf_keys(conf) if conf else {}
    keys = {**base, **each, **own}
    if "arg" in each and "arg" in own:
        keys["arg"] = f"{each['arg']} {own['arg']}"
    keys.pop("conf", None)

    def origin(key: str | None) -> str:
        if key is not None and key in each and key not in own:
            return "--each"
        if key is not None and key in base and key not in own:
            return f"--engine conf={conf}"
        return f"--engine {shown(keys.get('name') or own.get('cmd') or '', 300)}".rstrip()

    unknown = [
        k
        for k in keys
        if k not in ENGINE_KEYS and not k.startswith("option.") and not k.startswith("timeout.")
    ]
    if unknown:
        key = unknown[0]
        if key in _CHESS_KEYS:
            raise ConfigError(f"{origin(key)}: {key}=: {_CHESS_KEYS[key]}")
        raise ConfigError(
            f"{origin(key)}: unknown key '{shown(key, 300)}' (keys: {', '.join(sorted(ENGINE_KEYS))}, "
            "option.NAME, timeout.start|ready|move|grace)"
        )
    for flag in ENGINE_FLAGS:
        if keys.get(flag):  # ponder=false would read as pondering: a flag takes no value
            raise ConfigError(
                f"{origin(flag)}: {flag}={shown(keys[flag], 300)}: {flag} stands alone, "
                "without a value (as cutechess-cli writes it)"
            )
    given = keys.get("cmd")
    # The option cmd= was written in (the engine has no name yet).
    written = origin("cmd").split(" ")[0] if "cmd" in own else origin("cmd")
    if given in (None, "", "zengine"):
        # The installation's own script, also when it is not on PATH.
        cmd = builtin_engine()
    else:
        # Checked before splitting, where a line break would pass for a space.
        plain_text(f"{written} cmd=", given)
        try:
            cmd = shlex.split(given)
        except ValueError as exc:
            raise ConfigError(f"{written} cmd={shown(given, 300)}: {exc}") from None
    if not cmd:
        raise ConfigError(f"{written}: empty cmd=")
    name = keys.get("name") or (
        Path(cmd[-1]).stem if cmd[0] == sys.executable else Path(cmd[0]).name
    )
    if "arg" in keys:
        cmd = [*cmd, *shlex.split(keys["arg"])]
    if "args" in keys:  # fastchess's: the arguments in one word, split as a shell would
        try:
            cmd = [*cmd, *shlex.split(keys["args"])]
        except ValueError as exc:
            raise ConfigError(f"{origin('args')}: args={shown(keys['args'], 300)}: {exc}") from None

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
            init_strings=tuple(
                line for line in keys.get("initstr", "").split("\\n") if line.strip()
            ),
            restart=_restart(keys.get("restart", "auto")),
            stderr_file=str(Path(keys["stderr"]).absolute()) if keys.get("stderr") else None,
            whitepov="whitepov" in keys,
            ponder="ponder" in keys,
        )
    except ConfigError as exc:
        text = str(exc)
        found = [k for k in sorted(keys, key=len, reverse=True) if text.startswith(f"{k}=")]
        culprit = found[0] if found else ("tc" if text.startswith("no limit") else None)
        raise ConfigError(f"{origin(culprit)}: {exc}") from None


def _depth_of_plies(keys: Mapping[str, str], option: str) -> Mapping[str, str]:
    """fastchess's ``plies=`` is ``depth=`` (both in one option: refused)."""
    if "plies" not in keys:
        return keys
    if "depth" in keys:
        raise ConfigError(f"{option}: plies= and depth= are one limit: give one")
    return {("depth" if k == "plies" else k): v for k, v in keys.items()}


def _restart(text: str) -> bool:
    """cutechess's ``restart=on|off|auto``: on = a new process for every game (auto, as the
    engine does not ask for one here, keeps it)."""
    word = text.lower()
    if word not in ("on", "off", "auto"):
        raise ConfigError(f"restart={shown(text, 300)}: must be on, off or auto")
    return word == "on"


def _proto(text: str) -> Proto:
    try:
        return Proto(text.lower())
    except ValueError:
        raise ConfigError(
            f"proto={shown(text, 300)}: must be uci or ugi (xboard is not spoken here)"
        ) from None


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
