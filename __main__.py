"""The ``zengine`` command (also ``python -m zengine``): the protocol with no arguments, the
tools as subcommands (:mod:`zengine.cli`)."""

from __future__ import annotations

import sys


def main() -> None:
    """Run the command line; a Ctrl-C while the program is still loading ends it quietly
    (exit 130) instead of with an import traceback, after that the command line handles it."""
    try:
        from zengine.cli import main as command_line
    except KeyboardInterrupt:
        sys.stderr.write("zengine: interrupted\n")
        sys.exit(130)
    command_line(prog_name="zengine")


if __name__ == "__main__":
    main()
