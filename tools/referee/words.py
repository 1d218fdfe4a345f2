"""Reading the words people write, for the referee's configuration: numbers with their range
and unit, ``key=value`` words, text that must hold no control character.

Every number of the command line and of config.json is read here, and every message says the
same thing: the option as written, then what it must be, with its unit and range, e.g.
``st=inf: must be a finite number of seconds from 0.001 to 86400``.
"""

from __future__ import annotations

import math
import re
import shlex
import unicodedata
from collections.abc import Mapping

from zengine.engine.text import shown
from zengine.engine.values import TextError, parse_int


class ConfigError(ValueError):
    """A bad command line or configuration: reported as one line, nothing is played."""


def as_written(what: str, text: str) -> str:
    """``st=`` + ``inf`` -> ``st=inf``; ``--games`` + ``x`` -> ``--games x`` (text made safe to
    print: control characters escaped, cut if very long)."""
    space = what.startswith("--") and not what.endswith(("=", "."))
    return f"{what}{' ' if space else ''}{shown(text, 300)}"


def read_int(what: str, text: str, low: int, high: int, unit: str = "") -> int:
    """``text`` as an integer in ``low..high``; ConfigError naming ``what`` otherwise."""
    try:
        return parse_int(text.strip(), what, low, high)
    except TextError:
        raise ConfigError(
            f"{as_written(what, text)}: must be a whole number{unit} from {low} to {high}"
        ) from None


_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def read_seconds(what: str, text: str, low: float, high: float) -> float:
    """A plain decimal number of seconds in ``low..high`` (no sign, exponent, ``inf``, ``nan``)."""
    stripped = text.strip()
    if (
        len(stripped) > 24  # longer is out of range or a needless precision; cheap to refuse
        or _DECIMAL.fullmatch(stripped) is None
        or not low <= float(stripped) <= high
    ):
        raise ConfigError(
            f"{as_written(what, text)}: must be a finite number of seconds from {low:g} to {high:g}"
        )
    return float(stripped)


def read_real(what: str, text: str, low: float, high: float, open_ends: bool = False) -> float:
    """A finite real number in ``low..high`` (between them if ``open_ends``); a sign and an
    exponent are fine."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    inside = low < value < high if open_ends else low <= value <= high
    if not inside:  # also nan and the infinities
        where = f"between {low:g} and {high:g}" if open_ends else f"from {low:g} to {high:g}"
        raise ConfigError(f"{as_written(what, text)}: must be a finite number {where}")
    return value


def utf8_text(what: str, text: str) -> str:
    """``text`` if it is UTF-8 text: bytes of argv that are not come as surrogate escapes,
    which no record, report or pipe can be written with. ConfigError naming ``what`` otherwise."""
    if any(unicodedata.category(char) == "Cs" for char in text):
        raise ConfigError(
            f"{as_written(what, text)}: must be UTF-8 text (it holds bytes that are not)"
        )
    return text


def plain_text(what: str, text: str) -> str:
    """``text`` if it holds no control character (a line break, an escape): names, the event,
    option names and values and commands end up in PGN tags and protocol lines, where a line
    break would inject a line of its own; and if it is UTF-8 text (:func:`utf8_text`).
    ConfigError naming ``what`` otherwise."""
    for char in utf8_text(what, text):
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            raise ConfigError(
                f"{as_written(what, text)}: must hold no control character "
                f"(it has U+{ord(char):04X})"
            )
    return text


def within_range(what: str, value: int, low: int, high: int, unit: str = "") -> None:
    """The range check of a whole number already read (a dataclass field, from config.json)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(
            f"{as_written(what, str(value))}: must be a whole number{unit} from {low} to {high}"
        )


def read_bool(what: str, text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise ConfigError(f"{as_written(what, text)}: must be true or false")


def key_values(
    option: str,
    words: list[str],
    bare: tuple[str, ...] = (),
    positional: str | None = None,
    many: tuple[str, ...] = (),
) -> dict[str, str]:
    """``key=value`` words as a dict; words listed in ``bare`` may stand alone (value "");
    with ``positional``, the first word may be that key's value without ``key=`` (cutechess's
    ``-pgnout FILE``). A key given twice is refused (which one was meant is not ours to guess),
    except the keys of ``many``, whose values are collected as one shell-quoted text."""
    out: dict[str, str] = {}
    for number, word in enumerate(words):
        key, sep, value = word.partition("=")
        if not sep:
            if word.lower() in bare:
                key, value = word.lower(), ""
            elif positional is not None and number == 0:
                key, value = positional, word
            else:
                raise ConfigError(f"--{option}: '{shown(word, 300)}' is not key=value")
        if not key:
            raise ConfigError(f"--{option}: '{shown(word, 300)}' has no key")
        key = key if key.startswith("option.") else key.lower()
        if key in many:
            out[key] = shlex.join([*shlex.split(out.get(key, "")), value])
            continue
        if key in out:
            raise ConfigError(f"--{option}: {shown(key, 300)} is given twice (give it once)")
        out[key] = value
    return out


def no_extra(option: str, kv: Mapping[str, str], allowed: set[str]) -> None:
    """ConfigError naming the keys of ``kv`` that ``--option`` does not have."""
    extra = set(kv) - allowed
    if extra:
        raise ConfigError(
            f"--{option}: unknown key{'s' if len(extra) > 1 else ''} "
            f"{', '.join(shown(k, 300) for k in sorted(extra))} "
            f"(keys: {', '.join(sorted(allowed))})"
        )


def ms_text(ms: int) -> str:
    """Milliseconds as exact seconds text: ``1500`` -> ``1.5``, ``1234567`` -> ``1234.567``."""
    whole, frac = divmod(ms, 1000)
    return f"{whole}.{frac:03d}".rstrip("0").rstrip(".") if frac else str(whole)
