"""Build script: the pure-Python package, or with ``ZENGINE_COMPILE=1`` its hot modules compiled.

The metadata lives in pyproject.toml; this file only adds, on request, the extension modules
that mypyc compiles from the same source files. build_backend/backend.py reads the request,
checks the compiler and brings mypy into the build. Without the request the wheel is pure
Python and needs no compiler.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "build_backend"))
from backend import check_toolchain, compile_requested, fail  # noqa: E402


def compiled_sources() -> list[str]:
    """The modules to compile, as paths inside the package (pyproject.toml, ``[tool.zengine]``)."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        modules: list[str] = tomllib.load(file)["tool"]["zengine"]["compiled"]
    return [module.removeprefix("zengine.").replace(".", "/") + ".py" for module in modules]


def ext_modules() -> list[Extension]:
    """mypyc's extension modules if ``ZENGINE_COMPILE=1``, else none."""
    if not compile_requested():
        return []
    check_toolchain()
    try:
        from mypyc.build import mypycify
    except ImportError:
        fail("mypyc is missing from the build environment (pip install mypy)")
    # mypyc names a module after the folders holding __init__.py above it, and the repository
    # root, the package zengine, may have any name: it reads the sources through a link named
    # zengine, as .ci/check does for mypy.
    stage = ROOT / "build" / "mypyc-src"
    stage.mkdir(parents=True, exist_ok=True)
    link = stage / "zengine"
    if not link.is_symlink():
        link.symlink_to(ROOT, target_is_directory=True)
    os.chdir(ROOT)
    extensions = mypycify(
        [str((link / source).relative_to(ROOT)) for source in compiled_sources()],
        opt_level="3",
        # One shared library inside the package, not a top-level module beside it.
        group_name="zengine.engine.compiled",
    )
    for extension in extensions:
        # The compiled functions call each other through the library's exported symbols;
        # without interposition the C compiler may inline them (measured: the word form's
        # popcount was a sixth of perft's time as a call through the PLT).
        extension.extra_compile_args.append("-fno-semantic-interposition")
    return extensions


# The setup script by its name: setuptools leaves it out of the package (the repository root,
# where it lives) only when it knows its name, which a PEP 517 build does not pass on.
setup(ext_modules=ext_modules(), script_name="setup.py")
