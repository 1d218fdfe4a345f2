"""``zengine match``: engine-vs-engine matches and tournaments (the referee).

Arguments follow cutechess-cli: options take ``key=value`` words up to the next option::

    zengine match --engine cmd=zengine name=A depth=3 --engine cmd=zengine name=B depth=2 \\
        --each proto=uci tc=10+0.1 --variant zhadu --rule quiet=50 --games 20 --concurrency 2 \\
        --openings random plies=4 --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05

With no engine, the built-in engine plays itself: a short demonstration on ``zola``. The
configuration and the seed are stored in the output directory; the schedule is a pure
function of them, so ``zengine match --resume DIR`` plays exactly the games still missing.
See docs/referee.md.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from zengine.engine.game import GameError, Rules
from zengine.engine.variants import make_rules, variant_names
from zengine.tools import stats
from zengine.tools.engine_process import EngineError, EngineProcess, EngineSpec
from zengine.tools.records import append_game, read_games, rewrite_games
from zengine.tools.referee import (
    DISCONNECT,
    STALL,
    Adjudication,
    GameOutcome,
    Player,
    Timeouts,
    play_game,
)
from zengine.tools.schedule import Opening, OpeningError, ScheduledGame, openings_for, schedule
from zengine.tools.tc import Limits, TimeControl, TimeControlError

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
PGN_FILE = "games.pgn"
SUMMARY_FILE = "summary.json"
STDERR_FILE = "engines-stderr.log"
TRAFFIC_FILE = "traffic.log"

#: The demonstration: the built-in engine against itself when no engine is given.
DEMO_GAMES = 4
DEMO_LIMITS = {"tc": "2+0.05"}

ENGINE_KEYS = {"cmd", "name", "proto", "tc", "st", "depth", "nodes", "timemargin", "dir"}

# Exit codes.
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_ENGINE_FAILURE = 3
EXIT_REFEREE_ERROR = 1
EXIT_INTERRUPTED = 130


class ConfigError(ValueError):
    """A bad command line or configuration: reported as one line, nothing is played."""


# --- the command line ---------------------------------------------------------------------------

# option -> number of value words: None = any number of words (up to the next option)
OPTIONS: dict[str, int | None] = {
    "engine": None,
    "each": None,
    "variant": 1,
    "rule": None,
    "games": 1,
    "rounds": 1,
    "tournament": 1,
    "concurrency": 1,
    "openings": None,
    "seed": 1,
    "maxplies": 1,
    "resign": None,
    "draw": None,
    "sprt": None,
    "recover": 0,
    "out": 1,
    "resume": 1,
    "timeout": None,
    "event": 1,
    "debug": 0,
}


def split_options(args: list[str]) -> list[tuple[str, list[str]]]:
    """``--opt word word --opt2 ...`` -> ``[(opt, words)]`` (``-opt`` works too, as in cutechess)."""
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(args):
        token = args[i]
        if not token.startswith("-") or token in ("-", "--"):
            raise ConfigError(f"unexpected argument '{token}' (options start with --)")
        name = token.lstrip("-").lower()
        if name not in OPTIONS:
            raise ConfigError(
                f"unknown option '{token}' (known: {', '.join('--' + o for o in OPTIONS)})"
            )
        arity = OPTIONS[name]
        i += 1
        words: list[str] = []
        while i < len(args) and (arity is None or len(words) < arity):
            if args[i].startswith("--") or (arity is None and _is_option(args[i])):
                break
            words.append(args[i])
            i += 1
        if arity is not None and len(words) != arity:
            raise ConfigError(f"--{name} needs {arity} value{'s' if arity > 1 else ''}")
        out.append((name, words))
    return out


def _is_option(token: str) -> bool:
    return token.startswith("-") and token.lstrip("-").lower() in OPTIONS


def key_values(option: str, words: list[str], bare: tuple[str, ...] = ()) -> dict[str, str]:
    """``key=value`` words as a dict; words listed in ``bare`` may stand alone (value "")."""
    out: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            if word.lower() in bare:
                out[word.lower()] = ""
                continue
            raise ConfigError(f"--{option}: '{word}' is not key=value")
        if not key:
            raise ConfigError(f"--{option}: '{word}' has no key")
        out[key if key.startswith("option.") else key.lower()] = value
    return out


def _int(option: str, text: str, low: int = 0, high: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"--{option}: '{text}' is not a whole number") from None
    if value < low or (high is not None and value > high):
        raise ConfigError(
            f"--{option}: {value} out of range ({low}..{high if high is not None else ''})"
        )
    return value


def _float(option: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"--{option}: '{text}' is not a number") from None


def builtin_engine() -> list[str]:
    """The command of the built-in engine: the ``zengine`` script of this installation."""
    beside = Path(sys.executable).with_name("zengine")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("zengine")
    if found:
        return [found]
    return [sys.executable, "-m", "zengine"]


def parse_command_line(args: list[str]) -> dict[str, Any]:
    """The command line as a JSON-able configuration (validated; the seed is drawn if absent)."""
    engines: list[dict[str, str]] = []
    each: dict[str, str] = {}
    cfg: dict[str, Any] = {
        "variant": variant_names()[0],
        "rules": {},
        "games": None,
        "rounds": 1,
        "tournament": "round-robin",
        "concurrency": 1,
        "openings": None,
        "seed": None,
        "maxplies": 1000,
        "resign": None,
        "draw": None,
        "sprt": None,
        "recover": False,
        "out": None,
        "timeout": {"start": 10.0, "move": 60.0, "grace": 1.0},
        "event": "zengine match",
        "debug": False,
    }
    for name, words in split_options(args):
        if name == "engine":
            engines.append(key_values(name, words))
        elif name == "each":
            each.update(key_values(name, words))
        elif name == "variant":
            cfg["variant"] = words[0]
        elif name == "rule":
            cfg["rules"].update({k.lower(): v for k, v in key_values(name, words).items()})
        elif name in ("games", "rounds"):
            cfg[name] = _int(name, words[0], 1)
        elif name == "concurrency":
            cfg[name] = _int(name, words[0], 1, 64)
        elif name == "seed" or name == "maxplies":
            cfg[name] = _int(name, words[0], 0)
        elif name == "tournament":
            if words[0] not in ("round-robin", "gauntlet"):
                raise ConfigError("--tournament must be round-robin or gauntlet")
            cfg[name] = words[0]
        elif name == "openings":
            cfg["openings"] = _openings_setting(words)
        elif name == "resign":
            kv = key_values(name, words)
            cfg["resign"] = {
                "movecount": _int("resign", kv.get("movecount", "3"), 1),
                "score": _int("resign", kv.get("score", "1000"), 0),
                "twosided": kv.get("twosided", "false").lower() in ("true", "1", "yes"),
            }
            _no_extra(name, kv, {"movecount", "score", "twosided"})
        elif name == "draw":
            kv = key_values(name, words)
            cfg["draw"] = {
                "movenumber": _int("draw", kv.get("movenumber", "40"), 0),
                "movecount": _int("draw", kv.get("movecount", "8"), 1),
                "score": _int("draw", kv.get("score", "10"), 0),
            }
            _no_extra(name, kv, {"movenumber", "movecount", "score"})
        elif name == "sprt":
            kv = key_values(name, words)
            _no_extra(name, kv, {"elo0", "elo1", "alpha", "beta"})
            sprt = {
                k: _float("sprt", kv.get(k, d))
                for k, d in (("elo0", "0"), ("elo1", "5"), ("alpha", "0.05"), ("beta", "0.05"))
            }
            if not (0 < sprt["alpha"] < 1 and 0 < sprt["beta"] < 1) or sprt["elo1"] <= sprt["elo0"]:
                raise ConfigError("--sprt: need 0 < alpha, beta < 1 and elo1 > elo0")
            cfg["sprt"] = sprt
        elif name == "timeout":
            kv = key_values(name, words)
            _no_extra(name, kv, {"start", "move", "grace"})
            for key, value in kv.items():
                cfg["timeout"][key] = _float("timeout", value)
        elif name in ("recover", "debug"):
            cfg[name] = True
        elif name in ("out", "event"):
            cfg[name] = words[0]
        elif name == "resume":
            raise ConfigError("--resume DIR takes no other option except --concurrency")

    demo = not engines
    if demo:
        engines = [{}, {}]
        if not any(k in each for k in ("tc", "st", "depth", "nodes")):
            each = {**DEMO_LIMITS, **each}
        if cfg["games"] is None:
            cfg["games"] = DEMO_GAMES
    if len(engines) == 1:
        raise ConfigError("one --engine given: give at least two (or none for the demonstration)")
    if cfg["games"] is None:
        cfg["games"] = 2
    if cfg["openings"] is None:
        cfg["openings"] = {"kind": "random", "plies": "4"}
    if cfg["seed"] is None:
        cfg["seed"] = secrets.randbelow(2**31)
    cfg["engines"] = [_engine_config({**each, **e}, i) for i, e in enumerate(engines)]
    _dedupe_names(cfg["engines"])
    if cfg["sprt"] is not None and len(cfg["engines"]) != 2:
        raise ConfigError("--sprt needs exactly two engines")
    validate(cfg)
    return cfg


def _no_extra(option: str, kv: dict[str, str], allowed: set[str]) -> None:
    extra = set(kv) - allowed
    if extra:
        raise ConfigError(
            f"--{option}: unknown key{'s' if len(extra) > 1 else ''} {', '.join(sorted(extra))} "
            f"(keys: {', '.join(sorted(allowed))})"
        )


def _openings_setting(words: list[str]) -> dict[str, str]:
    kv = key_values("openings", words, bare=("random", "none", "startpos"))
    _no_extra("openings", kv, {"random", "none", "startpos", "file", "plies", "order", "start"})
    if "file" in kv:
        setting = {"kind": "file", "file": os.path.abspath(kv["file"])}
        if kv.get("order", "sequential") not in ("sequential", "random"):
            raise ConfigError("--openings order= must be sequential or random")
        setting["order"] = kv.get("order", "sequential")
        setting["start"] = str(_int("openings", kv.get("start", "1"), 1))
        return setting
    if "none" in kv or "startpos" in kv:
        return {"kind": "none"}
    return {"kind": "random", "plies": str(_int("openings", kv.get("plies", "4"), 0, 1000))}


def _engine_config(kv: dict[str, str], index: int) -> dict[str, Any]:
    unknown = [k for k in kv if k not in ENGINE_KEYS and not k.startswith("option.")]
    if unknown:
        raise ConfigError(
            f"--engine: unknown key '{unknown[0]}' (keys: {', '.join(sorted(ENGINE_KEYS))}, option.NAME)"
        )
    cmd = shlex.split(kv["cmd"]) if kv.get("cmd") else builtin_engine()
    if not cmd:
        raise ConfigError("--engine: empty cmd=")
    if kv.get("cmd") in ("zengine",):
        cmd = builtin_engine()  # the installation's own script, also when not on PATH
    proto = kv.get("proto", "uci").lower()
    if proto not in ("uci", "ugi"):
        raise ConfigError(f"--engine: proto must be uci or ugi, not '{proto}'")
    name = kv.get("name") or (Path(cmd[-1]).stem if cmd[0] == sys.executable else Path(cmd[0]).name)
    return {
        "name": name,
        "cmd": cmd,
        "proto": proto,
        "options": {k[len("option.") :]: v for k, v in kv.items() if k.startswith("option.")},
        "dir": kv.get("dir"),
        "limits": {k: kv[k] for k in ("tc", "st", "depth", "nodes", "timemargin") if k in kv},
    }


def _dedupe_names(engines: list[dict[str, Any]]) -> None:
    counts = Counter(e["name"] for e in engines)
    seen: Counter[str] = Counter()
    for e in engines:
        if counts[e["name"]] > 1:
            seen[e["name"]] += 1
            e["name"] = f"{e['name']}-{seen[e['name']]}"


def limits_of(raw: dict[str, str]) -> Limits:
    """An engine's limits from its ``tc st depth nodes timemargin`` keys (seconds / ms)."""
    try:
        tc = None if raw.get("tc") in (None, "inf", "infinite") else TimeControl.parse(raw["tc"])
        st = round(float(raw["st"]) * 1000) if "st" in raw else None
        depth = int(raw["depth"]) if "depth" in raw else None
        nodes = int(raw["nodes"]) if "nodes" in raw else None
        margin = int(raw.get("timemargin", "0"))
    except (TimeControlError, ValueError) as exc:
        raise ConfigError(f"--engine: bad limit: {exc}") from None
    if (
        (st is not None and st <= 0)
        or (depth is not None and depth <= 0)
        or (nodes is not None and nodes <= 0)
        or margin < 0
    ):
        raise ConfigError("--engine: st, depth and nodes must be positive, timemargin not negative")
    limits = Limits(tc, st, depth, nodes, margin)
    try:
        limits.validate()
    except ValueError as exc:
        raise ConfigError(f"--engine: {exc}") from None
    return limits


def validate(cfg: dict[str, Any]) -> Rules:
    """Check everything a match needs before any process starts; returns the rules."""
    try:
        rules = make_rules(cfg["variant"], cfg["rules"])
    except GameError as exc:
        raise ConfigError(
            f"--variant/--rule: {exc} (variants: {', '.join(variant_names())})"
        ) from None
    for engine in cfg["engines"]:
        limits_of(engine["limits"])
    return rules


# --- records and statistics ---------------------------------------------------------------------


def engine_stats(records: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    """Per engine: games, points, W/D/L overall and per colour."""
    out = []
    for index, name in enumerate(names):
        per_side = []
        for side, key in ((0, "p1_index"), (1, "p2_index")):
            scores = [stats.game_score(r["result"], side) for r in records if r[key] == index]
            per_side.append(stats.wdl_of_scores(scores))
        total = per_side[0] + per_side[1]
        out.append(
            {
                "name": name,
                "games": total.games,
                "points": total.points,
                "wins": total.wins,
                "draws": total.draws,
                "losses": total.losses,
                "as_p1": _wdl_dict(per_side[0]),
                "as_p2": _wdl_dict(per_side[1]),
            }
        )
    return out


def _wdl_dict(wdl: stats.WDL) -> dict[str, int]:
    return {"wins": wdl.wins, "draws": wdl.draws, "losses": wdl.losses}


def encounter_stats(records: list[dict[str, Any]], a: int, b: int) -> dict[str, Any]:
    """Engine ``a`` against ``b``: W/D/L and the pentanomial of complete pairs, from a's view."""
    games = [r for r in records if {r["p1_index"], r["p2_index"]} == {a, b}]
    scores = [stats.game_score(r["result"], 0 if r["p1_index"] == a else 1) for r in games]
    wdl = stats.wdl_of_scores(scores)
    by_pair: dict[tuple[int, int], list[float]] = {}
    for record, score in zip(games, scores):
        by_pair.setdefault((record["round"], record["pair"]), []).append(score)
    penta = stats.pentanomial((p[0], p[1]) for p in by_pair.values() if len(p) == 2)
    estimate = stats.elo_estimate(penta)
    result: dict[str, Any] = {
        "a": a,
        "b": b,
        "games": len(games),
        "wins": wdl.wins,
        "draws": wdl.draws,
        "losses": wdl.losses,
        "points": wdl.points,
        "pentanomial": penta,
    }
    if estimate is not None:
        result.update(
            elo=_finite(estimate.elo),
            elo_low=_finite(estimate.low),
            elo_high=_finite(estimate.high),
            los=estimate.los,
        )
    return result


def _finite(x: float) -> float | str:
    return x if abs(x) != float("inf") else stats.format_elo(x)


def sprt_state(records: list[dict[str, Any]], sprt: dict[str, float]) -> stats.SprtState:
    """The SPRT of engine 0 against engine 1 on complete pairs."""
    penta = encounter_stats(records, 0, 1)["pentanomial"]
    return stats.sprt(penta, sprt["elo0"], sprt["elo1"], sprt["alpha"], sprt["beta"])


def summary(
    cfg: dict[str, Any], records: list[dict[str, Any]], scheduled: int, extra: dict[str, Any]
) -> dict[str, Any]:
    """Everything the final table shows, as JSON-able data."""
    names = [e["name"] for e in cfg["engines"]]
    pairs = sorted({tuple(sorted((r["p1_index"], r["p2_index"]))) for r in records})
    out: dict[str, Any] = {
        "variant": cfg["variant"],
        "rules": cfg["rules"],
        "seed": cfg["seed"],
        "games_scheduled": scheduled,
        "games_played": len(records),
        "engines": engine_stats(records, names),
        "encounters": [encounter_stats(records, a, b) for a, b in pairs],
        "terminations": dict(Counter(r["termination"] for r in records)),
    }
    overheads = [
        (r["overhead_ms"], r["overhead_moves"]) for r in records if r.get("overhead_moves")
    ]
    moves = sum(n for _, n in overheads)
    if moves:
        out["referee_overhead_ms"] = {
            "mean": sum(m * n for m, n in overheads) / moves,
            "moves": moves,
            "max_game_mean": max(m for m, _ in overheads),
        }
    if cfg.get("sprt"):
        state = sprt_state(records, cfg["sprt"])
        out["sprt"] = {
            **cfg["sprt"],
            "llr": state.llr,
            "lower": state.lower,
            "upper": state.upper,
            "verdict": state.verdict,
        }
    out.update(extra)
    return out


def summary_text(data: dict[str, Any]) -> str:
    """The final table for people."""
    lines = [
        f"Variant {data['variant']}{' ' + str(data['rules']) if data['rules'] else ''}, seed {data['seed']}: "
        f"{data['games_played']} of {data['games_scheduled']} games"
    ]
    width = max(6, max(len(e["name"]) for e in data["engines"])) + 2
    lines.append(
        f"{'Engine':<{width}}{'Games':>6}{'Points':>8}  {'W-D-L':<12}{'as P1 W-D-L':<13}{'as P2 W-D-L'}"
    )
    ranked = sorted(data["engines"], key=lambda e: -e["points"])
    for e in ranked:
        p1, p2 = e["as_p1"], e["as_p2"]
        wdl = f"{e['wins']}-{e['draws']}-{e['losses']}"
        wdl1 = f"{p1['wins']}-{p1['draws']}-{p1['losses']}"
        wdl2 = f"{p2['wins']}-{p2['draws']}-{p2['losses']}"
        lines.append(
            f"{e['name']:<{width}}{e['games']:>6}{e['points']:>8.1f}  {wdl:<12}{wdl1:<13}{wdl2}"
        )
    names = [e["name"] for e in data["engines"]]
    if len(names) > 2:
        lines.append("")
        lines.append("Cross table (points of the row engine against the column engine):")
        short = [n[:8] for n in names]
        lines.append(" " * width + " ".join(f"{s:>8}" for s in short))
        table = {(enc["a"], enc["b"]): enc for enc in data["encounters"]}
        for i, name in enumerate(names):
            cells = []
            for j in range(len(names)):
                if i == j:
                    cells.append(f"{'-':>8}")
                elif (min(i, j), max(i, j)) in table:
                    enc = table[(min(i, j), max(i, j))]
                    pts = enc["points"] if i < j else enc["games"] - enc["points"]
                    cell = f"{pts:.1f}/{enc['games']}"
                    cells.append(f"{cell:>8}")
                else:
                    cells.append(f"{'':>8}")
            lines.append(f"{name:<{width}}" + " ".join(cells))
    for enc in data["encounters"]:
        a, b = names[enc["a"]], names[enc["b"]]
        text = (
            f"{a} vs {b}: {enc['wins']}-{enc['draws']}-{enc['losses']} (W-D-L of {a}), "
            f"pairs [0, 1/2, 1, 3/2, 2] = {enc['pentanomial']}"
        )
        if "elo" in enc:

            def fmt(x: Any) -> str:
                return x if isinstance(x, str) else f"{round(x, 1) + 0.0:+.1f}"  # no "-0.0"

            text += (
                f"\n  Elo {fmt(enc['elo'])} (95%: {fmt(enc['elo_low'])} .. {fmt(enc['elo_high'])}), "
                f"LOS {enc['los'] * 100:.1f}%"
            )
        lines.append(text)
    if "sprt" in data:
        s = data["sprt"]
        verdict = {"H1": "H1 accepted (elo1)", "H0": "H0 accepted (elo0)", None: "undecided"}[
            s["verdict"]
        ]
        lines.append(
            f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g} alpha={s['alpha']:g} beta={s['beta']:g}: "
            f"LLR {s['llr']:.2f} ({s['lower']:.2f}, {s['upper']:.2f}) {verdict}"
        )
    lines.append(
        "Terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(data["terminations"].items()))
    )
    if "referee_overhead_ms" in data:
        o = data["referee_overhead_ms"]
        lines.append(
            f"Referee overhead per move (bestmove read -> next go written): {o['mean']:.3f} ms "
            f"mean over {o['moves']} moves"
        )
    if "games_per_minute" in data:
        lines.append(
            f"This run: {data['games_this_run']} games in {data['wall_s']:.1f} s, "
            f"{data['games_per_minute']:.1f} games/min at concurrency {data['concurrency']}"
        )
    if data.get("stopped"):
        lines.append(f"Stopped: {data['stopped']}")
    return "\n".join(lines)


# --- the match ----------------------------------------------------------------------------------


def _print(line: str) -> None:
    print(line, flush=True)  # live lines must not wait in a pipe's buffer


@dataclass
class RunResult:
    exit_code: int
    summary: dict[str, Any]


class Match:
    """A configured match with its output directory: plays the games still missing."""

    def __init__(
        self,
        cfg: dict[str, Any],
        out_dir: Path,
        emit: Callable[[str], None] = _print,
        progress: bool | None = None,
    ) -> None:
        self.cfg = cfg
        self.out_dir = out_dir
        self.emit = emit
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.rules = validate(cfg)
        self.names = [e["name"] for e in cfg["engines"]]
        self.specs = [
            EngineSpec(e["name"], e["cmd"], e["proto"], e["options"], e["dir"])
            for e in cfg["engines"]
        ]
        self.limits = [limits_of(e["limits"]) for e in cfg["engines"]]
        self.games = schedule(len(self.specs), cfg["tournament"], cfg["rounds"], cfg["games"])
        count = max(g.opening_index for g in self.games) + 1
        try:
            self.openings: list[Opening] = openings_for(
                self.rules, cfg["openings"], count, cfg["seed"]
            )
        except (OpeningError, GameError) as exc:
            raise ConfigError(f"--openings: {exc}") from None
        adj = cfg.get("resign") or {}
        draw = cfg.get("draw") or {}
        self.adjudication = Adjudication(
            resign_movecount=adj.get("movecount", 0),
            resign_score=adj.get("score", 0),
            resign_twosided=adj.get("twosided", False),
            draw_movenumber=draw.get("movenumber", 0),
            draw_movecount=draw.get("movecount", 0),
            draw_score=draw.get("score", 0),
            max_plies=cfg["maxplies"],
        )
        t = cfg["timeout"]
        self.timeouts = Timeouts(start=t["start"], move=t["move"], grace=t["grace"])
        self.jsonl = str(out_dir / GAMES_FILE)
        self.pgn = str(out_dir / PGN_FILE)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.aborting = False
        self.stopped: str | None = None
        self.live: set[EngineProcess] = set()
        self.records: list[dict[str, Any]] = []
        self.played_now = 0
        self._traffic = (
            open(out_dir / TRAFFIC_FILE, "a", encoding="utf-8") if cfg.get("debug") else None
        )
        self._stderr = open(out_dir / STDERR_FILE, "ab")

    # --- output ----------------------------------------------------------------------------
    def _log(self, line: str) -> None:
        if self._traffic is not None:
            with self.lock:
                self._traffic.write(f"{time.monotonic():.6f} {line}\n")
                self._traffic.flush()

    def _score_line(self) -> str:
        points = {n: 0.0 for n in self.names}
        for r in self.records:
            for side, key in ((0, "p1"), (1, "p2")):
                points[r[key]] += stats.game_score(r["result"], side)
        if len(self.names) == 2:
            a, b = self.names
            return f"{a} {points[a]:g} - {points[b]:g} {b}"
        return ", ".join(f"{n} {p:g}" for n, p in sorted(points.items(), key=lambda kv: -kv[1]))

    def _bar(self) -> None:
        if not self.progress:
            return
        done, total = len(self.records), len(self.games)
        filled = int(30 * done / total) if total else 30
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total}  {self._score_line()}\033[K"
        )
        sys.stderr.flush()

    def _say(self, text: str) -> None:
        if self.progress:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
        self.emit(text)
        self._bar()

    # --- running ---------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Play the missing games; returns the exit code and the summary (also written)."""
        done = read_games(self.jsonl)
        valid_ids = {g.id for g in self.games}
        self.records = [r for r in done if r["id"] in valid_ids]
        # Rebuild both files from the complete records: drops a truncated last line and any
        # PGN text of a game whose JSON line was lost, so appends continue cleanly.
        rewrite_games(self.jsonl, self.pgn, self.records)
        finished = {r["id"] for r in self.records}
        pending = [g for g in self.games if g.id not in finished]
        if self.records:
            self.emit(f"Resuming: {len(self.records)} games already played, {len(pending)} to play")
        if self.cfg.get("sprt"):
            state = sprt_state(self.records, self.cfg["sprt"])
            if state.verdict:
                self.stopped = f"SPRT decided ({state.verdict}) before this run"
                pending = []
        started = time.monotonic()
        queue_lock = threading.Lock()
        todo = list(reversed(pending))

        def next_game() -> ScheduledGame | None:
            with queue_lock:
                if self.stop.is_set() or not todo:
                    return None
                return todo.pop()

        workers = [
            threading.Thread(target=self._worker, args=(next_game,), name=f"game-{i}", daemon=True)
            for i in range(min(self.cfg["concurrency"], max(len(pending), 1)))
        ]
        self._bar()
        exit_code = EXIT_OK
        previous = {}
        try:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                try:
                    previous[sig] = signal.signal(sig, _raise_interrupt)
                except ValueError:  # not the main thread (tests): leave signals alone
                    pass
            for w in workers:
                w.start()
            while any(w.is_alive() for w in workers):
                for w in workers:
                    w.join(timeout=0.1)
        except KeyboardInterrupt:
            exit_code = EXIT_INTERRUPTED
            self._interrupt(workers)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if exit_code == EXIT_OK and self.stopped and self.stopped.startswith("engine failure"):
            exit_code = EXIT_ENGINE_FAILURE
        elif exit_code == EXIT_OK and self.stopped and self.stopped.startswith("referee error"):
            exit_code = EXIT_REFEREE_ERROR
        wall = time.monotonic() - started
        extra: dict[str, Any] = {
            "concurrency": self.cfg["concurrency"],
            "games_this_run": self.played_now,
            "wall_s": wall,
            "stopped": self.stopped,
        }
        if self.played_now and wall > 0:
            extra["games_per_minute"] = self.played_now * 60 / wall
        data = summary(
            self.cfg, sorted(self.records, key=lambda r: r["id"]), len(self.games), extra
        )
        tmp = self.out_dir / (SUMMARY_FILE + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.out_dir / SUMMARY_FILE)
        if self.progress:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
        self.emit("")
        self.emit(summary_text(data))
        if exit_code == EXIT_INTERRUPTED:
            self.emit(
                f"Interrupted: {len(self.records)} games kept. Resume with: zengine match --resume {self.out_dir}"
            )
        self._stderr.close()
        if self._traffic is not None:
            self._traffic.close()
        return RunResult(exit_code, data)

    def _interrupt(self, workers: list[threading.Thread]) -> None:
        """Ctrl-C: discard the games in progress, kill every engine, reap, keep finished games."""
        # A second Ctrl-C during the cleanup must not leave processes behind.
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            with self.lock:
                self.aborting = True
                self.stop.set()
                self.stopped = "interrupted"
                live = list(self.live)
            # quit, SIGTERM, SIGKILL of the group, for all engines at once (a short grace:
            # the games in progress are discarded anyway).
            closers = [
                threading.Thread(target=engine.close, args=(0.3,), daemon=True) for engine in live
            ]
            for closer in closers:
                closer.start()
            for closer in closers:
                closer.join(timeout=10)
            for w in workers:
                w.join(timeout=10)
        finally:
            signal.signal(signal.SIGINT, old)

    def _start_engine(self, index: int) -> EngineProcess:
        engine = EngineProcess(
            self.specs[index], stderr=self._stderr, log=self._log if self._traffic else None
        )
        with self.lock:
            if self.aborting:
                engine.kill()
                raise EngineError("disconnect", "interrupted")
            self.live.add(engine)
        try:
            engine.handshake(self.timeouts.start)
        except EngineError:
            self._retire(engine, grace=0.2)
            raise
        return engine

    def _retire(self, engine: EngineProcess, grace: float = 1.0) -> None:
        """Stop an engine for good. A failed one gets a short grace: it already did not answer."""
        with self.lock:
            self.live.discard(engine)
        engine.close(grace)

    def _worker(self, next_game: Callable[[], ScheduledGame | None]) -> None:
        engines: dict[int, EngineProcess] = {}
        try:
            while True:
                game = next_game()
                if game is None:
                    return
                self._play(game, engines)
        except Exception as exc:  # a referee bug: stop the match, keep what was played
            traceback.print_exc(file=sys.stderr)
            with self.lock:
                self.stopped = f"referee error: {exc!r}"
                self.stop.set()
        finally:
            for engine in engines.values():
                self._retire(engine)

    def _play(self, game: ScheduledGame, engines: dict[int, EngineProcess]) -> None:
        sides = (game.p1, game.p2)
        opening = self.openings[game.opening_index]
        outcome = None
        for side, index in enumerate(sides):
            if index in engines:
                continue
            try:
                engines[index] = self._start_engine(index)
            except EngineError as exc:
                if self.aborting:
                    return
                outcome = GameOutcome(
                    "0-1" if side == 0 else "1-0",
                    STALL if exc.kind == "stall" else DISCONNECT,
                    f"{exc} (at start)",
                    failed=[side],
                )
                outcome.start_fen = (
                    self.rules.parse_position(opening.fen) if opening.fen else self.rules.start()
                ).position_text()
                outcome.final_fen = opening.state(self.rules).position_text()
                break
        if outcome is None:
            players = (
                Player(engines[game.p1], self.limits[game.p1], game.p1),
                Player(engines[game.p2], self.limits[game.p2], game.p2),
            )
            outcome = play_game(
                self.rules,
                opening,
                players,
                self.adjudication,
                self.timeouts,
                (self.names[game.p1], self.names[game.p2]),
            )
        if self.aborting:
            return
        failure = None
        for side in outcome.failed:
            index = sides[side]
            engine = engines.get(index)
            if engine is not None and self._resync(engine):
                continue
            if engine is not None:
                engines.pop(index)
                self._retire(engine, grace=0.2)
            failure = f"engine failure: {outcome.reason}"
        record = self._record(game, opening, outcome)
        with self.lock:
            if self.aborting:
                return
            append_game(self.jsonl, self.pgn, record)
            self.records.append(record)
            self.played_now += 1
            if failure and not self.cfg["recover"]:
                if not self.stop.is_set():
                    self.stopped = (
                        f"{failure} (without --recover the match stops; resume with --resume)"
                    )
                self.stop.set()
            line = self._game_line(record)
            sprt = self.cfg.get("sprt")
            verdict = None
            if sprt:
                state = sprt_state(self.records, sprt)
                line += f"  LLR {state.llr:.2f} ({state.lower:.2f}, {state.upper:.2f})"
                if state.verdict and not self.stop.is_set():
                    verdict = state.verdict
                    self.stopped = f"SPRT decided: {state.verdict} accepted"
                    self.stop.set()
            self._say(line)
            if verdict:
                self._say(f"SPRT: {verdict} accepted, stopping the match")

    def _resync(self, engine: EngineProcess) -> bool:
        """After a stall: ``stop`` + ``isready``; a live, answering engine keeps playing."""
        if not engine.alive():
            return False
        try:
            engine.send("stop")
            engine.sync(self.timeouts.start)
            return True
        except EngineError:
            return False

    def _record(self, game: ScheduledGame, opening: Opening, outcome) -> dict[str, Any]:
        overhead = outcome.overhead_s
        return {
            "id": game.id,
            "round": game.round,
            "pair": game.pair,
            "encounter": list(game.encounter),
            "opening_index": game.opening_index,
            "event": self.cfg["event"],
            "date": datetime.now(UTC).strftime("%Y.%m.%d"),
            "variant": self.rules.describe(),
            "variant_name": self.rules.name,
            "p1": self.names[game.p1],
            "p2": self.names[game.p2],
            "p1_index": game.p1,
            "p2_index": game.p2,
            "result": outcome.result,
            "termination": outcome.termination,
            "reason": outcome.reason,
            "opening": opening.text(),
            "opening_moves": list(opening.moves),
            "start_fen": outcome.start_fen,
            "final_fen": outcome.final_fen,
            "start_side": self._start_side(opening),
            "moves": outcome.moves,
            "times_ms": outcome.times_ms,
            "scores": outcome.scores,
            "depths": outcome.depths,
            "time_control": (
                self.limits[game.p1].text()
                if self.limits[game.p1] == self.limits[game.p2]
                else f"{self.limits[game.p1].text()} : {self.limits[game.p2].text()}"
            ),
            "overhead_ms": (sum(overhead) / len(overhead) * 1000) if overhead else 0.0,
            "overhead_moves": len(overhead),
        }

    def _start_side(self, opening: Opening) -> int:
        state = self.rules.parse_position(opening.fen) if opening.fen else self.rules.start()
        return state.side_to_move

    def _game_line(self, r: dict[str, Any]) -> str:
        done, total = len(self.records), len(self.games)
        return (
            f"[{done:>{len(str(total))}}/{total}] game {r['id'] + 1}: {r['p1']} vs {r['p2']}: {r['result']} "
            f"({r['termination']}: {r['reason']}), {len(r['moves'])} plies  | {self._score_line()}"
        )


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def new_out_dir(base: str | None) -> Path:
    """``--out DIR`` (created), or a new ``./matches/<UTC timestamp>`` directory."""
    if base:
        path = Path(base)
        if (path / GAMES_FILE).exists() and read_games(str(path / GAMES_FILE)):
            raise ConfigError(
                f"--out {base}: it already holds games; use --resume {base} to continue it"
            )
        path.mkdir(parents=True, exist_ok=True)
        return path
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    root = Path("matches")
    for n in range(1000):
        path = root / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
    raise ConfigError("cannot create an output directory under ./matches")


def run_match(
    args: list[str], emit: Callable[[str], None] = _print, progress: bool | None = None
) -> RunResult:
    """Parse, set up the output directory (or resume one), and play. Raises ConfigError."""
    options = split_options(args)
    resume = [w for n, w in options if n == "resume"]
    if resume:
        extra = [n for n, _ in options if n not in ("resume", "concurrency")]
        if extra:
            raise ConfigError(f"--resume takes the stored configuration; drop --{extra[0]}")
        out_dir = Path(resume[0][0])
        try:
            cfg = json.loads((out_dir / CONFIG_FILE).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"--resume {out_dir}: no readable {CONFIG_FILE} ({exc})") from None
        for n, w in options:
            if n == "concurrency":
                cfg["concurrency"] = _int("concurrency", w[0], 1, 64)
        validate(cfg)
    else:
        cfg = parse_command_line(args)
        out_dir = new_out_dir(cfg["out"])
        cfg["out"] = str(out_dir)
        tmp = out_dir / (CONFIG_FILE + ".tmp")
        tmp.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, out_dir / CONFIG_FILE)
    match = Match(cfg, out_dir, emit=emit, progress=progress)
    engines = ", ".join(
        f"{s.describe()} [{lim.text()}]" for s, lim in zip(match.specs, match.limits)
    )
    emit(f"Match: {engines}")
    emit(
        f"Variant {match.rules.describe()}, {len(match.games)} games ({cfg['tournament'] if len(match.specs) > 2 else 'match'}, "
        f"{cfg['rounds']} round(s) x {cfg['games']} games per encounter), openings {_openings_text(cfg['openings'])}, "
        f"concurrency {cfg['concurrency']}"
    )
    emit(f"Seed {cfg['seed']}; output in {out_dir}")
    return match.run()


def _openings_text(setting: dict[str, str]) -> str:
    if setting["kind"] == "random":
        return f"random plies={setting['plies']}"
    if setting["kind"] == "file":
        return f"file={setting['file']} order={setting['order']}"
    return "none (start position)"


@click.command(
    "match",
    context_settings={
        "ignore_unknown_options": True,
        "allow_interspersed_args": False,
        "help_option_names": ["-h", "--help"],
    },
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def match_command(args: tuple[str, ...]) -> None:
    """Play engine-vs-engine matches and tournaments (cutechess-cli style options).

    \b
    --engine key=value...   an engine (repeat): cmd= name= proto=uci|ugi option.NAME=V
                            tc=[moves/]base[+inc] st=S depth=N nodes=N timemargin=MS dir=
    --each key=value...     keys for every engine
    --variant V             zola zola-8 zola-10 zhadu zhadu-star   --rule KEY=VALUE...
    --games N --rounds N    games per encounter per round (pairs, colours swapped)
    --tournament T          round-robin (default) or gauntlet (first engine vs the others)
    --concurrency N         games at once, each with its own engine processes
    --openings random plies=N | file=PATH [order=sequential|random] [start=K] | none
    --seed N                the schedule's seed (drawn and printed if absent)
    --maxplies N            draw after N plies (default 1000, 0 = off)
    --resign movecount=N score=CP [twosided=true]
    --draw movenumber=N movecount=N score=CP
    --sprt elo0=E0 elo1=E1 alpha=A beta=B   stop when decided (two engines)
    --recover               restart a crashed engine and go on
    --timeout start=S move=S grace=S        handshake, untimed move, clock grace
    --out DIR | --resume DIR   --event NAME   --debug (traffic.log)

    With no --engine, the built-in engine plays itself: a short demonstration on zola.
    """
    try:
        result = run_match(list(args))
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(result.exit_code)
