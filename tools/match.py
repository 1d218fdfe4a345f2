"""``zengine match``: engine-vs-engine matches and tournaments (the referee).

Arguments follow cutechess-cli (see :mod:`tools.config`). With no engine, the built-in engine
plays itself: a short demonstration on the first variant. The configuration and the seed are
stored in the output directory; the schedule is a pure function of them, so ``zengine match
--resume DIR`` plays exactly the games still missing. See docs/referee.md.

The referee's parts: :mod:`tools.config` (the command line as dataclasses), :mod:`tools.runner`
(the coordinator), :mod:`tools.play` (one scheduled game, the worker's side),
:mod:`tools.referee` (one game between two processes), :mod:`tools.records`,
:mod:`tools.tally` and :mod:`tools.summary` (records and statistics), :mod:`tools.live`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zengine.engine.variants import variant_names
from zengine.tools.config import (
    ConfigError,
    parse_command_line,
    parse_concurrency,
    split_options,
)
from zengine.tools.live import LiveOutput, print_line
from zengine.tools.runner import (
    ExitReason,
    Match,
    RunResult,
    new_out_dir,
    read_config,
    write_config,
)

if TYPE_CHECKING:
    from zengine.tools.cluster import ClusterExecutor


def run_match(
    args: list[str], emit: Callable[[str], None] = print_line, progress: bool | None = None
) -> RunResult:
    """Parse, set up the output directory (or resume one), and play. Raises ConfigError.

    With ``--cluster`` the games are played on a Dask cluster (:mod:`tools.cluster`, imported
    only then), connected before the output directory is made."""
    options = split_options(args)
    resume = [words for name, words in options if name == "resume"]
    clusters = [words[0] for name, words in options if name == "cluster"]
    if resume:
        extra = [name for name, _ in options if name not in ("resume", "concurrency", "cluster")]
        if extra:
            raise ConfigError(f"--resume takes the stored configuration; drop --{extra[0]}")
        out_dir = Path(resume[0][0])
        config = read_config(out_dir)
        for name, words in options:
            if name == "concurrency":
                config = replace(config, concurrency=parse_concurrency(words[0]))
    else:
        config = parse_command_line(args)
    executor: ClusterExecutor | None = None
    if clusters:
        from zengine.tools.cluster import connect, parse_cluster

        executor = connect(parse_cluster(clusters[-1]))
    try:
        if not resume:
            out_dir = new_out_dir(config.out)
            config = replace(config, out=str(out_dir))
            write_config(config, out_dir)
        match = Match(config, out_dir, LiveOutput(emit, progress), executor)
        engines = ", ".join(f"{e.describe()} [{e.limits.text()}]" for e in config.engines)
        emit(f"Match: {engines}")
        kind = config.tournament.value if len(config.engines) > 2 else "match"
        where = f"concurrency {config.concurrency}" if executor is None else "on a cluster"
        emit(
            f"Variant {match.rules.describe()}, {len(match.games)} games ({kind}, "
            f"{config.rounds} round(s) x {config.games} games per encounter), openings {config.openings.text()}, "
            f"{where}"
        )
        if executor is not None:
            emit(executor.describe())
        emit(f"Seed {config.seed}; output in {out_dir}")
        result = match.run()
        if executor is not None and (line := executor.report()) is not None:
            emit(line)
        return result
    finally:
        if executor is not None:
            executor.close()


HELP = """Play engine-vs-engine matches and tournaments (cutechess-cli style options).

\b
--engine key=value...   an engine (repeat): cmd= name= proto=uci|ugi option.NAME=V
                        tc=[moves/]base[+inc] st=S depth=N nodes=N timemargin=MS dir=
                        timeout.start=S timeout.ready=S timeout.move=S timeout.grace=S
--each key=value...     keys for every engine
--variant V             {variants}   --rule KEY=VALUE...
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
--timeout start=S ready=S move=S grace=S   uciok, readyok, untimed move, clock grace
--out DIR | --resume DIR   --event NAME   --debug (traffic.log)
--cluster tcp://HOST:PORT | local:N   play the games on a Dask cluster (one game
                        per worker thread; needs pip install 'zengine[cluster]')

With no --engine, the built-in engine plays itself: a short demonstration on {first}.

\b
Exit codes:
{exits}
"""


def _help() -> str:
    names = variant_names()
    exits = "\n".join(f"  {reason.code:<4} {reason.meaning}" for reason in ExitReason)
    return HELP.format(variants=" ".join(names), first=names[0], exits=exits)


@click.command(
    "match",
    help=_help(),
    context_settings={
        "ignore_unknown_options": True,
        "allow_interspersed_args": False,
        "help_option_names": ["-h", "--help"],
    },
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def match_command(args: tuple[str, ...]) -> None:
    try:
        result = run_match(list(args))
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(ExitReason.USAGE.code)
    except KeyboardInterrupt:
        sys.exit(ExitReason.INTERRUPTED.code)
    sys.exit(result.exit_code)
