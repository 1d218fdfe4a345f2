"""The ``zengine`` command: the protocol with no arguments, tools as subcommands.

Subcommands are imported only when used (a registry of ``name -> "module:attribute"``), so
the protocol starts fast and a tool's imports never slow down another.
"""

from __future__ import annotations

import importlib

import click

#: Subcommand name -> ``module:click-command``; adding a tool is one line here.
SUBCOMMANDS: dict[str, str] = {
    "bench": "zengine.engine.bench:bench_command",
    "match": "zengine.tools.match:match_command",
    "perft": "zengine.engine.perft:perft_command",
    "report": "zengine.tools.report:report_command",
    "strength": "zengine.tools.strength:strength_command",
    "svg": "zengine.tools.svg:svg_command",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are loaded on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        path = SUBCOMMANDS.get(name)
        if path is None:
            return None
        module, _, attr = path.partition(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup, invoke_without_command=True)
@click.version_option(package_name="zengine", prog_name="zengine")
@click.pass_context
def main(ctx: click.Context) -> None:
    """zengine: an engine for Zola and Zhadu.

    With no subcommand, speaks the engine protocol on stdin/stdout (see docs/protocol.md).
    """
    if ctx.invoked_subcommand is None:
        from zengine.protocol.loop import run

        ctx.exit(run())
