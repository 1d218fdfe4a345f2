"""Outside text made safe to show: the one place for it.

Text from users, files and engines reaches error lines, protocol replies, terminals, records
and pages. Each helper here answers one need:

* :func:`shown`: a value quoted in an error message, control characters escaped, cut short;
* :func:`printable`: an engine's words in a reason or message, control characters as ``?``
  (an escape sequence must not act on the user's terminal);
* :func:`one_line`: text inside one protocol reply line, single-spaced and bounded;
* :func:`quoted`: an engine's line quoted in a reason, with its length when cut;
* :func:`clipped`: a long command the referee wrote, cut for a reason that gives its size itself;
* :func:`json_quoted`: a key or value of a JSON file in a message, spelled as the file has it;
* :func:`writable`: text for a record line (PGN), with what no line can carry replaced.
"""

from __future__ import annotations

import json
import unicodedata

#: What replaces a character a record line cannot carry.
REPLACEMENT = "\ufffd"
#: Characters no record line may hold (they would break the line or the token): control
#: characters, line and paragraph separators, lone surrogates (unwritable as UTF-8).
_UNWRITABLE = frozenset({"Cc", "Cs", "Zl", "Zp"})


def shown(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for an error message, control characters escaped.
    A limit of 300 keeps a path or a command whole (the referee's configuration errors)."""
    cut = text if len(text) <= limit else text[: limit - 3] + "..."
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)


def printable(text: str) -> str:
    """``text`` with every character that is not printable (a control character such as ESC
    or NUL, a line separator) replaced by ``?``."""
    if text.isprintable():  # the usual case, at once
        return text
    return "".join(c if c.isprintable() else "?" for c in text)


def one_line(text: str, limit: int = 200) -> str:
    """Text safe inside one reply line: printable, single-spaced, not too long."""
    text = printable(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def quoted(text: str, limit: int = 120) -> str:
    """A line quoted in a reason: stripped, printable, and cut with its length if long."""
    text = printable(text.strip())
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def clipped(text: str) -> str:
    """A long line cut to its start and an ellipsis (past 60 characters), control characters
    as ``?``: for a command the referee wrote, quoted in a reason that gives its size in bytes
    itself (``'position ...' (5000 bytes) not taken``). An engine's own line is :func:`quoted`,
    which adds its length."""
    text = printable(text)
    return text if len(text) <= 60 else f"{text[:40]}..."


def json_quoted(text: str) -> str:
    """A string read from a JSON file (``config.json``) for a message: in double quotes and
    escaped as JSON writes it (a line break cannot start a line), cut to 80 characters."""
    return json.dumps(text[:80])


def writable(text: str) -> str:
    """``text`` with every character a record line cannot carry replaced by U+FFFD."""
    if text.isprintable() and text.isascii():  # the usual case, at once
        return text
    return "".join(REPLACEMENT if unicodedata.category(c) in _UNWRITABLE else c for c in text)
