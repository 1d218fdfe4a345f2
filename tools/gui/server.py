"""``zengine gui``: the local web server, its security, and the command line.

One page (``page/``: plain HTML, a JavaScript module and a style sheet, package data, no build
step, nothing fetched from elsewhere) talks to the server over one WebSocket: the server pushes
the state after every change (no polling) and the page sends requests. Security: the server
listens on 127.0.0.1 unless told otherwise; every request, the WebSocket included, carries the
secret token of the printed address and a ``Host`` header naming this server, or gets 403; and
the page can only use the engines of the command line, never start a program of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import sys
import webbrowser
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import click

from zengine.cli import fail
from zengine.engine.game import GameError
from zengine.engine.text import shown
from zengine.engine.variants import make_rules, variant_names
from zengine.tools.referee.config import ConfigError, Timeouts
from zengine.tools.referee.options import engine_config
from zengine.tools.referee.words import key_values

#: What the page's files are served as.
PAGE_FILES = {
    "gui.js": "text/javascript",
    "gui.css": "text/css",
}
#: The limit an engine of the command line gets when it names none (the page may change it).
DEFAULT_LIMIT = {"st": "1"}
#: The most pages connected at once (each is a WebSocket).
MAX_CLIENTS = 32
#: The largest request a page may send, in bytes (a PGN to load).
MAX_MESSAGE = 1 << 20
#: At Ctrl-C, how long a page's socket is given to close, in seconds.
CLOSE_WAIT_S = 0.3

HELP = """Play, watch and analyse Zola and Zhadu in a browser.

\b
zengine gui [--engine KEY=VALUE...]... [--variant V] [--human p1|p2|both|none]
            [--port N] [--host H] [--no-browser] [--watch DIR]

\b
--engine KEY=VALUE...   an engine the page may use, with the keys of zengine match
                        (cmd=, name=, proto=, st=, tc=, depth=, nodes=, option.X=,
                        timeout.X=); repeatable. Default: the built-in engine.
--variant V             the first game: {variants} (default {first})
--human p1|p2|both|none who plays the first game: a person as p1 (default) or p2
                        against the first engine, two people, or two engines
--port N                the port (default 8000; 0: a free one)
--host H                the address to listen on (default 127.0.0.1)
--no-browser            do not open the page in a browser
--watch DIR             follow the zengine match writing to DIR (its own page)

Prints the page's address with its secret token and runs until Ctrl-C.
Needs the extra: pip install 'zengine[gui]'.
"""

#: Option -> how many words it takes (None: the words up to the next option).
OPTIONS: dict[str, int | None] = {
    "engine": None,
    "variant": 1,
    "human": 1,
    "port": 1,
    "host": 1,
    "no-browser": 0,
    "watch": 1,
}


@dataclass
class Settings:
    """The command line of ``zengine gui``, checked."""

    engines: list[dict[str, str]] = field(default_factory=list)
    variant: str = ""
    human: str = "p1"
    port: int = 8000
    host: str = "127.0.0.1"
    browser: bool = True
    watch: str | None = None


def parse_args(args: list[str]) -> Settings | None:
    """The settings of the command line (None: the help was asked); ConfigError if bad."""
    settings = Settings(variant=variant_names()[0])
    i = 0
    while i < len(args):
        token = args[i]
        if token in ("-h", "--help"):
            return None
        name = token[2:] if token.startswith("--") else None
        if name is None or name not in OPTIONS:
            known = ", ".join("--" + o for o in OPTIONS)
            raise ConfigError(f"unknown option '{shown(token)}' (known: {known})")
        arity = OPTIONS[name]
        i += 1
        words: list[str] = []
        while i < len(args) and (arity is None or len(words) < arity):
            if args[i].startswith("--"):
                break
            words.append(args[i])
            i += 1
        if arity is not None and len(words) != arity:
            raise ConfigError(f"--{name} needs {arity} value{'s' if arity > 1 else ''}")
        if name == "engine":
            settings.engines.append(key_values(name, words))
        elif name == "variant":
            try:
                make_rules(words[0])
            except GameError as exc:
                raise ConfigError(f"--variant: {exc}") from None
            settings.variant = words[0].lower()
        elif name == "human":
            if words[0] not in ("p1", "p2", "both", "none"):
                raise ConfigError(f"--human {shown(words[0])}: must be p1, p2, both or none")
            settings.human = words[0]
        elif name == "port":
            if not words[0].isascii() or not words[0].isdigit() or int(words[0]) > 65535:
                raise ConfigError(f"--port {shown(words[0])}: must be a number from 0 to 65535")
            settings.port = int(words[0])
        elif name == "host":
            settings.host = words[0]
        elif name == "no-browser":
            settings.browser = False
        elif name == "watch":
            settings.watch = words[0]
    return settings


def engine_seats(settings: Settings) -> tuple[dict[str, Any], dict[str, str]]:
    """The engines of the command line by name, and the first one's limits (the page's
    default); ConfigError for a bad engine."""
    from zengine.tools.gui.engines import EngineSeat
    from zengine.tools.referee.programs import check_commands

    given = settings.engines or [{}]
    configs = []
    for keys in given:
        if not any(k in keys for k in ("tc", "st", "depth", "nodes")):
            keys = {**keys, **DEFAULT_LIMIT}
        configs.append(engine_config(keys, Timeouts()))
    names = [c.name for c in configs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"--engine: two engines are named {twice[0]} (give each its own name=)")
    check_commands(configs)
    limits = configs[0].limits.keys()
    limits.pop("timemargin", None)
    first = next(iter(limits.items()))
    return {c.name: EngineSeat(c) for c in configs}, dict([first])


class Server:
    """The web server: the page, the WebSocket, the token and Host checks."""

    def __init__(self, settings: Settings, token: str) -> None:
        self.settings = settings
        self.token = token
        self.clients: set[Any] = set()
        self.table: Any = None
        self.watcher: Any = None
        self.hosts: set[str] = set()
        self._sending: set[asyncio.Task[None]] = set()
        #: Stopping: no new page is taken (a page reconnects at once when its socket closes).
        self.closing = False

    def allowed(self, request: Any) -> bool:
        """Whether a request carries the token and names this server in its Host header."""
        given = request.query.get("token", "")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return False
        return request.headers.get("Host", "").lower() in self.hosts

    def publish(self, message: dict[str, Any]) -> None:
        """Send a message to every page."""
        text = json.dumps(message)
        for ws in list(self.clients):
            if not ws.closed:
                task = asyncio.get_running_loop().create_task(_send(ws, text))
                self._sending.add(task)  # kept until done: the loop holds tasks weakly
                task.add_done_callback(self._sending.discard)

    async def page(self, request: Any) -> Any:
        from aiohttp import web

        name = request.match_info.get("name", "index.html")
        if name == "index.html":
            text = _page_text("index.html").replace("{{TOKEN}}", self.token)
            return web.Response(text=text, content_type="text/html", headers=_NO_STORE)
        if name not in PAGE_FILES:
            raise web.HTTPNotFound()
        return web.Response(text=_page_text(name), content_type=PAGE_FILES[name], headers=_NO_STORE)

    async def socket(self, request: Any) -> Any:
        from aiohttp import WSMsgType, web

        if len(self.clients) >= MAX_CLIENTS or self.closing:
            raise web.HTTPServiceUnavailable(text="too many pages open, or stopping")
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30)
        await ws.prepare(request)
        self.clients.add(ws)
        try:
            await ws.send_str(json.dumps(self.hello()))
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                reply = self.handle(msg.data)
                if reply is not None:
                    await ws.send_str(json.dumps(reply))
        finally:
            self.clients.discard(ws)
        return ws

    def hello(self) -> dict[str, Any]:
        """What a page gets first: the game, or the match followed."""
        if self.watcher is not None:
            return dict(self.watcher.snapshot())
        return dict(self.table.snapshot())

    def handle(self, data: str) -> dict[str, Any] | None:
        """One request of a page; the reply for that page only, if any."""
        from zengine.tools.gui.table import RequestError

        try:
            message = json.loads(data)
            if not isinstance(message, dict):
                raise RequestError("a request is a JSON object")
            if self.table is None:
                raise RequestError("this page follows a match: there is no game to change")
            reply: dict[str, Any] | None = self.table.request(message)
            return reply
        except (RequestError, ValueError) as exc:
            return {
                "type": "error",
                "text": str(exc).splitlines()[0] if str(exc) else "bad request",
            }


_NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


async def _send(ws: Any, text: str) -> None:
    with contextlib.suppress(Exception):  # a page gone meanwhile
        await ws.send_str(text)


def _page_text(name: str) -> str:
    return resources.files("zengine.tools.gui").joinpath("page", name).read_text("utf-8")


async def serve(settings: Settings) -> None:
    """Run the server until cancelled (Ctrl-C), then stop every engine."""
    from aiohttp import web

    token = secrets.token_urlsafe(24)
    server = Server(settings, token)

    @web.middleware
    async def guard(request: Any, handler: Any) -> Any:
        if not server.allowed(request):
            return web.Response(status=403, text="403: forbidden (no valid token or Host)\n")
        return await handler(request)

    app = web.Application(middlewares=[guard], client_max_size=MAX_MESSAGE)
    app.router.add_get("/", server.page)
    app.router.add_get("/ws", server.socket)
    app.router.add_get("/{name}", server.page)
    runner = web.AppRunner(
        app, access_log=None, handle_signals=False, shutdown_timeout=CLOSE_WAIT_S
    )
    await runner.setup()
    try:
        if settings.watch is not None:
            from zengine.tools.gui.watch import Watcher

            server.watcher = Watcher(settings.watch, server.publish)
        else:
            from zengine.tools.gui.table import Table

            seats, limits = engine_seats(settings)
            server.table = Table(seats, limits, settings.variant, settings.human, server.publish)
        site = web.TCPSite(runner, settings.host, settings.port, reuse_address=True)
        await site.start()
        port = _bound_port(site)
        for name in {settings.host, "127.0.0.1", "localhost"}:
            server.hosts.add(f"{name}:{port}".lower())
            if ":" in name:  # an IPv6 address is written in brackets
                server.hosts.add(f"[{name}]:{port}".lower())
        shown_host = "127.0.0.1" if settings.host in ("127.0.0.1", "0.0.0.0", "") else settings.host
        address = f"http://{shown_host}:{port}/?token={token}"
        click.echo(f"zengine gui: {address}")
        sys.stdout.flush()
        if settings.browser:
            with contextlib.suppress(Exception):  # no browser: the address is printed
                webbrowser.open(address)
        if server.watcher is not None:
            await server.watcher.run()
        else:
            await asyncio.Event().wait()
    finally:
        server.closing = True
        if server.table is not None:
            server.table.close()
        for ws in list(server.clients):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), CLOSE_WAIT_S)
        await runner.cleanup()


def _bound_port(site: Any) -> int:
    server = site._server  # aiohttp keeps the asyncio server; its sockets know the port
    for sock in server.sockets:
        return int(sock.getsockname()[1])
    raise OSError("the server has no socket")


@click.command(
    "gui",
    help=HELP.format(variants=" ".join(variant_names()), first=variant_names()[0]),
    add_help_option=False,
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def gui_command(ctx: click.Context, args: tuple[str, ...]) -> None:
    where = ctx.command_path
    try:
        settings = parse_args(list(args))
    except ConfigError as exc:
        fail(where, str(exc))
    if settings is None:
        click.echo(ctx.get_help())
        return
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        fail(where, "the GUI needs its extra: pip install 'zengine[gui]'", 1)
    if settings.host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"zengine gui: warning: listening on {settings.host}: others may reach the page"
            " (the token still guards it)",
            err=True,
        )
    if settings.watch is None:
        try:
            engine_seats(settings)
        except ConfigError as exc:
            fail(where, str(exc))
    try:
        asyncio.run(serve(settings))
    except OSError as exc:
        fail(where, f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}", 1)
