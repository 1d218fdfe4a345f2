"""The line protocol and the command line of zengine."""

from __future__ import annotations

import sys


def main() -> None:
    """The ``zengine`` command: a Ctrl-C while the program is still loading ends it quietly
    (exit 130) instead of with an import traceback; after that, the command line handles it."""
    try:
        from zengine.protocol.cli import main as command_line
    except KeyboardInterrupt:
        sys.stderr.write("zengine: interrupted\n")
        sys.exit(130)
    command_line(prog_name="zengine")
