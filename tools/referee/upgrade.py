"""A match folder of an earlier version, read in today's form, so that ``--resume`` takes it.

:func:`upgraded` turns an earlier ``config.json`` into today's shape before
:mod:`tools.referee.datajson` reads it (:meth:`MatchConfig.from_json`); :func:`drop_later_defaults`
leaves the settings added since out of the games' digest (:meth:`MatchConfig.games_digest`) at
their defaults, so that the digest an earlier version kept still matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Settings added after digests were first kept (cutechess's -repeat, -noswap, -reverse,
#: -site; initstr=, whitepov, ponder): at these values they are left out of the digest, so that a
#: folder of an earlier version, which has none of them, still resumes.
LATER_MATCH: dict[str, Any] = {"repeat": 2, "swap": True, "reverse": False, "site": "?"}
LATER_ENGINE: dict[str, Any] = {"initstr": [], "whitepov": False, "ponder": False}


def drop_later_defaults(shaping: dict[str, Any]) -> None:
    """The settings of :data:`LATER_MATCH` and :data:`LATER_ENGINE` left out of ``shaping``
    (the JSON a games' digest is made from) where they have the value an earlier version,
    which did not have them, played with."""
    _drop(shaping, LATER_MATCH)
    for engine in shaping["engines"]:
        _drop(engine, LATER_ENGINE)


def _drop(data: dict[str, Any], later: Mapping[str, Any]) -> None:
    for key, value in later.items():
        if key in data and data[key] == value:
            del data[key]


def upgraded(data: Any) -> Any:
    """config.json as earlier versions wrote it, in today's form: the timeouts once for the
    whole match (each engine has its own now), an openings' ``plies`` and ``start`` as text."""
    if not isinstance(data, Mapping):
        return data
    data = dict(data)
    shared = data.pop("timeout", None)
    engines = data.get("engines")
    if isinstance(engines, list):
        data["engines"] = [_engine_upgraded(e, shared) for e in engines]
    openings = data.get("openings")
    if isinstance(openings, Mapping):
        data["openings"] = {
            k: int(v) if k in ("plies", "start") and _digits(v) else v for k, v in openings.items()
        }
    return data


def _engine_upgraded(engine: Any, shared: Any) -> Any:
    """An engine with no timeouts of its own takes the match's (none: the defaults)."""
    if not isinstance(engine, Mapping) or engine.get("timeout") is not None:
        return engine
    rest = {k: v for k, v in engine.items() if k != "timeout"}
    return rest if shared is None else {**rest, "timeout": shared}


def _digits(value: Any) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10
