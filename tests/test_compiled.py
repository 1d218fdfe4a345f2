"""The compiled build: which build the suite runs against, and the build hook's clear refusals.

``ZENGINE_EXPECT_COMPILED=1`` (a run against the compiled build, after ``ZENGINE_COMPILE=1 pip
install '.[test]'``; docs/search.md, "Compiled build") makes the suite fail unless every module
pyproject.toml lists for mypyc was loaded as a compiled extension, so that run cannot pass by
testing the pure-Python files; ``=0`` makes it fail if any of them was, so the run of the pure
build, the reference, cannot pass on stray compiled modules. CI (.ci/run) makes both runs.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPECT = os.environ.get("ZENGINE_EXPECT_COMPILED")


def compiled_modules() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        modules: list[str] = tomllib.load(file)["tool"]["zengine"]["compiled"]
    return modules


def is_extension(module: str) -> bool:
    origin = importlib.import_module(module).__file__ or ""
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


@pytest.mark.skipif(EXPECT is None, reason="ZENGINE_EXPECT_COMPILED is not set")
@pytest.mark.parametrize("module", compiled_modules())
def test_build_is_the_expected_one(module: str) -> None:
    assert EXPECT in ("0", "1"), f"ZENGINE_EXPECT_COMPILED is 0 or 1, not {EXPECT!r}"
    assert is_extension(module) == (EXPECT == "1"), importlib.import_module(module).__file__


def test_zola_evaluation_form_fits_the_build() -> None:
    # Compiled, the evaluation in machine words is the fast one; interpreted, the one in whole
    # ints (engine/zola_eval.py). Both give the same values (tests/test_eval.py).
    from zengine.engine import zola_eval

    compiled = is_extension("zengine.engine.zola_eval")
    expected = zola_eval.evaluate_words if compiled else zola_eval.evaluate_ints
    assert zola_eval.evaluate is expected


def test_zola_state_form_fits_the_build() -> None:
    # Compiled, the rules in machine words (engine/zola_words.py) are the fast form;
    # interpreted, the big ints. tests/test_zola.py holds the two forms equal.
    from zengine.engine import zola

    compiled = is_extension("zengine.engine.zola_words")
    expected = zola.ZolaWordState if compiled else zola.ZolaState
    assert zola.STATE_CLASS is expected
    assert type(zola.ZolaRules(8).start()) is expected


def test_compiled_list_names_existing_engine_modules() -> None:
    for module in compiled_modules():
        path = ROOT / (module.removeprefix("zengine.").replace(".", "/") + ".py")
        assert module.startswith("zengine.engine.") and path.is_file(), module


def _build(env: dict[str, str], hook: str) -> subprocess.CompletedProcess[str]:
    """One PEP 517 hook of the project's backend, run the way pip runs it (in its folder)."""
    script = (
        "import sys; sys.path.insert(0, 'build_backend'); import backend; "
        f"print(backend.{hook}(None))"
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_pure_build_asks_for_no_compiler_tool() -> None:
    done = _build({"ZENGINE_COMPILE": "0"}, "get_requires_for_build_wheel")
    assert done.returncode == 0, done.stderr
    assert "mypy" not in done.stdout


def test_compiled_build_brings_mypy() -> None:
    done = _build({"ZENGINE_COMPILE": "1"}, "get_requires_for_build_wheel")
    assert done.returncode == 0, done.stderr
    assert "mypy" in done.stdout


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ZENGINE_COMPILE": "1", "CC": "/nonexistent/cc"}, "no C compiler (/nonexistent/cc"),
        ({"ZENGINE_COMPILE": "yes"}, "ZENGINE_COMPILE is 1 (compile the hot modules) or 0"),
    ],
)
def test_compiled_build_refuses_in_one_line(env: dict[str, str], message: str) -> None:
    """No compiler (or a misspelt request) stops the build at its first step, in one line."""
    done = _build(env, "get_requires_for_build_wheel")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("error: ") and message in lines[-1], done.stderr
    assert "Traceback" not in done.stderr


def test_compiled_build_is_never_editable() -> None:
    done = _build({"ZENGINE_COMPILE": "1"}, "get_requires_for_build_editable")
    assert done.returncode != 0
    assert done.stderr.strip().startswith("error: ZENGINE_COMPILE=1 builds a regular install")
