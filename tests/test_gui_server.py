"""``zengine gui`` as a process, without a browser: its command line, its guard (token and
Host header), the game over its WebSocket (a PGN saved and loaded back)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest
from gui_pages import default_sigint, gui

from zengine.tools.referee.programs import builtin_engine

aiohttp = pytest.importorskip("aiohttp")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--port", "x"], "--port x: must be a number from 0 to 65535"),
        (["--variant", "chess"], "--variant: unknown game 'chess'"),
        (["--human", "p3"], "--human p3: must be p1, p2, both or none"),
        (["--engine", "cmd=/no/such/engine"], "/no/such/engine"),
        (["--engine", "depth=0"], "depth="),
        (["--bogus"], "unknown option '--bogus'"),
        (["--engine", "name=a", "--engine", "name=a"], "two engines are named a"),
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_2(args, words):
    run = subprocess.run(
        [*builtin_engine(), "gui", "--no-browser", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2, run
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("zengine gui: error: ") and words in lines[0]


def status(url: str, host: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_only_the_token_and_this_host_are_served():
    with gui("--human", "both") as address:
        parts = urlsplit(address)
        base = f"{parts.scheme}://{parts.netloc}"
        token = parts.query.split("=", 1)[1]
        assert status(address) == 200
        assert status(f"{base}/gui.js?token={token}") == 200
        for path in ("/", "/gui.js", "/ws", "/?token=wrong", f"/ws?token={token}x"):
            assert status(base + path) == 403, path
        assert status(address, host="evil.example") == 403
        assert status(address, host=f"evil.example:{parts.port}") == 403
        assert status(address, host=f"localhost:{parts.port}") == 200
        assert status(f"{base}/nothing?token={token}") == 404

        async def refused() -> int:
            async with aiohttp.ClientSession() as session:
                try:
                    await session.ws_connect(f"ws://{parts.netloc}/ws?token=bad")
                except aiohttp.WSServerHandshakeError as exc:
                    return exc.status
            return 101

        assert asyncio.run(refused()) == 403


async def _talk(address: str, requests: list[dict]) -> list[dict]:
    """Send each request and collect every message up to its answer (a state or a reply)."""
    parts = urlsplit(address)
    got = []
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"ws://{parts.netloc}/ws?{parts.query}") as ws:
            got.append(json.loads((await ws.receive(timeout=60)).data))
            for request in requests:
                await ws.send_str(json.dumps(request))
                while True:
                    message = json.loads((await ws.receive(timeout=60)).data)
                    got.append(message)
                    if message["type"] in ("state", "pgn", "error"):
                        break
    return got


def test_a_game_saved_as_pgn_loads_back():
    with gui("--human", "both", "--variant", "zhadu") as address:
        moves = ["123@b0", "123@g0", "4@a0"]
        requests = [{"type": "move", "move": m, "ply": i} for i, m in enumerate(moves)]
        got = asyncio.run(_talk(address, [*requests, {"type": "save"}]))
        pgn = got[-1]["text"]
        assert got[-1]["type"] == "pgn"
        assert '[Variant "zhadu links full quiet 100"]' in pgn and '[Result "*"]' in pgn
        assert "1. 123@b0" in pgn and pgn.rstrip().endswith("*")
        position = [m for m in got if m["type"] == "state"][-1]["position"]
        loaded = asyncio.run(
            _talk(address, [{"type": "new", "mode": "humans"}, {"type": "load", "pgn": pgn}])
        )
        state = loaded[-1]
        assert [m["text"] for m in state["moves"]] == moves and state["position"] == position
        bad = asyncio.run(_talk(address, [{"type": "load", "pgn": pgn.replace("4@a0", "4@z9")}]))
        assert bad[-1]["type"] == "error" and bad[-1]["text"].startswith("cannot load the game")
        wrong = asyncio.run(_talk(address, [{"type": "setup", "fen": "nonsense"}]))
        assert wrong[-1]["type"] == "error"


def test_without_the_extra_it_says_how_to_install_it():
    code = (
        "import sys; sys.modules['aiohttp'] = None; sys.argv = ['zengine', 'gui', '--no-browser'];"
        " from zengine.__main__ import main; main()"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == "zengine gui: error: the GUI needs its extra: pip install 'zengine[gui]'\n"


def test_another_host_is_warned_of():
    proc = subprocess.Popen(
        [*builtin_engine(), "gui", "--no-browser", "--port", "0", "--host", "127.0.0.2"],
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        warning = proc.stderr.readline()
        assert warning.startswith("zengine gui: warning: listening on 127.0.0.2: ")
        line = proc.stdout.readline()
        assert line.startswith("zengine gui: http://127.0.0.2:")
        assert status(line.split()[2]) == 200
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 130


def test_a_person_who_does_not_move_loses_on_time():
    with gui() as address:
        new = {"type": "new", "mode": "play", "human": "p1", "limits": {"tc": "0.5+0"}}

        async def until_over() -> dict:
            parts = urlsplit(address)
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(f"ws://{parts.netloc}/ws?{parts.query}") as ws:
                    await ws.receive(timeout=60)
                    await ws.send_str(json.dumps(new))
                    while True:
                        message = json.loads((await ws.receive(timeout=60)).data)
                        if message["type"] == "state" and message["over"]:
                            return message

        state = asyncio.run(until_over())
        assert state["status"] == "0-1: human lost on time"
        assert state["moves"] == [] and state["picks"] is None and state["running"] is None
