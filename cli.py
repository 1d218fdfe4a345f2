"""The ``zengine`` command: the protocol with no arguments, tools as subcommands.

Subcommands are imported only when used (a registry of ``name -> "module:attribute"``), so
the protocol starts fast and a tool's imports never slow down another.

The group (:class:`CommandLine`) gives every subcommand, present and future, the same behaviour
at the command line, whatever the subcommand declares:

* ``-h`` and ``--help`` print the help;
* a bad command line is one line on stderr (``zengine perft: error: ...``) and exit code 2;
* integer parameters (``click.INT`` / ``click.IntRange``) read numbers as the protocol does:
  ASCII digits only, any length, one message stating the accepted range (:class:`Integer`);
* a negative number where an argument is expected is that argument (``zengine perft -1`` is a
  depth out of range, not an unknown option ``-1``);
* Ctrl-C ends the command with one line ``zengine ...: interrupted`` and exit code 130;
* a failure of the machine (a full disk) is one line and exit code 1.

:class:`Tool` gives the same to a command run on its own (``python -m zengine.tools.dev.openings``).
"""

from __future__ import annotations

import difflib
import errno
import importlib
import io
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import click

from zengine import DISTRIBUTION
from zengine.engine.text import shown
from zengine.engine.values import TextError, parse_int

#: Subcommand name -> ``module:click-command``; adding a tool is one line here.
SUBCOMMANDS: dict[str, str] = {
    "bench": "zengine.tools.engine_commands:bench_command",
    "gui": "zengine.tools.gui.server:gui_command",
    "match": "zengine.tools.referee.match:match_command",
    "perft": "zengine.tools.engine_commands:perft_command",
    "report": "zengine.tools.pictures.report:report_command",
    "strength": "zengine.tools.dev.strength:strength_command",
    "svg": "zengine.tools.pictures.svg:svg_command",
}

#: Exit code of a bad command line (click's, and the usual one for usage errors).
EXIT_USAGE = 2
#: Exit code after Ctrl-C: 128 + SIGINT, as a shell reports a process SIGINT ended.
EXIT_INTERRUPTED = 128 + signal.SIGINT


class Integer(click.IntRange):
    """An integer parameter read like every number in the protocol (``values.parse_int``).

    ASCII digits with an optional sign only (``int()`` would take Arabic-Indic or fullwidth
    digits), checked against the range before conversion however many digits there are.
    """

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        text = value if isinstance(value, str) else str(value)
        low = None if self.min is None else int(self.min) + (1 if self.min_open else 0)
        high = None if self.max is None else int(self.max) - (1 if self.max_open else 0)
        try:
            return parse_int(text, "", low, high)
        except TextError:
            raise click.UsageError(
                f"{_name(param)} must be an integer{_range_text(low, high)}, got '{shown(text)}'",
                ctx,
            ) from None


def _name(param: click.Parameter | None) -> str:
    """How an error names a parameter: ``depth`` for an argument, ``--jobs`` for an option."""
    if param is None:
        return "the value"
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return (param.name or "the value").replace("_", "-")


def _range_text(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" of {low} or more"
    return f" of {high} or less" if high is not None else ""


def adopt(command: click.Command) -> click.Command:
    """Give a loaded subcommand's integer parameters the protocol's reading of numbers."""
    for param in command.params:
        kind = param.type
        if isinstance(kind, click.types.IntParamType) and not isinstance(kind, Integer):
            if isinstance(kind, click.IntRange):
                if kind.clamp:  # a clamping range keeps click's meaning
                    continue
                param.type = Integer(kind.min, kind.max, kind.min_open, kind.max_open)
            else:
                param.type = Integer()
    return command


def arguments_first(command: click.Command, args: list[str], parent: click.Context) -> list[str]:
    """``args`` with negative numbers standing where arguments go read as arguments.

    Click takes every token starting with ``-`` for an option. When one is a number (``-1``),
    the options (with their values) are put first and the rest after ``--``, in the same
    order: the parse is the same, except that the number reaches its argument, whose type
    then states the range. Command lines without such a token are left as they are.
    """
    settings = command.context_settings
    if isinstance(command, click.Group) or settings.get("ignore_unknown_options"):
        return args
    interspersed = settings.get("allow_interspersed_args", command.allow_interspersed_args)
    takes: dict[str, int] = {}
    context = click.Context(command, parent=parent, **settings)
    for param in command.get_params(context):
        if isinstance(param, click.Option):
            values = 0 if param.is_flag or param.count else param.nargs
            for opt in (*param.opts, *param.secondary_opts):
                takes[opt] = values
    options: list[str] = []
    arguments: list[str] = []
    number_found = False
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if token == "--":
            arguments.extend(args[index:])
            break
        if len(token) > 1 and token[0] == "-" and token not in takes and token[1].isdecimal():
            arguments.append(token)
            number_found = True
        elif len(token) > 1 and token[0] == "-":
            # An unknown option stays among the options, for click to report.
            values = _values_after(token, takes) or 0
            options.extend(args[index - 1 : index + values])
            index += values
        else:
            arguments.append(token)
        if arguments and not interspersed:
            arguments.extend(args[index:])
            break
    return [*options, "--", *arguments] if number_found else args


def _values_after(token: str, takes: dict[str, int]) -> int | None:
    """How many following tokens an option token takes as values; None if it is unknown."""
    if token in takes:
        return takes[token]
    if token.startswith("--"):
        name, equals, _ = token.partition("=")
        return (0 if equals else takes[name]) if name in takes else None
    for position, letter in enumerate(token[1:], start=2):  # -abc: flags, maybe a value last
        values = takes.get("-" + letter)
        if values is None:
            return None
        if values:
            return 0 if token[position:] else values
    return 0


class Stopped(Exception):
    """A command stopped from outside, carried past click to be reported as one line.

    ``reason`` is None for Ctrl-C, else what the system refused (a full disk, no more
    processes): failures of the machine, never of the program, whose bugs keep their traceback.
    """

    def __init__(self, command_path: str, reason: str | None = None) -> None:
        super().__init__(command_path, reason)
        self.command_path = command_path
        self.reason = reason


class _Reported(click.Command):
    """The command line's behaviour, shared by :class:`CommandLine` and :class:`Tool`: errors
    and Ctrl-C reported as one line each (without click's usage block), the machine's failures
    as one line and exit code 1, and stand-ins for missing standard streams."""

    def where(self, ctx: click.Context) -> str:
        """What an error line names: the command running."""
        return ctx.command_path

    def default_name(self) -> str:
        """The program's name when click is given none."""
        return self.name or "zengine"

    def invoke(self, ctx: click.Context) -> Any:
        return _guarded(lambda: super(_Reported, self).invoke(ctx), lambda: self.where(ctx))

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command line; in standalone mode (the default) exit with its code."""
        prog_name = prog_name or self.default_name()
        standard_streams()
        run = super().main
        if not standalone_mode:
            return run(args, prog_name, complete_var, False, **extra)
        _reported(lambda: run(args, prog_name, complete_var, False, **extra), prog_name)


class CommandLine(_Reported, click.Group):
    """The ``zengine`` group: lazy subcommands and one behaviour at the command line for all."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        path = SUBCOMMANDS.get(name)
        if path is None:
            return None
        module, _, attr = path.partition(":")
        return adopt(getattr(importlib.import_module(module), attr))

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if name not in SUBCOMMANDS:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            known = f"did you mean '{close[0]}'?" if close else "see zengine --help"
            raise click.UsageError(f"no such command '{shown(name)}' ({known})", ctx)
        found, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            rest = arguments_first(command, rest, ctx)
        return found, command, rest

    def where(self, ctx: click.Context) -> str:
        return _running(ctx)  # the subcommand, once it runs

    def default_name(self) -> str:
        return "zengine"


class Tool(_Reported):
    """A command run on its own (``python -m zengine.tools.dev.openings``), given what
    :class:`CommandLine` gives the ``zengine`` subcommands: one line per error (exit 2), the
    protocol's reading of numbers, Ctrl-C as one line and exit code 130, a failure of the
    machine as one line and exit code 1. Used as ``@click.command(cls=Tool)``."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        adopt(self)
        return super().main(*args, **kwargs)


def _guarded(call: Callable[[], Any], where: Callable[[], str]) -> Any:
    """``call()`` (a command's work) with Ctrl-C and the machine's failures as :class:`Stopped`
    naming ``where()`` (asked afterwards: a group knows its subcommand once it runs).

    Caught inside click's own ``main``, which would otherwise turn Ctrl-C into ``Aborted!``
    and exit code 1, and print a traceback for a full disk.
    """
    try:
        return call()
    except KeyboardInterrupt:
        raise Stopped(where()) from None
    except click.UsageError as exc:
        if exc.ctx is None:
            # click's parser raises some (an option without its value) without the context,
            # and the line would name no subcommand.
            exc.ctx = click.Context(click.Command(None), info_name=where())
        raise
    except Exception as exc:
        if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
            raise  # the reader went away (| head): click ends quietly
        if _after_interrupt(exc):
            raise Stopped(where()) from None
        if isinstance(exc, OSError):
            raise Stopped(where(), exc.strerror or str(exc)) from None
        raise


def _reported(call: Callable[[], Any], prog_name: str) -> NoReturn:
    """Run ``call()`` (click's ``main`` outside standalone mode) and exit with its code, errors
    and Ctrl-C reported as one line each, without click's usage block."""
    try:
        code = call()
    except click.ClickException as exc:
        where = exc.ctx.command_path if isinstance(exc, click.UsageError) and exc.ctx else None
        fail(where or prog_name, exc.format_message(), exc.exit_code)
    except Stopped as exc:
        if exc.reason is None:
            interrupted(exc.command_path)
        _drop_output()
        fail(exc.command_path, exc.reason, 1)
    except (click.Abort, KeyboardInterrupt):
        interrupted(prog_name)
    except OSError as exc:
        # Output written while click parses, before any command runs (--help, --version), to
        # a stdout that is closed or full; click itself ends quietly only for a closed pipe.
        _drop_output()
        fail(prog_name, exc.strerror or str(exc), 1)
    sys.exit(code if isinstance(code, int) else 0)


#: Exit code of a command started without a standard stream it needs (``zengine >&-``): 1, as
#: cat's or echo's "write error: Bad file descriptor"; the command line itself is fine (2 would
#: send the user to the arguments).
EXIT_NO_STREAM = 1
#: What each standard stream is called in an error line.
_STREAM_TEXT = {"stdin": "standard input", "stdout": "standard output"}
#: The standard streams the command started without (see :func:`standard_streams`).
closed_streams: set[str] = set()


class _ClosedStream(io.RawIOBase):
    """Stands for a standard stream the command started without: reading or writing it is an
    ``OSError`` naming it, which the command line reports as one line (a full disk's way)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.what = _STREAM_TEXT[name]

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def _refuse(self) -> OSError:
        return OSError(errno.EBADF, f"{self.what} is closed")

    def readinto(self, buffer: Any) -> int:
        raise self._refuse()

    def write(self, data: Any) -> int:
        raise self._refuse()


def standard_streams() -> None:
    """Stand-ins for the standard streams the command started without (``zengine >&-``).

    Python leaves such a stream ``None``: click then drops all output silently, other code
    fails with a traceback. A missing stdin or stdout becomes a :class:`_ClosedStream`, so a
    command fails at its first use of it with one line (``svg -o FILE >&-`` still works); a
    missing stderr takes error lines nowhere, as it would have. Each missing descriptor is
    opened on the null device first: else the next file opened (a record, a log) would get
    its number, and output meant for the stream, a child's included, would land in that file.
    """
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if name == "stderr":
            sys.stderr = open(fd, "w", closefd=False)
        else:
            closed_streams.add(name)
            setattr(sys, name, io.TextIOWrapper(_ClosedStream(name), write_through=True))


def _after_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while Ctrl-C unwound the command.

    Ctrl-C lands between any two steps of Python code, so it can leave a half-made move
    whose undo (in a ``finally``) then fails: measured, 5 of 600 ``zengine bench`` runs
    interrupted at random moments ended in a ``KeyError`` from an undo. That error is the
    interrupt's, not a bug to show.
    """
    cause: BaseException | None = exc
    while cause is not None:  # Python keeps context chains free of cycles
        if isinstance(cause, KeyboardInterrupt):
            return True
        cause = cause.__context__
    return False


def _running(ctx: click.Context) -> str:
    """``zengine`` and the subcommand running, if any."""
    if ctx.invoked_subcommand:
        return f"{ctx.command_path} {ctx.invoked_subcommand}"
    return ctx.command_path


def _drop_output() -> None:
    """Point stdout at nothing: output it could not take must not fail again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def fail(where: str, message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Write ``<where>: error: <message>`` as one line on stderr and exit with ``code``."""
    line = " ".join(part.strip() for part in message.splitlines() if part.strip()).rstrip(".")
    if line[1:2].islower():  # click's sentences start upper-case; ours do not
        line = line[0].lower() + line[1:]
    click.echo(f"{where}: error: {line}", err=True)
    sys.exit(code)


def interrupted(where: str) -> NoReturn:
    """After Ctrl-C: one line on stderr, exit code 130; a second Ctrl-C changes nothing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # At a terminal the line would follow the echoed ^C.
    start = "\n" if sys.stderr.isatty() else ""
    try:
        sys.stderr.write(f"{start}{where}: interrupted\n")
        sys.stderr.flush()
    except OSError:
        pass
    sys.exit(EXIT_INTERRUPTED)


@click.group(
    cls=CommandLine,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name=DISTRIBUTION, prog_name="zengine")
@click.pass_context
def main(ctx: click.Context) -> None:
    """zengine: an engine for Zola and Zhadu.

    With no subcommand, speaks the engine protocol on stdin/stdout (see docs/protocol.md).
    Ctrl-C stops any command (exit code 130); a bad command line exits with code 2.
    """
    if ctx.invoked_subcommand is None:
        # The protocol reads and writes from the start: one line now rather than at its
        # first write (where its writer would take the error for a reader gone, and end quietly).
        for name in ("stdin", "stdout"):
            if name in closed_streams:
                fail(ctx.command_path, f"{_STREAM_TEXT[name]} is closed", EXIT_NO_STREAM)
        from zengine.protocol.loop import run

        ctx.exit(run())
