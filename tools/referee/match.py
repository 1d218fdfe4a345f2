"""``zengine match``: engine-vs-engine matches and tournaments (the referee).

Arguments follow cutechess-cli (see :mod:`tools.referee.options`). With no engine, the built-in
engine plays itself: a short demonstration on the first variant. The configuration and the seed
are stored in the output directory; the schedule is a pure function of them, so ``zengine match
--resume DIR`` plays exactly the games still missing. See docs/referee.md.

The referee's parts: :mod:`tools.referee.options` (the command line, one table) and
:mod:`tools.referee.config` (the settings as dataclasses), :mod:`tools.referee.folder` (the
output folder: its files, lock, checks and ``config.json``), :mod:`tools.referee.runner` (the
coordinator), :mod:`tools.referee.play` (one scheduled game, the worker's side),
:mod:`tools.referee.game` (one game between two processes), :mod:`tools.referee.records`,
:mod:`tools.referee.tally` and :mod:`tools.referee.summary` (records and statistics),
:mod:`tools.referee.live`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zengine.cli import fail
from zengine.engine.text import shown
from zengine.engine.variants import variant_names
from zengine.tools.referee.config import ConfigError, MatchConfig, OpeningsKind
from zengine.tools.referee.folder import (
    CONFIG_FILE,
    FolderLock,
    check_not_foreign,
    check_unused,
    new_out_dir,
    read_config,
    write_config,
)
from zengine.tools.referee.live import LiveOutput, print_line
from zengine.tools.referee.options import (
    NOT_FIELDS,
    config_of,
    cutechess_spelled,
    help_lines,
    read_options,
    resume_settings,
    split_options,
)
from zengine.tools.referee.process_tree import autogroups_on, run_in_own_session
from zengine.tools.referee.programs import check_commands
from zengine.tools.referee.runner import ExitReason, Match, RunResult
from zengine.tools.referee.schedule import OpeningError, match_schedule, openings_digest

if TYPE_CHECKING:
    from zengine.tools.referee.cluster import ClusterExecutor


class SetupWriteError(Exception):
    """The output folder could not be written before the first game (a full disk): one line,
    the exit code of :attr:`ExitReason.WRITE_FAILED`."""


def run_match(
    args: list[str], emit: Callable[[str], None] = print_line, progress: bool | None = None
) -> RunResult:
    """Parse, set up the output directory (or resume one), and play.

    Everything is checked before anything is played: the command line or ``config.json``,
    that the engines' programs exist (on this machine; with ``--cluster`` they are found on
    the workers), the openings, the folder (locked for this run: a second referee in the same
    folder is refused). With ``--cluster`` the games are played on a Dask cluster
    (:mod:`tools.referee.cluster`, imported only then), connected before the output directory is made.
    Raises ConfigError for any of it, SetupWriteError when the folder cannot be written."""
    options = split_options(args)
    resumed = resume_settings(options)
    settings = read_options(options) if resumed is None else resumed
    cluster: str | None = settings.get("cluster")
    executor: ClusterExecutor | None = None
    lock: FolderLock | None = None
    try:
        if resumed is not None:
            out_dir = Path(resumed["resume"])
            if not out_dir.is_dir():
                # A file there is not "missing": say what it is not.
                what = "not a folder" if out_dir.exists() else "no such folder"
                raise ConfigError(f"--resume {shown(str(out_dir), 300)}: {what}")
            executor = _connect(cluster)
            lock = FolderLock(out_dir)
            config = read_config(out_dir)
            _check_settings_unchanged(config, out_dir)
            config = replace(config, **{k: v for k, v in resumed.items() if k not in NOT_FIELDS})
            if executor is None:  # on a cluster, commands are the workers' (docs/referee.md)
                config = config.in_start_dir()
                check_commands(config.engines)
            _check_openings_unchanged(config)
        else:
            config = config_of(settings, cutechess_spelled(args))
            if cluster is None:
                check_commands(config.engines)
            config = _check_openings(config)  # before the folder is made
            executor = _connect(cluster)
            out_dir = new_out_dir(config.out)
            check_not_foreign(out_dir)
            lock = FolderLock(out_dir)
            check_unused(out_dir)
            config = replace(
                config,
                out=str(out_dir),
                start_dir=_current_dir(),
                digest=config.games_digest(),
            )
            try:
                write_config(config, out_dir)
            except OSError as exc:
                raise SetupWriteError(
                    f"cannot write {out_dir / CONFIG_FILE}: {exc.strerror or exc}"
                ) from None
        match = Match(config, out_dir, LiveOutput(emit, progress), executor)
        say = match.output.emit  # guarded by the match: a closed output stops it quietly
        engines = ", ".join(f"{e.describe()} [{e.limits.text()}]" for e in config.engines)
        say(f"Match: {engines}")
        kind = config.tournament.value if len(config.engines) > 2 else "match"
        where = f"concurrency {config.concurrency}" if executor is None else "on a cluster"
        say(
            f"Variant {match.rules.describe()}, {len(match.games)} games ({kind}, "
            f"{config.rounds} round(s) x {config.games} games per encounter), openings "
            f"{config.openings.text()}, {where}"
        )
        if executor is not None:
            say(executor.describe())
        say(f"Seed {config.seed}; output in {out_dir}")
        result = match.run()
        if executor is not None and (line := executor.report()) is not None:
            say(line)
        return result
    finally:
        if lock is not None:
            lock.release()
        if executor is not None:
            executor.close()


def _current_dir() -> str | None:
    """The current directory, kept for a resume from elsewhere (None if it was removed)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _connect(cluster: str | None) -> ClusterExecutor | None:
    """The cluster of ``--cluster`` (the last one given), or None to play on this machine."""
    if cluster is None:
        return None
    from zengine.tools.referee.cluster import connect, parse_cluster

    return connect(parse_cluster(cluster))


def _check_openings(config: MatchConfig) -> MatchConfig:
    """The configuration with its openings checked, and an openings file's digest kept."""
    openings = config.openings
    try:
        if openings.kind is OpeningsKind.FILE and openings.file is not None:
            digest = openings_digest(openings.file)
            config = replace(config, openings=replace(openings, digest=digest))
        match_schedule(config, config.make_rules())
    except OpeningError as exc:
        raise ConfigError(f"--openings: {exc}") from None
    return config


def _check_settings_unchanged(config: MatchConfig, out_dir: Path) -> None:
    """On ``--resume``: config.json holds the settings the folder's games were played with
    (an edited variant or seed would play the rest of the match as another one, splitting
    pairs). Only those that shape the games count (:meth:`MatchConfig.games_digest`); a
    folder of an earlier version kept no digest (its records are checked by the runner)."""
    if config.digest is not None and config.digest != config.games_digest():
        raise ConfigError(
            f"--resume {shown(str(out_dir), 300)}: {CONFIG_FILE} changed since the match "
            "started: its games were played with other settings (restore it, or start a "
            "new match)"
        )


def _check_openings_unchanged(config: MatchConfig) -> None:
    """On ``--resume``: the openings file is the one the match started with (the schedule is
    a function of its lines: an edited file would split pairs and replay other openings).
    Not checked for a folder of an earlier version, which kept no digest."""
    openings = config.openings
    if openings.kind is not OpeningsKind.FILE or openings.file is None or openings.digest is None:
        return
    try:
        digest = openings_digest(openings.file)
    except OpeningError as exc:
        raise ConfigError(f"--openings: {exc}") from None
    if digest != openings.digest:
        raise ConfigError(
            f"openings file {shown(openings.file, 300)} changed since the match started; "
            f"restore it (sha256 {openings.digest}) or start a new match"
        )


HELP = """Play engine-vs-engine matches and tournaments (cutechess-cli style options).

\b
{options}

With no --engine, the built-in engine plays itself: a short demonstration on {first}.

\b
Exit codes:
{exits}
"""


def _help() -> str:
    names = variant_names()
    exits = "\n".join(f"  {reason.code:<4} {reason.meaning}" for reason in ExitReason)
    return HELP.format(options=help_lines(names), first=names[0], exits=exits)


@click.command(
    "match",
    help=_help(),
    add_help_option=False,  # -h is read with the options: `--resume -hdir` is a folder
    context_settings={
        "ignore_unknown_options": True,
        "allow_interspersed_args": False,
    },
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def match_command(ctx: click.Context, args: tuple[str, ...]) -> None:
    if _own_session_wanted():
        sys.exit(
            run_in_own_session([sys.executable, "-m", "zengine", "match", *args], _child_env())
        )
    where = ctx.command_path
    try:
        if any(option is None for option, _ in split_options(list(args))):
            click.echo(ctx.get_help())
            return
        result = run_match(list(args))
    except ConfigError as exc:
        fail(where, str(exc), ExitReason.USAGE.code)
    except SetupWriteError as exc:
        fail(where, str(exc), ExitReason.WRITE_FAILED.code)
    except KeyboardInterrupt:
        sys.exit(ExitReason.INTERRUPTED.code)
    finally:
        _settle_stdout()
    if result.reason is ExitReason.WRITE_FAILED and result.output_lost:
        # stdout itself failed (closed, or on a full disk): its Stopped line reached nobody.
        fail(where, str(result.summary.get("stopped") or result.reason.meaning), result.exit_code)
    sys.exit(result.exit_code)


#: Set in the environment of the referee re-run in a session of its own (it must not re-run).
CHILD_VARIABLE = "ZENGINE_MATCH_CHILD"
#: Set to 1 to keep the referee in the caller's session.
SAME_SESSION_VARIABLE = "ZENGINE_MATCH_SAME_SESSION"


def _own_session_wanted() -> bool:
    """Whether ``zengine match`` re-runs itself in a session of its own (and waits for it).

    Why: Linux schedules by session (``sched_autogroup``): everything started from the user's
    shell shares one group of processor time with the referee, while each engine runs in a
    session of its own. Measured beside two busy loops started from the same shell, at
    ``st=0.1`` the engines kept to their time but the referee read their ``bestmove`` late
    (p99 100 ms, max 171 ms) and games were lost on time; with the referee in its own session
    its wait per move fell from p50 15 / p99 49 ms to 3 / 13 ms. Re-measured here (100 games,
    load average 11-13): the delay from the engine's ``bestmove`` to the referee's read fell
    from p50 7.4 / p99 51 / max 178 ms to 0.3 / 8.8 / 31 ms, time losses from 43 to 1.
    Not when autogroups are off or absent (it would not help), when this process already leads
    its session, when the output is not this process's own file descriptors (a caller that
    captured ``sys.stdout``: a child could not write there), with no interpreter to re-run
    (embedded), or when asked not to."""
    if os.environ.pop(CHILD_VARIABLE, None) is not None:  # the child: engines need not see it
        return False
    if os.environ.get(SAME_SESSION_VARIABLE, "") not in ("", "0"):
        return False
    if (
        not sys.executable
        or sys.stdout is None
        or sys.stdout is not sys.__stdout__
        or sys.stderr is not sys.__stderr__
    ):
        return False
    return autogroups_on() and os.getsid(0) != os.getpid()


def _child_env() -> dict[str, str]:
    return {**os.environ, CHILD_VARIABLE: "1"}


def _settle_stdout() -> None:
    """If stdout was closed (``| head``), point it at nothing: the lines still buffered must
    not fail again, with a traceback, when the interpreter flushes them at exit."""
    try:
        sys.stdout.flush()
    except OSError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
