"""Shared test helpers: tests import modules from this folder (naive generators, data), and
the fixture that registers the test game."""

import shutil
import signal
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
# The referee's tests' shared helpers assert too: their failures show the values, as in a test.
pytest.register_assert_rewrite("fake_match")


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt in this process for one test, as Python sets it up in a
    command started at a prompt: a run started in the background (``pytest &``, ``nohup``)
    has SIGINT ignored, and a test that sends one to itself would see nothing happen."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def third_game():
    """The test game Hexapawn (tests/hexapawn.py) registered for one test, then forgotten, so
    that the tests of other modules see the built-in games only."""
    import hexapawn

    from zengine.engine import variants

    variants.game_names()  # installed plugins first, so that the snapshot holds them
    saved = dict(variants.GAMES)
    variants.register_game(hexapawn.HexapawnRules)
    yield hexapawn.HexapawnRules
    variants.GAMES.clear()
    variants.GAMES.update(saved)


@pytest.fixture
def make_plugin(tmp_path):
    """Lay out an installed plugin distribution, as pip would write it, in a new folder:
    ``make_plugin({"hexapawn": "hexapawn:HexapawnRules"}, "hexapawn.py")`` writes a dist-info
    declaring those ``zengine.games`` entry points and copies the named modules from tests/.
    Returns the folder, for ``sys.path`` or ``PYTHONPATH``."""
    made = []

    def make(entries: dict[str, str], *modules: str) -> Path:
        where = tmp_path / f"plugin{len(made)}"
        info = where / f"zengine_plugin{len(made)}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: zengine-plugin{len(made)}\nVersion: 1.0\n"
        )
        lines = [f"{name} = {value}" for name, value in entries.items()]
        (info / "entry_points.txt").write_text("\n".join(["[zengine.games]", *lines, ""]))
        for module in modules:
            shutil.copy(TESTS / module, where / module)
        made.append(where)
        return where

    return make
